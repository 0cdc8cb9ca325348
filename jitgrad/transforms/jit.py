"""jg.jit: trace once per signature, compile, and call compiled code afterwards."""
from __future__ import annotations

import functools
import sys
import weakref

import numpy as np

from .. import tree_util
from ..dtypes import default_float
from ..eager.jit_in_autograd import TAKES_GRADIENTS, needs_record, record_call
from ..eager.tensor import Tensor
from ..errors import api_boundary, trimmed
from ..ir import config
from ..ir.autodiff.transform import REVERSE_CALLS
from ..numpy._convert import asarray
from ..trace.closure_check import warn_baked
from ..trace.tracer import Tracer
from ..trace.tracing import call_graph, leaf_array, leaf_names, leaf_spec, trace_to_graph
from . import donation, gc_pause, module_state, pytree_roles
from ..compilation.compile_graph import compile_graph
from .fast_args import fast_args
from .staged import Lowered, device_of
from .static_args import StaticArgs


class Signature:
    """What a compiled function is specialized on: pytree structure, leaf types and devices,
    and the values of static arguments."""
    __slots__ = ("tree", "leaves", "static", "_hash")

    def __init__(self, tree, leaves, static):
        self.tree, self.leaves, self.static = tree, leaves, static
        self._hash = hash((tree, leaves, static))

    def __eq__(self, other):
        return self._hash == other._hash and (self.tree, self.leaves, self.static) == (
            other.tree, other.leaves, other.static)

    def __hash__(self):
        return self._hash


def _fmt_spec(spec):
    t, dev, weak = spec
    return f"{t}{'' if dev == 'cpu' else '@' + str(dev)}{' (weak)' if weak else ''}"


_LIVE = weakref.WeakSet()     # every Jitted: the float mode's change empties their fast paths


def _float_mode_changed(_value) -> None:
    """enable_x64 or default_dtype changed: no fast-path call may run the old mode's code (the
    next call takes the full path, which switches the caches); __call__ need not check."""
    for j in list(_LIVE):
        j._fast = {}


config.on_update("enable_x64", _float_mode_changed)
config.on_update("default_dtype", _float_mode_changed)


