"""jax.nn's functions with jax.nn's signatures and defaults (axis=, not dim=; gelu approximate
by default), public as jitgrad.nn.relu, jitgrad.nn.softmax, ... beside torch.nn's classes.
jitgrad.nn.functional keeps PyTorch's meanings; where the math is the same these reuse its
implementations (nn/activations.py)."""
from __future__ import annotations

import math

from .. import numpy as jnp
from ..transforms.autodiff import stop_gradient
from . import activations as act

_SELU_ALPHA, _SELU_SCALE = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


def relu(x):
    """jax.nn.relu: max(x, 0) (derivative 0 at 0)."""
    return act.relu(x)


def relu6(x):
    """jax.nn.relu6: min(max(x, 0), 6)."""
    return act.relu6(x)


def sigmoid(x):
    """jax.nn.sigmoid: 1 / (1 + exp(-x))."""
    return act.sigmoid(x)


def tanh(x, /):
    """jax.nn.tanh."""
    return act.tanh(x)


def softplus(x):
    """jax.nn.softplus: log(1 + exp(x))."""
    return act.softplus(x)


def log_sigmoid(x):
    """jax.nn.log_sigmoid: -softplus(-x)."""
    return act.log_sigmoid(x)


def silu(x):
    """jax.nn.silu (also swish): x * sigmoid(x)."""
    return act.silu(x)


swish = silu


def identity(x):
    """jax.nn.identity: x itself."""
    return jnp.asarray(x)


def leaky_relu(x, negative_slope=1e-2):
    """jax.nn.leaky_relu: x where x >= 0, else negative_slope * x."""
    x = jnp.asarray(x)
    return jnp.where(jnp.greater_equal(x, 0), x, jnp.multiply(negative_slope, x))


def elu(x, alpha=1.0):
    """jax.nn.elu: x where x > 0, else alpha * (exp(x) - 1)."""
    return act.elu(x, alpha)


def celu(x, alpha=1.0):
    """jax.nn.celu: max(x, 0) + alpha * expm1(min(x, 0) / alpha)."""
    x = jnp.asarray(x)
    return jnp.add(jnp.maximum(x, 0.0),
                   jnp.multiply(alpha, jnp.expm1(jnp.true_divide(jnp.minimum(x, 0.0), alpha))))


def selu(x):
    """jax.nn.selu: scale * elu(x, alpha) with the self-normalizing constants."""
    return jnp.multiply(_SELU_SCALE, act.elu(x, _SELU_ALPHA))


def gelu(x, approximate=True):
    """jax.nn.gelu: the tanh approximation by default (approximate=False: the exact erf form,
    torch's default)."""
    return act.gelu(x, approximate=bool(approximate))


def glu(x, axis=-1):
    """jax.nn.glu: a * sigmoid(b) for the two halves a, b of x along axis."""
    x = jnp.asarray(x)
    if x.shape[axis] % 2:
        raise ValueError(f"glu: axis {axis} must have an even size, got {x.shape[axis]}")
    a, b = jnp.split(x, 2, axis=axis)
    return jnp.multiply(a, act.sigmoid(b))


def hard_tanh(x):
    """jax.nn.hard_tanh: x clipped to [-1, 1]."""
    x = jnp.asarray(x)
    return jnp.where(jnp.greater(x, 1), 1, jnp.where(jnp.less(x, -1), -1, x))


def hard_sigmoid(x):
    """jax.nn.hard_sigmoid: relu6(x + 3) / 6."""
    return jnp.true_divide(act.relu6(jnp.add(x, 3.0)), 6.0)


def hard_silu(x):
    """jax.nn.hard_silu (also hard_swish): x * hard_sigmoid(x)."""
    return jnp.multiply(x, hard_sigmoid(x))


hard_swish = hard_silu


def mish(x):
    """jax.nn.mish: x * tanh(softplus(x))."""
    return jnp.multiply(x, jnp.tanh(act.softplus(x)))


def soft_sign(x):
    """jax.nn.soft_sign: x / (|x| + 1)."""
    x = jnp.asarray(x)
    return jnp.true_divide(x, jnp.add(jnp.abs(x), 1))


def squareplus(x, b=4):
    """jax.nn.squareplus: (x + sqrt(x**2 + b)) / 2."""
    x = jnp.asarray(x)
    return jnp.true_divide(jnp.add(x, jnp.sqrt(jnp.add(jnp.square(x), b))), 2)


