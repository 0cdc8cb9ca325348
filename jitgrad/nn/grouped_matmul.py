"""torch.nn.functional.grouped_mm (torch 2.8+): one matrix product per group, the groups either a
leading dimension of both operands (3-D @ 3-D) or jagged slices delimited by `offs` (offs[i]
ends group i) of a 2-D operand's dimension:

    2-D (M, K) @ 3-D (G, K, N)  -> (M, N):    rows of group g times mat_b[g]
    3-D (G, M, K) @ 2-D (K, N)  -> (M, N):    columns of group g from mat_a[g]
    2-D (M, K) @ 2-D (K, N)     -> (G, M, N): the product over group g's slice of K

Entries past offs[-1] are zero (torch leaves them unwritten). Every group's product is computed
and the group's own one kept (the offsets are traced values, the shapes are not), so eager, jit,
grad and vmap all get it. Any float dtype is accepted (torch's kernels take float32 / 16-bit);
`bias` is refused as torch's kernels do.
"""
from __future__ import annotations

import numpy as np

from .. import numpy as jnp


def _group_of(n, offs):
    """(n,) int: the group of each position 0..n-1 (len(offs) past the last offset)."""
    return jnp.sum(jnp.greater_equal(np.arange(n)[:, None], jnp.asarray(offs)[None, :]), axis=1)


def _check(a, b, offs, where):
    if a.ndim not in (2, 3) or b.ndim not in (2, 3):
        raise ValueError(f"{where}: mat_a and mat_b must be 2-D or 3-D, got shapes "
                         f"{tuple(a.shape)} and {tuple(b.shape)}")
    if a.shape[-1] != b.shape[-2]:
        raise ValueError(f"{where}: mat_a's last dimension {a.shape[-1]} does not match mat_b's "
                         f"contracted dimension {b.shape[-2]} (shapes {tuple(a.shape)} and "
                         f"{tuple(b.shape)})")
    if (a.ndim == 3 and b.ndim == 3) != (offs is None):
        raise ValueError(f"{where}: offs must be given exactly when an operand is 2-D (shapes "
                         f"{tuple(a.shape)} and {tuple(b.shape)})")
    if offs is not None:
        o = jnp.asarray(offs)
        if o.ndim != 1 or str(o.dtype) not in ("int32", "int64"):
            raise TypeError(f"{where}: offs must be a 1-D int32 tensor, got {o.dtype} of shape "
                            f"{tuple(o.shape)}")
        want = [s[0] for s in (a.shape, b.shape) if len(s) == 3]
        if want and want[0] != o.shape[0]:
            raise ValueError(f"{where}: offs has {o.shape[0]} groups, the 3-D operand {want[0]}")


def grouped_mm(mat_a, mat_b, *, offs=None, bias=None, out_dtype=None):
    """torch.nn.functional.grouped_mm: see the module docstring."""
    where = "grouped_mm"
    a, b = jnp.asarray(mat_a), jnp.asarray(mat_b)
    if bias is not None:
        raise NotImplementedError(f"{where}: bias is not supported (torch's kernels refuse it "
                                  "too); add it to the result")
    _check(a, b, offs, where)
    if a.ndim == 3 and b.ndim == 3:
        out = jnp.matmul(a, b)
    elif b.ndim == 3:           # rows of mat_a in groups
        full = jnp.einsum("mk,gkn->mgn", a, b)
        g = _group_of(a.shape[0], offs)
        pick = jnp.take_along_axis(full, jnp.minimum(g, b.shape[0] - 1)[:, None, None], axis=1)
        out = jnp.where(jnp.less(g, b.shape[0])[:, None], pick[:, 0], 0)
    elif a.ndim == 3:           # columns of mat_b in groups
        full = jnp.einsum("gmk,kn->gmn", a, b)
        g = _group_of(b.shape[1], offs)
        pick = jnp.take_along_axis(full, jnp.minimum(g, a.shape[0] - 1)[None, None, :], axis=0)
        out = jnp.where(jnp.less(g, a.shape[0])[None, :], pick[0], 0)
    else:                       # the contracted dimension in groups
        groups = jnp.asarray(offs).shape[0]
        mask = jnp.equal(_group_of(a.shape[1], offs)[None, :], np.arange(groups)[:, None])
        out = jnp.einsum("mk,gk,kn->gmn", a, mask.astype(a.dtype), b)
    return out if out_dtype is None else out.astype(out_dtype)
