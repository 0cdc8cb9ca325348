"""Issue 48 item 1: `.at[idx]` updates where an index repeats, as JAX (on CPU) and NumPy do: set
keeps the last write, multiply / divide / power compose every update, min / max keep the extreme
one, add sums them; on every path (eager, jit compiled, jit on the interpreter), with gradients
(the winning update only for set / min / max; the product rule for multiply)."""
import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp

IDX = np.array([0, 2, 2, 5, 2, 0])
X = np.array([1.5, -2.0, 3.0, 0.5, 4.0, -1.0], np.float32)
V = np.array([2.0, -1.0, 3.0, 4.0, 0.5, -2.0], np.float32)


def _sequential(mode, x, idx, v):
    """NumPy, one update after the other in index order (JAX's CPU scatter)."""
    out = x.copy()
    if mode in ("divide", "power"):
        prod = np.ones_like(x)
        np.multiply.at(prod, idx, v)
        return x / prod if mode == "divide" else x ** prod
    for i, u in zip(idx, v):
        out[i] = {"set": u, "add": out[i] + u, "multiply": out[i] * u,
                  "min": min(out[i], u), "max": max(out[i], u)}[mode]
    return out


MODES = ["set", "add", "multiply", "divide", "power", "min", "max"]


@pytest.fixture(params=["eager", "jit", "interpreter"])
def run(request, monkeypatch):
    """fn(*args) run eagerly, jit-compiled on the CPU, or jitted on the interpreter."""
    if request.param == "interpreter":
        monkeypatch.setenv("JITGRAD_BACKEND", "interpreter")
    if request.param == "eager":
        return lambda fn, *args: np.asarray(fn(*map(jnp.asarray, args)))
    return lambda fn, *args: np.asarray(jg.jit(fn)(*args))


def test_issue_reproducers():
    got = jnp.zeros(6).at[np.array([0, 2, 2, 5])].set(np.array([1., 2., 3., 4.], np.float32))
    np.testing.assert_array_equal(np.asarray(got), [1, 0, 3, 0, 0, 4])
    got = jnp.ones(4).at[np.array([2, 2])].multiply(np.array([2., 3.], np.float32))
    np.testing.assert_array_equal(np.asarray(got), [1, 1, 6, 1])


@pytest.mark.parametrize("mode", MODES)
def test_every_mode_with_traced_indices(run, mode):
    got = run(lambda x, i, v: getattr(x.at[i], mode)(v), X, IDX, V)
    np.testing.assert_allclose(got, _sequential(mode, X, IDX, V), rtol=1e-6)


@pytest.mark.parametrize("mode", MODES)
def test_every_mode_with_constant_indices(run, mode):
    got = run(lambda x, v: getattr(x.at[IDX], mode)(v), X, V)
    np.testing.assert_allclose(got, _sequential(mode, X, IDX, V), rtol=1e-6)


def test_mul_is_multiply():
    got = jnp.asarray(X).at[IDX].mul(V)
    np.testing.assert_allclose(np.asarray(got), _sequential("multiply", X, IDX, V), rtol=1e-6)


def test_set_last_write_wins_on_2d_rows_and_broadcast_values(run):
    x = np.zeros((3, 2), np.float32)
    rows, v = np.array([1, 1, 0, 1]), np.arange(8, dtype=np.float32).reshape(4, 2)
    got = run(lambda x, i, v: x.at[i].set(v), x, rows, v)
    np.testing.assert_array_equal(got, [[4, 5], [6, 7], [0, 0]])
    got = run(lambda x, i: x.at[i, 1].set(np.array([1, 2, 3, 4], np.float32)), x, rows)
    np.testing.assert_array_equal(got, [[0, 3], [0, 4], [0, 0]])


def test_integer_min_max_and_extremes(run):
    x = np.array([0, 0, 0], np.int32)
    idx, v = np.array([1, 1, 2, 2]), np.array([np.iinfo(np.int32).min, 5, 7, -3], np.int32)
    np.testing.assert_array_equal(run(lambda x, i, v: x.at[i].min(v), x, idx, v),
                                  [0, np.iinfo(np.int32).min, -3])
    np.testing.assert_array_equal(run(lambda x, i, v: x.at[i].max(v), x, idx, v), [0, 5, 7])
    np.testing.assert_array_equal(run(lambda x, i, v: x.at[i].set(v), x, idx, v), [0, 5, -3])


