"""`own_storage(x)`: x as a new result with storage of its own, for the functions that return a
new array even where they change nothing (NumPy's roll by 0, a pad of 0, concatenate of one
array, a tile of ones, round of integers; torch's diff n=0, clone): a later in-place write to the
result must not reach the input. An eager tensor is copied (by a recorded convert to its own
dtype where autograd sees it or it is not on the CPU); a traced value is a new value already.
`unshared(out, x)` copies out only where it is x or a view of x's storage: torch's copying
functions written on NumPy's views (flip, fliplr, flipud, rot90, narrow_copy)."""
from __future__ import annotations

import numpy as np

from ..ir import Op
from .dispatch import apply
from .tensor import Tensor


def own_storage(x):
    """A copy of eager tensor x (numpy.copy / torch.clone); x itself when it is traced."""
    if not isinstance(x, Tensor):
        return x
    if x.device.type == "cpu" and not x.requires_grad:
        return Tensor._wrap(x._data.copy(), x.device)
    return apply(Op.convert, [x], {"dtype": x.dtype})


def unshared(out, x):
    """out, or its copy where it is eager tensor x or a view of x's storage."""
    if out is x or isinstance(out, Tensor) and isinstance(x, Tensor) and \
            isinstance(out._data, np.ndarray) and isinstance(x._data, np.ndarray) and \
            np.may_share_memory(out._data, x._data):
        return own_storage(out)
    return out
