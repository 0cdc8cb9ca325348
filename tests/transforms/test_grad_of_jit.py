"""jg.grad / value_and_grad of a jitted function run compiled (jit(value_and_grad(f)), made once
per function and options), as JAX's do, with the same values as the traced paths."""
import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad import nn


def _loss(w, x):
    return jnp.sum(jnp.tanh(x @ w) ** 2)


def _args():
    rng = np.random.default_rng(0)
    return rng.standard_normal((6, 3)), rng.standard_normal((5, 6))


def _kinds(fn, *args):
    with jg.profiler.profile() as prof:
        out = fn(*args)
    return out, {r.kind for r in prof.key_averages()}


def test_grad_of_jit_runs_compiled_and_matches_the_other_paths():
    w, x = _args()
    jf = jg.jit(_loss)
    g, kinds = _kinds(jg.grad(jf), w, x)
    assert "interpreted" not in kinds and kinds & {"matmul", "elementwise", "reduce"}
    for other in (jg.grad(_loss), jg.jit(jg.grad(_loss))):
        np.testing.assert_allclose(np.asarray(g), np.asarray(other(w, x)), rtol=1e-12)
    # made once: a second grad(jf) and a second call neither retrace nor recompile
    vg = jg.value_and_grad(jf)
    assert vg is jg.value_and_grad(jf)
    vg(w, x)
    vg(w, x)
    assert vg.trace_count == 1
    assert jg.value_and_grad(jf, argnums=(0, 1)) is not vg


def test_options_and_static_arguments_carry_over():
    w, x = _args()

    def f(w, x, power):
        y = jnp.sum(jnp.tanh(x @ w) ** power)
        return y, {"y2": y * 2}
    jf = jg.jit(f, static_argnums=2)
    (v, aux), (gw, gx) = jg.value_and_grad(jf, argnums=(0, 1), has_aux=True)(w, x, 3)
    (v0, aux0), (gw0, gx0) = jg.value_and_grad(f, argnums=(0, 1), has_aux=True)(w, x, 3)
    for a, b in ((v, v0), (aux["y2"], aux0["y2"]), (gw, gw0), (gx, gx0)):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-12)
    g4 = jg.grad(jf, has_aux=True)(w, x, 4)[0]
    np.testing.assert_allclose(np.asarray(g4), np.asarray(jg.grad(f, has_aux=True)(w, x, 4)[0]),
                               rtol=1e-12)


def test_errors_are_the_traced_paths_errors():
    jf = jg.jit(lambda x: x * 2.0)
    with pytest.raises(TypeError, match="scalar"):
        jg.grad(jf)(np.ones(3))
    with pytest.raises(TypeError, match="scalar"):
        jg.grad(lambda x: x * 2.0)(np.ones(3))


def test_donating_jit_and_enclosing_traces_keep_working():
    w, x = _args()
    want = np.asarray(jg.grad(_loss)(w, x))
    donating = jg.jit(_loss, donate_argnums=1)
    np.testing.assert_allclose(np.asarray(jg.grad(donating)(w, jnp.asarray(x))), want,
                               rtol=1e-12)
    inner = jg.jit(_loss)
    outer = jg.jit(lambda w, x: jg.grad(inner)(w, x) * 2)
    np.testing.assert_allclose(np.asarray(outer(w, x)), 2 * want, rtol=1e-12)
    # the second derivative through the compiled gradient: traced again inside grad
    h = jg.grad(lambda s: jnp.sum(jg.grad(inner)(w * s, x)))(1.5)
    eps = 1e-6
    fd = (np.sum(np.asarray(jg.grad(_loss)(w * (1.5 + eps), x)))
          - np.sum(np.asarray(jg.grad(_loss)(w * (1.5 - eps), x)))) / (2 * eps)
    np.testing.assert_allclose(float(h), fd, rtol=1e-5)


def test_module_state_written_back_through_a_compiled_gradient():
    def make():
        jg.manual_seed(0)
        return nn.Sequential(nn.Linear(4, 3), nn.BatchNorm1d(3))
    rng = np.random.default_rng(1)
    x = rng.standard_normal((8, 4)).astype(np.float32)
    t = rng.standard_normal((8, 3)).astype(np.float32)

    def loss(m, x):
        return jnp.sum(m(x) * t)
    a, b = make(), make()
    ga = jg.grad(jg.jit(loss))(a, x)
    gb = jg.grad(loss)(b, x)
    np.testing.assert_allclose(np.asarray(a[1].running_mean), np.asarray(b[1].running_mean),
                               rtol=1e-6)
    assert not np.allclose(np.asarray(a[1].running_mean), 0)
    np.testing.assert_allclose(np.asarray(ga[0].weight), np.asarray(gb[0].weight), rtol=1e-5,
                               atol=1e-6)
