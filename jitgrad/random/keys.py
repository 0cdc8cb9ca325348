"""PRNG keys and raw bits (jax.random.key, PRNGKey, split, fold_in, bits, key_data, ...).

A key is JAX's raw key data: a uint32[2] tensor (a batch of keys: uint32[..., 2]); every draw
hashes (key, element index) with Threefry-2x32 (threefry.py), bit for bit as JAX's default
(partitionable) threefry, so `jg.random.normal(jg.random.key(0), (3,))` draws JAX's numbers up to
the last bits of erf_inv."""
from __future__ import annotations

import numpy as np

from ..eager.tensor import Tensor
from ..ir.types import canonical_dtype, kind_of
from .. import numpy as jnp
from ..numpy._convert import asarray
from .threefry import counters, threefry2x32

_U32 = np.uint32
IMPL = "threefry2x32"


def _is_eager_cpu(x):
    return isinstance(x, np.ndarray) or isinstance(x, Tensor) and x.device.type == "cpu"


def _host(x):
    return x if isinstance(x, np.ndarray) else x.numpy()


def _tensor(a):
    return Tensor._wrap(np.array(a))


def _hash(key, x0, x1):
    """threefry2x32 of counters (x0, x1) under key (uint32[2]): on NumPy for an eager CPU key,
    else as recorded uint32 ops (tracers, other devices)."""
    if _is_eager_cpu(key):
        k = _host(key)
        with np.errstate(over="ignore"):
            h0, h1 = threefry2x32(k[0], k[1], np.asarray(x0), np.asarray(x1))
        shape = np.broadcast_shapes(np.shape(h0), np.shape(h1))
        return _tensor(np.broadcast_to(h0, shape)), _tensor(np.broadcast_to(h1, shape))
    c0, c1 = _tensor(np.asarray(x0)), _tensor(np.asarray(x1))
    if isinstance(key, Tensor):         # an eager key on another device: counters go there too
        c0, c1 = c0.to(key.device), c1.to(key.device)
    h0, h1 = threefry2x32(key[0], key[1], c0, c1)
    shape = np.broadcast_shapes(tuple(h0.shape), tuple(h1.shape))
    return jnp.broadcast_to(h0, shape), jnp.broadcast_to(h1, shape)


def check_key(k, what):
    """k as a uint32[2] key tensor; anything else raises TypeError naming what came."""
    k = asarray(k)
    if tuple(k.shape) == (2,) and k.dtype == np.uint32:
        return k
    if k.dtype == np.uint32 and k.ndim > 1 and k.shape[-1] == 2:
        raise TypeError(f"jg.random.{what} accepts a single key, but was given a key array of "
                        f"shape {tuple(k.shape[:-1])} != (). Use jg.vmap for batching")
    raise TypeError(f"jg.random.{what}: expected a PRNG key (jg.random.key(seed): a uint32 "
                    f"tensor of shape (2,)), got {k.dtype.name}{list(k.shape)}")


