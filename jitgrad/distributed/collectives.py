"""allreduce, broadcast, allgather and barrier over pytrees, bucketed into few MPI messages.

Every call first checks, with one 16-byte allreduce, that all ranks pass the same structure
(leaf paths, dtypes, shapes) to the same collective; on a mismatch every rank raises a
DistributedError naming the first leaf that differs on each rank, instead of MPI reducing
misaligned buffers or waiting forever. Leaves then travel in buckets of up to `bucket_bytes`
(allreduce groups them by dtype), one MPI call per bucket: several small leaves are packed
into a reused staging buffer; a leaf that fills a bucket alone is reduced in its own storage.
With one process every call returns its input.
"""
from __future__ import annotations

import hashlib

import numpy as np

from .. import tree_util
from .leaves import describe, host_leaves
from .world import DistributedError, comm
from ..ir.types import kind_of

BUCKET_BYTES = 64 << 20   # as Horovod's tensor fusion threshold

# op -> (MPI op name for numbers, MPI op name for bools, whether to divide by the world size)
_OPS = {
    "sum": ("SUM", "MAX", False),
    "mean": ("SUM", None, True),
    "max": ("MAX", "MAX", False),
    "min": ("MIN", "MIN", False),
}


def allreduce(tree, op: str = "mean", *, inplace: bool = True,
              bucket_bytes: int = BUCKET_BYTES):
    """Reduce every leaf of `tree` elementwise across ranks: "mean" (the default, for
    gradients), "sum", "max" or "min". Returns a tree of the same structure and leaf kinds.

    As torch.distributed.all_reduce, the result is written into each leaf's own storage where
    there is one (CPU tensors, writable C-contiguous NumPy arrays), and that leaf is returned;
    numbers and other leaves come back as new values. `inplace=False` leaves the inputs
    untouched and returns new arrays.

    >>> grads = jg.distributed.allreduce(grads)            # averaged over all ranks
    """
    where = "jg.distributed.allreduce"
    if op not in _OPS:
        raise ValueError(f"{where}: op must be one of {', '.join(map(repr, _OPS))}, got {op!r}")
    leaves, treedef, paths = host_leaves(tree, where)
    arrays = [leaf.array for leaf in leaves]
    number_op, bool_op, divide = _OPS[op]
    for a, path in zip(arrays, paths):
        if divide and kind_of(a.dtype) not in "fc":
            raise TypeError(f"{where}: op='mean' needs floating-point leaves, but the leaf at "
                            f"{path} is {a.dtype}; cast it to a float dtype or use op='sum'")
    c = comm()
    if c is None or c.Get_size() == 1:
        return tree
    _check_same(c, f"allreduce(op={op!r})", describe(paths, arrays))
    from mpi4py import MPI  # lazy: an optional dependency, loaded only with more than one rank
    world = c.Get_size()
    dests = _destinations(leaves, inplace)
    wire = [_flat(a) for a in arrays]
    wire_dests = [_flat(d) for d in dests]
    for bucket in _buckets(wire, bucket_bytes, by_dtype=True):
        mpi_op = getattr(MPI, bool_op if arrays[bucket[0]].dtype == np.bool_ else number_op)
        if len(bucket) == 1:
            (i,) = bucket
            buf = wire_dests[i]
            c.Allreduce(MPI.IN_PLACE if dests[i] is arrays[i] else wire[i], buf, op=mpi_op)
        else:
            buf = _staging(wire[bucket[0]].dtype, sum(wire[i].size for i in bucket))
            np.concatenate([wire[i] for i in bucket], out=buf)
            c.Allreduce(MPI.IN_PLACE, buf, op=mpi_op)
        if divide:
            np.divide(buf, world, out=buf)
        if len(bucket) > 1:
            _unpack(buf, bucket, wire_dests)
    return tree_util.tree_unflatten(treedef, [lf.result(d) for lf, d in zip(leaves, dests)])


