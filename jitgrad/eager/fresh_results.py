"""torch's rule for what a function returns: a new tensor, except the view ops and the few that
return their input (documented in torch's "Tensor Views" and per function). jitgrad's
implementations share NumPy's shortcuts (jnp.roll by 0, a pad of 0, round of integers, a tile
of ones, cat of one tensor hand back their input or a view of it); in eager mode a later
in-place write to such a result would reach the input. `fresh` puts a copy in between.
"""
from __future__ import annotations

import numpy as np

from .tensor import Tensor

# torch names whose result may be (a view of) an input: views, self-returning conversions,
# dropout outside training, and in-place forms (name_), which return self by definition
VIEWS_AND_SELF = frozenset("""
view view_as reshape reshape_as flatten unflatten ravel squeeze unsqueeze transpose t T mT H mH
adjoint permute movedim moveaxis swapaxes swapdims expand expand_as broadcast_to
broadcast_tensors meshgrid narrow select unbind split split_with_sizes chunk tensor_split hsplit
vsplit dsplit diagonal real imag view_as_real view_as_complex unfold as_strided detach
contiguous to type type_as float double half bfloat16 int long short char byte bool cfloat
cdouble cpu cuda requires_grad_ conj resolve_conj resolve_neg positive atleast_1d atleast_2d
atleast_3d asarray as_tensor from_numpy numpy alias pin_memory share_memory_ retain_grad
dropout alpha_dropout feature_alpha_dropout dropout1d dropout2d dropout3d squeeze_ unsqueeze_
""".split())


def _inputs(args, kwargs):
    for a in (*args, *kwargs.values()):
        if type(a) is Tensor:
            yield a
        elif type(a) in (list, tuple):
            yield from (b for b in a if type(b) is Tensor)


def _aliases(out, args, kwargs) -> bool:
    if not isinstance(out._data, np.ndarray):
        return any(out is a for a in _inputs(args, kwargs))
    return any(out is a or isinstance(a._data, np.ndarray)
               and np.may_share_memory(out._data, a._data) for a in _inputs(args, kwargs))


def copy_if_aliased(out, *inputs):
    """out, or a copy of it where it is (a view of) one of `inputs` (eager tensors)."""
    if type(out) is Tensor and _aliases(out, inputs, {}):
        return out.clone()
    return out


def fresh(name: str, fn):
    """fn, returning a copy where its eager Tensor result aliases an input (unless `name` is a
    view or returns self in torch)."""
    if name in VIEWS_AND_SELF or name.endswith("_"):
        return fn

    def call(*args, **kwargs):
        out = fn(*args, **kwargs)
        if type(out) is Tensor and _aliases(out, args, kwargs):
            return out.clone()
        return out
    call.__name__, call.__qualname__, call.__doc__ = fn.__name__, fn.__qualname__, fn.__doc__
    call.__wrapped__ = fn
    return call
