"""`python -m jitgrad.benchmarks --device cuda`: jitgrad on an NVIDIA GPU against PyTorch (eager
and torch.compile), jax.jit and CuPy on the same GPU in one process, and against the HBM bound.

The functions are the CPU implementations' own (impl_jitgrad, impl_torch, impl_jax; CuPy runs
impl_numpy's NumPy code on CuPy arrays through __array_ufunc__/__array_function__): they are
device-agnostic, only the inputs move. Time per call is the median over interleaved rounds of
(a batch of back-to-back calls + one wait for the last result) / calls, so it covers launches and
kernels the way a training loop runs them. Every output is checked against NumPy on the host.

The HBM bound of a workload is the bytes it must move at least once (the workload table's cost:
read the input, write a same-sized output; sum(x*x) only reads) over the device-to-device copy
bandwidth measured in the same run (1 GiB, read + write). Each row states its issue goal and
whether it was met.
"""
from __future__ import annotations

import datetime
import importlib
import json
import statistics
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from .harness import check, short_error
from .impl import tree_map
from .workloads import BY_NAME

PEERS = ("torch", "torch.compile", "jax", "cupy")


@dataclass(frozen=True)
class GpuCase:
    workload: str       # a name in workloads.BY_NAME: its inputs, implementations and cost
    size: Any
    quick: Any          # --quick: a smoke test of the harness on a GPU


CASES = [
    GpuCase("ew_chain", 10_000_000, 100_000),
    GpuCase("gelu", 10_000_000, 100_000),
    GpuCase("softmax", (4096, 1024), (256, 256)),
    GpuCase("softmax", (16384, 4096), (256, 1024)),
    GpuCase("layernorm", (4096, 1024), (256, 256)),
    GpuCase("layernorm", (16384, 4096), (256, 1024)),
    GpuCase("sum_sq", 100_000_000, 1_000_000),
    GpuCase("mlp_step", 256, 32),
    GpuCase("mlp_step", 4096, 64),
    GpuCase("call_overhead", 16, 16),
]


def bytes_moved(workload: str, inputs: tuple) -> int | None:
    """Bytes the workload must move through HBM at least once; None where no memory bound applies
    (the MLP step is matmul-bound, the call overhead is launch-bound)."""
    cost = BY_NAME[workload].cost
    moved = cost(inputs).bytes if cost else 0
    return moved or None


# ----------------------------------------------------------------------------- goals

@dataclass(frozen=True)
class Goal:
    text: str
    verdict: Callable[[dict], str]    # a row's times -> "met" / "missed: ..." / "not measured: ..."


def _ms(row, impl):
    return row["results"].get(impl, {}).get("ms")


def _bandwidth(row) -> str:
    jg, bound, tc = _ms(row, "jitgrad"), row["bound_ms"], _ms(row, "torch.compile")
    if jg is None or bound is None:
        return "not measured: no jitgrad time"
    ratio = jg / bound
    parts = [f"{ratio:.2f}x bound"] + ([f"{jg / tc:.2f}x torch.compile"] if tc else [])
    met = ratio <= 1.3 and (tc is None or jg <= tc)
    return ("met: " if met else "missed: ") + ", ".join(parts) + \
        ("" if tc else " (torch.compile not run)")


def _cublas(row) -> str:
    jg, torch = _ms(row, "jitgrad"), _ms(row, "torch")
    if jg is None or torch is None:
        return "not measured: needs jitgrad and torch eager times"
    ratio = jg / torch
    return f"{'met' if ratio <= 1.5 else 'missed'}: {ratio:.2f}x torch eager"


def _overhead(row) -> str:
    jg = _ms(row, "jitgrad")
    if jg is None:
        return "not measured: no jitgrad time"
    return f"{'met' if jg * 1e3 <= 10 else 'missed'}: {jg * 1e3:.1f} µs per call"


GOALS = {
    "bandwidth": Goal("≤ 1.3x HBM bound and ≤ torch.compile", _bandwidth),
    "cublas": Goal("≤ 1.5x torch eager (cuBLAS)", _cublas),
    "overhead": Goal("≤ 10 µs per call", _overhead),
}
GOAL_OF = {"ew_chain": "bandwidth", "gelu": "bandwidth", "softmax": "bandwidth",
           "layernorm": "bandwidth", "sum_sq": "bandwidth", "mlp_step": "cublas",
           "call_overhead": "overhead"}


# ----------------------------------------------------------------------------- peers

@dataclass(frozen=True)
class Peer:
    name: str
    version: str
    fns: dict                           # workload name -> function
    to_device: Callable                 # numpy leaf -> device array, outside timing
    to_host: Callable                   # device leaf -> numpy, only for checking
    wait: Callable                      # wait(out): the call's work on the GPU has finished


