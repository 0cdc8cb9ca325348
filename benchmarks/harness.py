"""Timing: every implementation of a workload in one process, interleaved round-robin.

Interleaving puts slow drifts of this noisy 2-core VM (host steal, other processes) on every
implementation alike; rotating the order each round keeps any one of them from always running
right after the same other one. Each round times one batch of calls per implementation (batch
sized in warm-up to ~20 ms); the reported time is the median over rounds of time per call.

Threads. One process holds up to five thread pools (numpy's OpenBLAS, scipy's OpenBLAS used by
numba's np.dot, numba's OpenMP, torch's OpenMP, XLA's), each spin-waiting after its work by
default, so whichever runs next finds its cores taken. Measured here (2 cores, load ~1): numpy
and numba MLP steps interleaved took 23.8 / 26.5 ms with the defaults, 11.2 / 12.8 ms with
OMP_WAIT_POLICY=passive, and 7.5 / 5.9 ms with OPENBLAS_THREAD_TIMEOUT=4 as well (OpenBLAS
threads then sleep almost at once; numpy alone: 7.9 ms either way). With other processes on the
cores (load 8-10) the logreg step of numpy / numba / torch took 5-9 / 4-49 / 13-35 ms with the
defaults and 0.1-1.5 / 0.5-2 / 0.5-1.6 ms with both settings. So cli.py runs the harness with both
set unless the user set them, which keeps each framework close to its speed when running alone.
"""
from __future__ import annotations

import gc
import resource
import statistics
import time
from dataclasses import dataclass, field

import numpy as np

from .impl import Impl, tree_leaves
from .workloads import Workload

RTOL, ATOL = 1e-3, 1e-5


@dataclass(frozen=True)
class Settings:
    repeat: int = 11        # timed rounds; each impl runs one batch per round
    warmup: int = 2         # untimed calls after the checked first call (at least 1)
    target_s: float = 0.02  # batch length: enough calls that timer resolution does not matter


@dataclass
class Result:
    workload: str
    impl: str
    median_ms: float | None = None
    ratio_numpy: float | None = None
    ratio_bound: float | None = None
    faults_per_call: float | None = None
    calls_per_batch: int = 0
    check: str = ""
    error: str | None = None


@dataclass
class _Runner:
    impl: Impl
    args: tuple
    result: Result
    calls: int
    times: list = field(default_factory=list)
    faults: int = 0


def short_error(e: BaseException) -> str:
    text = f"{type(e).__name__}: {e}".strip().splitlines()[0]
    return text if len(text) <= 120 else text[:117] + "..."


def check(out, ref) -> str:
    if ref is None:
        return "no reference"
    got, want = tree_leaves(out), tree_leaves(ref)
    if len(got) != len(want) or any(np.shape(g) != np.shape(w) for g, w in zip(got, want)):
        return f"mismatch: structure {[np.shape(g) for g in got]} vs {[np.shape(w) for w in want]}"
    worst = 0.0
    for g, w in zip(got, want):
        g, w = np.asarray(g, np.float64), np.asarray(w, np.float64)
        worst = max(worst, float(np.max(np.abs(g - w) - RTOL * np.abs(w), initial=-np.inf)))
    return "ok" if worst <= ATOL else f"mismatch: |err| exceeds rtol by {worst:.1e}"


def _minor_faults() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def _batch(runner: _Runner) -> None:
    impl, name, args = runner.impl, runner.result.workload, runner.args
    f0 = _minor_faults()
    t0 = time.perf_counter()
    for _ in range(runner.calls):
        impl.call(name, args)
    runner.times.append((time.perf_counter() - t0) / runner.calls)
    runner.faults += _minor_faults() - f0


def _start(impl: Impl, workload: Workload, inputs: tuple, ref, settings: Settings) -> _Runner | Result:
    """Check the output once, warm up, and size the batch; a Result if the impl fails."""
    result = Result(workload.name, impl.name)
    if impl.error:
        result.error = impl.error
        return result
    try:
        args = impl.prepare(inputs)
        result.check = check(impl.numpy(impl.call(workload.name, args)), ref)
        for _ in range(max(1, settings.warmup)):  # the last one sizes the batch
            t0 = time.perf_counter()
            impl.call(workload.name, args)
            one_call = time.perf_counter() - t0
    except Exception as e:  # noqa: BLE001 - report it in the table and keep going
        result.error = short_error(e)
        return result
    calls = max(1, min(100_000, round(settings.target_s / max(one_call, 1e-7))))
    return _Runner(impl, args, result, calls)


def run_workload(workload: Workload, inputs: tuple, impls: list[Impl], reference: Impl,
                 settings: Settings) -> list[Result]:
    try:
        ref = reference.numpy(reference.call(workload.name, inputs))
    except Exception:  # noqa: BLE001 - the numpy row shows the error itself
        ref = None
    started = [_start(impl, workload, inputs, ref, settings)
               for impl in impls if impl.error or workload.name in impl.fns]
    runners = [r for r in started if isinstance(r, _Runner)]
    gc.collect()
    gc.disable()  # a collection inside one batch would be charged to whoever triggered it
    try:
        for round_ in range(settings.repeat):
            k = round_ % max(1, len(runners))
            for runner in runners[k:] + runners[:k]:
                if runner.result.error is None:
                    try:
                        _batch(runner)
                    except Exception as e:  # noqa: BLE001
                        runner.result.error = short_error(e)
    finally:
        gc.enable()
    for runner in runners:
        if runner.result.error is None:
            runner.result.median_ms = 1e3 * statistics.median(runner.times)
            runner.result.faults_per_call = runner.faults / (runner.calls * len(runner.times))
            runner.result.calls_per_batch = runner.calls
    return [r.result if isinstance(r, _Runner) else r for r in started]


def add_ratios(results: list[Result], bound_ms: float | None) -> None:
    numpy_ms = next((r.median_ms for r in results if r.impl == "numpy"), None)
    for r in results:
        if r.median_ms is not None:
            r.ratio_numpy = r.median_ms / numpy_ms if numpy_ms else None
            r.ratio_bound = r.median_ms / bound_ms if bound_ms else None
