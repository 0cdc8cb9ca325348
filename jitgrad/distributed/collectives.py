"""allreduce, broadcast, allgather and barrier over pytrees, bucketed into few MPI messages.

Every call first checks, with one 16-byte allreduce, that all ranks pass the same structure
(leaf paths, dtypes, shapes) to the same collective; on a mismatch every rank raises a
DistributedError naming the first leaf that differs on each rank, instead of MPI reducing
misaligned buffers or waiting forever. Leaves then travel in buckets of up to `bucket_bytes`:
allreduce groups them by dtype (one MPI call per bucket, reduced in place in the packed
buffer); a leaf that fills a bucket alone goes straight from its own buffer, unpacked.
Results never alias the inputs, except with one process, where every call returns its input.
"""
from __future__ import annotations

import hashlib

import numpy as np

from .. import tree_util
from .leaves import describe, host_leaves
from .world import DistributedError, comm

BUCKET_BYTES = 64 << 20   # as Horovod's tensor fusion threshold

# op -> (MPI op name for numbers, MPI op name for bools, whether to divide by the world size)
_OPS = {
    "sum": ("SUM", "MAX", False),
    "mean": ("SUM", None, True),
    "max": ("MAX", "MAX", False),
    "min": ("MIN", "MIN", False),
}


def allreduce(tree, op: str = "mean", *, bucket_bytes: int = BUCKET_BYTES):
    """Reduce every leaf of `tree` elementwise across ranks: "mean" (the default, for
    gradients), "sum", "max" or "min". Returns a tree of the same structure and leaf kinds.

    >>> grads = jg.distributed.allreduce(grads)            # averaged over all ranks
    """
    where = "jg.distributed.allreduce"
    if op not in _OPS:
        raise ValueError(f"{where}: op must be one of {', '.join(map(repr, _OPS))}, got {op!r}")
    leaves, treedef, paths = host_leaves(tree, where)
    arrays = [leaf.array for leaf in leaves]
    number_op, bool_op, divide = _OPS[op]
    for a, path in zip(arrays, paths):
        if divide and a.dtype.kind not in "fc":
            raise TypeError(f"{where}: op='mean' needs floating-point leaves, but the leaf at "
                            f"{path} is {a.dtype}; cast it to a float dtype or use op='sum'")
    c = comm()
    if c is None or c.Get_size() == 1:
        return tree
    _check_same(c, f"allreduce(op={op!r})", describe(treedef, arrays))
    from mpi4py import MPI
    world = c.Get_size()
    results = [None] * len(arrays)
    wire = [a.view(np.uint8) if a.dtype == np.bool_ else a for a in arrays]
    for bucket in _buckets(wire, bucket_bytes, by_dtype=True):
        mpi_op = getattr(MPI, bool_op if arrays[bucket[0]].dtype == np.bool_ else number_op)
        if len(bucket) == 1:
            send = wire[bucket[0]].reshape(-1)
            buf = np.empty_like(send)
            c.Allreduce(send, buf, op=mpi_op)
        else:
            buf = np.concatenate([wire[i].reshape(-1) for i in bucket])
            c.Allreduce(MPI.IN_PLACE, buf, op=mpi_op)
        if divide:
            np.divide(buf, world, out=buf)
        _unpack(buf, bucket, arrays, results, lambda part, a: part.view(a.dtype))
    return tree_util.tree_unflatten(treedef, [lf.rebuild(r) for lf, r in zip(leaves, results)])


def broadcast(tree, root: int = 0, *, bucket_bytes: int = BUCKET_BYTES):
    """Every rank gets `root`'s leaves; all ranks pass a tree of the same structure, shapes
    and dtypes (as torch.distributed.broadcast), e.g. freshly initialized parameters.

    >>> params = jg.distributed.broadcast(params)          # all ranks start equal
    """
    where = "jg.distributed.broadcast"
    world = 1 if comm() is None else comm().Get_size()
    if not (isinstance(root, (int, np.integer)) and not isinstance(root, bool)
            and 0 <= root < world):
        raise ValueError(f"{where}: root must be a rank in 0..{world - 1}, got {root!r}")
    leaves, treedef, _ = host_leaves(tree, where)
    arrays = [leaf.array for leaf in leaves]
    if world == 1:
        return tree
    c = comm()
    _check_same(c, f"broadcast(root={root})", describe(treedef, arrays))
    data = [a.reshape(-1).view(np.uint8) for a in arrays]
    results = [None] * len(arrays)
    for bucket in _buckets(data, bucket_bytes, by_dtype=False):
        buf = np.concatenate([data[i] for i in bucket]) if len(bucket) > 1 else data[bucket[0]].copy()
        c.Bcast(buf, root=root)
        _unpack(buf, bucket, arrays, results, lambda part, a: part.view(a.dtype))
    return tree_util.tree_unflatten(treedef, [lf.rebuild(r) for lf, r in zip(leaves, results)])


