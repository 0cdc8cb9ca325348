"""`python -m jitgrad.benchmarks models [options]`: each model's whole training step in
jitgrad, jax.jit, torch eager and torch.compile, each framework alone in a fresh process.

Per (model, framework): a first child process with an empty cache directory (every framework's
on-disk cache pointed into a new temporary folder) measures the first call cold, then the
median of --steps steps after a warm-up, peak RSS, and saves the gradients at the initial
weights; a second child with the same folder measures the first call from the warm cache. The
gradients are compared with JAX's. With --rounds N, N-1 more children per framework (warm
cache) run the steps again, the frameworks of a model taking turns round by round, and the
step time reported is the median of the N per-process medians: this VM's speed drifts 1.3-1.7x
within minutes, which one process per framework, one after the other, turns into ratios. --contention neighbour runs a second process looping
single-threaded BLAS matmuls beside every child; thread runs NumPy matmuls in a thread of the
child itself.
"""
from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import platform
import subprocess
import sys
import tempfile

import numpy as np

from ..first_call import cache_env
from . import compare, model_spec

CHILD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "child.py")
IMPORTS = {"jitgrad": "jitgrad", "jax": "jax", "torch": "torch", "torch.compile": "torch"}
NEIGHBOUR = ("import numpy as np\n"
             "a = np.random.default_rng(0).standard_normal((512, 512))\n"
             "while True: a = np.tanh(a @ a)\n")
SINGLE_THREAD = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def parse(argv, prog):
    from jitgrad.cli.common import Parser, output_file
    p = Parser(prog=prog, description="Whole training steps of real models in jitgrad, "
               "jax.jit, torch eager and torch.compile, each framework in a fresh process.")
    p.add_argument("--models", default=",".join(model_spec.MODELS),
                   help=f"comma-separated, from {', '.join(model_spec.MODELS)} (default: all)")
    p.add_argument("--frameworks", default=",".join(compare.FRAMEWORKS),
                   help=f"comma-separated, from {', '.join(compare.FRAMEWORKS)} (default: all)")
    p.add_argument("--steps", type=int, default=20, help="timed steps after warm-up (default 20)")
    p.add_argument("--rounds", type=int, default=1,
                   help="processes per framework timing the steps, frameworks taking turns; "
                        "the median of their medians is reported (default 1)")
    p.add_argument("--warmup", type=int, default=3,
                   help="untimed steps after the first (default 3)")
    p.add_argument("--contention", choices=("none", "neighbour", "thread"), default="none")
    p.add_argument("--small", action="store_true", help="tiny sizes (smoke tests)")
    p.add_argument("--json", metavar="FILE", type=output_file, help="also write the rows as JSON")
    p.add_argument("--timeout", type=float, default=600, help="seconds per child process")
    a = p.parse_args(argv)
    a.models = [m for m in a.models.split(",") if m]
    a.frameworks = [f for f in a.frameworks.split(",") if f]
    bad = [m for m in a.models if m not in model_spec.MODELS]
    if bad:
        p.error(f"--models: unknown {', '.join(bad)}; choose from {', '.join(model_spec.MODELS)}")
    bad = [f for f in a.frameworks if f not in compare.FRAMEWORKS]
    if bad:
        p.error(f"--frameworks: unknown {', '.join(bad)}; choose from "
                f"{', '.join(compare.FRAMEWORKS)}")
    if a.steps < 1 or a.rounds < 1:
        p.error("--steps and --rounds must be at least 1")
    return a


def child(framework, model, env, *, small, steps, warmup, grads, contention, timeout):
    cmd = [sys.executable, CHILD, framework, model, "--steps", str(steps), "--warmup",
           str(warmup), "--contention", contention] + (["--small"] if small else []) + \
        (["--grads", grads] if grads else [])
    try:
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout:.0f} s"}
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        tail = (proc.stderr.strip().splitlines() or [f"exit code {proc.returncode}"])[-1]
        return {"error": tail[:200]}
    return json.loads(lines[-1])


class Neighbour:
    """The 'neighbour' contention: another process looping single-threaded BLAS matmuls."""

    def __init__(self, on):
        self.on, self.proc = on, None

    def __enter__(self):
        if self.on:
            self.proc = subprocess.Popen([sys.executable, "-c", NEIGHBOUR],
                                         env={**os.environ, **SINGLE_THREAD})
        return self

    def __exit__(self, *exc):
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()


def _kw(args) -> dict:
    return dict(small=args.small, warmup=args.warmup, contention=args.contention,
                timeout=args.timeout)


