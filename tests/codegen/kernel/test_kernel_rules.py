"""The shared scalar rules and reducers (codegen/kernel/exprs.py, reducers.py; issue 51, item 1):
written once against the ops protocol (codegen/kernel/ops_protocol.py) and rendered by each target.

A NumPy handler of the protocol evaluates every rule here, so the rules themselves are checked
against NumPy's ufuncs at their float edges (signed zeros, NaN, infinities, halves) independently
of a target; the CPU paths (eager, interpreter, compiled) check the rendered LLVM table on the
same values (tests/support/float_edges.py; the CUDA simulator: tests/cuda_sim/test_cuda_float_edges.py)."""
import warnings

import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad.codegen.cpu import llvm_exprs, llvm_complex
from jitgrad.codegen.cuda import exprs as cuda_exprs
from jitgrad.codegen.kernel import exprs as kernel_exprs, ops_protocol as ops, reducers
from jitgrad.ir.ops import Op
from tests.support import float_edges

_BINARY = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,
           "and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor,
           "shl": np.left_shift, "shr": np.right_shift, "copysign": np.copysign,
           "floordiv": np.floor_divide, "mod": np.remainder, "pow": np.power}
_UNARY = {"neg": np.negative, "not": np.logical_not, "invert": np.invert, "floor": np.floor,
          "ceil": np.ceil, "rint": np.rint, "fabs": np.fabs}
_COMPARE = {"==": np.equal, "!=": np.not_equal, "<": np.less, "<=": np.less_equal,
            ">": np.greater, ">=": np.greater_equal}


class NumpyOps:
    """The ops protocol on NumPy arrays: each basic op is its ufunc, in the op's dtype."""

    def const(self, value, dtype):
        return np.asarray(value).astype(dtype)

    def binary(self, name, x, y, dtype):
        return _BINARY[name](x, y).astype(dtype)

    def unary(self, name, x, dtype):
        return _UNARY[name](x).astype(dtype)

    def compare(self, pred, x, y, dtype):
        return _COMPARE[pred](x, y)

    def select(self, c, x, y):
        return np.where(c, x, y)

    def convert(self, x, src, dst):
        return x.astype(dst)

    def math(self, name, dtype, *xs):
        return getattr(np, {"atan2": "arctan2"}.get(name, name))(*xs).astype(dtype)

    def has_math(self, name, dtype):
        return hasattr(np, name)


@pytest.mark.parametrize("op", float_edges.CASES, ids=str)
def test_each_shared_float_rule_is_numpys_at_the_edges(op):
    _, ref, args = float_edges.CASES[op]
    with np.errstate(all="ignore"):
        want = ref(*args)
        got = kernel_exprs.RULES[op](NumpyOps(), list(args), [a.dtype for a in args], want.dtype)
    assert float_edges.same(got, want), (op, args, got, want)


PATHS = {"eager": None, "interpreter": {"JITGRAD_BACKEND": "interpreter"}, "compiled": {}}


@pytest.mark.parametrize("path", PATHS)
def test_float_edges_on_every_cpu_path(path, monkeypatch):
    for k, v in (PATHS[path] or {}).items():
        monkeypatch.setenv(k, v)

    def run(fn, *args):
        return np.asarray(fn(*map(jnp.asarray, args)) if PATHS[path] is None
                          else jg.jit(fn)(*args))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        assert float_edges.mismatched(run) == [], path


def test_sign_of_negative_zero_is_numpys_positive_zero():
    """np.sign(-0.0) is +0.0 (and torch.sign's): the CPU rule once kept -0.0."""
    got = jg.jit(jnp.sign)(np.array([-0.0, 0.0], np.float32))
    assert not np.signbit(np.asarray(got)).any()


def test_every_real_op_of_both_targets_is_rendered_from_the_shared_rules():
    """No target keeps an op-level rule of its own for real dtypes: the CPU's own entries are
    its complex ones (llvm_complex, CUDA has no complex kernels)."""
    shared = set(kernel_exprs.table("llvm")) | set(kernel_exprs.table("cuda"))
    own_cpu = set(llvm_exprs.EXPR) - shared
    own_cuda = set(cuda_exprs.EXPR) - shared - {Op.broadcast_to}
    assert own_cpu <= set(llvm_complex.RULES) and not own_cuda
    assert own_cpu & own_cuda == set()


def _llvm_ops(dt):
    from llvmlite import ir
    ty = llvm_exprs.ltype(dt)
    fn = ir.Function(ir.Module(), ir.FunctionType(ty, [ty, ty]), "f")
    return llvm_exprs.LlvmOps(ir.IRBuilder(fn.append_basic_block())), fn.args


