"""Arrays a jitted function closes over are baked into its compiled code as constants, at trace
time (as in JAX): changing the global or closed-over array later does not change the result
until the function is traced again. Under JITGRAD_DEBUG>=1 jit warns once per function about
each such array larger than BAKED_WARN_SIZE elements (the arrays of a registered pytree class
count too, such as a Module's parameters and buffers: pass the model as an argument to train
it)."""
from __future__ import annotations

import warnings

import numpy as np

from .. import tree_util
from ..eager.tensor import Tensor
from .source_info import user_frame

BAKED_WARN_SIZE = 8


def _size(value) -> int:
    """Elements of an array, or of the arrays in an instance of a registered pytree class (a
    Module's parameters and buffers); 0 for anything else (plain lists, tuples, dicts too)."""
    if isinstance(value, (Tensor, np.ndarray)):
        return int(np.prod(value.shape, dtype=np.int64))
    if isinstance(value, (list, tuple, dict)) or tree_util.node_children(value) is None:
        return 0
    return sum(map(_size, tree_util.tree_leaves(value)))


def closed_over(fn) -> list:
    """[(name, elements)] of the arrays/Modules fn reads from its closure or globals."""
    code = getattr(fn, "__code__", None)
    if code is None:
        return []
    found = []
    for name, cell in zip(code.co_freevars, getattr(fn, "__closure__", None) or ()):
        try:
            found.append((name, _size(cell.cell_contents)))
        except ValueError:          # an empty cell
            continue
    globs = getattr(fn, "__globals__", {})
    found += [(name, _size(globs[name])) for name in code.co_names if name in globs]
    return [(n, s) for n, s in found if s > BAKED_WARN_SIZE]


def warn_baked(fn, name: str) -> None:
    """The JITGRAD_DEBUG warning for `fn` (once: jit calls it on the first trace only)."""
    frame = user_frame()
    where = (frame.f_code.co_filename, frame.f_lineno) if frame is not None else ("jitgrad", 0)
    for var, size in closed_over(fn):
        warnings.warn_explicit(
            f"jit({name}): '{var}' ({size} elements) is closed over and baked into the compiled "
            "code as a constant at trace time; later changes to it are not seen. Pass it as an "
            "argument instead", UserWarning, *where)
