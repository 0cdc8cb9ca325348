"""JAX-style explicit PRNG keys: key = jg.random.key(0); k1, k2 = jg.random.split(key);
jg.random.normal(k1, (3, 4)). A key is an i64[2] tensor; draws are a primitive (`random`) so
they trace and run under jit like any op."""
from __future__ import annotations

import numpy as np

from .eager.dispatch import apply
from .dtypes import canonical_dtype, default_float
from .ir import Op
from .eager.tensor import Tensor
from . import numpy as jnp
from .numpy._convert import asarray
from .ir.types import kind_of

_MASK = (1 << 63) - 1


def _integer_seed(seed):
    """seed as a Python int: a Python/NumPy integer or an integer 0-d array; floats, bools'
    lookalikes and arrays of other shapes raise TypeError, as jax.random.key does."""
    if isinstance(seed, (int, np.integer)):
        return int(seed)
    a = np.asarray(seed.numpy() if isinstance(seed, Tensor) else seed)
    if a.shape != ():
        raise TypeError(f"jg.random.key: expected a scalar integer seed, got an array of shape "
                        f"{a.shape} (use jg.vmap(jg.random.key) for a batch of seeds)")
    if a.dtype.kind not in "iub":
        raise TypeError(f"jg.random.key: the seed must be an integer, got {a.dtype} ({seed!r})")
    return int(a)


def key(seed: int):
    """A PRNG key from an integer seed (jax.random.key / PRNGKey)."""
    s = _integer_seed(seed)
    return Tensor._wrap(np.array([s & _MASK, (s >> 63) & _MASK], dtype=np.int64))


PRNGKey = key


def _check_key(k):
    k = asarray(k)
    if k.shape != (2,) or k.dtype != np.int64:
        raise TypeError(f"expected a PRNG key (jg.random.key(seed), an int64 tensor of shape (2,)), "
                        f"got {k.dtype}{list(k.shape)}")
    return k


def _float(dtype, what):
    d = canonical_dtype(dtype) if dtype is not None else default_float()
    if kind_of(d) != "f":
        raise TypeError(f"jg.random.{what}: expected a float dtype, got {d.name}")
    return d


def _shape(shape):
    return (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(int(d) for d in shape)


def _bits(k, shape):
    return apply(Op.random, [_check_key(k)], {"shape": _shape(shape), "dtype": np.dtype("int64"),
                                              "dist": "bits"})


def split(k, num=2):
    """num new independent keys, as a (num, 2) tensor (iterate or index it)."""
    return _bits(k, (int(num), 2))


def fold_in(k, data: int):
    """A new key from k and an integer; fold_in(k, d) never equals a key split(k) returns."""
    return split(jnp.add(_check_key(k), np.array([0, int(data) + 1], dtype=np.int64)), 1)[0]


def normal(k, shape=(), dtype=None):
    return apply(Op.random, [_check_key(k)], {"shape": _shape(shape),
                                              "dtype": _float(dtype, "normal"), "dist": "normal"})


def uniform(k, shape=(), dtype=None, minval=0.0, maxval=1.0):
    dt = _float(dtype, "uniform")
    u = apply(Op.random, [_check_key(k)], {"shape": _shape(shape), "dtype": dt,
                                           "dist": "uniform"})
    if dt.itemsize == 2:     # float16/bfloat16: a float32 draw rounded to them can reach 1.0
        below_one = np.array(1.0, dt).view(np.uint16) - np.uint16(1)
        u = jnp.minimum(u, below_one.view(dt))
    if (minval, maxval) == (0.0, 1.0):
        return u
    return jnp.add(jnp.multiply(u, maxval - minval), minval)


def bernoulli(k, p=0.5, shape=()):
    return jnp.less(uniform(k, shape), p)


def randint(k, shape, minval, maxval, dtype="int64"):
    u = uniform(k, shape, dtype="float64")
    scaled = jnp.floor(jnp.multiply(u, float(maxval - minval)))
    return jnp.astype(jnp.add(scaled, float(minval)), dtype)


def permutation(k, x, axis=0, independent=False):
    """jax.random.permutation: an int n gives a shuffled arange(n); an array is shuffled along
    `axis` (whole slices move together, or each 1-d slice on its own when independent=True)."""
    if isinstance(x, (int, np.integer)) and not isinstance(x, bool):
        return jnp.argsort(uniform(k, (int(x),)))
    x = asarray(x)
    if x.ndim == 0:
        raise TypeError(f"jg.random.permutation: x must be an int or an array with at least one "
                        f"dimension, got a 0-d {x.dtype} array")
    axis = axis + x.ndim if axis < 0 else axis
    if independent:
        order = jnp.argsort(uniform(k, tuple(x.shape)), axis=axis)
        return jnp.take_along_axis(x, order, axis=axis)
    return jnp.take(x, jnp.argsort(uniform(k, (x.shape[axis],))), axis=axis)
