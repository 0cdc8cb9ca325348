"""The checks PyTorch's optimizers make on the parameters they are given, with its messages:
an optimizer that silently updates nothing (a non-leaf, a copy) is a silent wrong answer."""
from __future__ import annotations

import warnings

from ..eager.tensor import Tensor


def param_list(params, who) -> list:
    """params as a list (of tensors or of group dicts): not a lone tensor, not a set, not empty."""
    if isinstance(params, Tensor):
        raise TypeError(f"{who}: params argument given to the optimizer should be an iterable "
                        f"of Tensors or dicts, but got a {type(params).__name__}")
    if isinstance(params, (set, frozenset)):
        raise TypeError(f"{who}: optimizer parameters need to be organized in ordered "
                        "collections, but the ordering of tensors in sets will change between "
                        "runs. Please use a list instead.")
    params = list(params)
    if not params:
        raise ValueError(f"{who}: optimizer got an empty parameter list")
    return params


def group_params(params, who, seen: set) -> list:
    """One group's parameters, checked; `seen` holds ids from earlier groups."""
    if isinstance(params, Tensor):
        params = [params]
    elif isinstance(params, (set, frozenset)):
        param_list(params, who)
    params = list(params)
    ids = set()
    for p in params:
        if not isinstance(p, Tensor):
            raise TypeError(f"{who}: optimizer can only optimize Tensors, but one of the params "
                            f"is {type(p).__module__}.{type(p).__name__}")
        if not (p.is_leaf or p._retain):
            raise ValueError(f"{who}: can't optimize a non-leaf Tensor (it was computed by "
                             f"{p.grad_fn.name}; its update would change nothing: optimize the "
                             "leaf it came from, or a .detach().requires_grad_() copy)")
        if id(p) in seen:
            raise ValueError(f"{who}: some parameters appear in more than one parameter group")
        if id(p) in ids:
            warnings.warn(f"{who}: optimizer contains a parameter group with duplicate "
                          "parameters; in future, this will cause an error", UserWarning,
                          stacklevel=4)
        ids.add(id(p))
    seen |= ids
    return params