class Jitted:
    def __init__(self, fn, static_argnums=(), donate_argnums=(), static_argnames=()):
        self.fn = fn
        self._statics = StaticArgs(fn, getattr(fn, "__name__", "jit"), static_argnums,
                                   static_argnames)
        self.static_argnums = self._statics.nums
        self.static_argnames = tuple(sorted(self._statics.names))
        self.donate_argnums = (donate_argnums,) if isinstance(donate_argnums, int) else tuple(donate_argnums)
        self._donate_pos = {}     # number of positional arguments -> donated positions
        self._cache = {}          # Signature -> _Entry
        self._fast = {}           # fast_args key -> _Entry.fast_caller's call (no Signature built)
        self._mode, self._other_modes = default_float(), {}
        self._last = None
        self.trace_count = 0
        self._transforms = {}     # key -> a Jitted of a transformation of this one
        # updated=(): never copy a wrapped Jitted's __dict__ (fn, _cache) over this one's
        functools.update_wrapper(self, fn, updated=())
        if not hasattr(self, "__name__"):     # functools.partial and other callables have none
            self.__name__ = getattr(getattr(fn, "func", None), "__name__", type(fn).__name__)
        _LIVE.add(self)

    def compiled_transform(self, key, make):
        """jit(make(self)) with this function's static arguments, made once per `key`: how
        grad(jit(f)) runs compiled (transforms/autodiff.py)."""
        t = self._transforms.get(key)
        if t is None:
            t = self._transforms[key] = Jitted(make(self), self.static_argnums, (),
                                               self.static_argnames)
        return t

    def __get__(self, obj, objtype=None):
        return self if obj is None else functools.partial(self, obj)

    # signature ------------------------------------------------------------------------------
    def _static(self, n_args) -> frozenset:
        """static_argnums as non-negative positions (negative ones count from the end); one
        beyond the arguments is an error, not ignored (nothing would be static)."""
        for name, nums in (("static_argnums", self.static_argnums),
                           ("donate_argnums", self.donate_argnums)):
            bad = [i for i in nums if not -n_args <= i < n_args
                   and not (nums is self.static_argnums and self._statics.has_name(i))]
            if bad:
                raise ValueError(f"{self.__name__}: {name}={nums} names argument {bad[0]}, but "
                                 f"it was called with {n_args} positional argument(s)")
        return self._statics.positions(n_args)

    def _split(self, args, kwargs, static_kw=()):
        """static_kw: the static keyword arguments (kept in the signature, not traced)."""
        static, dyn = [], []
        static_pos = self._static(len(args))
        for i, a in enumerate(args):
            if i in static_pos:
                try:
                    hash(a)
                except TypeError:
                    raise TypeError(f"{self.__name__}: static argument {i} of type "
                                    f"{type(a).__name__} is not hashable; static arguments must "
                                    "be hashable (use a tuple, not a list or array)") from None
                static.append((i, a))
            else:
                dyn.append(a)
        leaves, tree = tree_util.tree_flatten((tuple(dyn), kwargs))
        specs = tuple(leaf_spec(x) for x in leaves)
        return Signature(tree, specs, tuple(static) + static_kw), leaves, dyn

    def _explain(self, sig):
        if not config.explain_recompiles() or self._last is None:
            return
        old = self._last
        if old.tree != sig.tree:
            why = f"the argument structure changed: {old.tree} -> {sig.tree}"
        elif old.static != sig.static:
            ch = [f"static argument {i}: {a!r} -> {b!r}" for (i, a), (_, b) in zip(old.static, sig.static) if a != b]
            why = "; ".join(ch) or "static arguments changed"
        else:
            last = self._last_args or ()
            names = leaf_names(self.fn, last, self._static(len(last))) or []
            ch = []
            for k, (a, b) in enumerate(zip(old.leaves, sig.leaves)):
                if a != b:
                    name = names[k] if k < len(names) else f"leaf {k}"
                    ch.append(f"argument '{name}': {_fmt_spec(a)} -> {_fmt_spec(b)}")
            why = "; ".join(ch)
        print(f"[jitgrad] retracing {self.__name__}: {why}", file=sys.stderr, flush=True)

    # tracing --------------------------------------------------------------------------------
    def _trace(self, sig, args, kwargs, dyn):
        self._explain(sig)
        if self.trace_count == 0 and config.debug_level() >= 1:
            warn_baked(self.fn, self.__name__)
        self.trace_count += 1
        config.log(1, f"trace {self.__name__} for ({', '.join(_fmt_spec(s) for s in sig.leaves)})")
        static = dict(sig.static)
        static_kw = {k: v for k, v in static.items() if isinstance(k, str)}

        def inner(*d, **k):
            it = iter(d)
            full = [static[i] if i in static else next(it) for i in range(len(args))]
            return self.fn(*full, **k, **static_kw)
        inner.__name__ = getattr(self.fn, "__name__", "fn")
        # buffer writes (BatchNorm's running statistics) become extra outputs, written back
        traced = module_state.functionalize(inner, self.__name__, closed_over="refuse")
        # trace with abstract leaves (tracers' and tensors' values are not used)
        before = REVERSE_CALLS[0]
        graph, out_tree, captures, _ = trace_to_graph(
            traced, tuple(dyn), kwargs, name=inner.__name__,
            leaf_names=leaf_names(self.fn, args, self._static(len(args))))
        if REVERSE_CALLS[0] != before:
            TAKES_GRADIENTS.add(graph)
        self._last, self._last_args = sig, args
        return graph, out_tree.children[0], captures, tuple(traced.written)

    def _use_float_mode(self):
        """Python floats trace to the default float dtype (jg.config enable_x64,
        jg.set_default_dtype): one pair of caches per default float dtype."""
        mode = default_float()
        if mode is not self._mode:
            self._other_modes[self._mode] = (self._cache, self._fast)
            self._cache, self._fast = self._other_modes.pop(mode, ({}, {}))
            self._mode = mode

    def __call__(self, *args, **kwargs):
        # api_boundary's trimming inline, and the fast path first: a call of arguments whose
        # fast_args key ran before is this frame, the key's walk and the filed call (filed for
        # the current float mode: _float_mode_changed empties them)
        try:
            if self.donate_argnums and donation.applies(args):
                # (no fast_args before: holding the arrays would make them look shared)
                args, consumed = donation.prepare_args(args, self._donate_positions(len(args)),
                                                       self.__name__)
                try:
                    return self._call(args, kwargs, None if kwargs else fast_args(args))
                finally:
                    donation.consume(consumed, self.__name__)
            fast_in = None if kwargs else fast_args(args)
            if fast_in is not None:
                fast = self._fast.get(fast_in[0])
                if fast is not None:
                    return fast(fast_in[1])
            return self._call(args, kwargs, fast_in)
        except Exception as e:
            raise trimmed(e) from e.__cause__

    def _call(self, args, kwargs, fast_in):
        """fast_in: fast_args(args), or None (keyword arguments, or not fast path arguments)."""
        if default_float() is not self._mode:
            self._use_float_mode()
        if fast_in is not None and self.donate_argnums:     # (__call__ looked up the others)
            fast = self._fast.get(fast_in[0])
            if fast is not None:
                return fast(fast_in[1])
        kwargs, static_kw = self._statics.split_kwargs(kwargs, self.__name__)
        sig, leaves, dyn = self._split(args, kwargs, static_kw)
        entry = self._cache.get(sig)
        if entry is None:
            with gc_pause.paused():
                graph, out_tree, captures, writes = self._trace(sig, args, kwargs, dyn)
            entry = _Entry(graph, out_tree, sig, self._donated(args), writes)
            if captures:   # closes over values of an enclosing transformation: use once
                return self._inline(entry, leaves, captures, (tuple(dyn), kwargs))
            self._cache[sig] = entry
        elif config.debug_level() >= 1:
            config.log(1, f"cache hit {self.__name__}")
        if entry.on_meta or any(isinstance(x, Tracer) for x in leaves):
            return self._inline(entry, leaves, [], (tuple(dyn), kwargs))
        if needs_record(leaves, entry.graph):   # in eager autograd: one op, backward the VJP
            outs = entry.wrap(entry.run(leaves, donate=False))    # backward reads the inputs
            record_call(entry.graph, leaves, outs)
            return entry.finish(outs, (tuple(dyn), kwargs))
        out = entry.call(leaves, (tuple(dyn), kwargs))
        if fast_in is not None and not sig.static and entry.device == "cpu":
            self._fast[fast_in[0]] = entry.fast_caller(fast_in[1])
        return out

    def _inline(self, entry, leaves, captures, args):
        ins = [x if isinstance(x, (Tensor, Tracer)) else asarray(leaf_array(x, s[0]))
               for x, s in zip(leaves, entry.sig.leaves)]
        outs = call_graph(entry.graph, ins + list(captures))
        return entry.finish(outs, args)

    @api_boundary
    def lower(self, *args, **kwargs):
        """The traced graph for these arguments (see Lowered). After a call with the same
        signature, it is that call's: no retrace, and `.compile()` is the executable the calls
        run (its `.units`: what was compiled), as in JAX, where the caches are shared."""
        self._use_float_mode()
        kwargs, static_kw = self._statics.split_kwargs(kwargs, self.__name__)
        sig, leaves, dyn = self._split(args, kwargs, static_kw)
        entry = self._cache.get(sig)
        if entry is not None and entry.exe is not None:
            return Lowered(entry.graph, entry.out_tree, sig, self.__name__, entry.donated,
                           entry.writes, entry.exe)
        graph, out_tree, captures, writes = self._trace(sig, args, kwargs, dyn)
        if captures:
            raise ValueError("lower: the function closes over values traced by an enclosing "
                             "transformation")
        return Lowered(graph, out_tree, sig, self.__name__, self._donated(args), writes)

    def _donate_positions(self, n_args) -> frozenset:
        """donate_argnums as non-negative positions (see jitgrad/donation.py)."""
        pos = self._donate_pos.get(n_args)
        if pos is None:
            pos = self._donate_pos[n_args] = frozenset(
                i % n_args for i in self.donate_argnums) - self._static(n_args)
        return pos

    def _donated(self, args):
        """Graph-input indices of the leaves of the donate_argnums arguments."""
        out, offset = [], 0
        static_pos = self._static(len(args))
        donated = self._donate_positions(len(args))
        for i, a in enumerate(args):
            if i in static_pos:
                continue
            n = len(tree_util.tree_leaves(a))
            if i in donated:
                out.extend(range(offset, offset + n))
            offset += n
        return tuple(out)

    def clear_cache(self):
        self._cache.clear()
        self._fast.clear()
        self._other_modes.clear()


