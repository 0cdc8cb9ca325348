"""A bfloat16 (and float16) training step of the MLP 784-512-512-10, batch 256, under jg.jit,
against the float32 step: the loss after each of --steps SGD steps from the same weights, and
the time per step (best of --repeat after a warm-up).

    python -m benchmarks.lowp_mlp [--steps 5] [--repeat 10]

Mixed precision as in the README recipe: float32 master weights, the forward and backward in
the low-precision dtype (the cast's derivative brings the gradients back to float32), the loss
in float32; float16 with a static loss scale.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

SIZES = (784, 512, 512, 10)
BATCH = 256


def init(rng):
    params = {}
    for i, (a, b) in enumerate(zip(SIZES[:-1], SIZES[1:])):
        bound = 1 / np.sqrt(a)
        params[f"w{i}"] = rng.uniform(-bound, bound, (a, b)).astype(np.float32)
        params[f"b{i}"] = rng.uniform(-bound, bound, (b,)).astype(np.float32)
    return params


def make_step(compute_dtype, scale=1.0, lr=0.1):
    import jitgrad as jg
    import jitgrad.numpy as jnp
    from jitgrad.nn import functional as F

    def loss_fn(params, x, y):
        p = jg.tree_util.tree_map(lambda t: t.astype(compute_dtype), params)
        h = x.astype(compute_dtype)
        for i in range(len(SIZES) - 1):
            h = h @ p[f"w{i}"] + p[f"b{i}"]
            if i < len(SIZES) - 2:
                h = jnp.maximum(h, 0)
        return F.cross_entropy(h.astype(jnp.float32), y) * scale

    def step(params, x, y):
        loss, grads = jg.value_and_grad(loss_fn)(params, x, y)
        new = jg.tree_util.tree_map(lambda w, g: w - lr * (g / scale), params, grads)
        return new, loss / scale

    return jg.jit(step)


def best_ms(fn, args, repeat):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn(*args)
        np.asarray(out[1])
        times.append(time.perf_counter() - t)
    return min(times) * 1e3


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=10)
    args = ap.parse_args(argv)
    import jitgrad as jg
    import jitgrad.numpy as jnp

    rng = np.random.default_rng(0)
    params0 = {k: jnp.asarray(v) for k, v in init(rng).items()}
    x = jnp.asarray(rng.standard_normal((BATCH, SIZES[0])).astype(np.float32))
    y = jnp.asarray(rng.integers(0, SIZES[-1], BATCH))
    runs = {"float32": make_step(jnp.float32), "bfloat16": make_step(jnp.bfloat16),
            "float16 (loss scale 1024)": make_step(jnp.float16, scale=1024.0)}
    losses, times = {}, {}
    for name, step in runs.items():
        p, ls = params0, []
        for _ in range(args.steps):
            p, loss = step(p, x, y)
            ls.append(float(loss))
        losses[name] = ls
        times[name] = best_ms(step, (params0, x, y), args.repeat)
    print(f"MLP {'-'.join(map(str, SIZES))}, batch {BATCH}, SGD, jit; {jg.__name__} "
          f"best of {args.repeat} steps")
    print(f"{'dtype':28} {'ms/step':>8} {'vs f32':>7}  losses over {args.steps} steps "
          "(max |diff| to float32)")
    for name in runs:
        diff = max(abs(a - b) for a, b in zip(losses[name], losses["float32"]))
        print(f"{name:28} {times[name]:8.2f} {times['float32'] / times[name]:6.2f}x  "
              f"{' '.join(f'{v:.4f}' for v in losses[name])}  ({diff:.2e})")


if __name__ == "__main__":
    main()
