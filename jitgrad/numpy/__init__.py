"""jitgrad.numpy: NumPy's API over jitgrad tensors, eager or traced (`import jitgrad.numpy as jnp`).

Deliberate deviations from NumPy (tests/numpy/test_numpy_ops.py asserts each):
- Python floats and lists of them are float32 (as in PyTorch and JAX); float64 arrays stay float64.
- Float math on int/bool inputs (exp, mean, true_divide, ...) gives float32, not float64; and an
  int/bool array meeting a Python float gives float32. (The float64 mode, jg.config.update(
  "enable_x64", True) or jg.set_default_dtype(jg.float64), makes all of these float64.)
- reciprocal of an int array is a float reciprocal (NumPy truncates 1/2 to 0).
- float16, bfloat16 and the small ints are stored as themselves and computed wide (float32,
  int32/int64; ir/lowp.py); they promote with JAX's lattice (int16 + float16 is float16).
- x.sort(axis=...) returns a sorted copy (NumPy sorts in place); methods are PyTorch's where the
  two differ (x.sort() gives (values, indices): jitgrad/torch_api/naming.py). Basic-index results
  (x[1:3]) are views as in NumPy; other results may or may not share storage, so write only
  through indexing.
"""
# The modules import each other in one direction, at module level (tests/package/test_layering.py):
#   _convert (operands, dtypes, devices) -> checks, _out, host_values (nonzero, unique) ->
#   ufunc_rules -> ufuncs -> elementwise -> copies -> shape -> differences, indexing, spaced,
#   sets -> creation -> reductions -> complex_parts -> searching, products -> linalg, fft;
#   dtype_functions -> info; methods (the Tensor methods, installed below) on indexing.
import math as _math

import numpy as _np

# NumPy's scalar types, as in NumPy: jnp.float32(1.5) works, and `x.dtype == jnp.float32`
from numpy import bool_, complex64, complex128, float32, float64, int32, int64
# the low-precision dtypes (bfloat16 from ml_dtypes, as in JAX: the module __getattr__ below)
from numpy import float16, int8, int16, uint8, uint16, uint32, uint64
from ..eager.array_base import ArrayOps as _ArrayOps
from ..dtypes import canonical_dtype as _canonical_dtype
from ..ir.types import load_bfloat16 as _load_bfloat16
from ._convert import is_array as _is_array
from . import elementwise as _elementwise, ufuncs as _ufuncs
from .copies import copy
from .creation import (arange, array, asarray, astype, empty, empty_like, eye, from_dlpack,
                       full, full_like, geomspace, identity, linspace, logspace, ones, ones_like,
                       tri,
                       zeros, zeros_like)
from .elementwise import *  # noqa: F401,F403
from .complex_parts import *  # noqa: F401,F403
from .ufuncs import *  # noqa: F401,F403  (generated from the primitives' records)
from . import fft
from .dtype_functions import can_cast, finfo, iinfo, isdtype, promote_types, result_type
from .index_tricks import c_, r_
from .info import __array_namespace_info__
from .searching import argpartition, partition, searchsorted, select
from .sets import unique_all, unique_counts, unique_inverse, unique_values
from .host_values import nonzero, unique
from .indexing import argwhere, flatnonzero, take, take_along_axis
from .products import (cross, diag, diagonal, dot, einsum, inner, kron, matmul, outer,
                       tensordot, trace, vdot, vecdot)
from . import linalg  # jnp.linalg, as numpy.linalg
from .reductions import (all, amax, amin, any, argmax, argmin, argsort, average, count_nonzero,
                         cumprod, cumsum, cumulative_sum, max, mean, median, min, prod, ptp,
                         sort, std, sum, var)
from .differences import diff, gradient
# jax.numpy's remaining public names (issue 49; tests/numpy/test_jnp_coverage.py accounts for all)
from .array_api_extras import cumulative_prod, isneginf, isposinf, matvec, vecmat
from .array_editing import (array_equiv, block, choose, compress, delete, diagflat, ediff1d,
                            extract, fill_diagonal, insert, lexsort, place, put, put_along_axis,
                            resize, sort_complex, trim_zeros)
from .bit_packing import bitwise_count, packbits, unpackbits
from .float_functions import divmod, fmod, frexp, gcd, lcm, ldexp, modf, nextafter, spacing
from .host_io import (array_repr, array_str, einsum_path, frombuffer, fromfile, fromiter,
                      fromstring, get_printoptions, iterable, load, printoptions, save, savez,
                      set_printoptions)
from .index_helpers import (diag_indices, diag_indices_from, index_exp, indices, ix_,
                            mask_indices, mgrid, ogrid, ravel_multi_index, s_, tril_indices,
                            tril_indices_from, triu_indices, triu_indices_from, unravel_index)
from .nan_functions import (nanargmax, nanargmin, nancumprod, nancumsum, nanmax, nanmean,
                            nanmin, nanprod, nanstd, nansum, nanvar)
