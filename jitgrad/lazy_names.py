"""The names that the lazily loaded namespaces install, so `import jitgrad` can offer them before
it loads them (jitgrad/__init__.py): the Tensor methods of nn.functional and of the torch API
(eager/lazy_methods.py) and the torch API's jitgrad.* names. Generated from the modules
themselves: `python -m jitgrad.lazy_names` rewrites this file; tests/package/test_layering.py fails when
it is stale."""
from __future__ import annotations

import textwrap
from pathlib import Path


def current() -> dict:
    """The tables, read from the loaded modules."""
    from .eager.array_base import ArrayOps  # lazy: these tables describe the modules loaded here
    from .nn import functional
    from . import torch_api
    from .torch_api import inplace
    methods = {name: getattr(ArrayOps, name) for name in dir(ArrayOps)}
    return {"NN_METHODS": tuple(functional.METHODS),
            "TORCH_METHODS": tuple(sorted({*torch_api.METHODS, *inplace.traced_methods(methods)})),
            "TORCH_TENSOR_METHODS": tuple(sorted(inplace.tensor_methods(methods))),
            "TORCH_NAMES": tuple(sorted(torch_api.__all__))}


def main() -> None:
    head = Path(__file__).read_text().split("# ---- generated\n")[0]
    body = "".join(f"{name} = (\n" + textwrap.fill(" ".join(f"{n!r}," for n in value), 99,
                                                    initial_indent="    ",
                                                    subsequent_indent="    ") + "\n)\n"
                   for name, value in current().items())
    Path(__file__).write_text(head + "# ---- generated\n" + body)


if __name__ == "__main__":
    main()

