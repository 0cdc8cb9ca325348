"""Which convention a method call spells: NumPy's keywords (axis=, keepdims=, ddof=) keep
NumPy's meaning; everything else is read as PyTorch's (dim=, keepdim=, positional dims)."""
from __future__ import annotations

UNSET = object()      # a keyword the caller did not pass (None is a value: axis=None)


def numpy_spelled(*values) -> bool:
    """True when any of NumPy's keywords was passed."""
    return any(v is not UNSET for v in values)


def numpy_axis(what, dim, axis):
    """The axis of a NumPy-spelled call: axis= or the positional first argument (x.max(-1,
    keepdims=True) is NumPy's x.max(axis=-1, keepdims=True)), not both."""
    if dim is not None and axis is not UNSET:
        raise TypeError(f"{what}: pass the dims once, as dim (PyTorch) or axis= (NumPy)")
    return dim if axis is UNSET else axis


def dims(dim):
    """A torch dim argument (int, tuple or list of ints, or None) as jitgrad.numpy's axis."""
    return tuple(dim) if isinstance(dim, list) else dim


def reduced_dims(dim):
    """A reduction's torch dim as jitgrad.numpy's axis: an empty tuple or list reduces every
    dim in torch (x.sum(dim=()) is x.sum()), where NumPy's axis=() reduces none."""
    d = dims(dim)
    return None if isinstance(d, tuple) and not d else d


def varargs_shape(what, sizes):
    """f(2, 3) or f((2, 3)) or f([2, 3]) or f(jg.Size(...)): the tuple of ints."""
    if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)):
        sizes = tuple(sizes[0])
    for s in sizes:
        if isinstance(s, bool) or not hasattr(s, "__index__"):
            raise TypeError(f"{what}: expected ints (as separate arguments or one tuple), got "
                            f"{type(s).__name__} {s!r}")
    return tuple(int(s) for s in sizes)
