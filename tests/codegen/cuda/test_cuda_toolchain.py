"""CUDA toolchain without a GPU: kernels -> PTX (sm_80, sm_90) -> cubin via nvJitLink."""
import re
import struct
import subprocess
import sys

import pytest

from jitgrad.codegen.cuda import toolchain as tc

if tc.cuda_simulator_enabled():
    pytest.skip(
        "NUMBA_ENABLE_CUDASIM=1: compile_ptx cannot run beside the simulator", allow_module_level=True
    )
if not tc.cuda_toolchain_available():
    pytest.skip(f"CUDA toolchain not installed: {tc.INSTALL_HINT}", allow_module_level=True)

from cuda_sim.kernels import SIGNATURES, block_sum, elementwise_grid_stride, matmul_tiled  # noqa: E402

CCS = [(8, 0), (9, 0)]
EM_CUDA = 190  # ELF e_machine of a cubin


@pytest.fixture(scope="module")
def ptx():
    """PTX of every test kernel for every cc, compiled once: {(kernel, cc): ptx}."""
    return {(fn, cc): tc.compile_ptx(fn, sig, cc=cc) for fn, sig in SIGNATURES.items() for cc in CCS}


def _cubin_sm(cubin: bytes) -> int:
    # Measured with nvJitLink 13.5: byte 1 of the 64-bit ELF e_flags holds the SM number.
    (e_flags,) = struct.unpack_from("<I", cubin, 48)
    return (e_flags >> 8) & 0xFF


@pytest.mark.parametrize("cc", CCS, ids=lambda cc: f"sm_{cc[0]}{cc[1]}")
@pytest.mark.parametrize("kernel", list(SIGNATURES), ids=lambda fn: fn.__name__)
def test_kernel_compiles_to_ptx_and_links_to_cubin(ptx, kernel, cc):
    text = ptx[kernel, cc]
    arch = f"sm_{cc[0]}{cc[1]}"
    assert f".target {arch}" in text
    assert ".visible .entry" in text and kernel.__name__ in text
    assert tc.ptx_version(text) >= (9, 0)

    cubin = tc.link_cubin(text, arch)
    assert cubin[:4] == b"\x7fELF"
    assert struct.unpack_from("<H", cubin, 18)[0] == EM_CUDA
    assert _cubin_sm(cubin) == cc[0] * 10 + cc[1]


def test_ptx_uses_the_intended_instructions(ptx):
    reduction = ptx[block_sum, (9, 0)]
    assert "shfl.sync.down" in reduction and "bar.sync" in reduction and ".shared" in reduction
    matmul = ptx[matmul_tiled, (9, 0)]
    assert "bar.sync" in matmul and ".shared" in matmul
    # math.exp goes through libdevice, which NVVM links in: no external call is left.
    assert ".extern" not in ptx[elementwise_grid_stride, (9, 0)]


def test_sm80_ptx_links_forward_but_sm90_ptx_not_back(ptx):
    assert _cubin_sm(tc.link_cubin(ptx[matmul_tiled, (8, 0)], "sm_90")) == 90
    with pytest.raises(tc.CudaToolchainError, match="(?s)sm_80.*higher than default SM"):
        tc.link_cubin(ptx[matmul_tiled, (9, 0)], "sm_80")


def test_link_error_carries_the_nvjitlink_log():
    bad = ".version 9.0\n.target sm_90\n.address_size 64\n.visible .entry k() { bogus; }\n"
    with pytest.raises(tc.CudaToolchainError, match="(?s)ERROR_PTX_COMPILE.*'bogus'"):
        tc.link_cubin(bad, "sm_90")
    with pytest.raises(tc.CudaToolchainError, match="-arch=sm_bogus"):
        tc.link_cubin(bad, "sm_bogus")


def test_ptx_newer_than_nvjitlink_is_refused_before_linking(ptx, monkeypatch):
    text = re.sub(r"\.version \d+\.\d+", ".version 9.4", ptx[elementwise_grid_stride, (9, 0)])
    monkeypatch.setattr(tc, "nvjitlink_version", lambda: (13, 0))
    expected = (
        "PTX .version 9.4 needs nvJitLink 13.4 or newer; installed nvJitLink is 13.0: "
        "pip install -U nvidia-nvjitlink"
    )
    with pytest.raises(tc.CudaToolchainError) as info:
        tc.link_cubin(text, "sm_90")
    assert str(info.value) == expected
    monkeypatch.setattr(tc, "nvjitlink_version", lambda: (13, 4))
    tc.check_ptx_supported(text)


def test_real_nvjitlink_refuses_a_future_ptx_isa():
    major, minor = tc.nvjitlink_version()
    future = f".version {major - 4}.{minor + 1}\n.target sm_90\n.address_size 64\n"
    with pytest.raises(tc.CudaToolchainError, match=f"needs nvJitLink {major}.{minor + 1} or newer"):
        tc.check_ptx_supported(future)


def test_ptx_version_parses_the_directive():
    assert tc.ptx_version("//\n// comment\n\n.version 9.4\n.target sm_90\n") == (9, 4)
    with pytest.raises(ValueError, match="no `.version`"):
        tc.ptx_version("not ptx")


def test_compile_errors_name_the_kernel_signature_and_arch():
    with pytest.raises(tc.CudaToolchainError, match=r"block_sum.*void\(float32\[::1\]\).*sm_90"):
        tc.compile_ptx(block_sum, "void(float32[::1])", cc=(9, 0))


def test_simulator_env_disables_compile_ptx(monkeypatch):
    # Only our own checks run while the variable is set: numba re-reads it on every compile.
    monkeypatch.setenv("NUMBA_ENABLE_CUDASIM", "1")
    assert tc.cuda_simulator_enabled() and not tc.cuda_toolchain_available()
    with pytest.raises(tc.CudaToolchainError, match="separate process"):
        tc.compile_ptx(block_sum, SIGNATURES[block_sum])
    monkeypatch.setenv("NUMBA_ENABLE_CUDASIM", "0")
    assert not tc.cuda_simulator_enabled()


def test_missing_extra_is_reported_cleanly(monkeypatch):
    monkeypatch.setitem(sys.modules, "numba_cuda", None)  # find_spec then reports "not installed"
    assert not tc.cuda_toolchain_available()
    with pytest.raises(tc.CudaToolchainError, match=r"jitgrad\[cuda\]"):
        tc.compile_ptx(block_sum, SIGNATURES[block_sum])
    monkeypatch.setitem(sys.modules, "cuda.bindings.nvjitlink", None)
    with pytest.raises(tc.CudaToolchainError, match=r"jitgrad\[cuda\]"):
        tc.nvjitlink_version()


def test_importing_the_toolchain_module_loads_no_cuda_package():
    code = (
        "import sys, jitgrad.codegen.cuda.toolchain\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('numba_cuda', 'cuda')"
        " or m.startswith('numba.cuda')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
