"""BatchEmitter: the autodiff Emitter plus the batch size and the two moves every batching rule
is written with.

Invariant of the transformation: a batched value carries the batch axis FIRST, so a value of
per-example type T[s...] appears as T[B, s...]. `batched` turns an unbatched value into a
batched one (broadcast); `lift` reshapes a batched value so that, under NumPy's right-aligned
broadcasting, its batch axis lines up with position 0 of a rank-`rank`+1 result.
"""
from __future__ import annotations

from ..autodiff.emitter import Emitter


class BatchEmitter(Emitter):
    def __init__(self, builder, size: int):
        super().__init__(builder)
        self.size = int(size)

    def batched(self, v, is_batched: bool):
        """`v` as a batched value: broadcast along a new leading axis when it is not one."""
        return v if is_batched else self.broadcast_to(v, (self.size,) + v.type.shape)

    def lift(self, v, is_batched: bool, rank: int):
        """A batched `v` (per-example rank r <= rank) reshaped to [B, 1 * (rank - r), s...];
        an unbatched one is returned as is (it broadcasts from the right)."""
        if not is_batched:
            return v
        inner = v.type.shape[1:]
        return self.reshape(v, (self.size,) + (1,) * (rank - len(inner)) + inner)

    def move_axis(self, v, src: int, dst: int):
        perm = [i for i in range(v.type.ndim) if i != src]
        perm.insert(dst, src)
        return self.transpose(v, perm)
