"""NumPy reference implementation of every primitive: the eager CPU path, constant folding and
the test oracle. Each entry takes input arrays and the node's params and returns array(s);
`evaluate` casts results to the types the type rule promises."""
from __future__ import annotations

import math

import numpy as np

from . import complex_math
from .errors import MissingRuleError, check_error, out_of_bounds
from .ops import Op


def _erf(x):
    try:
        from scipy.special import erf
    except ImportError:  # scipy is a dependency; this keeps ir/ importable with NumPy alone
        erf = np.vectorize(math.erf, otypes=[x.dtype])
    return erf(x)


def _sigmoid(x):
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e))


def _checked(op, idx, n):
    """idx with negatives wrapped; IndexError (ir.errors.out_of_bounds) outside [-n, n)."""
    idx = np.asarray(idx)
    bad = (idx < -n) | (idx >= n)
    if bad.any():
        raise out_of_bounds(op, idx[bad].flat[0], n)
    return np.where(idx < 0, idx + n, idx)


def _take(x, idx, *, axis, check=None):
    """check (ir.errors.check_error): an assertion, idx valid in [0, n) with no wrapping."""
    if check:
        n = x.shape[axis]
        bad = (idx < 0) | (idx >= n)
        if bad.any():
            raise check_error("take", check, idx[bad].flat[0], n)
        return np.take(x, idx, axis=axis)
    return np.take(x, _checked("take", idx, x.shape[axis]), axis=axis)


def _scatter_add(idx, upd, *, shape, axis):
    idx = _checked("scatter_add", idx, shape[axis])
    out = np.zeros(shape, upd.dtype)
    np.add.at(out, (slice(None),) * axis + (idx,), upd)
    return out


def _random(key, *, shape, dtype, dist):
    gen = np.random.Generator(np.random.Philox(key=[int(k) & (2**64 - 1) for k in key]))
    if dist == "normal":
        return gen.standard_normal(shape, dtype=dtype)
    if dist == "uniform":
        return gen.random(shape, dtype=dtype)
    return gen.integers(np.iinfo(dtype).min, np.iinfo(dtype).max, shape, dtype=dtype,
                        endpoint=True)


def _slice(x, *, start, stop, step):
    return x[tuple(slice(a, b, s) for a, b, s in zip(start, stop, step))]


def _pad(x, *, lo, hi, value=0):
    return np.pad(x, list(zip(lo, hi)), constant_values=value)


def _lapack(fn):
    """A LAPACK decomposition over the batch; a matrix it cannot factor (not positive definite,
    singular) gives NaN results, as in JAX and the compiled kernels (codegen/cpu_linalg.py)."""
    def run(a, *rest, **params):
        try:
            return fn(a, *rest, **params)
        except np.linalg.LinAlgError:
            pass
        outs = None
        for idx in np.ndindex(a.shape[:-2]):
            others = [b[idx] for b in rest]
            try:
                r = _tuple(fn(a[idx], *others, **params))
            except np.linalg.LinAlgError:
                r = tuple(np.full_like(t, np.nan) for t in
                          _tuple(fn(np.eye(*a.shape[-2:], dtype=a.dtype), *others, **params)))
            if outs is None:
                outs = tuple(np.empty(a.shape[:-2] + np.shape(t), np.result_type(t)) for t in r)
            for o, t in zip(outs, r):
                o[idx] = t
        return outs if len(outs) > 1 else outs[0]
    return run


def _convert(x, *, dtype):
    """astype; complex to real keeps the real part (as JAX, without NumPy's ComplexWarning)."""
    if x.dtype.kind == "c" and dtype.kind != "c":
        x = x.real
    return x.astype(dtype)


_NP_FFT = {"fft": np.fft.fftn, "ifft": np.fft.ifftn, "rfft": np.fft.rfftn, "irfft": np.fft.irfftn}


def _fft(x, *, fft_type, lengths):
    """lax.fft: the unnormalized forward (1/n inverse) transform over the trailing axes."""
    k = len(lengths)
    axes = tuple(range(x.ndim - k, x.ndim))
    if fft_type == "irfft":
        return np.fft.irfftn(x, s=lengths, axes=axes)
    return _NP_FFT[fft_type](x, axes=axes)


def _tuple(r):
    return tuple(r) if isinstance(r, tuple) else (r,)     # NumPy's result namedtuples too


