"""The CPU backend: a schedule of kernel nodes -> one generated numba module -> an Executable.

    BACKENDS["cpu"](graph, optimized, schedule, plan) -> Executable

Every kernel is generated as an @njit function (codegen/cpu_kernels.py); the whole schedule becomes
ONE @njit entry per signature (codegen/entry.py), into which the serial kernels without fastmath
flags are written as plain statements (numba then types and optimizes one function, not one per
kernel: most of a cold compile), and which calls the others. The entry takes the inputs, the
array constants, an arena for the intermediates (reused across calls; a fresh one only when a
call re-enters) and the output arrays (from the caching host allocator). The Python side of a
call is: make inputs C-contiguous, take outputs from the pool, one call into machine code.

Host ops. `random` runs outside the entry, with the NumPy reference: the reference stream is
NumPy's Philox generator, which numba cannot reproduce bit for bit. A schedule containing one is
cut there into segments, one entry each, with the host op's result passed to the later ones.

A kernel whose body a generator cannot handle is split into single-op kernels (each always
supported); if even that fails, the backend returns None and the interpreter runs the graph.
"""
from __future__ import annotations

import glob
import os
import threading
import time
from functools import partial

import numpy as np

from ..ir.errors import check_error
from ..ir.kernel import KERNEL, single_op_kernel, unfused_schedule
from ..ir.ops import Op
from ..ir.printer import ident
from ..ir.reference import evaluate
from ..runtime import allocator, config, threads
from . import disk_cache
from .cpu_kernels import GENERATORS
from .entry import (ModuleBuilder, arena_layout, arena_view, entry_source, flat_view,
                    inline_kernel)

HOST_OPS = frozenset({Op.random})
_ALIAS_OPS = frozenset({Op.reshape, Op.stop_gradient})   # same bytes, other type: no copy


def _kernel_nodes(optimized, schedule):
    if schedule and all(getattr(n, "op", None) == KERNEL for n in schedule):
        return list(schedule)
    if optimized.nodes and all(n.op == KERNEL for n in optimized.nodes):
        return list(optimized.nodes)
    return unfused_schedule(optimized).nodes


def _split(node):
    """A kernel's body as single-op kernels wired to the outer values."""
    body = node.params["body"]
    if any(v in body.inputs for v in body.outputs):
        raise NotImplementedError("cpu codegen: a kernel output that is one of its inputs")
    env = dict(zip(body.inputs, node.inputs))
    outer = dict(zip(body.outputs, node.outputs))
    out = []
    for i, n in enumerate(body.nodes):
        k = single_op_kernel(n, f"{body.name}_{i}")
        k.inputs = tuple(env.get(v, v) for v in n.inputs)
        k.outputs = tuple(outer.get(v, v) for v in n.outputs)
        env.update(zip(n.outputs, k.outputs))
        out.append(k)
    return out


LONG_LOOP = 1024     # elements: below, a kernel's loops gain little from SIMD


def _work(node):
    """The largest array a kernel reads or writes, in elements."""
    body = node.params["body"]
    return max([v.type.size for n in body.nodes for v in (*n.inputs, *n.outputs)] + [0])


def _only_op(node):
    nodes = node.params["body"].nodes
    return nodes[0].op if len(nodes) == 1 else None


