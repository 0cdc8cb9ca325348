"""jnp.copy: the array with storage of its own (eager/own_storage.py: eager data is copied, by a
recorded convert where autograd sees it; traced values are new values anyway)."""
from __future__ import annotations

from ..eager.own_storage import own_storage
from ._convert import asarray


def copy(a):
    """numpy.copy: return an array copy of the given object."""
    return own_storage(asarray(a))
