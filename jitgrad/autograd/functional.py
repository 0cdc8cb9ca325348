"""torch.autograd.functional: derivatives of a function of tensors, computed by jitgrad's
transforms (jg.jacrev, jg.hessian, jg.vjp, jg.jvp) with torch's argument and result
conventions: `inputs` a tensor or a tuple of tensors, results shaped as torch's."""
from __future__ import annotations

from ..transforms import autodiff as AD, jacobians as J


def _as_tuple(inputs):
    return (tuple(inputs), True) if isinstance(inputs, (tuple, list)) else ((inputs,), False)


def _check_strategy(strategy):
    if strategy not in ("reverse-mode", "forward-mode"):
        raise ValueError(f"jacobian: strategy must be 'reverse-mode' or 'forward-mode', got "
                         f"{strategy!r}")


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False,
             strategy="reverse-mode"):
    """d func / d inputs: a tensor of shape out.shape + in.shape for one input and one output;
    tuples (per output, then per input) where either is a tuple, as torch's."""
    _check_strategy(strategy)
    args, many_in = _as_tuple(inputs)
    jac = J.jacfwd if strategy == "forward-mode" else J.jacrev
    out = jac(func, argnums=tuple(range(len(args))))(*args)
    if isinstance(out, tuple) and out and isinstance(out[0], tuple):     # several outputs
        return tuple(o if many_in else o[0] for o in out)
    return out if many_in else out[0]


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False,
            outer_jacobian_strategy="reverse-mode"):
    """The Hessian of a scalar func: in.shape * 2 for one input; a tuple of tuples for several."""
    args, many_in = _as_tuple(inputs)
    out = J.hessian(func, argnums=tuple(range(len(args))))(*args)
    return out if many_in else out[0][0]


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T J): v defaults to 1 for a scalar output."""
    args, many_in = _as_tuple(inputs)
    out, pullback = AD.vjp(func, *args)
    if v is None:
        if getattr(out, "size", 1) != 1:
            raise RuntimeError("vjp: v can be omitted only for a scalar output")
        v = out * 0 + 1
    grads = pullback(v)
    return out, (grads if many_in else grads[0])


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), J v): v defaults to 1 for a scalar input."""
    args, many_in = _as_tuple(inputs)
    if v is None:
        if any(getattr(a, "size", 1) != 1 for a in args):
            raise RuntimeError("jvp: v can be omitted only for scalar inputs")
        v = tuple(a * 0 + 1 for a in args)
    tangents, _ = _as_tuple(v)
    return AD.jvp(func, args, tangents)


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), H v) of a scalar func."""
    args, many_in = _as_tuple(inputs)
    tangents, _ = _as_tuple(v)
    grad_fn = AD.grad(func, argnums=tuple(range(len(args))))
    _, hv = AD.jvp(grad_fn, args, tangents)
    return func(*args), (hv if many_in else hv[0])


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T H) of a scalar func (H v, H being symmetric)."""
    return hvp(func, inputs, v, create_graph, strict)
