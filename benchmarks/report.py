"""Rendering one run: markdown table (stdout), JSON file, matplotlib bar chart."""
from __future__ import annotations

import importlib.util
import json
from dataclasses import asdict, dataclass, field


@dataclass
class Report:
    meta: dict                       # device, sizes, rounds, thread settings, versions, ...
    limits: dict                     # measured copy bandwidth and sgemm rate
    workloads: list[dict]            # name, about, size, bound_ms
    results: list                    # harness.Result
    first_call: list = field(default_factory=list)   # first_call.FirstCall
    skipped: dict = field(default_factory=dict)      # impl -> why it did not run


def _num(x, fmt: str) -> str:
    return "" if x is None else format(x, fmt)


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def to_markdown(report: Report) -> str:
    m, lim = report.meta, report.limits
    lines = [
        f"# jitgrad benchmarks ({m['device']}, {m['sizes']} sizes, {m['repeat']} interleaved rounds, median)",
        "",
        f"- bounds: copy {lim['copy_GB_per_s']:.1f} GB/s (np.copyto, 64 MiB, read+write), "
        f"sgemm {lim['sgemm_GFLOP_per_s']:.0f} GFLOP/s (np.dot 1024x1024 float32); "
        "each the better of two medians, at the start and the end of the run",
        f"- machine: {m['cpus']} CPUs, load average {m['load_avg'][0]:.1f} at the start and "
        f"{m['load_avg'][1]:.1f} at the end; threads: {m['thread_env']}",
        "- versions: " + ", ".join(f"{k} {v}" for k, v in m["versions"].items()),
    ]
    if max(m["load_avg"]) > m["cpus"]:
        lines.append("- WARNING: other processes competed for the CPUs; the times are inflated and noisy")
    lines += [f"- not run: {k} ({_cell(v)})" for k, v in report.skipped.items()]
    lines += ["", "× numpy and × bound are time ÷ NumPy's time and time ÷ the bound (lower is better).", "",
              "| workload | impl | median ms | × numpy | × bound | faults/call | check |",
              "|---|---|---:|---:|---:|---:|---|"]
    for r in report.results:
        median = f"error: {_cell(r.error)}" if r.error else _num(r.median_ms, ".4g")
        lines.append(f"| {r.workload} | {r.impl} | {median} | {_num(r.ratio_numpy, '.2f')} | "
                     f"{_num(r.ratio_bound, '.1f')} | {_num(r.faults_per_call, '.0f')} | {_cell(r.check)} |")
    lines += ["", "| workload | computes | size | bound ms |", "|---|---|---|---:|"]
    for w in report.workloads:
        lines.append(f"| {w['name']} | {_cell(w['about'])} | {w['size']} | {_num(w['bound_ms'], '.3g')} |")
    if report.first_call:
        lines += ["", "First call of mlp_step (trace + compile + run) in a fresh process; "
                  "cold: empty cache dirs, warm: the same cache dirs again.", "",
                  "| impl | import s | first call cold s | first call warm s | note |",
                  "|---|---:|---:|---:|---|"]
        for f in report.first_call:
            lines.append(f"| {f.impl} | {_num(f.import_s, '.3f')} | {_num(f.cold_s, '.3f')} | "
                         f"{_num(f.warm_s, '.3f')} | {_cell(f.error or '')} |")
    return "\n".join(lines) + "\n"


def to_json(report: Report, path: str) -> None:
    data = asdict(report)
    with open(path, "w") as f:
        json.dump(data, f, indent=1)


def require_matplotlib() -> None:
    """Fail before measuring anything, not after minutes of work."""
    if importlib.util.find_spec("matplotlib") is None:
        raise SystemExit("--plot needs matplotlib: pip install matplotlib (or jitgrad[bench])")


def plot(report: Report, path: str) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [w["name"] for w in report.workloads]
    impls = list(dict.fromkeys(r.impl for r in report.results))
    width = 0.8 / max(1, len(impls))
    fig, axes = plt.subplots(2, 1, figsize=(max(8, 1.4 * len(names)), 8), sharex=True)
    for ax, key, label in ((axes[0], "ratio_numpy", "time ÷ NumPy"), (axes[1], "ratio_bound", "time ÷ bound")):
        for i, impl in enumerate(impls):
            value = {r.workload: getattr(r, key) for r in report.results if r.impl == impl}
            xs = [j for j, n in enumerate(names) if value.get(n)]
            ax.bar([x + (i - (len(impls) - 1) / 2) * width for x in xs],
                   [value[names[x]] for x in xs], width, label=impl)
        ax.set_yscale("log")
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_ylabel(f"{label} (lower is better)")
    axes[0].legend(ncol=len(impls), fontsize="small", loc="lower center", bbox_to_anchor=(0.5, 1.0))
    axes[1].set_xticks(range(len(names)), names, rotation=20)
    axes[1].set_xlabel(f"jitgrad benchmarks ({report.meta['device']}, {report.meta['sizes']} sizes)")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
