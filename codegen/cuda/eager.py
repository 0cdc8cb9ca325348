"""Eager ops on cuda tensors: one generated kernel per op/dtype/rank, compiled once and cached.

`run(op, arrays, params, out_types)` is registered with jitgrad.eager.dispatch as the "cuda" backend. Its
arrays are C-contiguous device arrays from the caching allocator (every cuda tensor's storage
is), and its results are too. Operands are passed to kernels flat with explicit strides, and
adjacent axes that are contiguous in every operand are merged first, so most calls land on the
rank-1 kernel whatever the shape.

Data movement (transpose, broadcast, slice, rev, pad, concatenate) is one strided copy kernel;
reshape is a view. `constant` is computed on the host by the NumPy reference and uploaded.
A reduction runs the jit's kernel for its layout in place (codegen/cuda/eager_reduce.py: rows,
columns or a full split); a scan moves its axis last and scans rows.
"""
from __future__ import annotations

import functools

import numpy as np

from ...ir import config
from ...ir.errors import UnsupportedOpError, check_error
from ...ir.ops import Op
from ...ir.primitives import ELEMENTWISE, LINALG, REDUCE
from ...ir.reference import evaluate
from ...ir.types import TensorType
from ...runtime import cuda_device
from ...runtime.cuda_memory import allocator, index_of
from ..kernel.space import c_strides
from . import eager_reduce as ER
from . import kernels as K
from . import target
from . import tiles as TL
from .lowp import HALF

TILED_MATMUL_WORK = 32 ** 3


# ----------------------------------------------------------------------------- launching

@functools.lru_cache(maxsize=None)
def _generated(generator, *key):
    return generator(*key)


def compiled(generator, *key):
    """The numba.cuda kernel for `generator(*key)`, generated once per process and jitted once
    per process and setting of cuda_fast_math."""
    return jit_source(_generated(generator, *key))


_JITTED: dict = {}


def jit_source(src):
    """The numba.cuda dispatcher of a CudaKernelSource, once per distinct source and
    cuda_fast_math setting. numba's on-disk cache makes the compile cheap in later processes;
    fast-math kernels stay out of it (its index is not keyed by the fastmath flag, so a cached
    IEEE kernel could stand in for a fast one, or the reverse)."""
    fast = bool(config.read("cuda_fast_math"))
    key = (src.name, src.digest, fast)
    kernel = _JITTED.get(key)
    if kernel is None:
        cuda = cuda_device.numba_cuda()
        fn, on_disk = src.load()
        options = {"fastmath": True} if fast else \
            {"cache": True} if on_disk and not cuda_device.simulator_enabled() else {}
        kernel = _JITTED[key] = cuda.jit(**options)(fn)
    return kernel


def launch(kernel, grid, block, *args, index=0):
    with cuda_device.context(index):
        kernel[grid, block, cuda_device.stream(index)](*(_words(a) for a in args))


def _words(arg):
    """float16 / bfloat16 arrays and scalars as their 16-bit words: the kernels' uint16 (numba
    has no bfloat16, and the converts are bit arithmetic: codegen/cuda/lowp.py)."""
    dtype = getattr(arg, "dtype", None)
    if dtype is None or np.dtype(dtype) not in HALF:
        return arg
    return np.asarray(arg).view(np.uint16)[()] if isinstance(arg, np.generic) else \
        arg.view(np.uint16)


def grid_1d(n):
    """(blocks, threads) for a grid-stride loop over n items (codegen/cuda/target.py's rule)."""
    threads = target.threads_for(n)
    return target.grid_for(n, threads), threads


def flat(arr):
    return arr.reshape(arr.size) if arr.ndim != 1 else arr


def empty(shape, dtype, index=0):
    return allocator(index).empty(shape, dtype)


