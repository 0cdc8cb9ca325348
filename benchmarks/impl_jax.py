"""JAX: every workload under jax.jit, on the CPU backend, float32."""
import jax
import jax.numpy as jnp

from .impl import Impl, collect
from .workloads import LR


@jax.jit
def ew_chain(x):
    return jnp.tanh(x * 1.5 + 0.3) * jax.nn.sigmoid(x) + jnp.exp(-x * x)


@jax.jit
def gelu(x):
    return jax.nn.gelu(x, approximate=True)


@jax.jit
def softmax(x):
    return jax.nn.softmax(x, axis=-1)


@jax.jit
def layernorm(x):
    d = x - jnp.mean(x, axis=-1, keepdims=True)
    return d * jax.lax.rsqrt(jnp.mean(d * d, axis=-1, keepdims=True) + 1e-5)


@jax.jit
def sum_sq(x):
    return jnp.sum(x * x)


def _cross_entropy(logits, y):
    return -jnp.sum(y * jax.nn.log_softmax(logits, axis=-1)) / y.shape[0]


def _logreg_loss(w, x, y):
    return _cross_entropy(x @ w, y)


@jax.jit
def logreg_step(w, x, y):
    return w - LR * jax.grad(_logreg_loss)(w, x, y)


def _mlp_loss(params, x, y):
    w1, b1, w2, b2, w3, b3 = params
    h1 = jax.nn.relu(x @ w1 + b1)
    h2 = jax.nn.relu(h1 @ w2 + b2)
    return _cross_entropy(h2 @ w3 + b3, y)


@jax.jit
def mlp_step(params, x, y):
    loss, grads = jax.value_and_grad(_mlp_loss)(params, x, y)
    return tuple(p - LR * g for p, g in zip(params, grads)), loss


@jax.jit
def call_overhead(x):
    return x * 2 + 1


@jax.jit
def call_pytree(d):
    return {k: v * 2 for k, v in d.items()}


IMPLS = [Impl("jax", jax.__version__, collect(globals()), to_framework=jax.device_put,
              block=jax.block_until_ready)]