def _jitgrad():
    import jitgrad as jg
    from . import impl_jitgrad
    return Peer("jitgrad", jg.__version__, impl_jitgrad.IMPLS[0].fns,
                lambda a: jg.tensor(a, device="cuda"), lambda t: t.numpy(),
                lambda out: jg.cuda.synchronize())


def _torch():
    import torch
    if not torch.cuda.is_available():
        raise ImportError("torch sees no CUDA device")
    mod = importlib.import_module(".impl_torch", __package__)

    def to(a):
        return torch.from_numpy(a).cuda()

    def host(t):
        return t.detach().cpu().numpy()

    def wait(out):
        torch.cuda.synchronize()
    return [Peer("torch", torch.__version__, mod.EAGER, to, host, wait),
            Peer("torch.compile", torch.__version__, mod.COMPILED, to, host, wait)]


def _jax():
    import jax
    gpus = [d for d in jax.devices() if d.platform == "gpu"]
    if not gpus:
        raise ImportError("jax sees no GPU (install jax[cuda12] or jax[cuda13])")
    mod = importlib.import_module(".impl_jax", __package__)
    return [Peer("jax", jax.__version__, mod.IMPLS[0].fns, lambda a: jax.device_put(a, gpus[0]),
                 np.asarray, jax.block_until_ready)]


def _cupy():
    import cupy
    if cupy.cuda.runtime.getDeviceCount() == 0:
        raise ImportError("cupy sees no CUDA device")
    from . import impl_numpy    # NumPy code dispatches to CuPy on CuPy arrays
    return [Peer("cupy", cupy.__version__, impl_numpy.IMPLS[0].fns, cupy.asarray, cupy.asnumpy,
                 lambda out: cupy.cuda.get_current_stream().synchronize())]


LOADERS = {"torch": _torch, "torch.compile": _torch, "jax": _jax, "cupy": _cupy}


def load_peers(names) -> tuple[list[Peer], dict[str, str]]:
    """jitgrad and each named peer that imports and sees a GPU; {name: why not} for the rest."""
    peers, skipped = [_jitgrad()], {}
    for name in dict.fromkeys(names):
        if any(p.name == name for p in peers):
            continue
        try:
            peers += [p for p in LOADERS[name]() if p.name in names]
        except Exception as e:   # noqa: BLE001 - missing or broken: a "not run" line, not a crash
            skipped[name] = short_error(e)
    return peers, skipped


# ----------------------------------------------------------------------------- timing

@dataclass
class _Runner:
    peer: Peer
    fn: Callable
    args: tuple
    calls: int = 1
    times: list = field(default_factory=list)
    out: dict = field(default_factory=dict)     # ms, calls, check, error


def _batch(r: _Runner) -> None:
    t0 = time.perf_counter()
    for _ in range(r.calls):
        out = r.fn(*r.args)
    r.peer.wait(out)
    r.times.append((time.perf_counter() - t0) / r.calls)


def _start(peer, workload, inputs, ref, target_s) -> _Runner:
    r = _Runner(peer, peer.fns[workload], ())
    try:
        r.args = tree_map(peer.to_device, inputs)
        out = r.fn(*r.args)                  # compiles
        r.out["check"] = check(tree_map(lambda x: np.asarray(peer.to_host(x)), out), ref)
        r.calls = 1
        _batch(r)                            # warm (allocator caches) and size the batch
        r.calls = max(1, min(10_000, round(target_s / max(r.times.pop(), 1e-7))))
    except Exception as e:   # noqa: BLE001 - one peer failing must not hide the others' numbers
        r.out["error"] = short_error(e)
    return r


def time_case(peers, workload, inputs, ref, repeat, target_s=0.05) -> dict:
    """{peer: {"ms", "calls", "check"} or {"error"}}: rounds interleaved round-robin, rotated."""
    runners = [_start(p, workload, inputs, ref, target_s) for p in peers if workload in p.fns]
    live = [r for r in runners if "error" not in r.out]
    for k in range(repeat):
        for r in live[k % max(1, len(live)):] + live[:k % max(1, len(live))]:
            if "error" not in r.out:
                try:
                    _batch(r)
                except Exception as e:   # noqa: BLE001
                    r.out["error"] = short_error(e)
    for r in live:
        if "error" not in r.out:
            r.out.update(ms=1e3 * statistics.median(r.times), calls=r.calls)
    return {r.peer.name: r.out for r in runners}


def measure_device(nbytes=1 << 30, repeat=11) -> tuple[str, float]:
    """The GPU's name, and bytes read + written per second by a device-to-device copy."""
    from numba import cuda
    name = cuda.get_current_device().name
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
    return name.decode() if isinstance(name, bytes) else name, 2 * nbytes / statistics.median(times)


