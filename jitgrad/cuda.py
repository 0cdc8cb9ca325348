"""jg.cuda: availability, memory statistics and synchronization for cuda devices.

`import jitgrad` does not import it: jg.cuda loads on first access, and jitgrad.eager.dispatch calls
run_eager for the first op on a cuda tensor; nothing touches numba.cuda or a driver until a cuda
device is first used.
"""
from __future__ import annotations

from .eager import global_rng
from .runtime import cuda_memory
from .runtime.cuda_device import device_count, is_available, synchronize  # noqa: F401
from .runtime.device import device as _device
from .ir import lowp
from .ir.ops import Op
from .ir.registry import infer_types
from .ir.types import TensorType, kind_of


def run_eager(op, arrays, params, out_types):
    """The eager cuda backend (jitgrad.eager.dispatch.EAGER_BACKENDS["cuda"])."""
    if any(kind_of(t.dtype) == "c" for t in out_types) or any(kind_of(a.dtype) == "c" for a in arrays):
        raise NotImplementedError(f"{op} on cuda: complex numbers and the fft run on the CPU "
                                  "only (move the arrays with .to('cpu'))")
    from .codegen.cuda.eager import HOST_OPS, run      # lazy: numba.cuda
    if op not in HOST_OPS and lowp.needs_widening(op, [a.dtype for a in arrays],
                                                  [t.dtype for t in out_types]):
        return _widened(run, op, arrays, params, out_types)
    return run(op, arrays, params, out_types)


def _widened(run, op, arrays, params, out_types):
    """A low-precision op as the CPU computes it (ir/lowp.py, the widen_lowp pass): its inputs
    converted to float32 / int32 / int64, the op there, each result converted (rounded or
    wrapped) back once."""
    def convert(a, dtype):
        if a.dtype == dtype:
            return a
        return run(Op.convert, [a], {"dtype": dtype}, [TensorType(a.shape, dtype)])[0]

    wide = [convert(a, lowp.wide(a.dtype)) for a in arrays]
    params = lowp.widened_params(params)
    wide_types = infer_types(op, [TensorType(a.shape, a.dtype) for a in wide], params)
    res = run(op, wide, params, wide_types)
    return tuple(convert(r, t.dtype) for r, t in zip(res, out_types))


def _index(device) -> int:
    return 0 if device is None else (_device(device).index or 0)


def memory_allocated(device=None) -> int:
    """Bytes of device memory held by live tensors (rounded to the allocator's size classes)."""
    return cuda_memory.allocator(_index(device)).allocated


def max_memory_allocated(device=None) -> int:
    return cuda_memory.allocator(_index(device)).peak_allocated


def memory_reserved(device=None) -> int:
    """Bytes held by the caching allocator: live tensors plus cached free blocks."""
    return cuda_memory.allocator(_index(device)).reserved


def empty_cache() -> None:
    """Return every cached free block to the driver (live tensors are untouched)."""
    for index in range(device_count()):
        cuda_memory.allocator(index).empty_cache()


# jitgrad draws every device's random numbers from one default generator (torch keeps one per
# cuda device), so seeding "the cuda generators" seeds that one stream: torch's reproducibility
# recipe (manual_seed + cuda.manual_seed_all) gives the same draws on every device.
def manual_seed(seed) -> None:
    """torch.cuda.manual_seed: seed the stream cuda tensors draw from (the default generator)."""
    global_rng.manual_seed(seed)


def manual_seed_all(seed) -> None:
    """torch.cuda.manual_seed_all: as manual_seed (one stream serves every device)."""
    global_rng.manual_seed(seed)


def seed() -> None:
    """torch.cuda.seed: seed the stream from the OS's entropy."""
    global_rng.seed()


def seed_all() -> None:
    """torch.cuda.seed_all: as seed."""
    global_rng.seed()


def initial_seed() -> int:
    """torch.cuda.initial_seed: the seed the stream was last started from."""
    return global_rng.initial_seed()
