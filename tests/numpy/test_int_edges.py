"""Integer ops at their edges agree with NumPy on every CPU path (issue 24, item 6): eager, jit on
the reference interpreter and jit compiled (LLVM units). The CUDA simulator runs the same matrix:
tests/cuda_sim/test_cuda_wrong_answers_edges.py."""
import warnings

import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
from tests.support.int_edges import binary_cases, mismatches, unary_cases

PATHS = {"eager": None, "interpreter": {"JITGRAD_BACKEND": "interpreter"}, "compiled": {}}


@pytest.fixture(params=list(PATHS))
def run(request, monkeypatch):
    """fn(*arrays) on one path."""
    env = PATHS[request.param]
    for k, v in (env or {}).items():
        monkeypatch.setenv(k, v)
    if env is None:
        return lambda fn, *xs: fn(*[jnp.asarray(x) for x in xs])
    return lambda fn, *xs: jg.jit(fn)(*xs)


def test_integer_binary_ops_match_numpy_at_the_edges(run):
    bad = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for name, dt, fn, a, b, want in binary_cases():
            bad += [f"{name} {dt.__name__} {m}" for m in mismatches(run(fn, a, b), want, (a, b))]
    assert not bad, "\n".join(bad)


def test_integer_unary_ops_match_numpy_at_the_edges(run):
    bad = []
    for name, dt, fn, a, want in unary_cases():
        bad += [f"{name} {dt.__name__} {m}" for m in mismatches(run(fn, a), want, (a,))]
    assert not bad, "\n".join(bad)


def test_reproducer_min_floor_divide_minus_one(run):
    p, q = np.array([-2**63]), np.array([-1])
    got = run(lambda p, q: p // q, p, q)
    assert got.dtype == np.int64 and got.tolist() == [-2**63]       # NumPy: -2**63, not 0
    assert run(lambda p, q: p % q, p, q).tolist() == [0]
    assert run(lambda p, q: p // q, p, np.array([0])).tolist() == [0]  # NumPy: 0 (a warning)


@pytest.mark.parametrize("seed", range(30))
def test_fuzzed_integer_program(seed):
    """Random integer programs over edge values (tests/fuzz_programs.int_program): every jit path
    equals eager exactly (eager equals NumPy: the tests above)."""
    from tests.support.fuzz_programs import check, int_program, shrink
    prog = int_program(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        failure = check(prog, "forward")
        if failure:
            small = shrink(prog, "forward")
            pytest.fail(f"{failure}\n{small.source()}\ninputs: {small.inputs()}")
