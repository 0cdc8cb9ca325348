"""Every kind of generated CUDA kernel compiles to PTX for sm_80 or sm_90 (both with -m slow)
and links to a cubin with nvJitLink; no GPU or driver needed (cannot share a process with the
simulator)."""
import re

import numpy as np
import pytest

from jitgrad.codegen.cuda import toolchain as tc

if tc.cuda_simulator_enabled():
    pytest.skip("NUMBA_ENABLE_CUDASIM=1: compile_ptx cannot run beside the simulator",
                allow_module_level=True)
if not tc.cuda_toolchain_available():
    pytest.skip(f"CUDA toolchain not installed: {tc.INSTALL_HINT}", allow_module_level=True)

import jitgrad as jg  # noqa: E402
from jitgrad.codegen.cuda import eager_reduce as ER  # noqa: E402
from jitgrad.codegen.cuda import exprs as cuda_exprs, kernels as K  # noqa: E402
from jitgrad.ir.ops import Op  # noqa: E402
from jitgrad.ir.primitives import ELEMENTWISE, RECORDS  # noqa: E402
from jitgrad.ir.registry import infer_types  # noqa: E402
from jitgrad.ir.types import TensorType  # noqa: E402

F32, F64, I32, I64, B = (np.dtype(d) for d in ("float32", "float64", "int32", "int64", "bool"))
CCS = [(8, 0), (9, 0)]

# one instance of every kernel shape the backend generates, with dtypes that stress its typing
KERNELS = {
    "elementwise_broadcast_f32_r3": lambda: K.elementwise_op(Op.mul, {}, (F32, F32), F32, 3),
    "elementwise_select_i64_r2": lambda: K.elementwise_op(Op.select, {}, (B, I64, I64), I64, 2),
    "elementwise_convert_f64_i32": lambda: K.elementwise_op(Op.convert, {"dtype": I32}, (F64,),
                                                            I32, 1),
    "copy_f64_r3": lambda: K.copy(F64, 3),
    "fill_bool": lambda: K.fill(B),
    "reduce_rows_sum_f32_warp": lambda: ER.rows(Op.reduce_sum, F32, F32, (False, True), 32),
    "reduce_rows_argmax_f64_krk": lambda: ER.rows(Op.argmax, F64, I64, (False, True, False), 64),
    "reduce_rows_max_bool": lambda: ER.rows(Op.reduce_max, B, B, (False, True), 256),
    "reduce_rows_argmin_f32": lambda: ER.rows(Op.argmin, F32, I64, (True,), 256),
    "reduce_rows_prod_i64": lambda: ER.rows(Op.reduce_prod, I64, I64, (True, False), 128),
    "scan_cumsum_i32": lambda: K.scan_rows(Op.cumsum, I32),
    "scan_sort_f32": lambda: K.scan_rows(Op.sort, F32),
    "scan_argsort_f64": lambda: K.scan_rows(Op.argsort, F64),
    "take_f32_i64": lambda: K.take(F32, I64),
    "scatter_add_f64_i64": lambda: K.scatter_add(F64, I64),
    "matmul_thread_i32": lambda: K.matmul_thread(I32),
    "matmul_tiled_f32_4x4": lambda: K.matmul_tiled(F32, 4, 4),
    "matmul_tiled_f32_4x1_tf32": lambda: _with_precision("high", K.matmul_tiled, F32, 4, 1),
    "matmul_tiled_f32_4x4_ffma_8t": lambda: K.matmul_tiled(F32, 4, 4, 8),
    "matmul_tiled_f64_1x4": lambda: K.matmul_tiled(F64, 1, 4),
    "matmul_tiled_i64_1x1": lambda: K.matmul_tiled(I64, 1, 1),
}


def _with_precision(precision, generator, *args):
    jg.config.update("float32_matmul_precision", precision)
    try:
        return generator(*args)
    finally:
        jg.config.reset("float32_matmul_precision")


def _ptx(src, cc):
    return tc.compile_ptx(src.load()[0], src.signature, cc=cc)


def _arch(cc):
    return f"sm_{cc[0]}{cc[1]}"