def allgather(tree, *, bucket_bytes: int = BUCKET_BYTES):
    """Every leaf stacked over the ranks: a leaf of shape S becomes (world_size, *S), row r
    holding rank r's value (as jax.lax.all_gather). All ranks pass the same structure.

    >>> losses = jg.distributed.allgather(loss)            # shape (world_size,)
    """
    where = "jg.distributed.allgather"
    leaves, treedef, _ = host_leaves(tree, where)
    arrays = [leaf.array for leaf in leaves]
    c = comm()
    world = 1 if c is None else c.Get_size()
    if world > 1:
        _check_same(c, "allgather", describe(treedef, arrays))
    data = [a.reshape(-1).view(np.uint8) for a in arrays]
    results = [None] * len(arrays)
    for bucket in _buckets(data, max(1, bucket_bytes // world), by_dtype=False):
        send = np.concatenate([data[i] for i in bucket])
        recv = np.empty((world, send.size), np.uint8)
        if world > 1:
            c.Allgather(send, recv)
        else:
            recv[0] = send
        _unpack(recv, bucket, arrays, results,
                lambda part, a: np.ascontiguousarray(part).view(a.dtype))
    stacked = [r.reshape((world,) + a.shape) for r, a in zip(results, arrays)]
    return tree_util.tree_unflatten(treedef, [lf.rebuild(r) for lf, r in zip(leaves, stacked)])


def barrier() -> None:
    """Wait until every rank has called barrier()."""
    c = comm()
    if c is not None and c.Get_size() > 1:
        _check_same(c, "barrier", "barrier")   # an allreduce: no rank leaves before all arrive


# ---------------------------------------------------------------------------------- helpers

def _buckets(arrays, bucket_bytes: int, by_dtype: bool) -> list[list[int]]:
    """Leaf indices grouped into buckets of at most bucket_bytes (a bigger leaf goes alone),
    per dtype when by_dtype, in an order that depends only on the leaves' dtypes and sizes."""
    groups: dict = {}
    for i, a in enumerate(arrays):
        groups.setdefault(a.dtype.str if by_dtype else "", []).append(i)
    buckets = []
    for members in groups.values():
        current, size = [], 0
        for i in members:
            n = arrays[i].nbytes
            if current and size + n > bucket_bytes:
                buckets.append(current)
                current, size = [], 0
            current.append(i)
            size += n
        buckets.append(current)
    return [b for b in buckets if b]


def _unpack(buf, bucket, arrays, results, view) -> None:
    """Slice each leaf of `bucket` out of the last axis of `buf` (elements of the bucket's wire
    dtype, or bytes), viewed with `view(part, leaf)` as the leaf's dtype."""
    offset = 0
    for i in bucket:
        count = arrays[i].nbytes // buf.itemsize
        part = buf[..., offset:offset + count]
        offset += count
        results[i] = view(part, arrays[i]).reshape(arrays[i].shape if buf.ndim == 1 else -1)


def _checksum(text: str) -> int:
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little") >> 2


def _check_same(c, call: str, text: str) -> None:
    """Raise DistributedError on every rank unless all ranks call `call` on the same structure
    (compared by a 62-bit checksum: max and -min reduced in one 16-byte message)."""
    from mpi4py import MPI
    h = _checksum(f"{call}: {text}")
    bounds = np.array([h, -h], np.int64)
    c.Allreduce(MPI.IN_PLACE, bounds, op=MPI.MAX)
    if bounds[0] == -bounds[1]:
        return
    texts = c.allgather(f"{call} with {text}")   # every rank got here: it saw the mismatch too
    entries = [t.split("; ") for t in texts]
    first = next((k for k in range(max(map(len, entries)))
                  if len({e[k] if k < len(e) else "nothing" for e in entries}) > 1), 0)
    lines = "\n".join(
        f"  rank {r}: {e[first] if first < len(e) else '(no leaf there)'}   "
        f"({len(e)} leaves{', this rank' if r == c.Get_rank() else ''})"
        for r, e in enumerate(entries))
    raise DistributedError(
        f"jg.distributed.{call.split('(')[0]}: ranks passed different pytrees (or called "
        f"different collectives); all ranks must pass the same structure, shapes and dtypes. "
        f"First difference:\n{lines}")