def upload(host, index=0):
    host = np.asarray(host, order="C")   # (ascontiguousarray would make 0-d arrays 1-d)
    out = empty(host.shape, host.dtype, index)
    if host.size:
        out.copy_to_device(host, stream=cuda_device.stream(index))
    return out


# ----------------------------------------------------------------------------- strides

def broadcast_strides(shape, out_shape):
    """Element strides reading a contiguous `shape` array over `out_shape` (0 on broadcast axes)."""
    own = c_strides(shape)
    lead = len(out_shape) - len(shape)
    return tuple(0 if k < lead or shape[k - lead] == 1 and out_shape[k] != 1 else own[k - lead]
                 for k in range(len(out_shape)))


def collapse_strided(shape, *strides_lists):
    """Merge adjacent axes that are contiguous in every operand; drop size-1 axes."""
    keep = [k for k, d in enumerate(shape) if d != 1]
    shape = [shape[k] for k in keep]
    lists = [[s[k] for k in keep] for s in strides_lists]
    k = len(shape) - 1
    while k > 0:
        if all(s[k - 1] == s[k] * shape[k] for s in lists):
            shape[k - 1] *= shape[k]
            del shape[k]
            for s in lists:
                s[k - 1] = s[k]
                del s[k]
        k -= 1
    return tuple(shape), [tuple(s) for s in lists]


# ----------------------------------------------------------------------------- elementwise

def _elementwise(op, arrays, params, out_types, index):
    (out_t,) = out_types
    out = empty(out_t.shape, out_t.dtype, index)
    n = out_t.size
    if n == 0:
        return (out,)
    shape, strides = collapse_strided(out_t.shape,
                                      *(broadcast_strides(a.shape, out_t.shape) for a in arrays))
    dtypes = tuple(np.dtype(a.dtype) for a in arrays)
    kernel = compiled(_elementwise_kernel, op, params.get("dtype") if op is Op.convert else None,
                      dtypes, out_t.dtype, len(shape))
    launch(kernel, *grid_1d(n), flat(out), *(flat(a) for a in arrays), n, *shape[1:],
           *(s for ss in strides for s in ss), index=index)
    return (out,)


def _elementwise_kernel(op, convert_to, in_dtypes, out_dtype, rank):
    # convert is the only elementwise op whose code depends on a param (hashable key for caching)
    params = {"dtype": convert_to} if convert_to is not None else {}
    return K.elementwise_op(op, params, in_dtypes, out_dtype, rank)


# ----------------------------------------------------------------------------- data movement

def strided_copy(out, out_offset, out_strides, src, src_offset, src_strides, shape, index=0):
    """out[out_offset + i.out_strides] = src[src_offset + i.src_strides] for i over `shape`."""
    n = int(np.prod(shape, dtype=np.int64))
    if n == 0:
        return
    shape, (os_, ss) = collapse_strided(tuple(shape), out_strides, src_strides)
    kernel = compiled(K.copy, np.dtype(src.dtype), len(shape))
    launch(kernel, *grid_1d(n), flat(out), flat(src), n, *shape[1:], out_offset, *os_,
           src_offset, *ss, index=index)


def strided_view_copy(src, out_t, offset, strides, index=0):
    """A new contiguous array of type out_t read from `src` at offset + i.strides."""
    out = empty(out_t.shape, out_t.dtype, index)
    strided_copy(out, 0, c_strides(out_t.shape), src, offset, strides, out_t.shape, index)
    return out


def fill(out, value, index=0):
    if out.size:
        kernel = compiled(K.fill, np.dtype(out.dtype))
        launch(kernel, *grid_1d(out.size), flat(out), np.asarray(value, out.dtype)[()], out.size,
               index=index)
    return out


def _transpose(x, params, out_t, index):
    own = c_strides(x.shape)
    return strided_view_copy(x, out_t, 0, tuple(own[p] for p in params["perm"]), index)


def _broadcast_to(x, params, out_t, index):
    return strided_view_copy(x, out_t, 0, broadcast_strides(x.shape, out_t.shape), index)


