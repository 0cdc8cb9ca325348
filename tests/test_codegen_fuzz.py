"""Differential fuzzing of the compiled path (tests/fuzz_programs.py): random programs checked
eager vs jit on the interpreter vs jit compiled with fusion vs compiled without, for forward,
grad, jvp and all three in one jit. A failure prints the shrunk program as Python.

Default run: JITGRAD_FUZZ_PROGRAMS programs (default 24), each in one mode (seed % 4).
Slow run (`pytest -m slow tests/test_codegen_fuzz.py`): JITGRAD_FUZZ_SEEDS=lo:hi (default 0:2000),
every mode of every program. Compiled kernels are cached on disk, so reruns are faster.
"""
import os

import pytest

import numpy as np

from fuzz_programs import BUILDERS, MODES, Program, as_accurate, check, program, shrink


def _report(seed, mode, why, prog):
    small = shrink(prog, mode)
    return (f"seed {seed}, mode {mode}: {why}\nshrunk to ({check(small, mode)}):\n"
            f"{small.source()}\ninputs: shapes {small.shapes}, dtype {small.dtype}, ties "
            f"{small.ties}, tests/fuzz_programs.Program.inputs(seed=0)")


@pytest.mark.parametrize("seed", range(int(os.environ.get("JITGRAD_FUZZ_PROGRAMS", "24"))))
def test_fuzzed_program(seed):
    prog = program(seed)
    mode = MODES[seed % len(MODES)]
    why = check(prog, mode)
    assert why is None, _report(seed, mode, why, prog)


WINDOWS = [(b, 4 if b.__name__ == "_window" else w) for b, w in BUILDERS]


@pytest.mark.parametrize("seed", range(8))
def test_fuzzed_window_program(seed):
    """Rank-4 inputs and convolutions, pooling and split reshapes drawn often: im2col/col2im,
    the conv lowering and the memory plan's views, every mode; odd seeds with tied inputs
    (pooling's and reduce_window's gradients to the first maximum)."""
    prog = program(1000 + seed, builders=WINDOWS, rank=4)
    prog.ties = seed % 2 == 1
    for mode in MODES:
        why = check(prog, mode)
        assert why is None, _report(1000 + seed, mode, why, prog)


TIES = [(b, {"_window": 6, "_scatter": 3}.get(b.__name__, w)) for b, w in BUILDERS]


@pytest.mark.parametrize("seed", range(4))
def test_fuzzed_tie_program(seed):
    """Inputs from a few values (ties everywhere), pooling / reduce_window and `.at[]` updates
    with repeated indices drawn often: a tie's gradient goes to the same element on every
    path."""
    prog = program(2000 + seed, builders=TIES, rank=4)
    prog.ties = True
    mode = MODES[seed % len(MODES)]
    why = check(prog, mode)
    assert why is None, _report(2000 + seed, mode, why, prog)


@pytest.mark.slow
def test_fuzzed_programs_slow():
    lo, hi = map(int, os.environ.get("JITGRAD_FUZZ_SEEDS", "0:2000").split(":"))
    failures = []
    for seed in range(lo, hi):
        prog = program(seed)
        for mode in MODES:
            why = check(prog, mode)
            if why is not None:
                failures.append(_report(seed, mode, why, prog))
                break
    assert not failures, f"{len(failures)} of {hi - lo} programs failed:\n\n" + "\n\n".join(failures[:5])


def test_float32_difference_judged_against_float64():
    """A float32 path that differs from eager passes only where it is no further than eager from
    the program run in float64 (an ill-conditioned program: the sine of a value near 3e4, whose
    last bit two summation orders set differently)."""
    prog = Program([(4,)], "float32", [("v0", "jnp.sin(jnp.prod(x0 * 12.0) * 1e3)", ())],
                   ["v0"])
    x = prog.inputs()[0].astype(np.float64)
    exact = np.sin(np.prod(x * 12.0) * 1e3)
    eager = np.float32(exact + 0.05)
    assert as_accurate(prog, "forward", 0, np.array(eager), np.array(np.float32(exact)), [])
    assert as_accurate(prog, "forward", 0, np.array(eager), np.array(eager), [])
    assert not as_accurate(prog, "forward", 0, np.array(eager), np.array(np.float32(exact - 0.2)),
                           [])
    f64 = Program(prog.shapes, "float64", prog.lines, prog.outputs)
    assert not as_accurate(f64, "forward", 0, np.array(eager), np.array(exact), [])
