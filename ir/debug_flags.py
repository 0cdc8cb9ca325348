"""The debug flags the pass manager reads (ir/ imports nothing above it, so they live here;
runtime/config.py re-exports them beside the other flags and documents all of them).

JITGRAD_DEBUG=0..4                 log level (2: pass timings, 3: optimized IR)
JITGRAD_PRINT_AFTER=all|fuse,dce   print the IR after these passes
JITGRAD_VERIFY=1                   verify the graph between passes (always on under pytest)
JITGRAD_DISABLE=fuse,cse           turn passes off (they return their input unchanged)
"""
from __future__ import annotations

import os
import sys


def debug_level() -> int:
    try:
        return int(os.environ.get("JITGRAD_DEBUG", "0") or 0)
    except ValueError:
        return 0


def _names(var) -> frozenset:
    return frozenset(s.strip() for s in os.environ.get(var, "").split(",") if s.strip())


def print_after() -> frozenset:
    return _names("JITGRAD_PRINT_AFTER")


def disabled_passes() -> frozenset:
    return _names("JITGRAD_DISABLE")


def verify_enabled() -> bool:
    return os.environ.get("JITGRAD_VERIFY", "") not in ("", "0") or "pytest" in sys.modules


def log(level: int, msg: str) -> None:
    """Print `msg` to stderr when JITGRAD_DEBUG >= level."""
    if debug_level() >= level:
        print(f"[jitgrad] {msg}", file=sys.stderr, flush=True)