def _slice(x, params, out_t, index):
    own = c_strides(x.shape)
    offset = sum(a * s for a, s in zip(params["start"], own))
    strides = tuple(s * st for s, st in zip(own, params["step"]))
    return strided_view_copy(x, out_t, offset, strides, index)


def _rev(x, params, out_t, index):
    own = list(c_strides(x.shape))
    offset = 0
    for a in params["axes"]:
        offset += (x.shape[a] - 1) * own[a]
        own[a] = -own[a]
    return strided_view_copy(x, out_t, offset, tuple(own), index)


def _reshape(x, params, out_t, index):
    return allocator(index).view(x, out_t.shape)


def _pad(x, params, out_t, index):
    out = fill(empty(out_t.shape, out_t.dtype, index), params.get("value", 0), index)
    os_ = c_strides(out_t.shape)
    offset = sum(lo * s for lo, s in zip(params["lo"], os_))
    strided_copy(out, offset, os_, x, 0, c_strides(x.shape), x.shape, index)
    return out


def _concatenate(arrays, params, out_t, index):
    out = empty(out_t.shape, out_t.dtype, index)
    os_, axis, at = c_strides(out_t.shape), params["axis"], 0
    for a in arrays:
        strided_copy(out, at * os_[axis], os_, a, 0, c_strides(a.shape), a.shape, index)
        at += a.shape[axis]
    return out


def _im2col(x, params, out_t, index):
    """One strided copy per block into its rows of the output."""
    out = empty(out_t.shape, out_t.dtype, index)
    os_, xs, L = c_strides(out_t.shape), c_strides(tuple(x.shape)), tuple(x.shape)[-1]
    rows, length = params["rows"], params["length"]
    shape = out_t.shape[:-2] + (rows, length)
    for t, (r, c) in enumerate(params["starts"]):
        strided_copy(out, t * rows * length, os_, x, r * L + c, xs, shape, index)
    return out


def _col2im(y, params, out_t, index):
    """Each block cut out of y, padded to the output's extent and added on, in block order (the
    reference's sums): a composite of existing kernels, not a kernel of its own."""
    rows, length, (R, L) = params["rows"], params["length"], params["size"]
    lead, ys = out_t.shape[:-2], c_strides(tuple(y.shape))
    block_t = TensorType(lead + (rows, length), out_t.dtype)
    out = fill(empty(out_t.shape, out_t.dtype, index), 0, index)
    for t, (r, c) in enumerate(params["starts"]):
        block = strided_view_copy(y, block_t, t * rows * length, ys, index)
        zeros = (0,) * len(lead)
        padded = _pad(block, {"lo": zeros + (r, c), "hi": zeros + (R - r - rows, L - c - length)},
                      out_t, index)
        (out,) = _elementwise(Op.add, [out, padded], {}, [out_t], index)
    return out


UNARY_MOVES = {Op.im2col: _im2col, Op.col2im: _col2im, Op.transpose: _transpose, Op.broadcast_to: _broadcast_to, Op.slice: _slice,
               Op.rev: _rev, Op.reshape: _reshape, Op.pad: _pad}


# ----------------------------------------------------------------------------- rows

def rows_last(x, axes, index=0):
    """x with `axes` moved last and made contiguous: (the array, number of rows, row length)."""
    kept = [k for k in range(x.ndim) if k not in axes]
    m = int(np.prod([x.shape[a] for a in axes], dtype=np.int64))
    rows = int(np.prod([x.shape[k] for k in kept], dtype=np.int64))
    perm = kept + list(axes)
    if perm != list(range(x.ndim)):
        own = c_strides(x.shape)
        t = TensorType(tuple(x.shape[p] for p in perm), np.dtype(x.dtype))
        x = strided_view_copy(x, t, 0, tuple(own[p] for p in perm), index)
    return x, rows, m


