"""One framework, one model, alone in this process: `python child.py FRAMEWORK MODEL [options]`
(started by runner.py with a cache directory of its own). Prints one JSON line: the first call
(trace + compile + run of step 1), the median and spread of the timed steps, peak RSS, and
writes the gradients at the initial weights to --grads FILE.npz.

Run by path, not with -m: -m would import the jitgrad package into every peer's process. This
folder's modules are loaded by file under private names, so nothing here shadows a library.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import resource
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
MODULE = {"jitgrad": "fw_jitgrad", "jax": "fw_jax", "torch": "fw_torch",
          "torch.compile": "fw_torch"}


def load(name):
    """This folder's module `name`, loaded by path as `jitgrad_bench_models_<name>`."""
    full = f"jitgrad_bench_models_{name}"
    if full not in sys.modules:
        spec = importlib.util.spec_from_file_location(full, os.path.join(HERE, f"{name}.py"))
        mod = importlib.util.module_from_spec(spec)
        sys.modules[full] = mod
        spec.loader.exec_module(mod)
    return sys.modules[full]


def trainer(framework, model, cfg, weights, data):
    fw = load(MODULE[framework])
    if framework == "torch.compile":
        return fw.Trainer(model, cfg, weights, data, compiled=True)
    return fw.Trainer(model, cfg, weights, data)


def matmul_thread(stop: threading.Event):
    """The 'thread' contention: NumPy matmuls in a Python thread of this process."""
    import numpy as np
    a = np.random.default_rng(0).standard_normal((256, 256)).astype(np.float32)
    while not stop.is_set():
        a = np.tanh(a @ a)


def run(framework, model, small, steps, warmup, grads_path, contention) -> dict:
    import numpy as np
    spec = load("model_spec")
    cfg = spec.config(model, small)
    weights, data = spec.weights(model, cfg), spec.batch(model, cfg)
    stop = threading.Event()
    if contention == "thread":
        threading.Thread(target=matmul_thread, args=(stop,), daemon=True).start()
    try:
        tr = trainer(framework, model, cfg, weights, data)
        t0 = time.perf_counter()
        loss0 = tr.step()
        first_s = time.perf_counter() - t0
        for _ in range(warmup if steps else 0):
            tr.step()
        times = []
        for _ in range(steps):
            t0 = time.perf_counter()
            tr.step()
            times.append(time.perf_counter() - t0)
        rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        if grads_path:
            np.savez(grads_path, **tr.grads())
    finally:
        stop.set()
    out = {"first_s": first_s, "loss0": loss0, "peak_rss_mb": rss_mb,
           "version": load(MODULE[framework]).version()}
    if times:
        ms = sorted(1e3 * t for t in times)
        out.update(median_ms=ms[len(ms) // 2] if len(ms) % 2 else
                   (ms[len(ms) // 2 - 1] + ms[len(ms) // 2]) / 2,
                   min_ms=ms[0], max_ms=ms[-1], steps=len(ms))
    return out


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("framework", choices=sorted(MODULE))
    p.add_argument("model")
    p.add_argument("--small", action="store_true")
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--grads")
    p.add_argument("--contention", choices=("none", "neighbour", "thread"), default="none")
    a = p.parse_args(argv)
    try:
        out = run(a.framework, a.model, a.small, a.steps, a.warmup, a.grads, a.contention)
    except Exception as e:  # noqa: BLE001 - reported in the parent's table
        out = {"error": f"{type(e).__name__}: {e}".splitlines()[0][:200]}
    print(json.dumps(out), flush=True)


if __name__ == "__main__":
    sys.path.pop(0)          # this folder: its module names must not shadow anyone's imports
    main()
