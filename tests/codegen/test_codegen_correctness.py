"""The compiled path gives the reference's answers: every reproducer of the compiled-correctness
issue, schedule determinism, the schedule verifier, and whole models with fusion on and off.

Like every test module, this one compiles (tests/conftest.py), so it runs the fused kernels
(LLVM units, numba where they do not reach) and the memory plan users run."""
import functools
import gc
import os

import numpy as np
import pytest

import jitgrad as jg
import jitgrad.nn.functional as F
import jitgrad.numpy as jnp
from jitgrad.ir.errors import VerifyError
from jitgrad.ir.passes.manager import run_pipeline
from jitgrad.ir.passes.verify_schedule import verify_schedule


def _np(t):
    return [np.asarray(x) for x in jg.tree_util.tree_leaves(t)]


def _same(a, b, rtol=1e-9, atol=1e-12):
    a, b = _np(a), _np(b)
    assert len(a) == len(b)
    for x, y in zip(a, b):
        np.testing.assert_allclose(x, y, rtol=rtol, atol=atol)


X = np.array([[.1, .2], [.3, .4]])
Y = np.array([[1., 2.], [3., 4.]])


@pytest.mark.parametrize("act", [jnp.exp, jnp.log, jnp.tanh])
def test_grad_of_both_matmul_operands(act):
    """Reproducer 1: the product was written into an epilogue output that the epilogue had
    already overwritten (exp(x) came back as the gradient)."""
    def f(x, y):
        return jnp.sum(act(x) @ y)
    g = jg.grad(f, argnums=(0, 1))
    _same(jg.jit(g)(X, Y), g(X, Y))
    xb, yb = np.stack([X, X + 1]), np.stack([Y, Y * 2])
    _same(jg.jit(g)(xb, yb), g(xb, yb))


def test_exp_matmul_gradient_values():
    gx = np.asarray(jg.jit(jg.grad(lambda x, y: jnp.sum(jnp.exp(x) @ y), argnums=(0, 1)))(X, Y)[0])
    np.testing.assert_allclose(gx, [[3.31551275, 8.54981931], [4.04957642, 10.44277288]], rtol=1e-8)


@pytest.mark.parametrize("shape", [(3, 4), (2, 3, 2), (2, 1, 3)])
def test_grad_of_prod_rank2(shape):
    """Reproducer 2: KeyError in codegen (a kernel wrote one body value to two outputs)."""
    x = np.random.default_rng(0).uniform(0.5, 1.5, shape)
    g = jg.grad(lambda x: jnp.prod(x))
    _same(jg.jit(g)(x), g(x))
    _same(jg.jit(g)(np.ones(shape)), np.ones(shape))


def test_per_element_operand_read_in_reduction_and_epilogue():
    """A value indexed by the kept axes is read inside the reduction loop and again after it: the
    LLVM unit must not reuse an offset computed inside the loop (found via jnp.searchsorted)."""
    rng = np.random.default_rng(0)
    x, v = rng.standard_normal((2, 3, 8)), rng.standard_normal((2, 3))
    f = jg.jit(lambda x, v: jnp.sum(x * v[:, :, None], axis=2) + v)
    np.testing.assert_allclose(np.asarray(f(x, v)), (x * v[:, :, None]).sum(2) + v, rtol=1e-12)


def test_fused_schedule_is_acyclic():
    """Reproducer 3: two fusions, each fine alone, closed a cycle through a third kernel."""
    g = jg.grad(lambda a, b, c: jnp.sum(a * jnp.exp(b) * c), argnums=(0, 1))
    args = np.ones(4), np.full((2, 1), .5), np.ones((2, 4))
    _same(jg.jit(g)(*args), g(*args))
    assert "k2" in jg.jit(g).lower(*args).optimized_ir     # prints: in topological order


def test_log_softmax_of_expanded_sin():
    """Reproducer 4 (forward only)."""
    f = lambda x: F.log_softmax(jnp.expand_dims(jnp.sin(x), -1), axis=0)   # noqa: E731
    x = np.array([.3, -.7])
    _same(jg.jit(f)(x), f(x))


def test_concatenate_einsum_forward():
    """Reproducer 5."""
    def f(x0, x1):
        v2 = x0 + x0
        v3 = jnp.concatenate([jnp.cosh(x1), v2, v2])
        return jnp.einsum('a,a->', jnp.einsum('a,b->a', v3, v2), v3)
    rng = np.random.default_rng(1)
    for _ in range(5):
        args = rng.uniform(-1, 1, 2), rng.uniform(-1, 1, 4)
        _same(jg.jit(f)(*args), f(*args))