def _reduce(op, arrays, params, out_types, index):
    """A reduction as the jit's kernel for its layout (eager_reduce.plan), reading x in place."""
    (x,), (out_t,) = arrays, out_types
    out = empty(out_t.shape, out_t.dtype, index)
    if not out.size:
        return (out,)
    how = ER.plan(op, x.shape, params["axes"], x.dtype, out_t.dtype)
    work = [fill(empty((n,), dt, index), 0, index) if zeroed else empty((n,), dt, index)
            for dt, n, zeroed in how.work]
    launch(compiled(how.generator, *how.key), how.grid, how.block, flat(x), flat(out), *work,
           *how.args, index=index)
    return (out,)


def _scan(op, arrays, params, out_types, index):
    (x,), (out_t,) = arrays, out_types
    axis = params["axis"]
    xr, rows, m = rows_last(x, (axis,), index)
    res = empty(xr.shape, out_t.dtype, index)
    if rows and m:
        kernel = compiled(K.scan_rows, op, np.dtype(x.dtype))
        launch(kernel, *grid_1d(rows), flat(res), flat(xr), rows, m, index=index)
    if axis == x.ndim - 1:
        return (res,)
    # move the axis back: res is x's shape with `axis` last
    perm = [k for k in range(x.ndim) if k != axis] + [axis]
    inverse = [perm.index(k) for k in range(x.ndim)]
    own = c_strides(res.shape)
    return (strided_view_copy(res, out_t, 0, tuple(own[p] for p in inverse), index),)


# ----------------------------------------------------------------------------- index ops

def _split(shape, axis):
    p = int(np.prod(shape[:axis], dtype=np.int64))
    q = int(np.prod(shape[axis + 1:], dtype=np.int64))
    return p, shape[axis], q


def _checked(kernel, op, check, size, grid, *args, index):
    """Launch a gather/scatter kernel with a status array; IndexError (ir.errors.check_error)
    when it saw an index out of range. Reading the status waits for the kernel."""
    st = fill(empty((2,), np.int64, index), 0, index)
    launch(kernel, *grid, *args, st, index=index)
    s = cuda_device.stream(index)
    host = st.copy_to_host(stream=s)
    s.synchronize()
    if host[0]:
        raise check_error(op, check, host[1], size)


def _take(arrays, params, out_types, index):
    (x, idx), (out_t,) = arrays, out_types
    out = empty(out_t.shape, out_t.dtype, index)
    if out.size:
        _, n, q = _split(x.shape, params["axis"])
        check = params.get("check")
        kernel = compiled(K.take, np.dtype(x.dtype), np.dtype(idx.dtype), not check)
        _checked(kernel, "take", check, n, grid_1d(out.size), flat(out), flat(x), flat(idx),
                 out.size, idx.size, q, n, index=index)
    return (out,)


def _scatter_add(arrays, params, out_types, index):
    (idx, upd), (out_t,) = arrays, out_types
    if out_t.dtype.kind == "b":
        raise TypeError(f"scatter_add on cuda needs numeric updates (atomics), got {out_t}")
    out = fill(empty(out_t.shape, out_t.dtype, index), 0, index)
    if upd.size:
        _, n, q = _split(out_t.shape, params["axis"])
        kernel = compiled(K.scatter_add, np.dtype(upd.dtype), np.dtype(idx.dtype))
        _checked(kernel, "scatter_add", None, n, grid_1d(upd.size), flat(out), flat(idx), flat(upd),
                 upd.size, idx.size, q, n, index=index)
    return (out,)


# ----------------------------------------------------------------------------- matmul

def _batched(x, batch, tail, index):
    """x broadcast to batch + tail, contiguous."""
    shape = tuple(batch) + tuple(tail)
    if tuple(x.shape) == shape:
        return x
    return strided_view_copy(x, TensorType(shape, np.dtype(x.dtype)), 0,
                             broadcast_strides(x.shape, shape), index)