class _Program:
    """Buffers, kernels and entries of one schedule, as Python data and generated source."""

    def __init__(self, graph, nodes, plan=None, native=False):
        self.graph, self.plan = graph, plan
        self.index = {n: i for i, n in enumerate(nodes)}     # schedule position (memory plan)
        self.mb = ModuleBuilder(native)
        self.flat = {}          # Value -> name of its flat array inside an entry
        self.bind = {}          # flat name -> binding expression
        self.consts = []        # writable copies of array constants, in parameter order
        self._const_index = {}
        self.outputs = []       # Values written into output arrays, in parameter order
        self.hosts = []         # host-op nodes, in parameter order
        self.arena_values = []
        self.aliases = {}
        for i, v in enumerate(graph.inputs):
            self._name(v, f"xf{i}", flat_view(f"x{i}", v.type))
        self.segments = []      # ("entry", [(KernelSource, node)]) | ("host", node)
        self._count = 0
        for n in nodes:
            self._plan(n)

    def _name(self, v, name, expr):
        self.flat.setdefault(v, name)
        self.bind[name] = expr

    def _const(self, lit):
        j = self._const_index.get(lit.digest)
        if j is None:
            j = self._const_index[lit.digest] = len(self.consts)
            self.consts.append(np.array(lit.array, order="C"))   # writable, C-ordered
        return j

    def _plan(self, n):
        op = _only_op(n)
        if op == Op.constant:
            j = self._const(n.params["body"].nodes[0].params["value"])
            self._name(n.outputs[0], f"cf{j}", flat_view(f"cv{j}", n.outputs[0].type))
            return
        if op in HOST_OPS:
            (v,) = n.outputs
            j = len(self.hosts)
            self.hosts.append(n)
            self._name(v, f"hf{j}", flat_view(f"h{j}", v.type))
            self.segments.append(("host", n))
            return
        outs = set(self.graph.outputs)
        src = n.inputs[0] if n.inputs else None
        if op in _ALIAS_OPS and self.plan is None and n.outputs[0] not in outs \
                and src in self.flat and src.type.dtype == n.outputs[0].type.dtype:
            self.flat[n.outputs[0]] = self.flat[src]
            return
        kind = n.params["kind"]
        name = f"k{self._count}_{kind}"
        self._count += 1
        self.mb.product_hint = self._product_hint(n)
        self.mb.long_loop = _work(n) >= LONG_LOOP
        try:
            ks = GENERATORS[kind](self.mb, name, n)
        except NotImplementedError as e:
            if len(n.params["body"].nodes) == 1:
                raise
            config.log(1, f"cpu codegen: {e}; splitting kernel {name} into single ops")
            for part in _split(n):
                self._plan(part)
            return
        self.mb.kernels.append(ks)
        for lit in ks.consts:
            self._const(lit)
        donated = getattr(self.plan, "donated", {})
        for v in n.outputs:
            if v in self.flat:
                continue
            if v in donated:
                self.flat[v] = f"xf{donated[v]}"
            elif v in outs:
                k = len(self.outputs)
                self.outputs.append(v)
                self._name(v, f"of{k}", flat_view(f"o{k}", v.type))
            else:
                self.arena_values.append(v)
        if not self.segments or self.segments[-1][0] != "entry":
            self.segments.append(("entry", []))
        self.segments[-1][1].append((ks, n))

    def _product_hint(self, n):
        """Where the memory plan puts matmul kernel n's product: ("output", body value) or
        ("scratch", arena offset); None without a plan."""
        i = self.index.get(n)
        if self.plan is None or i is None or n.params["kind"] != "matmul":
            return None
        if i in self.plan.product:
            body_of = dict(zip(n.outputs, n.params["body"].outputs))
            return "output", body_of[self.plan.product[i]]
        if i in self.plan.scratch:
            return "scratch", self.plan.scratch[i][0]
        return None

    def layout(self, plan):
        offsets = getattr(plan, "offsets", None) if plan is not None else None
        if not offsets or any(v not in offsets for v in self.arena_values):
            offsets, size = arena_layout(self.arena_values)
        else:
            size = max(int(plan.peak_bytes), 64)
        for j, v in enumerate(self.arena_values):
            self._name(v, f"b{j}", arena_view(offsets[v], v.type))
        self.offsets, self.arena_bytes = offsets, size

    def generate(self):
        self.params = ([f"x{i}" for i in range(len(self.graph.inputs))] +
                       [f"h{j}" for j in range(len(self.hosts))] +
                       [f"cv{j}" for j in range(len(self.consts))] + ["arena"] +
                       [f"o{k}" for k in range(len(self.outputs))])
        entries, self.entry_names = [], []
        for kind, items in self.segments:
            if kind != "entry":
                continue
            calls, used = [], []
            for ks, n in items:
                args = [self.flat[v] for v in n.inputs]
                args += [self._const_arg(lit) for lit in ks.consts]
                args += [self.flat[v] for v in n.outputs]
                used += args
                args += ks.extra_args
                if ks.inline:
                    calls += inline_kernel(ks, args, self.mb.global_names())
                else:
                    calls.append(f"{ks.name}({', '.join(args)})")
            bindings = [(nm, self.bind[nm]) for nm in dict.fromkeys(used) if nm in self.bind]
            ename = f"entry{len(self.entry_names)}"
            self.entry_names.append(ename)
            entries.append(entry_source(ename, self.params, bindings, calls,
                                        f"{ename}: {len(items)} kernels of graph {ident(self.graph.name)}",
                                        any("st" in ks.extra_args for ks, _ in items)))
        return self.mb.source(f"jitgrad kernels for graph {ident(self.graph.name)}", entries)

    def _const_arg(self, lit):
        j = self._const(lit)
        name = f"cf{j}"
        self.bind[name] = flat_view(f"cv{j}", self.consts[j])
        return name


