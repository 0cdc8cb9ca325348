"""128-bit global loads and stores for generated CUDA kernels (numba.cuda intrinsics).

    aligned16(a)            the array's data pointer is a multiple of 16 bytes
    load4(a, g)             a[4g], a[4g+1], a[4g+2], a[4g+3]: one ld.global.v4 (4-byte dtypes)
    store4(a, g, x0..x3)    one st.global.v4
    load2 / store2          the same for 8-byte dtypes (float64, int64): ld/st.global.v2.b64

numba-cuda indexes arrays one element at a time and knows nothing of a pointer's alignment, so
NVVM never merges neighbouring accesses: these intrinsics emit `load <4 x float>, align 16`
directly. A kernel calls them only on a path guarded by aligned16 (checked once, before its loop)
with the tail handled by scalar code. They are intrinsics, inlined into the kernel's LLVM IR, not
device functions, so compile_ptx builds them without a GPU (toolchain.py). Under the CUDA
simulator (NUMBA_ENABLE_CUDASIM=1) they are the equivalent Python.
"""
from __future__ import annotations

from .toolchain import cuda_simulator_enabled

__all__ = ["aligned16", "load4", "store4", "load2", "store2"]


def _sim_array(a):
    return getattr(a, "_ary", a)     # the simulator wraps device arrays (FakeCUDAArray)


def _sim_aligned16(a):
    return _sim_array(a).__array_interface__["data"][0] % 16 == 0


def _sim_load(lanes):
    def load(a, g):
        b = g * lanes
        return tuple(a[b + k] for k in range(lanes))
    return load


def _sim_store(lanes):
    def store(a, g, *xs):
        b = g * lanes
        for k in range(lanes):
            a[b + k] = xs[k]
    return store


def _intrinsics():
    from llvmlite import ir     # lazy: numba.cuda, loaded by the first CUDA kernel
    from numba import types
    from numba.cuda.extending import intrinsic

    def data_ptr(context, builder, array_type, array):
        return context.make_array(array_type)(context, builder, value=array).data

    @intrinsic
    def aligned16(typingctx, array):
        sig = types.boolean(array)

        def codegen(context, builder, sig, args):
            addr = builder.ptrtoint(data_ptr(context, builder, sig.args[0], args[0]),
                                    ir.IntType(64))
            low = builder.and_(addr, ir.Constant(ir.IntType(64), 15))
            return builder.icmp_unsigned("==", low, ir.Constant(ir.IntType(64), 0))
        return sig, codegen

    def vector_ptr(context, builder, array_type, array, group, lanes):
        elem = context.get_value_type(array_type.dtype)
        vec = ir.VectorType(elem, lanes)
        base = builder.bitcast(data_ptr(context, builder, array_type, array), vec.as_pointer())
        return builder.gep(base, [group]), vec

    def make_load(lanes):
        @intrinsic
        def load(typingctx, array, group):
            sig = types.UniTuple(array.dtype, lanes)(array, group)

            def codegen(context, builder, sig, args):
                ptr, _ = vector_ptr(context, builder, sig.args[0], args[0], args[1], lanes)
                v = builder.load(ptr, align=16)
                items = [builder.extract_element(v, ir.Constant(ir.IntType(32), k))
                         for k in range(lanes)]
                return context.make_tuple(builder, sig.return_type, items)
            return sig, codegen
        return load

    def store_codegen(lanes):
        def codegen(context, builder, sig, args):
            array_type = sig.args[0]
            ptr, vec = vector_ptr(context, builder, array_type, args[0], args[1], lanes)
            v = ir.Constant(vec, ir.Undefined)
            for k, (t, x) in enumerate(zip(sig.args[2:], args[2:])):
                x = context.cast(builder, x, t, array_type.dtype)
                v = builder.insert_element(v, x, ir.Constant(ir.IntType(32), k))
            builder.store(v, ptr, align=16)
            return context.get_dummy_value()
        return codegen

    @intrinsic
    def store4(typingctx, array, group, x0, x1, x2, x3):
        return types.void(array, group, x0, x1, x2, x3), store_codegen(4)

    @intrinsic
    def store2(typingctx, array, group, x0, x1):
        return types.void(array, group, x0, x1), store_codegen(2)

    return aligned16, make_load(4), store4, make_load(2), store2


if cuda_simulator_enabled():
    aligned16 = _sim_aligned16
    load4, store4, load2, store2 = _sim_load(4), _sim_store(4), _sim_load(2), _sim_store(2)
else:
    aligned16, load4, store4, load2, store2 = _intrinsics()
