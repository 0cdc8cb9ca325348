"""The carry typing of scan, fori_loop and while_loop, one rule for the eager and the traced
loops (JAX's).

A carry's type must not change in the body: the body's output carry has the shape and dtype of
the input carry, else a TypeError naming both. A weakly typed carry (a Python scalar `init`)
first takes the promotion of its type with the body's output (`scan(lambda c, x: (c + x, x), 0,
xs_f32)` carries float32), as JAX's scan promotes weak inputs before checking."""
from __future__ import annotations

import numpy as np

from ..dtypes import result_type


def promoted(in_dtype, out_dtype) -> np.dtype:
    """The dtype a weak carry of `in_dtype` takes when the body gives back `out_dtype`."""
    return result_type((np.dtype(in_dtype), True), (np.dtype(out_dtype), False))


def _fmt(shape, dtype):
    return f"{np.dtype(dtype).name}{list(shape)}"


def _where(i, n):
    return "" if n == 1 else f" (leaf {i} of {n})"


def check(in_types, out_types, in_tree=None, out_tree=None, who="scan") -> None:
    """Raise JAX's TypeError when the body's output carry types differ from the input carry's.
    `in_types`/`out_types`: [(shape, dtype)]; trees compared when given; `who`: the function
    the user called (scan, fori_loop, while_loop), named in the message."""
    if in_tree is not None and out_tree is not None and in_tree != out_tree:
        raise TypeError(f"{who}: the body function's carry output must have the carry input's "
                        f"structure: the input carry is {in_tree} but the output carry is "
                        f"{out_tree}. Revise the function so that it returns (carry, y) with "
                        f"the carry as it came in.")
    n = len(in_types)
    for i, ((s, d), (os_, od)) in enumerate(zip(in_types, out_types)):
        what = [w for w, bad in (("shapes", tuple(s) != tuple(os_)),
                                 ("dtypes", np.dtype(d) != np.dtype(od))) if bad]
        if what:
            raise TypeError(
                f"{who}: the body function's carry input and carry output must have equal "
                f"types, but they differ: the input carry{_where(i, n)} has type {_fmt(s, d)} "
                f"but the corresponding output carry component has type {_fmt(os_, od)}, so "
                f"the {' and '.join(what)} do not match. Revise the function so that all "
                f"output types match the corresponding input types.")
