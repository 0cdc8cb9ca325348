"""jg.cond / switch / while_loop / fori_loop / scan: eager, under jit, printed IR, derivatives."""
import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad import ir
from jitgrad.test_util import check_grads


def _f64(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def test_cond_eager_and_jit_agree():
    def f(x):
        return jg.cond(jnp.sum(x) > 0, lambda a: a * 2.0, lambda a: jnp.sin(a), x)
    fj = jg.jit(f)
    for x in (np.array([1.0, 2.0]), np.array([-1.0, -2.0])):
        np.testing.assert_allclose(np.asarray(fj(x)), np.asarray(f(x)))


def test_cond_is_one_node_with_two_subgraphs_and_round_trips():
    f = jg.jit(lambda x: jg.cond(x.sum() > 0, lambda a: a * 2.0, lambda a: a - 1.0, x))
    text = f.lower(np.ones(3, np.float32)).ir
    assert "= cond " in text and "true=graph" in text and "false=graph" in text
    assert str(ir.parse(text)) == text


def test_cond_branch_type_mismatch_names_both():
    f = jg.jit(lambda x: jg.cond(x.sum() > 0, lambda a: a, lambda a: a.sum(), x))
    with pytest.raises(TypeError, match="different"):
        f(np.ones(3, np.float32))


def test_cond_closes_over_outer_values():
    def f(x, y):
        return jg.cond(x.sum() > 0, lambda a: a * y, lambda a: a + y, x)
    fj = jg.jit(f)
    x, y = np.array([1.0, 2.0]), np.array([3.0, 4.0])
    np.testing.assert_allclose(np.asarray(fj(x, y)), x * y)
    np.testing.assert_allclose(np.asarray(fj(-x, y)), -x + y)


def test_switch_picks_branch():
    f = jg.jit(lambda i, x: jg.switch(i, [lambda a: a, lambda a: a * 2, lambda a: a * 3], x))
    for i in range(3):
        np.testing.assert_allclose(np.asarray(f(i, np.ones(2))), np.ones(2) * (i + 1))


SWITCH_BRANCHES = [lambda a: a * 2.0, lambda a: jnp.sin(a), lambda a: a ** 3]


def _switched(i, x):
    return jnp.sum(jg.switch(i, SWITCH_BRANCHES, x))


@pytest.mark.parametrize("i", [-3, 0, 1, 2, 7])
def test_switch_clamps_the_index_on_every_path_as_lax_switch(i):
    x = _f64(4)
    k = min(max(i, 0), 2)
    want = np.sum([x * 2.0, np.sin(x), x ** 3][k])
    for f in (_switched, jg.jit(_switched)):
        np.testing.assert_allclose(float(f(i, x)), want, rtol=1e-12)


def test_switch_is_one_node_with_every_branch_and_round_trips():
    f = jg.jit(lambda i, x: jg.switch(i, SWITCH_BRANCHES, x))
    text = f.lower(np.int32(1), np.ones(3)).ir
    assert text.count("= switch ") == 1 and "= cond " not in text
    assert text.count("branch0") and text.count("branch2")
    assert str(ir.parse(text)) == text


@pytest.mark.parametrize("i", [0, 1, 2])
def test_switch_derivatives_both_modes_eager_and_jit(i):
    check_grads(lambda x: _switched(i, x), (_f64(3, seed=i),), order=2)
    g = jg.jit(jg.grad(_switched, argnums=1))(i, _f64(3))
    np.testing.assert_allclose(np.asarray(g), np.asarray(jg.grad(_switched, argnums=1)(i, _f64(3))))


def test_switch_under_vmap_with_a_batched_index_selects_per_example():
    idx = np.array([-1, 0, 1, 2, 5], np.int32)
    x = _f64(3)
    got = jg.jit(jg.vmap(_switched, in_axes=(0, None)))(idx, x)
    want = [_switched(int(i), x) for i in idx]
    np.testing.assert_allclose(np.asarray(got), np.asarray([float(w) for w in want]), rtol=1e-12)


def test_switch_errors_name_what_was_expected():
    with pytest.raises(ValueError, match="at least one branch"):
        jg.switch(0, [], 1.0)
    with pytest.raises(TypeError, match="scalar integer index, got float64"):
        jg.jit(lambda x: jg.switch(x.sum(), SWITCH_BRANCHES, x))(np.ones(2))
    with pytest.raises(TypeError, match="branches return different"):
        jg.jit(lambda i, x: jg.switch(i, [lambda a: a, lambda a: a.sum()], x))(0, np.ones(2))


def test_while_loop_jit_and_eager():
    def f(n):
        return jg.while_loop(lambda c: c[0] < n, lambda c: (c[0] + 1, c[1] * 2.0), (0, jnp.ones(3)))
    i, v = jg.jit(f)(5)
    assert int(i) == 5 and np.allclose(np.asarray(v), 32.0)
    i2, v2 = f(5)
    assert int(i2) == 5 and np.allclose(np.asarray(v2), 32.0)


def test_scan_matches_python_loop():
    xs = _f64(5, 3)

    def step(c, x):
        c = jnp.tanh(c + x)
        return c, c * 2.0
    c, ys = jg.jit(lambda xs: jg.scan(step, jnp.zeros(3, dtype=jnp.float64), xs))(xs)
    ref_c, ref = np.zeros(3), []
    for x in xs:
        ref_c = np.tanh(ref_c + x)
        ref.append(ref_c * 2)
    np.testing.assert_allclose(np.asarray(c), ref_c)
    np.testing.assert_allclose(np.asarray(ys), np.stack(ref))


def test_scan_reverse():
    xs = np.arange(4.0)
    _, ys = jg.jit(lambda xs: jg.scan(lambda c, x: (c + x, c + x), 0.0, xs, reverse=True))(xs)
    np.testing.assert_allclose(np.asarray(ys), [6.0, 6.0, 5.0, 3.0])


def test_fori_loop_static_bounds_is_a_scan():
    f = jg.jit(lambda x: jg.fori_loop(0, 4, lambda i, v: v * x, jnp.ones((), dtype=jnp.float64)))
    assert "= scan " in f.lower(2.0).ir
    assert float(f(2.0)) == 16.0


def test_grad_through_jitted_cond():
    def f(x):
        return jnp.sum(jg.cond(jnp.sum(x) > 0, lambda a: a * a, lambda a: jnp.sin(a), x))
    for x in (np.array([0.5, 1.5]), np.array([-0.5, -1.5])):
        g = jg.grad(jg.jit(f))(x)
        ref = 2 * x if x.sum() > 0 else np.cos(x)
        np.testing.assert_allclose(np.asarray(g), ref, rtol=1e-6)
    check_grads(jg.jit(f), (np.array([0.3, 0.9]),), order=2, modes=("fwd", "rev"))


def test_grads_of_scan_fwd_and_rev():
    xs, w = _f64(4, 3), _f64(3, seed=1)

    def f(w, xs):
        c, ys = jg.scan(lambda c, x: (jnp.tanh(c * w + x), jnp.sum(c * x)), jnp.zeros(3, dtype=jnp.float64), xs)
        return jnp.sum(c) + jnp.sum(ys)
    check_grads(jg.jit(f), (w, xs), order=1, modes=("fwd", "rev"))
    eager = jg.grad(f)(w, xs)             # concrete trace: a Python loop
    jitted = jg.grad(jg.jit(f))(w, xs)    # the scan node's VJP
    np.testing.assert_allclose(np.asarray(jitted), np.asarray(eager), rtol=1e-7)


def test_fori_loop_grad():
    f = jg.jit(lambda x: jg.fori_loop(0, 3, lambda i, v: jnp.sin(v) * x, x))
    check_grads(f, (0.7,), order=2, modes=("fwd", "rev"))


def test_while_loop_jvp_works_and_vjp_is_refused():
    def f(x):
        return jg.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * x), (0, x))[1]
    out, t = jg.jvp(jg.jit(f), (2.0,), (1.0,))
    assert float(out) == 16.0 and float(t) == pytest.approx(4 * 2.0 ** 3)
    with pytest.raises(TypeError, match="fori_loop"):
        jg.grad(jg.jit(f))(2.0)


def test_control_flow_on_tracer_error_points_here():
    @jg.jit
    def f(x):
        if x.sum() > 0:
            return x
        return -x
    with pytest.raises(jg.ConcretizationError, match="jg.cond"):
        f(np.ones(2))
