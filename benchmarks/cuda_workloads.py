"""`--device cuda`: the workloads at GPU sizes, jitgrad on cuda tensors against PyTorch (eager and
torch.compile) and JAX on the GPU, with the device's copy bandwidth as the bound.

The functions are the CPU implementations' own (impl_jitgrad, impl_torch, impl_jax): they are
device-agnostic, only the inputs move. Every timed call is followed by a device synchronize, so
a time covers the launches and the kernels; rounds are medians. Outputs are checked against
jitgrad's CPU result of the same function (small tolerance: the GPU's math differs in ulps).
"""
from __future__ import annotations

import importlib
import statistics
import sys
import time

import numpy as np

from .impl import tree_leaves, tree_map
from .workloads import Cost, _mlp_flops, _mlp_inputs, _rows, _vector

# name -> (full size, quick size, make_inputs, bytes/flops the bound counts)
GPU_SIZES = {
    "ew_chain": (100_000_000, 1_000_000, _vector, lambda i: Cost(bytes=2 * i[0].nbytes)),
    "gelu": (100_000_000, 1_000_000, _vector, lambda i: Cost(bytes=2 * i[0].nbytes)),
    "softmax": ((16384, 4096), (1024, 1024), _rows, lambda i: Cost(bytes=2 * i[0].nbytes)),
    "layernorm": ((16384, 4096), (1024, 1024), _rows, lambda i: Cost(bytes=2 * i[0].nbytes)),
    "mlp_step": (4096, 256, _mlp_inputs, _mlp_flops),
    "call_overhead": (16, 16, _vector, None),
}


def _copy_bandwidth(cuda, nbytes=1 << 30, repeat=11) -> float:
    """Bytes read + written per second by a device-to-device copy of 1 GiB."""
    src = cuda.device_array(nbytes, np.uint8)
    dst = cuda.device_array(nbytes, np.uint8)
    dst.copy_to_device(src)
    cuda.synchronize()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        dst.copy_to_device(src)
        cuda.synchronize()
        times.append(time.perf_counter() - t0)
    return 2 * nbytes / statistics.median(times)


def _peers(names):
    """(name, {workload: fn}, to_device, sync) of each peer that imports and sees a GPU."""
    import jitgrad as jg
    from . import impl_jitgrad
    out = [("jitgrad", impl_jitgrad.IMPLS[0].fns, lambda a: jg.tensor(a, device="cuda"),
            jg.cuda.synchronize)]
    if "torch" in names:
        try:
            import torch
            if torch.cuda.is_available():
                mod = importlib.import_module(".impl_torch", __package__)
                to = lambda a: torch.from_numpy(a).cuda()   # noqa: E731
                out += [("torch", mod.EAGER, to, torch.cuda.synchronize),
                        ("torch.compile", mod.COMPILED, to, torch.cuda.synchronize)]
        except ImportError:
            pass
    if "jax" in names:
        try:
            import jax
            if jax.devices()[0].platform == "gpu":
                mod = importlib.import_module(".impl_jax", __package__)
                out.append(("jax", mod.IMPLS[0].fns, jax.device_put,
                            lambda: None))   # results are blocked on below
        except (ImportError, RuntimeError):
            pass
    return out


def _time(fn, args, sync, repeat) -> float:
    def call():
        out = fn(*args)
        for leaf in tree_leaves(out):
            getattr(leaf, "block_until_ready", lambda: None)()
        sync()
    call()
    call()   # compile, then warm the caching allocators
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        call()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def _host(leaf):
    """A jitgrad cuda Tensor (or any array) copied to a NumPy array."""
    return np.asarray(leaf.numpy()) if hasattr(leaf, "numpy") else np.asarray(leaf)


def main(args) -> int:
    import jitgrad as jg
    if not jg.cuda.is_available():
        print("no CUDA device: `--device cuda` needs an NVIDIA GPU and the `cuda` extra "
              "(pip install 'jitgrad[cuda]')", file=sys.stderr)
        return 1
    from numba import cuda
    names = [w for w in args.workloads if w in GPU_SIZES] or list(GPU_SIZES)
    peers = _peers(args.compare.split(","))
    bandwidth = _copy_bandwidth(cuda)
    repeat = args.repeat or (3 if args.quick else 11)
    dev = getattr(cuda.get_current_device(), "name", "the CUDA simulator")
    dev = dev.decode() if isinstance(dev, bytes) else dev
    print(f"device: {dev}, copy bandwidth "
          f"{bandwidth / 1e9:.0f} GB/s (read + write)\n")
    print("| workload | size | bound ms | " + " | ".join(f"{p[0]} ms" for p in peers) + " |")
    print("|---" * (3 + len(peers)) + "|")
    for name in names:
        full, quick, make, cost = GPU_SIZES[name]
        size = quick if args.quick else full
        inputs = make(np.random.default_rng(0), size)
        ref = None
        if name != "mlp_step" or args.quick:    # the full MLP step on the CPU takes too long
            ref = _cpu_reference(name, inputs)
        c = cost(inputs) if cost else None
        bound = f"{1e3 * c.bytes / bandwidth:.3f}" if c and c.bytes else "-"
        cells = []
        for pname, fns, to, sync in peers:
            if name not in fns:
                cells.append("-")
                continue
            args_dev = tree_map(to, inputs)
            try:
                ms = 1e3 * _time(fns[name], args_dev, sync, repeat)
                if ref is not None and pname == "jitgrad":
                    got = [_host(x) for x in tree_leaves(fns[name](*args_dev))]
                    for g, r in zip(got, ref):
                        np.testing.assert_allclose(g, r, rtol=2e-3, atol=2e-4)
                cells.append(f"{ms:.3f}")
            except Exception as e:   # one peer failing must not hide the others' numbers
                cells.append(f"error: {type(e).__name__}: {str(e).splitlines()[0][:60]}")
        print(f"| {name} | {size} | {bound} | " + " | ".join(cells) + " |", flush=True)
    return 0


def _cpu_reference(name, inputs):
    import jitgrad as jg
    from . import impl_jitgrad
    out = impl_jitgrad.IMPLS[0].fns[name](*tree_map(jg.tensor, inputs))
    return [leaf.numpy() for leaf in tree_leaves(out)]