# Each kernel kind compiles for one of the two architectures by default, alternating (the PTX
# differs in its target line; ptxas's checks are the point); both with -m slow.
KIND_PARAMS = [pytest.param(kind, cc, id=f"{kind}-{_arch(cc)}",
                            marks=() if (i + j) % 2 == 0 else (pytest.mark.slow,))
               for i, kind in enumerate(KERNELS) for j, cc in enumerate(CCS)]


@pytest.mark.parametrize("kind,cc", KIND_PARAMS)
def test_kernel_kind_compiles_and_links(kind, cc):
    src = KERNELS[kind]()
    ptx = _ptx(src, cc)
    arch = f"sm_{cc[0]}{cc[1]}"
    assert f".target {arch}" in ptx
    assert ".entry" in ptx and src.name in ptx
    cubin = tc.link_cubin(ptx, arch)
    assert cubin[:4] == b"\x7fELF"
    # float32 tiles in 16x16 blocks run on tensor cores: 3xTF32 by default, TF32 when allowed
    # (per staged step of 16: two k-steps of 8 for each warp's 2x2 or 1x1 mma tiles)
    calls = (src.text.count("mma_tf32x3("), src.text.count("mma_tf32("))
    assert calls == {"matmul_tiled_f32_4x4": (8, 0), "matmul_tiled_f32_4x1_tf32": (0, 2)}.get(
        kind, (0, 0))
    assert ("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32" in ptx) == any(calls)


def _dtype_for(op):
    """A typical dtype of op's record: int32 where numba's int64 promotion must wrap back."""
    accepts = RECORDS[op].accepts
    if accepts == "bool":
        return B
    integer = accepts == "integer" or op in (Op.floor_div, Op.mod, Op.sign, Op.abs)
    return I32 if integer else F32


@pytest.mark.parametrize("op", sorted(set(cuda_exprs.EXPR) & ELEMENTWISE, key=str), ids=str)
def test_every_elementwise_expression_compiles_for_sm80(op):
    """Each entry of the CUDA expression table, in a typical dtype (int32 where numba's int64
    promotion must be wrapped back), typed and lowered by NVVM."""
    dt = _dtype_for(op)
    params = {"dtype": F64} if op is Op.convert else {}
    n_in = RECORDS[op].arity
    in_dtypes = (B, dt, dt) if op is Op.select else (dt,) * n_in
    (out_t,) = infer_types(op, [TensorType((4,), d) for d in in_dtypes], params)
    src = K.elementwise_op(op, params, in_dtypes, out_t.dtype, 1)
    assert ".entry" in _ptx(src, (8, 0))


def test_generated_source_names_what_it_computes():
    src = K.elementwise_op(Op.add, {}, (F32, F32), F32, 2)
    assert src.text.startswith("# eager add: f32_f32 -> f32, rank 2")
    assert "while i < n:" in src.text          # grid-stride loop
    assert "def ew_add_f32_f32_r2(o0, a0, a1, n, d1, s0_0, s0_1, s1_0, s1_1):" in src.text


# ----------------------------------------------------------------------------- fused (@jit) kernels

