"""torch.autograd.grad, torch.autograd.backward and Tensor.backward over eager tensors, on the
machinery of backward.py: gradients of any outputs with respect to any tensors (leaves or
intermediate results), returned without touching `.grad`, and with create_graph=True
differentiable again (grads of grads)."""
from __future__ import annotations

import numpy as np

from ..errors import api_boundary
from .array_base import register_methods
from .autograd_record import RETAINED
from .backward import differentiable_gradients, gradients, run_backward
from .grad_mode import enable_grad, no_grad
from .tensor import Tensor

_UNUSED = ("One of the differentiated Tensors appears to not have been used in the graph. Set "
           "allow_unused=True if this is the desired behavior.")


def _tensors(x, what) -> list:
    items = [x] if isinstance(x, Tensor) else list(x)
    for t in items:
        if not isinstance(t, Tensor):
            raise TypeError(f"{what}: expected a Tensor or a sequence of Tensors, got "
                            f"{type(t).__name__}")
    return items


def _root(outputs, grad_outputs):
    """(tensor, seed) whose backward is that of every output with its cotangent: the output
    itself for one, sum_i <output_i, grad_output_i> for several."""
    if grad_outputs is None:
        grad_outputs = [None] * len(outputs)
    grad_outputs = [grad_outputs] if isinstance(grad_outputs, Tensor) else list(grad_outputs)
    if len(grad_outputs) != len(outputs):
        raise RuntimeError(f"grad_outputs: {len(grad_outputs)} given for {len(outputs)} outputs")
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o.requires_grad]
    if not pairs:
        raise RuntimeError("element 0 of tensors does not require grad and does not have a "
                           "grad_fn")
    if len(pairs) == 1:
        return pairs[0]
    with enable_grad():
        terms = [(o * (g if g is not None else _ones_for(o))).sum() for o, g in pairs]
        root = terms[0]
        for t in terms[1:]:
            root = root + t
    return root, None


def _ones_for(output):
    if output.size != 1:
        raise RuntimeError(f"grad can be implicitly created only for scalar outputs, got shape "
                           f"{tuple(output.shape)}; pass grad_outputs")
    return Tensor._wrap(np.ones(output.shape, output.dtype), output.device)


def _wrt(outputs, grad_outputs, inputs, create_graph, retain_graph) -> dict:
    """{id(tensor): gradient} for `inputs` (and every leaf the outputs depend on)."""
    for t in inputs:
        if not t.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    root, seed = _root(outputs, grad_outputs)
    marked = [t for t in inputs if t._ctx is not None and not t._retain]
    for t in marked:        # intermediate results: their gradients, as retain_grad() asks
        t._retain = True
        RETAINED.add(t)
    try:
        if create_graph:
            pairs = differentiable_gradients(root, seed)
        else:
            pairs, _ = gradients(root, seed, retain_graph)
    finally:
        for t in marked:        # (RETAINED is weak and skips tensors with _retain unset)
            t._retain = False
    return {id(t): g for t, g in pairs}


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """torch.autograd.grad: the gradients of `outputs` (weighted by `grad_outputs`) with respect
    to `inputs`, as a tuple; `.grad` is left alone. create_graph=True records the gradients'
    computation, so they can be differentiated again."""
    if is_grads_batched:
        raise NotImplementedError("grad(is_grads_batched=True): use jg.vmap over jg.vjp")
    outputs, inputs = _tensors(outputs, "grad outputs"), _tensors(inputs, "grad inputs")
    retain = create_graph if retain_graph is None else retain_graph
    found = _wrt(outputs, grad_outputs, inputs, create_graph, retain)
    allow_unused = materialize_grads if allow_unused is None else allow_unused
    result = []
    for t in inputs:
        g = found.get(id(t))
        if g is None and not allow_unused:
            raise RuntimeError(_UNUSED)
        if g is None and materialize_grads:
            g = Tensor._wrap(np.zeros(t.shape, t.dtype), t.device)
        result.append(g)
    return tuple(result)


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """torch.autograd.backward (and Tensor.backward's create_graph= / inputs=): accumulate the
    gradients of `tensors` into `.grad` of every leaf they depend on, or only of `inputs`."""
    outputs = _tensors(tensors, "backward tensors")
    retain = create_graph if retain_graph is None else retain_graph
    if inputs is not None:
        wanted = _tensors(inputs, "backward inputs")
        found = _wrt(outputs, grad_tensors, wanted, create_graph, retain)
        pairs = [(t, found[id(t)]) for t in wanted if id(t) in found]
    elif create_graph:
        pairs = differentiable_gradients(*_root(outputs, grad_tensors))
    else:
        pairs, _ = gradients(*_root(outputs, grad_tensors), retain)
    for t, g in pairs:
        if t.grad is None:
            t.grad = g if create_graph else g.detach()
        elif create_graph:
            t.grad = t.grad + g
        else:
            with no_grad():
                t.grad = t.grad + g


@api_boundary
def tensor_backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    """Tensor.backward(gradient=None, retain_graph=None, create_graph=False, inputs=None), as in
    PyTorch: accumulate d self / d leaf into every leaf's `.grad` (or only `inputs`')."""
    if create_graph or inputs is not None:
        backward(self, gradient, retain_graph, create_graph, inputs)
    else:
        run_backward(self, gradient, bool(retain_graph))


register_methods({"backward": tensor_backward}, Tensor)   # installed here: Tensor does not
#                                                           import this module