def broadcast(tree, root: int = 0, *, inplace: bool = True,
              bucket_bytes: int = BUCKET_BYTES):
    """Every rank gets `root`'s leaves; all ranks pass a tree of the same structure, shapes
    and dtypes (as torch.distributed.broadcast), e.g. freshly initialized parameters. Like
    allreduce, results go into the leaves' own storage where there is one, unless
    `inplace=False`.

    >>> params = jg.distributed.broadcast(params)          # all ranks start equal
    """
    where = "jg.distributed.broadcast"
    world = 1 if comm() is None else comm().Get_size()
    if not (isinstance(root, (int, np.integer)) and not isinstance(root, bool)
            and 0 <= root < world):
        raise ValueError(f"{where}: root must be a rank in 0..{world - 1}, got {root!r}")
    leaves, treedef, paths = host_leaves(tree, where)
    arrays = [leaf.array for leaf in leaves]
    if world == 1:
        return tree
    c = comm()
    _check_same(c, f"broadcast(root={root})", describe(paths, arrays))
    is_root = c.Get_rank() == root
    dests = _destinations(leaves, inplace)
    data = [_flat(a).view(np.uint8) for a in arrays]
    byte_dests = [_flat(d).view(np.uint8) for d in dests]
    if is_root:
        for src, dst in zip(data, byte_dests):
            if dst is not src:
                np.copyto(dst, src)
    for bucket in _buckets(data, bucket_bytes, by_dtype=False):
        if len(bucket) == 1:
            c.Bcast(byte_dests[bucket[0]], root=root)
            continue
        buf = _staging(np.dtype(np.uint8), sum(data[i].size for i in bucket))
        if is_root:
            np.concatenate([data[i] for i in bucket], out=buf)
        c.Bcast(buf, root=root)
        if not is_root:
            _unpack(buf, bucket, byte_dests)
    return tree_util.tree_unflatten(treedef, [lf.result(d) for lf, d in zip(leaves, dests)])


def allgather(tree, *, bucket_bytes: int = BUCKET_BYTES):
    """Every leaf stacked over the ranks: a leaf of shape S becomes (world_size, *S), row r
    holding rank r's value (as jax.lax.all_gather). All ranks pass the same structure.

    >>> losses = jg.distributed.allgather(loss)            # shape (world_size,)
    """
    where = "jg.distributed.allgather"
    leaves, treedef, paths = host_leaves(tree, where)
    arrays = [leaf.array for leaf in leaves]
    c = comm()
    world = 1 if c is None else c.Get_size()
    if world > 1:
        _check_same(c, "allgather", describe(paths, arrays))
    data = [_flat(a).view(np.uint8) for a in arrays]
    results = [None] * len(arrays)
    for bucket in _buckets(data, max(1, bucket_bytes // world), by_dtype=False):
        send = np.concatenate([data[i] for i in bucket])
        recv = np.empty((world, send.size), np.uint8)
        if world > 1:
            c.Allgather(send, recv)
        else:
            recv[0] = send
        _unpack_gathered(recv, bucket, arrays, results)
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


def _destinations(leaves, inplace: bool) -> list[np.ndarray]:
    """Where each leaf's result goes: its own storage (in place) or a new array."""
    return [lf.array if inplace and lf.own is not None else np.empty_like(lf.array)
            for lf in leaves]


def _flat(a: np.ndarray) -> np.ndarray:
    """A 1-d view of contiguous `a`, bools as uint8 (MPI reduces bytes, not C bools)."""
    flat = a.reshape(-1)
    return flat.view(np.uint8) if a.dtype == np.bool_ else flat


_STAGING: dict = {}   # dtype -> the reusable buffer that buckets of several leaves are packed in


def _staging(dtype: np.dtype, size: int) -> np.ndarray:
    """A 1-d buffer of `size` elements, reused across calls: no page faults per call (as
    Horovod's fusion buffer); it grows to the largest bucket seen, at most bucket_bytes."""
    buf = _STAGING.get(dtype.str)
    if buf is None or buf.size < size:
        buf = _STAGING[dtype.str] = np.empty(size, dtype)
    return buf[:size]


def _unpack(buf, bucket, dests) -> None:
    """Copy consecutive pieces of 1-d `buf` into the 1-d `dests` of the bucket's leaves."""
    offset = 0
    for i in bucket:
        n = dests[i].size
        np.copyto(dests[i], buf[offset:offset + n])
        offset += n


def _unpack_gathered(recv, bucket, arrays, results) -> None:
    """Cut each leaf's bytes out of every rank's row of `recv` (world, bucket bytes)."""
    offset = 0
    for i in bucket:
        n = arrays[i].nbytes
        results[i] = np.ascontiguousarray(recv[:, offset:offset + n]).view(arrays[i].dtype)
        offset += n


def _checksum(text: str) -> int:
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little") >> 2


def _check_same(c, call: str, text: str) -> None:
    """Raise DistributedError on every rank unless all ranks call `call` on the same structure
    (compared by a 62-bit checksum: max and -min reduced in one 16-byte message)."""
    from mpi4py import MPI  # lazy: an optional dependency, loaded only with more than one rank
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