def test_min_max_nan_wins_and_infinities(run):
    x = np.array([0.0, 0.0, np.inf], np.float32)
    idx = np.array([0, 0, 1, 1, 2])
    v = np.array([np.nan, -1.0, -np.inf, 2.0, 1.0], np.float32)
    np.testing.assert_array_equal(run(lambda x, i, v: x.at[i].min(v), x, idx, v),
                                  [np.nan, -np.inf, 1.0])
    np.testing.assert_array_equal(run(lambda x, i, v: x.at[i].max(v), x, idx, v),
                                  [np.nan, 2.0, np.inf])


def test_modes_drop_and_clip_with_repeats(run):
    x = np.zeros(3, np.float32)
    idx, v = np.array([1, 7, 1, -9, 2]), np.array([1, 2, 3, 4, 5], np.float32)
    got = run(lambda x, i, v: x.at[i].set(v, mode="drop"), x, idx, v)
    np.testing.assert_array_equal(got, [0, 3, 5])
    got = run(lambda x, i, v: x.at[i].set(v, mode="clip"), x, idx, v)      # 7 -> 2, -9 -> 0
    np.testing.assert_array_equal(got, [4, 3, 5])
    got = run(lambda x, i, v: jnp.ones(3).at[i].multiply(v, mode="drop"), x, idx, v)
    np.testing.assert_array_equal(got, [1, 3, 5])


def test_get_with_repeats_and_modes(run):
    x = np.array([10, 20, 30], np.float32)
    got = run(lambda x: x.at[np.array([2, 2, 7])].get(mode="fill", fill_value=-1.0), x)
    np.testing.assert_array_equal(got, [30, 30, -1])
    got = run(lambda x: x.at[np.array([2, 2, 7])].get(mode="clip"), x)
    np.testing.assert_array_equal(got, [30, 30, 30])


def test_unique_indices_promise_keeps_the_values(run):
    got = run(lambda x, i, v: x.at[i].set(v, unique_indices=True), X, np.array([3, 1]),
              np.array([7.0, 8.0], np.float32))
    np.testing.assert_array_equal(got, [1.5, 8.0, 3.0, 7.0, 4.0, -1.0])


def test_eager_setitem_with_repeats():
    x = jnp.zeros(4)
    x[np.array([1, 1, 3])] = np.array([5.0, 6.0, 7.0], np.float32)
    np.testing.assert_array_equal(np.asarray(x), [0, 6, 0, 7])
    w = jg.tensor(np.zeros(4, np.float32), requires_grad=True)
    v = jg.tensor(np.array([5.0, 6.0, 7.0], np.float32), requires_grad=True)
    y = w * 1.0
    y[np.array([1, 1, 3])] = v                       # recorded: through .at[].set
    np.testing.assert_array_equal(y.detach().numpy(), [0, 6, 0, 7])
    (y * np.array([1.0, 2.0, 3.0, 4.0], np.float32)).sum().backward()
    np.testing.assert_array_equal(v.grad.numpy(), [0, 2, 4])
    np.testing.assert_array_equal(w.grad.numpy(), [1, 0, 3, 0])


# ----------------------------------------------------------------------------- gradients

W = np.array([1.0, 2.0, -3.0, 0.5, 5.0, -6.0], np.float32)      # the loss's weights per slot


def _loss(mode):
    return lambda x, v, i: jnp.sum(getattr(x.at[i], mode)(v) * W)


def _grads(path, mode, x=X, v=V, idx=IDX):
    fn = jg.grad(_loss(mode), argnums=(0, 1))
    if path != "eager":
        fn = jg.jit(fn)
    return [np.asarray(g) for g in fn(x, v, idx)]


@pytest.fixture(params=["eager", "jit", "interpreter"])
def path(request, monkeypatch):
    if request.param == "interpreter":
        monkeypatch.setenv("JITGRAD_BACKEND", "interpreter")
    return request.param


def test_set_gradient_goes_to_the_last_write(path):
    gx, gv = _grads(path, "set")
    # slot 0: updates 0 and 5 (5 wins); slot 2: updates 1, 2, 4 (4 wins); slot 5: update 3
    np.testing.assert_array_equal(gv, [0, 0, 0, -6.0, -3.0, 1.0])
    np.testing.assert_array_equal(gx, [0, 2.0, 0, 0.5, 5.0, 0])


