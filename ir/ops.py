"""The op table: one enum of primitives, named groups, and the type rule of every op.

Passes dispatch on the groups; per-concern rules (NumPy reference, VJP/JVP, codegen expression)
live in their own tables keyed by `Op`. tests/test_ir_core.py checks that every primitive has a
type rule, prints and parses, and runs on the reference interpreter; tests/test_autodiff_rules.py
that every one has VJP and JVP rules or is marked non-differentiable.
"""
from __future__ import annotations

import enum

import numpy as np

from .errors import ShapeError
from .types import (TensorType, bool_, complex_dtype, int64, is_bool, is_complex, is_float,
                    is_inexact, is_int, real_dtype)


class Op(str, enum.Enum):
    # elementwise unary, float in -> float out
    exp = "exp"; log = "log"; log1p = "log1p"; expm1 = "expm1"; sqrt = "sqrt"; rsqrt = "rsqrt"
    sin = "sin"; cos = "cos"; tan = "tan"; tanh = "tanh"; asin = "asin"; acos = "acos"
    atan = "atan"; sinh = "sinh"; cosh = "cosh"; asinh = "asinh"; acosh = "acosh"
    atanh = "atanh"; erf = "erf"; sigmoid = "sigmoid"; floor = "floor"; ceil = "ceil"
    round = "round"
    # elementwise unary, numeric in -> same dtype out
    neg = "neg"; abs = "abs"; sign = "sign"; square = "square"
    # elementwise unary with other result dtypes
    isnan = "isnan"; isinf = "isinf"; logical_not = "logical_not"; signbit = "signbit"
    bitwise_not = "bitwise_not"
    # complex numbers: parts (complex -> float), conjugate, and (re, im) -> complex
    real = "real"; imag = "imag"; conj = "conj"; complex = "complex"  # noqa: A003
    convert = "convert"; stop_gradient = "stop_gradient"
    # elementwise binary (NumPy broadcasting, equal dtypes)
    add = "add"; sub = "sub"; mul = "mul"; div = "div"; floor_div = "floor_div"; mod = "mod"
    pow = "pow"; max = "max"; min = "min"; atan2 = "atan2"
    eq = "eq"; ne = "ne"; lt = "lt"; le = "le"; gt = "gt"; ge = "ge"
    logical_and = "logical_and"; logical_or = "logical_or"; logical_xor = "logical_xor"
    select = "select"
    bitwise_and = "bitwise_and"; bitwise_or = "bitwise_or"; bitwise_xor = "bitwise_xor"
    shift_left = "shift_left"; shift_right = "shift_right"
    # reductions and scans
    reduce_sum = "reduce_sum"; reduce_max = "reduce_max"; reduce_min = "reduce_min"
    reduce_prod = "reduce_prod"; argmax = "argmax"; argmin = "argmin"
    cumsum = "cumsum"; sort = "sort"; argsort = "argsort"
    # shapes and data movement
    reshape = "reshape"; transpose = "transpose"; broadcast_to = "broadcast_to"
    slice = "slice"; rev = "rev"; pad = "pad"; concatenate = "concatenate"
    take = "take"; scatter_add = "scatter_add"
    matmul = "matmul"
    cholesky = "cholesky"; eigh = "eigh"; svd = "svd"; qr = "qr"; solve = "solve"
    slogdet = "slogdet"
    fft = "fft"
    constant = "constant"
    random = "random"

    def __str__(self):
        return self.value

    __format__ = object.__format__


FLOAT_UNARY = frozenset({Op.exp, Op.log, Op.log1p, Op.expm1, Op.sqrt, Op.rsqrt, Op.sin, Op.cos,
                         Op.tan, Op.tanh, Op.asin, Op.acos, Op.atan, Op.sinh, Op.cosh, Op.asinh,
                         Op.acosh, Op.atanh, Op.erf, Op.sigmoid, Op.floor, Op.ceil, Op.round})
NUMERIC_UNARY = frozenset({Op.neg, Op.abs, Op.sign, Op.square})
PREDICATE_UNARY = frozenset({Op.isnan, Op.isinf, Op.signbit})
# integer-only bit operations (NumPy's bitwise_* and shifts; bool masks use the logical ops)
INTEGER_UNARY = frozenset({Op.bitwise_not})
INTEGER_BINARY = frozenset({Op.bitwise_and, Op.bitwise_or, Op.bitwise_xor, Op.shift_left,
                            Op.shift_right})
ARITH_BINARY = frozenset({Op.add, Op.sub, Op.mul, Op.div, Op.floor_div, Op.mod, Op.pow, Op.max,
                          Op.min, Op.atan2})
