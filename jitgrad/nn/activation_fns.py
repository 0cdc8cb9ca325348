"""torch.nn.functional's activations beyond activations.py (hardtanh, selu, mish, glu, prelu,
rrelu, the shrinks, ...), and softmax/log_softmax/softmin with torch's `dim` argument: each a
composite of primitives, so eager, jit, grad and vmap get them. The selects give PyTorch's
gradient at the kinks (0 outside an open interval)."""
from __future__ import annotations

import numpy as np

from .. import numpy as jnp
from .. import random as jrandom
from ..eager.global_rng import global_rng
from ..trace.tracer import Tracer
from ..ir.types import kind_of
from ..numpy._convert import asarray
from ..transforms.autodiff import stop_gradient
from . import activations as A

_SELU_ALPHA, _SELU_SCALE = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


def _float(x):
    return asarray(x)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """torch.nn.functional.hardtanh: clamp to [min_val, max_val]; gradient 1 strictly inside."""
    if min_val > max_val:
        raise ValueError(f"hardtanh: min_val ({min_val}) must not exceed max_val ({max_val})")
    x = _float(input)
    return jnp.where(jnp.less_equal(x, min_val), jnp.asarray(min_val, x.dtype),
                     jnp.where(jnp.greater_equal(x, max_val), jnp.asarray(max_val, x.dtype), x))


def relu6(input, inplace=False):
    """torch.nn.functional.relu6: hardtanh(x, 0, 6)."""
    return hardtanh(input, 0.0, 6.0)


def hardsigmoid(input, inplace=False):
    """torch.nn.functional.hardsigmoid: relu6(x + 3) / 6."""
    x = _float(input)
    return jnp.true_divide(hardtanh(jnp.add(x, 3.0), 0.0, 6.0), 6.0)


def hardswish(input, inplace=False):
    """torch.nn.functional.hardswish: x * relu6(x + 3) / 6."""
    x = _float(input)
    return jnp.multiply(x, hardsigmoid(x))


def selu(input, inplace=False):
    """torch.nn.functional.selu: scale * elu(x, alpha) with the self-normalizing constants."""
    return jnp.multiply(A.elu(input, _SELU_ALPHA), _SELU_SCALE)


def celu(input, alpha=1.0, inplace=False):
    """torch.nn.functional.celu: max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""
    if alpha == 0:
        raise ValueError("celu: alpha must not be 0")
    x = _float(input)
    return jnp.where(jnp.greater(x, 0), x,
                     jnp.multiply(jnp.expm1(jnp.true_divide(jnp.minimum(x, 0), alpha)), alpha))


def elu(input, alpha=1.0, inplace=False):
    """torch.nn.functional.elu."""
    return A.elu(input, alpha)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    """torch.nn.functional.leaky_relu."""
    return A.leaky_relu(input, negative_slope)


def mish(input, inplace=False):
    """torch.nn.functional.mish: x * tanh(softplus(x))."""
    x = _float(input)
    return jnp.multiply(x, jnp.tanh(A.softplus(x)))


def softsign(input):
    """torch.nn.functional.softsign: x / (1 + |x|)."""
    x = _float(input)
    return jnp.true_divide(x, jnp.add(jnp.abs(x), 1.0))


def tanhshrink(input):
    """torch.nn.functional.tanhshrink: x - tanh(x)."""
    x = _float(input)
    return jnp.subtract(x, jnp.tanh(x))


def softshrink(input, lambd=0.5):
    """torch.nn.functional.softshrink: x -+ lambd outside [-lambd, lambd], else 0."""
    if lambd < 0:
        raise ValueError(f"softshrink: lambd must be non-negative, got {lambd}")
    x = _float(input)
    return jnp.where(jnp.greater(x, lambd), jnp.subtract(x, lambd),
                     jnp.where(jnp.less(x, -lambd), jnp.add(x, lambd), jnp.zeros((), x.dtype)))


def hardshrink(input, lambd=0.5):
    """torch.nn.functional.hardshrink: x outside [-lambd, lambd], else 0."""
    x = _float(input)
    return jnp.where(jnp.greater(jnp.abs(x), lambd), x, jnp.zeros((), x.dtype))


def threshold(input, threshold, value, inplace=False):
    """torch.nn.functional.threshold: x where x > threshold, else value."""
    x = _float(input)
    return jnp.where(jnp.greater(x, threshold), x, jnp.asarray(value, x.dtype))


def logsigmoid(input):
    """torch.nn.functional.logsigmoid: log(sigmoid(x)), stable."""
    return A.log_sigmoid(input)


def glu(input, dim=-1):
    """torch.nn.functional.glu: a * sigmoid(b) of the two halves of `dim`."""
    x = _float(input)
    if x.ndim == 0 or x.shape[dim] % 2:
        raise ValueError(f"glu: halving dimension {dim} needs an even size, got shape "
                         f"{tuple(x.shape)}")
    a, b = jnp.split(x, 2, axis=dim)
    return jnp.multiply(a, A.sigmoid(b))


def prelu(input, weight):
    """torch.nn.functional.prelu: x where x > 0, else weight * x; a weight of C values
    applies per channel (dim 1)."""
    x, w = _float(input), asarray(weight)
    if w.size != 1:
        if x.ndim < 2 or w.ndim != 1 or w.shape[0] != x.shape[1]:
            raise ValueError(f"prelu: expected one weight or one per channel (dim 1), got "
                             f"weight of shape {tuple(w.shape)} for input {tuple(x.shape)}")
        w = jnp.reshape(w, (-1,) + (1,) * (x.ndim - 2))
    else:
        w = jnp.reshape(w, ())
    return jnp.where(jnp.greater(x, 0), x, jnp.multiply(w, x))


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False, key=None):
    """torch.nn.functional.rrelu: leaky ReLU whose negative slope is drawn uniformly in
    [lower, upper] per element while training, (lower + upper) / 2 otherwise. `key` (a
    jg.random key) is required inside jit while training."""
    x = _float(input)
    if not training:
        return A.leaky_relu(x, (lower + upper) / 2)
    if key is not None:
        slope = jrandom.uniform(key, tuple(x.shape), x.dtype, lower, upper)
    elif isinstance(x, Tracer) and x._concrete is None:
        raise ValueError("rrelu while training inside jit needs an explicit PRNG key (key=k), "
                         "or call model.eval()")
    else:
        slope = jnp.asarray(global_rng().uniform(lower, upper, tuple(x.shape)).astype(x.dtype))
    return jnp.where(jnp.greater_equal(x, 0), x, jnp.multiply(x, slope))


def _softmax_dim(ndim, dim, axis, where):
    """torch's implicit dim (0 for 0-, 1- and 3-d inputs, else 1) when neither is given."""
    if dim is not None and axis is not None:
        raise TypeError(f"{where}: pass dim (PyTorch) or axis, not both")
    dim = axis if dim is None else dim
    return (0 if ndim in (0, 1, 3) else 1) if dim is None else dim


