"""Random array programs (straight-line, with scan / fori_loop / cond statements, arrays built
from traced values: jnp.array of lists, linspace/geomspace endpoints, `.at[]` updates with
repeated indices in every mode, and convolutions, pooling, reduce_window and split reshapes) for
differential testing of the compiled path. SCALAR_LOOP_BUILDERS adds (issue 48) NumPy and Python
scalars passed as arguments (weak beside the arrays: the dtypes must agree too) and loops with
constant inits and traced trip counts or conditions. `Program.ties` draws the inputs from a few values, so
maxima tie (pooling, reduce_window, scatter min/max).

`program(seed)` draws a Program: input shapes (ranks 0-4, dims 1-3, so size-1 broadcast dims are
common), a dtype, and statements over jitgrad.numpy / nn.functional / scipy.special, each a line
of Python. The elementwise, reduction and shape statements are the op database's records marked
`fuzz=` (tests/support/opinfo/fuzz.py): each input mapped into the record's domain, the result shape from
its NumPy reference, the record's tolerance widening the program's. `int_program` draws every
statement from the database's integer records (fuzz_ops(kind, "int")) over edge values.
`check(prog, mode)` runs it eagerly (the reference: op by op on the NumPy implementation) and under
`jg.jit` on the interpreter, compiled with fusion, and compiled with fusion off, and returns a
description of the first disagreement (values beyond tolerance, or different exception types).
Modes: forward, grad (every argnum), jvp, and all three in one jitted function.
`shrink(prog, mode)` deletes statements while the failure persists; `prog.source()` prints the
minimal program as Python that runs as pasted.
"""
from __future__ import annotations

import os
import re
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np

import jitgrad as jg
import jitgrad.numpy as jnp
from tests.support.opinfo import fuzz_ops
from tests.support.opinfo.fuzz import SCOPE

MODES = ("forward", "grad", "jvp", "combined")
PATHS = ("interpreter", "fused", "unfused")
_ENV = {"interpreter": {"JITGRAD_BACKEND": "interpreter"},
        "fused": {"JITGRAD_BACKEND": "cpu"},
        "unfused": {"JITGRAD_BACKEND": "cpu", "JITGRAD_DISABLE": "fuse"}}
TOL = {"float32": dict(rtol=2e-3, atol=2e-4), "float64": dict(rtol=1e-7, atol=1e-9),
       # one rounding per op on every path; generated float32 math within an ulp of NumPy's can
       # round to the neighbouring half/bfloat16 value, and chains carry that along
       "float16": dict(rtol=2e-2, atol=2e-2), "bfloat16": dict(rtol=1e-1, atol=1e-1)}


@dataclass
class Program:
    shapes: list                       # input shapes
    dtype: str
    lines: list = field(default_factory=list)     # (name, expr, shape)
    outputs: list = field(default_factory=list)   # names returned
    ties: bool = False                 # float inputs from a few values: maxima tie, ...
    scalars: list = field(default_factory=list)   # scalar arguments s0, s1, ... as source text
                                                  # ("np.float32(0.75)", "2"), after the arrays
    tol_scale: float = 1.0             # TOL times the loosest record tolerance among the lines

    def source(self) -> str:
        args = ", ".join([f"x{i}" for i in range(len(self.shapes))] +
                         [f"s{i}" for i in range(len(self.scalars))])
        body = [f"    {n} = {e}" for n, e, _ in self.lines]
        ret = ", ".join(self.outputs) + ("," if len(self.outputs) == 1 else "")
        return "\n".join([f"def f({args}):", *body, f"    return ({ret})"])

    def fn(self):
        scope = {**SCOPE, "np": np}
        exec(compile(self.source(), "<fuzzed program>", "exec"), scope)  # noqa: S102 - own text
        return scope["f"]

    def inputs(self, seed=0):
        """The arrays (NumPy, one per shape), then the scalar arguments as they are (NumPy or
        Python scalars: _run passes them unconverted, so they stay weak)."""
        return self.arrays(seed) + self.scalar_values()

    def arrays(self, seed=0):
        rng = np.random.default_rng(seed)
        if np.dtype(self.dtype).kind == "i":       # integer programs: mostly edge values
            return [rng.choice(int_edge_values(self.dtype), s).astype(self.dtype)
                    for s in self.shapes]
        if self.ties:
            return [rng.choice(TIE_VALUES, s).astype(self.dtype) for s in self.shapes]
        return [rng.uniform(-1.5, 1.5, s).astype(self.dtype) for s in self.shapes]

    def scalar_values(self):
        return [eval(s, {"np": np}) for s in self.scalars]   # noqa: S307 - own literals