def sparse_plus(x):
    """jax.nn.sparse_plus: 0 for x <= -1, x for x >= 1, (x + 1)**2 / 4 between."""
    x = jnp.asarray(x)
    mid = jnp.true_divide(jnp.square(jnp.add(x, 1)), 4)
    return jnp.where(jnp.less_equal(x, -1), 0.0, jnp.where(jnp.greater_equal(x, 1), x, mid))


def sparse_sigmoid(x):
    """jax.nn.sparse_sigmoid: (clip(x, -1, 1) + 1) / 2, the derivative of sparse_plus."""
    return jnp.multiply(0.5, jnp.clip(jnp.add(x, 1.0), 0.0, 2.0))


def log1mexp(x):
    """jax.nn.log1mexp: log(1 - exp(-x)) for x > 0, accurate on both sides of log 2."""
    x = jnp.asarray(x)
    small = jnp.less(x, math.log(2))
    return jnp.where(small, jnp.log(jnp.negative(jnp.expm1(jnp.negative(x)))),
                     jnp.log1p(jnp.negative(jnp.exp(jnp.negative(x)))))


def logsumexp(a, axis=None, b=None, keepdims=False, return_sign=False, where=None):
    """jax.nn.logsumexp (jax.scipy.special.logsumexp): log(sum(b * exp(a))) over axis."""
    from ..scipy.special.logsumexp import logsumexp as scipy_logsumexp  # lazy: jitgrad.scipy loads on first use
    return scipy_logsumexp(a, axis=axis, b=b, keepdims=keepdims, return_sign=return_sign,
                           where=where)


def logmeanexp(x, axis=None, where=None, keepdims=False):
    """jax.nn.logmeanexp: log(mean(exp(x))) over axis (the entries where= selects)."""
    x = jnp.asarray(x)
    count = jnp.sum(jnp.ones(x.shape, bool) if where is None else
                    jnp.broadcast_to(where, x.shape), axis=axis, keepdims=keepdims)
    return jnp.subtract(logsumexp(x, axis=axis, keepdims=keepdims, where=where),
                        jnp.log(count.astype(x.dtype if jnp.issubdtype(x.dtype, jnp.floating)
                                             else jnp.float32)))


def softmax(x, axis=-1, where=None):
    """jax.nn.softmax over axis; where= leaves entries out (they get 0)."""
    if where is None:
        return act.softmax(x, axis=axis)
    x = jnp.asarray(x)
    keep = jnp.broadcast_to(where, x.shape)
    return jnp.where(keep, act.softmax(jnp.where(keep, x, -jnp.inf), axis=axis), 0.0)


def log_softmax(x, axis=-1, where=None):
    """jax.nn.log_softmax over axis; where= leaves entries out (they get -inf)."""
    if where is None:
        return act.log_softmax(x, axis=axis)
    x = jnp.asarray(x)
    keep = jnp.broadcast_to(where, x.shape)
    return jnp.where(keep, act.log_softmax(jnp.where(keep, x, -jnp.inf), axis=axis), -jnp.inf)


def standardize(x, axis=-1, mean=None, variance=None, epsilon=1e-5, where=None, *,
                algorithm="fast"):
    """jax.nn.standardize: (x - mean) / sqrt(variance + epsilon) over axis; "fast" variance is
    E[x**2] - E[x]**2, "stable" E[(x - E[x])**2]."""
    if algorithm not in ("fast", "stable"):
        raise ValueError(f"standardize: algorithm must be 'fast' or 'stable', got {algorithm!r}")
    x = jnp.asarray(x)
    if mean is None:
        mean = jnp.mean(x, axis=axis, keepdims=True) if where is None else \
            jnp.nanmean(x, axis=axis, keepdims=True, where=where)
    if variance is None:
        avg = jnp.mean if where is None else \
            (lambda v, axis, keepdims: jnp.nanmean(v, axis=axis, keepdims=keepdims, where=where))
        if algorithm == "fast":
            variance = jnp.maximum(0.0, jnp.subtract(avg(jnp.square(x), axis=axis, keepdims=True),
                                                     jnp.square(mean)))
        else:
            variance = avg(jnp.square(jnp.subtract(x, mean)), axis=axis, keepdims=True)
    return jnp.multiply(jnp.subtract(x, mean), jnp.rsqrt(jnp.add(variance, epsilon)))


def one_hot(x, num_classes, *, dtype=None, axis=-1):
    """jax.nn.one_hot: 1 where x equals the class index along a new axis, else 0 (an index
    outside [0, num_classes) gives a row of zeros, as JAX)."""
    x = jnp.asarray(x)
    out_axis = axis % (x.ndim + 1)
    classes = jnp.reshape(jnp.arange(num_classes), (num_classes,) + (1,) * (x.ndim - out_axis))
    hot = jnp.equal(jnp.expand_dims(x, out_axis), classes)
    return hot.astype(jnp.float32 if dtype is None else dtype)


