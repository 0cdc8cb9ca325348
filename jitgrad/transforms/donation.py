"""donate_argnums: what donating means for the caller's values (JAX's semantics).

- A donated jitgrad tensor is consumed by the call: the compiled code may write its outputs into
  the tensor's memory, so afterwards the tensor is deleted — `x.is_deleted()` is True and any read
  (np.asarray, .numpy(), printing, arithmetic, passing it to a function again) raises
  DeletedArrayError ("Array has been deleted ... donated to ..."), never a silent alias. Its
  shape and dtype stay readable. It is consumed even when the call raises.
- Memory is reused only when the tensor owns it alone: a tensor that shares memory with a NumPy
  array the caller holds (np.asarray(x), jg.as_tensor(a)) or with views first gets a private
  copy, so nothing but the tensor is ever overwritten.
- A NumPy array is the caller's memory: it is copied, as JAX copies NumPy inputs to a device
  array; donating it has no effect, and the array is never overwritten nor deleted.
- Donation is ignored inside an enclosing transformation (traced arguments), as in JAX.
"""
from __future__ import annotations

import sys

import numpy as np

from .. import tree_util
from ..eager.tensor import Tensor
from ..trace.tracer import Tracer


def _refs(t) -> int:
    """References to t's array, counted the same way every time (slot, local, argument)."""
    d = t._data
    return sys.getrefcount(d)


# what _refs gives for an array nothing else holds, measured on this interpreter; one more
# means someone else (a NumPy view, np.asarray(x), a recorded op) holds it
_OWN_REFS = _refs(Tensor._wrap(np.empty(1)))


def _owns(t: Tensor) -> bool:
    if t._base is not None or t._views:
        return False
    if isinstance(t._data, np.ndarray):
        return t._data.base is None and _refs(t) <= _OWN_REFS
    return True       # device storage: shared only through the tensor views checked above


def _private_copy(t: Tensor) -> None:
    d = t._data
    t._data = d.copy() if isinstance(d, np.ndarray) else t.to("cpu").to(t.device)._data


def _leaves(a) -> list:
    """a's leaves; a tensor or array is its own (the common case, without flattening)."""
    return [a] if type(a) is Tensor or type(a) is np.ndarray else tree_util.tree_leaves(a)


def applies(args) -> bool:
    """Donation is ignored when a leaf is traced (an enclosing jit/grad/vmap)."""
    return not any(isinstance(x, Tracer) for a in args for x in _leaves(a))


def prepare_leaves(leaves, donated, name, seen):
    """The leaves to run with (NumPy arrays among `donated` copied) and the tensors the call
    consumes. `seen`: ids of tensors already donated by this call (a tensor donated twice, or
    donated and passed again, would alias two inputs)."""
    out, consumed = list(leaves), []
    for k in donated:
        x = leaves[k]
        if isinstance(x, np.ndarray):
            out[k] = x.copy()
        elif isinstance(x, Tensor):
            if x.is_deleted():
                raise x._data.error()
            if id(x) in seen:
                raise ValueError(f"{name}: the same tensor is donated twice (donate_argnums); "
                                 "pass a copy for one of them")
            seen.add(id(x))
            if not _owns(x):
                _private_copy(x)
            consumed.append(x)
    return out, consumed


def check_not_reused(leaves, seen, name):
    """A donated tensor passed again as a non-donated argument of the same call."""
    for x in leaves:
        if isinstance(x, Tensor) and id(x) in seen:
            raise ValueError(f"{name}: a donated tensor is also passed as a non-donated "
                             "argument; pass a copy (x.copy()) for one of them")


def prepare_args(args, positions, name):
    """prepare_leaves for jit's positional arguments: (args to run with, consumed tensors)."""
    args, consumed, seen = list(args), [], set()
    for i in positions:
        a = args[i]
        leaves, tree = ([a], None) if type(a) is Tensor or type(a) is np.ndarray else \
            tree_util.tree_flatten(a)
        new, used = prepare_leaves(leaves, range(len(leaves)), name, seen)
        consumed += used
        if any(x is not y for x, y in zip(new, leaves)):
            args[i] = new[0] if tree is None else tree_util.tree_unflatten(tree, new)
    for j, a in enumerate(args):
        if j not in positions:
            check_not_reused(_leaves(a), seen, name)
    return tuple(args), consumed


def consume(tensors, name) -> None:
    why = (f"it was donated to the jitted function {name!r} (donate_argnums) and its memory "
           "may hold the outputs; use the function's result instead")
    for t in tensors:
        t.delete(why)
