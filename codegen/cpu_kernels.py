"""One source generator per kernel kind (elementwise, reduce, rowwise, matmul, opaque).

`generate(ctx, name, node) -> KernelSource` runs `GENERATORS[kind](ctx, name, node)` after
`unsupported(node)`, the check made before any code is written: an op the numba kernels do not
compute is an UnsupportedOpError naming the op and the user's line (there is no other numba
path to fall back to), and a kernel that passes the check always generates. A generated
kernel is an @njit function taking flat C-contiguous arrays: the kernel node's inputs, then its
body's array constants, then its outputs, which it writes. Loops use `prange` when the static
work is large enough to pay for waking the second thread (PARALLEL_MIN), and stay serial below.
"""
from __future__ import annotations

import contextlib
import math
from dataclasses import dataclass, field

from ..ir.errors import UnsupportedOpError
from ..ir.ops import Op
from ..ir.primitives import REDUCE
from ..ir.registry import TRANSCENDENTAL
from ..ir.passes.fusion_rules import analyze_kernel, is_matmul_prologue, matmul_operand, row_pass_levels
from ..ir.types import is_float, is_int
from .buffer import CSE, IndentedBuffer
from .cpu_linalg import LINALG_KERNELS
from .cpu_exprs import EXPR, REDUCE_COMBINE, REDUCE_INIT, REDUCER_KIND, arg_better
from .cpu_exprs import unsupported as _gap
from .entry import arena_view
from .evaluator import Evaluator, array_constants
from .space import Space, at, c_strides, collapse, flat_space, rows_space

PARALLEL_MIN = 1 << 19      # element-costs; below, waking the other thread costs more than it saves
CHUNK = 1 << 14             # elements per prange task of a flat loop
SUM_BLOCK = 1 << 12         # a long sum is added up in blocks of this many elements
LANES = 16                  # independent max/min accumulators: one AVX-512 register of float32
_EXPENSIVE = TRANSCENDENTAL     # the ops of the records' cost class "transcendental"


@dataclass
class KernelSource:
    name: str
    source: str             # the @njit function
    consts: list = field(default_factory=list)     # Literals passed after the inputs
    extra_args: list = field(default_factory=list)  # expressions passed after the outputs
    params: list = field(default_factory=list)
    body: str = ""          # the function's statements, for inlining into the entry
    comment: str = ""
    inline: bool = False    # written into the entry rather than called (codegen/entry.py)
    flags: tuple = ()       # numba options besides error_model (parallel, fastmath)


class _Kernel:
    """Shared scaffolding: parameter names, the header comment, the def line."""

    def __init__(self, ctx, name, node, parallel=False, fastmath=False):
        self.ctx, self.name, self.node = ctx, name, node
        self.body = node.params["body"]
        self.const_nodes = array_constants(self.body, every=node.params["kind"] == "opaque")
        self.arrays = {}
        params = []
        for k, v in enumerate(self.body.inputs):
            self.arrays[v] = f"in{k}"
            params.append(f"in{k}")
        for k, n in enumerate(self.const_nodes):
            self.arrays[n.output] = f"c{k}"
            params.append(f"c{k}")
        self.out_names = {}
        for k, v in enumerate(self.body.outputs):
            self.out_names.setdefault(v, []).append(f"out{k}")
            params.append(f"out{k}")
        self.params = params
        self.buf = IndentedBuffer()
        self.cse = CSE(self.buf)
        self.parallel, self.fastmath = parallel, fastmath
        self.extra_args = []
        # fused kinds: the domain D, reduced axes R and every body value's index map, from the
        # same analysis that made the kernel legal (codegen never re-derives broadcasting)
        self.info = analyze_kernel(node) if node.params["kind"] != "opaque" else None

    def stores(self, v):
        return self.out_names.get(v, [])

    def shape_in(self, v, drop=()) -> tuple:
        """v's shape aligned to D by its index map (D's extent on the axes v is indexed by, 1
        elsewhere), without the axes in `drop`: a C-ordered array of that shape has v's layout."""
        spans = set(self.info.maps[v])
        D = self.info.domain
        return tuple(D[a] if a in spans else 1 for a in range(len(D)) if a not in drop)

    def reduced(self, v) -> bool:
        """Whether v is indexed by a reduced axis (else it is one value per reduced element)."""
        return any(a in self.info.reduce_axes for a in self.info.maps[v])

    def evaluator(self, space_of, cse, given=None, drop=(), shapes=None):
        """An Evaluator over index-map-aligned shapes: values indexed by a reduced axis in the
        space of D, the others in the space of D without the axes `drop`."""
        if shapes is None:
            shapes = {v: self.shape_in(v, () if self.reduced(v) else drop) for v in self.info.maps}
        return Evaluator(self.ctx, self.body, self.arrays, space_of, cse, given, shapes,
                         aligned=True)

    def store_all(self, ev, values, offset_of):
        """Compute every value first, then store them: an output written in place of an input
        (memory plan) or of the product must not clobber what a later expression reads."""
        exprs = [(v, ev.expr(v)) for v in values]
        for v, e in exprs:
            for name in self.stores(v):
                self.buf.writeline(f"{name}[{at(offset_of(v))}] = {e}")

    def finish(self) -> KernelSource:
        head = IndentedBuffer()
        kind = self.node.params["kind"]
        comment = f"kernel {self.name} ({kind}) from {self.node.source_info or 'unknown source'}"
        head.writeline(f"# {comment}")
        for line in str(self.body).splitlines():
            head.writeline(f"#   {line}")
        # no cache=True: the entry's cached machine code already holds every kernel it calls;
        # no wrappers: only the entry calls a kernel, never Python (~25 ms of compile each)
        flags = []
        if self.parallel and not self.ctx.native:    # a library has no thread pool: prange is range
            flags.append("parallel=True")
        if self.fastmath:
            flags.append('fastmath={"reassoc"}')      # lets LLVM vectorize sum reductions
        opts = ['error_model="numpy"', "no_cpython_wrapper=True", "no_cfunc_wrapper=True", *flags]
        head.writeline(f"@njit({', '.join(opts)})")
        with head.indent(f"def {self.name}({', '.join(self.params)}):"):
            head.splice(self.buf)
            head.writeline("return")
        # a serial kernel without fastmath flags compiles as part of the entry (one numba
        # function to type and optimize, not one per kernel); the others keep their own flags
        inline = not self.parallel and not self.fastmath and not self.ctx.native
        return KernelSource(self.name, head.getvalue(), [n.params["value"] for n in self.const_nodes],
                            list(self.extra_args), list(self.params), self.buf.getvalue(), comment,
                            inline, tuple(flags))


