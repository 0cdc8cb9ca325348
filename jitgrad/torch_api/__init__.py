"""PyTorch's Tensor methods and top-level tensor functions (torch.Tensor.*, torch.*), installed on
jitgrad's one Tensor (eager Tensors and traced values alike) and exported as jitgrad.*.

The naming rule: `jg.Tensor` methods and `jitgrad.*` top-level functions mean what PyTorch
means; `jitgrad.numpy` functions mean what NumPy / jax.numpy mean. Where a method call's
spelling is NumPy's alone (axis=, ddof=, keepdims=, a tuple or full permutation to
transpose), it keeps NumPy's meaning, so JAX-style code that calls methods keeps working.
No name silently follows the other convention: naming.SHARED_NAMES lists every name with two
meanings and how a call is read (x.size is an int that x.size() makes a Size; x.transpose(0, 1)
swaps; x.repeat tiles; x.std is unbiased; x.max(dim) and x.sort() return (values, indices)).

Installed when jitgrad is imported, after jitgrad.numpy's and nn.functional's methods, which
these replace where torch's meaning differs. In-place forms (x.add_(y)) are eager-only: on a
traced value they raise, pointing to the out-of-place form.
"""
from __future__ import annotations

import inspect

import numpy as np

from ..eager.array_base import ArrayOps, register_methods
from ..eager.global_rng import Generator, default_generator  # noqa: F401 (torch.*)
from ..eager.tensor import Tensor
from ..eager.torch_size import Size
from .legacy_types import (LEGACY, channels_last, channels_last_3d,  # noqa: F401 (torch.*)
                           contiguous_format, dtype, layout, memory_format, preserve_format,
                           strided)
from ..errors import api_boundary
from . import (conversion, dim_reductions, elementwise_methods, functions, index_methods,
               inplace, linalg_methods, misc_methods, more_functions, return_types,
               shape_methods, sorting)
from .naming import SHARED_NAMES  # noqa: F401

# torch's dtype names that NumPy spells otherwise (jitgrad.float32 etc. already exist)
DTYPES = {"float": np.dtype("float32"), "double": np.dtype("float64"),
          "half": np.dtype("float16"), "int": np.dtype("int32"), "long": np.dtype("int64"),
          "short": np.dtype("int16"), "cfloat": np.dtype("complex64"),
          "cdouble": np.dtype("complex128")}

METHODS = {**elementwise_methods.METHODS, **dim_reductions.METHODS, **sorting.METHODS,
           **shape_methods.METHODS, **index_methods.METHODS, **conversion.METHODS,
           **linalg_methods.METHODS, **misc_methods.METHODS}
FUNCTIONS = {**functions.FUNCTIONS, **more_functions.FUNCTIONS, **dim_reductions.FUNCTIONS}


def _boundary(table):
    """Functions wrapped so errors point at the user's line (once); the rest as they are."""
    return {name: api_boundary(_unwrapped(fn)) if inspect.isfunction(fn) else fn
            for name, fn in table.items()}


def _unwrapped(fn):
    """fn without an api_boundary it already has (the table's wrapper takes its place)."""
    return fn.__wrapped__ if getattr(fn, "__wrapped_by_api_boundary__", False) else fn


register_methods(_boundary(METHODS))
# with the records' methods; imported directly (not through a lazy method's first use,
# eager/lazy_methods.py), names still pending are dropped by hasattr, which settles them
_ALL = {name: getattr(ArrayOps, name) for name in dir(ArrayOps) if hasattr(ArrayOps, name)}
register_methods(_boundary(inplace.traced_methods(_ALL)))
register_methods(_boundary(inplace.tensor_methods(_ALL)), Tensor)
globals().update(_boundary(FUNCTIONS))
globals().update(DTYPES)
globals().update(LEGACY)

TYPE_OBJECTS = ["dtype", "layout", "strided", "memory_format", "contiguous_format",
                "channels_last", "channels_last_3d", "preserve_format"]
__all__ = sorted([*FUNCTIONS, *DTYPES, *LEGACY, *TYPE_OBJECTS, "Size", "return_types",
                  "Generator", "default_generator"])
