"""The CUDA toolchain without a GPU: Python kernel -> PTX (NVVM) -> cubin (nvJitLink).

Everything here imports numba-cuda / cuda-python lazily, so `import jitgrad` works without the
`cuda` extra (`pip install 'jitgrad[cuda]'`, i.e. `numba-cuda[cu13]` and `cuda-python`).

Measured 2026-11 on a 2-core machine with no GPU and no driver (Python 3.11, numba 0.68.1):

- Installed: numba-cuda 0.30.4, cuda-python / cuda-bindings 13.4.4, cuda-core 1.2.2, NVVM 13.4.92
  (nvidia-nvvm), nvJitLink 13.5.37 (nvidia-nvjitlink), NVRTC 13.4.92; ~510 MB in site-packages.
  cuda-pathfinder loads these from the wheels (site-packages/nvidia/cu13), not from /usr/local/cuda.
- `numba.cuda.compile_ptx(pyfunc, sig, cc=(9, 0))` (and cc=(8, 0)) needs no GPU: it types the
  function, lowers it to NVVM IR and runs libNVVM. First call in a process ~0.5 s, then
  ~0.05-0.3 s per kernel. It returns (ptx, return_type); the PTX says `.target sm_90`.
  cc below (7, 5) is refused (CCSupportError); an unknown cc such as (9, 9) is rounded down to sm_90.
- NVVM 13.4 emits PTX `.version 9.4`. PTX ISA 9.N ships with CUDA 13.N and ptxas/nvJitLink reject a
  newer ISA ("Unsupported .version 9.9; current version is '9.5'" from nvJitLink 13.5), so the
  machine's own ptxas 13.0 cannot assemble it: link with the nvJitLink wheel instead.
- nvJitLink links PTX to a cubin with no driver: `nvjitlink.create(1, ["-arch=sm_90"])`,
  `add_data(handle, InputType.PTX, data, len(data), name)`, `complete`, `get_linked_cubin_size` +
  `get_linked_cubin` into a bytearray, `destroy`. Failures raise nvJitLinkError with only a code;
  the text is in `get_error_log`. sm_80 PTX links for sm_80, sm_90 and sm_100; sm_90 PTX
  does not link for sm_80. `cuda.core.Linker(ObjectCode.from_ptx(ptx_bytes),
  options=LinkerOptions(arch="sm_90")).link("cubin").code` does the same, but a *str* passed to
  from_ptx is taken as a file name.
- A kernel that calls a `@cuda.jit(device=True)` function (also register_jitable or @overload)
  makes compile_ptx compile the callee for the *current device*, which needs the driver: with no
  GPU it fails with CudaSupportError. Kernels meant for compile_ptx must be self-contained.
- NUMBA_ENABLE_CUDASIM=1 is read when `numba.cuda` is first imported and makes it the simulator,
  whose compile_ptx is None; numba also re-reads the variable on every compile, so setting it later
  in a process mixes a real `numba.cuda` with simulated `cuda.jit` kernels. Simulator and compile_ptx
  therefore live in separate processes. The simulator reports one fake cc (5, 2) GPU, so
  `numba.cuda.is_available()` is True there; it has no warp shuffles (shfl_*_sync: numba#8433), so
  jitgrad installs a full-warp `shfl_down_sync` into it when it first uses it (runtime/cuda_sim.py).
"""
import importlib
import importlib.util
import re

from ...ir import config
from ...runtime.cuda_device import INSTALL_HINT, simulator_enabled


class CudaToolchainError(RuntimeError):
    """The CUDA toolchain is missing or too old, or it rejected a kernel."""


# True when numba.cuda is (or will be) the simulator in this process (NUMBA_ENABLE_CUDASIM)
cuda_simulator_enabled = simulator_enabled


def cuda_toolchain_available() -> bool:
    """True when numba-cuda can compile PTX here: installed, NVVM loadable, not the simulator."""
    # numba 0.68 still ships a deprecated built-in numba.cuda, so importing numba.cuda
    # proves nothing; the NVIDIA package must be installed.
    if cuda_simulator_enabled() or importlib.util.find_spec("numba_cuda") is None:
        return False
    try:
        from numba.cuda.cudadrv import nvvm     # lazy: the NVIDIA toolchain (numba-cuda)

        nvvm.NVVM().get_version()
    except Exception:  # missing wheel or unloadable library: both mean "not available"
        return False
    return True