# ----------------------------------------------------------------------------- loading

def _array_type(ndim, dtype):
    from numba import from_dtype, types
    return types.Array(from_dtype(np.dtype(dtype)), ndim, "C")


def _load(prog, name, source):
    """Import the module from the cache directory and compile (or load) every entry. A numba
    cache entry that fails to load is deleted and compiled afresh."""
    sig = tuple(_array_type(t.ndim, t.dtype) for t in _param_types(prog))
    for attempt in (0, 1):
        try:
            module, status = disk_cache.load_module(name, source)
            t0 = time.perf_counter()
            fns = [getattr(module, e).compile(sig) for e in prog.entry_names]
            dt = time.perf_counter() - t0
            disk_cache.seal(name)
            hits = sum(sum(getattr(module, e).stats.cache_hits.values()) for e in prog.entry_names)
            how = "numba cache hit" if hits == len(fns) else "numba compiled"
            config.log(1, f"kernel cache {status}: {name} ({how}, {dt:.3f} s)")
            return module, fns
        except Exception as e:  # noqa: BLE001 - a damaged numba cache file; rebuild once
            if attempt:
                raise
            config.log(1, f"kernel cache: loading {name} failed ({type(e).__name__}: {e}); rebuilding")
            disk_cache.drop_numba_cache(name)


class _T:
    """A parameter's (ndim, dtype)."""
    __slots__ = ("ndim", "dtype")

    def __init__(self, ndim, dtype):
        self.ndim, self.dtype = ndim, dtype


def _param_types(prog):
    g = prog.graph
    return ([_T(v.type.ndim, v.type.dtype) for v in g.inputs] +
            [_T(n.outputs[0].type.ndim, n.outputs[0].type.dtype) for n in prog.hosts] +
            [_T(c.ndim, c.dtype) for c in prog.consts] + [_T(1, np.uint8)] +
            [_T(v.type.ndim, v.type.dtype) for v in prog.outputs])


# ----------------------------------------------------------------------------- running