def _softmax_input(input, dtype):
    x = asarray(input)
    return x if dtype is None else x.astype(dtype)


def softmax(input, dim=None, _stacklevel=3, dtype=None, *, axis=None):
    """torch.nn.functional.softmax along `dim` (`axis` is accepted too); `dtype` casts first."""
    x = _softmax_input(input, dtype)
    return A.softmax(x, axis=_softmax_dim(x.ndim, dim, axis, "softmax"))


def log_softmax(input, dim=None, _stacklevel=3, dtype=None, *, axis=None):
    """torch.nn.functional.log_softmax along `dim` (`axis` is accepted too)."""
    x = _softmax_input(input, dtype)
    return A.log_softmax(x, axis=_softmax_dim(x.ndim, dim, axis, "log_softmax"))


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """torch.nn.functional.softmin: softmax(-x) along `dim`."""
    x = _softmax_input(input, dtype)
    return A.softmax(jnp.negative(x), axis=_softmax_dim(x.ndim, dim, None, "softmin"))


def gumbel_softmax(logits, tau=1.0, hard=False, eps=1e-10, dim=-1, key=None):
    """torch.nn.functional.gumbel_softmax: softmax((logits + Gumbel noise) / tau); `hard`
    returns the one-hot argmax with the soft sample's gradient (straight through)."""
    x = asarray(logits)
    if key is not None:
        u = jrandom.uniform(key, tuple(x.shape), x.dtype, 1e-20, 1.0)
    elif isinstance(x, Tracer) and x._concrete is None:
        raise ValueError("gumbel_softmax inside jit needs an explicit PRNG key (key=k)")
    else:
        u = jnp.asarray(global_rng().uniform(1e-20, 1.0, tuple(x.shape)).astype(x.dtype))
    gumbels = jnp.negative(jnp.log(jnp.negative(jnp.log(u))))
    soft = A.softmax(jnp.true_divide(jnp.add(x, gumbels), tau), axis=dim)
    if not hard:
        return soft
    index = jnp.argmax(soft, axis=dim, keepdims=True)
    axis = dim % x.ndim
    shape = [1] * x.ndim
    shape[axis] = x.shape[axis]
    one = jnp.equal(index, jnp.reshape(jnp.arange(x.shape[axis]), shape)).astype(soft.dtype)
    return jnp.add(jnp.subtract(one, stop_gradient(soft)), soft)


def one_hot(tensor, num_classes=-1):
    """torch.nn.functional.one_hot: int64 one-hot rows of integer labels; num_classes=-1 takes
    max + 1 (needs known label values: pass num_classes under jit)."""
    x = asarray(tensor)
    if kind_of(x.dtype) not in "iu":
        raise TypeError(f"one_hot: expected integer class values, got {x.dtype}")
    if num_classes == -1:
        if isinstance(x, Tracer) and x._concrete is None:
            raise ValueError("one_hot: num_classes=-1 needs the labels' values; pass num_classes "
                             "inside jit")
        num_classes = int(np.max(np.asarray(x))) + 1 if x.size else 0
    return A.one_hot(x, num_classes, "int64")


def _inplace(fn):
    """torch's in-place form (relu_, elu_, ...): writes fn(x) into the eager tensor x."""
    def inplace(input, *args, **kwargs):
        return input.copy_(fn(input, *args, **kwargs))
    inplace.__name__ = inplace.__qualname__ = fn.__name__ + "_"
    inplace.__doc__ = f"torch.nn.functional.{fn.__name__}_: {fn.__name__} written into the input."
    return inplace


relu_ = _inplace(A.relu)
elu_ = _inplace(elu)
celu_ = _inplace(celu)
selu_ = _inplace(selu)
leaky_relu_ = _inplace(leaky_relu)
hardtanh_ = _inplace(hardtanh)
threshold_ = _inplace(threshold)
rrelu_ = _inplace(rrelu)

__all__ = ["hardtanh", "relu6", "hardsigmoid", "hardswish", "selu", "celu", "elu", "leaky_relu",
           "mish", "softsign", "tanhshrink", "softshrink", "hardshrink", "threshold", "logsigmoid",
           "glu", "prelu", "rrelu", "one_hot", "softmax", "log_softmax", "softmin",
           "gumbel_softmax",
           "relu_", "elu_", "celu_", "selu_", "leaky_relu_", "hardtanh_", "threshold_", "rrelu_"]
