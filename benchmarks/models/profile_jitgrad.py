"""The jitgrad side of each model under jg.profiler: `python -m
jitgrad.benchmarks.models.profile_jitgrad [--models gpt,cnn] [--steps 10] [--top 10]
[--trace-dir DIR]`. Prints, per model, the profiled step time and the top kernels by total time
with their share of the step (the time of the jitted calls); --trace-dir also writes one Chrome
trace per model."""
from __future__ import annotations

import argparse
import os

import jitgrad as jg

from . import fw_jitgrad, model_spec


def profile_model(model, steps=10, warmup=3, small=False):
    cfg = model_spec.config(model, small)
    tr = fw_jitgrad.Trainer(model, cfg, model_spec.weights(model, cfg),
                            model_spec.batch(model, cfg))
    for _ in range(1 + warmup):
        tr.step()
    with jg.profiler.profile() as prof:
        for _ in range(steps):
            tr.step()
    return prof


def kinds_summary(prof) -> str:
    """Time per kernel kind, as shares of the step."""
    share: dict = {}
    for r in prof.key_averages():
        share[r.kind] = share.get(r.kind, 0.0) + r.share
    kernels = {}
    for r in prof.key_averages():
        kernels[r.kind] = kernels.get(r.kind, 0) + r.calls
    steps = len([e for e in prof.events if e.cat == "call"]) or 1
    return ", ".join(f"{k} {100 * v:.1f}% ({kernels[k] // steps} kernels)"
                     for k, v in sorted(share.items(), key=lambda kv: -kv[1]))


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m jitgrad.benchmarks.models.profile_jitgrad")
    p.add_argument("--models", default=",".join(model_spec.MODELS))
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--top", type=int, default=10)
    p.add_argument("--small", action="store_true")
    p.add_argument("--trace-dir")
    a = p.parse_args(argv)
    for model in a.models.split(","):
        prof = profile_model(model, a.steps, small=a.small)
        calls = [e for e in prof.events if e.cat == "call"]
        step_ms = sum(e.t1 - e.t0 for e in calls) / max(len(calls), 1) / 1e6
        print(f"## {model}: {step_ms:.2f} ms per profiled step ({len(calls)} steps)")
        print(f"by kind: {kinds_summary(prof)}")
        print(prof.table(sort_by="total", row_limit=a.top))
        if a.trace_dir:
            os.makedirs(a.trace_dir, exist_ok=True)
            prof.export_chrome_trace(os.path.join(a.trace_dir, f"{model}.json"))
        print()


if __name__ == "__main__":
    main()
