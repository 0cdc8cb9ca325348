"""Differential fuzzing of the compiled path (tests/support/fuzz_programs.py): random programs checked
eager vs jit on the interpreter vs jit compiled with fusion vs compiled without, for forward,
grad, jvp and all three in one jit. A failure prints the shrunk program as Python.

Default run: JITGRAD_FUZZ_PROGRAMS programs (default 24), each in one mode (seed % 4).
Slow run (`pytest -m slow tests/codegen/test_codegen_fuzz.py`): JITGRAD_FUZZ_SEEDS=lo:hi (default 0:2000),
every mode of every program. Compiled kernels are cached on disk, so reruns are faster.
Issue 48's statements (scalar arguments, constant-init loops with traced trip counts):
JITGRAD_FUZZ_SCALAR_PROGRAMS programs by default (default 6, one mode each), and
JITGRAD_FUZZ_SCALAR_SEEDS=lo:hi (default 0:500, every mode) in the slow run.
"""
import os

import pytest

import numpy as np

import jitgrad as jg
import jitgrad.numpy as jnp
from tests.support.fuzz_programs import (BINARY, BUILDERS, MODES, NO_REVERSE, REDUCERS, SCALAR_LOOP_BUILDERS,
                           SHAPE_OPS, UNARY, Program, as_accurate, check, program, shrink)
from tests.support.opinfo import ALL_RECORDS


def _report(seed, mode, why, prog):
    small = shrink(prog, mode)
    return (f"seed {seed}, mode {mode}: {why}\nshrunk to ({check(small, mode)}):\n"
            f"{small.source()}\ninputs: shapes {small.shapes}, dtype {small.dtype}, ties "
            f"{small.ties}, scalars {small.scalars}, tests/fuzz_programs.Program.inputs(seed=0)")


def test_fuzzer_ops_come_from_the_op_database():
    """The fuzzer's elementwise, reduction and shape statements are the records marked fuzz=
    (tests/support/opinfo/fuzz.py): each line runs and has the shape its NumPy reference gives; a
    program's tolerance is its loosest record's."""
    by_id = {id(r) for r in ALL_RECORDS}
    x = np.linspace(-1.5, 1.5, 24).reshape(2, 3, 4)
    scope = {**Program([], "float64").fn().__globals__, "x": jnp.asarray(x)}
    uses = [(UNARY, "unary", ("x",), {}), (BINARY, "binary", ("x", "x[0]"), {}),
            (REDUCERS, "reduce", ("x",), {"axis": (0, 2), "keepdims": True}),
            (SHAPE_OPS, "shape", ("x",), {})]
    for ops, kind, names, params in uses:
        assert len(ops) >= 7, kind
        for op in ops:
            assert id(op.record) in by_id and op.record.fuzz == kind, op.text
            want = op.shape(*[eval(n, {"x": x}).shape for n in names], **params)  # noqa: S307
            if want is None:        # the reference rejects the shape: so does jitgrad
                with pytest.raises((ValueError, IndexError, TypeError)):
                    eval(op.line(*names, **params), scope)      # noqa: S307
                continue
            out = eval(op.line(*names, **params), scope)   # noqa: S307 - the database's text
            assert tuple(out.shape) == want, op.text
    loose = next(op for op in BINARY if op.tol_scale > 1)      # xlogy: tol 1e-4
    prog = program(0, builders=[(lambda rng, a, sa, pick, new_input: (
        loose.line(a, a), sa, loose.tol_scale), 1)], n_stmts=2)
    assert prog.tol_scale == loose.tol_scale and check(prog, "grad") is None


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


def scalar_loop_program(seed):
    """Issue 48: programs with scalar arguments and constant-init loops with traced bounds."""
    return program(3000 + seed, builders=SCALAR_LOOP_BUILDERS, dtypes=("float32", "float64"))


