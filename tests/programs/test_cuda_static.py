"""The GPU readiness check without a GPU (`python -m jitgrad.benchmarks --device cuda --static`):
its readers on hand-written ptxas/SASS/PTX text, its detectors on tiny hand-written PTX assembled
by ptxas (vector access and HMMA, positive and negative), and the check itself on a subset of the
benchmark cases in a child process (no NUMBA_ENABLE_CUDASIM there): every kernel in the table, no
spills, 128-bit access in every memory-bound kernel."""
import importlib.util
import os
import re
import subprocess
import sys

import pytest

from jitgrad.benchmarks import cuda_sass as S
from jitgrad.benchmarks import cuda_static
from jitgrad.benchmarks.cuda_workloads import CASES
from jitgrad.codegen.cuda import toolchain as tc

needs_ptxas = pytest.mark.skipif(S.tools_available() is not None,
                                 reason=f"{S.tools_available()}")

PTXAS_OUT = """ptxas info    : 8 bytes gmem
ptxas info    : Compiling entry function 'k' for 'sm_90'
ptxas info    : Function properties for k
    16 bytes stack frame, 12 bytes spill stores, 8 bytes spill loads
ptxas info    : Used 255 registers, used 1 barriers, 4160 bytes smem, 400 bytes cmem[0]
"""

SASS = """
        /*0000*/                   LDC R1, c[0x0][0x28] ;
        /*0010*/                   LDG.E.128 R4, desc[UR4][R2.64] ;
        /*0020*/                   LDG.E.128 R8, desc[UR4][R2.64+0x10] ;
        /*0030*/                   FFMA R4, R4, R5, R6 ;
        /*0040*/                   MUFU.EX2 R4, R4 ;
        /*0050*/                   STG.E.128 desc[UR4][R12.64], R4 ;
        /*0060*/               @P0 BRA 0x10 ;
        /*0070*/                   HMMA.1688.F32.TF32 R16, R4, R8, R16 ;
        /*0080*/                   EXIT ;
        /*0090*/                   NOP ;
"""


def test_ptxas_resources_and_a_spill_fails_the_check():
    res = S.parse_ptxas(PTXAS_OUT)
    assert (res.registers, res.spill_stores, res.spill_loads, res.stack, res.shared) == \
        (255, 12, 8, 16, 4160)
    k = cuda_static.Kernel("case", "k_spilly", "elementwise",
                           arch={"sm_90": {"res": res, "sass": S.parse_sass(SASS)}})
    assert cuda_static.failures([k]) == ["k_spilly: 20 bytes spilled on sm_90"]
    with pytest.raises(ValueError, match="Used N registers"):
        S.parse_ptxas("ptxas fatal : nothing")


def test_sass_reader_counts_vector_access_tensor_ops_and_the_loop():
    sass = S.parse_sass(SASS)
    assert (sass.vector_loads, sass.vector_stores, sass.tensor_ops) == (2, 1, 1)
    assert sass.total == 9 and sass.count("FFMA") == 1 and sass.loads_in_flight == 2
    # the loop is 0x10..0x60 (a backward branch): 6 instructions, 1 MUFU, 48 bytes per thread
    assert (sass.loop_instructions, sass.loop_mufu, sass.loop_bytes) == (6, 1, 48)
    scalar = S.parse_sass(SASS.replace(".128", "").replace("HMMA.1688.F32.TF32", "FFMA"))
    assert (scalar.vector_loads, scalar.vector_stores, scalar.tensor_ops) == (0, 0, 0)
    assert scalar.loop_bytes == 12
    assert S.access_bytes("LDG.E.64.CONSTANT") == 8 and S.access_bytes("STG.E.U8") == 1


def test_ptx_fallback_reader():
    assert S.ptx_vector_accesses("ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1];\n"
                                 "st.global.v4.f32 [%rd2], {%f1, %f2, %f3, %f4};") == (1, 1)
    assert S.ptx_vector_accesses("ld.global.f32 %f1, [%rd1];\nst.global.v2.f32 [%rd2], "
                                 "{%f1, %f2};") == (0, 0)
    assert S.ptx_tensor_ops("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 ...") == 1
    assert S.ptx_tensor_ops("fma.rn.f32 %f1, %f2, %f3, %f4;") == 0


def test_estimates_follow_the_bounds():
    res = S.Resources(32, 0, 0, 0, 0)
    streaming = S.parse_sass(SASS.replace("HMMA.1688.F32.TF32", "FFMA"))
    est = S.estimate(300_000_000, 0, 4096, 256, res, streaming, 16)
    assert est.bound_s == pytest.approx(1e-4) and est.estimate_s == pytest.approx(1e-4)
    # a block for 16 floats: almost nothing in flight, far from the bound
    tiny = S.estimate(300_000_000, 0, 1, 32, res, streaming, 4)
    assert tiny.estimate_s > 100 * tiny.bound_s and tiny.limiter.startswith("latency")
    gemm = S.estimate(0, 67_000_000_000, 8, 256, res, streaming, 4)
    assert gemm.bound_s == pytest.approx(1e-3)
    assert gemm.estimate_s == pytest.approx(1e-3 * 132 / 8 / streaming.ffma_share())
    assert S.blocks_per_sm("sm_90", 256, S.Resources(64, 0, 0, 0, 0)) == 4
    assert S.blocks_per_sm("sm_80", 256, S.Resources(32, 0, 0, 0, 100_000)) == 1


