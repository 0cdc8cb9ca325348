"""`python -m jitgrad.benchmarks eager-models [options]`: the eager training steps of
eager_models.py (GPT, LSTM LM, Transformer LM, MNIST CNN) in jitgrad and PyTorch, each
framework alone in a fresh process per model (their thread pools keep spinning after a step,
FACTS.md). With --rounds N, each (model, framework) runs in N processes, the frameworks taking
turns, and the reported step time is the median of the processes' medians: this VM's speed
drifts within minutes. --threads N sets every pool to N threads (OMP/OpenBLAS/MKL and
JITGRAD_NUM_THREADS in the child's environment, torch.set_num_threads / jitgrad's num_threads
in it).
"""
from __future__ import annotations

import importlib.util
import json
import os
import platform
import statistics
import subprocess
import sys

from . import eager_models

CHILD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "eager_models.py")
THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
               "JITGRAD_NUM_THREADS")


def parse(argv, prog):
    from jitgrad.cli.common import Parser, output_file
    p = Parser(prog=prog, description="Eager training steps of four models in jitgrad and "
               "PyTorch, the model code written once, each framework in a fresh process.")
    p.add_argument("--models", default=",".join(eager_models.MODELS),
                   help=f"comma-separated, from {', '.join(eager_models.MODELS)} (default: all)")
    p.add_argument("--frameworks", default=",".join(eager_models.FRAMEWORKS),
                   help="comma-separated, from jitgrad,torch (default: both)")
    p.add_argument("--steps", type=int, default=20, help="timed steps after warm-up (default 20)")
    p.add_argument("--warmup", type=int, default=3, help="untimed steps after the first (default 3)")
    p.add_argument("--rounds", type=int, default=1, help="processes per (model, framework)")
    p.add_argument("--threads", type=int, help="threads of every pool (default: the libraries')")
    p.add_argument("--small", action="store_true", help="tiny sizes (smoke tests)")
    p.add_argument("--json", metavar="FILE", type=output_file, help="also write the rows as JSON")
    p.add_argument("--timeout", type=float, default=600, help="seconds per child process")
    a = p.parse_args(argv)
    a.models, a.frameworks = ([x for x in v.split(",") if x] for v in (a.models, a.frameworks))
    for given, known, what in ((a.models, eager_models.MODELS, "--models"),
                               (a.frameworks, eager_models.FRAMEWORKS, "--frameworks")):
        bad = [x for x in given if x not in known]
        if bad:
            p.error(f"{what}: unknown {', '.join(bad)}; choose from {', '.join(known)}")
    if a.steps < 1 or a.rounds < 1 or (a.threads is not None and a.threads < 1):
        p.error("--steps, --rounds and --threads must be at least 1")
    return a


def child(framework, model, args) -> dict:
    cmd = [sys.executable, CHILD, framework, model, "--steps", str(args.steps),
           "--warmup", str(args.warmup)] + (["--small"] if args.small else []) + \
        (["--threads", str(args.threads)] if args.threads else [])
    env = dict(os.environ, **({v: str(args.threads) for v in THREAD_VARS} if args.threads else {}))
    try:
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=args.timeout)
    except subprocess.TimeoutExpired:
        return {"framework": framework, "model": model, "error": f"timed out after {args.timeout:.0f} s"}
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        tail = (proc.stderr.strip().splitlines() or [f"exit code {proc.returncode}"])[-1]
        return {"framework": framework, "model": model, "error": tail[:200]}
    return json.loads(lines[-1])


def measure(models, frameworks, args) -> list[dict]:
    """One row per (model, framework): the first process's figures, its step median replaced
    by the median of all rounds' medians."""
    rows = []
    for model in models:
        mine = {}
        for k in range(args.rounds):
            for f in frameworks:
                print(f"{model} / {f}: round {k + 1} ...", file=sys.stderr, flush=True)
                out = child(f, model, args)
                row = mine.setdefault(f, {**out, "round_ms": []})
                if out.get("error"):
                    row["error"] = out["error"]
                elif "median_ms" in out:
                    row["round_ms"].append(out["median_ms"])
        for row in mine.values():
            if row["round_ms"]:
                row["median_ms"] = statistics.median(row["round_ms"])
            rows.append(row)
    return rows


def markdown(rows, notes) -> str:
    out = ["| model | framework | step ms (median) | min | max | first step s | eval loss0 | "
           "peak RSS MB | jitgrad / torch |", "|---|---|---|---|---|---|---|---|---|"]
    torch = {r["model"]: r.get("median_ms") for r in rows if r["framework"] == "torch"}
    for r in rows:
        if r.get("error"):
            out.append(f"| {r['model']} | {r['framework']} | error: {r['error']} |||||||")
            continue
        ratio = (f"{r['median_ms'] / torch[r['model']]:.2f}x" if r["framework"] == "jitgrad"
                 and torch.get(r["model"]) else "")
        out.append(f"| {r['model']} | {r['framework']} | {r['median_ms']:.2f} | {r['min_ms']:.2f} "
                   f"| {r['max_ms']:.2f} | {r['first_s']:.2f} | {r['eval_loss0']:.4f} | "
                   f"{r['peak_rss_mb']:.0f} | {ratio} |")
    return "\n".join(out + [""] + [f"- {n}" for n in notes])


def main(argv=None, prog="python -m jitgrad.benchmarks eager-models") -> int:
    args = parse(list(sys.argv[1:] if argv is None else argv), prog)
    frameworks = [f for f in args.frameworks if importlib.util.find_spec(f) is not None]
    notes = [f"{f}: not installed, skipped" for f in args.frameworks if f not in frameworks]
    load = [os.getloadavg()[0]]
    rows = measure(args.models, frameworks, args)
    load.append(os.getloadavg()[0])
    rounds = f" of {args.rounds} processes' medians" if args.rounds > 1 else ""
    notes.append(f"{args.steps} timed steps after the first and {args.warmup} warm-up, median"
                 f"{rounds}; threads "
                 f"{args.threads or 'default'}; {os.cpu_count()} CPUs; load average "
                 f"{load[0]:.2f} before, {load[1]:.2f} after; Python {platform.python_version()}")
    print(markdown(rows, notes))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"rows": rows, "notes": notes, "small": args.small,
                       "threads": args.threads}, fh, indent=1)
    return 0 if not any(r.get("error") for r in rows) else 1