COMPARE = frozenset({Op.eq, Op.ne, Op.lt, Op.le, Op.gt, Op.ge})
LOGICAL_BINARY = frozenset({Op.logical_and, Op.logical_or, Op.logical_xor})
FLOAT_ONLY = FLOAT_UNARY | {Op.div, Op.atan2, Op.signbit}
# the float-only ops NumPy also defines on complex numbers (holomorphic functions)
COMPLEX_OK = frozenset({Op.exp, Op.log, Op.log1p, Op.expm1, Op.sqrt, Op.rsqrt, Op.sin, Op.cos,
                        Op.tan, Op.tanh, Op.asin, Op.acos, Op.atan, Op.sinh, Op.cosh, Op.asinh,
                        Op.acosh, Op.atanh, Op.div})
# ops that need an ordering or are real-only, so refuse complex inputs (as NumPy and the standard)
NO_COMPLEX = (FLOAT_ONLY - COMPLEX_OK) | {Op.floor_div, Op.mod, Op.max, Op.min, Op.lt, Op.le,
                                          Op.gt, Op.ge, Op.reduce_max, Op.reduce_min,
                                          Op.argmax, Op.argmin, Op.sort, Op.argsort}
COMPLEX_PARTS = frozenset({Op.real, Op.imag})

ELEMENTWISE_UNARY = FLOAT_UNARY | NUMERIC_UNARY | PREDICATE_UNARY | INTEGER_UNARY | COMPLEX_PARTS | {
    Op.logical_not, Op.convert, Op.stop_gradient, Op.conj}
ELEMENTWISE_BINARY = ARITH_BINARY | COMPARE | LOGICAL_BINARY | INTEGER_BINARY | {Op.complex}
ELEMENTWISE = ELEMENTWISE_UNARY | ELEMENTWISE_BINARY | {Op.select}
REDUCE = frozenset({Op.reduce_sum, Op.reduce_max, Op.reduce_min, Op.reduce_prod, Op.argmax,
                    Op.argmin})
SCAN = frozenset({Op.cumsum, Op.sort, Op.argsort})
SHAPE = frozenset({Op.reshape, Op.transpose, Op.broadcast_to, Op.slice, Op.rev, Op.pad,
                   Op.concatenate})
INDEX = frozenset({Op.take, Op.scatter_add})
MATMUL = frozenset({Op.matmul})
# LAPACK decompositions over the last two axes (leading axes are a batch)
LINALG = frozenset({Op.cholesky, Op.eigh, Op.svd, Op.qr, Op.solve, Op.slogdet})
# Ops with no derivative (their cotangent contributions are zero, as in JAX).
NON_DIFFERENTIABLE = COMPARE | LOGICAL_BINARY | PREDICATE_UNARY | INTEGER_UNARY | INTEGER_BINARY | {
    Op.logical_not, Op.floor, Op.ceil, Op.round, Op.sign, Op.argmax, Op.argmin, Op.argsort,
    Op.stop_gradient, Op.floor_div, Op.constant, Op.random}
ALL_OPS = frozenset(Op)


# ----------------------------------------------------------------------------- type rules

def _fail(op, msg):
    raise ShapeError(f"{op}: {msg}")


def broadcast_shapes(op, *types: TensorType) -> tuple:
    """NumPy broadcasting; the error names every input type."""
    ndim = max(t.ndim for t in types)
    out = []
    for i in range(ndim):
        dims = {t.shape[t.ndim - ndim + i] for t in types if t.ndim - ndim + i >= 0} - {1}
        if len(dims) > 1:
            _fail(op, "cannot broadcast shapes " + " and ".join(map(str, types)))
        out.append(dims.pop() if dims else 1)
    return tuple(out)


def _same_dtype(op, types):
    if len({t.dtype for t in types}) != 1:
        _fail(op, "expected inputs of one dtype, got " + " and ".join(map(str, types)))
    return types[0].dtype