TIE_VALUES = np.array([-1.0, -0.5, 0.0, 0.5, 1.0])


# ----------------------------------------------------------------------------- generation

def _axis(rng, nd):
    return int(rng.integers(-nd, nd)) if nd else None


def _axes(rng, nd):
    r = rng.random()
    if nd == 0 or r < 0.25:
        return None
    if r < 0.6:
        return _axis(rng, nd)
    k = int(rng.integers(1, nd + 1))
    return tuple(sorted(int(a) for a in rng.choice(nd, k, replace=False)))


# the op database's fuzzable records (FuzzOps), by kind
UNARY, BINARY, REDUCERS, SHAPE_OPS = (fuzz_ops(k) for k in ("unary", "binary", "reduce", "shape"))


def _choice(rng, ops):
    return ops[int(rng.integers(len(ops)))]


def _unary(rng, a, sa, pick, new_input):
    op = _choice(rng, UNARY)
    return op.line(a), sa, op.tol_scale


def _binary(rng, a, sa, pick, new_input):
    b, sb = pick()
    op = _choice(rng, BINARY)
    return op.line(a, b), op.shape(sa, sb), op.tol_scale


def _reduce(rng, a, sa, pick, new_input):
    op = _choice(rng, REDUCERS)
    params = {"axis": _axes(rng, len(sa)), "keepdims": bool(rng.random() < 0.4)}
    return op.line(a, **params), op.shape(sa, **params), op.tol_scale


def _record_shape_op(rng, a, sa, pick, new_input):
    """A shape or per-axis record with its kwargs (softmax, cumsum, pad, tile, rot90, ...): None
    where its reference rejects `a`'s shape."""
    op = _choice(rng, SHAPE_OPS)
    return op.line(a), op.shape(sa), op.tol_scale


def _matmul(rng, a, sa, pick, new_input):
    if len(sa) >= 2:
        r = rng.random()
        if r < 0.15 and len(sa) >= 3:   # summed over the batch: one GEMM (contract_batch)
            axes = tuple(range(len(sa) - 2))
            return f"jnp.sum(jnp.swapaxes({a}, -1, -2) @ {a}, axis={axes})", (sa[-1], sa[-1])
        if r < 0.35:
            return f"{a} @ jnp.swapaxes({a}, -1, -2)", sa[:-1] + (sa[-2],)
        if r < 0.7:         # a weight: a new input, so both operands are differentiated
            # 20 columns: a whole vector and an edge for the unpacked GEMMs (llvm_small_gemm)
            n = (1, 2, 3, 20)[int(rng.integers(0, 4))]
            w = new_input((sa[-1], n))
            return f"{a} @ {w}", sa[:-1] + (n,)
        b, sb = pick()
        if len(sb) >= 2 and sb[-2] == sa[-1]:
            try:
                batch = np.broadcast_shapes(sa[:-2], sb[:-2])
            except ValueError:
                return None
            return f"jnp.matmul({a}, {b})", tuple(batch) + (sa[-2], sb[-1])
        return None
    if len(sa) == 1:
        b, sb = pick()
        if sb == sa:
            return (f"jnp.dot({a}, {b})", ()) if rng.random() < 0.5 else \
                (f"jnp.einsum('a,b->ab', {a}, {b})", sa + sb)
        return f"jnp.einsum('a,a->', {a}, {a})", ()
    return None


