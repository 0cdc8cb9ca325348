"""128-bit vector paths of generated CUDA kernels (issue 30, item 4), written around the scalar
code the generators already emit.

A kernel whose contiguous operands and outputs all share a 4- or 8-byte dtype walks them in groups
of `lanes` = 16 / itemsize elements: one ld.global.v4 (v2 for 8-byte dtypes) per operand, the body
evaluated once per lane, one st.global.v4 per output (codegen/cuda/vector.py's intrinsics). The
path runs only when every vector array's pointer is 16-byte aligned, checked once per thread
before the loop (one uniform branch per launch); the remainder of the group count and unaligned
launches run the scalar loop. All loads of a group are issued before its stores, so nothing waits
behind a store whatever the compiler can prove about aliasing.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...ir.types import is_bool

IMPORT = ("from jitgrad.codegen.cuda.vector import aligned16, load2, load4, store2, store4"
          "  # noqa: F401")


@dataclass(frozen=True)
class VectorPlan:
    lanes: int
    loads: tuple      # body values read as vectors (their array name in kernel.arrays)

    @property
    def suffix(self) -> str:
        return str(self.lanes)


def plan(arrays: dict, outs, n: int) -> VectorPlan | None:
    """The vector plan of a kernel over n elements: `arrays` {value: name} (inputs, constants),
    `outs` the output values. None when no array or an output is not n elements, dtypes differ
    in size, or a dtype is bool (1 byte)."""
    full = [v for v in arrays if v.type.size == n]
    values = list(outs) + full
    if n < 2 or not full or any(v.type.size != n for v in outs):
        return None
    sizes = {np.dtype(v.type.dtype).itemsize for v in values}
    if len(sizes) != 1 or any(is_bool(v.type.dtype) for v in values):
        return None
    (itemsize,) = sizes
    if itemsize not in (4, 8):
        return None
    return VectorPlan(16 // itemsize, tuple(full))


def aligned_check(arrays: dict, outs: dict, vp: VectorPlan) -> str:
    names = [arrays[v] for v in vp.loads] + [o for v in outs for o in outs[v]]
    return " and ".join(f"aligned16({a})" for a in dict.fromkeys(names))


def load_group(buf, arrays: dict, vp: VectorPlan, group: str) -> dict:
    """Emit the group's vector loads; {value: [lane names]}."""
    lanes = {}
    for j, v in enumerate(vp.loads):
        names = [f"x{j}_{k}" for k in range(vp.lanes)]
        buf.writeline(f"{', '.join(names)} = load{vp.suffix}({arrays[v]}, {group})")
        lanes[v] = names
    return lanes


def store_group(buf, outs: dict, vp: VectorPlan, group: str, results: dict) -> None:
    """results: {output value: [lane expressions]}."""
    for v, names in outs.items():
        for o in names:
            buf.writeline(f"store{vp.suffix}({o}, {group}, {', '.join(results[v])})")