# ----------------------------------------------------------------------------- hand-written PTX

def _kernel(body, regs):
    return (".version 8.0\n.target sm_80\n.address_size 64\n\n"
            ".visible .entry k(.param .u64 p_in, .param .u64 p_out)\n{\n" + regs +
            "  ld.param.u64 %rd1, [p_in];\n  ld.param.u64 %rd2, [p_out];\n"
            "  cvta.to.global.u64 %rd3, %rd1;\n  cvta.to.global.u64 %rd4, %rd2;\n" + body +
            "  ret;\n}\n")


REGS = "  .reg .b64 %rd<5>;\n  .reg .f32 %f<9>;\n  .reg .b32 %r<9>;\n"
VECTOR = _kernel("  ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd3];\n"
                 "  st.global.v4.f32 [%rd4], {%f4, %f3, %f2, %f1};\n", REGS)
SCALAR = _kernel("  ld.global.f32 %f1, [%rd3];\n  ld.global.f32 %f2, [%rd3+4];\n"
                 "  add.f32 %f3, %f1, %f2;\n  st.global.f32 [%rd4], %f3;\n", REGS)
MMA = _kernel("  ld.global.v4.b32 {%r1, %r2, %r3, %r4}, [%rd3];\n"
              "  ld.global.v2.b32 {%r5, %r6}, [%rd3+16];\n"
              "  ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd3+32];\n"
              "  mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%f5, %f6, %f7, %f8}, "
              "{%r1, %r2, %r3, %r4}, {%r5, %r6}, {%f1, %f2, %f3, %f4};\n"
              "  st.global.v4.f32 [%rd4], {%f5, %f6, %f7, %f8};\n", REGS)


@needs_ptxas
@pytest.mark.parametrize("arch", cuda_static.ARCHS)
def test_detectors_on_hand_written_ptx(arch):
    res, vec = S.assemble(VECTOR, arch)
    assert (vec.vector_loads, vec.vector_stores, vec.tensor_ops) == (1, 1, 0)
    assert res.spills == 0 and res.registers > 0
    _, scalar = S.assemble(SCALAR, arch)
    assert (scalar.vector_loads, scalar.vector_stores) == (0, 0) and scalar.count("LDG") >= 1
    _, mma = S.assemble(MMA, arch)
    assert mma.tensor_ops >= 1 and mma.count("HMMA") >= 1
    assert vec.tensor_ops == scalar.tensor_ops == 0


# ----------------------------------------------------------------------------- the check itself

SUBSET = ("ew_chain", "layernorm", "sum_sq")


@needs_ptxas
@pytest.mark.skipif(importlib.util.find_spec("numba_cuda") is None,
                    reason=f"numba-cuda not installed: {tc.INSTALL_HINT}")
def test_static_check_on_benchmark_cases(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    json_path = tmp_path / "static.json"
    r = subprocess.run([sys.executable, "-m", "jitgrad.benchmarks", "--device", "cuda",
                        "--static", *SUBSET, "--json", str(json_path)],
                       capture_output=True, text=True, env=env, timeout=900)
    assert r.returncode == 0, r.stderr[-3000:]
    table = r.stdout
    kernels = [k for c in CASES if c.workload in SUBSET for k in cuda_static.case_kernels(c)]
    rows = [line for line in table.splitlines() if line.startswith("| ") and "| k_" in line]
    assert len(rows) == len(kernels) == 4   # layernorm at two sizes
    for k in kernels:
        (line,) = [row for row in rows if f"| {k.name} |" in row and row.startswith(f"| {k.case} |")]
        cells = [c.strip() for c in line.strip("|").split("|")]
        assert cells[4] == "0", line                      # no spills, sm_80 or sm_90
        assert re.fullmatch(r"\d+/\d+", cells[3]), line   # registers on both archs
        assert cells[8] != "**0/0**", line                # 128-bit loads or stores
        assert "vectors" in cells[2], line
    assert "- no register spills (sm_80, sm_90): met" in table
    assert re.search(r"^- 128-bit global access in every memory-bound kernel .*: met$", table,
                     re.M), table
    assert "estimates, not measurements" in table
    assert json_path.exists()


def test_static_needs_device_cuda(capsys):
    from jitgrad.benchmarks.cli import parse
    with pytest.raises(SystemExit) as e:
        parse(["--static"], "prog")
    assert e.value.code == 2
    assert "--static is a check of the CUDA kernels: use it with --device cuda" in \
        capsys.readouterr().err
