"""torch.nn.utils.parameters_to_vector / vector_to_parameters: a model's parameters as one
flat vector and back."""
from __future__ import annotations

from ...eager.grad_mode import no_grad
from ...eager.tensor import Tensor
from ... import numpy as jnp


def _same_device(params) -> None:
    devices = {p.device for p in params}
    if len(devices) > 1:
        raise TypeError(f"Found two parameters on different devices ({sorted(map(str, devices))}),"
                        " this is currently not supported.")


def parameters_to_vector(parameters):
    """The parameters flattened and concatenated (differentiable, as torch's)."""
    params = list(parameters)
    _same_device(params)
    return jnp.concatenate([p.reshape(-1) for p in params])


def vector_to_parameters(vec, parameters) -> None:
    """Copies consecutive slices of vec into the parameters (their values change in place)."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected a jitgrad Tensor, but got: {type(vec).__module__}."
                        f"{type(vec).__name__}")
    params = list(parameters)
    _same_device(params)
    need = sum(p.size for p in params)
    if vec.ndim != 1 or vec.shape[0] != need:
        raise ValueError(f"vector_to_parameters: expected a vector of {need} elements (the "
                         f"parameters' total), got shape {tuple(vec.shape)}")
    offset = 0
    with no_grad():
        for p in params:
            p.copy_(vec[offset:offset + p.size].reshape(p.shape))
            offset += p.size
