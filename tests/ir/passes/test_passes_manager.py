"""The pass manager: kill switches (JITGRAD_DISABLE), printing (JITGRAD_PRINT_AFTER), timing
(JITGRAD_DEBUG=2), verification between passes, and what jit's Lowered exposes."""
import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad import ir
from jitgrad.ir import Op
from jitgrad.ir.kernel import kind_of
from jitgrad.ir.passes import manager
from jitgrad.ir.passes.manager import PASS_NAMES, run_pipeline

TEXT = """graph f(%x: f32[8], %y: f32[8]) -> f32[8] {
  %0 = constant value=1.0 : f32[]
  %1 = mul %x, %0 : f32[8]
  %2 = exp %1 : f32[8]
  %3 = exp %1 : f32[8]
  %4 = add %2, %3 : f32[8]
  %5 = tanh %y : f32[8]
  return %4
}"""


def pipeline(monkeypatch, disable=""):
    monkeypatch.setenv("JITGRAD_DISABLE", disable)
    return run_pipeline(ir.parse(TEXT))


def body_ops(schedule):
    return [str(n.op) for k in schedule for n in k.params["body"].nodes]


def test_default_pipeline(monkeypatch):
    optimized, schedule, plan = pipeline(monkeypatch)
    assert len(schedule) == 1 and body_ops(schedule) == ["exp", "add"]
    assert schedule == optimized.nodes and plan.peak_bytes == 0


@pytest.mark.parametrize("name,ops", [
    ("canonicalize", ["constant", "mul", "exp", "add"]),
    ("cse", ["exp", "exp", "add"]),
    ("dce", ["exp", "add", "tanh"]),
])
def test_disable_one_pass(monkeypatch, name, ops):
    _, schedule, _ = pipeline(monkeypatch, name)
    assert body_ops(schedule) == ops


def test_disable_fuse_gives_one_kernel_per_node(monkeypatch):
    _, schedule, plan = pipeline(monkeypatch, "fuse")
    assert [k.params["kind"] for k in schedule] == ["elementwise"] * 2
    assert body_ops(schedule) == ["exp", "add"]
    assert plan.naive_bytes == plan.peak_bytes == 64
    g = jg.make_graph(lambda x: jnp.sum(jnp.exp(x).T, axis=0))(np.ones((3, 4), np.float32))
    monkeypatch.setenv("JITGRAD_DISABLE", "fuse")
    _, schedule, _ = run_pipeline(g)
    assert [k.params["kind"] for k in schedule] == [kind_of(n.op) for n in g.nodes]


def test_disable_everything_keeps_the_graph(monkeypatch):
    g = ir.parse(TEXT)
    monkeypatch.setenv("JITGRAD_DISABLE", ",".join(PASS_NAMES))
    _, schedule, plan = run_pipeline(g)
    assert [n.op for k in schedule for n in k.params["body"].nodes] == [n.op for n in g.nodes]
    assert plan.peak_bytes == plan.naive_bytes


def test_disable_plan_memory_gives_naive_plan(monkeypatch):
    g = jg.make_graph(lambda x: jnp.sum(jnp.exp(x) @ x, axis=0) + jnp.sum(x))(
        np.ones((8, 8), np.float32))
    monkeypatch.setenv("JITGRAD_DISABLE", "fuse")
    _, _, reused = run_pipeline(g)
    monkeypatch.setenv("JITGRAD_DISABLE", "fuse,plan_memory")
    _, _, naive = run_pipeline(g)
    assert naive.peak_bytes == naive.naive_bytes == reused.naive_bytes > reused.peak_bytes


def test_print_after_named_passes(monkeypatch, capsys):
    monkeypatch.setenv("JITGRAD_PRINT_AFTER", "fuse,dce")
    run_pipeline(ir.parse(TEXT))
    err = capsys.readouterr().err
    assert "IR after dce" in err and "IR after fuse" in err and "IR after cse" not in err
    assert 'kind="elementwise"' in err


