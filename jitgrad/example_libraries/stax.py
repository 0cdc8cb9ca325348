"""jax.example_libraries.stax over jitgrad: a layer is an (init_fun, apply_fun) pair,

    init_fun(rng, input_shape) -> (output_shape, params)
    apply_fun(params, inputs, rng=None, **kwargs) -> outputs

combined with serial / parallel / FanOut / FanInSum. Layouts, initializers and quirks are
JAX's: Conv is NHWC / HWIO, Dense is inputs @ W + b with W (in, out), Dropout's rate is the
probability of keeping a unit, Gelu is the tanh approximation (jax.nn.gelu's default)."""
from __future__ import annotations

import functools
import math

from .. import lax, numpy as jnp, random
from ..nn import functional as F
from ..nn.initializers import glorot_normal, normal, ones, zeros

_SELU_ALPHA, _SELU_SCALE = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


# the activations stax exports (jax.nn's meaning)
relu = F.relu
sigmoid = F.sigmoid
softplus = F.softplus
elu = F.elu
leaky_relu = F.leaky_relu


def selu(x):
    """jax.nn.selu as stax imports it: the scaled exponential linear unit."""
    return jnp.multiply(F.elu(x, _SELU_ALPHA), _SELU_SCALE)


def gelu(x, approximate=True):
    """jax.nn.gelu as stax imports it: the GELU activation (tanh approximation by default)."""
    return F.gelu(x, approximate=approximate)


def log_softmax(x, axis=-1):
    """jax.nn.log_softmax as stax imports it: x - logsumexp(x) over `axis`."""
    return F.log_softmax(x, axis=axis)


def softmax(x, axis=-1):
    """jax.nn.softmax as stax imports it: exp(x) / sum(exp(x)) over `axis`."""
    return F.softmax(x, axis=axis)


logsoftmax = log_softmax


def standardize(x, axis=-1, epsilon=1e-5):
    """(x - mean) / sqrt(var + epsilon) over axis (jax.nn.standardize)."""
    mean = jnp.mean(x, axis=axis, keepdims=True)
    centered = jnp.subtract(x, mean)
    var = jnp.mean(jnp.square(centered), axis=axis, keepdims=True)
    return jnp.multiply(centered, jnp.rsqrt(jnp.add(var, epsilon)))


def randn(stddev=1e-2):
    """torch.randn: a tensor of standard normal samples of the given shape."""
    return normal(stddev)


def glorot(out_dim=0, in_dim=1, scale=1.0):
    """The old stax initializer: normal with std scale * sqrt(2 / (fan_in + fan_out))."""
    def init(rng, shape):
        std = scale * math.sqrt(2.0 / (shape[in_dim] + shape[out_dim]))
        return jnp.multiply(random.normal(rng, shape), std)
    return init


def Dense(out_dim, W_init=glorot_normal(), b_init=normal()):
    """A fully connected layer: inputs @ W + b, W of shape (in_dim, out_dim)."""
    def init_fun(rng, input_shape):
        k1, k2 = random.split(rng)
        params = W_init(k1, (input_shape[-1], out_dim)), b_init(k2, (out_dim,))
        return tuple(input_shape[:-1]) + (out_dim,), params

    def apply_fun(params, inputs, **kwargs):
        W, b = params
        return jnp.add(jnp.dot(inputs, W), b)
    return init_fun, apply_fun


def _spatial(spec, skip):
    return [c for c in spec if c not in skip]


def _window_out(size, window, stride, lo, hi):
    return (size + lo + hi - window) // stride + 1


def GeneralConv(dimension_numbers, out_chan, filter_shape, strides=None, padding="VALID",
                W_init=None, b_init=normal(1e-6)):
    """A convolution with explicit layouts, e.g. ('NHWC', 'HWIO', 'NHWC'); the bias has one
    entry per output channel, broadcast over the other output axes."""
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    one = (1,) * len(filter_shape)
    strides = tuple(strides or one)
    W_init = W_init or glorot_normal(rhs_spec.index("I"), rhs_spec.index("O"))

    def kernel_shape_for(input_shape):
        it = iter(filter_shape)
        return [out_chan if c == "O" else input_shape[lhs_spec.index("C")] if c == "I"
                else next(it) for c in rhs_spec]

    def init_fun(rng, input_shape):
        kernel_shape = kernel_shape_for(input_shape)
        in_sp = [input_shape[lhs_spec.index(c)] for c in _spatial(lhs_spec, "NC")]
        k_sp = [kernel_shape[rhs_spec.index(c)] for c in _spatial(rhs_spec, "IO")]
        pads = lax.padtype_to_pads(in_sp, k_sp, strides, padding) if isinstance(padding, str) \
            else padding
        out_sp = [_window_out(n, k, s, lo, hi) for n, k, s, (lo, hi) in
                  zip(in_sp, k_sp, strides, pads)]
        order = _spatial(lhs_spec, "NC")
        out_shape = tuple(input_shape[lhs_spec.index("N")] if c == "N" else out_chan
                          if c == "C" else out_sp[order.index(c)] for c in out_spec)
        k1, k2 = random.split(rng)
        bias_shape = [out_chan if c == "C" else 1 for c in out_spec]
        return out_shape, (W_init(k1, kernel_shape), b_init(k2, bias_shape))

    def apply_fun(params, inputs, **kwargs):
        W, b = params
        out = lax.conv_general_dilated(inputs, W, strides, padding, one, one,
                                       dimension_numbers=dimension_numbers)
        return jnp.add(out, b)
    return init_fun, apply_fun


