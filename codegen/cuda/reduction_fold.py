"""How every CUDA reduction folds, written once for the jit kernels (codegen/cuda/fused/blocks.py)
and the eager ones (codegen/cuda/kernels.py): the accumulator a value is folded in, the combine
step (the shared reducer semantics of codegen/kernel/reducers.py, rendered by CudaOps), the
warp fold through shuffles and the block fold through shared memory.

A `FoldSlot` is one value each thread holds (an accumulator, an argmax's index); a
`ReductionFold` is the slots combined together and the lines that combine another lane's
(`<name>_o`) into them.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from ...ir.types import is_bool
from ..kernel import reducers
from . import exprs

FULL_MASK = "0xFFFFFFFF"
WARP_STEPS = "(16, 8, 4, 2, 1)"     # log2(WARP) shuffle steps (target.WARP is 32 on every GPU)


def acc_dtype(kind, dtype) -> np.dtype:
    """The accumulator dtype of a `kind` reduction over `dtype` (codegen/kernel/reducers.py, for
    every target), a bool one held as int32 0/1: shuffles and shared memory need a number."""
    acc = reducers.accumulator_dtype(kind, dtype)
    return np.dtype("int32") if is_bool(acc) else acc


def as_acc(acc_dt, dtype, value) -> str:
    """An element of `dtype` as the accumulator's `acc_dt`."""
    return f"np.{acc_dt.name}({value})" if acc_dt != np.dtype(dtype) else value


def combine(kind, acc, v, acc_dt) -> str:
    """acc and v combined by a `kind` reduction, in the accumulator's dtype (numba computes
    int32 arithmetic in int64: wrapped back, as NumPy's int32 sum wraps)."""
    e = exprs.REDUCE_COMBINE[kind](acc, v, acc_dt)
    return f"np.{acc_dt.name}({e})" if acc_dt.kind == "i" else e


def stored(out_dtype, value) -> str:
    """An accumulator as an element of the output (a bool one is held as 0/1)."""
    return f"({value} != 0)" if is_bool(out_dtype) else value


def word_dtype(dtype) -> np.dtype:
    """The dtype a value of `dtype` travels in through shuffles and atomics: an 8/16-bit int as
    int32 (numba shuffles and atomically reads 32/64-bit words only; the round trip is exact)."""
    dtype = np.dtype(dtype)
    return np.dtype("int32") if dtype.kind in "iu" and dtype.itemsize < 4 else dtype


def atomic_read(array, index, dtype, ctx) -> str:
    """array[index] (a partial of `dtype`, stored as word_dtype) read with an atomic, from L2,
    never a stale L1 line: the way a block reads partials other blocks published."""
    word = word_dtype(dtype)
    read = f"cuda.atomic.add({array}, {index}, {ctx.const(0, word)})"
    return read if word == np.dtype(dtype) else f"np.{np.dtype(dtype).name}({read})"


def shuffle_down(value, dtype) -> str:
    """`value` (of `dtype`) from the lane `offset` below, as cuda.shfl_down_sync gives it. numba
    shuffles 32/64-bit signed ints and floats only, so an 8/16-bit int travels as an int32 and
    an unsigned value (a uint64 sum) as its signed twin: the same bits."""
    dtype = np.dtype(dtype)
    if word_dtype(dtype) != dtype:
        word = f"np.int32({value})"
        return f"np.{dtype.name}(cuda.shfl_down_sync({FULL_MASK}, {word}, offset))"
    if dtype.kind == "u":
        twin = f"np.int{dtype.itemsize * 8}({value})"
        return f"np.{dtype.name}(cuda.shfl_down_sync({FULL_MASK}, {twin}, offset))"
    return f"cuda.shfl_down_sync({FULL_MASK}, {value}, offset)"


@dataclass(frozen=True)
class FoldSlot:
    name: str           # the thread's variable
    dtype: np.dtype
    shared: str         # the shared array of the warps' partials
    identity: str       # the value of a warp with nothing to give


@dataclass(frozen=True)
class ReductionFold:
    slots: tuple
    combine: Callable   # combine(buf): fold <name>_o of each slot into <name>


def plain(kind, acc, acc_dt, shared, identity) -> ReductionFold:
    """The fold of one sum/prod/max/min accumulator."""
    return ReductionFold((FoldSlot(acc, acc_dt, shared, identity),),
                         lambda buf: buf.writeline(f"{acc} = {combine(kind, acc, acc + '_o', acc_dt)}"))


def arg(kind, dtype, identity, acc="acc", at="at") -> ReductionFold:
    """The fold of an argmax/argmin's (value, index) pair: the other lane's pair wins if strictly
    better, or equal with a smaller index; index -1 marks a lane that saw no element (its value,
    `identity` of the value's dtype, is then ignored)."""
    def step(buf):
        better = exprs.arg_better(f"{acc}_o", acc, kind, dtype)
        same = exprs.arg_tie(f"{acc}_o", acc, dtype)
        with buf.indent(f"if {at}_o >= 0 and ({at} < 0 or {better} or ({same} and "
                        f"{at}_o < {at})):"):
            buf.writeline(f"{acc} = {acc}_o")
            buf.writeline(f"{at} = {at}_o")
    return ReductionFold((FoldSlot(acc, np.dtype(dtype), f"warp_{acc}", identity),
                          FoldSlot(at, np.dtype("int64"), f"warp_{at}", "int64(-1)")), step)


def warp_fold(buf, folds):
    """Fold the 32 lanes of each warp into its lane 0. Every lane shuffles exactly once per step,
    outside conditionals."""
    with buf.indent(f"for offset in {WARP_STEPS}:"):
        for f in folds:
            for s in f.slots:
                buf.writeline(f"{s.name}_o = {shuffle_down(s.name, s.dtype)}")
            f.combine(buf)


def block_fold(buf, folds, at_lane0):
    """Fold every thread's slots (lane, warp and WARPS named in the kernel); at_lane0() then
    runs in thread 0 with the block's results in the slots."""
    warp_fold(buf, folds)
    slots = [s for f in folds for s in f.slots]
    with buf.indent("if lane == 0:"):
        for s in slots:
            buf.writeline(f"{s.shared}[warp] = {s.name}")
    buf.writeline("cuda.syncthreads()")
    with buf.indent("if warp == 0:"):
        for s in slots:
            buf.writeline(f"{s.name} = {s.shared}[lane] if lane < WARPS else {s.identity}")
        warp_fold(buf, folds)
        with buf.indent("if lane == 0:"):
            at_lane0()