class _Runner:
    """run(arrays) -> outputs: the Python side of a call, kept small (per-call overhead)."""

    def __init__(self, prog, fns):
        g = prog.graph
        self.fns = fns
        self.checks = prog.mb.checks
        self.consts = prog.consts
        # small outputs come from malloc (warm already), large ones from the caching pool
        self.makers = [partial(np.empty if v.type.nbytes < allocator.SMALL else allocator.empty,
                               v.type.shape, v.type.dtype) for v in prog.outputs]
        self.host_specs = [(n.outputs[0].type.shape, n.outputs[0].type.dtype) for n in prog.hosts]
        self.arena_bytes = prog.arena_bytes
        self._arena = np.empty(self.arena_bytes, np.uint8)
        self._busy = threading.Lock()
        self.plan = self._host_plan(prog)
        where = {v: ("o", k) for k, v in enumerate(prog.outputs)}
        self.results = []       # per graph output: index into outs, or a getter for a copy
        seen = set()
        for v in g.outputs:
            if v in where and v not in seen:
                seen.add(v)
                self.results.append(where[v][1])
            else:
                self.results.append(self._getter(prog, v))
        self.simple = (not prog.hosts and len(fns) == 1
                       and self.results == list(range(len(prog.outputs))))

    def _out_of_bounds(self, st):
        """The IndexError of a failed bounds check (status [check number, index])."""
        op, check, size, src = self.checks[st[0] - 1]
        return check_error(op, check, st[1], size, src)

    def _getter(self, prog, v):
        """fn(xs, hs, arena, outs) -> a fresh copy of v (an input, constant, host result, ...)."""
        g = prog.graph
        shape = v.type.shape
        if v in g.inputs:
            i = g.inputs.index(v)
            return lambda xs, hs, arena, outs: np.array(xs[i]).reshape(shape)
        name = prog.flat[v]
        if name.startswith("cf"):
            c = prog.consts[int(name[2:])]
            return lambda xs, hs, arena, outs: np.array(c).reshape(shape)
        if name.startswith("hf"):
            j = int(name[2:])
            return lambda xs, hs, arena, outs: np.array(hs[j]).reshape(shape)
        if name.startswith("of"):
            k = int(name[2:])
            return lambda xs, hs, arena, outs: np.array(outs[k]).reshape(shape)
        if name.startswith("xf"):
            i = int(name[2:])
            return lambda xs, hs, arena, outs: np.array(xs[i]).reshape(shape)
        off, dt = prog.offsets[_source_of(prog, name)], v.type.dtype
        return lambda xs, hs, arena, outs: arena[off:off + v.type.nbytes].view(dt).reshape(shape).copy()

    def _host_plan(self, prog):
        """[("entry", fn) | ("host", node, input getters, j)] in schedule order."""
        steps, e = [], 0
        for kind, item in prog.segments:
            if kind == "entry":
                steps.append(("entry", self.fns[e]))
                e += 1
            else:
                node = item
                gets = [self._getter(prog, v) for v in node.inputs]
                steps.append(("host", node, gets, prog.hosts.index(node)))
        return steps

    def __call__(self, arrays):
        xs = [a if a.flags.c_contiguous else np.ascontiguousarray(a) for a in arrays]
        outs = [make() for make in self.makers]
        if self.simple:
            # one compiled call holding the GIL from start to end: nothing can re-enter it
            # while the arena is in use, so the arena needs no lock
            st = self.fns[0](*xs, *self.consts, self._arena, *outs)
            if st is not None and st[0]:
                raise self._out_of_bounds(st)
            return outs
        locked = self._busy.acquire(blocking=False)
        arena = self._arena if locked else np.empty(self.arena_bytes, np.uint8)   # re-entered
        try:
            return self._segments(xs, outs, arena)
        finally:
            if locked:
                self._busy.release()

    def _segments(self, xs, outs, arena):
        """Entries and host ops in schedule order (Python runs between them)."""
        hs = [allocator.empty(shape, dt) for shape, dt in self.host_specs]
        for step in self.plan:
            if step[0] == "entry":
                st = step[1](*xs, *hs, *self.consts, arena, *outs)
                if st is not None and st[0]:
                    raise self._out_of_bounds(st)
            else:
                _, node, gets, j = step
                ins = [get(xs, hs, arena, outs) for get in gets]
                inner = node.params["body"].nodes[0]
                (res,) = evaluate(inner.op, ins, inner.params, [v.type for v in node.outputs])
                hs[j][...] = res
        return [outs[r] if isinstance(r, int) else r(xs, hs, arena, outs) for r in self.results]


def _source_of(prog, name):
    for v, n in prog.flat.items():
        if n == name and v in prog.offsets:
            return v
    raise KeyError(name)


def _module_files(name):
    """The generated module's source and numba's cache files for it."""
    root = disk_cache.cache_root()
    return [os.path.join(root, name + ".py")] + sorted(
        glob.glob(os.path.join(root, "__pycache__", glob.escape(name) + ".*")))


def compile_cpu(graph, optimized, schedule, plan):
    from ..compiler import Executable
    nodes = _kernel_nodes(optimized, schedule)
    try:
        prog = _Program(optimized, nodes, plan)
    except NotImplementedError as e:
        config.log(1, f"cpu codegen: {e}; running {graph.name} with the interpreter")
        return None
    prog.layout(plan)
    source = prog.generate()
    if config.debug_level() >= 4:
        print(source, flush=True)
    threads.configure()
    name = disk_cache.module_name(str(optimized), source)
    module, fns = _load(prog, name, source)
    run = _Runner(prog, fns)
    run.module = module         # the generated module: its kernels' dispatchers (inspect_asm)
    exe = Executable(graph, optimized, run, nodes, plan, source, "cpu")
    exe.cache_files = partial(_module_files, name)      # what an AOT artifact carries
    return exe