Conv = functools.partial(GeneralConv, ("NHWC", "HWIO", "NHWC"))


def GeneralConvTranspose(dimension_numbers, out_chan, filter_shape, strides=None,
                         padding="VALID", W_init=None, b_init=normal(1e-6)):
    """A transposed convolution (lax.conv_transpose) with explicit layouts."""
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    one = (1,) * len(filter_shape)
    strides = tuple(strides or one)
    W_init = W_init or glorot_normal(rhs_spec.index("I"), rhs_spec.index("O"))

    def apply_fun(params, inputs, **kwargs):
        W, b = params
        out = lax.conv_transpose(inputs, W, strides, padding,
                                 dimension_numbers=dimension_numbers)
        return jnp.add(out, b)

    def init_fun(rng, input_shape):
        it = iter(filter_shape)
        kernel_shape = [out_chan if c == "O" else input_shape[lhs_spec.index("C")] if c == "I"
                        else next(it) for c in rhs_spec]
        k1, k2 = random.split(rng)
        bias_shape = [out_chan if c == "C" else 1 for c in out_spec]
        params = W_init(k1, kernel_shape), b_init(k2, bias_shape)
        # the output shape from one example (the batch size may be -1, as in JAX's examples)
        batch = lhs_spec.index("N")
        probe_shape = tuple(1 if i == batch else d for i, d in enumerate(input_shape))
        out = apply_fun(params, jnp.zeros(probe_shape, params[0].dtype))
        n_out = out_spec.index("N")
        return tuple(input_shape[batch] if i == n_out else d
                     for i, d in enumerate(out.shape)), params
    return init_fun, apply_fun


Conv1DTranspose = functools.partial(GeneralConvTranspose, ("NHC", "HIO", "NHC"))
ConvTranspose = functools.partial(GeneralConvTranspose, ("NHWC", "HWIO", "NHWC"))


def BatchNorm(axis=(0, 1, 2), epsilon=1e-5, center=True, scale=True, beta_init=zeros,
              gamma_init=ones):
    """Normalize over `axis` with the batch's own statistics (no running averages), then
    scale by gamma and shift by beta (each of the shape of the axes not normalized)."""
    axis = (axis,) if isinstance(axis, int) else tuple(axis)

    def init_fun(rng, input_shape):
        shape = tuple(d for i, d in enumerate(input_shape) if i not in axis)
        k1, k2 = random.split(rng)
        beta = beta_init(k1, shape) if center else ()
        gamma = gamma_init(k2, shape) if scale else ()
        return input_shape, (beta, gamma)

    def apply_fun(params, x, **kwargs):
        beta, gamma = params
        kept = tuple(None if i in axis else slice(None) for i in range(jnp.ndim(x)))
        z = standardize(x, axis, epsilon=epsilon)
        if scale:
            z = jnp.multiply(gamma[kept], z)
        return jnp.add(z, beta[kept]) if center else z
    return init_fun, apply_fun


def elementwise(fun, **fun_kwargs):
    """A parameterless layer applying fun(inputs, **fun_kwargs)."""
    def init_fun(rng, input_shape):
        return input_shape, ()

    def apply_fun(params, inputs, **kwargs):
        return fun(inputs, **fun_kwargs)
    return init_fun, apply_fun


Tanh = elementwise(jnp.tanh)
Relu = elementwise(relu)
Exp = elementwise(jnp.exp)
LogSoftmax = elementwise(log_softmax, axis=-1)
Softmax = elementwise(softmax, axis=-1)
Softplus = elementwise(softplus)
Sigmoid = elementwise(sigmoid)
Elu = elementwise(elu)
LeakyRelu = elementwise(leaky_relu)
Selu = elementwise(selu)
Gelu = elementwise(gelu)


