"""Type rules of the primitives: rule(op, in_types, params) -> result types, or ShapeError naming
the op and its inputs. Elementwise rules read the op's record (`accepts`, `result`)."""
from __future__ import annotations

import numpy as np

from ..errors import ShapeError
from ..ops import Op
from ..types import (TensorType, bool_, complex_dtype, int64, is_bool, is_complex, is_float,
                     is_inexact, is_int, real_dtype)
from ..registry import record
from ..types import kind_of


def _fail(op, msg):
    raise ShapeError(f"{op}: {msg}")


def broadcast_shapes(op, *types: TensorType) -> tuple:
    """NumPy broadcasting; the error names every input type."""
    first = types[0].shape
    if all(t.shape == first for t in types):
        return first
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


# what each `accepts` value of a record admits, and how an error names it (one input, several)
_ADMITS = {
    "any": lambda dt: True,
    "numeric": lambda dt: not is_bool(dt),
    "real": lambda dt: not is_bool(dt) and not is_complex(dt),
    "ordered": lambda dt: not is_complex(dt),
    "float": is_float,
    "inexact": is_inexact,
    "integer": lambda dt: kind_of(dt) in "iu",
    "bool": is_bool,
    "complex": is_complex,
}
_WANT = {"numeric": ("a numeric input", "numeric inputs"), "real": ("a numeric input", "numeric inputs"),
         "float": ("a float input", "float inputs"), "inexact": ("a float input", "float inputs"),
         "integer": ("an integer input", "integer inputs"), "bool": ("a bool input", "bool inputs"),
         "complex": ("a complex input", "complex inputs")}
# the accepts values that refuse complex numbers because they need an ordering or a real line
_REAL_ONLY = frozenset({"real", "ordered", "float"})


def _check_domain(op, dtype, types, why, plural=False):
    """The op's record admits `dtype`, else a ShapeError showing `types` (formatted only then:
    every traced op passes here)."""
    accepts = record(op).accepts
    if accepts in _REAL_ONLY and is_complex(dtype):
        shown = " and ".join(map(str, types))
        _fail(op, f"expected real inputs (complex numbers have no ordering), got {shown}" if plural
              else f"expected a real input (complex numbers have no {why}), got {shown}")
    if not _ADMITS[accepts](dtype):
        _fail(op, f"expected {_WANT[accepts][plural]}, got {' and '.join(map(str, types))}")


_RESULT = {"same": lambda dt, params: dt, "bool": lambda dt, params: bool_,
           "real": lambda dt, params: real_dtype(dt), "complex": lambda dt, params: complex_dtype(dt),
           "param": lambda dt, params: params["dtype"]}


def elementwise_unary(op, types, params):
    (t,) = types
    _check_domain(op, t.dtype, types, op)
    return [TensorType(t.shape, _RESULT[record(op).result](t.dtype, params))]


def elementwise_binary(op, types, params):
    dtype = _same_dtype(op, types)
    shape = broadcast_shapes(op, *types)
    _check_domain(op, dtype, types, "ordering", plural=True)
    return [TensorType(shape, _RESULT[record(op).result](dtype, params))]


def select_rule(op, types, params):
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


def reduce_rule(op, types, params):
    (t,) = types
    axes = params["axes"]
    _check_domain(op, t.dtype, types, "ordering")
    _check_axes(op, t, axes)
    if op in (Op.reduce_max, Op.reduce_min, Op.argmax, Op.argmin):
        if any(t.shape[a] == 0 for a in axes):
            _fail(op, f"zero-size reduction over axes {axes} of {t} has no identity")
    shape = tuple(d for i, d in enumerate(t.shape) if i not in axes)
    if op in (Op.argmax, Op.argmin):
        if len(axes) != 1:
            _fail(op, "expected exactly one axis")
        return [TensorType(shape, int64)]
    return [TensorType(shape, t.dtype)]


def cumulative_rule(op, types, params):
    (t,) = types
    _check_domain(op, t.dtype, types, "ordering")
    _check_axes(op, t, (params["axis"],))
    return [TensorType(t.shape, int64 if op is Op.argsort else t.dtype)]


def reshape_rule(op, types, params):
    (t,) = types
    shape = params["shape"]
    if int(np.prod(shape, dtype=np.int64)) != t.size or any(d < 0 for d in shape):
        _fail(op, f"cannot reshape {t} into shape {shape}")
    return [TensorType(shape, t.dtype)]


def transpose_rule(op, types, params):
    (t,) = types
    perm = params["perm"]
    if sorted(perm) != list(range(t.ndim)):
        _fail(op, f"perm {perm} is not a permutation of the axes of {t}")
    return [TensorType(tuple(t.shape[p] for p in perm), t.dtype)]


def broadcast_to_rule(op, types, params):
    (t,) = types
    shape = params["shape"]
    ok = t.ndim <= len(shape) and all(
        d in (1, s) for d, s in zip(t.shape[::-1], shape[::-1]))
    if not ok:
        _fail(op, f"cannot broadcast {t} to shape {shape}")
    return [TensorType(shape, t.dtype)]


def slice_rule(op, types, params):
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


def rev_rule(op, types, params):
    (t,) = types
    _check_axes(op, t, params["axes"])
    return [t]


def pad_rule(op, types, params):
    (t,) = types
    lo, hi = params["lo"], params["hi"]
    if len(lo) != t.ndim or len(hi) != t.ndim or min(lo + hi, default=0) < 0:
        _fail(op, f"expected non-negative lo/hi padding of length {t.ndim} for {t}")
    return [TensorType(tuple(d + a + b for d, a, b in zip(t.shape, lo, hi)), t.dtype)]


def concatenate_rule(op, types, params):
    if not types:
        _fail(op, "expected at least one input")
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


def take_rule(op, types, params):
    x, idx = types
    axis = params["axis"]
    _check_axes(op, x, (axis,))
    if not is_int(idx.dtype):
        _fail(op, f"expected integer indices, got {idx}")
    return [TensorType(x.shape[:axis] + idx.shape + x.shape[axis + 1:], x.dtype)]


def scatter_add_rule(op, types, params):
    idx, upd = types
    shape, axis = params["shape"], params["axis"]
    if not is_int(idx.dtype):
        _fail(op, f"expected integer indices, got {idx}")
    want = shape[:axis] + idx.shape + shape[axis + 1:]
    if upd.shape != want:
        _fail(op, f"updates {upd} do not match indices {idx} into shape {shape} on axis {axis}")
    return [TensorType(shape, upd.dtype)]


def matmul_rule(op, types, params):
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


def linalg_rule(op, types, params):
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


def fft_rule(op, types, params):
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


def constant_rule(op, types, params):
    lit = params["value"]
    return [TensorType(lit.shape, lit.dtype)]
