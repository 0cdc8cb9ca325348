"""jg.distributed against raw mpi4py, and the data-parallel demo with 1 and N ranks.

    python -m jitgrad.benchmarks.distributed                 # 2 ranks, sizes 1 KB .. 64 MB
    python -m jitgrad.benchmarks.distributed --ranks 2 --demo-epochs 3

It starts itself under `mpiexec -n RANKS` for the bandwidth table, then `jitgrad demo
--distributed` with 1 and RANKS ranks for samples/s. Bandwidth is the algorithm bandwidth
(buffer bytes / best time of one call), raw and jitgrad calls interleaved, a barrier before
each. `jg sum` does the same MPI call as raw Allreduce(send, recv); `jg mean` adds the division
by the world size. The last row compares one jg.allreduce of a pytree of 100 leaves (one
bucket) with 100 raw calls, one per leaf.
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time

import numpy as np

SIZES = [1 << k for k in range(10, 27, 2)]    # 1 KB, 4 KB, ..., 64 MB
LEAVES, LEAF_BYTES = 100, 10 << 10


def _timed_pair(raw, ours, comm, reps):
    """Interleaved best times (raw, ours) over the same number of calls on every rank: on a
    shared 2-core machine the median mostly measures other processes."""
    t_raw, t_ours = [], []
    for _ in range(reps):
        for fn, times in ((raw, t_raw), (ours, t_ours)):
            comm.Barrier()
            t0 = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t0)
    return min(t_raw), min(t_ours)


def worker() -> None:
    from mpi4py import MPI

    import jitgrad as jg
    dist = jg.distributed
    comm = MPI.COMM_WORLD
    rows = []
    for nbytes in SIZES:
        a = np.random.default_rng(comm.rank).random(nbytes // 4, dtype=np.float32)
        out = np.empty_like(a)
        reps = max(5, min(200, int(2e8 / nbytes)))
        raw, jg_sum = _timed_pair(lambda: comm.Allreduce(a, out),
                                  lambda: dist.allreduce([a], "sum"), comm, reps)
        _, jg_mean = _timed_pair(lambda: comm.Allreduce(a, out),
                                 lambda: dist.allreduce([a], "mean"), comm, reps)
        rows.append((_size(nbytes), nbytes / raw, nbytes / jg_sum, nbytes / jg_mean))
    leaves = [np.ones(LEAF_BYTES // 4, np.float32) for _ in range(LEAVES)]
    outs = [np.empty_like(x) for x in leaves]

    def per_leaf():
        for x, o in zip(leaves, outs):
            comm.Allreduce(x, o)
    raw, ours = _timed_pair(per_leaf, lambda: dist.allreduce(leaves, "sum"), comm, 50)
    nbytes = LEAVES * LEAF_BYTES
    if comm.rank == 0:
        print(f"allreduce, {comm.size} ranks, float32 (GB/s = buffer bytes / best time)\n")
        print("| size | raw mpi4py Allreduce | jg allreduce sum | ratio | jg allreduce mean | "
              "ratio |")
        print("|---:|---:|---:|---:|---:|---:|")
        for size, r, s, m in rows:
            print(f"| {size} | {r / 1e9:.3f} GB/s | {s / 1e9:.3f} GB/s | {s / r:.2f}x | "
                  f"{m / 1e9:.3f} GB/s | {m / r:.2f}x |")
        print(f"| {LEAVES} x {_size(LEAF_BYTES)} leaves | {nbytes / raw / 1e9:.3f} GB/s "
              f"({LEAVES} calls) | {nbytes / ours / 1e9:.3f} GB/s (1 bucket) | "
              f"{raw / ours:.2f}x | | |")


def _size(nbytes: int) -> str:
    return f"{nbytes >> 20} MB" if nbytes >= 1 << 20 else f"{nbytes >> 10} KB"


def _mpiexec() -> list[str]:
    here = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    # waiting ranks yield the core: on a machine shared with other work busy polling starves
    # the rank being waited for (raw and jitgrad calls run under the same setting)
    return [here if os.path.exists(here) else "mpiexec", "--allow-run-as-root", "--oversubscribe",
            "--mca", "mpi_yield_when_idle", "1"]


def demo_samples_per_s(ranks: int, epochs: int) -> tuple[float, float, str]:
    """(softmax, MLP) samples/s over all ranks from `jitgrad demo --distributed`."""
    cmd = _mpiexec() + ["-n", str(ranks), sys.executable, "-m", "jitgrad.cli", "demo",
                        "--distributed", "--epochs", str(epochs)]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        raise SystemExit(f"demo with {ranks} ranks failed:\n{r.stdout}\n{r.stderr[-2000:]}")
    rates = [float(v.replace(",", "")) for v in re.findall(r"([\d,]+) samples/s", r.stdout)]
    diff = re.search(r"max \|difference\| from rank 0 = (\S+)", r.stdout).group(1)
    return rates[0], rates[1], diff


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m jitgrad.benchmarks.distributed",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("--ranks", type=int, default=2)
    p.add_argument("--demo-epochs", type=int, default=3,
                   help="epochs of each demo model for samples/s (0 skips the demo)")
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.worker:
        worker()
        return 0
    subprocess.run(_mpiexec() + ["-n", str(args.ranks), sys.executable, "-m",
                                 "jitgrad.benchmarks.distributed", "--worker"], check=True)
    if args.demo_epochs:
        print(f"\njitgrad demo --distributed --epochs {args.demo_epochs}, global batch 32 "
              f"(samples/s over all ranks, after compiling)\n")
        print("| ranks | softmax (eager) | MLP (jitted step) | max param difference |")
        print("|---:|---:|---:|---:|")
        for n in sorted({1, args.ranks}):
            soft, mlp, diff = demo_samples_per_s(n, args.demo_epochs)
            print(f"| {n} | {soft:,.0f} samples/s | {mlp:,.0f} samples/s | {diff} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
