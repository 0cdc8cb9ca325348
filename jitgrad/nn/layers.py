"""Layers (Linear, activations, LayerNorm, Embedding, Dropout) and containers (Sequential,
ModuleList); their functional forms live in functional.py, the loss modules in loss_layers.py.

Randomness: Dropout takes an explicit PRNG key, `model(x, key=k)`, which containers split among
the children whose forward accepts `key`. Without a key, eager code draws from the global
generator (`jg.manual_seed`), as PyTorch does; a jitted function must pass a key.
"""
from __future__ import annotations

import math
from collections import OrderedDict

import numpy as np

from .. import numpy as jnp
from .. import random as jrandom
from ..eager.grad_mode import no_grad
from ..dtypes import default_float
from ..numpy._convert import asarray
from . import functional as F
from . import init
from .module import Module, Parameter, takes_key


# ------------------------------------------------------------------------------ layers

def _empty(*shape):
    """A parameter of the default float dtype (float64 under enable_x64 / set_default_dtype)."""
    return Parameter(np.empty(shape, default_float()))


class Identity(Module):
    def forward(self, x):
        return x


class Linear(Module):
    """y = x @ W.T + b, initialized as PyTorch: W and b uniform in +-1/sqrt(in_features)."""

    def __init__(self, in_features, out_features, bias=True):
        super().__init__()
        self.in_features, self.out_features = int(in_features), int(out_features)
        self.weight = _empty(self.out_features, self.in_features)
        self.register_parameter("bias", _empty(self.out_features) if bias else None)
        self.reset_parameters()

    def reset_parameters(self):
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            bound = 1 / math.sqrt(self.in_features) if self.in_features else 0.0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, x):
        return F.linear(x, self.weight, self.bias)

    def extra_repr(self):
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")


class _Activation(Module):
    fn = staticmethod(lambda x: x)

    def forward(self, x):
        return type(self).fn(x)


class ReLU(_Activation):
    fn = staticmethod(F.relu)


class Tanh(_Activation):
    fn = staticmethod(F.tanh)


class Sigmoid(_Activation):
    fn = staticmethod(F.sigmoid)


class GELU(Module):
    def __init__(self, approximate="none"):
        super().__init__()
        if approximate not in ("none", "tanh"):
            raise ValueError(f"GELU: approximate must be 'none' or 'tanh', got {approximate!r}")
        self.approximate = approximate

    def forward(self, x):
        return F.gelu(x, approximate=self.approximate == "tanh")

    def extra_repr(self):
        return f"approximate={self.approximate!r}"


class Softmax(Module):
    def __init__(self, dim=-1):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        return F.softmax(x, axis=self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class LogSoftmax(Softmax):
    def forward(self, x):
        return F.log_softmax(x, axis=self.dim)


class Flatten(Module):
    """Merge dimensions start_dim..end_dim (by default all but the batch dimension)."""

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, x):
        x = asarray(x)
        start, end = self.start_dim % x.ndim, self.end_dim % x.ndim
        merged = math.prod(x.shape[start:end + 1])
        return jnp.reshape(x, tuple(x.shape[:start]) + (merged,) + tuple(x.shape[end + 1:]))

    def extra_repr(self):
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Dropout(Module):
    """Dropout with probability p while training; `layer(x, key=k)` under jit."""

    def __init__(self, p=0.5):
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"Dropout: p must be in [0, 1], got {p}")
        self.p = float(p)

    def forward(self, x, key=None):
        return F.dropout(x, self.p, self.training, key)

    def extra_repr(self):
        return f"p={self.p}"


class Dropout2d(Module):
    """Channel-wise dropout while training; `layer(x, key=k)` under jit."""

    def __init__(self, p=0.5):
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"Dropout2d: p must be in [0, 1], got {p}")
        self.p = float(p)

    def forward(self, x, key=None):
        return F.dropout2d(x, self.p, self.training, key)

    def extra_repr(self):
        return f"p={self.p}"


class LayerNorm(Module):
    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True):
        super().__init__()
        shape = ((normalized_shape,) if isinstance(normalized_shape, int)
                 else tuple(normalized_shape))
        self.normalized_shape, self.eps, self.elementwise_affine = shape, eps, elementwise_affine
        affine = elementwise_affine
        self.register_parameter("weight", Parameter(np.ones(shape, default_float())) if affine else None)
        self.register_parameter("bias", Parameter(np.zeros(shape, default_float())) if affine and bias
                                else None)

    def forward(self, x):
        return F.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}")


class Embedding(Module):
    """A lookup table initialized N(0, 1) as in PyTorch; the padding_idx row starts at zero."""

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None):
        super().__init__()
        self.num_embeddings, self.embedding_dim = int(num_embeddings), int(embedding_dim)
        self.padding_idx = padding_idx
        self.weight = _empty(self.num_embeddings, self.embedding_dim)
        init.normal_(self.weight)
        if padding_idx is not None:
            w = np.array(self.weight.detach())
            w[padding_idx] = 0
            with no_grad():
                self.weight.copy_(w)

    def forward(self, indices):
        return F.embedding(indices, self.weight, self.padding_idx)

    def extra_repr(self):
        pad = "" if self.padding_idx is None else f", padding_idx={self.padding_idx}"
        return f"{self.num_embeddings}, {self.embedding_dim}{pad}"


# ------------------------------------------------------------------------------ containers

class Sequential(Module):
    """Apply modules in order: Sequential(Linear(64, 128), ReLU(), Linear(128, 10)), or from an
    OrderedDict of names. `model(x, key=k)` splits k among the layers that take a key."""

    def __init__(self, *modules):
        super().__init__()
        if len(modules) == 1 and isinstance(modules[0], OrderedDict):
            for name, m in modules[0].items():
                self.add_module(name, m)
        else:
            for i, m in enumerate(modules):
                self.add_module(str(i), m)

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __getitem__(self, idx):
        mods = list(self._modules.items())
        if isinstance(idx, slice):
            return Sequential(OrderedDict(mods[idx]))
        return mods[idx][1]

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self

    def forward(self, x, key=None):
        needs = [takes_key(m) for m in self]
        keys = iter(jrandom.split(key, max(sum(needs), 1))) if key is not None else None
        for m, need in zip(self, needs):
            x = m(x, key=next(keys)) if need and keys is not None else m(x)
        return x


class ModuleList(Module):
    """A list of modules registered as children "0", "1", ... (index, iterate, append)."""

    def __init__(self, modules=()):
        super().__init__()
        for m in modules:
            self.append(m)

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __getitem__(self, idx):
        return list(self._modules.values())[idx]

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self


__all__ = ["Identity", "Linear", "ReLU", "Tanh", "Sigmoid", "GELU", "Softmax", "LogSoftmax",
           "Flatten", "Dropout", "Dropout2d", "LayerNorm", "Embedding", "Sequential", "ModuleList"]
