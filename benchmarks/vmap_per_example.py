"""Per-example gradients of the MLP 784-512-512-10 (ReLU, cross-entropy) for a batch of 256:
jg.jit(jg.vmap(jg.grad(loss))) against a Python loop of jg.jit(jg.grad(loss)) calls, and
jax.jit(jax.vmap(jax.grad(loss))) when jax is installed.

    python -m benchmarks.vmap_per_example [--batch 256] [--repeat 5]

Each round times every implementation once, in rotating order (this VM is noisy and shared);
the median over rounds is reported.
"""
from __future__ import annotations

import argparse
import os
import statistics
import time

# see harness.py: keep idle BLAS/OpenMP pools from spinning on the 2 shared cores
os.environ.setdefault("OMP_WAIT_POLICY", "passive")
os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "4")

import numpy as np  # noqa: E402

SIZES = (784, 512, 512, 10)


def _params(rng):
    return [(rng.standard_normal((i, o)).astype(np.float32) / np.sqrt(i), np.zeros(o, np.float32))
            for i, o in zip(SIZES[:-1], SIZES[1:])]


def jitgrad_impls(params, x, y):
    import jitgrad as jg
    import jitgrad.nn.functional as F
    import jitgrad.numpy as jnp

    def loss(params, x, y):
        h = x[None]
        for i, (w, b) in enumerate(params):
            h = h @ w + b
            if i < len(params) - 1:
                h = jnp.maximum(h, 0.0)
        return F.cross_entropy(h, y[None])

    per_example = jg.jit(jg.vmap(jg.grad(loss), in_axes=(None, 0, 0)))
    one = jg.jit(jg.grad(loss))

    def loop(params, x, y):
        return [one(params, x[i], y[i]) for i in range(x.shape[0])]

    return {"jg.vmap": lambda: per_example(params, x, y), "python loop": lambda: loop(params, x, y)}


def jax_impls(params, x, y):
    try:
        import jax
        import jax.numpy as jjnp
    except ImportError:
        return {}

    def loss(params, x, y):
        h = x
        for i, (w, b) in enumerate(params):
            h = h @ w + b
            if i < len(params) - 1:
                h = jjnp.maximum(h, 0.0)
        return -jax.nn.log_softmax(h)[y]

    f = jax.jit(jax.vmap(jax.grad(loss), in_axes=(None, 0, 0)))
    return {"jax.vmap": lambda: jax.block_until_ready(f(params, x, y))}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args(argv)
    rng = np.random.default_rng(0)
    params = _params(rng)
    x = rng.standard_normal((args.batch, SIZES[0])).astype(np.float32)
    y = rng.integers(0, SIZES[-1], args.batch)
    impls = {**jitgrad_impls(params, x, y), **jax_impls(params, x, y)}
    first = {}
    for name, fn in impls.items():         # first call: trace + compile
        t = time.perf_counter()
        fn()
        first[name] = time.perf_counter() - t
    times = {name: [] for name in impls}
    names = list(impls)
    for r in range(args.repeat):
        for name in names[r % len(names):] + names[:r % len(names)]:
            t = time.perf_counter()
            impls[name]()
            times[name].append(time.perf_counter() - t)
    print(f"per-example gradients, MLP {'-'.join(map(str, SIZES))}, batch {args.batch} "
          f"(median of {args.repeat})")
    base = statistics.median(times["python loop"])
    for name in names:
        med = statistics.median(times[name])
        print(f"  {name:12s} {med * 1e3:9.1f} ms   {base / med:6.1f}x the loop   "
              f"(first call {first[name]:.1f} s)")
    if "jax.vmap" not in impls:
        print("  jax.vmap     not measured: jax is not installed")


if __name__ == "__main__":
    main()
