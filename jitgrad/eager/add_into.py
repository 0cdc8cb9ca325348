"""`add_into(a, b)`: a + b written into the storage of `a`, for a caller that just made `a` and
drops it (nn.functional.linear: the bias added to the product x @ W.T).

PyTorch's addmm adds the bias inside its GEMM; NumPy's matmul cannot, so an eager Linear's bias
is a second pass over the product. Writing that pass into the product's own storage, instead
of a fresh array of the same size, saves the allocation and keeps the data in cache: the eager
GPT forward's 17 Linears ran 0.9 ms faster (of ~19 ms).

It is recorded as the same `add` as `jnp.add(a, b)` (the same graph, the same gradients): add's
VJP reads no input value, so the Record that holds `a`'s storage (now the sum) is never read for
one. For anything else add_into returns None and the caller computes `jnp.add(a, b)`: traced
values, other devices, a `b` that broadcasts `a` to a larger shape or promotes its dtype,
non-float dtypes, an `a` with views or sharing memory with `b`, and jg.profiler's eager timing
(the add is then an event of its own).

`matmul_add(x, w_t, b)` goes one step further where the product runs on the runtime's pool
(pool_gemm.py, two threads or more): each block of x @ w_t starts from the bias rows and BLAS
adds its product into them (torch.addmm: beta = 1), so the bias costs no pass of its own. It is
recorded as `jnp.matmul` then `jnp.add` would record it (the product's tensor and the sum share
the storage, as above); where it does not fit it returns None and the caller takes that path.
"""
from __future__ import annotations

import numpy as np

from ..ir.ops import Op
from . import autograd_record
from .cpu_backend import cpu_evaluate
from .dispatch import EAGER_BACKENDS
from .fast_path import quiet_context
from .pool_gemm import pool_matmul
from .grad_mode import STATE
from .tensor import Tensor

_ndarray = np.ndarray


def add_into(a, b):
    """a + b computed into a's storage, or None when it does not fit (see the module's doc).
    The caller promises that nothing else reads `a` (a result it made and does not keep)."""
    if not _fits(a, b):
        return None
    d = a._data
    quiet_context().run(np.add, d, b._data, d)
    out = Tensor._wrap(d, a._device)
    if STATE.grad_enabled and (a.requires_grad or b.requires_grad):
        autograd_record.record_pair(Op.add, a, b, out)
    return out


def matmul_add(x, w_t, b):
    """x @ w_t + b as one pool GEMM writing the bias (x (..., K) C-ordered, w_t (K, N), b (N,)),
    recorded as matmul then add; None when it does not fit (see the module's doc)."""
    if not (_fits(w_t, b, own=False) and _fits(x, b, own=False)) or w_t._data.ndim != 2 \
            or x._data.ndim < 2 or x._data.shape[-1] != w_t._data.shape[0]:
        return None
    dx = x._data
    if dx.ndim > 2 and not dx.flags.c_contiguous or dx.size == 0 or w_t._data.size == 0:
        return None         # (an empty product: the plain path's zeros)
    d = pool_matmul(dx.reshape(-1, dx.shape[-1]), w_t._data, b._data)
    if d is None:
        return None
    d = d.reshape(dx.shape[:-1] + d.shape[-1:])
    y, out = Tensor._wrap(d, x._device), Tensor._wrap(d, x._device)
    if STATE.grad_enabled and (x.requires_grad or w_t.requires_grad or b.requires_grad):
        if x.requires_grad or w_t.requires_grad:
            autograd_record.record_pair(Op.matmul, x, w_t, y)
        autograd_record.record_pair(Op.add, y, b, out)
    return out


def _fits(a, b, own=True) -> bool:
    if type(a) is not Tensor or not isinstance(b, Tensor):
        return False
    da, db = a._data, b._data
    if type(da) is not _ndarray or type(db) is not _ndarray or a._device is not b._device \
            or a._device.type != "cpu" or EAGER_BACKENDS["cpu"] is not cpu_evaluate:
        return False
    if da.dtype != db.dtype or da.dtype.kind != "f" or db.ndim > da.ndim \
            or own and da.shape[da.ndim - db.ndim:] != db.shape:
        return False
    return not own or da.flags.writeable and a._base is None and a._views is None and \
        not np.may_share_memory(da, db)