def _view_matmul(rng, a, sa, pick, new_input):
    """A product whose left operand is a strided view of `a`, read in place by the GEMM
    (ir/passes/matmul_views.py): every other row, a column slice, a batch axis swapped into
    the rows, or attention's heads (the last axis split, the halves moved in front); sometimes
    the product transposed keeping its last axis (a product store)."""
    if len(sa) < 2:
        return None
    n = (1, 3, 20)[int(rng.integers(0, 3))]
    r = rng.random()
    if r < 0.25:
        view, shape = f"{a}[..., ::2, :]", sa[:-2] + (-(-sa[-2] // 2), sa[-1])
    elif r < 0.5 and sa[-1] > 1:
        view, shape = f"{a}[..., 1:]", sa[:-1] + (sa[-1] - 1,)
    elif r < 0.75 and len(sa) >= 3:
        view, shape = f"jnp.swapaxes({a}, 0, -2)", (sa[-2],) + sa[1:-2] + (sa[0], sa[-1])
    elif sa[-1] % 2 == 0:
        view = f"jnp.swapaxes(jnp.reshape({a}, {sa[:-1] + (2, sa[-1] // 2)}), -3, -2)"
        shape = sa[:-2] + (2, sa[-2], sa[-1] // 2)
    else:
        return None
    w = new_input((shape[-1], n))
    out = shape[:-1] + (n,)
    if len(out) >= 3 and rng.random() < 0.4:    # stored transposed: a batch axis and the rows
        return f"jnp.swapaxes({view} @ {w}, 0, -2)", (out[-2],) + out[1:-2] + (out[0], n)
    return f"{view} @ {w}", out


def _shape_op(rng, a, sa, pick, new_input):
    nd, r = len(sa), rng.random()
    if r < 0.15:
        return f"jnp.reshape({a}, (-1,))", (int(np.prod(sa)),)
    if r < 0.3 and nd:
        perm = tuple(int(p) for p in rng.permutation(nd))
        return f"jnp.transpose({a}, {perm})", tuple(sa[p] for p in perm)
    if r < 0.42 and nd < 4:
        ax = int(rng.integers(0, nd + 1))
        return f"jnp.expand_dims({a}, {ax})", sa[:ax] + (1,) + sa[ax:]
    if r < 0.5 and 1 in sa:
        ax = sa.index(1)
        return f"jnp.squeeze({a}, axis={ax})", sa[:ax] + sa[ax + 1:]
    if r < 0.6 and nd < 4:
        new = tuple(int(d) for d in rng.integers(2, 4, 1)) + tuple(
            int(rng.integers(2, 4)) if d == 1 else d for d in sa)
        return f"jnp.broadcast_to({a}, {new})", new
    if r < 0.7 and nd:
        ax = _axis(rng, nd)
        s = list(sa)
        if rng.random() < 0.5:
            s[ax] *= 2
            return f"jnp.concatenate([{a}, jnp.sin({a})], axis={ax})", tuple(s)
        ax = int(rng.integers(0, nd + 1))
        return f"jnp.stack([{a}, {a} * 0.5], axis={ax})", sa[:ax] + (2,) + sa[ax:]
    if r < 0.78 and nd and sa[-1] > 1:
        k = int(rng.integers(1, sa[-1]))
        return f"{a}[..., {k}:]", sa[:-1] + (sa[-1] - k,)
    if r < 0.86 and nd:
        ax = _axis(rng, nd)
        idx = [int(i) for i in rng.integers(0, sa[ax], int(rng.integers(1, 4)))]
        s = list(sa)
        s[ax] = len(idx)
        return f"jnp.take({a}, np.array({idx}), axis={ax})", tuple(s)
    if r < 0.93 and nd:
        return f"jnp.cumsum({a}, axis={_axis(rng, nd)})", sa
    if nd:
        return f"jnp.sort({a}, axis={_axis(rng, nd)})", sa
    return None


def _control(rng, a, sa, pick, new_input):
    """A loop or branch whose body is a random unary chain (compiled: codegen/cpu/loops.py)."""
    def body(v):
        return _choice(rng, UNARY).line(v)
    r = rng.random()
    if r < 0.4 and sa:          # scan over the leading axis: carry and stacked ys
        rev = bool(rng.random() < 0.3)
        step = f"lambda c, x: ({body('c * 0.5 + x')}, c * x)"
        out = "[1]" if rng.random() < 0.5 else "[0]"
        return (f"jg.scan({step}, {a}[0] * 0.0, {a}, reverse={rev}){out}",
                sa if out == "[1]" else sa[1:])
    if r < 0.7:                 # fori_loop with static bounds (a scan), closing over {a}
        n = int(rng.integers(0, 4))
        return f"jg.fori_loop(0, {n}, lambda i, v: {body('v')} * 0.5 + {a}, {a})", sa
    return f"jg.cond(jnp.sum({a}) > 0, lambda v: {body('v')}, lambda v: v * 0.5, {a})", sa


def _from_values(rng, a, sa, pick, new_input):
    """Arrays built from traced values (issue 24): jnp.array of nested lists, linspace and
    geomspace with traced endpoints; their derivatives reach every element."""
    r, nd = rng.random(), len(sa)
    if r < 0.3:                 # a nested list of same-shape traced values and constants
        b, sb = pick()
        other = b if sb == sa else f"jnp.cos({a})"
        return f"jnp.array([[{a}, {other}], [{a} * 0.5, jnp.sin({a}) + 1.0]])", (2, 2) + sa
    if r < 0.45:                # a flat list of traced scalars and Python numbers
        return f"jnp.array([jnp.sum({a}), 1.5, jnp.max({a}) * 2.0])", (3,)
    if r < 0.75:                # array endpoints, the new axis anywhere
        ax, num = int(rng.integers(0, nd + 1)), int(rng.integers(1, 5))
        end = bool(rng.random() < 0.7)
        return (f"jnp.linspace({a}, {a} * 2.0 + 1.0, {num}, endpoint={end}, axis={ax})",
                sa[:ax] + (num,) + sa[ax:])
    if r < 0.9:                 # scalar traced endpoints
        return f"jnp.linspace(jnp.mean({a}), jnp.sum({a}) * 0.5 - 1.0, 5)", (5,)
    return f"jnp.geomspace(jnp.exp({a}), jnp.exp({a}) * 3.0, 3, axis=0)", (3,) + sa


def _window(rng, a, sa, pick, new_input):
    """conv2d (a new weight input; padding, stride, dilation; im2col/col2im when one group) or
    pooling over a rank-4 value taken as (N, C, H, W); a split reshape (a view in the memory
    plan) otherwise."""
    if len(sa) != 4:
        if len(sa) >= 1 and sa[-1] % 2 == 0 and len(sa) < 4:
            return f"jnp.reshape({a}, {sa[:-1] + (2, sa[-1] // 2)})", sa[:-1] + (2, sa[-1] // 2)
        return None
    n, c, h, w = sa
    r = rng.random()
    pad, stride, dil = int(rng.integers(0, 2)), int(rng.integers(1, 3)), int(rng.integers(1, 3))
    if r < 0.6:
        o, kh, kw = int(rng.integers(1, 3)), int(rng.integers(1, 3)), int(rng.integers(1, 3))
        oh = (h + 2 * pad - dil * (kh - 1) - 1) // stride + 1
        ow = (w + 2 * pad - dil * (kw - 1) - 1) // stride + 1
        if oh < 1 or ow < 1:
            return None
        wt = new_input((o, c, kh, kw))
        return (f"F.conv2d({a}, {wt}, padding={pad}, stride={stride}, dilation={dil})",
                (n, o, oh, ow))
    if r < 0.75:
        k = int(rng.integers(1, 3))
        if k > h or k > w:
            return None
        fn = "F.max_pool2d" if r < 0.7 else "F.avg_pool2d"
        return f"{fn}({a}, {k})", (n, c, h // k, w // k)
    if r < 0.85:                # overlapping, padded max pooling
        k = min(int(rng.integers(2, 4)), h + 2 * pad, w + 2 * pad)
        pad = min(pad, k // 2)
        oh, ow = (h + 2 * pad - k) // stride + 1, (w + 2 * pad - k) // stride + 1
        return f"F.max_pool2d({a}, {k}, stride={stride}, padding={pad})", (n, c, oh, ow)
    return _reduce_window(rng, a, sa)


def _reduce_window(rng, a, sa):
    """lax.reduce_window max or min over the last two axes ('SAME': the output keeps the size
    when the stride is 1); a window's gradient goes to its first extremum."""
    fn, init = (("jg.lax.max", "-np.inf"), ("jg.lax.min", "np.inf"))[int(rng.integers(0, 2))]
    window = (1,) * (len(sa) - 2) + tuple(int(d) for d in rng.integers(1, 4, 2))
    strides = (1,) * (len(sa) - 2) + tuple(int(d) for d in rng.integers(1, 3, 2))
    out = sa[:-2] + tuple(-(-d // st) for d, st in zip(sa[-2:], strides[-2:]))
    return f"jg.lax.reduce_window({a}, {init}, {fn}, {window}, {strides}, 'SAME')", out


# x.at[idx].<mode>(values) per mode; divisors are kept away from zero, powers' bases positive
SCATTERS = {"set": "{x}.at[{i}].set({w})", "add": "{x}.at[{i}].add({w})",
            "multiply": "{x}.at[{i}].multiply({w})",
            "divide": "{x}.at[{i}].divide({w} * {w} + 0.5)",
            "power": "(jnp.abs({x}) + 0.5).at[{i}].power({w})",
            "min": "{x}.at[{i}].min({w})", "max": "{x}.at[{i}].max({w})"}


def _scatter(rng, a, sa, pick, new_input):
    """An `.at[]` update of rows of `a` with a repeated row index (repeats combine: the last set
    wins, products compose, the extreme min/max), its indices constant or traced (an argmax
    times 0 added), its values a new input or one traced scalar broadcast (equal values tie)."""
    if not sa:
        return None
    k = int(rng.integers(2, 5))
    idx = [int(i) for i in rng.integers(0, sa[0], k)]
    idx[-1] = idx[0]                                    # at least one repeat
    i = f"np.array({idx})" if rng.random() < 0.6 else f"np.array({idx}) + jnp.argmax({a}) * 0"
    w = new_input((k,) + sa[1:]) if rng.random() < 0.7 else f"jnp.sum({a})"
    mode = list(SCATTERS)[int(rng.integers(len(SCATTERS)))]
    return SCATTERS[mode].format(x=a, i=i, w=w), sa


# scalar arguments (issue 48): NumPy and Python scalars passed to the program, weak beside its
# arrays (an f32 array times np.float64(0.75) stays float32 eagerly and under jit)
SCALAR_FLOATS = (0.75, -1.25, 1.5, 0.5, -0.25, 2.0)
SCALAR_KINDS = ("np.float64({c})", "np.float32({c})", "np.int32({k})", "{c}", "{k}")
SCALAR_EXPRS = ["{a} * {s}", "{a} + {s}", "{s} - {a}", "{a} / ({s} * {s} + 1.0)",
                "jnp.maximum({a}, {s})", "jnp.where({a} > {s}, {a}, {s} * 0.5)",
                "{a} * jnp.cos({s})", "jnp.clip({a}, {s} - 1.0, {s} + 1.0)",
                "({a} - {s}) * ({a} + {s})", "jnp.tanh({a} * {s}) + {s}"]


def _scalar_arg(rng, a, sa, pick, new_input):
    """`a` combined with a new scalar argument: np.float64/np.float32/np.int32 or a Python float
    or int, traced by jit (weak) and a plain scalar eagerly; integer powers with int ones."""
    kind = SCALAR_KINDS[int(rng.integers(len(SCALAR_KINDS)))]
    integer = "{k}" in kind
    k = int(rng.integers(0, 4)) if integer else 0
    s = new_input((), scalar=kind.format(c=SCALAR_FLOATS[int(rng.integers(len(SCALAR_FLOATS)))],
                                         k=k))
    if integer and rng.random() < 0.3:
        return f"{a} ** {s}", sa
    return SCALAR_EXPRS[int(rng.integers(len(SCALAR_EXPRS)))].format(a=a, s=s), sa


# a loop that closes over a traced value with a trip count known only at run time: jit has no
# reverse mode for it (a TypeError that eager, knowing the count, does not raise); check()
# accepts exactly that error in the grad modes for lines marked so
NO_REVERSE = "  # traced trip count, closes over a traced value: no reverse mode under jit"
LOOP_INITS = ("0.0", "1.0", "0.25", "np.float32(0.5)")     # the NumPy scalar last


def _traced_loop(rng, a, sa, pick, new_input):
    """Loops with constant inits (issue 48): jg.fori_loop(0, n, body, 0.0) and
    jg.while_loop(lambda c: c[0] < n, body, (0, init)) with n a traced int32 argument (np.int32
    or a Python int) or counted from `a` (jnp.sum(a > 0)); the body a unary chain, half the time
    reading `a` (then only forward mode differentiates through the loop under jit); and
    fori_loop with constant bounds and `a` as the carry, the index in the body (the weak int32
    index keeps the carry's dtype)."""
    def body(v):
        return _choice(rng, UNARY).line(v)
    r = rng.random()
    if r < 0.3:                 # constant bounds, the index read: a scan
        lo = int(rng.integers(0, 2))
        hi = lo + int(rng.integers(0, 4))
        step = ("v * 1.5 + i", "v * 0.5 - i", f"{body('v')} * 0.5 + i * 0.25",
                "jnp.where(i % 2 == 0, v, -v) + i")[int(rng.integers(0, 4))]
        return f"jg.fori_loop({lo}, {hi}, lambda i, v: {step}, {a})", sa
    if rng.random() < 0.5:
        k = int(rng.integers(0, 4))
        n = new_input((), scalar=f"np.int32({k})" if rng.random() < 0.6 else f"{k}")
    else:
        n = f"jnp.sum({a} > 0).astype(jnp.int32)"
    closes = bool(rng.random() < 0.5)
    # a NumPy-scalar init only where the body cannot widen the carry: np.float32(0.5) with a
    # float64 body is accepted eagerly, a carry type error under jit (issue 48;
    # test_codegen_fuzz.py::test_fori_loop_numpy_scalar_init_float64_body, xfail)
    init = LOOP_INITS[int(rng.integers(len(LOOP_INITS) - closes))]
    # the index only after the closed-over term: a Python-float carry meeting the index alone is
    # float64 eagerly, float32 under jit (issue 48; test_codegen_fuzz.py::
    # test_fori_loop_float_init_with_index_traced_bound, xfail), which would fail every such seed
    term = (f"jnp.mean({a})" if sa else a) if closes else "0.5"
    idx = " + i * 0.25" if closes and rng.random() < 0.4 else ""
    mark = NO_REVERSE if closes else ""
    if r < 0.65:
        loop = f"jg.fori_loop(0, {n}, lambda i, c: {body('c')} * 0.5 + {term}{idx}, {init})"
        return f"{a} * {loop}{mark}", sa
    idx = idx.replace("i", "c[0]")
    loop = (f"jg.while_loop(lambda c: c[0] < {n}, lambda c: (c[0] + 1, {body('c[1]')} * 0.5 + "
            f"{term}{idx}), (0, {init}))[1]")
    return f"{a} + {loop}{mark}", sa


BUILDERS = [(_unary, 3), (_binary, 3), (_reduce, 2), (_record_shape_op, 2), (_matmul, 1),
            (_shape_op, 1),
            (_control, 1), (_from_values, 1), (_window, 1), (_view_matmul, 1), (_scatter, 1)]
# the default builders and issue 48's statements: scalar arguments, constant-init traced loops
SCALAR_LOOP_BUILDERS = BUILDERS + [(_scalar_arg, 3), (_traced_loop, 3)]


def program(seed: int, n_stmts=None, builders=None, dtypes=("float64", "float32"),
            rank=None) -> Program:
    """builders/dtypes: the statement kinds and the two dtypes drawn from (int_program); rank:
    the first input's rank (default: drawn, 0-4, as the base of every input's shape)."""
    builders = builders or BUILDERS
    rng = np.random.default_rng(seed)
    drawn, asked = int(rng.integers(0, 5)), rank is not None
    rank = rank if asked else drawn
    base = tuple(int(d) for d in rng.integers(1, 4, rank))
    shapes = []
    for _ in range(int(rng.integers(1, 4))):
        k = int(rng.integers(0, rank + 1))
        shapes.append(tuple(1 if rng.random() < 0.3 else d for d in base[rank - k:]))
    if asked:                       # a rank asked for: the first input has it
        shapes[0] = base
    prog = Program(shapes, dtypes[0] if rng.random() < 0.5 else dtypes[1])
    env = [(f"x{i}", s) for i, s in enumerate(shapes)]
    weights = np.array([w for _, w in builders], float)
    n = n_stmts or int(rng.integers(3, 13))

    def new_input(shape, scalar=None):
        """A new array input of the shape; with scalar (source text), a scalar argument."""
        if scalar is not None:
            prog.scalars.append(scalar)
            return f"s{len(prog.scalars) - 1}"
        name = f"x{len(prog.shapes)}"
        prog.shapes.append(tuple(shape))
        return name
    while len(prog.lines) < n:
        def pick():
            # favour recent values: programs then chain rather than fan out
            j = len(env) - 1 - min(int(rng.geometric(0.45)) - 1, len(env) - 1)
            return env[j]
        a, sa = pick()
        build = builders[int(rng.choice(len(builders), p=weights / weights.sum()))][0]
        made = build(rng, a, sa, pick, new_input)
        if made is None or made[1] is None or int(np.prod(made[1])) > 256 or len(made[1]) > 4:
            continue
        name = f"v{len(prog.lines)}"
        prog.lines.append((name, made[0], tuple(made[1])))
        prog.tol_scale = max(prog.tol_scale, made[2] if len(made) > 2 else 1.0)
        env.append((name, tuple(made[1])))
    # every value no later statement reads is an output (the last always), at most three
    leaves = [name for name, _, _ in prog.lines
              if not any(_reads(e, name) for _, e, _ in prog.lines)]
    prog.outputs = leaves[-3:]
    return prog


# integer programs (issue 24): edge values through the op database's integer records (//, %,
# shifts, bitwise ops, sums, sorts, ...: fuzz_ops(kind, "int")), where hardware division and
# shifts differ from NumPy (min // -1, x // 0, counts >= the bit width); a right operand is now
# and then a Python int literal (weak: the array's dtype stays), an edge value itself
INT_UNARY, INT_BINARY, INT_REDUCERS, INT_SHAPE_OPS = (fuzz_ops(k, "int") for k in (
    "unary", "binary", "reduce", "shape"))
INT_LITERALS = (-1, 0, 1, 3, 63)        # within int8: -1 and 0 as divisors, 63 as a shift count


def int_edge_values(dtype):
    """The values integer inputs are drawn from; min, -1 and 0 thrice (min // -1, x // 0)."""
    i = np.iinfo(dtype)
    bits = i.bits
    return np.array([i.min] * 3 + [-1] * 3 + [0] * 3 + [i.min + 1, i.max, i.max - 1, -bits, 1, 2,
                     3, -3, 7, bits - 1, bits, bits + 1], np.int64).astype(dtype)


def _int_binary(rng, a, sa, pick, new_input):
    # the right operand: a value, a fresh input (independent edge values meet) or a literal
    r = rng.random()
    if r < 0.2:
        b, sb = repr(INT_LITERALS[int(rng.integers(len(INT_LITERALS)))]), ()
    else:
        b, sb = pick() if r < 0.6 else (new_input(sa), sa)
    op = _choice(rng, INT_BINARY)
    return op.line(a, b), op.shape(sa, sb)


def _int_unary(rng, a, sa, pick, new_input):
    return _choice(rng, INT_UNARY).line(a), sa


def _int_reduce(rng, a, sa, pick, new_input):
    op = _choice(rng, INT_REDUCERS)
    params = {"axis": _axes(rng, len(sa)), "keepdims": bool(rng.random() < 0.3)}
    return op.line(a, **params), op.shape(sa, **params)


def _int_shape_op(rng, a, sa, pick, new_input):
    op = _choice(rng, INT_SHAPE_OPS)
    return op.line(a), op.shape(sa)


INT_BUILDERS = [(_int_binary, 5), (_int_unary, 2), (_int_reduce, 1), (_int_shape_op, 1)]


def int_program(seed: int, n_stmts=None) -> Program:
    """An integer program (int64 or int32): check it with mode "forward"."""
    return program(seed, n_stmts, INT_BUILDERS, ("int64", "int32"))


def lowp_program(seed: int, n_stmts=None) -> Program:
    """A float16 or bfloat16 program (tests/numpy/test_dtypes_lowp.py)."""
    return program(seed, n_stmts, dtypes=("float16", "bfloat16"))


def small_int_program(seed: int, n_stmts=None) -> Program:
    """An int8 or int16 integer program: check it with mode "forward"."""
    return program(seed, n_stmts, INT_BUILDERS, ("int8", "int16"))


def _reads(expr, name) -> bool:
    expr = expr.split("#")[0]
    for ch in "()[],.*+-/@<>=":
        expr = expr.replace(ch, " ")
    return name in expr.split()


# ----------------------------------------------------------------------------- checking

@contextmanager
def _env(values):
    old = {k: os.environ.get(k) for k in ("JITGRAD_BACKEND", "JITGRAD_DISABLE")}
    for k in old:
        os.environ.pop(k, None)
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _task(prog, mode, widen=False):
    """fn(*xs) -> flat list of arrays for the mode, plus the (fixed) cotangents and tangents.
    widen: the same inputs, cotangents and tangents (their float32 values) in float64."""
    f = prog.fn()
    rng = np.random.default_rng(1)
    xs, scalars = prog.arrays(), prog.scalar_values()
    outs_shapes = [dict((n, s) for n, _, s in prog.lines)[o] for o in prog.outputs]
    ws = [rng.uniform(-1, 1, s).astype(prog.dtype) for s in outs_shapes]
    ts = [rng.uniform(-1, 1, x.shape).astype(prog.dtype) for x in xs]
    if widen:
        xs, ws, ts = ([a.astype(np.float64) for a in arrays] for arrays in (xs, ws, ts))
    nx = len(xs)
    argnums = tuple(range(nx))       # the arrays; scalar arguments are not differentiated

    def loss(*a):
        return sum(jnp.sum(o * w) for o, w in zip(f(*a), ws))

    def forward(*a):
        return list(f(*a))

    def grad(*a):
        return list(jg.grad(loss, argnums=argnums)(*a))

    def jvp(*a):
        return list(jg.jvp(lambda *p: f(*p, *a[nx:]), tuple(a[:nx]), tuple(ts))[1])

    def combined(*a):
        return forward(*a) + grad(*a) + jvp(*a)

    return ({"forward": forward, "grad": grad, "jvp": jvp, "combined": combined}[mode],
            xs + scalars)


def _run(fn, xs):
    try:
        args = [jnp.asarray(x) if isinstance(x, np.ndarray) else x for x in xs]   # scalars as
        return [np.asarray(o) for o in fn(*args)], None                           # they are
    except Exception as e:  # noqa: BLE001 - the error itself is what we compare
        return None, e


def as_accurate(prog, mode, k, ref, got, cache):
    """Whether float32 result k of a path that differs from eager's is, element by element, no
    further from the float64 evaluation of the same program than eager's (within TOL): an
    ill-conditioned program (the sine of a product near 3e4) turns one rounding apart, as two
    summation orders give, into a visible difference, and then eager is not the truth. `cache`
    (a list) keeps the float64 results for the program."""
    if prog.dtype != "float32":
        return False
    if not cache:
        fn, xs = _task(prog, mode, widen=True)
        cache.append(_run(fn, xs)[0])
    wide = cache[0]
    if wide is None or wide[k].shape != ref.shape:
        return False
    e, r, g = (np.asarray(a, np.float64) for a in (wide[k], ref, got))
    tol = _tol(prog)["atol"] + _tol(prog)["rtol"] * np.abs(e)
    with np.errstate(invalid="ignore"):
        ok = np.abs(g - e) <= np.abs(r - e) + tol
    return bool(np.all(ok | (np.isnan(g) & np.isnan(r))))


def _tol(prog):
    return {k: v * prog.tol_scale for k, v in TOL[prog.dtype].items()}


def check(prog: Program, mode: str, paths=PATHS):
    """None when every path agrees with eager (or, in float32, is as close as eager to the
    program evaluated in float64: as_accurate), else a one-line description of the
    difference."""
    fn, xs = _task(prog, mode)
    ref, ref_err = _run(fn, xs)
    if prog.scalars and ref is not None and np.dtype(prog.dtype).kind == "f" and not any(
            re.search(r"jnp\.\w+\(s\d+\)", e) for _, e, _ in prog.lines):
        # scalar arguments are weak beside arrays: they never change a float dtype (standing
        # alone they keep theirs: jnp.cos(np.float64(c)) is float64, on every path)
        for k, r in enumerate(ref):
            if r.dtype != np.dtype(prog.dtype):
                return f"{mode}/eager: result {k} is {r.dtype}, not the program's {prog.dtype}"
    no_reverse = mode in ("grad", "combined") and any(NO_REVERSE in e for _, e, _ in prog.lines)
    wide = []
    for path in paths:
        with _env(_ENV[path]):
            got, err = _run(jg.jit(fn), xs)
        if (no_reverse and ref_err is None and isinstance(err, TypeError)
                and "reverse-mode differentiation" in str(err)):
            continue                    # a documented limit (NO_REVERSE), eager knows the count
        if ref_err is not None or err is not None:
            if type(ref_err) is not type(err):
                return (f"{mode}/{path}: eager gave {type(ref_err).__name__}: {ref_err}, "
                        f"jit gave {type(err).__name__}: {err}")
            continue
        for k, (r, g) in enumerate(zip(ref, got)):
            exact = r.dtype.kind in "iub"        # integers: equal (allclose rounds to float)
            if r.shape != g.shape or not (
                    (np.array_equal(g, r) and g.dtype == r.dtype) if exact else
                    g.dtype == r.dtype and np.allclose(np.asarray(g, np.float64),
                                                       np.asarray(r, np.float64), equal_nan=True,
                                                       **_tol(prog))):
                if r.shape == g.shape and as_accurate(prog, mode, k, r, g, wide):
                    continue
                diff = np.max(np.abs(g - r)) if r.shape == g.shape else f"shape {g.shape} vs {r.shape}"
                return f"{mode}/{path}: result {k} differs from eager by {diff}"
    return None


def _needed(lines, outputs):
    """The statements the outputs depend on (by name)."""
    need, keep = set(outputs), []
    for name, expr, shape in reversed(lines):
        if name in need:
            keep.append((name, expr, shape))
            need.update(w for w, _, _ in lines if _reads(expr, w))
    return keep[::-1]


def shrink(prog: Program, mode: str, paths=PATHS) -> Program:
    """A smaller program failing the same check: fewer outputs, earlier outputs, fewer lines."""
    best = prog
    changed = True
    while changed:
        changed = False
        cands = []
        for o in best.outputs:
            for name, _, _ in best.lines:
                cands.append([name] if name != o else [o])
        for outs in cands:
            lines = _needed(best.lines, outs)
            if len(lines) >= len(best.lines) and outs == best.outputs:
                continue
            trial = Program(best.shapes, best.dtype, lines, outs, best.ties, best.scalars,
                            best.tol_scale)
            if len(lines) < len(best.lines) or len(outs) < len(best.outputs):
                if check(trial, mode, paths) is not None:
                    best, changed = trial, True
                    break
    return best
