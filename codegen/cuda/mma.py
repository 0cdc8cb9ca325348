"""Tensor-core products for generated CUDA kernels (numba.cuda intrinsics, inline PTX).

    mma_tf32(a_tile, ar, ak, b_tile, bk, bc, g, q, c0, c1, c2, c3) -> (d0, d1, d2, d3)
        one warp's D = A @ B + C for a 16 x 8 tile of D, A = a_tile[ar:ar+16, ak:ak+8] and
        B = b_tile[bk:bk+8, bc:bc+8] (2-D shared arrays of float32) rounded to TensorFloat-32
        (10 mantissa bits, nearest, ties away: ROUND_TF32), float32 accumulators: PTX
        `mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32`, SASS HMMA.1688
    mma_tf32x3(...)   the same with each operand split into a TF32 head and a TF32 tail
        (h = tf32(x), l = tf32(x - h), x = h + l + O(2^-22 x)): D = A_l B_h + A_h B_l + A_h B_h
        + C, three instructions
        (3xTF32, as CUTLASS's): float32's accuracy at tensor-core speed

Lane l of the warp passes g = l // 4 and q = l % 4 and gets D[g][2q], D[g][2q+1], D[g+8][2q],
D[g+8][2q+1]; it loads its fragment registers itself (PTX ISA, "Matrix fragments for
mma.m16n8k8", .tf32): A[g][q], A[g+8][q], A[g][q+4], A[g+8][q+4] and B[q][g], B[q+4][g]. Every
lane of the warp must execute the call (a warp-uniform branch around it is fine). The loads and
converts are plain (side-effect free) IR, so a kernel calling this for several tiles that share
rows of A or columns of B loads and converts each fragment once (LLVM's CSE).

numba-cuda has no tensor-core API, so these are intrinsics whose LLVM IR is shared loads, the
converts and the mma as inline asm; like codegen/cuda/vector.py's they are inlined into the
kernel, not device functions, so compile_ptx builds them without a GPU (toolchain.py). Under
the CUDA simulator (NUMBA_ENABLE_CUDASIM=1) they are the equivalent NumPy: each lane computes its
four outputs from the shared tiles, in float32 from the same TF32 parts (no lane waits for
another, so the simulator stays fast).
"""
from __future__ import annotations

import numpy as np

from .toolchain import cuda_simulator_enabled

__all__ = ["mma_tf32", "mma_tf32x3"]    # a kernel module imports them (codegen/cuda/source.py)
MMA_TF32 = "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32"
# x rounded to TF32 as integer arithmetic on its bits: (bits + 0x1000) & 0xFFFFE000, i.e. half
# of the dropped 13 bits' range added to the magnitude (to nearest, ties away, as
# cvt.rna.tf32.f32), two instructions where ptxas expands cvt.rna to about six with its special
# cases. Those come out right too: an infinity stays one, past the largest TF32 is infinity, a
# NaN stays NaN unless its payload lies only in the low 13 bits (then the head is infinity and
# the tail x - head a NaN, so the product is NaN all the same).
ROUND_TF32 = (0x1000, 0xFFFFE000)


def _sim_tf32(x):
    """ROUND_TF32 on a float32 array (see there)."""
    half, keep = ROUND_TF32
    bits = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    return ((bits + half) & keep).astype(np.uint32).view(np.float32)


def _sim_mma(split):
    def mma(a_tile, ar, ak, b_tile, bk, bc, g, q, c0, c1, c2, c3):
        a = np.asarray(a_tile)[[ar + g, ar + g + 8], ak:ak + 8]
        b = np.asarray(b_tile)[bk:bk + 8, bc + 2 * q:bc + 2 * q + 2]
        ah, bh = _sim_tf32(a), _sim_tf32(b)
        d = np.array([[c0, c1], [c2, c3]], dtype=np.float32)
        if split:
            al, bl = _sim_tf32(a - ah), _sim_tf32(b - bh)
            d = al @ bh + d
            d = ah @ bl + d
        d = ah @ bh + d
        return d[0, 0], d[0, 1], d[1, 0], d[1, 1]
    return mma