def test_multiply_gradient_is_the_product_rule_over_composed_updates(path):
    v = np.array([2.0, 0.0, 3.0, 4.0, 0.5, -2.0], np.float32)     # a zero among slot 2's
    gx, gv = _grads(path, "multiply", v=v)
    # slot 0: x0 * v0 * v5; slot 2: x2 * v1 * v2 * v4; slot 5: x5 * v3
    np.testing.assert_allclose(gx, [1 * 2 * -2, 2, -3 * 0 * 3 * 0.5, 0.5, 5, -6 * 4])
    np.testing.assert_allclose(gv, [1 * 1.5 * -2, -3 * 3 * 3 * 0.5, -3 * 3 * 0 * 0.5,
                                    -6 * -1.0, -3 * 3 * 0 * 3, 1 * 1.5 * 2])


def test_divide_and_power_gradients_match_finite_differences(path):
    jg.config.update("enable_x64", True)
    try:
        x, v = X.astype(np.float64), V.astype(np.float64)
        x = np.abs(x) + 0.5                              # power: positive bases
        for mode in ("divide", "power"):
            gx, gv = _grads(path, mode, x, v)
            f = lambda x, v: float(np.sum(_sequential(mode, x, IDX, v) * W))   # noqa: E731
            eps = 1e-6
            for arg, g in ((0, gx), (1, gv)):
                base = [x, v]
                for k in range(len(base[arg])):
                    hi, lo = [b.copy() for b in base], [b.copy() for b in base]
                    hi[arg][k] += eps
                    lo[arg][k] -= eps
                    fd = (f(*hi) - f(*lo)) / (2 * eps)
                    np.testing.assert_allclose(g[k], fd, rtol=1e-5, atol=1e-6)
    finally:
        jg.config.update("enable_x64", False)


def test_min_max_gradients_go_to_the_winner(path):
    gx, gv = _grads(path, "max")
    # slot 0: max(1.5, 2, -2) = v0; slot 2: max(3, -1, 3, 0.5) = x2 (ties v2); slot 5: max(-1, 4)
    assert gv[1] == gv[4] == gv[5] == 0 and gv[0] == 1.0 and gv[3] == -6.0
    assert gx[0] == gx[5] == 0 and gx[1] == 2.0 and gx[3] == 0.5 and gx[4] == 5.0
    assert gx[2] + gv[2] == -3.0                      # the tie x2 == v2 shares slot 2's gradient
    gx, gv = _grads(path, "min")
    # slot 0: min(1.5, 2, -2) = v5; slot 2: min(3, -1, 3, 0.5) = v1; slot 5: min(-1, 4) = x5
    np.testing.assert_array_equal(gv, [0, -3.0, 0, 0, 0, 1.0])
    np.testing.assert_array_equal(gx, [0, 2.0, 0, 0.5, 5.0, -6.0])


def test_vmap_over_updates_and_indices():
    vs = np.stack([V, V[::-1]])
    got = jg.vmap(lambda v: jnp.asarray(X).at[IDX].set(v))(vs)
    np.testing.assert_array_equal(np.asarray(got), [_sequential("set", X, IDX, v) for v in vs])
    idxs = np.stack([IDX, IDX[::-1]])
    got = jg.vmap(lambda i: jnp.asarray(X).at[i].multiply(V))(idxs)
    np.testing.assert_allclose(np.asarray(got), [_sequential("multiply", X, i, V) for i in idxs],
                               rtol=1e-6)


def test_matches_jax():
    jax = pytest.importorskip("jax")
    for mode in MODES:
        want = np.asarray(getattr(jax.numpy.asarray(X).at[IDX], mode)(V))
        got = np.asarray(getattr(jnp.asarray(X).at[IDX], mode)(V))
        np.testing.assert_allclose(got, want, rtol=1e-6, err_msg=mode)


@pytest.mark.parametrize("how", ["set", "multiply", "add", "max"])
def test_several_dropped_updates_are_all_dropped(how):
    x = jnp.ones(5)
    idx, upd = jnp.asarray([0, 5, 5, 7, 1]), jnp.asarray([2., 3., 4., 5., 6.])
    got = getattr(x.at[idx], how)(upd, mode="drop")
    want = np.ones(5, np.float32)
    for i, u in zip([0, 1], [2., 6.]):
        want[i] = {"set": u, "multiply": u, "add": 1 + u, "max": max(1., u)}[how]
    np.testing.assert_array_equal(np.asarray(got), want)
