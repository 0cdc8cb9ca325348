"""jitgrad.nn.functional (torch.nn.functional's names): every functional form in one namespace.

Defined here: the functional forms of the layers linear and layer_norm.
Gathered here: activations (activations.py), dropout (dropout.py), attention (attention.py),
embedding (embedding.py), losses (losses.py), conv/pool (conv.py), normalization. Modules
(layers.py, conv.py) call these functions; nothing here imports a module class, so the import
graph has no cycle.
"""
from .. import numpy as jnp
from ..eager import add_into as eager_add_into   # a module: not one of F's functions
from ..eager import array_base     # a module: not one of F's functions
from ..errors import wrap_public_functions as _wrap
from ..numpy import half_compute    # a module: not one of F's functions
from .activations import *  # noqa: F401,F403
from ..transforms import fused_eager    # a module: not one of F's functions
from .attention import scaled_dot_product_attention  # noqa: F401
from .mha_functional import multi_head_attention_forward  # noqa: F401
from .dropout import dropout, dropout2d  # noqa: F401
from .embedding import embedding  # noqa: F401
from .conv import adaptive_avg_pool2d, avg_pool2d, conv2d, max_pool2d  # noqa: F401
from .normalization import batch_norm, group_norm, instance_norm  # noqa: F401
from .losses import (binary_cross_entropy_with_logits, cross_entropy, l1_loss,  # noqa: F401
                     mse_loss, nll_loss)
# torch.nn.functional's names beyond the above (issue 49): torch's signatures; softmax and
# log_softmax take torch's `dim` (and `axis`), max/avg/adaptive pools every rank and option
from .activation_fns import *  # noqa: F401,F403,E402
from .loss_fns import *  # noqa: F401,F403,E402
from .distance import cosine_similarity, normalize, pairwise_distance, pdist  # noqa: F401,E402
from .padding import pad  # noqa: F401,E402
from .conv_nd import (conv1d, conv3d, conv_tbc, conv_transpose1d,  # noqa: F401,E402
                      conv_transpose2d, conv_transpose3d)
from .pooling import *  # noqa: F401,F403,E402
from .upsampling import (channel_shuffle, interpolate, native_channel_shuffle,  # noqa: F401,E402
                         pixel_shuffle, pixel_unshuffle, upsample, upsample_bilinear,
                         upsample_nearest)
from .fold import fold, unfold  # noqa: F401,E402
from .dropout_variants import (alpha_dropout, dropout1d, dropout3d,  # noqa: F401,E402
                               feature_alpha_dropout)
from .extra_norms import local_response_norm, rms_norm  # noqa: F401,E402
from .embedding_bag import embedding, embedding_bag  # noqa: F401,E402
from .bilinear import bilinear  # noqa: F401,E402
from .ctc import ctc_loss  # noqa: F401,E402
from .grid_sampling import affine_grid, grid_sample  # noqa: F401,E402
from .fractional_pooling import *  # noqa: F401,F403,E402
from .grouped_matmul import grouped_mm  # noqa: F401,E402


def linear(x, weight, bias=None):
    """x @ weight.T + bias, with weight laid out (out_features, in_features) as in PyTorch."""
    w_t = jnp.transpose(weight)
    if bias is None:
        return jnp.matmul(x, w_t)
    z = eager_add_into.matmul_add(x, w_t, bias)     # eager on the pool: the GEMM adds the bias
    if z is not None:
        return z
    y = jnp.matmul(x, w_t)
    z = eager_add_into.add_into(y, bias)     # y is ours: the sum may take its storage
    return jnp.add(y, bias) if z is None else z


def _layer_norm_fwd(x, normalized_shape, weight=None, bias=None, eps=1e-5):
    """(layer_norm, the mean and 1/std over the normalized axes that its backward reads), as
    torch's native_layer_norm saves them."""
    x = jnp.asarray(x)
    axes = _normalized_axes(x, normalized_shape)
    # float16/bfloat16: computed in float32, rounded once
    (x, weight, bias), dtype = half_compute.widened(x, weight, bias)
    mean = jnp.mean(x, axis=axes, keepdims=True)
    centered = jnp.subtract(x, mean)
    var = jnp.mean(jnp.multiply(centered, centered), axis=axes, keepdims=True)
    rstd = jnp.rsqrt(jnp.add(var, eps))
    y = jnp.multiply(centered, rstd)
    if weight is not None:
        y = jnp.multiply(y, weight)
    return half_compute.narrowed(y if bias is None else jnp.add(y, bias), dtype), (mean, rstd)


def _layer_norm_bwd(args, residuals, g):
    """torch's layer_norm backward from the saved mean and 1/std (x itself is an input):
    x's cotangent is rstd * (gw - mean(gw) - xhat * mean(gw * xhat)) over the normalized axes,
    with xhat = (x - mean) * rstd and gw = g * weight; weight's is g * xhat and bias's g, each
    summed to its shape."""
    x, normalized_shape, weight, bias, _ = args
    mean, rstd = residuals
    axes = _normalized_axes(x, normalized_shape)
    (x, g, w), _ = half_compute.widened(x, g, weight)
    xhat = jnp.multiply(jnp.subtract(x, mean), rstd)
    gw = g if w is None else jnp.multiply(g, w)
    dx = jnp.multiply(rstd, jnp.subtract(
        jnp.subtract(gw, jnp.mean(gw, axis=axes, keepdims=True)),
        jnp.multiply(xhat, jnp.mean(jnp.multiply(gw, xhat), axis=axes, keepdims=True))))
    return (_sum_to(dx, x.shape),
            None if weight is None else _sum_to(jnp.multiply(g, xhat), weight.shape),
            None if bias is None else _sum_to(g, bias.shape))


def _normalized_axes(x, normalized_shape):
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    if tuple(x.shape[x.ndim - len(shape):]) != shape:
        raise ValueError(f"layer_norm: expected an input whose trailing dimensions are {shape}, "
                         f"got shape {tuple(x.shape)}")
    return tuple(range(x.ndim - len(shape), x.ndim))


def _sum_to(v, shape):
    """v summed over the axes that broadcasting `shape` to v's shape added or stretched."""
    lead = v.ndim - len(shape)
    stretched = tuple(lead + i for i, d in enumerate(shape) if d == 1 and v.shape[lead + i] != 1)
    if stretched:
        v = jnp.sum(v, axis=stretched, keepdims=True)
    return jnp.sum(v, axis=tuple(range(lead))) if lead else v


# eagerly: one compiled call once hot; under autograd the backward reads the saved mean and
# 1/std (x is an input of the record), as torch's native layer_norm does
@fused_eager.fused_in_eager("x", "weight", "bias", fwd=_layer_norm_fwd, bwd=_layer_norm_bwd)
def layer_norm(x, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Normalize over the trailing `normalized_shape` dimensions, then scale and shift."""
    return _layer_norm_fwd(x, normalized_shape, weight, bias, eps)[0]


_wrap(globals(), "jitgrad")   # errors show the user's call, not jitgrad's frames

# the Tensor methods PyTorch has for these (x.relu(), x.sigmoid()): installed on eager Tensors
# and traced values alike (array_base.register_methods); x.softmax(dim), x.log_softmax(dim) and
# x.logsumexp(dim) take torch's dim and are jitgrad.torch_api's
METHODS = ("relu", "sigmoid")
array_base.register_methods({name: globals()[name] for name in METHODS})