def measure(framework, model, args, grads_dir, root) -> dict:
    """The first round: cold first call, steps, gradients; then the first call warm. `root`:
    the framework's cache folder for this model (empty at first)."""
    row = {"model": model, "framework": framework}
    grads = os.path.join(grads_dir, f"{model}-{framework}.npz")
    env = {**os.environ, **cache_env(root)}
    with Neighbour(args.contention == "neighbour"):
        cold = child(framework, model, env, steps=args.steps, grads=grads, **_kw(args))
        warm = child(framework, model, env, steps=0, grads=None, **_kw(args)) \
            if not cold.get("error") else {}
    if cold.get("error") or warm.get("error"):
        row["error"] = cold.get("error") or warm.get("error")
        return row
    row.update({k: cold.get(k) for k in ("median_ms", "min_ms", "max_ms", "peak_rss_mb",
                                         "version", "loss0")})
    row["first_cold_s"], row["first_warm_s"] = cold["first_s"], warm["first_s"]
    row["grads_file"] = grads
    row["round_ms"] = [row["median_ms"]]
    return row


def another_round(row, args, root) -> None:
    """One more process timing the steps from the warm cache `root`."""
    env = {**os.environ, **cache_env(root)}
    with Neighbour(args.contention == "neighbour"):
        out = child(row["framework"], row["model"], env, steps=args.steps, grads=None,
                    **_kw(args))
    if out.get("error"):
        row["error"] = out["error"]
        return
    row["round_ms"].append(out["median_ms"])
    row["min_ms"], row["max_ms"] = min(row["min_ms"], out["min_ms"]), max(row["max_ms"],
                                                                          out["max_ms"])
    row["median_ms"] = float(np.median(row["round_ms"]))


def add_grad_diffs(rows):
    refs = {r["model"]: r["grads_file"] for r in rows
            if r["framework"] == compare.REFERENCE and r.get("grads_file")}
    for r in rows:
        if r.get("grads_file") and r["model"] in refs:
            with np.load(r["grads_file"]) as g, np.load(refs[r["model"]]) as ref:
                r["grad_diff"], r["grad_diff_leaf"] = compare.grad_diff(dict(g), dict(ref))


def main(argv=None, prog="python -m jitgrad.benchmarks models") -> int:
    args = parse(list(sys.argv[1:] if argv is None else argv), prog)
    notes, frameworks = [], []
    for f in args.frameworks:
        if importlib.util.find_spec(IMPORTS[f]) is None:
            notes.append(f"{f}: not installed, skipped")
        else:
            frameworks.append(f)
    load = [os.getloadavg()[0]]
    rows = []
    with tempfile.TemporaryDirectory(prefix="jitgrad-models-grads-") as grads_dir:
        for model in args.models:
            with contextlib.ExitStack() as stack:
                roots = {f: stack.enter_context(tempfile.TemporaryDirectory(
                    prefix="jitgrad-models-")) for f in frameworks}
                mine = []
                for f in frameworks:
                    print(f"{model} / {f} ...", file=sys.stderr, flush=True)
                    mine.append(measure(f, model, args, grads_dir, roots[f]))
                for k in range(2, args.rounds + 1):
                    for row in mine:
                        if not row.get("error"):
                            print(f"{model} / {row['framework']}: round {k} ...",
                                  file=sys.stderr, flush=True)
                            another_round(row, args, roots[row["framework"]])
                rows += mine
        add_grad_diffs(rows)
    compare.add_ratios(rows)
    load.append(os.getloadavg()[0])
    if compare.REFERENCE not in frameworks:
        notes.append("no JAX run: gradients not compared")
    rounds = (f"; the median of {args.rounds} processes' medians, frameworks taking turns"
              if args.rounds > 1 else "")
    notes.append(f"{args.steps} timed steps after {args.warmup} warm-up, median{rounds}; "
                 f"contention: "
                 f"{args.contention}; {os.cpu_count()} CPUs; load average {load[0]:.2f} before, "
                 f"{load[1]:.2f} after; Python {platform.python_version()}; "
                 + ", ".join(f"{r['framework']} {r['version']}" for r in rows
                             if r.get("version") and r["model"] == rows[0]["model"]))
    about = model_spec.SMALL_ABOUT if args.small else model_spec.ABOUT
    print(compare.markdown(rows, about, notes))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"rows": [{k: v for k, v in r.items() if k != "grads_file"} for r in rows],
                       "notes": notes, "contention": args.contention, "small": args.small},
                      fh, indent=1)
    return 0 if not any(r.get("error") for r in rows) else 1