# ---- generated
NN_METHODS = (
    'relu', 'sigmoid',
)
TORCH_METHODS = (
    'H', 'abs_', 'absolute', 'absolute_', 'acos', 'acos_', 'acosh', 'acosh_', 'add', 'add_',
    'addbmm', 'addbmm_', 'addcdiv', 'addcdiv_', 'addcmul', 'addcmul_', 'addmm', 'addmm_', 'addmv',
    'addmv_', 'addr', 'addr_', 'adjoint', 'all', 'allclose', 'amax', 'amin', 'aminmax', 'angle',
    'any', 'arccos', 'arccos_', 'arccosh', 'arccosh_', 'arcsin', 'arcsin_', 'arcsinh', 'arcsinh_',
    'arctan', 'arctan2', 'arctan2_', 'arctan_', 'arctanh', 'arctanh_', 'argmax', 'argmin',
    'argsort', 'argwhere', 'asin', 'asin_', 'asinh', 'asinh_', 'atan', 'atan2', 'atan2_', 'atan_',
    'atanh', 'atanh_', 'baddbmm', 'baddbmm_', 'bernoulli', 'bernoulli_', 'bfloat16', 'bincount',
    'bitwise_and', 'bitwise_and_', 'bitwise_left_shift', 'bitwise_left_shift_', 'bitwise_not',
    'bitwise_not_', 'bitwise_or', 'bitwise_or_', 'bitwise_right_shift', 'bitwise_right_shift_',
    'bitwise_xor', 'bitwise_xor_', 'bmm', 'bool', 'broadcast_to', 'byte', 'cauchy_', 'cdouble',
    'ceil_', 'cfloat', 'char', 'cholesky', 'cholesky_inverse', 'cholesky_solve', 'chunk', 'clamp',
    'clamp_', 'clamp_max', 'clamp_max_', 'clamp_min', 'clamp_min_', 'clip', 'clip_',
    'conj_physical', 'conj_physical_', 'contiguous', 'copy_', 'copysign', 'copysign_', 'corrcoef',
    'cos_', 'cosh', 'cosh_', 'count_nonzero', 'cov', 'cross', 'cummax', 'cummin', 'cumprod',
    'cumprod_', 'cumsum', 'cumsum_', 'deg2rad', 'deg2rad_', 'det', 'detach', 'diag', 'diag_embed',
    'diagflat', 'diagonal', 'diagonal_scatter', 'diff', 'digamma', 'digamma_', 'dim', 'dist',
    'div', 'div_', 'divide', 'divide_', 'dot', 'double', 'dsplit', 'element_size', 'eq', 'eq_',
    'equal', 'erf', 'erf_', 'erfc', 'erfc_', 'erfinv', 'erfinv_', 'exp2', 'exp2_', 'exp_',
    'expand_as', 'expm1_', 'exponential_', 'fill_', 'fill_diagonal_', 'fix', 'fix_', 'flatten',
    'flip', 'fliplr', 'flipud', 'float', 'float_power', 'float_power_', 'floor_', 'floor_divide',
    'floor_divide_', 'fmax', 'fmin', 'fmod', 'fmod_', 'frac', 'frac_', 'frexp', 'gather', 'gcd',
    'gcd_', 'ge', 'ge_', 'geometric_', 'ger', 'get_device', 'greater', 'greater_', 'greater_equal',
    'greater_equal_', 'gt', 'gt_', 'half', 'hardshrink', 'heaviside', 'heaviside_', 'histc',
    'histogram', 'hsplit', 'hypot', 'hypot_', 'i0', 'i0_', 'igamma', 'igamma_', 'igammac',
    'igammac_', 'index_add', 'index_add_', 'index_copy', 'index_copy_', 'index_fill',
    'index_fill_', 'index_put', 'index_put_', 'index_reduce', 'index_reduce_', 'index_select',
    'inner', 'int', 'inverse', 'is_coalesced', 'is_complex', 'is_conj', 'is_contiguous', 'is_cpu',
    'is_cuda', 'is_distributed', 'is_floating_point', 'is_inference', 'is_ipu', 'is_maia',
    'is_meta', 'is_mkldnn', 'is_mps', 'is_mtia', 'is_neg', 'is_nested', 'is_nonzero', 'is_pinned',
    'is_quantized', 'is_same_size', 'is_shared', 'is_signed', 'is_sparse', 'is_sparse_csr',
    'is_vulkan', 'is_xla', 'is_xpu', 'isclose', 'isfinite', 'isin', 'isinf', 'isneginf',
    'isposinf', 'isreal', 'itemsize', 'kron', 'kthvalue', 'lcm', 'lcm_', 'ldexp', 'ldexp_', 'le',
    'le_', 'lerp', 'lerp_', 'less', 'less_', 'less_equal', 'less_equal_', 'lgamma', 'lgamma_',
    'log10', 'log10_', 'log1p_', 'log2', 'log2_', 'log_', 'log_normal_', 'log_softmax',
    'logaddexp', 'logaddexp2', 'logcumsumexp', 'logdet', 'logical_and', 'logical_and_',
    'logical_not', 'logical_not_', 'logical_or', 'logical_or_', 'logical_xor', 'logical_xor_',
    'logit', 'logit_', 'logsumexp', 'long', 'lt', 'lt_', 'mH', 'masked_fill', 'masked_fill_',
    'masked_scatter', 'masked_scatter_', 'masked_select', 'matrix_exp', 'matrix_power', 'max',
    'maximum', 'mean', 'median', 'min', 'minimum', 'mm', 'mode', 'moveaxis', 'movedim', 'msort',
    'mul', 'mul_', 'multinomial', 'multiply', 'multiply_', 'mv', 'mvlgamma', 'mvlgamma_',
    'nan_to_num', 'nan_to_num_', 'nanmean', 'nanmedian', 'nanquantile', 'nansum', 'narrow',
    'narrow_copy', 'nbytes', 'ndimension', 'ne', 'ne_', 'neg_', 'negative', 'negative_',
    'nelement', 'new_empty', 'new_full', 'new_ones', 'new_tensor', 'new_zeros', 'nextafter',
    'nextafter_', 'nonzero', 'nonzero_static', 'norm', 'normal_', 'not_equal', 'not_equal_',
    'numel', 'outer', 'permute', 'pin_memory', 'pinverse', 'polygamma', 'polygamma_', 'positive',
    'pow', 'pow_', 'prelu', 'prod', 'put', 'put_', 'qr', 'quantile', 'rad2deg', 'rad2deg_',
    'random_', 'reciprocal', 'reciprocal_', 'relu_', 'remainder', 'remainder_', 'renorm',
    'renorm_', 'repeat', 'repeat_interleave', 'reshape_as', 'resolve_conj', 'resolve_neg', 'roll',
    'rot90', 'round_', 'rsqrt_', 'rsub', 'scatter', 'scatter_', 'scatter_add', 'scatter_add_',
    'scatter_reduce', 'scatter_reduce_', 'select', 'select_scatter', 'sgn', 'sgn_', 'short',
    'sigmoid_', 'sign_', 'sin_', 'sinc', 'sinc_', 'sinh', 'sinh_', 'slice_scatter', 'slogdet',
    'softmax', 'sort', 'split', 'split_with_sizes', 'sqrt_', 'square_', 'squeeze', 'squeeze_',
    'std', 'stride', 'sub', 'sub_', 'subtract', 'subtract_', 'sum', 'sum_to_size', 'svd',
    'swapaxes', 'swapaxes_', 'swapdims', 'swapdims_', 't', 't_', 'take', 'take_along_dim', 'tan',
    'tan_', 'tanh_', 'tensor_split', 'tile', 'to', 'topk', 'transpose', 'transpose_', 'tril',
    'tril_', 'triu', 'triu_', 'true_divide', 'true_divide_', 'trunc', 'trunc_', 'type', 'type_as',
    'unbind', 'unflatten', 'unfold', 'uniform_', 'unique', 'unique_consecutive', 'unsafe_chunk',
    'unsafe_split', 'unsafe_split_with_sizes', 'unsqueeze', 'unsqueeze_', 'var', 'vdot', 'view',
    'view_as', 'vsplit', 'where', 'xlogy', 'xlogy_',
)
TORCH_TENSOR_METHODS = (
    'abs_', 'absolute_', 'acos_', 'acosh_', 'add_', 'addbmm_', 'addcdiv_', 'addcmul_', 'addmm_',
    'addmv_', 'addr_', 'arccos_', 'arccosh_', 'arcsin_', 'arcsinh_', 'arctan2_', 'arctan_',
    'arctanh_', 'asin_', 'asinh_', 'atan2_', 'atan_', 'atanh_', 'baddbmm_', 'bernoulli_',
    'bitwise_and_', 'bitwise_left_shift_', 'bitwise_not_', 'bitwise_or_', 'bitwise_right_shift_',
    'bitwise_xor_', 'cauchy_', 'ceil_', 'clamp_', 'clamp_max_', 'clamp_min_', 'clip_',
    'conj_physical_', 'copy_', 'copysign_', 'cos_', 'cosh_', 'cumprod_', 'cumsum_', 'deg2rad_',
    'digamma_', 'div_', 'divide_', 'eq_', 'erf_', 'erfc_', 'erfinv_', 'exp2_', 'exp_', 'expm1_',
    'exponential_', 'fill_', 'fill_diagonal_', 'fix_', 'float_power_', 'floor_', 'floor_divide_',
    'fmod_', 'frac_', 'gcd_', 'ge_', 'geometric_', 'greater_', 'greater_equal_', 'gt_',
    'heaviside_', 'hypot_', 'i0_', 'igamma_', 'igammac_', 'index_add_', 'index_copy_',
    'index_fill_', 'index_put_', 'index_reduce_', 'lcm_', 'ldexp_', 'le_', 'lerp_', 'less_',
    'less_equal_', 'lgamma_', 'log10_', 'log1p_', 'log2_', 'log_', 'log_normal_', 'logical_and_',
    'logical_not_', 'logical_or_', 'logical_xor_', 'logit_', 'lt_', 'masked_fill_',
    'masked_scatter_', 'mul_', 'multiply_', 'mvlgamma_', 'nan_to_num_', 'ne_', 'neg_', 'negative_',
    'nextafter_', 'normal_', 'not_equal_', 'polygamma_', 'pow_', 'put_', 'rad2deg_', 'random_',
    'reciprocal_', 'relu_', 'remainder_', 'renorm_', 'round_', 'rsqrt_', 'scatter_',
    'scatter_add_', 'scatter_reduce_', 'sgn_', 'sigmoid_', 'sign_', 'sin_', 'sinc_', 'sinh_',
    'sqrt_', 'square_', 'squeeze_', 'sub_', 'subtract_', 'swapaxes_', 'swapdims_', 't_', 'tan_',
    'tanh_', 'transpose_', 'tril_', 'triu_', 'true_divide_', 'trunc_', 'uniform_', 'unsqueeze_',
    'xlogy_',
)
TORCH_NAMES = (
    'BFloat16Tensor', 'BoolTensor', 'ByteTensor', 'CharTensor', 'ComplexDoubleTensor',
    'ComplexFloatTensor', 'DoubleTensor', 'FloatTensor', 'Generator', 'HalfTensor', 'IntTensor',
    'LongTensor', 'ShortTensor', 'Size', 'abs', 'abs_', 'absolute', 'acos', 'acos_', 'acosh',
    'acosh_', 'add', 'addbmm', 'addcdiv', 'addcmul', 'addmm', 'addmv', 'addmv_', 'addr', 'adjoint',
    'alias_copy', 'all', 'allclose', 'alpha_dropout', 'amax', 'amin', 'aminmax', 'angle', 'any',
    'arccos', 'arccos_', 'arccosh', 'arccosh_', 'arcsin', 'arcsin_', 'arcsinh', 'arcsinh_',
    'arctan', 'arctan2', 'arctan_', 'arctanh', 'arctanh_', 'argmax', 'argmin', 'argsort',
    'argwhere', 'asarray', 'asin', 'asin_', 'asinh', 'asinh_', 'atan', 'atan2', 'atan_', 'atanh',
    'atanh_', 'atleast_1d', 'atleast_2d', 'atleast_3d', 'avg_pool1d', 'baddbmm', 'bartlett_window',
    'bernoulli', 'bilinear', 'bincount', 'binomial', 'bitwise_and', 'bitwise_left_shift',
    'bitwise_not', 'bitwise_or', 'bitwise_right_shift', 'bitwise_xor', 'blackman_window',
    'block_diag', 'bmm', 'broadcast_shapes', 'broadcast_tensors', 'broadcast_to', 'bucketize',
    'can_cast', 'cartesian_prod', 'cat', 'cdist', 'cdouble', 'ceil', 'ceil_', 'celu', 'celu_',
    'cfloat', 'chain_matmul', 'channel_shuffle', 'channels_last', 'channels_last_3d', 'cholesky',
    'cholesky_inverse', 'cholesky_solve', 'chunk', 'clamp', 'clamp_', 'clamp_max', 'clamp_max_',
    'clamp_min', 'clamp_min_', 'clip', 'clip_', 'clone', 'column_stack', 'combinations', 'compile',
    'complex', 'concat', 'concatenate', 'conj', 'conj_physical', 'conj_physical_',
    'contiguous_format', 'conv1d', 'conv2d', 'conv3d', 'conv_tbc', 'conv_transpose1d',
    'conv_transpose2d', 'conv_transpose3d', 'copysign', 'corrcoef', 'cos', 'cos_', 'cosh', 'cosh_',
    'cosine_similarity', 'count_nonzero', 'cov', 'cross', 'cummax', 'cummin', 'cumprod', 'cumsum',
    'cumulative_trapezoid', 'default_generator', 'deg2rad', 'deg2rad_', 'det', 'detach', 'detach_',
    'detach_copy', 'diag', 'diag_embed', 'diagflat', 'diagonal', 'diagonal_copy',
    'diagonal_scatter', 'diff', 'digamma', 'dist', 'div', 'divide', 'dot', 'double', 'dropout',
    'dsplit', 'dstack', 'dtype', 'einsum', 'empty_like', 'eq', 'equal', 'erf', 'erf_', 'erfc',
    'erfc_', 'erfinv', 'exp', 'exp2', 'exp2_', 'exp_', 'expand_copy', 'expm1', 'expm1_', 'eye',
    'feature_alpha_dropout', 'fill', 'fill_', 'finfo', 'fix', 'fix_', 'flatten', 'flip', 'fliplr',
    'flipud', 'float', 'float_power', 'floor', 'floor_', 'floor_divide', 'fmax', 'fmin', 'fmod',
    'frac', 'frac_', 'frexp', 'frobenius_norm', 'from_numpy', 'frombuffer', 'full_like', 'gather',
    'gcd', 'gcd_', 'ge', 'ger', 'get_device', 'get_rng_state', 'gradient', 'greater',
    'greater_equal', 'group_norm', 'gt', 'half', 'hamming_window', 'hann_window', 'hardshrink',
    'heaviside', 'histc', 'histogram', 'hsplit', 'hstack', 'hypot', 'i0', 'i0_', 'igamma',
    'igammac', 'iinfo', 'imag', 'index_add', 'index_copy', 'index_fill', 'index_put', 'index_put_',
    'index_reduce', 'index_select', 'initial_seed', 'inner', 'int', 'inverse', 'is_complex',
    'is_conj', 'is_distributed', 'is_floating_point', 'is_inference', 'is_neg', 'is_nonzero',
    'is_same_size', 'is_signed', 'is_storage', 'is_tensor', 'isclose', 'isfinite', 'isin', 'isinf',
    'isnan', 'isneginf', 'isposinf', 'isreal', 'kaiser_window', 'kron', 'kthvalue', 'layer_norm',
    'layout', 'lcm', 'lcm_', 'ldexp', 'ldexp_', 'le', 'lerp', 'less', 'less_equal', 'lgamma',
    'linspace', 'log', 'log10', 'log10_', 'log1p', 'log1p_', 'log2', 'log2_', 'log_',
    'log_softmax', 'logaddexp', 'logaddexp2', 'logcumsumexp', 'logdet', 'logical_and',
    'logical_not', 'logical_or', 'logical_xor', 'logit', 'logit_', 'logspace', 'logsumexp', 'long',
    'lt', 'manual_seed', 'masked_fill', 'masked_scatter', 'masked_select', 'matmul', 'matrix_exp',
    'matrix_power', 'matrix_rank', 'max', 'max_pool1d', 'max_pool1d_with_indices', 'max_pool2d',
    'max_pool3d', 'maximum', 'mean', 'median', 'memory_format', 'meshgrid', 'min', 'minimum', 'mm',
    'mode', 'moveaxis', 'movedim', 'msort', 'mul', 'multinomial', 'multiply', 'mv', 'mvlgamma',
    'nan_to_num', 'nan_to_num_', 'nanmean', 'nanmedian', 'nanquantile', 'nansum', 'narrow',
    'narrow_copy', 'native_channel_shuffle', 'ne', 'neg', 'neg_', 'negative', 'negative_',
    'nextafter', 'nonzero', 'nonzero_static', 'norm', 'normal', 'not_equal', 'nuclear_norm',
    'numel', 'ones_like', 'outer', 'pairwise_distance', 'pdist', 'permute', 'permute_copy',
    'pinverse', 'pixel_shuffle', 'pixel_unshuffle', 'poisson', 'polar', 'polygamma', 'positive',
    'pow', 'prelu', 'preserve_format', 'prod', 'promote_types', 'put', 'qr', 'quantile', 'rad2deg',
    'rad2deg_', 'rand_like', 'randint_like', 'randn_like', 'randperm', 'range', 'ravel', 'real',
    'reciprocal', 'reciprocal_', 'relu', 'relu_', 'remainder', 'renorm', 'repeat_interleave',
    'reshape', 'resolve_conj', 'resolve_neg', 'result_type', 'return_types', 'rms_norm', 'roll',
    'rot90', 'round', 'round_', 'row_stack', 'rrelu', 'rrelu_', 'rsqrt', 'rsqrt_', 'rsub',
    'scalar_tensor', 'scatter', 'scatter_add', 'scatter_reduce', 'searchsorted', 'seed', 'select',
    'select_copy', 'select_scatter', 'selu', 'selu_', 'set_rng_state', 'sgn', 'short', 'sigmoid',
    'sigmoid_', 'sign', 'signbit', 'sin', 'sin_', 'sinc', 'sinc_', 'sinh', 'sinh_', 'slice_copy',
    'slice_scatter', 'slogdet', 'softmax', 'sort', 'split', 'split_copy', 'split_with_sizes',
    'split_with_sizes_copy', 'sqrt', 'sqrt_', 'square', 'square_', 'squeeze', 'squeeze_copy',
    'stack', 'std', 'std_mean', 'strided', 'sub', 'subtract', 'sum', 'svd', 'swapaxes', 'swapdims',
    't', 't_copy', 'take', 'take_along_dim', 'tan', 'tan_', 'tanh', 'tanh_', 'tensor_split',
    'tensordot', 'threshold', 'threshold_', 'tile', 'topk', 'trace', 'transpose', 'transpose_copy',
    'trapezoid', 'trapz', 'tril', 'tril_indices', 'triu', 'triu_indices', 'true_divide', 'trunc',
    'trunc_', 'unbind', 'unbind_copy', 'unflatten', 'unfold_copy', 'unique', 'unique_consecutive',
    'unravel_index', 'unsafe_chunk', 'unsafe_split', 'unsafe_split_with_sizes', 'unsqueeze',
    'unsqueeze_copy', 'vander', 'var', 'var_mean', 'vdot', 'view_as_complex',
    'view_as_complex_copy', 'view_as_real', 'view_as_real_copy', 'view_copy', 'vsplit', 'vstack',
    'where', 'xlogy', 'xlogy_', 'zero_', 'zeros_like',
)
