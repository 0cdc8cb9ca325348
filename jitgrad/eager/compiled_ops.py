"""Eager elementwise ops that NumPy computes slowly, run by the jit path's compiled kernels.

SciPy's `erf` and the NumPy reference of `sigmoid` (where + exp + abs + divisions) take 4-20x
the time of the LLVM kernels `jit` generates for them. Eagerly, these ops (float32 and float64)
run through one compiled unit per (op, dtype, chunk length): a graph of the one op over a
1-D chunk, compiled once by `compile_graph` (like any jitted function, cached on disk), then
called over the array in as few calls as possible: an array of up to LENGTHS[0] elements is
one call of the shortest unit that holds it (zero-padded, so at most 4x the work of the array
itself), a longer one runs whole LENGTHS[0] chunks in place and its rest as one padded call.
An elementwise kernel's result at an element depends on that element only, so every array, of
any shape, gets the same bits as under `jit` (and the compiles happen once per op, dtype and
unit length, never per shape).

`compiled_reference(op, dtype)` is the function eager mode (cpu_backend.py) runs for these ops
in place of their NumPy reference.
When compiling is not possible (the interpreter-only setting, no LLVM), the NumPy reference runs.
"""
from __future__ import annotations

import threading
from functools import partial

import numpy as np

from ..ir import Builder, Graph, Op, TensorType, config
from ..ir.registry import REFERENCE

SLOW_IN_NUMPY = frozenset((Op.erf, Op.sigmoid))
FLOATS = frozenset((np.dtype(np.float32), np.dtype(np.float64)))
LENGTHS = (65536, 16384, 4096, 1024, 256)   # unit lengths (elements), longest first
_UNITS: dict = {}                   # (op, dtype, length) -> Executable.run, or None: cannot compile
_lock = threading.Lock()


def compiled_reference(op, dtype):
    """fn(x) -> op(x) through op's compiled unit for `dtype`, or None when op is not one of
    SLOW_IN_NUMPY on a float32/float64 array."""
    if op not in SLOW_IN_NUMPY or dtype not in FLOATS:
        return None
    return partial(run_chunked, op)


def run_chunked(op, x):
    """op(x) for an elementwise op with one float input: whole chunks of the longest unit run
    in place, then the rest (or the whole of a short array) as one zero-padded call of the
    shortest unit that holds it; the NumPy reference when the units cannot compile."""
    n, longest = x.size, LENGTHS[0]
    whole = n - n % longest
    rest = n - whole
    fit = next((k for k in reversed(LENGTHS) if k >= rest), longest)
    runs = [_UNITS.get((op, x.dtype, k)) or _unit(op, x.dtype, k)
            for k in ((longest,) if whole else ()) + ((fit,) if rest or not n else ())]
    if None in runs:
        return REFERENCE[op](x)
    flat = x.reshape(-1)
    if not whole:                       # the common case: one call
        buf = np.zeros(fit, x.dtype)
        buf[:n] = flat
        return runs[0]([buf])[0][:n].reshape(x.shape)
    out = np.empty(n, x.dtype)
    for i in range(0, whole, longest):
        out[i:i + longest] = runs[0]([flat[i:i + longest]])[0]
    if rest:
        buf = np.zeros(fit, x.dtype)
        buf[:rest] = flat[whole:]
        out[whole:] = runs[1]([buf])[0][:rest]
    return out.reshape(x.shape)


def units() -> dict:
    """(op, dtype, chunk length) -> the compiled unit's run function (None: could not compile)."""
    return dict(_UNITS)


def _unit(op, dtype, length):
    key = (op, dtype, length)
    if key in _UNITS:
        return _UNITS[key]
    with _lock:
        if key not in _UNITS:
            _UNITS[key] = _compile(op, dtype, length)
    return _UNITS[key]


def _compile(op, dtype, length):
    if config.interpreter_only():
        return None
    from ..compilation.compile_graph import compile_graph   # lazy: codegen loads on first use
    b = Builder(Graph(name=f"eager_{op}"))
    x = b.add_input(TensorType((length,), dtype))
    b.graph.outputs = list(b.emit(op, [x], {}))
    try:
        exe = compile_graph(b.graph, "cpu")
    except Exception:           # noqa: BLE001 - no LLVM here: the NumPy reference is correct too
        return None
    return None if exe.backend == "interpreter" else exe.run