# ----------------------------------------------------------------------------- report

def _cell(row, impl) -> str:
    res = row["results"].get(impl)
    if res is None:
        return "-"
    if "error" in res:
        text = f"error: {res['error']}"
    else:
        flag = "" if res.get("check") == "ok" else f" ({res.get('check', 'unchecked')})"
        text = f"{res['ms']:.4g}{flag}"
    return text.replace("|", "\\|")


def to_markdown(report: dict) -> str:
    m, impls = report["meta"], report["meta"]["impls"]
    lines = [f"# jitgrad on {m['device']} ({m['sizes']} sizes, {m['repeat']} interleaved rounds, "
             "median time per call)", "",
             f"- HBM bound: bytes moved ÷ device-to-device copy bandwidth, measured here: "
             f"{m['copy_GB_per_s']:.0f} GB/s (1 GiB, read + write)",
             "- versions: " + ", ".join(f"{k} {v}" for k, v in m["versions"].items())]
    lines += [f"- not run: {k} ({v})" for k, v in report["skipped"].items()]
    lines += ["", "| workload | size | MB moved | bound ms | " +
              " | ".join(f"{i} ms" for i in impls) + " | goal | verdict |",
              "|---|---|---:|---:|" + "---:|" * len(impls) + "---|---|"]
    for row in report["rows"]:
        moved = f"{row['bytes_moved'] / 1e6:.4g}" if row["bytes_moved"] else "-"
        bound = f"{row['bound_ms']:.4g}" if row["bound_ms"] else "-"
        lines.append(f"| {row['workload']} | {row['size']} | {moved} | {bound} | " +
                     " | ".join(_cell(row, i) for i in impls) +
                     f" | {GOALS[row['goal']].text} | {row['verdict']} |")
    return "\n".join(lines) + "\n"


def build_row(case_workload, size, inputs, bandwidth, results) -> dict:
    moved = bytes_moved(case_workload, inputs)
    row = {"workload": case_workload, "size": str(size), "bytes_moved": moved,
           "bound_ms": 1e3 * moved / bandwidth if moved else None,
           "goal": GOAL_OF[case_workload], "results": results}
    row["verdict"] = GOALS[row["goal"]].verdict(row)
    return row


def unavailable_reason() -> str | None:
    """Why `--device cuda` cannot measure here, in one line; None on a usable GPU."""
    from ..runtime import cuda_device
    if cuda_device.simulator_enabled():
        return ("NUMBA_ENABLE_CUDASIM=1 is set: the CUDA simulator runs every GPU thread as a "
                "Python thread and cannot be benchmarked; unset it on a machine with an NVIDIA GPU")
    if not cuda_device.is_available():
        return f"no usable CUDA GPU here: {cuda_device.unavailable_reason()}"
    return None


def main(args) -> int:
    why = unavailable_reason()
    if why:
        print(f"--device cuda: {why}", file=sys.stderr)
        return 1
    cases = [c for c in CASES if not args.workloads or c.workload in args.workloads]
    if not cases:
        print(f"--device cuda: none of {', '.join(args.workloads)} has a GPU case; choose from "
              f"{', '.join(dict.fromkeys(c.workload for c in CASES))}", file=sys.stderr)
        return 2
    peers, skipped = load_peers(args.compare_gpu)
    repeat = args.repeat or (3 if args.quick else 11)
    print("measuring device copy bandwidth ...", file=sys.stderr, flush=True)
    device, bandwidth = measure_device()
    from . import impl_numpy
    rows = []
    for case in cases:
        size = case.quick if args.quick else case.size
        print(f"{case.workload} {size} ...", file=sys.stderr, flush=True)
        inputs = BY_NAME[case.workload].make_inputs(np.random.default_rng(0), size)
        ref = tree_map(np.asarray, impl_numpy.IMPLS[0].fns[case.workload](*inputs))
        results = time_case(peers, case.workload, inputs, ref, repeat)
        rows.append(build_row(case.workload, size, inputs, bandwidth, results))
    report = {"meta": {"device": device,
                       "sizes": "quick" if args.quick else "full", "repeat": repeat,
                       "copy_GB_per_s": bandwidth / 1e9, "impls": [p.name for p in peers],
                       "versions": {p.name: p.version for p in peers},
                       "date": datetime.datetime.now().isoformat(timespec="seconds")},
              "skipped": skipped, "rows": rows}
    text = to_markdown(report)
    print(text)
    json_path = args.json or "cuda-bench.json"
    with open(json_path, "w") as f:
        json.dump(report, f, indent=1)
    md_path = json_path.removesuffix(".json") + ".md"
    with open(md_path, "w") as f:
        f.write(text)
    print(f"wrote {json_path} and {md_path}", file=sys.stderr)
    return 0

