"""NumPy reference implementations: the eager CPU path, constant folding and the test oracle.

Each primitive's record (ir/primitives/) names its reference: fn(*arrays, **params) -> array(s).
This module holds the ones that are more than a NumPy function, and `evaluate`, which runs an
op's reference and casts the results to the types its type rule promises."""
from __future__ import annotations

import math

import numpy as np

from . import lowp
from .errors import MissingRuleError, check_error, out_of_bounds
from .registry import REFERENCE
from .types import is_bfloat16, kind_of


def erf(x):
    try:
        from scipy.special import erf     # lazy: scipy loads on the first erf, never at import
    except ImportError:  # scipy is a dependency; this keeps ir/ importable with NumPy alone
        erf = np.vectorize(math.erf, otypes=[x.dtype])
    return erf(x)


def sigmoid(x):
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e))


COLUMN_GROUP = 128     # rows of a column sum added in float32 before float64, as the compiled
                       # kernels group them (codegen/cpu/kernels/reduce.py)


def reduce_sum(x, *, axes):
    """np.sum over `axes`, with float32 sums along outer axes as accurate as the compiled
    kernels' (within a few units of the last place, as NumPy's pairwise sums of a contiguous
    run): NumPy adds along an outer axis one row at a time in float32, an error growing with the
    count (a (100000, 10) column sum 5.7e-6 relative, 4.7e-8 here, in about half the time). The
    reduced trailing run sums in float32 (pairwise) and the rest in float64; with no trailing
    axis reduced, groups of COLUMN_GROUP rows in float32, then float64; rounded once."""
    axes = tuple(sorted(a % x.ndim for a in axes)) if x.ndim else ()
    run = 0
    while x.ndim - 1 - run in axes:
        run += 1
    outer = axes[:len(axes) - run]
    if x.dtype != np.float32 or not outer or x.size == 0:
        return np.sum(x, axis=axes)
    if run:
        part = np.sum(x, axis=axes[len(outer):])
        return np.sum(part, axis=outer, dtype=np.float64).astype(np.float32)
    rows = np.moveaxis(x, outer, range(len(outer)))
    rows = rows.reshape((-1,) + rows.shape[len(outer):])
    n = rows.shape[0]
    if n <= COLUMN_GROUP:
        return np.sum(rows, axis=0)
    whole = n - n % COLUMN_GROUP
    groups = rows[:whole].reshape((-1, COLUMN_GROUP) + rows.shape[1:]).sum(axis=1)
    total = np.sum(groups, axis=0, dtype=np.float64)
    if whole < n:
        total += np.sum(rows[whole:], axis=0)
    return total.astype(np.float32)


def _checked(op, idx, n):
    """idx with negatives wrapped; IndexError (ir.errors.out_of_bounds) outside [-n, n)."""
    idx = np.asarray(idx)
    bad = (idx < -n) | (idx >= n)
    if bad.any():
        raise out_of_bounds(op, idx[bad].flat[0], n)
    return np.where(idx < 0, idx + n, idx)


def take(x, idx, *, axis, check=None):
    """check (ir.errors.check_error): an assertion, idx valid in [0, n) with no wrapping."""
    if check:
        n = x.shape[axis]
        bad = (idx < 0) | (idx >= n)
        if bad.any():
            raise check_error("take", check, idx[bad].flat[0], n)
        return np.take(x, idx, axis=axis)
    return np.take(x, _checked("take", idx, x.shape[axis]), axis=axis)


def scatter_add(idx, upd, *, shape, axis):
    idx = _checked("scatter_add", idx, shape[axis])
    out = np.zeros(shape, upd.dtype)
    np.add.at(out, (slice(None),) * axis + (idx,), upd)
    return out


def slice_op(x, *, start, stop, step):
    return x[tuple(slice(a, b, s) for a, b, s in zip(start, stop, step))]


def pad(x, *, lo, hi, value=0):
    return np.pad(x, list(zip(lo, hi)), constant_values=value)


def lapack(fn):
    """A LAPACK decomposition over the batch; a matrix it cannot factor (not positive definite,
    singular) gives NaN results, as in JAX and the compiled kernels (codegen/cpu/kernels/lapack.py)."""
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


def convert(x, *, dtype):
    """astype; complex to real keeps the real part (as JAX, without NumPy's ComplexWarning); a
    bfloat16 to an integer type converts its float32 value (exact), as float16 does in NumPy
    and every compiled kernel does: ml_dtypes' own cast of an out-of-range value is the C++
    compiler's (200.5 to int8 gave -56 on one machine and 0 on another)."""
    if kind_of(x.dtype) == "c" and kind_of(dtype) != "c":
        x = x.real
    if is_bfloat16(x.dtype) and np.dtype(dtype).kind in "iu":
        x = x.astype(np.float32)
    return x.astype(dtype)


_NP_FFT = {"fft": np.fft.fftn, "ifft": np.fft.ifftn, "rfft": np.fft.rfftn, "irfft": np.fft.irfftn}


def fft(x, *, fft_type, lengths):
    """lax.fft: the unnormalized forward (1/n inverse) transform over the trailing axes."""
    k = len(lengths)
    axes = tuple(range(x.ndim - k, x.ndim))
    if fft_type == "irfft":
        return np.fft.irfftn(x, s=lengths, axes=axes)
    return _NP_FFT[fft_type](x, axes=axes)


def _tuple(r):
    return tuple(r) if isinstance(r, tuple) else (r,)     # NumPy's result namedtuples too


def evaluate(node_op, arrays, params, out_types):
    """Run one op with NumPy; results have exactly the dtypes in `out_types`."""
    fn = REFERENCE.get(node_op)
    if fn is None:
        raise MissingRuleError(node_op, "NumPy reference")
    if lowp.needs_widening(node_op, [a.dtype for a in arrays], [t.dtype for t in out_types]):
        # computed in float32 / int32 and rounded (wrapped) once to the result type below
        arrays = [a.astype(lowp.wide(a.dtype)) for a in arrays]
        params = lowp.widened_params(params)
    with np.errstate(all="ignore"):
        res = fn(*arrays, **params)
        res = tuple(res) if isinstance(res, (tuple, list)) else (res,)
        return tuple(_cast(r, t.dtype) for r, t in zip(res, out_types))


def _cast(r, dtype):
    r = np.asarray(r)
    return r if r.dtype == dtype else r.astype(dtype)