@pytest.mark.parametrize("dt", [np.float32, np.int32, np.uint64])
def test_both_handlers_render_every_basic_op_of_the_protocol(dt):
    dt = np.dtype(dt)
    llvm, (x, y) = _llvm_ops(dt)
    cuda = cuda_exprs.CudaOps(cuda_exprs.ExprContext())
    float_only, int_only = {"div", "copysign", "floor", "ceil", "rint", "fabs"}, \
        {"and", "or", "xor", "shl", "shr", "invert"}
    names = [n for n in (*ops.BINARY, *ops.UNARY)
             if n != "not" and n not in (int_only if dt.kind == "f" else float_only)]
    for name in names:
        for o, a, b in ((llvm, x, y), (cuda, "x", "y")):
            got = o.binary(name, a, b, dt) if name in ops.BINARY else o.unary(name, a, dt)
            assert got is not None, (name, o)
    for pred in ops.COMPARE:
        assert llvm.compare(pred, x, y, dt) is not None
        assert cuda.compare(pred, "x", "y", dt) == f"(x {pred} y)"
    assert set(_BINARY) == set(ops.BINARY) and set(_UNARY) == set(ops.UNARY)
    assert set(_COMPARE) == set(ops.COMPARE)


@pytest.mark.parametrize("dt,want", [(np.int8, np.int64), (np.int16, np.int64),
                                     (np.int32, np.int64), (np.bool_, np.int64),
                                     (np.uint8, np.uint64), (np.float32, np.float32)])
def test_integer_sums_accumulate_as_numpy_sums_them(dt, want):
    """np.sum widens small ints and bools to the default int (torch.sum to int64)."""
    assert reducers.accumulator_dtype("sum", dt) == want == np.sum(np.ones(2, dt)).dtype
    assert reducers.accumulator_dtype("max", dt) == dt


@pytest.mark.parametrize("kind", ["sum", "prod", "max", "min"])
@pytest.mark.parametrize("dt", [np.float32, np.int32, np.bool_])
def test_reducer_identity_and_combine_fold_to_numpys_reduction(kind, dt):
    o = NumpyOps()
    values = np.array([3, 0, 1, 2], dt) if dt != np.float32 else \
        np.array([1.5, np.nan, -2.0, 0.0], np.float32)
    acc_dt = reducers.accumulator_dtype(kind, dt)
    acc = reducers.identity(o, kind, acc_dt)
    for v in values.astype(acc_dt):
        acc = reducers.combine(o, kind, acc, v, acc_dt)
    want = {"sum": np.sum, "prod": np.prod, "max": np.max, "min": np.min}[kind](values)
    assert float_edges.same(np.asarray(acc).astype(want.dtype), want)


@pytest.mark.parametrize("kind,want", [("max", 1), ("min", 1)])
def test_argmax_rule_takes_the_first_nan_and_the_first_of_ties(kind, want):
    o, values = NumpyOps(), np.array([2.0, np.nan, 5.0, np.nan, -1.0], np.float32)
    best, at = values[0], 0
    for i, v in enumerate(values[1:], 1):
        if reducers.better(o, kind, v, best, np.float32):
            best, at = v, i
    assert at == want == (np.argmax(values) if kind == "max" else np.argmin(values))
    assert reducers.tie(o, np.float32(np.nan), np.float32(np.nan), np.float32)
    assert not reducers.better(o, "max", np.float32(2.0), np.float32(2.0), np.float32)


@pytest.mark.parametrize("op,in_dtypes,out,reason", [
    (Op.floor, ["int32"], "int32", "no floor of int32"),
    (Op.shift_left, ["float32", "float32"], "float32", "no shl of float32"),
    (Op.eq, ["float32", "float64"], "bool", "operands of different dtypes"),
    (Op.sin, ["float16"], "float16", "half floats only convert"),
    (Op.signbit, ["int64"], "bool", "no copysign of int64"),
    (Op.add, ["bool", "bool"], "bool", "no add of bool"),
])
def test_the_checking_handler_says_why_the_cpu_does_not_build_an_op(op, in_dtypes, out, reason):
    """One coverage answer per target: the shared rule run on dtypes (codegen/kernel/check.py)."""
    why = llvm_exprs.why_not(op, in_dtypes, out)
    assert why is not None and reason in why
    assert not llvm_exprs.supported(op, in_dtypes, out)


@pytest.mark.parametrize("op,in_dtypes,out", [
    (Op.floor_div, ["uint16", "uint16"], "uint16"), (Op.pow, ["float64", "float64"], "float64"),
    (Op.isnan, ["int32"], "bool"), (Op.convert, ["bfloat16"], "float32"),
    (Op.max, ["bool", "bool"], "bool"), (Op.sigmoid, ["float32"], "float32"),
])
def test_the_checking_handler_accepts_what_the_cpu_builds(op, in_dtypes, out):
    from jitgrad.ir.types import bfloat16
    in_dtypes = [bfloat16 if d == "bfloat16" else d for d in in_dtypes]
    assert llvm_exprs.why_not(op, in_dtypes, out) is None
