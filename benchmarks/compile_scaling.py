"""Compile time against model depth: value_and_grad of `for w in ws: x = x + tanh(x @ w)`
(16x16 weights, batch 8) under jg.jit, and jax.jit / torch.compile when installed.

For each depth, a fresh process with an empty cache (cold) and a second fresh process with the
same cache (warm, compiled code from disk) time the first call, in wall-clock and in CPU time of
the process's threads and its children (on a machine others share, the CPU time is the steadier
measure; compiling in parallel makes it exceed the wall time); each child reports its
peak RSS and, for jitgrad, the number of kernels in the schedule and of distinct compiled units.

    python -m jitgrad.benchmarks.compile_scaling [--depths 10 25 50 100 200] [--repeat 3] [--json FILE]

Each cell is the median of --repeat runs.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

from .first_call import cache_env

CHILD = r"""
import json, resource, sys, time
impl, depth = sys.argv[1], int(sys.argv[2])
def cpu():     # this process's threads and its children's (jitgrad compiles in a forked child)
    return sum(u.ru_utime + u.ru_stime for u in map(resource.getrusage, (resource.RUSAGE_SELF,
                                                                      resource.RUSAGE_CHILDREN)))
t0 = time.perf_counter()
import numpy as np
rng = np.random.default_rng(0)
ws = [rng.standard_normal((16, 16)).astype(np.float32) * 0.1 for _ in range(depth)]
x = rng.standard_normal((8, 16)).astype(np.float32)
info = {}
def make_loss(np_):
    def loss(ws, x):
        for w in ws:
            x = x + np_.tanh(x @ w)
        return np_.sum(x * x)
    return loss
if impl == "jitgrad":
    import jitgrad as jg, jitgrad.numpy as jnp
    f = jg.jit(jg.value_and_grad(make_loss(jnp)))
    c1 = cpu(); t1 = time.perf_counter(); f(ws, x); t2 = time.perf_counter()
    c2 = cpu()
    units = next(iter(f._cache.values())).exe.run.units
    info = {"kernels": len(units), "units": len({u.name for u in units})}
elif impl == "jax":
    import jax, jax.numpy as jnp
    f = jax.jit(jax.value_and_grad(make_loss(jnp)))
    c1 = cpu(); t1 = time.perf_counter(); jax.block_until_ready(f(ws, x))
    t2 = time.perf_counter(); c2 = cpu()
else:
    import torch
    tws = [torch.tensor(w, requires_grad=True) for w in ws]
    tx = torch.tensor(x)
    def step(ws, x):
        for w in ws:
            x = x + torch.tanh(x @ w)
        loss = (x * x).sum()
        return loss, torch.autograd.grad(loss, ws)
    f = torch.compile(step)
    c1 = cpu(); t1 = time.perf_counter(); f(tws, tx); t2 = time.perf_counter()
    c2 = cpu()
t3 = time.perf_counter(); f(*((ws, x) if impl != "torch.compile" else (tws, tx))); t4 = time.perf_counter()
print(json.dumps({"first_s": t2 - t1, "first_cpu_s": c2 - c1, "with_import_s": t2 - t0,
                  "second_ms": 1e3 * (t4 - t3),
                  "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, **info}))
"""

IMPORTS = {"jitgrad": "jitgrad", "jax": "jax", "torch.compile": "torch"}


def _available(impl):
    if impl == "jitgrad":
        return True
    try:
        __import__(IMPORTS[impl])
        return True
    except ImportError:
        return False


def _child(impl, depth, root, timeout):
    env = dict(os.environ, **cache_env(root))
    env.pop("JITGRAD_BACKEND", None)
    try:
        p = subprocess.run([sys.executable, "-c", CHILD, impl, str(depth)], env=env,
                           capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"over {timeout} s"}
    if p.returncode:
        return {"error": (p.stderr.strip().splitlines() or ["failed"])[-1]}
    return json.loads(p.stdout.strip().splitlines()[-1])


def _median(runs):
    """The run with the median first-call time (its other fields come with it)."""
    ok = [r for r in runs if "error" not in r]
    if not ok:
        return runs[0]
    return sorted(ok, key=lambda r: r["first_s"])[len(ok) // 2]


def measure(depths, impls, timeout=900, repeat=1):
    """Per depth and impl, `repeat` pairs of fresh processes (cold: empty caches, then warm);
    the row holds the median cold and the median warm run."""
    rows = []
    for depth in depths:
        for impl in impls:
            colds, warms = [], []
            for _ in range(repeat):
                with tempfile.TemporaryDirectory(prefix="jg-compile-") as root:
                    colds.append(_child(impl, depth, root, timeout))
                    warms.append(_child(impl, depth, root, timeout))
            rows.append({"impl": impl, "depth": depth, "cold": _median(colds),
                         "warm": _median(warms), "repeat": repeat})
            print(_line(rows[-1]), flush=True)
    return rows


def _line(r):
    c, w = r["cold"], r["warm"]
    if "error" in c:
        return f"{r['impl']:>14} depth {r['depth']:>4}: {c['error']}"
    extra = f"  {c['kernels']} kernels, {c['units']} units" if "units" in c else ""
    per = c["first_s"] / r["depth"] * 1e3
    return (f"{r['impl']:>14} depth {r['depth']:>4}: cold {c['first_s']:7.2f} s ({per:6.1f} ms/layer, "
            f"CPU {c['first_cpu_s']:6.2f} s)"
            f"  warm {w.get('first_s', float('nan')):6.2f} s  second call {c['second_ms']:7.2f} ms"
            f"  peak RSS {c['rss_mb']:5.0f} MB{extra}")


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m jitgrad.benchmarks.compile_scaling",
                                description=__doc__.splitlines()[0])
    p.add_argument("--depths", type=int, nargs="+", default=[10, 25, 50, 100, 200])
    p.add_argument("--impls", nargs="+", default=["jitgrad", "jax", "torch.compile"],
                   choices=sorted(IMPORTS))
    p.add_argument("--repeat", type=int, default=3, help="process pairs per cell (medians)")
    p.add_argument("--json", metavar="FILE")
    args = p.parse_args(argv)
    impls = [i for i in args.impls if _available(i)]
    missing = sorted(set(args.impls) - set(impls))
    if missing:
        print(f"not installed, not measured: {', '.join(missing)}", flush=True)
    rows = measure(args.depths, impls, repeat=args.repeat)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
