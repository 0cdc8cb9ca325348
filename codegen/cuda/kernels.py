"""Kernel generators for the CUDA backend, one per kernel shape.

Conventions shared by every kernel: arrays are passed flat (1-D, C-contiguous) and indexed with
explicit int64 strides, which lets one kernel per (op, dtypes, rank) serve every shape and
broadcast pattern (a broadcast axis has stride 0). The elementwise and copy kernels walk a Space
whose extents and operand strides are those arguments (codegen/kernel/space.py: the unravel and
offset rule of the jit kernels, which bake them in as constants). Loops over elements are
grid-stride loops, so any grid size is correct and the launcher picks one for occupancy.

  elementwise   out[i] = f(a[...], b[...]) over a rank-r index space, strided operands
  copy          out[ooff + i.ostrides] = a[aoff + i.astrides]: transpose, broadcast, slice, rev,
                concatenate and pad pieces are all this one kernel
  fill          out[i] = value
  (reductions: the jit's generators, codegen/cuda/eager_reduce.py)
  scan/sort     one thread per row (cumsum, stable insertion sort, argsort)
  take/scatter  gathers along one axis; scatter_add with atomics
  matmul        one thread per output (small) or shared-memory tiles of up to 64 x 64 outputs
                (codegen/cuda/tiles.py: tensor cores for float32, FFMA registers else; shared
                with the fused generator)
"""
from __future__ import annotations

import numpy as np

from ...ir.ops import Op
from ...ir.types import is_bool, is_float
from ..kernel.buffer import CSE, IndentedBuffer
from ..kernel.space import at, flat_space
from . import exprs
from . import target
from . import tiles as TL
from .source import NUMBA_TYPE, CudaKernelSource, module_text, short

WARP = target.WARP
I64 = "int64"


def _arr(dtype) -> str:
    return f"{NUMBA_TYPE[np.dtype(dtype)]}[::1]"


def grid_stride(buf, n="n"):
    buf.writeline("i = cuda.grid(1)")
    buf.writeline("step = cuda.gridsize(1)")
    return buf.indent(f"while i < {n}:")


def runtime_space(extents, cse, index="i"):
    """An eager kernel's space walked by flat `index`, its `extents` parameter names (the first is
    never read: unravelling needs only the inner ones), indices unravelled by the jit kernels'
    rule (codegen/kernel/space.flat_space)."""
    return flat_space(tuple(extents), index, cse)


def _finish(name, comment, ctx, buf, arg_types, extra=()) -> CudaKernelSource:
    text = module_text(comment, ctx.prologue() if ctx else [], buf.lines, extra)
    return CudaKernelSource(name, text, tuple(arg_types))


# ----------------------------------------------------------------------------- elementwise

def elementwise(name, comment, in_dtypes, out_dtypes, rank, body) -> CudaKernelSource:
    """out_k[i] = body(ctx, cse, loads)[k] over a rank-`rank` index space.

    Parameters: outputs, inputs, n, d1..d{rank-1}, then each input's strides s{j}_0..s{j}_{rank-1}.
    `body(ctx, cse, loads, in_dtypes)` returns one expression per output."""
    ctx = exprs.ExprContext()
    outs = [f"o{k}" for k in range(len(out_dtypes))]
    ins = [f"a{j}" for j in range(len(in_dtypes))]
    extents = [f"d{k}" for k in range(rank)]
    dims = extents[1:]                      # d0 is never read
    strides = [[f"s{j}_{k}" for k in range(rank)] for j in range(len(in_dtypes))]
    params = outs + ins + ["n"] + dims + [s for ss in strides for s in ss]
    buf = IndentedBuffer()
    with buf.indent(f"def {name}({', '.join(params)}):"):
        with grid_stride(buf):
            cse = CSE(buf, "t")
            space = runtime_space(extents, cse)
            loads = [cse.get(f"{a}[{at(space.strided(s))}]") for a, s in zip(ins, strides)]
            for o, expr in zip(outs, body(ctx, cse, loads, in_dtypes)):
                buf.writeline(f"{o}[i] = {expr}")
            buf.writeline("i += step")
    types = [_arr(d) for d in out_dtypes] + [_arr(d) for d in in_dtypes] + \
        [I64] * (1 + len(dims) + rank * len(in_dtypes))
    return _finish(name, comment, ctx, buf, types)


def op_body(op, params, out_dtype):
    """The elementwise body of one primitive (eager mode)."""
    def body(ctx, cse, loads, in_dtypes):
        return [exprs.scalar_expr(ctx, op, loads, list(in_dtypes), out_dtype, params)]
    return body