def _fused_kernels():
    """{layout: (workload, source)}: one generated kernel per fused kind and layout (the
    kernel's comment names both), from small versions of the benchmark workloads' schedules
    (fusion runs the same whatever the device, so the pass pipeline alone gives the schedule the
    cuda backend compiles). Each layout compiles once per arch: NVVM is the slow part here."""
    import jitgrad as jg
    import jitgrad.nn.functional as F
    import jitgrad.numpy as jnp
    from jitgrad.codegen.cuda.fused import GENERATORS
    from jitgrad.compilation.compile_graph import optimize
    from jitgrad.ir.kernel import kernel_nodes

    def ew_chain(x):
        return jnp.tanh(x * 2.0 + 1.0) * x - jnp.exp(-x * x) * 0.5

    def layernorm(x, w, b):
        mu = jnp.mean(x, axis=-1, keepdims=True)
        return (x - mu) / jnp.sqrt(jnp.mean((x - mu) ** 2, axis=-1, keepdims=True) + 1e-5) * w + b

    def mlp_grad(w, x):
        return jg.grad(lambda w: jnp.sum(F.gelu(x @ w) ** 2))(w)

    f32 = lambda *s: jg.ShapeDtype(s, "float32")   # noqa: E731
    workloads = {"ew_chain": (ew_chain, f32(64, 256)),
                 "sum_sq": (lambda x: jnp.sum(x * x), f32(64, 256)),
                 "column_sum": (lambda x: jnp.sum(x * x, axis=0), f32(64, 256)),
                 "row_max": (lambda x: jnp.max(x, axis=-1), f32(64, 256)),
                 "layernorm": (layernorm, f32(64, 256), f32(256), f32(256)),
                 "softmax": (lambda x: F.softmax(x, axis=-1), f32(64, 256)),
                 "softmax_long_rows": (lambda x: F.softmax(x, axis=-1), f32(4, 16384)),
                 "softmax_odd_rows": (lambda x: F.softmax(x, axis=-1), f32(4, 16383)),
                 "column_sum_short": (lambda x: jnp.sum(x * x, axis=0), f32(16, 256)),
                 "column_sum_odd": (lambda x: jnp.sum(x * x, axis=0), f32(16, 255)),
                 "linear": (lambda x, w, b: F.relu(x @ w + b), f32(8, 32), f32(32, 16), f32(16)),
                 "linear_wide": (lambda x, w: F.relu(x @ w.T), f32(128, 32), f32(96, 32)),
                 "mlp_grad": (mlp_grad, f32(32, 16), f32(8, 32))}
    out = {}
    for name, (fn, *args) in workloads.items():
        optimized, schedule, _ = optimize(jg.jit(fn).lower(*args).graph)   # no CPU compile
        for i, node in enumerate(kernel_nodes(optimized, schedule)):
            if node.params["kind"] in GENERATORS:
                src = GENERATORS[node.params["kind"]](f"{name}_k{i}", node).source
                layout = re.match(r"# kernel \S+ \((.*?)\)\n", src.text).group(1)
                out.setdefault(layout, (name, src))
    return out


@pytest.fixture(scope="module")
def fused():
    return _fused_kernels()


def test_every_fused_kind_and_layout_is_generated(fused):
    assert {re.split("[:,]", layout)[0] for layout in fused} == {"elementwise", "matmul", "reduce",
                                                          "rowwise"}
    assert {"elementwise: 4-wide vectors", "reduce: a block per output", "reduce: columns",
            "reduce: columns, 4-wide vectors",
            "reduce: columns, split 2 ways along the reduced axis, 4-wide vectors",
            "reduce: split over blocks, 4-wide vectors", "rowwise", "rowwise, 4-wide vectors",
            "rowwise: row cached in shared memory, 4-wide vectors",
            "matmul: 16x16 tiles, tensor cores (3xTF32), 1x2 warps of 1x1 mma tiles",
            "matmul: 64x64 tiles, tensor cores (3xTF32), 2x4 warps of 2x2 mma tiles"} <= set(fused)
    assert fused["rowwise"][0] == "softmax_odd_rows"      # too long to cache, odd: no groups
    assert fused["rowwise, 4-wide vectors"][0] == "softmax_long_rows"
    text = "\n".join(src.text for _, src in fused.values())
    ew = fused["elementwise: 4-wide vectors"]
    assert ew[0] == "ew_chain" and "math.tanh" in ew[1].text
    assert "cuda.shfl_down_sync" in text and "cuda.shared.array((BM, PAD_BK)" in text


@pytest.mark.parametrize("cc", [pytest.param(CCS[0], id=_arch(CCS[0]), marks=pytest.mark.slow),
                                pytest.param(CCS[1], id=_arch(CCS[1]))])
def test_fused_kernels_compile_and_link(fused, cc):    # sm_80 too with -m slow
    arch = f"sm_{cc[0]}{cc[1]}"
    for name, (_, src) in fused.items():
        ptx = _ptx(src, cc)
        assert f".target {arch}" in ptx and src.name in ptx, name
        assert ".extern .func" not in ptx, f"{name}: generated kernels must be self-contained"
        assert tc.link_cubin(ptx, arch)[:4] == b"\x7fELF", name
        if "tensor cores" in name:  # codegen/cuda/mma.py's intrinsics reach the PTX
            assert ptx.count("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32") >= 3, name
        if "vectors" in name:       # codegen/cuda/vector.py's intrinsics reach the PTX
            assert "ld.global.v4." in ptx or "ld.global.nc.v4." in ptx, name