def _unary(op, types, params):
    (t,) = types
    if op in NO_COMPLEX and is_complex(t.dtype):
        _fail(op, f"expected a real input (complex numbers have no {op}), got {t}")
    if op in COMPLEX_PARTS or (op is Op.abs and is_complex(t.dtype)):
        if not is_complex(t.dtype):
            _fail(op, f"expected a complex input, got {t}")
        return [TensorType(t.shape, real_dtype(t.dtype))]
    if op is Op.conj and not is_complex(t.dtype):
        _fail(op, f"expected a complex input, got {t}")
    if op in FLOAT_ONLY and not (is_inexact(t.dtype) if op in COMPLEX_OK else is_float(t.dtype)):
        _fail(op, f"expected a float input, got {t}")
    if op in NUMERIC_UNARY and is_bool(t.dtype):
        _fail(op, f"expected a numeric input, got {t}")
    if op in INTEGER_UNARY and t.dtype.kind not in "iu":
        _fail(op, f"expected an integer input, got {t}")
    if op in PREDICATE_UNARY:
        return [TensorType(t.shape, bool_)]
    if op is Op.logical_not:
        if not is_bool(t.dtype):
            _fail(op, f"expected a bool input, got {t}")
    if op is Op.convert:
        return [TensorType(t.shape, params["dtype"])]
    return [t]


def _binary(op, types, params):
    dtype = _same_dtype(op, types)
    shape = broadcast_shapes(op, *types)
    if op in NO_COMPLEX and is_complex(dtype):
        _fail(op, "expected real inputs (complex numbers have no ordering), got "
              + " and ".join(map(str, types)))
    if op is Op.complex:
        if not is_float(dtype):
            _fail(op, "expected float real and imaginary parts, got " + " and ".join(map(str, types)))
        return [TensorType(shape, complex_dtype(dtype))]
    if op in FLOAT_ONLY and not (is_inexact(dtype) if op in COMPLEX_OK else is_float(dtype)):
        _fail(op, "expected float inputs, got " + " and ".join(map(str, types)))
    if op in ARITH_BINARY and is_bool(dtype):
        _fail(op, "expected numeric inputs, got " + " and ".join(map(str, types)))
    if op in LOGICAL_BINARY and not is_bool(dtype):
        _fail(op, "expected bool inputs, got " + " and ".join(map(str, types)))
    if op in INTEGER_BINARY and dtype.kind not in "iu":
        _fail(op, "expected integer inputs, got " + " and ".join(map(str, types)))
    return [TensorType(shape, bool_ if op in COMPARE else dtype)]


def _select(op, types, params):
    pred, a, b = types
    if not is_bool(pred.dtype):
        _fail(op, f"expected a bool condition, got {pred}")
    dtype = _same_dtype(op, [a, b])
    return [TensorType(broadcast_shapes(op, pred, a, b), dtype)]


def _check_axes(op, t, axes):
    for a in axes:
        if not 0 <= a < t.ndim:
            _fail(op, f"axis {a} is out of range for {t}")
    if len(set(axes)) != len(axes):
        _fail(op, f"repeated axis in {axes}")


def _reduce(op, types, params):
    (t,) = types
    axes = params["axes"]
    if op in NO_COMPLEX and is_complex(t.dtype):
        _fail(op, f"expected a real input (complex numbers have no ordering), got {t}")
    _check_axes(op, t, axes)
    if op in (Op.reduce_max, Op.reduce_min, Op.argmax, Op.argmin):
        if any(t.shape[a] == 0 for a in axes):
            _fail(op, f"zero-size reduction over axes {axes} of {t} has no identity")
    shape = tuple(d for i, d in enumerate(t.shape) if i not in axes)
    if op in (Op.argmax, Op.argmin):
        if len(axes) != 1:
            _fail(op, "expected exactly one axis")
        return [TensorType(shape, int64)]
    if op in (Op.reduce_sum, Op.reduce_prod) and is_bool(t.dtype):
        _fail(op, f"expected a numeric input, got {t}")
    return [TensorType(shape, t.dtype)]


def _scan(op, types, params):
    (t,) = types
    if op in NO_COMPLEX and is_complex(t.dtype):
        _fail(op, f"expected a real input (complex numbers have no ordering), got {t}")
    _check_axes(op, t, (params["axis"],))
    return [TensorType(t.shape, int64 if op is Op.argsort else t.dtype)]


def _reshape(op, types, params):
    (t,) = types
    shape = params["shape"]
    if int(np.prod(shape, dtype=np.int64)) != t.size or any(d < 0 for d in shape):
        _fail(op, f"cannot reshape {t} into shape {shape}")
    return [TensorType(shape, t.dtype)]


def _transpose(op, types, params):
    (t,) = types
    perm = params["perm"]
    if sorted(perm) != list(range(t.ndim)):
        _fail(op, f"perm {perm} is not a permutation of the axes of {t}")
    return [TensorType(tuple(t.shape[p] for p in perm), t.dtype)]


def _broadcast_to(op, types, params):
    (t,) = types
    shape = params["shape"]
    ok = t.ndim <= len(shape) and all(
        d in (1, s) for d, s in zip(t.shape[::-1], shape[::-1]))
    if not ok:
        _fail(op, f"cannot broadcast {t} to shape {shape}")
    return [TensorType(shape, t.dtype)]


