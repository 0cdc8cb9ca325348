"""Command line: `python -m jitgrad.benchmarks [WORKLOAD ...] [options]`, also `jitgrad bench`;
`python -m jitgrad.benchmarks models [options]`: the model benchmark (models/runner.py);
`python -m jitgrad.benchmarks eager-models [options]`: eager training steps (eager_models_cli.py)."""
from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys

import numpy as np

from . import cuda_workloads, first_call, limits, report
from .harness import Settings, add_ratios, run_workload
from .impl import GROUPS, PEERS, expand, load, load_all
from .workloads import BY_NAME, WORKLOADS

# See harness.py: thread pools read these when their library loads, so they must be in the
# environment before numpy/numba/torch are imported; an explicit user setting wins.
THREAD_ENV = {"OMP_WAIT_POLICY": "passive", "OPENBLAS_THREAD_TIMEOUT": "4"}
DEFAULT_COMPARE = "numpy,numba,torch,jax"


def parse(argv: list[str], prog: str) -> argparse.Namespace:
    from jitgrad.cli.common import Parser, output_file  # one-line errors, exit status 2
    p = Parser(prog=prog, description="Time jitgrad against NumPy, numba, PyTorch and "
                                "JAX on the same workloads, interleaved in one process.")
    p.add_argument("workloads", nargs="*", metavar="WORKLOAD",
                   help=f"any of: {', '.join(BY_NAME)} (default: all)")
    p.add_argument("--compare",
                   help=f"comma-separated peers from {', '.join(PEERS)} "
                        f"({', '.join(cuda_workloads.PEERS)} with --device cuda); 'torch' means "
                        f"eager and torch.compile; jitgrad "
                        f"always runs (default: {DEFAULT_COMPARE}; on cuda all of them)")
    p.add_argument("--repeat", type=int, help="timed rounds per workload (default: 11, --quick: 3)")
    p.add_argument("--quick", action="store_true", help="small sizes and short batches, for smoke tests")
    p.add_argument("--json", metavar="FILE", type=output_file, help="also write all results as JSON")
    p.add_argument("--plot", metavar="FILE.png", type=output_file, help="also draw the ratios as a bar chart (matplotlib)")
    p.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    p.add_argument("--static", action="store_true",
                   help="with --device cuda: no GPU needed; assemble every kernel of the GPU cases "
                        "with ptxas for sm_80/sm_90 and report registers, spills, launch shapes, "
                        "vector access, tensor cores and estimated times (benchmarks/cuda_static.py)")
    p.add_argument("--no-first-call", action="store_true",
                   help="skip the fresh-process first-call measurement of mlp_step")
    args = p.parse_args(argv)
    unknown = [w for w in args.workloads if w not in BY_NAME]
    if unknown:
        p.error(f"unknown workload(s) {', '.join(unknown)}; choose from {', '.join(BY_NAME)}")
    if args.device == "cuda":
        names = [n for n in (args.compare or ",".join(cuda_workloads.PEERS)).split(",") if n]
        names = list(dict.fromkeys(i for n in names for i in GROUPS.get(n, (n,)) if i != "jitgrad"))
        bad = [n for n in names if n not in cuda_workloads.PEERS]
        if bad:
            p.error(f"--device cuda: unknown peer(s) {', '.join(bad)}; choose from "
                    f"{', '.join(cuda_workloads.PEERS)}")
        args.compare_gpu = names
    try:
        peers = expand([name for name in (args.compare or DEFAULT_COMPARE).split(",")
                        if name and args.device == "cpu"])
    except ValueError as e:
        p.error(str(e))
    args.impls = ["jitgrad"] + [i for i in peers if i != "jitgrad"]
    if args.static and args.device != "cuda":
        p.error("--static is a check of the CUDA kernels: use it with --device cuda")
    if args.repeat is not None and args.repeat < 1:
        p.error("--repeat must be at least 1")
    return args


def main(argv: list[str] | None = None, prog: str = "python -m jitgrad.benchmarks") -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["models"]:      # whole-model training steps, each framework in its own process
        from .models.runner import main as models_main
        return models_main(argv[1:], f"{prog} models")
    if argv[:1] == ["eager-models"]:    # eager training steps, jitgrad beside torch
        from .eager_models_cli import main as eager_models_main
        return eager_models_main(argv[1:], f"{prog} eager-models")
    args = parse(argv, prog)
    missing = {k: v for k, v in THREAD_ENV.items() if k not in os.environ}
    if missing:  # too late for libraries already loaded here: run in a fresh process
        return subprocess.call([sys.executable, "-m", __package__, *argv], env={**os.environ, **missing})
    if args.plot:
        report.require_matplotlib()
    if args.device == "cuda" and args.static:
        from . import cuda_static
        return cuda_static.main(args, argv)
    if args.device == "cuda":
        return cuda_workloads.main(args)

    selected = [BY_NAME[w] for w in args.workloads] or WORKLOADS
    impls, skipped = load_all(args.impls)
    reference = load("numpy")  # the output check needs NumPy's answer even when it is not timed
    settings = Settings(repeat=args.repeat or (3 if args.quick else 11), target_s=0.002 if args.quick else 0.02)
    print("measuring copy bandwidth and sgemm rate ...", file=sys.stderr, flush=True)
    load_start = os.getloadavg()[0]
    lim_start = limits.measure()

    results, workload_rows = [], []
    for w in selected:
        print(f"{w.name} ...", file=sys.stderr, flush=True)
        size = w.sizes[args.quick]
        inputs = w.make_inputs(np.random.default_rng(0), size)
        rows = run_workload(w, inputs, impls, reference, settings)
        results += rows
        workload_rows.append({"name": w.name, "about": w.about, "size": str(size),
                              "cost": w.cost(inputs) if w.cost else None, "rows": rows})
    lim = lim_start.best(limits.measure())
    for row in workload_rows:
        cost, rows = row.pop("cost"), row.pop("rows")
        row["bound_ms"] = 1e3 * lim.bound_s(cost) if cost else None
        add_ratios(rows, row["bound_ms"])

    first = []
    if "mlp_step" in [w.name for w in selected] and not args.no_first_call:
        print("first call of mlp_step in fresh processes ...", file=sys.stderr, flush=True)
        first = first_call.measure([i.name for i in impls], "mlp_step", args.quick)

    rep = report.Report(
        meta={"device": args.device, "sizes": "quick" if args.quick else "full", "repeat": settings.repeat,
              "cpus": os.cpu_count(), "load_avg": [load_start, os.getloadavg()[0]],
              "python": platform.python_version(),
              "thread_env": " ".join(f"{k}={os.environ[k]}" for k in THREAD_ENV),
              "versions": {i.name: i.version for i in impls}},
        limits={"copy_GB_per_s": lim.copy_bytes_per_s / 1e9, "sgemm_GFLOP_per_s": lim.sgemm_flops_per_s / 1e9},
        workloads=workload_rows, results=results, first_call=first, skipped=skipped)
    print(report.to_markdown(rep))
    if args.json:
        report.to_json(rep, args.json)
    if args.plot:
        report.plot(rep, args.plot)
    return 0
