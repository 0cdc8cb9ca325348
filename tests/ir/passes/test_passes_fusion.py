"""Fusion shape checks asserted on the schedule, and the memory plan of an MLP training step.

Measured when written: the MLP 784-512-512-10 SGD step is 13 kernels for 8 matmuls (3 forward,
5 backward); its arena peak is 1.85 MB against 2.38 MB naive (every intermediate alive at once),
and the unfused schedule's peak is a small fraction of its naive bytes.
"""
import numpy as np
import pytest

import jitgrad as jg
import jitgrad.nn.functional as F
import jitgrad.numpy as jnp
from jitgrad import ir
from jitgrad.ir import Op
from jitgrad.ir.passes.manager import run_pipeline


class Optimized:
    """What jit's Lowered exposes, straight from the pass pipeline (no code generation)."""

    def __init__(self, fn, *args, donated=()):
        self.graph = jg.make_graph(fn)(*args)
        self.optimized, self.schedule, self.memory_plan = run_pipeline(self.graph, donated)
        self.optimized_ir = str(self.optimized)


def kinds(lowered):
    return [k.params["kind"] for k in lowered.schedule]


def _check_numbers(fn, *args, rtol=1e-5):
    lowered = Optimized(fn, *args)
    want = ir.interpret(lowered.graph, list(args))
    reparsed = ir.parse(lowered.optimized_ir, constants=lowered.optimized.constants)
    assert str(reparsed) == lowered.optimized_ir
    for w, g in zip(want, ir.interpret(reparsed, list(args))):
        np.testing.assert_allclose(g, w, rtol=rtol)
    return lowered


def test_elementwise_chain_is_one_kernel(rng):
    x = rng.standard_normal((64, 32)).astype(np.float32)
    lowered = _check_numbers(lambda x: jnp.tanh(x * 1.5 + 0.3) * F.sigmoid(x) + jnp.exp(-x * x), x)
    assert kinds(lowered) == ["elementwise"]


def test_row_softmax_is_one_rowwise_kernel(rng):
    x = rng.standard_normal((16, 128)).astype(np.float32)
    lowered = _check_numbers(F.softmax, x)
    assert kinds(lowered) == ["rowwise"]


def layernorm(x):
    m = jnp.mean(x, axis=-1, keepdims=True)
    v = jnp.var(x, axis=-1, keepdims=True)
    return (x - m) / jnp.sqrt(v + 1e-5)


def test_layernorm_forward_is_one_rowwise_kernel(rng):
    x = rng.standard_normal((16, 128)).astype(np.float32)
    lowered = _check_numbers(layernorm, x)
    assert kinds(lowered) == ["rowwise"]
    body = lowered.schedule[0].params["body"]
    assert sum(n.op == Op.reduce_sum for n in body.nodes) == 2     # mean and variance, once each


def test_softmax_over_a_leading_axis_is_not_rowwise(rng):
    x = rng.standard_normal((16, 8)).astype(np.float32)
    lowered = _check_numbers(lambda x: F.softmax(x, axis=0), x)
    assert "rowwise" not in kinds(lowered)


def test_matmul_bias_relu_is_one_kernel(rng):
    x, w, b = (rng.standard_normal(s).astype(np.float32) for s in ((8, 16), (16, 4), (4,)))
    lowered = _check_numbers(lambda x, w, b: F.relu(x @ w + b), x, w, b)
    assert kinds(lowered) == ["matmul"]


# ------------------------------------------------------------------------------- MLP step

SIZES = (784, 512, 512, 10)
BATCH = 256


def loss_fn(params, x, y):
    h = x
    for i, (w, b) in enumerate(params):
        h = jnp.matmul(h, w) + b
        if i < len(params) - 1:
            h = F.relu(h)
    return -jnp.mean(jnp.sum(F.log_softmax(h) * y, axis=-1))


def sgd_step(params, x, y):
    loss, grads = jg.value_and_grad(loss_fn)(params, x, y)
    return loss, [(w - 0.1 * gw, b - 0.1 * gb) for (w, b), (gw, gb) in zip(params, grads)]


@pytest.fixture(scope="module")
def mlp():
    rng = np.random.default_rng(0)
    params = [(rng.standard_normal((a, b)).astype(np.float32) * 0.05, np.zeros(b, np.float32))
              for a, b in zip(SIZES[:-1], SIZES[1:])]
    x = rng.standard_normal((BATCH, SIZES[0])).astype(np.float32)
    y = np.eye(10, dtype=np.float32)[rng.integers(0, 10, BATCH)]
    return params, x, y


def _flat(params, x, y):
    return [a for wb in params for a in wb] + [x, y]


@pytest.fixture(scope="module")
def mlp_lowered(mlp):
    return Optimized(sgd_step, *mlp)


def test_mlp_step_kernels_at_most_matmuls_plus_six(mlp_lowered):
    matmuls = sum(n.op == Op.matmul for n in mlp_lowered.graph.nodes)
    n = len(mlp_lowered.schedule)
    print(f"\nMLP {'-'.join(map(str, SIZES))} SGD step: {n} kernels for {matmuls} matmuls")
    assert matmuls == 8
    assert n <= matmuls + 6, f"{n} kernels for {matmuls} matmuls:\n{mlp_lowered.optimized_ir}"
    assert kinds(mlp_lowered).count("matmul") == matmuls