from .polynomials import (poly, polyadd, polyder, polydiv, polyfit, polyint, polymul, polysub,
                          polyval, roots, vander)
from .quantiles import nanmedian, nanpercentile, nanquantile, percentile, quantile
from .scalar_types import (ComplexWarning, cdouble, character, complex_, complexfloating,
                           csingle, double, flexible, float_, floating, generic, inexact, int_,
                           integer, issubdtype, number, object_, signedinteger, single, uint,
                           unsignedinteger)
from .scalar_types import NARROW_TYPES as _NARROW_TYPES
from .set_functions import intersect1d, isin, setdiff1d, setxor1d, union1d
from .signal_functions import convolve, correlate, interp, trapezoid, unwrap
from .statistics import (bincount, corrcoef, cov, digitize, histogram, histogram2d,
                         histogram_bin_edges, histogramdd)
from .window_functions import bartlett, blackman, hamming, hanning
from ..lazy_import import lazy_attributes as _lazy_attributes
# modules over jitgrad.scipy or vmap, which import jitgrad.numpy, and ml_dtypes' narrow types
# (int4, float8_e4m3fn, ...; ~0.7 s, as bfloat16): loaded on first use
_LAZY = {**{n: ("ml_dtypes", n) for n in _NARROW_TYPES},
         **{n: ("jitgrad.numpy.bessel_functions", n) for n in ("i0", "kaiser")},
         **{n: ("jitgrad.numpy.ufunc_class", n) for n in ("frompyfunc", "ufunc")},
         **{n: ("jitgrad.numpy.vectorizing", n) for n in (
             "apply_along_axis", "apply_over_axes", "fromfunction", "piecewise", "vectorize")}}
_lazy_getattr, __dir__ = _lazy_attributes(__name__, globals(), _LAZY)
from .shape import (append, array_split, atleast_1d, atleast_2d, atleast_3d, broadcast_arrays,
                    broadcast_shapes, broadcast_to, column_stack, concat, concatenate,
                    dsplit, dstack, expand, expand_dims, flip, fliplr, flipud, hsplit,
                    hstack, matrix_transpose, meshgrid, moveaxis, ndim, pad, permute_dims, ravel,
                    repeat, reshape, roll, rollaxis, rot90, row_stack, shape, size, split,
                    squeeze, stack, swapaxes, tile, transpose, tril, triu, unstack, vsplit,
                    vstack)

bool = bool_  # noqa: A001
newaxis = None
__array_api_version__ = "2023.12"
pi, e, inf, nan = _math.pi, _math.e, _math.inf, _math.nan
euler_gamma = _np.euler_gamma
ndarray = _ArrayOps  # isinstance(x, jnp.ndarray) holds for eager tensors and traced values


def isscalar(x):
    """numpy.isscalar: returns True if the type of `element` is a scalar type."""
    return _np.isscalar(x) or _is_array(x) and x.ndim == 0


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """numpy.allclose: whether two arrays are element-wise equal within a tolerance (a bool
    array, as jax.numpy: traceable under jit)."""
    return all(isclose(a, b, rtol, atol, equal_nan))


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """numpy.isclose: returns a boolean array where two arrays are element-wise equal within a
    tolerance."""
    u = _ufuncs
    x, y = asarray(a), asarray(b)
    close = u.less_equal(u.abs(u.subtract(x, y)), u.add(atol, u.multiply(rtol, u.abs(y))))
    finite = u.logical_and(_elementwise.isfinite(x), _elementwise.isfinite(y))
    # as NumPy: infinities are close only to themselves
    close = u.logical_or(u.logical_and(close, finite), u.equal(x, y))
    if not equal_nan:
        return close
    return u.logical_or(close, u.logical_and(_elementwise.isnan(x), _elementwise.isnan(y)))


def array_equal(a1, a2, equal_nan=False):
    """numpy.array_equal: whether two arrays have the same shape and elements (a bool array, as
    jax.numpy: traceable under jit)."""
    x, y = asarray(a1), asarray(a2)
    if x.shape != y.shape:
        return asarray(False)
    same = _ufuncs.equal(x, y)
    if equal_nan:
        same = _ufuncs.logical_or(same, _ufuncs.logical_and(_elementwise.isnan(x),
                                                            _elementwise.isnan(y)))
    return all(same)


def dtype(x):
    """numpy.dtype: dtype(dtype, align=False, copy=False, **kwargs) --."""
    return _canonical_dtype(x)


def __getattr__(name):
    """jnp.bfloat16, ml_dtypes' scalar type as in JAX, loads ml_dtypes on first use (~0.7 s)."""
    if name in _LAZY:
        return _lazy_getattr(name)
    if name != "bfloat16":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return _load_bfloat16().type


from ..errors import wrap_public_functions as _wrap  # noqa: E402

_wrap(globals(), "jitgrad")   # errors show the user's call, not jitgrad's frames

from . import methods as _methods  # noqa: E402

_methods.install()     # operators and methods of Tensors and traced values (eager/array_base.py)