def shape_tuple(shape):
    return (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(int(d) for d in shape)


def _seed_words(seed):
    """A 64-bit seed as (high, low) uint32 words (JAX's threefry_seed; 32-bit seeds have a zero
    high word)."""
    if isinstance(seed, (bool, int, np.integer)):
        s = int(seed)
        if not -2 ** 63 <= s < 2 ** 64:
            raise OverflowError(f"jg.random.key: the seed {s} does not fit in 64 bits")
        return np.array([(s >> 32) & 0xFFFFFFFF, s & 0xFFFFFFFF], _U32)
    s = asarray(seed)
    if s.ndim:
        raise TypeError(f"jg.random.key: expected a scalar integer seed, got an array of shape "
                        f"{tuple(s.shape)} (use jg.vmap(jg.random.key) for a batch of seeds)")
    if kind_of(s.dtype) not in "iub":
        raise TypeError(f"jg.random.key: the seed must be an integer, got {s.dtype.name} "
                        f"({seed!r})")
    if _is_eager_cpu(s):
        return _seed_words(int(_host(s)))
    lo = jnp.astype(s, _U32)
    hi = jnp.astype(jnp.right_shift(s, 32), _U32) if s.dtype.itemsize == 8 else lo * _U32(0)
    return jnp.stack([hi, lo])


def key(seed, *, impl=None):
    """A PRNG key from an integer seed (jax.random.key and PRNGKey: its raw uint32[2] data;
    a traced integer seed works under jit and vmap)."""
    _check_impl(impl)
    words = _seed_words(seed)
    return _tensor(words) if isinstance(words, np.ndarray) else words


PRNGKey = key


def _check_impl(impl):
    if impl not in (None, IMPL):
        raise ValueError(f"jg.random: only the {IMPL!r} PRNG implementation is available, got "
                         f"impl={impl!r}")


def key_data(keys):
    """The uint32 data of keys (jax.random.key_data): keys are their data here."""
    keys = asarray(keys)
    _check_key_array(keys, "key_data")
    return keys


def wrap_key_data(key_bits_array, *, impl=None):
    """Keys from uint32[..., 2] data (jax.random.wrap_key_data): the data itself here."""
    _check_impl(impl)
    keys = asarray(key_bits_array)
    _check_key_array(keys, "wrap_key_data")
    return keys


def _check_key_array(keys, what):
    if keys.dtype != np.uint32 or keys.ndim == 0 or keys.shape[-1] != 2:
        raise TypeError(f"jg.random.{what}: expected uint32 key data of shape (..., 2), got "
                        f"{keys.dtype.name}{list(keys.shape)}")


def key_impl(keys):
    """The name of the keys' PRNG implementation (jax.random.key_impl): 'threefry2x32'."""
    _check_key_array(asarray(keys), "key_impl")
    return IMPL


def clone(k):
    """jax.random.clone: keys are immutable values here, so the key itself."""
    return k


def split(k, num=2):
    """num new keys (an int or a shape), as a uint32[*num, 2] tensor (jax.random.split)."""
    hi, lo = counters(shape_tuple(num))
    h0, h1 = _hash(check_key(k, "split"), hi, lo)
    return jnp.stack([h0, h1], axis=-1)


def fold_in(k, data):
    """A new key from k and an integer (jax.random.fold_in; data is taken modulo 2**32, may be
    traced)."""
    k = check_key(k, "fold_in")
    if isinstance(data, (bool, int, np.integer)):
        words = (np.zeros((), _U32), np.array(int(data) & 0xFFFFFFFF, _U32))
        return jnp.stack(_hash(k, *words))
    d = asarray(data)
    if kind_of(d.dtype) not in "iub" or d.ndim:
        raise TypeError(f"jg.random.fold_in: data must be a scalar integer, got "
                        f"{d.dtype.name}{list(d.shape)}")
    h0, h1 = threefry2x32(k[0], k[1], _tensor(np.zeros((), _U32)), jnp.astype(d, _U32))
    return jnp.stack([h0, h1])


def raw_bits(k, shape, what):
    """The two uint32 hash words per element of shape (JAX's partitionable random bits)."""
    hi, lo = counters(shape_tuple(shape))
    return _hash(check_key(k, what), hi, lo)


_UINTS = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def bits(k, shape=(), dtype=None):
    """Uniform random bits of an unsigned dtype (jax.random.bits; uint32 by default)."""
    dt = canonical_dtype(dtype) if dtype is not None else np.dtype(_U32)
    if kind_of(dt) != "u":
        raise TypeError(f"jg.random.bits: dtype must be an unsigned integer dtype, got "
                        f"{dt.name}")
    h0, h1 = raw_bits(k, shape, "bits")
    if dt.itemsize == 8:
        return jnp.bitwise_or(jnp.left_shift(jnp.astype(h0, dt), np.uint64(32)), jnp.astype(h1, dt))
    word = jnp.bitwise_xor(h0, h1)
    return word if dt.itemsize == 4 else jnp.astype(word, dt)
