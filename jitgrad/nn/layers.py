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

def _empty(*shape, dtype=None):
    """A parameter of `dtype`, by default the default float dtype (float64 under enable_x64 /
    set_default_dtype)."""
    return Parameter(np.empty(shape, dtype or default_float()))


class Identity(Module):
    """torch.nn.Identity: returns its input; constructor arguments are accepted and ignored."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, x):
        return x


class Linear(Module):
    """y = x @ W.T + b, initialized as PyTorch: W and b uniform in +-1/sqrt(in_features)."""

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in_features, self.out_features = int(in_features), int(out_features)
        self.weight = _empty(self.out_features, self.in_features, dtype=dtype)
        self.register_parameter("bias", _empty(self.out_features, dtype=dtype) if bias else None)
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

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace      # accepted as torch's; the result is a new tensor

    def forward(self, x):
        return type(self).fn(x)


class ReLU(_Activation):
    """torch.nn.ReLU: max(x, 0) as a layer."""
    fn = staticmethod(F.relu)


class Tanh(_Activation):
    """torch.nn.Tanh: the hyperbolic tangent as a layer."""
    fn = staticmethod(F.tanh)


class Sigmoid(_Activation):
    """torch.nn.Sigmoid: 1 / (1 + exp(-x)) as a layer."""
    fn = staticmethod(F.sigmoid)


class GELU(Module):
    """torch.nn.GELU: the GELU activation as a layer (approximate='none' or 'tanh')."""
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
    """torch.nn.Softmax(dim=None): None picks torch's implicit dimension."""

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        return F.softmax(x, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class LogSoftmax(Softmax):
    """torch.nn.LogSoftmax: log(softmax(x)) over `dim` as a layer."""
    def forward(self, x):
        return F.log_softmax(x, self.dim)


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


class Unflatten(Module):
    """torch.nn.Unflatten(dim, unflattened_size): split dimension `dim` into that shape."""

    def __init__(self, dim, unflattened_size):
        super().__init__()
        self.dim, self.unflattened_size = dim, tuple(unflattened_size)

    def forward(self, x):
        x = asarray(x)
        d = self.dim % x.ndim
        shape = self.unflattened_size
        if -1 not in shape and math.prod(shape) != x.shape[d]:
            raise ValueError(f"Unflatten: unflattened_size {shape} does not multiply to the size "
                             f"{x.shape[d]} of dimension {self.dim}")
        return jnp.reshape(x, tuple(x.shape[:d]) + shape + tuple(x.shape[d + 1:]))

    def extra_repr(self):
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"


class Dropout(Module):
    """Dropout with probability p while training; `layer(x, key=k)` under jit."""

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"Dropout: p must be in [0, 1], got {p}")
        self.p, self.inplace = float(p), inplace

    def forward(self, x, key=None):
        return F.dropout(x, self.p, self.training, key)

    def extra_repr(self):
        return f"p={self.p}"


class Dropout2d(Module):
    """Channel-wise dropout while training; `layer(x, key=k)` under jit."""

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"Dropout2d: p must be in [0, 1], got {p}")
        self.p, self.inplace = float(p), inplace

    def forward(self, x, key=None):
        return F.dropout2d(x, self.p, self.training, key)

    def extra_repr(self):
        return f"p={self.p}"


class LayerNorm(Module):
    """torch.nn.LayerNorm: normalize over the trailing normalized_shape dims, with an optional
    affine."""
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
    """torch.nn.Embedding: a lookup table initialized N(0, 1) as in PyTorch; the padding_idx row
    starts at zero and gets no gradient; max_norm renormalizes looked-up rows."""

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None,
                 norm_type=2.0, scale_grad_by_freq=False, sparse=False, _weight=None,
                 _freeze=False, device=None, dtype=None):
        super().__init__()
        n = self.num_embeddings = int(num_embeddings)
        self.embedding_dim = int(embedding_dim)
        if padding_idx is not None:
            if not -n <= padding_idx < n:
                raise ValueError(f"Embedding: padding_idx must be within [-{n}, {n}), got "
                                 f"{padding_idx}")
            padding_idx %= n
        self.padding_idx, self.max_norm, self.norm_type = padding_idx, max_norm, norm_type
        self.scale_grad_by_freq, self.sparse = scale_grad_by_freq, sparse
        if _weight is None:
            self.weight = Parameter(np.empty((n, self.embedding_dim), dtype or default_float()))
            self.reset_parameters()
        else:
            if tuple(np.shape(_weight)) != (n, self.embedding_dim):
                raise ValueError(f"Embedding: _weight must have shape ({n}, "
                                 f"{self.embedding_dim}), got {tuple(np.shape(_weight))}")
            self.weight = Parameter(np.asarray(_weight), requires_grad=not _freeze)

    def reset_parameters(self):
        init.normal_(self.weight)
        if self.padding_idx is not None:
            w = np.array(self.weight.detach())
            w[self.padding_idx] = 0
            with no_grad():
                self.weight.copy_(w)

    def forward(self, indices):
        return F.embedding(indices, self.weight, self.padding_idx, self.max_norm,
                           self.norm_type, self.scale_grad_by_freq, self.sparse)

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, padding_idx=None, max_norm=None,
                        norm_type=2.0, scale_grad_by_freq=False, sparse=False):
        """torch.nn.Embedding.from_pretrained: a layer over the given (N, D) table, frozen
        (requires_grad=False) unless freeze=False."""
        table = np.asarray(embeddings)
        if table.ndim != 2:
            raise ValueError(f"Embedding.from_pretrained: expected a 2-D table, got shape "
                             f"{table.shape}")
        return cls(*table.shape, padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse,
                   _weight=table, _freeze=freeze)

    def extra_repr(self):
        pad = "" if self.padding_idx is None else f", padding_idx={self.padding_idx}"
        norm = "" if self.max_norm is None else f", max_norm={self.max_norm}"
        return f"{self.num_embeddings}, {self.embedding_dim}{pad}{norm}"


# ------------------------------------------------------------------------------ containers

class _ModuleSequence(Module):
    """Children kept in order: len, iteration, append/extend and item assignment (what
    Sequential and ModuleList share)."""

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules):
        for m in modules:
            self.append(m)
        return self

    def __setitem__(self, idx, module):
        key = list(self._modules)[idx]
        self.add_module(key, module)


class Sequential(_ModuleSequence):
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

    def __getitem__(self, idx):
        mods = list(self._modules.items())
        if isinstance(idx, slice):
            return Sequential(OrderedDict(mods[idx]))
        return mods[idx][1]

    def forward(self, x, key=None):
        needs = [takes_key(m) for m in self]
        keys = iter(jrandom.split(key, max(sum(needs), 1))) if key is not None else None
        for m, need in zip(self, needs):
            x = m(x, key=next(keys)) if need and keys is not None else m(x)
        return x


class ModuleList(_ModuleSequence):
    """A list of modules registered as children "0", "1", ... (index, iterate, append)."""

    def __init__(self, modules=()):
        super().__init__()
        for m in modules:
            self.append(m)

    def __getitem__(self, idx):
        return list(self._modules.values())[idx]


__all__ = ["Identity", "Linear", "ReLU", "Tanh", "Sigmoid", "GELU", "Softmax", "LogSoftmax",
           "Flatten", "Unflatten", "Dropout", "Dropout2d", "LayerNorm", "Embedding", "Sequential",
           "ModuleList"]
