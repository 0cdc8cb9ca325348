"""The CUDA target's limits and launch policy, one description read by every generator (the jit
kernels of codegen/cuda/fused/ and the eager ones of codegen/cuda/eager.py, kernels.py).

`current()` reads the SM count from the device where a GPU is present (numba.cuda's
MULTIPROCESSOR_COUNT); elsewhere (no GPU, the simulator, compile_ptx in the PTX tests) it is
DEFAULT, an H100's. Generated source depends on it, so a kernel built for another GPU is another
cached kernel. The rest is the same on every NVIDIA GPU (or a tuning choice)."""
from __future__ import annotations

import dataclasses
import functools

from ...runtime import cuda_device


@dataclasses.dataclass(frozen=True)
class CudaTarget:
    sms: int = 132             # streaming multiprocessors (an H100 SXM's)
    block: int = 256           # threads per block of block-wide reductions and rowwise kernels
    max_blocks: int = 4096     # grid-stride loops beyond this many blocks
    split_elems: int = 2048    # a full reduction gets one block per this many elements ...
    max_split: int = 1024      # ... up to this many, then a second pass folds their partials



WARP = 32       # threads of a warp, every NVIDIA GPU's (generated shuffles fold 16, 8, ... 1)
DEFAULT = CudaTarget()


def threads_for(n, per_thread=1) -> int:
    """Threads per block for n items, per_thread each: whole warps, at most a block (small
    launches get small blocks, which also keeps the simulator, a thread per CUDA thread, fast).
    Every generated kernel's block, jit and eager."""
    return min(DEFAULT.block, max(WARP, -(-n // (WARP * per_thread)) * WARP))


def grid_for(n, threads, per_thread=1) -> int:
    """Blocks of a grid-stride loop over n items: one pass, at most max_blocks."""
    return min(DEFAULT.max_blocks, max(1, -(-n // (threads * per_thread))))


@functools.lru_cache(maxsize=1)
def current() -> CudaTarget:
    """The target kernels are generated for: the present GPU's, else DEFAULT."""
    if cuda_device.simulator_enabled() or not cuda_device.is_available():
        return DEFAULT
    dev = cuda_device.numba_cuda().get_current_device()
    return dataclasses.replace(DEFAULT, sms=dev.MULTIPROCESSOR_COUNT)
