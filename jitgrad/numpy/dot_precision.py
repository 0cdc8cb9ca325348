"""jax.numpy's `precision=` and `preferred_element_type=` keywords of the products (dot, matmul,
einsum, ...), and `lax.Precision`, the enum they take."""
from __future__ import annotations

import enum
import functools

from ._convert import asarray, astype


class Precision(enum.Enum):
    """jax.lax.Precision: how many passes a float32 product takes on an accelerator. jitgrad's
    float32 products are always full float32 (JAX's HIGHEST), so every value gives those bits."""
    DEFAULT = 0
    HIGH = 1
    HIGHEST = 2

    def __str__(self):
        return self.name

    @classmethod
    def _missing_(cls, value):
        """JAX's string spellings: Precision('highest'), Precision('tensorfloat32'), ..."""
        name = PRECISION_NAMES.get(value.lower()) if isinstance(value, str) else None
        return None if name is None else cls[name]


# JAX's string spellings -> the Precision each means
PRECISION_NAMES = {"default": "DEFAULT", "fastest": "DEFAULT", "bfloat16": "DEFAULT",
                   "high": "HIGH", "bfloat16_3x": "HIGH", "tensorfloat32": "HIGH",
                   "highest": "HIGHEST", "float32": "HIGHEST"}


def check_precision(precision):
    """A ValueError naming the accepted forms unless `precision` is one of them."""
    one = (lambda p: p is None or isinstance(p, Precision)
           or (isinstance(p, str) and p.lower() in PRECISION_NAMES))
    if one(precision) or (isinstance(precision, tuple) and len(precision) == 2
                          and all(one(p) for p in precision)):
        return
    raise ValueError(f"precision must be None, a lax.Precision, one of the strings "
                     f"{list(PRECISION_NAMES)}, or a pair of those; got {precision!r}")


def accepts_precision(fn):
    """Give a product function JAX's keyword-only `precision=` (checked; every value computes
    full float32) and `preferred_element_type=` (the array operands are cast to it first: it is
    the accumulation and the result dtype, as lax.dot_general's)."""
    @functools.wraps(fn)
    def wrapper(*args, precision=None, preferred_element_type=None, **kwargs):
        check_precision(precision)
        if preferred_element_type is not None:
            args = tuple(a if isinstance(a, (str, list, tuple)) or a is Ellipsis
                         else astype(asarray(a), preferred_element_type) for a in args)
        return fn(*args, **kwargs)
    return wrapper