def _matmul(arrays, params, out_types, index):
    (a, b), (out_t,) = arrays, out_types
    out = empty(out_t.shape, out_t.dtype, index)
    batch, (m, n), k = out_t.shape[:-2], out_t.shape[-2:], tuple(a.shape)[-1]
    if out.size == 0:
        return (out,)
    a = _batched(a, batch, (m, k), index)
    b = _batched(b, batch, (k, n), index)
    nb = int(np.prod(batch, dtype=np.int64))
    matmul_into(out, a, b, nb, m, n, k, "tiled" if m * n * k >= TILED_MATMUL_WORK else "thread",
                index)
    return (out,)


def matmul_into(out, a, b, nb, m, n, k, kernel_kind, index=0, threads=TL.MM_THREADS):
    dtype = np.dtype(out.dtype)
    if kernel_kind == "tiled":
        rm, rn = TL.matmul_regs(m, n, threads)
        precision = config.read("float32_matmul_precision")      # part of compiled's key
        kernel = compiled(K.matmul_tiled, dtype, rm, rn, threads, precision)
        grid = (-(-n // (threads * rn)), -(-m // (threads * rm)), nb)
        launch(kernel, grid, (threads, threads), flat(out), flat(a), flat(b), m, n, k,
               index=index)
    else:
        kernel = compiled(K.matmul_thread, dtype)
        launch(kernel, *grid_1d(out.size), flat(out), flat(a), flat(b), out.size, m, n, k,
               index=index)


# ----------------------------------------------------------------------------- dispatch

def _on_host(op, arrays, params, out_types, index):
    """Ops computed by the NumPy reference and uploaded (inputs are tiny: keys, nothing)."""
    host = [a.copy_to_host(stream=cuda_device.stream(index)) for a in arrays]
    cuda_device.stream(index).synchronize()
    return tuple(upload(r, index) for r in evaluate(op, host, params, out_types))


def run(op, arrays, params, out_types):
    """The eager cuda backend: jitgrad.eager.dispatch calls it with device arrays; returns device arrays."""
    kernel = kernel_of(op)
    if kernel is None:
        raise UnsupportedOpError(op, "cuda", NO_KERNEL)
    return kernel(op, arrays, params, out_types, device_index(arrays))


NO_KERNEL = "no CUDA kernel implements it"


def kernel_of(op):
    """The launcher of op's eager kernels, fn(op, arrays, params, out_types, index), or None
    (codegen/cuda/kernel_coverage.op_why_not says so)."""
    if op in ELEMENTWISE:
        return _elementwise
    if op in UNARY_MOVES:
        return _unary_move
    if op in REDUCE:
        return _reduce
    return HANDLERS.get(op)


def _unary_move(op, arrays, params, out_types, index):
    return (UNARY_MOVES[op](arrays[0], params, out_types[0], index),)


HANDLERS = {
    Op.cumsum: _scan, Op.sort: _scan, Op.argsort: _scan,
    Op.concatenate: lambda op, arrays, p, t, i: (_concatenate(arrays, p, t[0], i),),
    Op.take: lambda op, arrays, p, t, i: _take(arrays, p, t, i),
    Op.scatter_add: lambda op, arrays, p, t, i: _scatter_add(arrays, p, t, i),
    Op.matmul: lambda op, arrays, p, t, i: _matmul(arrays, p, t, i),
    Op.constant: _on_host,
    # LAPACK decompositions: numba.cuda has no LAPACK, so a host call (NumPy) between kernels
    **{op: _on_host for op in LINALG},
}
# ops computed by the NumPy reference (which widens low-precision dtypes itself)
HOST_OPS = frozenset(op for op, fn in HANDLERS.items() if fn is _on_host)


def device_index(arrays) -> int:
    for a in arrays:
        i = index_of(a)
        if i is not None:
            return i
    return 0