@pytest.mark.parametrize("seed", range(int(os.environ.get("JITGRAD_FUZZ_SCALAR_PROGRAMS", "6"))))
def test_fuzzed_scalar_and_loop_program(seed):
    """NumPy and Python scalars passed as arguments (weak: values and dtypes agree, float32
    programs stay float32) and fori_loop / while_loop with constant inits and traced trip counts
    or conditions, eager vs jit on every path."""
    prog = scalar_loop_program(seed)
    mode = MODES[seed % len(MODES)]
    why = check(prog, mode)
    assert why is None, _report(3000 + seed, mode, why, prog)


def test_scalar_arguments_stay_weak_on_every_path():
    """The scalar-argument plumbing: passed unconverted (a jnp.asarray would make them strong),
    not differentiated, and an f32 array times any of them stays float32."""
    for s in ("np.float64(0.75)", "np.float32(-1.25)", "np.int32(2)", "0.5", "3"):
        prog = Program([(3,)], "float32", [("v0", "x0 * s0 + s0", (3,)),
                                           ("v1", "jg.fori_loop(0, s1, lambda i, c: c * 0.5 + "
                                            "jnp.mean(v0) + i * 0.25, 0.0) * v0" + NO_REVERSE,
                                            (3,))],
                       ["v1"], scalars=[s, "np.int32(2)"])
        assert prog.source().startswith("def f(x0, s0, s1):")
        for mode in MODES:
            assert check(prog, mode) is None, (s, mode)
        out = prog.fn()(*[jnp.asarray(x) if isinstance(x, np.ndarray) else x
                          for x in prog.inputs()])
        assert out[0].dtype == np.float32


def test_fori_loop_float_init_with_index_traced_bound():
    """The eager index is weak (a Python int), as the traced one: a Python-float carry stays
    float32 (a NumPy int32 index made it float64)."""
    f = lambda n: jg.fori_loop(0, n, lambda i, v: v * 1.5 + i, 0.0)   # noqa: E731
    assert f(3).dtype == jg.jit(f)(3).dtype == np.float32
    assert float(f(3)) == float(jg.jit(f)(3)) == 3.5
    g = lambda: jg.fori_loop(0, 3, lambda i, v: v + i.astype(jnp.float32) * i.ndim, 0.0)  # noqa: E731
    assert g().dtype == np.float32


def test_fori_loop_numpy_scalar_init_float64_body():
    """A NumPy float32 init is a strong carry: a float64 body is JAX's carry type error on
    every path (eagerly it was silently promoted)."""
    x = np.ones(3)
    f = lambda x, n: jg.fori_loop(0, n, lambda i, c: c * 0.5 + jnp.mean(x), np.float32(0.5))  # noqa: E731
    for g in (f, jg.jit(f)):
        with pytest.raises(TypeError, match="fori_loop: the body function's carry input"):
            g(jnp.asarray(x), 2)


def test_grad_past_traced_loop_over_stop_gradient():
    """A traced-trip loop that reads only stop_gradient values carries no derivative, so
    reverse mode passes it under jit as in JAX (autodiff's dependency walk stops at
    stop_gradient)."""
    x = jnp.asarray(np.linspace(-1, 2, 3).astype(np.float32))   # sum(x) != 0: a nonzero gradient

    def f(x, n):
        loop = lambda x: jg.fori_loop(0, n, lambda i, c: c * 0.5 + jnp.sum(   # noqa: E731
            jg.lax.stop_gradient(x)), 0.0)
        return jg.grad(lambda x: jnp.sum(x * loop(x)))(x)
    np.testing.assert_allclose(np.asarray(jg.jit(f)(x, np.int32(2))),
                               np.asarray(f(x, np.int32(2))))


@pytest.mark.slow
def test_fuzzed_scalar_and_loop_programs_slow():
    lo, hi = map(int, os.environ.get("JITGRAD_FUZZ_SCALAR_SEEDS", "0:500").split(":"))
    failures = []
    for seed in range(lo, hi):
        prog = scalar_loop_program(seed)
        for mode in MODES:
            why = check(prog, mode)
            if why is not None:
                failures.append(_report(3000 + seed, mode, why, prog))
                break
    assert not failures, f"{len(failures)} of {hi - lo} programs failed:\n\n" + "\n\n".join(failures[:5])


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
