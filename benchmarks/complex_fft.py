"""Complex numbers and jnp.fft against NumPy: an rfft power-spectrum loss (eager, jit, jit(grad))
and a complex elementwise chain, with the real chain the compiled backend fuses for scale.

    python -m benchmarks.complex_fft [--repeat 20]

Under jit the fft is a host step (numpy.fft) and the complex elementwise and reduction kernels
around it are LLVM units (codegen/cpu/llvm_complex.py). Best of --repeat calls after one warm-up
call, in milliseconds.
"""
from __future__ import annotations

import argparse
import time

import numpy as np


def best_ms(fn, *args, repeat=20):
    np.asarray(fn(*args))
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        np.asarray(fn(*args))
        times.append(time.perf_counter() - t)
    return min(times) * 1e3


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=20)
    args = ap.parse_args(argv)
    import jitgrad as jg
    import jitgrad.numpy as jnp

    x = np.random.default_rng(0).standard_normal((64, 4096))
    z = x[:, :2048] + 1j * x[:, 2048:]
    spectrum = lambda a: jnp.sum(jnp.abs(jnp.fft.rfft(a)) ** 2)  # noqa: E731
    chain = lambda a: jnp.sum(jnp.real(jnp.exp(a) * jnp.conj(a)))  # noqa: E731
    rows = [
        ("rfft power, numpy", lambda a: np.sum(np.abs(np.fft.rfft(a)) ** 2), x),
        ("rfft power, jitgrad eager", spectrum, jnp.asarray(x)),
        ("rfft power, jit", jg.jit(spectrum), jnp.asarray(x)),
        ("rfft power, jit(grad)", jg.jit(jg.grad(spectrum)), jnp.asarray(x)),
        ("complex chain c128[64,2048], numpy", lambda a: np.sum(np.real(np.exp(a) * np.conj(a))), z),
        ("complex chain, jit", jg.jit(chain), jnp.asarray(z)),
        ("real chain f64[64,2048], jit (compiled)", jg.jit(lambda a: jnp.sum(jnp.exp(a) * a)),
         jnp.asarray(x[:, :2048])),
    ]
    for name, fn, arg in rows:
        print(f"{name:42s} {best_ms(fn, arg, repeat=args.repeat):8.2f} ms")


if __name__ == "__main__":
    main()
