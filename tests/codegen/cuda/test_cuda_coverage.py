"""codegen/cuda/kernel_coverage.py: CUDA's one coverage answer for a kernel body is the checking
walk (codegen/kernel/check.CheckWalk: the body walk the generators write with, on dtypes) with
CUDA's scalar rules and checking handler (codegen/cuda/exprs.RULES, CHECK). No device needed."""
import numpy as np

import jitgrad as jg
import jitgrad.nn.functional as F
import jitgrad.numpy as jnp
from jitgrad.codegen.cuda import exprs, fused, kernel_coverage as coverage
from jitgrad.codegen.kernel.check import CheckOps, CheckWalk
from jitgrad.codegen.kernel.space import bare
from jitgrad.compilation.compile_graph import optimize
from jitgrad.ir.kernel import kernel_nodes
from jitgrad.ir.ops import Op

X = np.linspace(-1, 1, 24, dtype=np.float32).reshape(4, 6)


def _kernels(fn, *args):
    optimized, schedule, _ = optimize(jg.jit(fn).lower(*args).graph)
    return kernel_nodes(optimized, schedule)


def _fused(fn, *args):
    (node,) = [n for n in _kernels(fn, *args) if n.params["kind"] != "opaque"]
    return node


def test_an_op_the_cuda_handler_cannot_compute_is_named(monkeypatch):
    node = _fused(lambda x: jnp.tanh(x * 2.0) + 1.0, X)
    assert coverage.why_not(node) is None
    no_tanh = CheckOps(exprs.CHECK.kinds, exprs.CHECK.dtypes, exprs.CHECK.stored,
                       lambda name, dt: name != "tanh" and exprs.CHECK.has_math(name, dt))
    monkeypatch.setattr(exprs, "CHECK", no_tanh)
    assert coverage.why_not(node) == "tanh: no tanh of float32"


def test_an_op_without_a_cuda_scalar_rule_is_named(monkeypatch):
    node = _fused(lambda x: jnp.tanh(x * 2.0) + 1.0, X)
    monkeypatch.setattr(exprs, "RULES", {op: r for op, r in exprs.RULES.items() if op != Op.tanh})
    assert coverage.why_not(node) == "tanh has no scalar rule"


def test_the_checking_walk_sees_integer_and_float_rules_at_their_dtypes():
    node = _fused(lambda a, b: (a // b) % 3 + jnp.abs(a) * jnp.sign(b), X.astype(np.int32),
                  X.astype(np.int32) + 2)
    assert coverage.why_not(node) is None
    body = node.params["body"]
    walk = CheckWalk(body, set(body.inputs), lambda v: bare(body.outputs[0].type.shape),
                     exprs.RULES, exprs.CHECK)
    assert walk.check(body.outputs) is None
    assert [walk.expr(v) for v in body.outputs] == [np.dtype(np.int32)]


def test_an_operand_a_point_cannot_read_is_named():
    x = np.linspace(-1, 1, 36).reshape(2, 2, 3, 3)
    reasons = [coverage.why_not(n) for n in _kernels(
        lambda x: F.max_pool2d(x, 3, stride=2, padding=1), x)]
    assert ("operand shape (1, 2, 1, 1, 1) does not broadcast to the iteration space "
            "(2, 2, 2, 2)") in reasons
    assert None in reasons


def test_an_op_without_an_eager_kernel_is_named():
    assert coverage.op_why_not(Op.while_loop) == "no CUDA kernel implements it"
    assert coverage.op_why_not(Op.reduce_sum) is None and coverage.op_why_not(Op.take) is None


def test_a_kernel_with_an_empty_constant_generates():
    # an empty constant is read only in an empty space (elsewhere it does not broadcast)
    node = _fused(lambda x: jnp.sin(x) + jnp.asarray(np.zeros((0, 1))), np.ones((0, 3)))
    assert coverage.why_not(node) is None
    assert "def k(" in fused.GENERATORS["elementwise"]("k", node).source.text
