"""Every public name of jax.numpy (a checked-in list, jax 0.10.2) is in jitgrad.numpy or excluded
with a reason; with jax installed, the list equals the installed jax.numpy's."""
import pytest

import jitgrad.numpy as jnp

JAX_NUMPY = (
    'ComplexWarning', 'abs', 'absolute', 'acos', 'acosh', 'add', 'all', 'allclose', 'amax',
    'amin', 'angle', 'any', 'append', 'apply_along_axis', 'apply_over_axes', 'arange', 'arccos',
    'arccosh', 'arcsin', 'arcsinh', 'arctan', 'arctan2', 'arctanh', 'argmax', 'argmin',
    'argpartition', 'argsort', 'argwhere', 'around', 'array', 'array_equal', 'array_equiv',
    'array_repr', 'array_split', 'array_str', 'asarray', 'asin', 'asinh', 'astype', 'atan',
    'atan2', 'atanh', 'atleast_1d', 'atleast_2d', 'atleast_3d', 'average', 'bartlett',
    'bfloat16', 'bincount', 'bitwise_and', 'bitwise_count', 'bitwise_invert',
    'bitwise_left_shift', 'bitwise_not', 'bitwise_or', 'bitwise_right_shift', 'bitwise_xor',
    'blackman', 'block', 'bool', 'bool_', 'broadcast_arrays', 'broadcast_shapes',
    'broadcast_to', 'c_', 'can_cast', 'cbrt', 'cdouble', 'ceil', 'character', 'choose', 'clip',
    'column_stack', 'complex128', 'complex64', 'complex_', 'complexfloating', 'compress',
    'concat', 'concatenate', 'conj', 'conjugate', 'convolve', 'copy', 'copysign', 'corrcoef',
    'correlate', 'cos', 'cosh', 'count_nonzero', 'cov', 'cross', 'csingle', 'cumprod', 'cumsum',
    'cumulative_prod', 'cumulative_sum', 'deg2rad', 'degrees', 'delete', 'diag', 'diag_indices',
    'diag_indices_from', 'diagflat', 'diagonal', 'diff', 'digitize', 'divide', 'divmod', 'dot',
    'double', 'dsplit', 'dstack', 'dtype', 'e', 'ediff1d', 'einsum', 'einsum_path', 'empty',
    'empty_like', 'equal', 'euler_gamma', 'exp', 'exp2', 'expand_dims', 'expm1', 'extract',
    'eye', 'fabs', 'fft', 'fill_diagonal', 'finfo', 'flatnonzero', 'flexible', 'flip', 'fliplr',
    'flipud', 'float16', 'float32', 'float4_e2m1fn', 'float64', 'float6_e2m3fn',
    'float6_e3m2fn', 'float8_e3m4', 'float8_e4m3', 'float8_e4m3b11fnuz', 'float8_e4m3fn',
    'float8_e4m3fnuz', 'float8_e5m2', 'float8_e5m2fnuz', 'float8_e8m0fnu', 'float_',
    'float_power', 'floating', 'floor', 'floor_divide', 'fmax', 'fmin', 'fmod', 'frexp',
    'from_dlpack', 'frombuffer', 'fromfile', 'fromfunction', 'fromiter', 'frompyfunc',
    'fromstring', 'full', 'full_like', 'gcd', 'generic', 'geomspace', 'get_printoptions',
    'gradient', 'greater', 'greater_equal', 'hamming', 'hanning', 'heaviside', 'histogram',
    'histogram2d', 'histogram_bin_edges', 'histogramdd', 'hsplit', 'hstack', 'hypot', 'i0',
    'identity', 'iinfo', 'imag', 'index_exp', 'indices', 'inexact', 'inf', 'inner', 'insert',
    'int1', 'int16', 'int2', 'int32', 'int4', 'int64', 'int8', 'int_', 'integer', 'interp',
    'intersect1d', 'invert', 'isclose', 'iscomplex', 'iscomplexobj', 'isdtype', 'isfinite',
    'isin', 'isinf', 'isnan', 'isneginf', 'isposinf', 'isreal', 'isrealobj', 'isscalar',
    'issubdtype', 'iterable', 'ix_', 'kaiser', 'kron', 'lcm', 'ldexp', 'left_shift', 'less',
    'less_equal', 'lexsort', 'linalg', 'linspace', 'load', 'log', 'log10', 'log1p', 'log2',
    'logaddexp', 'logaddexp2', 'logical_and', 'logical_not', 'logical_or', 'logical_xor',
    'logspace', 'mask_indices', 'matmul', 'matrix_transpose', 'matvec', 'max', 'maximum',
    'mean', 'median', 'meshgrid', 'mgrid', 'min', 'minimum', 'mod', 'modf', 'moveaxis',
    'multiply', 'nan', 'nan_to_num', 'nanargmax', 'nanargmin', 'nancumprod', 'nancumsum',
    'nanmax', 'nanmean', 'nanmedian', 'nanmin', 'nanpercentile', 'nanprod', 'nanquantile',
    'nanstd', 'nansum', 'nanvar', 'ndarray', 'ndim', 'negative', 'newaxis', 'nextafter',
    'nonzero', 'not_equal', 'number', 'object_', 'ogrid', 'ones', 'ones_like', 'outer',
    'packbits', 'pad', 'partition', 'percentile', 'permute_dims', 'pi', 'piecewise', 'place',
    'poly', 'polyadd', 'polyder', 'polydiv', 'polyfit', 'polyint', 'polymul', 'polysub',
    'polyval', 'positive', 'pow', 'power', 'printoptions', 'prod', 'promote_types', 'ptp',
    'put', 'put_along_axis', 'quantile', 'r_', 'rad2deg', 'radians', 'ravel',
    'ravel_multi_index', 'real', 'reciprocal', 'remainder', 'repeat', 'reshape', 'resize',
    'result_type', 'right_shift', 'rint', 'roll', 'rollaxis', 'roots', 'rot90', 'round', 's_',
    'save', 'savez', 'searchsorted', 'select', 'set_printoptions', 'setdiff1d', 'setxor1d',
    'shape', 'sign', 'signbit', 'signedinteger', 'sin', 'sinc', 'single', 'sinh', 'size',
    'sort', 'sort_complex', 'spacing', 'split', 'sqrt', 'square', 'squeeze', 'stack', 'std',
    'subtract', 'sum', 'swapaxes', 'take', 'take_along_axis', 'tan', 'tanh', 'tensordot',
    'tile', 'trace', 'transpose', 'trapezoid', 'tri', 'tril', 'tril_indices',
    'tril_indices_from', 'trim_zeros', 'triu', 'triu_indices', 'triu_indices_from',
    'true_divide', 'trunc', 'ufunc', 'uint', 'uint1', 'uint16', 'uint2', 'uint32', 'uint4',
    'uint64', 'uint8', 'union1d', 'unique', 'unique_all', 'unique_counts', 'unique_inverse',
    'unique_values', 'unpackbits', 'unravel_index', 'unsignedinteger', 'unstack', 'unwrap',
    'vander', 'var', 'vdot', 'vecdot', 'vecmat', 'vectorize', 'vsplit', 'vstack', 'where',
    'zeros', 'zeros_like',
)

# name -> why jitgrad.numpy leaves it out (none today: every name has a meaning here)
EXCLUDED = {}


def test_every_jax_numpy_name_is_present_or_excluded():
    missing = [n for n in JAX_NUMPY if n not in EXCLUDED and not hasattr(jnp, n)]
    assert not missing, f"jax.numpy names missing from jitgrad.numpy: {missing}"


def test_excluded_names_are_really_absent():
    present = [n for n in EXCLUDED if hasattr(jnp, n)]
    assert not present, f"present now, drop them from EXCLUDED: {present}"


def test_the_list_is_the_installed_jax_numpys():
    jax_numpy = pytest.importorskip("jax.numpy")
    assert sorted(JAX_NUMPY) == sorted(n for n in dir(jax_numpy) if not n.startswith("_"))


def test_lazy_names_are_listed_and_load():
    # vmap-based and jitgrad.scipy-based functions and ml_dtypes' narrow types load on first use
    for name in ("vectorize", "apply_along_axis", "ufunc", "i0", "kaiser", "int4",
                 "float8_e4m3fn"):
        assert name in dir(jnp) and getattr(jnp, name) is not None
    with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
        jnp.no_such_name