def elementwise_op(op, params, in_dtypes, out_dtype, rank) -> CudaKernelSource:
    tag = "_".join(short(d) for d in in_dtypes)
    extra = f"_{short(params['dtype'])}" if op is Op.convert else ""
    name = f"ew_{op.value}_{tag}{extra}_r{rank}"
    return elementwise(name, f"eager {op.value}: {tag} -> {short(out_dtype)}, rank {rank}",
                       in_dtypes, [out_dtype], rank, op_body(op, params, out_dtype))


# ----------------------------------------------------------------------------- data movement

def copy(dtype, rank) -> CudaKernelSource:
    """o[ooff + sum i_k*os_k] = a[aoff + sum i_k*as_k] over a rank-`rank` index space."""
    name = f"copy_{short(dtype)}_r{rank}"
    extents = [f"d{k}" for k in range(rank)]
    dims = extents[1:]                      # d0 is never read
    ostr = [f"os{k}" for k in range(rank)]
    astr = [f"as{k}" for k in range(rank)]
    params = ["o", "a", "n"] + dims + ["ooff"] + ostr + ["aoff"] + astr
    buf = IndentedBuffer()
    with buf.indent(f"def {name}({', '.join(params)}):"):
        with grid_stride(buf):
            space = runtime_space(extents, CSE(buf, "t"))
            buf.writeline(f"o[{space.strided(ostr, 'ooff')}] = "
                          f"a[{at(space.strided(astr, 'aoff'))}]")
            buf.writeline("i += step")
    types = [_arr(dtype)] * 2 + [I64] * (1 + len(dims) + 2 * (rank + 1))
    return _finish(name, f"strided copy, {short(dtype)}, rank {rank}", None, buf, types)


def fill(dtype) -> CudaKernelSource:
    name = f"fill_{short(dtype)}"
    buf = IndentedBuffer()
    with buf.indent(f"def {name}(o, value, n):"):
        with grid_stride(buf):
            buf.writeline("o[i] = value")
            buf.writeline("i += step")
    return _finish(name, f"fill, {short(dtype)}", None, buf,
                   [_arr(dtype), NUMBA_TYPE[np.dtype(dtype)], I64])


# ----------------------------------------------------------------------------- scans and sorts

def _less(a, b, dtype) -> str:
    """a sorts before b; NaNs sort last, as NumPy."""
    if is_float(dtype):
        return f"({a} < {b} or ({b} != {b} and {a} == {a}))"
    return f"({a} < {b})" if not is_bool(dtype) else f"((not {a}) and {b})"


def scan_rows(op, dtype) -> CudaKernelSource:
    """cumsum / sort / argsort of each row of a contiguous (rows, m) array, one thread per row.
    Sorting is a stable insertion sort in the output row: O(m^2), meant for short rows."""
    ctx = exprs.ExprContext()
    name = f"scan_{op.value}_{short(dtype)}"
    buf = IndentedBuffer()
    with buf.indent(f"def {name}(o, a, rows, m):"):
        with grid_stride(buf, "rows"):
            buf.writeline("base = i * m")
            if op is Op.cumsum:
                buf.writeline(f"acc = {ctx.const(0, dtype)}")
                with buf.indent("for j in range(m):"):
                    buf.writeline("acc = acc + a[base + j]")
                    buf.writeline("o[base + j] = acc")
            else:
                arg = op is Op.argsort
                with buf.indent("for j in range(m):"):
                    buf.writeline(f"o[base + j] = {'j' if arg else 'a[base + j]'}")
                with buf.indent("for j in range(1, m):"):
                    buf.writeline("cur = o[base + j]")
                    key = "a[base + cur]" if arg else "cur"
                    buf.writeline(f"key = {key}")
                    buf.writeline("k = j - 1")
                    prev = "a[base + o[base + k]]" if arg else "o[base + k]"
                    with buf.indent("while k >= 0:"):
                        with buf.indent(f"if not {_less('key', prev, dtype)}:"):
                            buf.writeline("break")
                        buf.writeline("o[base + k + 1] = o[base + k]")
                        buf.writeline("k -= 1")
                    buf.writeline("o[base + k + 1] = cur")
            buf.writeline("i += step")
    out_dt = np.dtype("int64") if op is Op.argsort else dtype
    return _finish(name, f"{op.value} of rows, one thread per row, {short(dtype)}", ctx, buf,
                   [_arr(out_dt), _arr(dtype), I64, I64])


# ----------------------------------------------------------------------------- gather / scatter

