"""Eager elementwise ops that NumPy computes slowly, run by the jit path's compiled kernels.

SciPy's `erf` and the NumPy reference of `sigmoid` (where + exp + abs + divisions) take 4-20x
the time of the LLVM kernels `jit` generates for them. Eagerly, these ops (float32 and float64)
run through one compiled unit per (op, dtype, chunk length): a graph of the one op over a
1-D chunk, compiled once by `compile_graph` (like any jitted function, cached on disk), then
called over the array chunk by chunk (the last chunk zero-padded). An elementwise kernel's
result at an element depends on that element only, so every array, of any shape, gets the
same bits as under `jit` (and the compile happens once per op and dtype, never per shape).

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
LENGTHS = (65536, 4096, 256)        # chunk lengths (elements), longest first: a unit each
_UNITS: dict = {}                   # (op, dtype, length) -> Executable.run, or None: cannot compile
_lock = threading.Lock()


def compiled_reference(op, dtype):
    """fn(x) -> op(x) through op's compiled unit for `dtype`, or None when op is not one of
    SLOW_IN_NUMPY on a float32/float64 array."""
    if op not in SLOW_IN_NUMPY or dtype not in FLOATS:
        return None
    return partial(run_chunked, op)


def run_chunked(op, x):
    """op(x) for an elementwise op with one float input: as many chunks of each of LENGTHS
    (longest first) as fit, then the rest in one zero-padded chunk of the shortest."""
    n, short = x.size, LENGTHS[-1]
    if n <= short:                      # the small case, kept short
        run = _UNITS.get((op, x.dtype, short)) or _unit(op, x.dtype, short)
        if run is None:
            return REFERENCE[op](x)
        buf = np.zeros(short, x.dtype)
        buf[:n] = x.reshape(-1)
        return run([buf])[0][:n].reshape(x.shape)
    runs = [_unit(op, x.dtype, length) for length in LENGTHS]
    if None in runs:
        return REFERENCE[op](x)
    flat = x.reshape(-1)
    out = np.empty(n, x.dtype)
    i = 0
    for run, length in zip(runs, LENGTHS):
        while n - i >= length:
            out[i:i + length] = run([flat[i:i + length]])[0]
            i += length
    if i < n:
        buf = np.zeros(short, x.dtype)
        buf[:n - i] = flat[i:]
        out[i:] = runs[-1]([buf])[0][:n - i]
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
    from ..transforms.compile_graph import compile_graph   # lazy: codegen loads on first use
    b = Builder(Graph(name=f"eager_{op}"))
    x = b.add_input(TensorType((length,), dtype))
    b.graph.outputs = list(b.emit(op, [x], {}))
    try:
        exe = compile_graph(b.graph, "cpu")
    except Exception:           # noqa: BLE001 - no LLVM here: the NumPy reference is correct too
        return None
    return None if exe.backend == "interpreter" else exe.run
