"""The eager CPU backend: which function computes an op on NumPy arrays.

`ir.reference.evaluate` (an op's NumPy reference, results cast to the type rule's dtypes) for
every op, except where eager mode knows a faster way with the same semantics:
  - erf and sigmoid on float32/float64: the jit path's compiled kernels (compiled_ops.py),
  - matmul of a stack by one matrix: one folded GEMM; tanh and expm1 on real floats: the
    NumPy ufunc directly (numpy_forms.py); NumPy's BLAS runs on the runtime's num_threads.
`eager_reference(op, dtype)` is the function the eager fast path (fast_path.py) files for an op
whose dtypes NumPy computes natively; `cpu_evaluate` is the backend of the generic path
(dispatch.py), so a signature's first call and its later ones run the same function.
"""
from __future__ import annotations

import numpy as np

from ..ir.reference import evaluate
from ..ir.registry import REFERENCE
from ..runtime.blas_threads import follow_runtime
from .compiled_ops import FLOATS, SLOW_IN_NUMPY, compiled_reference, run_chunked
from .numpy_forms import FORMS, REAL_FORMS

# dtypes NumPy computes in natively (the eager fast path's condition for a direct call)
NATIVE = frozenset(np.dtype(d) for d in ("float32", "float64", "int32", "int64", "bool",
                                         "complex64", "complex128"))

# eager matmuls (np.matmul) run on at most the runtime's number of threads, small ones on one
# (runtime/blas_threads.py)
follow_runtime()


def eager_reference(op, dtype):
    """fn(*arrays) computing op eagerly on arrays whose first input has `dtype` (NumPy-native
    dtypes only), or None when op has no NumPy reference."""
    return compiled_reference(op, dtype) or FORMS.get(op) or \
        (REAL_FORMS.get(op) if dtype in FLOATS else None) or REFERENCE.get(op)


def cpu_evaluate(op, arrays, params, types):
    """ir.reference.evaluate, with the faster forms of `eager_reference` where they apply."""
    if op in SLOW_IN_NUMPY and len(arrays) == 1:
        x = np.asarray(arrays[0])
        if x.dtype in FLOATS and types[0].dtype == x.dtype:
            return [run_chunked(op, x)]
    form = FORMS.get(op)
    if form is not None and not params and len(types) == 1 and all(
            type(a) is np.ndarray and a.dtype in NATIVE for a in arrays):
        r = form(*arrays)
        return [r if r.dtype == types[0].dtype else r.astype(types[0].dtype)]
    return evaluate(op, arrays, params, types)
