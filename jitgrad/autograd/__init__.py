"""torch.autograd: `grad` and `backward` over eager tensors (create_graph=True for grads of
grads), `Function` (a hand-written backward, on jg.custom_vjp), `functional` (jacobian, hessian,
vjp, jvp, hvp, vhp on jitgrad's transforms), the
deprecated `Variable`, and the grad-mode switches.

>>> import jitgrad as jg
>>> x = jg.tensor([1.0, 2.0], requires_grad=True)
>>> (g,) = jg.autograd.grad((x ** 3).sum(), x, create_graph=True)
>>> jg.autograd.grad(g.sum(), x)[0]
tensor([ 6., 12.])
"""
from __future__ import annotations

from ..eager.autograd_functions import backward, grad
from ..eager.grad_mode import (enable_grad, inference_mode, no_grad, set_grad_enabled)
from ..eager.tensor import Tensor
from . import functional
from .custom_function import Function, FunctionCtx

__all__ = ["grad", "backward", "functional", "Function", "FunctionCtx", "Variable", "no_grad", "enable_grad",
           "set_grad_enabled", "inference_mode"]


def Variable(data, requires_grad=False, volatile=False):  # noqa: N802 - torch's name
    """torch.autograd.Variable (deprecated there): the tensor itself, requiring grad if asked."""
    t = data if isinstance(data, Tensor) else Tensor._wrap(data) if hasattr(data, "dtype") \
        else __import__("jitgrad").tensor(data)
    return t.requires_grad_(True) if requires_grad else t
