"""Every primitive's record covers every concern, or says why not (ir/primitives/, ir/registry.py).

A new primitive is one record; this file is what tells its author which concern is missing.
"""
from __future__ import annotations


import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad.codegen.cuda import exprs as cuda_exprs
from jitgrad.codegen.cpu import llvm_exprs, llvm_math_table
from jitgrad.codegen.cpu.kernels import opaque
from jitgrad.ir.errors import UnsupportedOpError
from jitgrad.ir.ops import Op
from jitgrad.ir.registry import (BACKENDS, BATCH_RULES, JVP_RULES, NON_DIFFERENTIABLE, OP_COST,
                                 RECORDS, REFERENCE, TRANSCENDENTAL, TYPE_RULES, UNBATCHABLE,
                                 VJP_RULES, Primitive, register)

ALL = sorted(RECORDS.values(), key=lambda r: r.op.value)
ELEMENTWISE = [r for r in ALL if r.kind == "elementwise"]
# what each backend computes one element of an elementwise op with
SCALAR_TABLES = {"cuda": cuda_exprs.EXPR, "llvm": llvm_exprs.EXPR}


def test_every_op_has_exactly_one_record():
    assert set(RECORDS) == set(Op)
    assert all(op is r.op for op, r in RECORDS.items())


@pytest.mark.parametrize("r", ALL, ids=lambda r: r.op.value)
def test_type_rule_and_reference(r):
    assert TYPE_RULES[r.op] is r.type_rule and REFERENCE[r.op] is r.reference
    assert callable(r.type_rule) and callable(r.reference)
    assert r.doc, f"{r.op}: one line saying what it computes"


@pytest.mark.parametrize("r", ALL, ids=lambda r: r.op.value)
def test_derivative_or_the_reason_there_is_none(r):
    if r.kind == "kernel":      # kernels exist only after autodiff (the pipeline's last stage)
        assert r.op not in VJP_RULES and r.unbatchable
        return
    if r.nondiff:
        assert r.op in NON_DIFFERENTIABLE and r.linearized is None
        return
    assert r.op in VJP_RULES and r.op in JVP_RULES, f"{r.op}: a VJP and a JVP rule, or nondiff"
    assert r.op not in NON_DIFFERENTIABLE


@pytest.mark.parametrize("r", ALL, ids=lambda r: r.op.value)
def test_batching_rule_or_the_reason_there_is_none(r):
    assert (r.op in BATCH_RULES) != bool(r.unbatchable), r.op
    assert (r.op in UNBATCHABLE) == bool(r.unbatchable)


@pytest.mark.parametrize("r", ELEMENTWISE, ids=lambda r: r.op.value)
def test_elementwise_records_have_a_scalar_form(r):
    if set(r.gaps) == set(BACKENDS):       # no backend compiles it (complex parts)
        assert r.scalar == (), r.op
        return
    assert r.scalar[:1] in (("math",), ("infix",), ("rule",)), r.op
    assert r.arity in (1, 2, 3) and r.linearized is None or callable(r.linearized)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("r", ELEMENTWISE, ids=lambda r: r.op.value)
def test_each_backend_computes_the_op_or_the_record_says_why_not(r, backend):
    """Exactly one of: the backend's scalar table has the op, or the record names the backend
    in `gaps` with the reason (a documented fallback). A stale gap fails too."""
    covered = r.op in SCALAR_TABLES[backend]
    assert covered != (backend in r.gaps), (
        f"{r.op} on {backend}: " + ("covered, but the record still lists a gap" if covered else
                                    "no scalar rule and no gap in its record"))


def test_llvm_gaps_of_the_other_kinds_are_exactly_what_it_leaves_to_the_host():
    for r in ALL:
        if r.kind in ("shape", "index", "cumulative", "linalg") and r.op is not Op.broadcast_to:
            assert (r.op in opaque.OPAQUE) != ("llvm" in r.gaps), r.op
        if r.kind == "fft":
            assert "llvm" in r.gaps, r.op


def test_gap_reasons_are_sentences():
    for r in ALL:
        for backend, why in r.gaps.items():
            assert backend in BACKENDS and len(why) > 20, (r.op, backend, why)


def test_cost_classes_feed_fusion_and_the_parallel_threshold():
    for r in ALL:
        assert OP_COST[r.op] > 0
        assert (r.op in TRANSCENDENTAL) == (r.cost == "transcendental")
    assert OP_COST[Op.exp] > OP_COST[Op.div] > OP_COST[Op.add]


def test_vector_math_names_are_llvm_math_functions():
    names = {r.vector_math for r in ALL if r.vector_math}
    for name in names:
        assert (name, "float32") in llvm_math_table.FUNCTIONS
        assert (name, "float64") in llvm_math_table.FUNCTIONS


def test_cuda_math_functions_are_the_records_math_names():
    want = {r.scalar[1] for r in ELEMENTWISE if r.scalar[:1] == ("math",)}
    assert want <= cuda_exprs.LIBDEVICE_MATH


@pytest.mark.parametrize("r", [r for r in ALL if r.numpy], ids=lambda r: r.op.value)
def test_numpy_names_are_jitgrad_numpy_functions(r):
    for name in r.numpy:
        assert callable(getattr(jnp, name, None)), f"jnp.{name} ({r.op}'s record)"


@pytest.mark.parametrize("r", [r for r in ALL if r.method], ids=lambda r: r.op.value)
def test_method_names_are_tensor_methods(r):
    x = jnp.ones(3)
    for name in r.method:
        assert callable(getattr(x, name, None)), f"Tensor.{name} ({r.op}'s record)"


def test_a_record_is_registered_once():
    with pytest.raises(ValueError, match="registered twice"):
        register(RECORDS[Op.exp])


def test_a_record_without_a_derivative_or_a_reason_is_refused():
    with pytest.raises(AssertionError, match="a derivative rule or the reason"):
        Primitive(Op.exp, "elementwise", TYPE_RULES[Op.exp], np.exp)


def test_an_uncovered_op_is_a_clear_error_naming_op_and_backend():
    with pytest.raises(UnsupportedOpError, match=r"real is not supported by the cuda backend: "
                                                 r"complex-valued kernels run as NumPy host steps"):
        cuda_exprs.scalar_expr(None, Op.real, ["a"], [np.dtype("complex64")],
                               np.dtype("float32"), {})


def test_compiled_and_eager_agree_for_every_float_unary_record():
    """The records drive every path: one program per float math record, compiled and eager."""
    x = np.linspace(0.1, 0.9, 7).astype(np.float32)
    for r in ELEMENTWISE:
        if r.group != "float_unary" or not r.numpy:
            continue
        fn = getattr(jnp, r.numpy[0])
        want = np.asarray(fn(jnp.asarray(x)))
        got = np.asarray(jg.jit(fn)(jnp.asarray(x)))
        np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-7, err_msg=str(r.op))
