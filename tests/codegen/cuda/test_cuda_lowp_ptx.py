"""The low-precision kernels of the CUDA backend compile to PTX for sm_80 and link to a cubin:
converts between every pair of dtypes (float16/bfloat16 as 16-bit words, bit arithmetic through
libdevice's float_as_int / int_as_float), data movement of the narrow dtypes, and the fused
kernels of half-float workloads. No GPU needed; cannot share a process with the simulator (the
simulator runs the same kernels in tests/cuda_sim/test_cuda_lowp.py)."""
import re

import numpy as np
import pytest

from jitgrad.codegen.cuda import toolchain as tc

if tc.cuda_simulator_enabled():
    pytest.skip("NUMBA_ENABLE_CUDASIM=1: compile_ptx cannot run beside the simulator",
                allow_module_level=True)
if not tc.cuda_toolchain_available():
    pytest.skip(f"CUDA toolchain not installed: {tc.INSTALL_HINT}", allow_module_level=True)

import ml_dtypes  # noqa: E402

from jitgrad.codegen.cuda import eager_reduce as ER  # noqa: E402
from jitgrad.codegen.cuda import exprs as cuda_exprs, kernels as K  # noqa: E402
from jitgrad.ir.ops import Op  # noqa: E402

HALVES = [np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16)]
NEW = HALVES + [np.dtype(d) for d in ("int8", "uint8", "int16", "uint16", "uint32", "uint64")]
ALL = NEW + [np.dtype(d) for d in ("float32", "float64", "int32", "int64", "bool")]
CC, ARCH = (8, 0), "sm_80"


def _compiles(src):
    ptx = tc.compile_ptx(src.load()[0], src.signature, cc=CC)
    assert f".target {ARCH}" in ptx and src.name in ptx
    assert ".extern .func" not in ptx, f"{src.name}: generated kernels must be self-contained"
    assert tc.link_cubin(ptx, ARCH)[:4] == b"\x7fELF"
    return ptx


@pytest.mark.parametrize("src", ALL, ids=lambda d: d.name)
def test_converts_from_each_dtype_to_every_dtype_compile(src):
    def body(ctx, cse, loads, in_dtypes):
        return [cuda_exprs.scalar_expr(ctx, Op.convert, loads, [src], d, {"dtype": d})
                for d in ALL]
    kernel = K.elementwise(f"convert_all_{src.name}", f"{src} to every dtype", [src], ALL, 1, body)
    ptx = _compiles(kernel)
    if src in HALVES:       # 16-bit words in, float32 bits through registers
        assert "ld.global.u16" in ptx and "mov.b32" in ptx


@pytest.mark.parametrize("dtype", NEW, ids=lambda d: d.name)
def test_data_movement_and_fill_compile(dtype):
    _compiles(K.copy(dtype, 2))
    _compiles(K.fill(dtype))
    _compiles(K.take(dtype, np.dtype("int64")))


def test_uint64_computes_natively_in_every_eager_kernel_kind():
    """uint64 is not widened: its reductions (warp shuffles of the signed twin), scans, sorts,
    scatter atomics and matmuls compile as they are."""
    u = np.dtype("uint64")
    for src in (K.elementwise_op(Op.floor_div, {}, (u, u), u, 2),
                K.elementwise_op(Op.shift_right, {}, (u, u), u, 1),
                ER.rows(Op.reduce_sum, u, u, (True,), 64),
                ER.rows(Op.argmax, u, np.dtype("int64"), (False, True), 256),
                ER.full(Op.reduce_max, u, u),
                K.scan_rows(Op.cumsum, u), K.scan_rows(Op.argsort, u),
                K.scatter_add(u, np.dtype("int64")), K.matmul_thread(u), K.matmul_tiled(u, 4, 4)):
        _compiles(src)


def test_fused_half_float_kernels_compile():
    """Every fused kernel of half-float workloads (elementwise with a broadcast, reductions,
    softmax, a matmul with its epilogue, an MLP gradient) and sums of the small ints."""
    import jitgrad as jg
    import jitgrad.nn.functional as F
    import jitgrad.numpy as jnp
    from jitgrad.codegen.cuda.fused import GENERATORS
    from jitgrad.ir.kernel import kernel_nodes
    from jitgrad.compilation.compile_graph import optimize

    def mlp_loss(w, x):
        return jnp.mean(jnp.tanh(x @ w) ** 2)

    # each kernel kind in float16; bfloat16 (the same code, its own converts) through the MLP
    # gradient (elementwise, reductions, matmul epilogues); the small ints' sums: signed and
    # uint64 (62 s with every workload in both half floats and five ints: trimmed to what
    # differs)
    layouts, workloads = set(), []
    s = lambda *shape: jg.ShapeDtype(shape, "float16")   # noqa: E731
    workloads += [(lambda x, b: jnp.tanh(x * b + 1.0), s(64, 256), s(256)),
                  (lambda x, w, b: F.relu(x @ w + b), s(128, 32), s(32, 96), s(96)),
                  (lambda x: jnp.sum(x * x), s(64, 256)),
                  (lambda x: jnp.mean(x, axis=0), s(64, 256)),
                  (lambda x: F.softmax(x, axis=-1), s(64, 256)),
                  (jg.value_and_grad(mlp_loss), jg.ShapeDtype((32, 16), "bfloat16"),
                   jg.ShapeDtype((8, 32), "bfloat16"))]
    for dt in ("int8", "uint64"):     # sums in int64 / uint64
        workloads.append((lambda x: (jnp.sum(x, axis=1), jnp.max(x, axis=0), jnp.sum(x)),
                          jg.ShapeDtype((64, 2048), dt)))
    for w, (fn, *args) in enumerate(workloads):
        optimized, schedule, _ = optimize(jg.jit(fn).lower(*args).graph)
        for i, node in enumerate(kernel_nodes(optimized, schedule)):
            if node.params["kind"] in GENERATORS:
                src = GENERATORS[node.params["kind"]](f"lowp_w{w}_k{i}", node).source
                layouts.add(re.match(r"# kernel \S+ \((.*?)\)\n", src.text).group(1))
                _compiles(src)
    assert {re.split("[:,]", x)[0] for x in layouts} == {"elementwise", "reduce", "rowwise",
                                                          "matmul"}, layouts
