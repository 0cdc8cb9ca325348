"""Independent branches of small kernels: in sequence vs at the same time (issue 26, item 4).

    python -m benchmarks.branches                    # 2 branches x 12 kernels tanh(a @ w)
    python -m benchmarks.branches --rows 128 --layers 8 --calls 2000

One jitted function computes two branches that do not depend on each other, each a chain of
`--layers` equal small kernels tanh(a @ w) on [rows, 64] x [64, 64] (255 rows: 1.04M
multiply-adds, just below the size whose product runs split over the thread pool). It is compiled
twice in one process: with a one-thread memory plan (no waves: the kernels run one after another
on the calling thread, as before issue 26) and with the pool's threads (the branches become the
lanes of waves, runtime/sequencer.py). Both run on the same pool (`--threads`, default 2), called
in alternating blocks; the table gives the median time per call of each and their ratio. The
outputs are checked to be the same bits first.
"""
from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import jitgrad as jg
import jitgrad.numpy as jnp


def branches(layers):
    def layer(a, w):
        return jnp.tanh(a @ w)

    def fn(x, y, *ws):          # flat arguments: jit's fast call path
        a, b = x, y
        for i in range(layers):
            a = layer(a, ws[i])
        for i in range(layers):
            b = layer(b, ws[layers + i])
        return a, b
    return fn


def inputs(rows, layers, seed=0, cols=64):
    rng = np.random.default_rng(seed)
    x, y = (rng.standard_normal((rows, cols)).astype(np.float32) for _ in range(2))
    ws = [(rng.standard_normal((cols, cols)) * 0.2).astype(np.float32)
          for _ in range(2 * layers)]
    return (x, y, *ws)


def compiled(fn, args, plan_threads):
    """fn jitted with the memory plan made for `plan_threads` threads (1: no waves)."""
    jg.config.update("num_threads", plan_threads)
    f = jg.jit(fn)
    f(*args)
    return f


def measure(calls_by_name, calls, block=50):
    times = {name: [] for name in calls_by_name}
    for _ in range(max(1, calls // block)):
        for name, call in calls_by_name.items():
            for _ in range(block):
                t0 = time.perf_counter_ns()
                call()
                times[name].append(time.perf_counter_ns() - t0)
    return {name: statistics.median(t) / 1e3 for name, t in times.items()}


class _Threads:
    """A profiler stand-in (runtime/profiling.active): the threads each call's kernels ran on."""

    def __init__(self):
        self.calls = []

    def kernels(self, run, start, times, tids):
        self.calls.append(len(set(tids)))

    def host(self, *a):
        pass

    def call(self, *a):
        pass


def on_two_threads(call, n=200) -> int:
    """In how many of n profiled calls the kernels ran on more than one thread."""
    from jitgrad.runtime import profiling
    rec = _Threads()
    profiling.prepare()
    profiling.active.append(rec)
    try:
        for _ in range(n):
            call()
    finally:
        profiling.active.remove(rec)
    return sum(k > 1 for k in rec.calls)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=255)
    ap.add_argument("--layers", type=int, default=12)
    ap.add_argument("--calls", type=int, default=2000)
    ap.add_argument("--threads", type=int, default=2)
    a = ap.parse_args(argv)
    fn = branches(a.layers)
    args = inputs(a.rows, a.layers)
    seq = compiled(fn, args, 1)
    conc = compiled(fn, args, a.threads)
    jg.config.update("num_threads", a.threads)
    waves = conc.lower(*args).memory_plan.waves
    for s, c in zip(seq(*args), conc(*args)):
        np.testing.assert_array_equal(np.asarray(s), np.asarray(c))
    med = measure({"sequence": lambda: seq(*args), "waves": lambda: conc(*args)}, a.calls)
    print(f"2 branches x {a.layers} kernels tanh(a @ w), a [{a.rows}, 64], pool of {a.threads} "
          f"threads; {len(waves)} wave(s), lanes of {[len(l) for w in waves for l in w]} kernels")
    print(f"  in sequence   {med['sequence']:9.1f} us per call (median of {a.calls})")
    print(f"  waves         {med['waves']:9.1f} us per call")
    print(f"  ratio         {med['waves'] / med['sequence']:9.2f}")
    two = on_two_threads(lambda: conc(*args))
    print(f"  a worker ran a lane in {two} of 200 profiled calls (the others: the worker woke "
          "too late and the caller ran both lanes)")
    return med


if __name__ == "__main__":
    main()