def _gather_index(buf, wrap=True) -> str:
    """k = idx[j] at flat i over (P, J, Q), negative indices wrapped; returns the offset of
    (p, k, q) in a (P, N, Q) array. An index outside [-N, N) is recorded in st ([1, index], the
    host raises IndexError) and its element skipped: one compare per index."""
    space = runtime_space(("P", "J", "Q"), CSE(buf, "t"))
    j = space.index(1)
    buf.writeline(f"k = idx[{j}]")
    if wrap:
        with buf.indent("if k < 0:"):
            buf.writeline("k += N")
    with buf.indent("if k < 0 or k >= N:"):
        buf.writeline(f"st[1] = idx[{j}]")
        buf.writeline("st[0] = 1")
        buf.writeline("i += step")
        buf.writeline("continue")
    return space.dot([0, 2], ["N * Q", 1], "k * Q")


def take(dtype, idx_dtype, wrap=True) -> CudaKernelSource:
    """o (P, J, Q) = a (P, N, Q) gathered along the middle axis by idx (J); wrap=False for
    assertions such as class labels (negative indices are out of bounds)."""
    name = f"take_{short(dtype)}_{short(idx_dtype)}{'' if wrap else '_nowrap'}"
    buf = IndentedBuffer()
    with buf.indent(f"def {name}(o, a, idx, n, J, Q, N, st):"):
        with grid_stride(buf):
            buf.writeline(f"o[i] = a[{_gather_index(buf, wrap)}]")
            buf.writeline("i += step")
    return _finish(name, f"take along an axis, {short(dtype)}", None, buf,
                   [_arr(dtype), _arr(dtype), _arr(idx_dtype), I64, I64, I64, I64, _arr(I64)])


def scatter_add(dtype, idx_dtype) -> CudaKernelSource:
    """o (P, N, Q), zero-filled first, += upd (P, J, Q) at idx (J) along the middle axis."""
    name = f"scatter_add_{short(dtype)}_{short(idx_dtype)}"
    buf = IndentedBuffer()
    with buf.indent(f"def {name}(o, idx, upd, n, J, Q, N, st):"):
        with grid_stride(buf):
            buf.writeline(f"cuda.atomic.add(o, {_gather_index(buf)}, upd[i])")
            buf.writeline("i += step")
    return _finish(name, f"scatter_add along an axis, {short(dtype)}", None, buf,
                   [_arr(dtype), _arr(idx_dtype), _arr(dtype), I64, I64, I64, I64, _arr(I64)])


# ----------------------------------------------------------------------------- matmul

def matmul_thread(dtype) -> CudaKernelSource:
    """o (B, M, N) = a (B, M, K) @ b (B, K, N), one thread per output element."""
    ctx = exprs.ExprContext()
    name = f"matmul_thread_{short(dtype)}"
    buf = IndentedBuffer()
    with buf.indent(f"def {name}(o, a, b, n, M, N, K):"):
        with grid_stride(buf):
            space = runtime_space(("B", "M", "N"), CSE(buf, "t"))
            arow, bcol = space.dot([0, 1], ["M * K", "K"]), space.dot([0, 2], ["K * N", 1])
            buf.writeline(f"acc = {ctx.const(0, dtype)}")
            with buf.indent("for k in range(K):"):
                buf.writeline(f"acc += a[{arow} + k] * b[{bcol} + k * N]")
            buf.writeline("o[i] = acc")
            buf.writeline("i += step")
    return _finish(name, f"batched matmul, one thread per output, {short(dtype)}", ctx, buf,
                   [_arr(dtype)] * 3 + [I64] * 4)


def matmul_tiled(dtype, rm, rn, threads=TL.MM_THREADS, precision=None) -> CudaKernelSource:
    """o (B, M, N) = a (B, M, K) @ b (B, K, N) in (threads rm, threads rn) tiles
    (codegen/cuda/tiles.py: tensor cores for float32); grid (ceil(N/BN), ceil(M/BM), B) of
    (threads, threads) blocks; `precision`: float32_matmul_precision (default: the option's)."""
    ctx = exprs.ExprContext()
    tiles = TL.tiles_for(dtype, rm, rn, threads, precision)
    tc = isinstance(tiles, TL.TensorCoreTiles)
    name = f"matmul_tiled_{short(dtype)}_{threads}t_{rm}x{rn}" + \
        (f"_tc{3 if tiles.split else 1}" if tc else "")
    buf = IndentedBuffer()
    with buf.indent(f"def {name}(o, a, b, M, N, K):"):
        tiles.prologue(buf, NUMBA_TYPE[np.dtype(dtype)])
        tiles.main(buf, ctx.const(0, dtype), ("a", "bat * M * K", False, "K"),
                   ("b", "bat * K * N", False, "N"), ("M", "N", "K"),
                   lambda n, acc: buf.writeline(f"o[(bat * M + row) * N + col] = {acc}"))
    return _finish(name, f"batched matmul, {tiles.kind}, {short(dtype)}", ctx, buf,
                   [_arr(dtype)] * 3 + [I64] * 3,
                   tiles.consts())
