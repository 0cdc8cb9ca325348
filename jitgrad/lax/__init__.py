"""jitgrad.lax (jg.lax): the commonly ported subset of jax.lax, with JAX's signatures and
semantics, each a thin layer over jitgrad's primitives and jitgrad.numpy.

Stricter than jitgrad.numpy where lax is: binary ops take operands of one dtype and shape;
integer div/rem round toward zero; dimension numbers are checked with JAX's messages.
"""
from .control import cond, fori_loop, map, scan, switch, while_loop  # noqa: F401,A004
from .convolution import (ConvDimensionNumbers, conv, conv_dimension_numbers,  # noqa: F401
                   conv_general_dilated, conv_general_permutations, conv_transpose,
                   conv_with_general_padding)
from .dot import batch_matmul, dot, dot_general  # noqa: F401
from ..numpy.dot_precision import Precision  # noqa: F401
from .elementwise import (abs, acos, acosh, add, asin, asinh, atan, atan2, atanh,  # noqa: F401,A004
                          bitwise_and, bitwise_not, bitwise_or, bitwise_xor, cbrt, ceil, clamp,
                          conj, convert_element_type, cos, cosh, div, eq, erf, erf_inv, erfc,
                          exp, exp2, expm1, floor, ge, gt, imag, integer_pow, is_finite, le,
                          log, log1p, logistic, lt, max, min, mul, ne, neg, pow, real, rem,
                          round, rsqrt, select, select_n, shift_left, shift_right_arithmetic,
                          sign, sin, sinh, sqrt, square, stop_gradient, sub, tan, tanh)
from .reductions import (argmax, argmin, cumlogsumexp, cummax, cummin, cumprod,  # noqa: F401
                         cumsum, reduce_and, reduce_max, reduce_min, reduce_or, reduce_prod,
                         reduce_sum, sort, sort_key_val, top_k)
from .data_movement import (broadcast, broadcast_in_dim, broadcasted_iota, concatenate,  # noqa: F401
                    expand_dims, full, full_like, index_in_dim, iota, pad, reshape, rev, slice,
                    slice_in_dim, squeeze, transpose)
from .slicing import (dynamic_index_in_dim, dynamic_slice, dynamic_slice_in_dim,  # noqa: F401
                      dynamic_update_index_in_dim, dynamic_update_slice,
                      dynamic_update_slice_in_dim)
from .windows import padtype_to_pads, reduce_window  # noqa: F401
