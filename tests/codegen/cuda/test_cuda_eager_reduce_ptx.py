"""CUDA's eager reductions from the jit's kernels (codegen/cuda/eager_reduce.py: columns, the
full split and rows over runtime extents) compile to PTX for sm_80 and sm_90 and link; no GPU or driver needed (cannot
share a process with the simulator)."""
import numpy as np
import pytest

from jitgrad.codegen.cuda import toolchain as tc

if tc.cuda_simulator_enabled():
    pytest.skip("NUMBA_ENABLE_CUDASIM=1: compile_ptx cannot run beside the simulator",
                allow_module_level=True)
if not tc.cuda_toolchain_available():
    pytest.skip(f"CUDA toolchain not installed: {tc.INSTALL_HINT}", allow_module_level=True)

from jitgrad.codegen.cuda import eager_reduce  # noqa: E402
from jitgrad.ir.ops import Op  # noqa: E402

F32, I16, I64, B = (np.dtype(d) for d in ("float32", "int16", "int64", "bool"))


@pytest.mark.parametrize("cc", [(8, 0), (9, 0)], ids=lambda cc: f"sm_{cc[0]}{cc[1]}")
@pytest.mark.parametrize("key", [
    (Op.reduce_sum, F32, F32, (True, False), False),
    (Op.reduce_max, B, B, (False, True, False), True),
    (Op.reduce_prod, I64, I64, (True, False, True, False), True),
    (Op.reduce_min, I16, I16, (True, False), False),
    (Op.reduce_sum, F32, F32),
    (Op.reduce_max, B, B),
    (Op.argmax, F32, I64, (True, False), 64, "rows"),
    (Op.reduce_sum, F32, F32, (False, True), 256, "rows"),
], ids=["sum_f32_rk", "max_bool_krk_split", "prod_i64_rkrk_split", "min_i16_rk", "full_sum_f32",
        "full_max_bool", "rows_argmax_f32_rk", "rows_sum_f32_kr"])
def test_eager_reduce_kernel_compiles_and_links(key, cc):
    src = {3: eager_reduce.full, 5: eager_reduce.columns}.get(len(key), eager_reduce.rows)(
        *key[:5])
    arch = f"sm_{cc[0]}{cc[1]}"
    ptx = tc.compile_ptx(src.load()[0], src.signature, cc=cc)
    assert f".target {arch}" in ptx and ".entry" in ptx and src.name in ptx
    assert tc.link_cubin(ptx, arch)[:4] == b"\x7fELF"