def _intrinsics():
    from llvmlite import ir     # lazy: numba.cuda, loaded by the first CUDA kernel
    from numba import types
    from numba.cuda import cgutils
    from numba.cuda.extending import intrinsic

    f32, i32, i64 = ir.FloatType(), ir.IntType(32), ir.IntType(64)

    def tf32(builder, x):
        half, keep = (ir.Constant(i32, c) for c in ROUND_TF32)
        return builder.and_(builder.add(builder.bitcast(x, i32), half), keep)

    def split(builder, x, three):
        """The TF32 head of x and, for 3xTF32, its tail, as .b32 words."""
        head = tf32(builder, x)
        return head, tf32(builder, builder.fsub(x, builder.bitcast(head, f32))) if three else None

    def fragment(context, builder, aryty, ary, cells):
        array = context.make_array(aryty)(context, builder, value=ary)
        return [builder.load(cgutils.get_item_pointer(context, builder, aryty, array, [i, j]))
                for i, j in cells]

    def typed(a_tile, ar, ak, b_tile, bk, bc, g, q, c0, c1, c2, c3, three):
        sig = types.UniTuple(types.float32, 4)(a_tile, ar, ak, b_tile, bk, bc, g, q,
                                               c0, c1, c2, c3)

        def codegen(context, builder, sig, args):
            ar, ak, bk, bc, g, q = (context.cast(builder, v, t, types.int64)
                                    for v, t in zip(args[1:3] + args[4:8],
                                                    sig.args[1:3] + sig.args[4:8]))
            add = builder.add
            eight, four = ir.Constant(i64, 8), ir.Constant(i64, 4)
            rows, cols = (add(ar, g), add(add(ar, g), eight)), (add(ak, q), add(add(ak, q), four))
            a = fragment(context, builder, sig.args[0], args[0],
                         [(rows[0], cols[0]), (rows[1], cols[0]), (rows[0], cols[1]),
                          (rows[1], cols[1])])
            b = fragment(context, builder, sig.args[3], args[3],
                         [(add(bk, q), add(bc, g)), (add(add(bk, q), four), add(bc, g))])
            a, b = [split(builder, x, three) for x in a], [split(builder, x, three) for x in b]
            c = [context.cast(builder, v, t, types.float32)
                 for v, t in zip(args[8:], sig.args[8:])]
            fty = ir.FunctionType(ir.LiteralStructType([f32] * 4), [i32] * 6 + [f32] * 4)
            text = (f"{MMA_TF32} {{$0, $1, $2, $3}}, {{$4, $5, $6, $7}}, {{$8, $9}}, "
                    "{$10, $11, $12, $13};")
            terms = ((1, 0), (0, 1), (0, 0)) if three else ((0, 0),)    # small terms first
            for x, y in terms:
                d = builder.asm(fty, text, "=f,=f,=f,=f,r,r,r,r,r,r,f,f,f,f",
                                [v[x] for v in a] + [v[y] for v in b] + c, False)
                c = [builder.extract_value(d, k) for k in range(4)]
            return context.make_tuple(builder, sig.return_type, c)
        return sig, codegen

    # two functions, not one made twice: numba keys an intrinsic's typing by its name
    @intrinsic
    def mma_tf32(typingctx, a_tile, ar, ak, b_tile, bk, bc, g, q, c0, c1, c2, c3):
        return typed(a_tile, ar, ak, b_tile, bk, bc, g, q, c0, c1, c2, c3, three=False)

    @intrinsic
    def mma_tf32x3(typingctx, a_tile, ar, ak, b_tile, bk, bc, g, q, c0, c1, c2, c3):
        return typed(a_tile, ar, ak, b_tile, bk, bc, g, q, c0, c1, c2, c3, three=True)

    return mma_tf32, mma_tf32x3


if cuda_simulator_enabled():
    mma_tf32, mma_tf32x3 = _sim_mma(False), _sim_mma(True)
else:
    mma_tf32, mma_tf32x3 = _intrinsics()