def element_cost(nodes) -> int:
    return 1 + 8 * sum(n.op in _EXPENSIVE for n in nodes)


def _loop_header(var, n, parallel):
    return f"for {var} in {'prange' if parallel else 'range'}({n}):"


# ----------------------------------------------------------------------------- elementwise

def _emit_flat_loop(k, n, parallel, emit):
    """for i in range(n), chunked over prange tasks when parallel; emit(cse, var) writes the body."""
    if parallel:
        chunks = -(-n // CHUNK)
        with k.buf.indent(_loop_header("c", chunks, True)):
            with k.buf.indent(f"for i in range(c * {CHUNK}, min(c * {CHUNK} + {CHUNK}, {n})):"):
                emit(k.cse.child(), "i")
    else:
        with k.buf.indent(_loop_header("i", n, False)):
            emit(k.cse.child(), "i")


def elementwise_loop(k, nodes, given=None, skip=()):
    """Write the loop nest computing every output of `k.body` over the kernel's domain D.

    Axes of D over which every value is indexed alike are merged first (space.collapse on the
    index-map-aligned shapes), so the common cases run as one flat loop (all values full-size or
    scalar) or two (a row broadcast against a matrix); the innermost loop is unit-stride and LLVM
    vectorizes it."""
    D = k.info.domain
    size = math.prod(D)
    if size == 0:
        return
    parallel = size * element_cost(nodes) >= PARALLEL_MIN
    k.parallel |= parallel
    values = [v for v in k.info.maps if v in k.arrays or v in k.out_names]   # loads and stores
    cshape, cshapes = collapse(D, [k.shape_in(v) for v in values])
    load = dict(zip(values, cshapes))
    outs = [v for v in k.body.outputs if v not in skip]

    def body(cse, space):
        ev = k.evaluator(lambda v: space, cse, given, shapes=load)
        k.store_all(ev, outs, lambda v: space.offset(load[v]))

    if len(cshape) <= 1:
        n = cshape[0] if cshape else 1
        _emit_flat_loop(k, n, parallel, lambda cse, i: body(cse, flat_space((n,), i, cse)))
    else:
        _nest_named(k, cshape, [f"i{d}" for d in range(len(cshape))], parallel,
                    lambda cse, vs: body(cse, Space(cshape, vs, cse)))


def gen_elementwise(ctx, name, node) -> KernelSource:
    k = _Kernel(ctx, name, node)
    elementwise_loop(k, k.body.nodes)
    return k.finish()


# ----------------------------------------------------------------------------- reductions

class _Reductions:
    """The reductions of a body: accumulator names, init, update and the values they give."""

    def __init__(self, k, nodes):
        self.k, self.nodes = k, nodes
        self.acc = {n: k.cse.fresh("acc") for n in nodes}

    def kind(self, n):
        return REDUCER_KIND[n.op]

    def acc_dtype(self, n):
        dt = n.inputs[0].type.dtype
        return "np.int64" if is_int(dt) and REDUCER_KIND[n.op][0] in ("sum", "prod") else f"np.{dt.name}"

    def init_scalars(self, buf):
        for n, a in self.acc.items():
            kind, arg = self.kind(n)
            buf.writeline(f"{a} = {REDUCE_INIT[kind](self.k.ctx, n.inputs[0].type.dtype)}")
            if arg:
                buf.writeline(f"{a}i = 0")

    def update(self, buf, n, v, acc, idx):
        """acc (a name or an element `name[j]`) absorbs element v found at position idx."""
        kind, arg = self.kind(n)
        dt = n.inputs[0].type.dtype
        if arg:
            with buf.indent(f"if {arg_better(v, acc, kind, dt)}:"):
                buf.writeline(f"{acc} = {v}")
                buf.writeline(f"{_arg_name(acc)} = {idx}")
        else:
            buf.writeline(f"{acc} = {REDUCE_COMBINE[kind](acc, v, dt)}")

    def results(self, where=None):
        """Reduction output Value -> expression (scalar accumulators, or array elements at `where`)."""
        out = {}
        for n, a in self.acc.items():
            name = a + "i" if self.kind(n)[1] else a
            out[n.output] = name if where is None else f"{name}[{where}]"
        return out


def _arg_name(acc):
    return acc + "i" if "[" not in acc else acc.replace("[", "i[", 1)


def gen_reduce(ctx, name, node) -> KernelSource:
    """Reductions over the same axes R of D with an elementwise prologue and epilogue. Values
    indexed by R are computed once per point of D (the reduction loops; outputs among them are
    stored there), the others once per reduced element, after the reductions."""
    k = _Kernel(ctx, name, node)
    reds = [n for n in k.body.nodes if n.op in REDUCE]
    xshape, axes = k.info.domain, k.info.reduce_axes
    if any(k.reduced(x) is False for r in reds for x in r.inputs):
        raise AssertionError(f"cpu codegen: kernel {name}: a reduction input without its axes")
    kept = [d for d in range(len(xshape)) if d not in axes]
    rshape = tuple(xshape[d] for d in kept)
    pre = [v for v in k.body.outputs if k.reduced(v)]
    post = [v for v in k.body.outputs if not k.reduced(v)]
    if math.prod(xshape) == 0 and math.prod(rshape) == 0:
        return k.finish()
    red = _Reductions(k, reds)
    k.fastmath = True
    last_kept = bool(kept) and kept[-1] == len(xshape) - 1 and len(axes) > 0
    (_reduce_outer if last_kept else _reduce_inner)(k, red, xshape, axes, kept, rshape, pre, post)
    return k.finish()


def _route(k, xspace, rspace):
    return lambda v: xspace if k.reduced(v) else rspace


def _reduce_point(k, red, ev, xspace, pre, idx, blocked=()):
    """One point of D: every reduction absorbs its input, the outputs indexed by R are stored."""
    for n, a in red.acc.items():
        red.update(k.buf, n, ev.expr(n.inputs[0]), a + "b" if n in blocked else a, idx)
    k.store_all(ev, pre, lambda v: xspace.offset(k.shape_in(v)))


def _reduce_inner(k, red, xshape, axes, kept, rshape, pre, post):
    """Reduced dims innermost (contiguous): scalar accumulators per output element."""
    size = math.prod(xshape)
    parallel = size * element_cost(k.body.nodes) >= PARALLEL_MIN
    outer = [xshape[d] for d in kept]
    if parallel and (not kept or math.prod(outer) < 2):
        return _reduce_full_parallel(k, red, xshape, axes, rshape, pre, post)
    k.parallel |= parallel and bool(kept)
    names = {d: f"i{d}" for d in range(len(xshape))}

    def kept_body(cse, vars_):
        red.init_scalars(k.buf)
        rspace = Space(rshape, vars_, cse)
        inner_shape = [xshape[d] for d in axes]

        def inner(cse2, ivars, blocked=()):
            idx = dict(zip(kept, vars_))
            idx.update(zip(axes, ivars))
            xspace = Space(xshape, [idx[d] for d in range(len(xshape))], cse2)
            ev = k.evaluator(_route(k, xspace, rspace), cse2, drop=axes)
            _reduce_point(k, red, ev, xspace, pre, ivars[-1] if ivars else "0", blocked)

        sums = [n for n in red.acc if red.kind(n)[0] in ("sum", "prod")]
        if sums and inner_shape and inner_shape[-1] > SUM_BLOCK:
            _nest_named(k, inner_shape[:-1], [names[d] for d in axes[:-1]], False,
                        lambda cse2, ivars: _blocked_loop(k, red, sums, names[axes[-1]],
                                                          inner_shape[-1], inner, cse2, ivars), cse)
        else:
            _nest_named(k, inner_shape, [names[d] for d in axes], False, inner, cse)
        _store_post(k, red.results(), rspace, post, cse, axes)

    _nest_named(k, outer, [names[d] for d in kept], parallel, kept_body)


def _blocked_loop(k, red, sums, var, n, inner, cse, ivars):
    """The innermost reduced loop in blocks of SUM_BLOCK, each summed on its own and then added
    to the total: float32 rounding error then grows with the block size and the block count,
    not with n (NumPy's pairwise summation has the same aim)."""
    with k.buf.indent(f"for {var}b in range(0, {n}, {SUM_BLOCK}):"):
        for r in sums:
            k.buf.writeline(f"{red.acc[r]}b = {REDUCE_INIT[red.kind(r)[0]](k.ctx, r.inputs[0].type.dtype)}")
        with k.buf.indent(f"for {var} in range({var}b, min({var}b + {SUM_BLOCK}, {n})):"):
            inner(cse.child(), ivars + [var], set(sums))
        for r in sums:
            k.buf.writeline(f"{red.acc[r]} = {REDUCE_COMBINE[red.kind(r)[0]](red.acc[r], red.acc[r] + 'b', None)}")


def _nest_named(k, shape, names, parallel, emit, cse=None, done=()):
    """Nested loops with the given index names; emit(cse, vars) writes the innermost body.
    Iterative: one `with` per level would recurse as deep as the nest."""
    cse = cse or k.cse
    with contextlib.ExitStack() as stack:
        for d in range(len(done), len(shape)):
            stack.enter_context(k.buf.indent(_loop_header(names[d], shape[d], parallel and d == 0)))
            cse = cse.child()
        emit(cse, list(done) + list(names[len(done):len(shape)]))


def _store_post(k, given, rspace, outs, cse, drop):
    """The values of one reduced element: the epilogue on the reduction results."""
    ev = k.evaluator(lambda v: rspace, cse, given, drop=drop)
    k.store_all(ev, outs, lambda v: rspace.offset(k.shape_in(v, drop)))


def _reduce_full_parallel(k, red, xshape, axes, rshape, pre, post):
    """A large reduction to one element: prange over chunks of the flat input, partial results
    per chunk combined serially (argmax/argmin keep the first winner: chunks are in order)."""
    k.parallel = True
    size = math.prod(xshape)
    chunks = -(-size // CHUNK)
    for n, a in red.acc.items():
        k.buf.writeline(f"{a}p = np.empty({chunks}, {red.acc_dtype(n)})")
        if red.kind(n)[1]:
            k.buf.writeline(f"{a}ip = np.empty({chunks}, np.int64)")
    rspace = Space(rshape, ["0"] * len(rshape), k.cse)
    with k.buf.indent(_loop_header("c", chunks, True)):
        red.init_scalars(k.buf)
        with k.buf.indent(f"for i in range(c * {CHUNK}, min(c * {CHUNK} + {CHUNK}, {size})):"):
            cse = k.cse.child()
            xspace = flat_space(xshape, "i", cse)
            ev = k.evaluator(_route(k, xspace, rspace), cse, drop=axes)
            _reduce_point(k, red, ev, xspace, pre, "i")
        for n, a in red.acc.items():
            k.buf.writeline(f"{a}p[c] = {a}")
            if red.kind(n)[1]:
                k.buf.writeline(f"{a}ip[c] = {a}i")
    red.init_scalars(k.buf)
    with k.buf.indent(f"for c in range({chunks}):"):
        for n, a in red.acc.items():
            red.update(k.buf, n, f"{a}p[c]", a, f"{a}ip[c]")
    _store_post(k, red.results(), rspace, post, k.cse, axes)


def _reduce_outer(k, red, xshape, axes, kept, rshape, pre, post):
    """Last dim kept (e.g. a column sum): walk the input in memory order, accumulating into
    arrays indexed by the kept dims, so the innermost loop stays unit-stride; then the epilogue."""
    rsize = math.prod(rshape)
    for n, a in red.acc.items():
        kind, arg = red.kind(n)
        k.buf.writeline(f"{a} = np.empty({rsize}, {red.acc_dtype(n)})")
        _fill(k, a, rsize, REDUCE_INIT[kind](k.ctx, n.inputs[0].type.dtype))
        if arg:
            k.buf.writeline(f"{a}i = np.empty({rsize}, np.int64)")
            _fill(k, f"{a}i", rsize, "0")
    (axis,) = axes if len(axes) == 1 else (None,)

    def body(cse, vars_):
        xspace = Space(xshape, vars_, cse)
        rspace = Space(rshape, [vars_[d] for d in kept], cse)
        ev = k.evaluator(_route(k, xspace, rspace), cse, drop=axes)
        r = at(rspace.flat)
        for n, a in red.acc.items():
            red.update(k.buf, n, ev.expr(n.inputs[0]), f"{a}[{r}]", vars_[axis] if axis is not None else "0")
        k.store_all(ev, pre, lambda v: xspace.offset(k.shape_in(v)))
    _nest_named(k, xshape, [f"i{d}" for d in range(len(xshape))], False, body)
    with k.buf.indent(f"for r in range({rsize}):"):
        cse = k.cse.child()
        _store_post(k, red.results("r"), flat_space(rshape, "r", cse), post, cse, axes)


# ----------------------------------------------------------------------------- rowwise

def _lane_loops(k, red, laned, lanes, L, pass_body):
    """The row walked LANES elements at a time (lane l keeps its own max/min), then the tail,
    then the lanes folded into the scalar accumulators."""
    whole = L - L % LANES
    for n in laned:
        kind = red.kind(n)[0]
        _fill(k, lanes[n], LANES, REDUCE_INIT[kind](k.ctx, n.inputs[0].type.dtype))
    with k.buf.indent(f"for j0 in range(0, {whole}, {LANES}):"):
        with k.buf.indent(f"for lane in range({LANES}):"):
            k.buf.writeline("j = j0 + lane")
            pass_body("j", "lane")
    if whole < L:
        with k.buf.indent(f"for j in range({whole}, {L}):"):
            pass_body("j")
    with k.buf.indent(f"for lane in range({LANES}):"):
        for n in laned:
            red.update(k.buf, n, f"{lanes[n]}[lane]", red.acc[n], "0")


def gen_rowwise(ctx, name, node) -> KernelSource:
    """Softmax/layernorm shape: reductions over the last axis whose results combine with the row.
    Each row is walked once per dependent reduction level (max, then sum, then the output), row
    values that are expensive to recompute (exp) are kept in a scratch row between passes.
    Values not indexed by the last axis (reduction results, per-row inputs and what is computed
    from them) are computed once per row."""
    k = _Kernel(ctx, name, node)
    reds = [n for n in k.body.nodes if n.op in REDUCE]
    xshape = k.info.domain
    nd = len(xshape)
    R = (nd - 1,)
    if k.info.reduce_axes != R or any(not k.reduced(r.inputs[0]) for r in reds):
        raise AssertionError(f"cpu codegen: kernel {name}: rowwise reductions must all be over "
                             "the last axis")
    L, rows = xshape[-1], math.prod(xshape[:-1])
    per_row = {v for v in k.info.maps if not k.reduced(v)}
    if rows * L == 0 and not any(v in per_row and v.type.size for v in k.body.outputs):
        return k.finish()
    level, _ = row_pass_levels(k.body, reds)
    consts = {n.output for n in k.body.nodes if n.op == Op.constant}
    producers = k.body.producers()
    row_vals = [v for v in level if v not in per_row and v not in consts and v in producers]
    users = k.body.consumers()
    passes = 1 + max([level[r.inputs[0]] for r in reds] +
                     [level.get(v, 0) for v in k.body.outputs if v not in per_row])
    # scratch rows: expensive row values read again in a later pass
    scratch = [v for v in row_vals if producers[v].op in _EXPENSIVE and v.type.size == rows * L
               and any(u.op not in REDUCE and level[u.outputs[0]] > level[v]
                       for u in users.get(v, []))]
    sname = {v: f"row{i}" for i, v in enumerate(scratch)}
    red = _Reductions(k, reds)
    # float max/min: a compare-select recurrence LLVM leaves scalar; LANES independent
    # accumulators (one vector register) make it a packed max per step
    lanes = {n: f"lane{i}" for i, n in enumerate(reds)
             if is_float(n.inputs[0].type.dtype) and red.kind(n) in (("max", False), ("min", False))}
    k.fastmath = True
    parallel = rows * L * element_cost(k.body.nodes) >= PARALLEL_MIN and rows >= 2
    k.parallel = parallel
    blocks = min(rows, 64) if parallel else 1
    per = -(-rows // blocks)
    with k.buf.indent(_loop_header("b", blocks, parallel)):
        for v in scratch:
            k.buf.writeline(f"{sname[v]} = np.empty({L}, np.{v.type.dtype.name})")
        for n, name in lanes.items():
            k.buf.writeline(f"{name} = np.empty({LANES}, np.{n.inputs[0].type.dtype.name})")
        with k.buf.indent(f"for r in range(b * {per}, min(b * {per} + {per}, {rows})):"):
            rcse = k.cse.child()
            red.init_scalars(k.buf)
            rspace = flat_space(xshape[:-1], "r", rcse)
            given = {}
            for p in range(passes):
                mine = [n for n in reds if level[n.inputs[0]] == p]
                laned = [n for n in mine if n in lanes]
                outs = [v for v in k.body.outputs if v not in per_row and level[v] == p]

                def pass_body(j, lane=None):
                    cse = rcse.child()
                    xspace = rows_space(xshape, "r", j, cse)
                    g = dict(given)
                    g.update({v: f"{sname[v]}[{j}]" for v in scratch if level[v] < p})
                    ev = k.evaluator(_route(k, xspace, rspace), cse, g, drop=R)
                    for n in mine:
                        acc = f"{lanes[n]}[{lane}]" if lane and n in lanes else red.acc[n]
                        red.update(k.buf, n, ev.expr(n.inputs[0]), acc, j)
                    for v in scratch:
                        if level[v] == p:
                            k.buf.writeline(f"{sname[v]}[{j}] = {ev.expr(v)}")
                    k.store_all(ev, outs, lambda v: xspace.offset(k.shape_in(v)))
                if laned and L >= LANES:
                    _lane_loops(k, red, laned, lanes, L, pass_body)
                else:
                    with k.buf.indent(f"for j in range({L}):"):
                        pass_body("j")
                given.update({n.output: red.results()[n.output] for n in mine})
            _store_post(k, given, rspace, [v for v in k.body.outputs if v in per_row], rcse, R)
    return k.finish()


# ----------------------------------------------------------------------------- matmul

def _shape(t):
    return "(" + "".join(f"{d}, " for d in t)[:-1] + ")" if len(t) != 1 else f"({t[0]},)"


def _matmul_operand(k, v, producers):
    """(array param, shape it is read in, transposed?) of a matmul operand: a body input, or a
    body input whose last two axes are swapped (read as a transposed view: BLAS takes either).
    An im2col operand: (its image's param, the columns' shape, transposed?, (params, image
    shape)), read in place by the product's loops (_emit_columns_product)."""
    got = matmul_operand(producers, v)
    if got is not None and got[0] in k.arrays and got[3] is not None:
        return k.arrays[got[0]], got[1], got[2], (got[3], got[0].type.shape)
    if got is not None and got[0] in k.arrays:      # a reshape of an input reads it in place
        return k.arrays[got[0]], got[1], got[2]
    raise AssertionError("cpu codegen: a matmul operand that is neither a kernel input nor its "
                         "transpose (ir.passes.fusion_rules forms no such kernel)")


def gen_matmul(ctx, name, node) -> KernelSource:
    """BLAS (numba's np.dot) into the product buffer, then the fused epilogue as one loop that
    reads the product (in place when the epilogue output has the product's type)."""
    k = _Kernel(ctx, name, node)
    producers = k.body.producers()
    (m,) = [n for n in k.body.nodes if n.op == Op.matmul]
    operands = [_matmul_operand(k, x, producers) for x in m.inputs]
    pv = m.output
    pshape, dt = pv.type.shape, pv.type.dtype
    dest = k.stores(pv)
    hint = getattr(ctx, "product_hint", None)
    if hint and hint[0] == "output" and not dest:
        prod = k.stores(hint[1])[0]
    elif hint and hint[0] == "scratch" and not dest:
        prod = "prod"
        k.params.append("prod")
        k.extra_args.append(arena_view(hint[1], pv.type))
    elif dest:
        prod = dest[0]
    else:
        same = [v for v in k.body.outputs if v.type == pv.type]
        prod = k.stores(same[0])[0] if same else "prod"
        if not same:
            k.buf.writeline(f"prod = np.empty({math.prod(pshape)}, np.{dt.name})")
    k.arrays[pv] = prod
    _emit_product(k, operands, [x.type.shape for x in m.inputs], pshape, prod, dt)
    for extra in dest[1:]:
        with k.buf.indent(f"for i in range({math.prod(pshape)}):"):
            k.buf.writeline(f"{extra}[i] = {prod}[i]")
    epilogue = [n for n in k.body.nodes if n is not m and not is_matmul_prologue(n)]
    if any(v is not pv for v in k.body.outputs):
        elementwise_loop(k, epilogue, skip=(pv,))
    return k.finish()


def _emit_product(k, operands, shapes, pshape, prod, dt):
    M, N = pshape[-2], pshape[-1]
    K = shapes[0][-1]
    batch = pshape[:-2]
    if math.prod(pshape) == 0:
        return
    if K == 0:
        _fill(k, prod, math.prod(pshape), "0")
        return
    if len(operands[1]) == 4:
        _emit_columns_product(k, operands, shapes, pshape, prod, dt)
        return
    suffix = []
    for name, (arr, shape, trans), want in zip(("a3", "b3"), operands, shapes):
        rows, cols = want[-2:]
        lead = math.prod(want[:-2])
        dims = (lead, cols, rows) if trans else (lead, rows, cols)
        k.buf.writeline(f"{name} = {arr}.reshape({_shape(dims)})")
        suffix.append(".T" if trans else "")     # an F-ordered view: BLAS transposes for free
    k.buf.writeline(f"p3 = {prod}.reshape(({math.prod(batch)}, {M}, {N}))")
    with k.buf.indent(f"for q in range({math.prod(batch)}):"):
        cse = k.cse.child()
        space = flat_space(batch, "q", cse)
        ia, ib = space.offset(shapes[0][:-2]), space.offset(shapes[1][:-2])
        if is_float(dt) and k.ctx.native:      # C BLAS; transposes as flags, not F-ordered views
            k.buf.writeline(f"gemm(a3[{ia}], b3[{ib}], p3[q], {bool(suffix[0])}, {bool(suffix[1])})")
        elif is_float(dt):
            k.buf.writeline(f"np.dot(a3[{ia}]{suffix[0]}, b3[{ib}]{suffix[1]}, p3[q])")
        else:   # numba's BLAS binding is float-only
            with k.buf.indent(f"for i in range({M}):"):
                with k.buf.indent(f"for j in range({N}):"):
                    k.buf.writeline("s = 0")
                    with k.buf.indent(f"for l in range({K}):"):
                        a = f"a3[{ia}, l, i]" if suffix[0] else f"a3[{ia}, i, l]"
                        b = f"b3[{ib}, j, l]" if suffix[1] else f"b3[{ib}, l, j]"
                        k.buf.writeline(f"s += {a} * {b}")
                    k.buf.writeline("p3[q, i, j] = s")


def _emit_columns_product(k, operands, shapes, pshape, prod, dt):
    """The product with an im2col right operand read from its image (no BLAS: only the native
    export's numba entry builds such a kernel here), a loop per tap: row t*rows + r of the
    columns is the image's row r_t + r from column c_t (fusion_rules.im2col_rows)."""
    M, N = pshape[-2], pshape[-1]
    K = shapes[0][-1]
    batch = pshape[:-2]
    (a, _, ta), (x, _, tb, (p, image)) = operands
    L, rows, zero = image[-1], p["rows"], k.ctx.const(0, dt)
    with k.buf.indent(f"for q in range({math.prod(batch)}):"):
        space = flat_space(batch, "q", k.cse.child())
        ia, ib = space.offset(shapes[0][:-2]), space.offset(shapes[1][:-2])
        k.buf.writeline(f"a0 = ({ia}) * {M * K}")
        k.buf.writeline(f"x0 = ({ib}) * {math.prod(image[-2:])}")
        with k.buf.indent(f"for i in range({M}):"):
            if tb:      # cols^T: column t*rows + r of the product is that row of the columns
                for t, (r0, c0) in enumerate(p["starts"]):
                    with k.buf.indent(f"for r in range({rows}):"):
                        k.buf.writeline(f"s = {zero}")
                        with k.buf.indent(f"for l in range({K}):"):
                            aa = f"a0 + l * {M} + i" if ta else f"a0 + i * {K} + l"
                            xx = f"x0 + ({r0} + r) * {L} + {c0} + l"
                            k.buf.writeline(f"s += {a}[{at(aa)}] * {x}[{at(xx)}]")
                        k.buf.writeline(f"{prod}[{at(f'(q * {M} + i) * {N} + {t * rows} + r')}] = s")
            else:
                with k.buf.indent(f"for j in range({N}):"):
                    k.buf.writeline(f"s = {zero}")
                    for t, (r0, c0) in enumerate(p["starts"]):
                        with k.buf.indent(f"for r in range({rows}):"):
                            aa = f"a0 + ({t * rows} + r) * {M} + i" if ta else \
                                f"a0 + i * {K} + {t * rows} + r"
                            xx = f"x0 + ({r0} + r) * {L} + {c0} + j"
                            k.buf.writeline(f"s += {a}[{at(aa)}] * {x}[{at(xx)}]")
                    k.buf.writeline(f"{prod}[{at(f'(q * {M} + i) * {N} + j')}] = s")


# ----------------------------------------------------------------------------- opaque

def _nd(arr, shape):
    return f"{arr}.reshape({_shape(shape)})"


def _in(k, n, j=0):
    """The array parameter holding input j of the body's node n."""
    return k.arrays[n.inputs[j]]


def _copy(k, n):
    with k.buf.indent(f"for i in range({n.output.type.size}):"):
        k.buf.writeline(f"out0[i] = {_in(k, n)}[i]")


def _fill(k, name, size, value):
    with k.buf.indent(f"for i in range({size}):"):
        k.buf.writeline(f"{name}[i] = {value}")


def _affine(base, coefs, names):
    """base + sum(coef * index): an offset linear in the loop indices."""
    text = str(base) if base or not any(coefs) else ""
    for c, v in zip(coefs, names):
        if c:
            term = v if abs(c) == 1 else f"{v} * {abs(c)}"
            text = f"{text} {'-' if c < 0 else '+'} {term}" if text else (term if c > 0 else f"-{term}")
    return at(text)


def _affine_copy(k, shape, dst, dst_at, src, src_at, assign="="):
    """dst[dst_at] = src[src_at] (or +=) over every index of `shape`, with (base, coefs)
    offsets: plain loops, not NumPy slice assignment, which numba takes seconds to compile (a
    2-d transpose 5.8 s)."""
    if math.prod(shape) == 0:
        return
    names = [f"i{d}" for d in range(len(shape))]
    line = f"{dst}[{_affine(*dst_at, names)}] {assign} {src}[{_affine(*src_at, names)}]"
    _nest_named(k, shape, names, False, lambda cse, vs: k.buf.writeline(line))


def _transpose(k, n):
    x, perm = n.inputs[0], n.params["perm"]
    xs = c_strides(x.type.shape)
    _affine_copy(k, n.output.type.shape, "out0", (0, c_strides(n.output.type.shape)),
                 _in(k, n), (0, [xs[p] for p in perm]))


def _slice(k, n):
    p, xs = n.params, c_strides(n.inputs[0].type.shape)
    base = sum(a * s for a, s in zip(p["start"], xs))
    _affine_copy(k, n.output.type.shape, "out0", (0, c_strides(n.output.type.shape)),
                 _in(k, n), (base, [st * s for st, s in zip(p["step"], xs)]))


def _rev(k, n):
    shape, axes = n.inputs[0].type.shape, n.params["axes"]
    xs = c_strides(shape)
    base = sum((shape[d] - 1) * xs[d] for d in axes)
    flipped = [-s if d in axes else s for d, s in enumerate(xs)]
    _affine_copy(k, shape, "out0", (0, xs), _in(k, n), (base, flipped))


def _pad(k, n):
    x, p = n.inputs[0], n.params
    _fill(k, "out0", n.output.type.size, k.ctx.const(p.get("value", 0), x.type.dtype))
    os_ = c_strides(n.output.type.shape)
    _affine_copy(k, x.type.shape, "out0", (sum(lo * s for lo, s in zip(p["lo"], os_)), os_),
                 _in(k, n), (0, c_strides(x.type.shape)))


def _concatenate(k, n):
    axis, start = n.params["axis"], 0
    os_ = c_strides(n.output.type.shape)
    for i, x in enumerate(n.inputs):
        _affine_copy(k, x.type.shape, "out0", (start * os_[axis], os_), _in(k, n, i),
                     (0, c_strides(x.type.shape)))
        start += x.type.shape[axis]


def _columns(shape, lead, rows, length, k):
    """(block shape, the columns' strides, the image's strides) of im2col / col2im."""
    R, L = shape[-2:]
    cs, xs = c_strides(lead + (k * rows, length)), c_strides(lead + (R, L))
    return lead + (rows, length), cs, xs


def _im2col(k, n):
    p, x = n.params, n.inputs[0]
    block, cs, xs = _columns(x.type.shape, x.type.shape[:-2], p["rows"], p["length"],
                             len(p["starts"]))
    for t, (r, c) in enumerate(p["starts"]):
        _affine_copy(k, block, "out0", (t * p["rows"] * p["length"], cs), _in(k, n),
                     (r * xs[-2] + c, xs))


def _col2im(k, n):
    p, out = n.params, n.output
    _fill(k, "out0", out.type.size, k.ctx.const(0, out.type.dtype))
    block, cs, xs = _columns(out.type.shape, out.type.shape[:-2], p["rows"], p["length"],
                             len(p["starts"]))
    for t, (r, c) in enumerate(p["starts"]):       # taps in order: the reference's sums
        _affine_copy(k, block, "out0", (r * xs[-2] + c, xs), _in(k, n),
                     (t * p["rows"] * p["length"], cs), assign="+=")


def _pnq(shape, axis):
    """(P, n, Q): the leading, axis and trailing sizes of `shape` around `axis`."""
    return math.prod(shape[:axis]), shape[axis], math.prod(shape[axis + 1:])


def _take(k, n):
    x, idx = n.inputs
    P, m, Q = _pnq(x.type.shape, n.params["axis"])
    I = idx.type.size
    if P * I * Q == 0:
        return
    k.buf.writeline(f"x3 = {_nd(_in(k, n), (P, m, Q))}")
    k.buf.writeline(f"o3 = {_nd('out0', (P, I, Q))}")
    _gather_scatter(k, n, _in(k, n, 1), P, m, I, Q, "o3[p, i, q] = x3[p, j, q]")


def _scatter_add(k, n):
    idx, upd = n.inputs
    P, m, Q = _pnq(n.params["shape"], n.params["axis"])
    I = idx.type.size
    _fill(k, "out0", n.output.type.size, "0")
    if P * I * Q == 0:
        return
    k.buf.writeline(f"u3 = {_nd(_in(k, n, 1), (P, I, Q))}")
    k.buf.writeline(f"o3 = {_nd('out0', (P, m, Q))}")
    _gather_scatter(k, n, _in(k, n, 0), P, m, I, Q, "o3[p, j, q] += u3[p, i, q]")


def _gather_scatter(k, n, idx, P, m, I, Q, stmt):
    """Loops over (i, p, q) with j = idx[i], negatives counting from the end (not for class
    labels and other assertions: params check). An index outside [-m, m) is recorded in the
    entry's status array (the first one: [check number + 1, index]; the caller raises, see
    ir.errors.check_error) and never read or written: one compare per index. A C library
    (ctx.native) has no status channel: there it is clamped into range, as JAX does."""
    checks = None if k.ctx.native else k.ctx.checks
    check = n.params.get("check")     # an assertion (class labels, ...): [0, m), no wrapping
    if checks is not None:
        checks.append((str(n.op), check, m, n.source_info))
        k.params += ["status", "check"]
        k.extra_args += ["st", str(len(checks))]
    with k.buf.indent(f"for i in range({I}):"):
        k.buf.writeline(f"j = {idx}[i]")
        if not check:
            k.buf.writeline(f"j = j + {m} if j < 0 else j")
        if checks is None:
            k.buf.writeline(f"j = min(max(j, 0), {m - 1})")
        else:
            with k.buf.indent(f"if j < 0 or j >= {m}:"):
                with k.buf.indent("if status[0] == 0:"):
                    k.buf.writeline("status[0] = check")
                    k.buf.writeline(f"status[1] = {idx}[i]")
                k.buf.writeline("continue")
        with k.buf.indent(f"for p in range({P}):"):
            with k.buf.indent(f"for q in range({Q}):"):
                k.buf.writeline(stmt)


def _cumsum(k, n):
    x = n.inputs[0]
    P, m, Q = _pnq(x.type.shape, n.params["axis"])
    if P * m * Q == 0:
        return
    k.buf.writeline(f"x3 = {_nd(_in(k, n), (P, m, Q))}")
    k.buf.writeline(f"o3 = {_nd('out0', (P, m, Q))}")
    with k.buf.indent(f"for p in range({P}):"):
        with k.buf.indent(f"for q in range({Q}):"):
            k.buf.writeline("o3[p, 0, q] = x3[p, 0, q]")
        with k.buf.indent(f"for i in range(1, {m}):"):
            with k.buf.indent(f"for q in range({Q}):"):
                k.buf.writeline("o3[p, i, q] = o3[p, i - 1, q] + x3[p, i, q]")


def _sort(k, n):
    x = n.inputs[0]
    P, m, Q = _pnq(x.type.shape, n.params["axis"])
    if P * m * Q == 0:
        return
    call = "np.sort(x3[p, :, q])" if n.op == Op.sort else 'np.argsort(x3[p, :, q], kind="mergesort")'
    k.buf.writeline(f"x3 = {_nd(_in(k, n), (P, m, Q))}")
    k.buf.writeline(f"o3 = {_nd('out0', (P, m, Q))}")
    with k.buf.indent(f"for p in range({P}):"):
        with k.buf.indent(f"for q in range({Q}):"):
            k.buf.writeline(f"o3[p, :, q] = {call}")


OPAQUE = {
    Op.reshape: _copy, Op.transpose: _transpose, Op.slice: _slice, Op.rev: _rev, Op.pad: _pad,
    Op.concatenate: _concatenate, Op.take: _take, Op.scatter_add: _scatter_add,
    Op.im2col: _im2col, Op.col2im: _col2im,
    Op.cumsum: _cumsum, Op.sort: _sort, Op.argsort: _sort,
    **LINALG_KERNELS,
}


def gen_opaque(ctx, name, node) -> KernelSource:
    k = _Kernel(ctx, name, node)
    (n,) = k.body.nodes
    if any(v.type.size for v in n.outputs):
        OPAQUE[n.op](k, n)
    return k.finish()


GENERATORS = {"elementwise": gen_elementwise, "reduce": gen_reduce, "rowwise": gen_rowwise,
              "matmul": gen_matmul, "opaque": gen_opaque}

# ops of a fused body no scalar expression computes: the loops, the reductions and BLAS do
_STRUCTURAL = frozenset({Op.constant, Op.reshape, Op.matmul, Op.transpose})


def unsupported(node) -> UnsupportedOpError | None:
    """The error for kernel `node` when the numba generators do not cover it (an opaque op
    without a numba kernel, a body op without a scalar expression or reducer), else None."""
    body = node.params["body"]
    if node.params["kind"] == "opaque":
        (n,) = body.nodes
        return None if n.op in OPAQUE else \
            UnsupportedOpError(n.op, "numba", "no numba kernel implements it", n.source_info)
    for n in body.nodes:
        if n.op in REDUCE:
            if n.op not in REDUCER_KIND:
                return UnsupportedOpError(n.op, "numba", "no numba reducer implements it",
                                          n.source_info)
        elif n.op not in EXPR and n.op not in _STRUCTURAL and not (
                n.op == Op.im2col and node.params["kind"] == "matmul"):     # a GEMM operand
            return UnsupportedOpError(n.op, "numba", _gap(n.op, "numba").reason, n.source_info)
    return None


def generate(ctx, name, node) -> KernelSource:
    """Kernel `node`'s source; UnsupportedOpError (unsupported) when the generators cannot
    write it."""
    err = unsupported(node)
    if err is not None:
        raise err
    return GENERATORS[node.params["kind"]](ctx, name, node)
