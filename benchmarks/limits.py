"""Physical limits of this machine, measured in every run, at its start and at its end.

The VM's host takes CPU time away in bursts of seconds (sgemm medians of 45 and 240 GFLOP/s a
minute apart were seen), which only ever lowers a measured rate; the limit is what the machine can
do, so each rate is the better of the two measurements. Each one is still a median of many calls.
"""
from __future__ import annotations

import statistics
import time
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Limits:
    copy_bytes_per_s: float  # bytes read + written per second by a large copy
    sgemm_flops_per_s: float

    def best(self, other: "Limits") -> "Limits":
        return Limits(max(self.copy_bytes_per_s, other.copy_bytes_per_s),
                      max(self.sgemm_flops_per_s, other.sgemm_flops_per_s))

    def bound_s(self, cost) -> float:
        return cost.bytes / self.copy_bytes_per_s + cost.flops / self.sgemm_flops_per_s


def _median_s(fn, repeat: int) -> float:
    fn()  # first touch of the destination: page faults are not bandwidth
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def measure(repeat: int = 21) -> Limits:
    src = np.ones(16 * 2**20, dtype=np.float32)  # 64 MiB: twice the L3 of FACTS.md's machine
    dst = np.empty_like(src)
    copy_s = _median_s(lambda: np.copyto(dst, src), repeat)
    n = 1024
    a = np.ones((n, n), dtype=np.float32)
    c = np.empty_like(a)
    gemm_s = _median_s(lambda: np.dot(a, a, out=c), repeat)
    return Limits(copy_bytes_per_s=2 * src.nbytes / copy_s, sgemm_flops_per_s=2 * n**3 / gemm_s)
