"""Gradient check and the report of the model benchmark: worst gradient difference to a
reference framework, ratios to the best peer, markdown tables."""
from __future__ import annotations

import numpy as np

FRAMEWORKS = ("jitgrad", "jax", "torch", "torch.compile")
REFERENCE = "jax"                  # gradients are compared with JAX's


def grad_diff(grads: dict, reference: dict) -> tuple[float, str]:
    """(max over leaves of max |g - ref|, the leaf where it occurs). The leaf names and shapes
    must match the reference's."""
    if set(grads) != set(reference):
        raise ValueError(f"gradient leaves differ: missing {sorted(set(reference) - set(grads))}, "
                         f"unexpected {sorted(set(grads) - set(reference))}")
    worst, where = 0.0, ""
    for name, ref in reference.items():
        g = np.asarray(grads[name])
        if g.shape != np.shape(ref):
            raise ValueError(f"gradient '{name}': shape {g.shape}, reference {np.shape(ref)}")
        d = float(np.max(np.abs(g.astype(np.float64) - np.asarray(ref, np.float64)), initial=0))
        if not np.isfinite(d) or d > worst:
            worst, where = d, name
        if not np.isfinite(d):
            break
    return worst, where


def add_ratios(rows: list[dict]) -> None:
    """Per row, `x_best_peer`: its median over the best median of the other frameworks on the
    same model (and contention)."""
    for r in rows:
        others = [o["median_ms"] for o in rows if o["model"] == r["model"]
                  and o["framework"] != r["framework"] and o.get("median_ms")]
        if r.get("median_ms") and others:
            r["x_best_peer"] = r["median_ms"] / min(others)


def _f(x, fmt):
    return "" if x is None else format(x, fmt)


def markdown(rows: list[dict], about: dict, notes: list[str]) -> str:
    """The summary table (one row per model, a column per framework) and the detail table."""
    models = list(dict.fromkeys(r["model"] for r in rows))
    fws = [f for f in FRAMEWORKS if any(r["framework"] == f for r in rows)]
    by = {(r["model"], r["framework"]): r for r in rows}
    out = ["| model | " + " | ".join(fws) + " | jitgrad / best peer |",
           "|---" * (len(fws) + 2) + "|"]
    for m in models:
        cells = [_f(by.get((m, f), {}).get("median_ms"), ".2f") or "-" for f in fws]
        ratio = _f(by.get((m, "jitgrad"), {}).get("x_best_peer"), ".2f")
        ratio = ratio + "x" if ratio else "-"
        out.append(f"| {about.get(m, m)} | " + " | ".join(cells) + f" | {ratio} |")
    out += ["", "| model | framework | step ms (median) | min / max | x best peer | first call "
            "cold s | warm s | peak RSS MB | max abs grad diff to JAX |",
            "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        if r.get("error"):
            out.append(f"| {r['model']} | {r['framework']} | error: {r['error']} |||||||")
            continue
        spread = f"{_f(r.get('min_ms'), '.2f')} / {_f(r.get('max_ms'), '.2f')}"
        diff = r.get("grad_diff")
        out.append(f"| {r['model']} | {r['framework']} | {_f(r.get('median_ms'), '.2f')} | "
                   f"{spread} | {_f(r.get('x_best_peer'), '.2f')} | "
                   f"{_f(r.get('first_cold_s'), '.2f')} | "
                   f"{_f(r.get('first_warm_s'), '.2f')} | {_f(r.get('peak_rss_mb'), '.0f')} | "
                   f"{'' if diff is None else format(diff, '.1e')} |")
    return "\n".join(out + [""] + [f"- {n}" for n in notes])