def test_mlp_step_optimized_equals_unoptimized(mlp, mlp_lowered):
    flat = _flat(*mlp)
    want = ir.interpret(mlp_lowered.graph, flat)
    for w, g in zip(want, ir.interpret(mlp_lowered.optimized, flat)):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


def live_lower_bound(schedule_graph):
    """Most bytes of intermediates (kernel outputs that are not graph outputs) simultaneously live
    between two kernels — no plan can use less. Computed independently of plan_memory."""
    kernels = schedule_graph.nodes
    outputs = set(schedule_graph.outputs)
    born, last = {}, {}
    for i, k in enumerate(kernels):
        for v in k.inputs:
            last[v] = i
        for v in k.outputs:
            born[v] = i
    best = 0
    for t in range(len(kernels)):
        live = sum(v.type.nbytes for v in born if v not in outputs
                   and born[v] <= t < last.get(v, born[v]))
        best = max(best, live)
    return best


def assert_no_overlap(plan, schedule_graph):
    """Independent check: values live at the same time never share arena bytes, except an output
    written in place of an input dying at that kernel."""
    kernels = schedule_graph.nodes
    span = {}
    for i, k in enumerate(kernels):
        for v in k.outputs:
            span[v] = [i, i]
        for v in k.inputs:
            if v in span:
                span[v][1] = i
    vals = [(plan.offsets[v], v.type.nbytes, *span[v], v) for v in plan.offsets if v.type.nbytes]
    for i, (o1, n1, s1, e1, v1) in enumerate(vals):
        for o2, n2, s2, e2, v2 in vals[i + 1:]:
            if o1 < o2 + n2 and o2 < o1 + n1 and s1 <= e2 and s2 <= e1:
                handoff = (e1 == s2 and v1 in kernels[s2].inputs) or (
                    e2 == s1 and v2 in kernels[s1].inputs)
                assert handoff and o1 == o2, f"{v1} and {v2} overlap in time and space"


def test_mlp_step_memory_plan(mlp_lowered):
    plan = mlp_lowered.memory_plan
    optimized = mlp_lowered.optimized
    bound = live_lower_bound(optimized)
    print(f"\nMLP step memory: peak {plan.peak_bytes} bytes, naive {plan.naive_bytes} bytes, "
          f"lower bound {bound} bytes\n{plan}")
    assert bound <= plan.peak_bytes < 0.85 * plan.naive_bytes
    assert_no_overlap(plan, optimized)
    assert set(plan.outputs) == {v for v in optimized.outputs if v not in optimized.inputs}
    assert "%0" in str(plan) and "graph output (separate)" in str(plan)


def test_mlp_step_unfused_memory_plan(mlp, monkeypatch):
    monkeypatch.setenv("JITGRAD_DISABLE", "fuse")
    lowered = Optimized(sgd_step, *mlp)
    plan = lowered.memory_plan
    optimized = lowered.optimized
    assert len(lowered.schedule) > 40
    assert live_lower_bound(optimized) <= plan.peak_bytes < 0.5 * plan.naive_bytes
    assert_no_overlap(plan, optimized)


def test_mlp_step_donated_params_are_updated_in_place(mlp):
    lowered = Optimized(sgd_step, *mlp, donated=range(6))
    plan = lowered.memory_plan
    assert sorted(plan.donated.values()) == list(range(6))     # all six new params
    assert not plan.outputs.keys() & plan.donated.keys()
    assert_no_overlap(plan, lowered.optimized)


def test_a_cheap_broadcast_read_as_a_row_and_as_a_column_stays_two_body_values():
    """Found by the fuzzer: copies of a cheap broadcast met again in one kernel were merged into
    one body value though one copy was read along axis 0 (through a reshape to a column) and the
    other along axis 1; the body then formed no kernel ("the body does not form a elementwise
    kernel"). Now the merge is undone when it breaks the kernel."""
    def f(x0):
        v7 = jnp.maximum(jnp.prod(jnp.max(x0, axis=(0,)), keepdims=True), 0.0)
        v8 = jnp.broadcast_to(v7, (2,))
        return jnp.reshape(v8 - v7 * 0.5, (2, 1)) / (v8 * v8 + 1.0)

    def g(x2):
        v3 = jnp.broadcast_to(jnp.stack([x2, x2 * 0.5], axis=1), (2, 2, 2))
        return jnp.where(v3 > 0, v3, jnp.reshape(jnp.maximum(v3, v3 * 2.0), (2, 2, 2, 1)))
    x = np.array([0.7], np.float32)
    np.testing.assert_allclose(np.asarray(jg.jit(f)(x)), np.asarray(f(jnp.asarray(x))), rtol=1e-6)
    x2 = np.array([0.3, -0.4])
    np.testing.assert_array_equal(np.asarray(jg.jit(g)(x2)), np.asarray(g(jnp.asarray(x2))))
    t = np.ones(2)
    _, tan = jg.jit(lambda x, t: jg.jvp(g, (x,), (t,)))(x2, t)
    np.testing.assert_array_equal(np.asarray(tan), np.asarray(jg.jvp(g, (x2,), (t,))[1]))