def test_print_after_all(monkeypatch, capsys):
    monkeypatch.setenv("JITGRAD_PRINT_AFTER", "all")
    run_pipeline(ir.parse(TEXT))
    err = capsys.readouterr().err
    for name in PASS_NAMES:
        assert f"IR after {name}" in err
    assert "memory plan:" in err


def test_debug_2_times_every_pass(monkeypatch, capsys):
    monkeypatch.setenv("JITGRAD_DEBUG", "2")
    run_pipeline(ir.parse(TEXT))
    err = capsys.readouterr().err
    for name in PASS_NAMES:
        assert f"pass {name}: " in err


def test_verify_between_passes_catches_a_broken_pass():
    def broken(g):
        out = ir.Graph(list(g.inputs), list(reversed(g.nodes)), list(g.outputs), g.name)
        return out
    broken.__name__ = "broken"
    with pytest.raises(ir.VerifyError, match="not defined before it is used"):
        run_pipeline(ir.parse(TEXT), passes=(broken,) + manager.PIPELINE)


def test_a_given_pass_sequence_runs_only_those(monkeypatch):
    """run_pipeline(passes=...): those passes in that order; none is as every pass disabled."""
    chosen = tuple(p for p in manager.PIPELINE if p.__name__ in ("cse", "dce", "fuse"))
    _, schedule, _ = run_pipeline(ir.parse(TEXT), passes=chosen)
    assert len(schedule) == 1 and body_ops(schedule) == ["constant", "mul", "exp", "add"]
    nothing, schedule, _ = run_pipeline(ir.parse(TEXT), passes=())
    disabled = pipeline(monkeypatch, ",".join(PASS_NAMES[:-1]))[0]
    assert str(nothing) == str(disabled) and len(schedule) == 6


def test_lowered_exposes_the_schedule_and_plan(rng):
    x = rng.standard_normal((4, 8)).astype(np.float32)
    f = jg.jit(lambda x: jnp.tanh(x * 2.0) + 1.0)
    lowered = f.lower(x)
    text = lowered.optimized_ir
    assert str(ir.parse(text)) == text and text.count("= kernel") == len(lowered.schedule) == 1
    assert lowered.memory_plan.peak_bytes == 0 and "graph output" in str(lowered.memory_plan)
    np.testing.assert_allclose(np.asarray(f(x)), np.tanh(x * 2) + 1, rtol=1e-6)


def test_donate_argnums_reaches_the_plan():
    w, g = np.ones((16, 16), np.float32), np.ones((16, 16), np.float32)
    plain = jg.jit(lambda w, g: w - 0.5 * g).lower(w, g).memory_plan
    donated = jg.jit(lambda w, g: w - 0.5 * g, donate_argnums=0).lower(w, g).memory_plan
    assert not plain.donated and list(donated.donated.values()) == [0]
    assert "in a donated input; in place of %w" in str(donated)


def test_only_needed_outputs_are_computed():
    g = jg.make_graph(lambda x: (jnp.exp(x), jnp.sort(x))[0])(np.ones(4, np.float32))
    _, schedule, _ = run_pipeline(g)
    assert Op.sort not in [n.op for k in schedule for n in k.params["body"].nodes]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_square_powers_become_square_not_pow(dtype):
    """x**2 is square(x) after canonicalize (one rounding, as NumPy computes it; powf was 4x
    slower in a BatchNorm variance); x**3 stays a pow; values bit-identical to NumPy."""
    x = (np.arange(-6, 6) * 1.7).astype(dtype)
    f = jg.jit(lambda x: (x ** 2, x ** 3))
    ops = body_ops(f.lower(x).schedule)
    assert "square" in ops and ops.count("pow") == 1
    two, three = f(x)
    np.testing.assert_array_equal(np.asarray(two), x ** 2)
    np.testing.assert_allclose(np.asarray(three), x ** 3, rtol=1e-6)