def test_jvp_tangents_under_jit():
    """Reproducer 6."""
    rng = np.random.default_rng(2)

    def f(x1, x2):
        v1 = jnp.logaddexp(x1 @ jnp.swapaxes(x1, -1, -2), x2)
        return v1.reshape((8, 1, 1)) ** 2
    x1, x2 = rng.uniform(-1, 1, (2, 2, 3)), rng.uniform(-1, 1, (2, 2, 2))
    t1, t2 = rng.uniform(-1, 1, x1.shape), rng.uniform(-1, 1, x2.shape)
    tan = lambda a, b, c, d: jg.jvp(f, (a, b), (c, d))[1]    # noqa: E731
    _same(jg.jit(tan)(x1, x2, t1, t2), tan(x1, x2, t1, t2))

    def h(x):
        return x @ x.T @ x / (jnp.abs(x) + .5)
    x, t = rng.uniform(-1, 1, (3, 3)), rng.uniform(-1, 1, (3, 3))
    tan2 = lambda a, b: jg.jvp(h, (a,), (b,))[1]    # noqa: E731
    _same(jg.jit(tan2)(x, t), tan2(x, t))


def test_no_heap_corruption_max_power_jvp():
    """Reproducer 7: repeated calls with gc in between used to abort the process (free(): invalid
    next size). The check runs in a child process so a crash fails this test, not the suite."""
    import subprocess
    import sys
    code = (
        "import gc, numpy as np, jitgrad as jg, jitgrad.numpy as jnp\n"
        "f = lambda x: jnp.max(x) + jnp.power(jnp.abs(jnp.einsum('a,a->', x, x)) + .5, -.5)\n"
        "g = jg.jit(lambda x, t: jg.jvp(f, (x,), (t,))[1])\n"
        "rng = np.random.default_rng(0)\n"
        "for _ in range(20):\n"
        "    x = rng.uniform(-1, 1, 7).astype(np.float32); t = rng.uniform(-1, 1, 7).astype(np.float32)\n"
        "    r = g(x, t); gc.collect()\n"
        "    e = jg.jvp(f, (jnp.asarray(x),), (jnp.asarray(t),))[1]\n"
        "    assert np.allclose(np.asarray(r), np.asarray(e), rtol=1e-5), (r, e)\n"
        "print('ok')\n")
    env = dict(os.environ, JITGRAD_BACKEND="cpu")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         timeout=300)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]


def test_grad_and_jvp_in_one_jit():
    """Reproducer 8: forward, grad and jvp fused in one graph."""
    f = lambda x: F.log_softmax(x @ x, axis=-2)    # noqa: E731
    rng = np.random.default_rng(3)
    x, t = rng.uniform(-1, 1, (7, 2, 2)), rng.uniform(-1, 1, (7, 2, 2))

    def both(x, t):
        return jg.grad(lambda y: jnp.sum(f(y) ** 2))(x), jg.jvp(f, (x,), (t,))[1]
    _same(jg.jit(both)(x, t), both(x, t))


def _determinism_fn(a, b, c):
    v = jnp.tanh(a @ b) + c
    w = jnp.exp(v) * jnp.sum(v, axis=1, keepdims=True)
    return jnp.sum(F.log_softmax(w, axis=-1) * c) + jnp.max(v)


def test_schedule_is_deterministic():
    """Reproducer 9: the same traced function gives the same schedule, kernel source and cache
    key every time (20 traces; fusion used to iterate over id-hashed sets)."""
    args = [np.random.default_rng(i).standard_normal((4, 4)) for i in range(3)]
    g = jg.value_and_grad(_determinism_fn, argnums=(0, 1, 2))
    seen = set()
    for _ in range(20):
        lo = jg.jit(g).lower(*args)
        seen.add((lo.optimized_ir, lo.kernels))
    assert len(seen) == 1


def test_jit_of_functools_partial():
    """Reproducer 10."""
    f = jg.jit(functools.partial(lambda a, b: a * b + 1.0, 2.0))
    np.testing.assert_allclose(np.asarray(f(np.ones(3))), [3., 3., 3.])
    assert f.__name__ == "<lambda>"


# ----------------------------------------------------------------------------- the verifier

def _schedule(fn, *args):
    return run_pipeline(jg.make_graph(fn)(*args))


def test_verifier_accepts_pipeline_output():
    g = jg.grad(lambda a, b, c: jnp.sum(a * jnp.exp(b) * c), argnums=(0, 1))
    sched, _, plan = _schedule(g, np.ones(4), np.full((2, 1), .5), np.ones((2, 4)))
    assert verify_schedule(sched, plan) is sched


def test_verifier_rejects_out_of_order_kernels():
    sched, _, _ = _schedule(lambda x: jnp.sum(jnp.exp(x) @ x), np.ones((3, 3)))
    sched.nodes.reverse()
    with pytest.raises(VerifyError, match="not defined before it is used"):
        verify_schedule(sched)


def test_verifier_rejects_a_kernel_whose_body_is_not_its_kind():
    sched, _, _ = _schedule(lambda x: jnp.exp(x) + 1.0, np.ones((3, 3)))
    (k,) = sched.nodes
    k.params["kind"] = "rowwise"
    with pytest.raises(VerifyError, match="declared rowwise but its body forms elementwise"):
        verify_schedule(sched)