REFERENCE = {
    Op.exp: np.exp, Op.log: np.log, Op.log1p: np.log1p, Op.expm1: complex_math.expm1, Op.sqrt: np.sqrt,
    Op.rsqrt: lambda x: 1 / np.sqrt(x), Op.sin: np.sin, Op.cos: np.cos, Op.tan: np.tan,
    Op.tanh: complex_math.tanh, Op.asin: np.arcsin, Op.acos: np.arccos, Op.atan: np.arctan,
    Op.sinh: np.sinh, Op.cosh: np.cosh, Op.asinh: np.arcsinh, Op.acosh: np.arccosh,
    Op.atanh: np.arctanh, Op.erf: _erf, Op.sigmoid: _sigmoid, Op.floor: np.floor,
    Op.ceil: np.ceil, Op.round: np.round, Op.neg: np.negative, Op.abs: np.abs,
    Op.sign: np.sign, Op.square: np.square, Op.isnan: np.isnan, Op.isinf: np.isinf,
    Op.logical_not: np.logical_not, Op.signbit: np.signbit, Op.bitwise_not: np.invert,
    Op.bitwise_and: np.bitwise_and, Op.bitwise_or: np.bitwise_or,
    Op.bitwise_xor: np.bitwise_xor, Op.shift_left: np.left_shift,
    Op.shift_right: np.right_shift,
    Op.convert: _convert,
    Op.real: np.real, Op.imag: np.imag, Op.conj: np.conjugate,
    Op.complex: complex_math.complex_from_parts, Op.fft: _fft,
    Op.stop_gradient: lambda x: x,
    Op.add: np.add, Op.sub: np.subtract, Op.mul: np.multiply, Op.div: np.true_divide,
    Op.floor_div: np.floor_divide, Op.mod: np.mod, Op.pow: np.power, Op.max: np.maximum,
    Op.min: np.minimum, Op.atan2: np.arctan2, Op.eq: np.equal, Op.ne: np.not_equal,
    Op.lt: np.less, Op.le: np.less_equal, Op.gt: np.greater, Op.ge: np.greater_equal,
    Op.logical_and: np.logical_and, Op.logical_or: np.logical_or,
    Op.logical_xor: np.logical_xor, Op.select: np.where,
    Op.reduce_sum: lambda x, *, axes: np.sum(x, axis=axes),
    Op.reduce_max: lambda x, *, axes: np.max(x, axis=axes),
    Op.reduce_min: lambda x, *, axes: np.min(x, axis=axes),
    Op.reduce_prod: lambda x, *, axes: np.prod(x, axis=axes),
    Op.argmax: lambda x, *, axes: np.argmax(x, axis=axes[0]),
    Op.argmin: lambda x, *, axes: np.argmin(x, axis=axes[0]),
    Op.cumsum: lambda x, *, axis: np.cumsum(x, axis=axis, dtype=x.dtype),
    Op.sort: lambda x, *, axis: np.sort(x, axis=axis, kind="stable"),
    Op.argsort: lambda x, *, axis: np.argsort(x, axis=axis, kind="stable"),
    Op.reshape: lambda x, *, shape: np.reshape(x, shape),
    Op.transpose: lambda x, *, perm: np.transpose(x, perm),
    Op.broadcast_to: lambda x, *, shape: np.broadcast_to(x, shape),
    Op.slice: _slice, Op.rev: lambda x, *, axes: np.flip(x, axes), Op.pad: _pad,
    Op.concatenate: lambda *xs, axis: np.concatenate(xs, axis=axis),
    Op.take: _take,
    Op.scatter_add: _scatter_add, Op.matmul: np.matmul,
    Op.constant: lambda *, value: value.array, Op.random: _random,
    Op.cholesky: _lapack(np.linalg.cholesky), Op.eigh: _lapack(np.linalg.eigh),
    Op.svd: _lapack(np.linalg.svd), Op.qr: _lapack(np.linalg.qr),
    Op.solve: _lapack(np.linalg.solve), Op.slogdet: _lapack(np.linalg.slogdet),
}

# Extra ops (kernel, control flow) register their evaluators here: fn(node, arrays) -> arrays.
EXTRA_REFERENCE: dict = {}


def evaluate(node_op, arrays, params, out_types):
    """Run one op with NumPy; results have exactly the dtypes in `out_types`."""
    fn = REFERENCE.get(node_op)
    if fn is None and node_op in EXTRA_REFERENCE:     # extra ops (custom_vjp_call) run eagerly too
        from .graph import Node
        res = EXTRA_REFERENCE[node_op](Node(node_op, (), params, ()), list(arrays))
        return tuple(_cast(r, t.dtype) for r, t in zip(res, out_types))
    if fn is None:
        raise MissingRuleError(node_op, "NumPy reference")
    with np.errstate(all="ignore"):
        res = fn(*arrays, **params)
    res = res if isinstance(res, tuple) else (res,)
    return tuple(_cast(r, t.dtype) for r, t in zip(res, out_types))


def _cast(r, dtype):
    r = np.asarray(r)
    return r if r.dtype == dtype else r.astype(dtype)
