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


def test_integer_fuzzer_ops_come_from_the_op_database():
    """int_program's statements are the op database's integer records marked fuzz= (every one:
    no hand-kept list): each line runs on int32 edge values, with Python int literals as right
    operands too, to an integer result of the shape its NumPy reference gives; math that
    computes in floating point (divide, mean, exp) is not among them."""
    from tests.support import fuzz_programs as fp
    from tests.support.opinfo import ALL_RECORDS
    marked = {id(r) for r in ALL_RECORDS if r.fuzz}
    x = fp.int_edge_values("int32")[:12].reshape(3, 4)
    scope = {**fp.Program([], "int32").fn().__globals__, "x": jnp.asarray(x)}
    uses = [(fp.INT_UNARY, ("x",), {}), (fp.INT_BINARY, ("x", "x[0]"), {}),
            (fp.INT_BINARY, ("x", "-1"), {}), (fp.INT_BINARY, ("x", "0"), {}),
            (fp.INT_REDUCERS, ("x",), {"axis": 1, "keepdims": False}),
            (fp.INT_SHAPE_OPS, ("x",), {})]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for ops, names, params in uses:
            for op in ops:
                assert id(op.record) in marked, op.text
                want = op.shape(*[np.shape(eval(n, {"x": x})) for n in names],  # noqa: S307
                                **params)
                out = eval(op.line(*names, **params), scope)    # noqa: S307 - the database's text
                assert out.dtype.kind == "i" and tuple(out.shape) == want, op.text
    names = {op.record.name for ops in (fp.INT_UNARY, fp.INT_BINARY, fp.INT_REDUCERS)
             for op in ops}
    assert {"floor_divide", "remainder", "left_shift", "right_shift", "bitwise_xor", "invert",
            "sum", "max"} <= names
    assert not names & {"divide", "mean", "exp", "fabs"}
    power = next(op for op in fp.INT_BINARY if op.record.name == "power")
    assert power.line("x", "-1") == "jnp.power(x, (-1 & 7))"       # NumPy rejects x ** -1
