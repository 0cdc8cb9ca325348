"""The pass manager: the default pipeline as a flat list, run with verify / print / timing between
passes.

    canonicalize → conv_input_grad → fold_constants → scan_accumulate → join_pads → cse → merge_scans
    → prune_scan_ys → fold_transposes → contract_batch → dce → inline_remat
    → fuse → remat_outputs → plan_memory

Between passes (ir/config.py): the graph is verified (always under pytest, and with
JITGRAD_VERIFY=1), printed to stderr after the passes named in JITGRAD_PRINT_AFTER (`all` or
`fuse,dce`), and each pass is timed (JITGRAD_DEBUG>=2). A pass named in JITGRAD_DISABLE returns
its input unchanged: with `fuse` off the schedule is one kernel per node (kernel.unfused_schedule);
with `plan_memory` off every buffer gets its own slot (peak_bytes == naive_bytes).
"""
from __future__ import annotations

import sys
import time

from .. import config
from ..autodiff.custom import inline_custom_calls
from ..graph import Graph
from ..kernel import KERNEL, unfused_schedule
from ..verifier import verify
from .canonicalize import canonicalize
from .contract_batch import contract_batch
from .conv_input_grad import conv_input_grad
from .cse import cse
from .dce import dce
from .fold_constants import fold_constants
from .fold_transposes import fold_transposes
from .fuse import fuse
from .inline_remat import inline_remat
from .join_pads import join_pads
from .merge_scans import merge_scans
from .plan_memory import plan_memory
from .prune_scan_ys import prune_scan_ys
from .remat_outputs import remat_outputs
from .scan_accumulate import scan_accumulate
from .verify_schedule import verify_schedule
from .widen_lowp import widen_lowp

PIPELINE = (canonicalize, conv_input_grad, fold_constants, scan_accumulate, join_pads, cse, merge_scans,
            prune_scan_ys, fold_transposes, contract_batch, dce, inline_remat, fuse, remat_outputs)
PASS_NAMES = tuple(p.__name__ for p in PIPELINE) + ("plan_memory",)


def _timed(name, fn, arg):
    t0 = time.perf_counter()
    out = fn(arg)
    config.log(2, f"pass {name}: {(time.perf_counter() - t0) * 1e3:.2f} ms")
    return out


def _after(name, obj, printed, check):
    if config.verify_enabled():
        check(obj)
    if "all" in printed or name in printed:
        print(f"// ---- IR after {name} ----\n{obj}", file=sys.stderr, flush=True)


def run_pipeline(graph: Graph, donated=(), passes=PIPELINE):
    """Optimize `graph` (custom_vjp_call nodes inlined first: their VJP rule matters only to
    autodiff). Returns (optimized graph of kernel nodes, schedule, memory plan).

    `donated`: indices of graph inputs whose storage the caller gives up (jit's donate_argnums,
    flattened to leaves); the memory plan may write outputs into them. `passes`: the graph
    passes to run, in order (PIPELINE; a custom sequence is verified, printed and timed the
    same way, as MLIR's pass managers run any pipeline); plan_memory always comes last."""
    graph = inline_custom_calls(graph)     # a custom VJP rule matters only to autodiff
    graph = widen_lowp(graph)      # float16/bfloat16/small ints computed wide (ir/lowp.py)
    disabled = config.disabled_passes()
    unknown = disabled - set(PASS_NAMES)
    if unknown:
        config.log(1, f"JITGRAD_DISABLE names unknown passes {sorted(unknown)}; "
                     f"the passes are {', '.join(PASS_NAMES)}")
    printed = config.print_after()
    g = graph
    if config.verify_enabled():
        verify(g)
    for p in passes:
        name = p.__name__
        if name not in disabled:
            g = _timed(name, p, g)
        _after(name, g, printed, verify)
    if any(n.op != KERNEL for n in g.nodes):      # fuse disabled: one kernel per node
        g = unfused_schedule(g)
        if config.verify_enabled():
            verify(g)
    plan = _timed("plan_memory", lambda s: plan_memory(s, donated=donated,
                                                      reuse="plan_memory" not in disabled), g)
    _after("plan_memory", plan, printed, lambda p: verify_schedule(g, p))
    if config.debug_level() >= 3:     # printing a large graph costs; only when asked
        config.log(3, f"optimized IR of {graph.name} ({len(g.nodes)} kernels):\n{g}")
    return g, list(g.nodes), plan
