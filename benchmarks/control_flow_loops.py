"""Compiled loops: the issue-27 cases, one framework per process.

    python -m benchmarks.control_flow_loops jitgrad|jax [rnn|rnn_fwd|while|while4|while_scalar|fori_matmul|compile]

rnn: grad of a tanh RNN via scan (128x128, seq 32, batch 16); rnn_fwd: its forward (the loss);
while: a while_loop of 100,000 iterations of x = x * 0.999 + 0.001 on 16 floats; while4 /
while_scalar: 100,000 iterations of x = x * 0.5 + 1 on f32[4] / a float32 scalar; fori_matmul: a
fori_loop of 10,000 steps of x = tanh(x @ w) * 0.5 + 0.1 (x f32[8,32], w f32[32,32]); compile: lower + compile time of a scan of length
10 vs 10,000 (the body compiles once; compile_long_first: the other order; give each run a fresh
JITGRAD_CACHE_DIR for cold compiles). Prints medians of several calls in ms.
"""
from __future__ import annotations

import statistics
import sys
import time

import numpy as np


def _median_ms(fn, *args, reps=15):
    fn(*args)
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        out = fn(*args)
        np.asarray(out[0] if isinstance(out, tuple) else out)
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def _modules(name):
    if name == "jax":
        import jax
        import jax.numpy as jnp
        from jax import lax
        return jax.jit, jax.grad, jnp, lax.scan, lax.while_loop
    import jitgrad as jg
    import jitgrad.numpy as jnp
    return jg.jit, jg.grad, jnp, jg.scan, jg.while_loop


def _rnn(name, differentiate):
    """A tanh RNN over 32 steps (batch 16, hidden 128): the summed states, or their gradient
    in the weights, jitted."""
    jit, grad, jnp, scan, _ = _modules(name)
    rng = np.random.default_rng(0)
    w = jnp.asarray(rng.random((128, 128), dtype=np.float32) * 0.05)
    xs = jnp.asarray(rng.random((32, 16, 128), dtype=np.float32))

    def f(w, xs):
        def cell(h, x):
            h = jnp.tanh(x + h @ w)
            return h, h
        _, hs = scan(cell, jnp.zeros((16, 128), dtype=jnp.float32), xs)
        return jnp.sum(hs)
    g = jit(grad(f) if differentiate else f)
    return _median_ms(lambda: np.asarray(g(w, xs)))


def rnn(name):
    return _rnn(name, True)


def rnn_fwd(name):
    return _rnn(name, False)


def _halving(name, x0):
    jit, _, jnp, _, while_loop = _modules(name)

    def f(x):
        def body(c):
            i, x = c
            return i + 1, x * 0.5 + 1.0
        return while_loop(lambda c: c[0] < 100_000, body, (jnp.asarray(0, dtype=jnp.int32), x))[1]
    g = jit(f)
    x = jnp.asarray(x0)
    return _median_ms(lambda: np.asarray(g(x)), reps=15)


def fori_matmul(name):
    jit, _, jnp, _, _ = _modules(name)
    if name == "jax":
        from jax.lax import fori_loop
    else:
        from jitgrad.lax import fori_loop
    rng = np.random.default_rng(0)
    w = jnp.asarray(rng.standard_normal((32, 32), dtype=np.float32) * 0.2)
    x = jnp.asarray(rng.standard_normal((8, 32), dtype=np.float32))

    def f(x, w):
        return fori_loop(0, 10_000, lambda i, x: jnp.tanh(x @ w) * 0.5 + 0.1, x)
    g = jit(f)
    return _median_ms(lambda: np.asarray(g(x, w)))


def while_(name):
    jit, _, jnp, _, while_loop = _modules(name)

    def f(x):
        def body(c):
            i, x = c
            return i + 1, x * 0.999 + 0.001
        return while_loop(lambda c: c[0] < 100_000, body, (jnp.asarray(0), x))[1]
    g = jit(f)
    x = jnp.asarray(np.ones(16, np.float32))
    return _median_ms(lambda: np.asarray(g(x)), reps=7)


def compile_(name, lengths=(10, 10_000)):
    jit, _, jnp, scan, _ = _modules(name)
    out = {}
    for n in lengths:
        def f(h, xs):
            def cell(h, x):
                return jnp.tanh(h * x + 0.5), h
            return scan(cell, h, xs)
        x = np.full((n, 16), 0.5, np.float32)
        args = (jnp.asarray(np.ones(16, np.float32)), jnp.asarray(x))
        t0 = time.perf_counter()
        jit(f).lower(*args).compile()
        out[n] = round((time.perf_counter() - t0) * 1e3, 1)
    return out


if __name__ == "__main__":
    name = sys.argv[1]
    for case in sys.argv[2:] or ["rnn", "while", "compile"]:
        r = {"rnn": rnn, "rnn_fwd": rnn_fwd, "while": while_,
             "while4": lambda n: _halving(n, np.ones(4, np.float32)),
             "while_scalar": lambda n: _halving(n, np.float32(1)), "fori_matmul": fori_matmul, "compile": compile_,
             "compile_long_first": lambda n: compile_(n, (10_000, 10))}[case](name)
        print(f"{name} {case}: {r if isinstance(r, dict) else f'{r:.3f} ms'}", flush=True)