def test_verifier_rejects_illegal_in_place_and_overlap():
    sched, _, plan = _schedule(lambda x: jnp.sum(jnp.exp(x) * 2.0 + x, axis=1) * 3.0,
                               np.ones((64, 64)))
    arena = [b for b in plan.buffers if b.place == "arena"]
    if arena:
        b = arena[0]
        b.inplace_of = "%x"         # a graph input the kernel does not give up
        with pytest.raises(VerifyError, match="in place of %x"):
            verify_schedule(sched, plan)
        b.inplace_of = None
        b.nbytes = 1
        with pytest.raises(VerifyError, match="needs"):
            verify_schedule(sched, plan)


# ----------------------------------------------------------------------------- models

def _mlp_loss(params, x, y):
    h = x
    for w, b in params[:-1]:
        h = jnp.tanh(h @ w + b)
    w, b = params[-1]
    return F.cross_entropy(h @ w + b, y)


def _layernorm_loss(p, x, y):
    g, b = p
    mu = jnp.mean(x, axis=-1, keepdims=True)
    var = jnp.mean((x - mu) ** 2, axis=-1, keepdims=True)
    z = (x - mu) / jnp.sqrt(var + 1e-5) * g + b
    return jnp.sum(F.softmax(z, axis=-1) * y)


def _conv_loss(p, x, y):
    w, b = p
    z = F.conv2d(x, w, b, padding=1)
    return jnp.mean(F.relu(z) * y)


def _models():
    rng = np.random.default_rng(4)
    sizes = [(8, 16), (16, 16), (16, 5)]
    mlp = [(rng.standard_normal(s) * .3, rng.standard_normal(s[1]) * .1) for s in sizes]
    x = rng.standard_normal((12, 8))
    labels = rng.integers(0, 5, 12)
    ln = (rng.standard_normal(6) + 1, rng.standard_normal(6))
    conv = (rng.standard_normal((3, 2, 3, 3)) * .3, rng.standard_normal(3) * .1)
    return [("mlp", _mlp_loss, mlp, x, labels),
            ("layernorm", _layernorm_loss, ln, rng.standard_normal((5, 6)),
             rng.standard_normal((5, 6))),
            ("conv", _conv_loss, conv, rng.standard_normal((2, 2, 5, 5)),
             rng.standard_normal((2, 3, 5, 5)))]


@pytest.mark.parametrize("name,loss,params,x,y", _models(), ids=lambda v: v if isinstance(v, str) else "")
def test_model_gradients_fusion_on_equals_off(name, loss, params, x, y, monkeypatch):
    """float64 gradients of whole models: eager, compiled with fusion, compiled without."""
    step = jg.value_and_grad(loss)
    ref = step(params, x, y)
    fused = jg.jit(step)(params, x, y)
    monkeypatch.setenv("JITGRAD_DISABLE", "fuse")
    unfused = jg.jit(step)(params, x, y)
    _same(fused, ref, rtol=1e-10, atol=1e-12)
    _same(unfused, ref, rtol=1e-10, atol=1e-12)
    gc.collect()


def test_demo_mlp_train_step_fusion_on_equals_off(monkeypatch):
    """The demo's jitted training step (nn.Sequential, value_and_grad, Adam), float32: fused and
    unfused compiled steps agree with the eager step."""
    from jitgrad.cli import demo
    from jitgrad import nn
    rng = np.random.default_rng(5)
    x = rng.standard_normal((16, 64)).astype(np.float32)
    y = rng.integers(0, 10, 16)
    jg.manual_seed(0)
    model = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 10))
    opt = jg.optim.adam(1e-2)
    state = opt.init(model)

    def step(model, state, x, y):
        loss, grads = jg.value_and_grad(demo.mlp_loss)(model, x, y)
        model, state = opt.update(grads, state, model)
        return model, state, loss
    ref = step(model, state, x, y)
    fused = jg.jit(step)(model, state, x, y)
    monkeypatch.setenv("JITGRAD_DISABLE", "fuse")
    unfused = jg.jit(step)(model, state, x, y)
    _same(fused, ref, rtol=2e-5, atol=1e-6)
    _same(unfused, ref, rtol=2e-5, atol=1e-6)


def test_complex_kernels_run_on_the_host_between_compiled_ones(monkeypatch, capsys):
    """Kernels with complex values (and fft) run on the NumPy reference between compiled
    kernels; the real-valued ones around them still compile."""
    monkeypatch.setenv("JITGRAD_DEBUG", "1")
    x = np.random.default_rng(0).standard_normal((4, 64))
    f = jg.jit(lambda x: jnp.sum(jnp.abs(jnp.fft.rfft(jnp.tanh(x) * 2.0)) ** 2, axis=-1) + 1.0)
    want = np.sum(np.abs(np.fft.rfft(np.tanh(x) * 2)) ** 2, axis=-1) + 1
    np.testing.assert_allclose(np.asarray(f(x)), want, rtol=1e-12)
    err = capsys.readouterr().err
    assert "fft (complex values) runs on the host" in err and "(complex values) runs on the host" in err
    targets = [u.target for u in f.lower(x).compile().units]
    assert "host" in targets and "cpu-llvm" in targets, targets