def _pooling_layer(reducer, init_val, average=False):
    def PoolingLayer(window_shape, strides=None, padding="VALID", spec=None):
        """Pool over the spatial axes (default layout NHWC: every axis but the first and the
        last; spec names another, e.g. 'NCHW')."""
        window_shape = tuple(window_shape)
        strides = tuple(strides or (1,) * len(window_shape))
        non_spatial = (0, len(window_shape) + 1) if spec is None else \
            (spec.index("N"), spec.index("C"))
        dims, steps = window_shape, strides
        for i in sorted(non_spatial):
            dims, steps = dims[:i] + (1,) + dims[i:], steps[:i] + (1,) + steps[i:]

        def init_fun(rng, input_shape):
            pads = lax.padtype_to_pads(input_shape, dims, steps, padding) \
                if isinstance(padding, str) else padding
            return tuple(_window_out(n, k, s, lo, hi) for n, k, s, (lo, hi)
                         in zip(input_shape, dims, steps, pads)), ()

        def apply_fun(params, inputs, **kwargs):
            out = lax.reduce_window(inputs, init_val, reducer, dims, steps, padding)
            if not average:
                return out
            # divide by the number of real (unpadded) entries in each window
            counts = lax.reduce_window(jnp.ones(inputs.shape, inputs.dtype), 0.0, lax.add,
                                       dims, steps, padding)
            return jnp.true_divide(out, counts)
        return init_fun, apply_fun
    return PoolingLayer


MaxPool = _pooling_layer(lax.max, -math.inf)
SumPool = _pooling_layer(lax.add, 0.0)
AvgPool = _pooling_layer(lax.add, 0.0, average=True)


def _flatten():
    def init_fun(rng, input_shape):
        return (input_shape[0], math.prod(input_shape[1:])), ()

    def apply_fun(params, inputs, **kwargs):
        return jnp.reshape(inputs, (inputs.shape[0], -1))
    return init_fun, apply_fun


Flatten = _flatten()
Identity = elementwise(lambda x: x)


def FanOut(num):
    """num copies of the input (a list), for parallel."""
    def init_fun(rng, input_shape):
        return [input_shape] * num, ()

    def apply_fun(params, inputs, **kwargs):
        return [inputs] * num
    return init_fun, apply_fun


def _fan_in_sum():
    def init_fun(rng, input_shape):
        return input_shape[0], ()

    def apply_fun(params, inputs, **kwargs):
        return functools.reduce(jnp.add, inputs)
    return init_fun, apply_fun


FanInSum = _fan_in_sum()


def FanInConcat(axis=-1):
    """Concatenates a list of inputs along axis."""
    def init_fun(rng, input_shape):
        ax = axis % len(input_shape[0])
        size = sum(shape[ax] for shape in input_shape)
        return tuple(input_shape[0][:ax]) + (size,) + tuple(input_shape[0][ax + 1:]), ()

    def apply_fun(params, inputs, **kwargs):
        return jnp.concatenate(inputs, axis)
    return init_fun, apply_fun


def Dropout(rate, mode="train"):
    """In mode 'train', keeps each unit with probability `rate` (JAX's stax meaning: the keep
    rate) and scales kept units by 1/rate; any other mode is the identity. apply_fun needs
    rng=key."""
    def init_fun(rng, input_shape):
        return input_shape, ()

    def apply_fun(params, inputs, **kwargs):
        rng = kwargs.get("rng")
        if rng is None:
            raise ValueError("Dropout: apply_fun needs a PRNG key: call apply_fun(params, "
                             "inputs, rng=key) with key from jitgrad.random.key")
        if mode != "train":
            return inputs
        keep = random.bernoulli(rng, rate, inputs.shape)
        return jnp.where(keep, jnp.true_divide(inputs, rate), 0.0)
    return init_fun, apply_fun


def serial(*layers):
    """The layers applied one after another; params is a list, one entry per layer, and
    each layer gets its own key split from rng."""
    init_funs, apply_funs = zip(*layers) if layers else ((), ())

    def init_fun(rng, input_shape):
        params = []
        for init in init_funs:
            rng, layer_rng = random.split(rng)
            input_shape, param = init(layer_rng, input_shape)
            params.append(param)
        return input_shape, params

    def apply_fun(params, inputs, **kwargs):
        rng = kwargs.pop("rng", None)
        rngs = random.split(rng, len(layers)) if rng is not None else (None,) * len(layers)
        for fun, param, r in zip(apply_funs, params, rngs):
            inputs = fun(param, inputs, rng=r, **kwargs)
        return inputs
    return init_fun, apply_fun


def parallel(*layers):
    """The layers applied to a sequence of inputs, one each (with FanOut and FanInSum)."""
    init_funs, apply_funs = zip(*layers) if layers else ((), ())

    def init_fun(rng, input_shape):
        rngs = random.split(rng, len(layers))
        out = [init(r, shape) for init, r, shape in zip(init_funs, rngs, input_shape)]
        return [o[0] for o in out], [o[1] for o in out]

    def apply_fun(params, inputs, **kwargs):
        rng = kwargs.pop("rng", None)
        rngs = random.split(rng, len(layers)) if rng is not None else (None,) * len(layers)
        return [f(p, x, rng=r, **kwargs) for f, p, x, r in zip(apply_funs, params, inputs, rngs)]
    return init_fun, apply_fun


def shape_dependent(make_layer):
    """A layer built by make_layer(input_shape) once the input shape is known."""
    def init_fun(rng, input_shape):
        return make_layer(input_shape)[0](rng, input_shape)

    def apply_fun(params, inputs, **kwargs):
        return make_layer(inputs.shape)[1](params, inputs, **kwargs)
    return init_fun, apply_fun