def _builder(tree):
    """fn(leaves) -> the pytree `tree` of them: for a dict, list or tuple of leaves the container
    itself (a 10-leaf dict: 0.7 us, tree_unflatten's walk 1.5), else tree_unflatten."""
    if all(c.kind is None for c in tree.children):
        if tree.kind is dict:
            keys = tree.aux
            return lambda leaves: dict(zip(keys, leaves))
        if tree.kind is tuple or tree.kind is list:
            return tree.kind
    return functools.partial(tree_util.tree_unflatten, tree)


class _Entry:
    """One signature's traced graph and, after the first call, its executable; the one place
    where output arrays become the function's result (wrap, then finish)."""

    def __init__(self, graph, out_tree, sig, donated=(), writes=()):
        self.graph, self.out_tree, self.sig, self.donated = graph, out_tree, sig, donated
        self.writes = writes      # argument leaves (buffers) the function assigned: extra outputs
        self.device = device_of(sig)
        self.on_meta = any(dev.type == "meta" for _, dev, _ in sig.leaves)
        self.exe = None
        self._exe_keeping_inputs = None     # donated entries recorded for eager autograd
        self.restores = pytree_roles.has_jit_result_hooks(out_tree)   # Modules' Parameters
        self._wraps = None      # after the first restored result: its leaf_wrappers
        self._dtypes = [np.dtype(s[0].dtype) for s in sig.leaves]     # fast_caller's conversions

    def fast_caller(self, arrays):
        """The call for the fast path's arguments (fast_args.py) with the key of `arrays`: the
        executable's lean runner where they need no conversion (the key fixes their dtypes and
        layouts) and the result is plain, else the full call converting them."""
        out_tree, dtypes = self.out_tree, self._dtypes
        plain = all(a.dtype == dt and a.flags.c_contiguous for a, dt in zip(arrays, dtypes))
        run = getattr(self.exe.run, "fast_runner", None)
        run = run(Tensor._wrap) if run is not None and plain and not self.restores else None
        if run is None:
            return lambda xs: self.call([a if a.dtype is dt else np.asarray(a, dt)
                                         for a, dt in zip(xs, dtypes)], ())
        if out_tree is tree_util.LEAF:
            return run
        build = _builder(out_tree)
        if len(self.graph.outputs) == 1:
            return lambda xs: build([run(xs)])
        return lambda xs: build(run(xs))

    def call(self, leaves, args):
        """The compiled call's result (args: the call's arguments, for buffer write-backs); a
        restored result's leaves are wrapped as the first call's were."""
        arrays = self.run(leaves)
        if self._wraps is None:
            return self.finish(self.wrap(arrays), args)
        return self.finish(self.wrap(arrays, self._wraps), args, restored=True)

    def finish(self, outs, args, restored=False):
        """The function's result from the graph's outputs; the trailing ones (buffer writes) are
        assigned to the caller's modules in `args`, as the eager call would have. restored: the
        leaves are already what pytree_roles.as_jit_result would make of them."""
        n = len(outs) - len(self.writes)
        module_state.write_back(args, self.writes, outs[n:])
        out = tree_util.tree_unflatten(self.out_tree, outs[:n])
        if not self.restores or restored:
            return out
        out = pytree_roles.as_jit_result(out)
        if self._wraps is None and self.device == "cpu":
            wraps = pytree_roles.leaf_wrappers(outs[:n], out)
            if wraps is not None:
                self._wraps = wraps + [Tensor._wrap] * len(self.writes)
        return out

    def wrap(self, arrays, wraps=None):
        """The output arrays as tensors on this entry's device; wraps: per output, what makes
        its leaf of a CPU array (Tensor._wrap by default)."""
        dev = self.device
        if dev != "cpu" and dev.type == "cuda":     # results stay in device memory
            return [Tensor._wrap(o, dev) for o in arrays]
        if wraps is not None:
            return [w(o) for w, o in zip(wraps, arrays)]
        return [Tensor._wrap(np.asarray(o)) for o in arrays]

    def run(self, leaves, donate=True):
        """The output arrays of the executable (compiled on the first call) for these argument
        leaves; donate=False leaves donated inputs' memory as it was."""
        if self.exe is None:
            with gc_pause.paused():
                self.exe = compile_graph(self.graph, self.device, self.donated)
        exe = self.exe
        if not donate and self.donated:
            if self._exe_keeping_inputs is None:
                self._exe_keeping_inputs = compile_graph(self.graph, self.device)
            exe = self._exe_keeping_inputs
        return exe.run([leaf_array(x, s[0]) for x, s in zip(leaves, self.sig.leaves)])


def jit(fn=None, *, static_argnums=(), static_argnames=(), donate_argnums=()):
    """jg.jit(fn, static_argnums=(), static_argnames=(), donate_argnums=()), also usable as
    @jg.jit or @jg.jit(...). Static arguments (by position or name, as in JAX) are hashed into
    the cache key and passed to fn as Python values."""
    if fn is None:
        return lambda f: Jitted(f, static_argnums, donate_argnums, static_argnames)
    return Jitted(fn, static_argnums, donate_argnums, static_argnames)