def _slice(op, types, params):
    (t,) = types
    start, stop, step = params["start"], params["stop"], params["step"]
    if not len(start) == len(stop) == len(step) == t.ndim:
        _fail(op, f"expected start/stop/step of length {t.ndim} for {t}")
    shape = []
    for d, a, b, s in zip(t.shape, start, stop, step):
        if s <= 0 or not 0 <= a <= d or not 0 <= b <= d:
            _fail(op, f"bad slice {a}:{b}:{s} of an axis of size {d} in {t}")
        shape.append(max(0, -(-(b - a) // s)))
    return [TensorType(tuple(shape), t.dtype)]


def _rev(op, types, params):
    (t,) = types
    _check_axes(op, t, params["axes"])
    return [t]


def _pad(op, types, params):
    (t,) = types
    lo, hi = params["lo"], params["hi"]
    if len(lo) != t.ndim or len(hi) != t.ndim or min(lo + hi, default=0) < 0:
        _fail(op, f"expected non-negative lo/hi padding of length {t.ndim} for {t}")
    return [TensorType(tuple(d + a + b for d, a, b in zip(t.shape, lo, hi)), t.dtype)]


def _concatenate(op, types, params):
    axis = params["axis"]
    dtype = _same_dtype(op, types)
    first = types[0]
    _check_axes(op, first, (axis,))
    for t in types[1:]:
        if t.ndim != first.ndim or any(
                a != b for i, (a, b) in enumerate(zip(t.shape, first.shape)) if i != axis):
            _fail(op, "shapes differ off the concatenation axis: "
                  + " and ".join(map(str, types)))
    shape = list(first.shape)
    shape[axis] = sum(t.shape[axis] for t in types)
    return [TensorType(tuple(shape), dtype)]


def _take(op, types, params):
    x, idx = types
    axis = params["axis"]
    _check_axes(op, x, (axis,))
    if not is_int(idx.dtype):
        _fail(op, f"expected integer indices, got {idx}")
    return [TensorType(x.shape[:axis] + idx.shape + x.shape[axis + 1:], x.dtype)]


def _scatter_add(op, types, params):
    idx, upd = types
    shape, axis = params["shape"], params["axis"]
    if not is_int(idx.dtype):
        _fail(op, f"expected integer indices, got {idx}")
    want = shape[:axis] + idx.shape + shape[axis + 1:]
    if upd.shape != want:
        _fail(op, f"updates {upd} do not match indices {idx} into shape {shape} on axis {axis}")
    return [TensorType(shape, upd.dtype)]


def _matmul(op, types, params):
    a, b = types
    dtype = _same_dtype(op, types)
    if a.ndim < 2 or b.ndim < 2:
        _fail(op, f"expected inputs of rank >= 2, got {a} and {b}")
    if a.shape[-1] != b.shape[-2]:
        _fail(op, f"inner dimensions differ: {a} @ {b} ({a.shape[-1]} != {b.shape[-2]})")
    if is_bool(dtype):
        _fail(op, f"expected numeric inputs, got {a} and {b}")
    batch = broadcast_shapes(op, TensorType(a.shape[:-2], dtype), TensorType(b.shape[:-2], dtype))
    return [TensorType(batch + (a.shape[-2], b.shape[-1]), dtype)]


def _square(op, t):
    if not is_inexact(t.dtype) or t.ndim < 2 or t.shape[-1] != t.shape[-2]:
        _fail(op, f"expected float or complex square matrices [..., n, n], got {t}")
    return t.shape[:-2], t.shape[-1]


def _linalg(op, types, params):
    """Types of the decompositions (NumPy's conventions; k = min(m, n)); of a complex input,
    eigenvalues, singular values and log|det| are real."""
    a, dt = types[0], types[0].dtype
    rdt = real_dtype(dt)
    if op is Op.solve:
        b = types[1]
        batch, n = _square(op, a)
        if b.dtype != dt or b.shape[:-2] != batch or b.ndim < 2 or b.shape[-2] != n:
            _fail(op, f"expected right-hand sides [..., {n}, k] of {a}'s batch and dtype, got {b}")
        return [b]
    if op in (Op.cholesky, Op.eigh, Op.slogdet):
        batch, n = _square(op, a)
        return {Op.cholesky: [a], Op.eigh: [TensorType(batch + (n,), rdt), a],
                Op.slogdet: [TensorType(batch, dt), TensorType(batch, rdt)]}[op]
    if not is_inexact(dt) or a.ndim < 2:
        _fail(op, f"expected float or complex matrices [..., m, n], got {a}")
    batch, (m, n) = a.shape[:-2], a.shape[-2:]
    k = min(m, n)
    if op is Op.svd:
        full = params["full_matrices"]
        return [TensorType(batch + (m, m if full else k), dt), TensorType(batch + (k,), rdt),
                TensorType(batch + (n if full else k, n), dt)]
    if params["mode"] not in ("reduced", "complete"):
        _fail(op, f"mode must be 'reduced' or 'complete', got {params['mode']!r}")
    r = m if params["mode"] == "complete" else k
    return [TensorType(batch + (m, r), dt), TensorType(batch + (r, n), dt)]


_FFT_IN = {"fft": is_complex, "ifft": is_complex, "rfft": is_float, "irfft": is_complex}


def _fft(op, types, params):
    """lax.fft's types: the transform runs over the trailing len(lengths) axes; rfft halves
    the last one (n // 2 + 1 complex outputs), irfft restores it (lengths[-1] real outputs)."""
    (t,) = types
    kind, lengths = params["fft_type"], tuple(params["lengths"])
    if kind not in _FFT_IN:
        _fail(op, f"fft_type must be one of {sorted(_FFT_IN)}, got {kind!r}")
    if not _FFT_IN[kind](t.dtype):
        want = "a float" if kind == "rfft" else "a complex"
        _fail(op, f"{kind} expects {want} input, got {t}")
    if not 1 <= len(lengths) <= t.ndim or min(lengths) < 1:
        _fail(op, f"expected 1 to {t.ndim} positive transform lengths for {t}, got {lengths}")
    k = len(lengths)
    lead, tail = t.shape[:-k], t.shape[-k:]
    if kind == "irfft":
        want = lengths[:-1] + (lengths[-1] // 2 + 1,)
        out = TensorType(lead + lengths, real_dtype(t.dtype))
    else:
        want = lengths
        shape = lead + lengths[:-1] + (lengths[-1] // 2 + 1,) if kind == "rfft" else t.shape
        out = TensorType(shape, complex_dtype(t.dtype))
    if tail != want:
        _fail(op, f"{kind} of lengths {lengths} expects trailing axes {want}, got {t}")
    return [out]


def _constant(op, types, params):
    lit = params["value"]
    return [TensorType(lit.shape, lit.dtype)]


def _random(op, types, params):
    (key,) = types
    if key.shape != (2,) or key.dtype != int64:
        _fail(op, f"expected a PRNG key i64[2], got {key}")
    if params["dist"] not in ("uniform", "normal", "bits"):
        _fail(op, f"unknown distribution {params['dist']!r}")
    return [TensorType(params["shape"], params["dtype"])]


_ARITY = {**{op: 1 for op in ELEMENTWISE_UNARY | REDUCE | SCAN | SHAPE - {Op.concatenate}},
          **{op: 2 for op in ELEMENTWISE_BINARY | INDEX | MATMUL},
          Op.select: 3, Op.constant: 0, Op.random: 1, Op.concatenate: None,
          **{op: 1 for op in LINALG - {Op.solve}}, Op.solve: 2, Op.fft: 1}

TYPE_RULES = {
    **{op: _unary for op in ELEMENTWISE_UNARY}, **{op: _binary for op in ELEMENTWISE_BINARY},
    Op.select: _select, **{op: _reduce for op in REDUCE}, **{op: _scan for op in SCAN},
    Op.reshape: _reshape, Op.transpose: _transpose, Op.broadcast_to: _broadcast_to,
    Op.slice: _slice, Op.rev: _rev, Op.pad: _pad, Op.concatenate: _concatenate,
    Op.take: _take, Op.scatter_add: _scatter_add, Op.matmul: _matmul,
    **{op: _linalg for op in LINALG}, Op.fft: _fft,
    Op.constant: _constant, Op.random: _random,
}

# Extra ops (fusion kernels, control flow) register here with their own rule.
EXTRA_TYPE_RULES: dict = {}


def infer_types(op, in_types, params) -> list:
    """Result types of `op` applied to `in_types`; ShapeError names the op and the inputs."""
    rule = TYPE_RULES.get(op) or EXTRA_TYPE_RULES.get(op)
    if rule is None:
        from .errors import MissingRuleError
        raise MissingRuleError(op, "type")
    arity = _ARITY.get(op, None)
    if arity is not None and len(in_types) != arity:
        _fail(op, f"expected {arity} inputs, got {len(in_types)}")
    if op is Op.concatenate and not in_types:
        _fail(op, "expected at least one input")
    return rule(op, list(in_types), params)
