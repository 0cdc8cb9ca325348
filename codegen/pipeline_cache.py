"""The pass pipeline's results on disk: a traced graph seen before is not optimized again.

A jitted function's first call in a new process traces it, runs the pass pipeline and loads
its kernels from the disk cache. The kernels are cached by their canonical text
(codegen/cpu/units.py), but the pipeline (fusion above all: half a second for a GPT step) ran
again every time. Its result, (optimized graph, schedule, memory plan), depends only on the
traced graph, the graph inputs the caller donates, the passes switched off and the code of the
passes, so it is stored under a key hashing those. The memory plan is stored as the backend
runs it (`layout`: the CPU's plan laid out for its pool's concurrent waves, codegen/cpu/waves.py,
which depend on the thread count, also in the key), so a warm start plans no waves either:

    <kernel dir>/pipeline/jg_pipeline_<24 hex>.pkl     SHA-256 of the payload, then the pickle

`optimize` is the one way a graph goes through the pipeline for a backend: a jitted function's
graph (jitgrad/compilation/compile_graph.py) and the sub-graphs the CPU compiles into native
loops (scan, while and fori_loop bodies, cond branches: codegen/cpu/backend.compile_subgraph)
alike, so a warm start runs no pass on a loop body either.

The key is the graph's text (ir/printer.py: every node, param and source line; large
constants by the digest of their bytes), so two graphs that print alike optimize alike, and a
graph whose source lines moved gets its own entry (kernel names and errors name the lines).
The code version is a hash of the ir/ package's source, of codegen/kernel/canonical.py (an
entry also carries each scheduled kernel's canonical text, which names its unit, so a later
process does not print the bodies again) and of codegen/cpu/waves.py (the layout). An entry
whose checksum fails is logged and recomputed; an unusable cache directory means no caching
(codegen/disk_cache.py warns once). The pipeline runs as before whenever the user asks to see it run
(JITGRAD_PRINT_AFTER) and under JITGRAD_DISABLE's own key.
"""
from __future__ import annotations

import hashlib
import os
import pickle
import sys

import numpy as np

from .. import ir
from ..ir import Graph, config
from ..ir.kernel import KERNEL
from . import LAYOUTS, disk_cache
from .cpu import waves
from .kernel import canonical

_VERSION: list = []


def _code_version() -> str:
    """A hash of every source file of the ir package (the passes and what they read), of the
    kernels' canonical text and of the CPU's wave layout (an entry carries both)."""
    if not _VERSION:
        h = hashlib.sha256(f"python={sys.version_info[:2]} numpy={np.__version__}".encode())
        root = os.path.dirname(ir.__file__)
        files = [os.path.join(dirpath, n) for dirpath, _, names in os.walk(root)
                 for n in names if n.endswith(".py")]
        for path in sorted(files) + [canonical.__file__, waves.__file__]:
            with open(path, "rb") as f:
                h.update(os.path.basename(path).encode() + b"\0" + f.read())
        _VERSION.append(h.hexdigest()[:16])
    return _VERSION[0]


def key(graph: Graph, donated, layout: str = "") -> str:
    """The entry's name: `graph` optimized with `donated` inputs, its plan laid out for the
    backend `layout` names ("": the pipeline's plan)."""
    h = hashlib.sha256()
    for part in (_code_version(), repr(sorted(donated)), repr(sorted(config.disabled_passes())),
                 str(config.read("num_threads")), layout, str(graph)):
        h.update(part.encode())
        h.update(b"\0")
    return "jg_pipeline_" + h.hexdigest()[:24]


def optimize(graph: Graph, donated=(), device=None):
    """The default pass pipeline's result for `graph`: (optimized graph, schedule, memory plan),
    from the disk cache when this graph was optimized before. `donated`: graph input indices
    whose storage the caller gives up (jit donate_argnums). `device`: the plan comes laid out as
    that device's backend runs it (LAYOUTS: the CPU pool's concurrent waves), and is cached so;
    None: the pipeline's own plan (the reference interpreter's)."""
    target = None if device is None else str(device).split(":")[0]
    lay_out = LAYOUTS.get(target)

    def run(g, d):
        from ..ir.passes.manager import run_pipeline   # lazy: a warm start loads no pass
        optimized, schedule, plan = run_pipeline(g, donated=d)
        return optimized, schedule, plan if lay_out is None else lay_out(optimized, plan)
    return cached(graph, donated, run, layout="" if lay_out is None else target)


def _root():
    return disk_cache.usable_root("pipeline")


def cached(graph: Graph, donated, run, layout: str = ""):
    """run(graph, donated)'s result, from the disk cache when this graph was optimized before;
    `layout`: the backend whose plan run lays out (part of the key)."""
    if config.print_after():        # the user asked to see the passes run
        return run(graph, donated)
    root = _root()
    if root is None:
        return run(graph, donated)
    try:
        name = key(graph, donated, layout)
    except TypeError:               # a param the printer cannot write: not cached
        return run(graph, donated)
    path = os.path.join(root, name + ".pkl")
    hit = _read(path)
    if hit is not None:
        config.log(1, f"pipeline cache hit: {name} ({graph.name})")
        return hit
    result = run(graph, donated)
    _write(root, path, result)
    return result


def _read(path: str):
    payload, _ = disk_cache.read_sealed(path)     # a damaged entry: logged, None
    if payload is None:
        return None
    try:
        entry = pickle.loads(payload)
    except Exception as e:  # noqa: BLE001 - a class renamed since: recompute
        config.log(1, f"pipeline cache: {path} does not load ({type(e).__name__}: {e}); "
                      "recomputing it")
        return None
    if not isinstance(entry, dict):     # an entry written before the kernels' texts were kept
        return entry
    for node, lines in zip(_kernels(entry["result"]), entry["lines"]):
        canonical.remember(node, lines)
    return entry["result"]


def _kernels(result) -> list:
    """The scheduled kernel nodes of a pipeline result (optimized graph, schedule, plan)."""
    _, schedule, _ = result
    return [n for n in schedule if n.op == KERNEL]


def _write(root: str, path: str, result) -> None:
    # with each kernel's canonical text (codegen/kernel/canonical.py): the backend names the
    # units a schedule loads from disk by it, and printing the bodies again in a later process
    # cost ~20 ms of a GPT step's 0.25 s first call
    entry = {"result": result, "lines": [canonical.body_lines(n) for n in _kernels(result)]}
    try:
        payload = pickle.dumps(entry, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as e:  # noqa: BLE001 - a param no pickle can hold: just not cached
        config.log(1, f"pipeline cache: not stored ({type(e).__name__}: {e})")
        return
    disk_cache.write_sealed(root, path, payload)
