"""Independent branches of small kernels: in sequence vs at the same time (issue 26, item 4).

    python -m benchmarks.branches                    # 2 branches x 8 matmul+tanh kernels
    python -m benchmarks.branches --rows 128 --layers 8 --calls 2000 --kind softmax

One jitted function computes two branches that do not depend on each other, each a chain of
`--layers` equal small kernels (`matmul`: tanh(a @ w) on [rows, 64] x [64, 64]; `softmax`: a row
softmax over [rows, 256]), all below the size that runs split over the thread pool. It is compiled
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


def branches(kind, layers):
    def layer(a, w):
        if kind == "matmul":
            return jnp.tanh(a @ w)
        e = jnp.exp(a * w - jnp.max(a * w, axis=1, keepdims=True))
        return e / jnp.sum(e, axis=1, keepdims=True)

    def fn(x, y, *ws):          # flat arguments: jit's fast call path
        a, b = x, y
        for i in range(layers):
            a = layer(a, ws[i])
        for i in range(layers):
            b = layer(b, ws[layers + i])
        return a, b
    return fn


def inputs(kind, rows, layers, seed=0):
    rng = np.random.default_rng(seed)
    cols = 64 if kind == "matmul" else 256
    x, y = (rng.standard_normal((rows, cols)).astype(np.float32) for _ in range(2))
    shape = (cols, cols) if kind == "matmul" else (1, cols)
    ws = [(rng.standard_normal(shape) * 0.2).astype(np.float32) for _ in range(2 * layers)]
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


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kind", choices=("matmul", "softmax"), default="matmul")
    ap.add_argument("--rows", type=int, default=128)
    ap.add_argument("--layers", type=int, default=8)
    ap.add_argument("--calls", type=int, default=2000)
    ap.add_argument("--threads", type=int, default=2)
    a = ap.parse_args(argv)
    fn = branches(a.kind, a.layers)
    args = inputs(a.kind, a.rows, a.layers)
    seq = compiled(fn, args, 1)
    conc = compiled(fn, args, a.threads)
    jg.config.update("num_threads", a.threads)
    waves = conc.lower(*args).memory_plan.waves
    for s, c in zip(seq(*args), conc(*args)):
        np.testing.assert_array_equal(np.asarray(s), np.asarray(c))
    med = measure({"sequence": lambda: seq(*args), "waves": lambda: conc(*args)}, a.calls)
    print(f"2 branches x {a.layers} {a.kind} kernels, rows {a.rows}, pool of {a.threads} "
          f"threads; {len(waves)} wave(s), lanes of {[len(l) for w in waves for l in w]} kernels")
    print(f"  in sequence   {med['sequence']:9.1f} us per call (median of {a.calls})")
    print(f"  waves         {med['waves']:9.1f} us per call")
    print(f"  ratio         {med['waves'] / med['sequence']:9.2f}")
    return med


if __name__ == "__main__":
    main()