def dot_product_attention(query, key, value, bias=None, mask=None, *, scale=None,
                          is_causal=False, query_seq_lengths=None, key_value_seq_lengths=None,
                          local_window_size=None, implementation=None, return_residual=False):
    """jax.nn.dot_product_attention: softmax(q k^T * scale + bias, masked) v over (B, T, N, H)
    queries and (B, S, K, H) keys/values (K divides N: grouped-query attention), or the same
    without B. mask (True keeps), is_causal, sequence lengths and a local window combine.
    return_residual also gives the logsumexp of the logits, (B, T, N), without derivatives. As
    JAX, a fully masked row attends uniformly and queries past their length give 0; float64
    inputs keep float64 logits (JAX's softmax here is always float32)."""
    if implementation not in (None, "xla"):
        raise ValueError(f"dot_product_attention: implementation {implementation!r} is not "
                         "available in jitgrad; use None or 'xla'")
    q, k, v = (jnp.asarray(t) for t in (query, key, value))
    unbatched = q.ndim == 3
    if unbatched:
        q, k, v = q[None], k[None], v[None]
    if q.ndim != 4 or k.ndim != 4 or v.ndim != 4 or k.shape != v.shape:
        raise ValueError(f"dot_product_attention: expected query (B, T, N, H) and key/value "
                         f"(B, S, K, H) of one shape, got {tuple(query.shape)}, "
                         f"{tuple(key.shape)}, {tuple(value.shape)}")
    b, t, n, h = q.shape
    s, kh = k.shape[1], k.shape[2]
    if n % kh:
        raise ValueError(f"dot_product_attention: the query heads ({n}) must be a multiple of "
                         f"the key/value heads ({kh})")
    scale = 1.0 / math.sqrt(h) if scale is None else scale
    qg = jnp.reshape(q, (b, t, kh, n // kh, h))
    logits = jnp.einsum("btkgh,bskh->bkgts", qg, k) * scale
    logits = jnp.reshape(logits, (b, n, t, s)).astype(jnp.float32) \
        if logits.dtype != jnp.float64 else jnp.reshape(logits, (b, n, t, s))
    if bias is not None:
        bias = jnp.asarray(bias)
        logits = logits + (bias[None] if unbatched and bias.ndim == 3 else bias)
    keep = jnp.ones((1, 1, t, s), bool)
    if mask is not None:
        m = jnp.asarray(mask)
        keep = jnp.logical_and(keep, m[None] if unbatched and m.ndim == 3 else m)
    rows, cols = jnp.arange(t)[:, None], jnp.arange(s)[None, :]
    if is_causal:
        keep = jnp.logical_and(keep, cols <= rows)
    if local_window_size is not None:
        left, right = (local_window_size, local_window_size) \
            if isinstance(local_window_size, int) else local_window_size
        keep = jnp.logical_and(keep, jnp.logical_and(cols >= rows - left, cols <= rows + right))
    if query_seq_lengths is not None:
        keep = jnp.logical_and(keep, rows[None, None] <
                               jnp.reshape(jnp.asarray(query_seq_lengths), (-1, 1, 1, 1)))
    if key_value_seq_lengths is not None:
        keep = jnp.logical_and(keep, cols[None, None] <
                               jnp.reshape(jnp.asarray(key_value_seq_lengths), (-1, 1, 1, 1)))
    # JAX's masked logit: a large finite negative, so a fully masked row stays finite
    low = -0.7 * float(min(jnp.finfo(logits.dtype).max, jnp.finfo(jnp.float32).max))
    logits = jnp.where(keep, logits, low)
    probs = act.softmax(logits, axis=-1).astype(v.dtype)
    probs = jnp.reshape(probs, (b, kh, n // kh, t, s))
    out = jnp.reshape(jnp.einsum("bkgts,bskh->btkgh", probs, v), (b, t, n, h))
    if query_seq_lengths is not None:       # queries past their length give 0, as JAX
        valid = rows[None, :, :, None] < jnp.reshape(jnp.asarray(query_seq_lengths),
                                                    (-1, 1, 1, 1))
        out = jnp.where(valid, out, 0.0)
    out = out[0] if unbatched else out
    if not return_residual:
        return out
    lse = stop_gradient(jnp.transpose(logsumexp(logits, axis=-1), (0, 2, 1)))   # (B, T, N)
    return out, (lse[0] if unbatched else lse)
