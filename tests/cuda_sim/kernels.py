"""Three hand-written numba.cuda kernels shaped like what the CUDA backend will generate.

Kernels are plain, undecorated functions so one definition serves both
`compile_ptx` and the simulator; which `numba.cuda` this imports (real or simulated) is fixed by
NUMBA_ENABLE_CUDASIM when numba.cuda is first imported.
"""
import math

from numba import cuda, float32

BLOCK = 128  # threads per block of the reduction
WARPS = BLOCK // 32  # a module constant: shared.array needs a compile-time shape
TILE = 8  # matmul tile edge; small so the simulator (one Python thread per CUDA thread) stays fast
FULL_MASK = 0xFFFFFFFF


def elementwise_grid_stride(x, y, out):
    """out = x * y + exp(-x*x), each thread striding over the whole array."""
    i = cuda.grid(1)
    stride = cuda.gridsize(1)
    while i < out.size:
        out[i] = x[i] * y[i] + math.exp(-x[i] * x[i])
        i += stride


def block_sum(x, partial):
    """partial[b] = sum of the grid-stride slice of x that block b read."""
    warp_sums = cuda.shared.array(WARPS, float32)
    lane = cuda.threadIdx.x % 32
    warp = cuda.threadIdx.x // 32
    acc = float32(0)
    i = cuda.grid(1)
    while i < x.size:
        acc += x[i]
        i += cuda.gridsize(1)
    # The warp shuffle loop is written out twice: a @cuda.jit(device=True) helper (or
    # register_jitable/overload) makes compile_ptx ask the driver for the current device's cc.
    offset = 16
    while offset > 0:
        acc += cuda.shfl_down_sync(FULL_MASK, acc, offset)
        offset //= 2
    if lane == 0:
        warp_sums[warp] = acc
    cuda.syncthreads()
    if warp == 0:
        acc = warp_sums[lane] if lane < WARPS else float32(0)
        offset = 16
        while offset > 0:
            acc += cuda.shfl_down_sync(FULL_MASK, acc, offset)
            offset //= 2
        if lane == 0:
            partial[cuda.blockIdx.x] = acc


def matmul_tiled(a, b, c):
    """c = a @ b with TILE x TILE blocks staging both operands through shared memory."""
    a_tile = cuda.shared.array((TILE, TILE), float32)
    b_tile = cuda.shared.array((TILE, TILE), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    row = cuda.blockIdx.y * TILE + ty
    col = cuda.blockIdx.x * TILE + tx
    acc = float32(0)
    for k0 in range(0, a.shape[1], TILE):
        # Out-of-range loads become zeros so edge tiles need no special case below.
        a_tile[ty, tx] = a[row, k0 + tx] if row < a.shape[0] and k0 + tx < a.shape[1] else float32(0)
        b_tile[ty, tx] = b[k0 + ty, col] if k0 + ty < b.shape[0] and col < b.shape[1] else float32(0)
        cuda.syncthreads()
        for k in range(TILE):
            acc += a_tile[ty, k] * b_tile[k, tx]
        cuda.syncthreads()
    if row < c.shape[0] and col < c.shape[1]:
        c[row, col] = acc


# kernel -> signature for compile_ptx
SIGNATURES = {
    elementwise_grid_stride: "void(float32[::1], float32[::1], float32[::1])",
    block_sum: "void(float32[::1], float32[::1])",
    matmul_tiled: "void(float32[:, ::1], float32[:, ::1], float32[:, ::1])",
}