def _numba_cuda():
    if cuda_simulator_enabled():
        raise CudaToolchainError(
            "compile_ptx cannot run in a process with NUMBA_ENABLE_CUDASIM=1 (numba.cuda is the "
            "simulator there); compile PTX in a separate process without it"
        )
    if importlib.util.find_spec("numba_cuda") is None:
        raise CudaToolchainError(f"numba-cuda is not installed: {INSTALL_HINT}")
    return importlib.import_module("numba.cuda")


def compile_ptx(pyfunc, signature, cc=(9, 0), fastmath=None) -> str:
    """PTX for the kernel `pyfunc` (a plain Python function) with `signature`, e.g.
    "void(float32[::1], float32[::1])", for compute capability `cc`; fastmath None: as the
    cuda_fast_math option says (the kernels a GPU would run)."""
    cuda = _numba_cuda()
    if fastmath is None:
        fastmath = bool(config.read("cuda_fast_math"))
    try:
        ptx, _ = cuda.compile_ptx(pyfunc, signature, cc=cc, fastmath=fastmath)
    except Exception as e:
        name = getattr(pyfunc, "__qualname__", repr(pyfunc))
        raise CudaToolchainError(
            f"numba-cuda could not compile {name} with signature {signature!r} "
            f"for sm_{cc[0]}{cc[1]}: {type(e).__name__}: {e}"
        ) from e
    return ptx


def ptx_version(ptx: str) -> tuple[int, int]:
    """The PTX ISA version from the `.version` directive, e.g. (9, 4)."""
    match = re.search(r"^\s*\.version\s+(\d+)\.(\d+)", ptx, re.MULTILINE)
    if match is None:
        raise ValueError("not PTX: no `.version` directive found")
    return int(match.group(1)), int(match.group(2))


def _nvjitlink():
    try:
        return importlib.import_module("cuda.bindings.nvjitlink")
    except ImportError as e:
        raise CudaToolchainError(f"cuda-python (cuda.bindings) is not installed: {INSTALL_HINT}") from e


def nvjitlink_version() -> tuple[int, int]:
    """(major, minor) of the loaded libnvJitLink, e.g. (13, 5)."""
    nvjitlink = _nvjitlink()
    try:
        major, minor = nvjitlink.version()
    except Exception as e:  # the bindings import fine but the shared library is missing
        raise CudaToolchainError(f"libnvJitLink could not be loaded ({e}): {INSTALL_HINT}") from e
    return major, minor


def check_ptx_supported(ptx: str) -> None:
    """Raise CudaToolchainError if the installed nvJitLink is too old to assemble this PTX."""
    major, minor = ptx_version(ptx)
    # PTX ISA 9.N ships with CUDA 13.N (and 8.N with 12.N, give or take one release before 12.8).
    needed = (major + 4, minor)
    installed = nvjitlink_version()
    if installed < needed:
        raise CudaToolchainError(
            f"PTX .version {major}.{minor} needs nvJitLink {needed[0]}.{needed[1]} or newer; "
            f"installed nvJitLink is {installed[0]}.{installed[1]}: pip install -U nvidia-nvjitlink"
        )


def link_cubin(ptx: str, arch: str = "sm_90") -> bytes:
    """Assemble and link `ptx` into a cubin (ELF bytes) for `arch`; needs no GPU or driver."""
    check_ptx_supported(ptx)
    nvjitlink = _nvjitlink()
    try:
        handle = nvjitlink.create(1, [f"-arch={arch}"])
    except nvjitlink.nvJitLinkError as e:
        raise CudaToolchainError(f"nvJitLink rejected -arch={arch}: {e}") from e
    try:
        data = ptx.encode()
        nvjitlink.add_data(handle, nvjitlink.InputType.PTX, data, len(data), "kernel.ptx")
        nvjitlink.complete(handle)
        cubin = bytearray(nvjitlink.get_linked_cubin_size(handle))
        nvjitlink.get_linked_cubin(handle, cubin)
        return bytes(cubin)
    except nvjitlink.nvJitLinkError as e:
        # The exception carries only the error code; ptxas's message is in the error log.
        log = bytearray(nvjitlink.get_error_log_size(handle))
        nvjitlink.get_error_log(handle, log)
        text = log.decode(errors="replace").rstrip("\x00").strip()
        raise CudaToolchainError(f"nvJitLink could not link PTX for {arch} ({e}):\n{text}") from e
    finally:
        nvjitlink.destroy(handle)
