"""jg.vmap: in_axes/out_axes semantics, errors, nesting, composition with jit and autodiff,
control flow, random keys, custom_vjp, batching-rule coverage, and kernel counts."""
import numpy as np
import pytest

import jitgrad as jg
import jitgrad.nn as nn
import jitgrad.nn.functional as F
import jitgrad.numpy as jnp
from jitgrad import tree_util
from jitgrad.ir import Op
from jitgrad.ir.autodiff import CUSTOM_VJP
from jitgrad.ir.batching import BATCH_RULES, UNBATCHABLE
from jitgrad.ir.control_flow import COND, SCAN, WHILE
from jitgrad.ir.errors import MissingRuleError


def _np(x):
    return np.asarray(x)


def _loop(fn, *cols):
    """np.stack of fn over the examples (each col: a list of per-example arguments)."""
    outs = [fn(*ex) for ex in zip(*cols)]
    return tree_util.tree_map(lambda *o: np.stack([_np(v) for v in o]), *outs)


def _assert_tree_close(got, want, tol=1e-6):
    gl, gt = tree_util.tree_flatten(got)
    wl, wt = tree_util.tree_flatten(np.asarray(want) if isinstance(want, list) else want)
    assert gt == wt, (gt, wt)
    for g, w in zip(gl, wl):
        assert _np(g).shape == _np(w).shape
        np.testing.assert_allclose(_np(g), _np(w), rtol=tol, atol=tol)


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    return rng.standard_normal((4, 3)), rng.standard_normal((3, 5)), rng.standard_normal(5)


# ----------------------------------------------------------------------------- coverage

def test_every_op_has_a_batching_rule_or_a_reason():
    for op in Op:
        assert op in BATCH_RULES or UNBATCHABLE.get(op), f"{op} has no batching rule"
    assert not set(BATCH_RULES) & set(UNBATCHABLE)


def test_missing_rule_is_a_clear_error(monkeypatch, data):
    monkeypatch.delitem(BATCH_RULES, Op.tanh)
    with pytest.raises(MissingRuleError, match="op 'tanh' has no batching"):
        jg.vmap(jnp.tanh)(data[0])


# ----------------------------------------------------------------------------- axes

def test_in_axes_ints_none_and_negative(data):
    x, w, b = data
    f = lambda x, w, b: jnp.tanh(x @ w + b)
    want = _loop(lambda xi: f(xi, w, b), list(x))
    _assert_tree_close(jg.vmap(f, in_axes=(0, None, None))(x, w, b), want)
    _assert_tree_close(jg.vmap(f, in_axes=(-1, None, None))(x.T, w, b), want)
    _assert_tree_close(jg.vmap(f, in_axes=(1, None, None))(x.T, w, b), want)


def test_in_axes_pytree_prefix_and_kwargs(data):
    x, w, b = data
    params = {"w": w, "b": np.stack([b] * 4)}

    def f(p, x, scale):
        return jnp.sum(jnp.tanh(x @ p["w"] + p["b"])) * scale

    got = jg.vmap(f, in_axes=({"w": None, "b": 0}, 0, None))(params, x, 2.0)
    want = _loop(lambda bi, xi: f({"w": w, "b": bi}, xi, 2.0), list(params["b"]), list(x))
    _assert_tree_close(got, want)
    # keyword arguments are mapped over axis 0
    got_kw = jg.vmap(lambda x, *, y: x * y)(x, y=x + 1)
    _assert_tree_close(got_kw, x * (x + 1))


def test_out_axes_pytree_negative_and_broadcast(data):
    x, w, _ = data

    def f(x):
        return {"h": x @ w, "s": jnp.sum(x), "c": jnp.ones(2)}

    out = jg.vmap(f, out_axes={"h": -1, "s": 0, "c": 1})(x)
    _assert_tree_close(out["h"], (x @ w).T)
    _assert_tree_close(out["s"], x.sum(1))
    _assert_tree_close(out["c"], np.ones((2, 4)))     # unbatched output broadcast to the batch
    pair = jg.vmap(lambda x: (x * 2, jnp.sum(w)), out_axes=(0, None))(x)
    _assert_tree_close(pair, (x * 2, w.sum()))


def test_axis_size_without_mapped_inputs(data):
    w = data[1]
    out = jg.vmap(lambda w: jnp.sum(w), in_axes=None, axis_size=3)(w)
    _assert_tree_close(out, np.full(3, w.sum()))


# ----------------------------------------------------------------------------- errors

def test_mismatched_sizes_name_each_argument():
    with pytest.raises(ValueError) as e:
        jg.vmap(lambda a, b: a + b)(np.ones((3, 2)), {"k": np.ones((4, 2))})
    msg = str(e.value)
    assert "inconsistent sizes" in msg
    assert "argument a: axis 0 has size 3" in msg
    assert "argument b['k']: axis 0 has size 4" in msg
    with pytest.raises(ValueError, match="axis_size=5"):
        jg.vmap(lambda a: a, axis_size=5)(np.ones(3))


def test_out_axes_none_on_a_batched_output_says_so():
    with pytest.raises(ValueError, match=r"out_axes=None for the result\[1\].*depends on a "
                                         r"mapped input"):
        jg.vmap(lambda a: (jnp.ones(2), a * 2), out_axes=None)(np.ones(3))


def test_bad_axes_specs():
    with pytest.raises(ValueError, match=r"in_axes=2 for argument a of shape \(3, 2\)"):
        jg.vmap(lambda a: a, in_axes=2)(np.ones((3, 2)))
    with pytest.raises(ValueError, match="in_axes is a tuple of 2 entries but the function was "
                                         "called with 1"):
        jg.vmap(lambda a: a, in_axes=(0, 0))(np.ones(3))
    with pytest.raises(TypeError, match="use a tuple"):
        jg.vmap(lambda a: a, in_axes=[0])
    with pytest.raises(TypeError, match="in_axes must be an int, None"):
        jg.vmap(lambda a: a, in_axes="0")
    with pytest.raises(ValueError, match="batch size is unknown"):
        jg.vmap(lambda a: a, in_axes=None)(np.ones(3))
    with pytest.raises(ValueError, match="tree prefix"):
        jg.vmap(lambda a: a, in_axes=({"x": 0},))((np.ones(3),))
    with pytest.raises(ValueError, match="out_axes=3 for the result"):
        jg.vmap(lambda a: a, out_axes=3)(np.ones((3, 2)))


# ----------------------------------------------------------------------------- nesting, jit, ad

def test_nested_vmap_pairwise_distances(data):
    x = data[0]
    dist = lambda a, b: jnp.sqrt(jnp.sum((a - b) ** 2))
    got = jg.vmap(jg.vmap(dist, (None, 0)), (0, None))(x, x)
    want = np.sqrt(((x[:, None] - x[None]) ** 2).sum(-1))
    _assert_tree_close(got, want)
    got_jit = jg.jit(jg.vmap(jg.vmap(dist, (None, 0)), (0, None)))(x, x)
    _assert_tree_close(got_jit, want)


def test_vmap_of_jit_and_jit_of_vmap(data):
    x, w, b = data
    f = lambda x: jnp.tanh(x @ w + b)
    want = np.tanh(x @ w + b)
    _assert_tree_close(jg.vmap(jg.jit(f))(x), want)
    _assert_tree_close(jg.jit(jg.vmap(f))(x), want)


def _mlp_loss(params, x, y):
    h = jnp.tanh(x @ params["w1"] + params["b1"])
    return F.cross_entropy((h @ params["w2"])[None], y[None])


@pytest.fixture
def mlp():
    rng = np.random.default_rng(1)
    params = {"w1": rng.standard_normal((6, 8)) * 0.5, "b1": np.zeros(8),
              "w2": rng.standard_normal((8, 3)) * 0.5}
    return params, rng.standard_normal((5, 6)), rng.integers(0, 3, 5)


def test_per_example_gradients(mlp):
    params, x, y = mlp
    got = jg.vmap(jg.grad(_mlp_loss), in_axes=(None, 0, 0))(params, x, y)
    want = _loop(lambda xi, yi: jg.grad(_mlp_loss)(params, xi, yi), list(x), list(y))
    _assert_tree_close(got, want, 1e-9)
    vg = jg.jit(jg.vmap(jg.value_and_grad(_mlp_loss), in_axes=(None, 0, 0)))(params, x, y)
    _assert_tree_close(vg, (_loop(lambda xi, yi: _mlp_loss(params, xi, yi), list(x), list(y)),
                            want), 1e-9)


def test_grad_of_vmap_is_the_sum_of_per_example_grads(mlp):
    params, x, y = mlp
    total = lambda p: jnp.sum(jg.vmap(_mlp_loss, in_axes=(None, 0, 0))(p, x, y))
    want = tree_util.tree_map(lambda g: g.sum(0), jg.vmap(jg.grad(_mlp_loss), (None, 0, 0))(
        params, x, y))
    _assert_tree_close(jg.grad(total)(params), want, 1e-9)
    _assert_tree_close(jg.jit(jg.grad(total))(params), want, 1e-9)


def test_vjp_and_jvp_compose_with_vmap(data):
    x = data[0]
    f = lambda v: jnp.sin(v) * jnp.sum(v)
    out, vjp_fn = jg.vjp(jg.vmap(f), x)
    (ct,) = vjp_fn(np.ones_like(x))
    want_ct = _loop(lambda xi: jg.vjp(f, xi)[1](np.ones(3))[0], list(x))
    _assert_tree_close(ct, want_ct, 1e-9)
    _, t = jg.jvp(jg.vmap(f), (x,), (np.ones_like(x),))
    _assert_tree_close(t, _loop(lambda xi: jg.jvp(f, (xi,), (np.ones(3),))[1], list(x)), 1e-9)
    per = jg.vmap(lambda xi: jg.jvp(f, (xi,), (jnp.ones(3),))[1])(x)
    _assert_tree_close(per, t, 1e-9)


def test_eager_backward_through_vmap():
    x = jg.tensor(np.arange(6.0).reshape(3, 2), requires_grad=True)
    w = jg.tensor(np.ones(2), requires_grad=True)
    y = jg.vmap(lambda v, w: jnp.sum(v * v * w), (1, None))(x.T, w)
    jnp.sum(y).backward()
    _assert_tree_close(x.grad, 2 * np.arange(6.0).reshape(3, 2))
    _assert_tree_close(w.grad, [20.0, 35.0])


def test_batched_jacobians(data):
    x = data[0]
    f = lambda v: jnp.tanh(v) * v[0]
    want = _loop(jg.jacrev(f), list(x))
    _assert_tree_close(jg.vmap(jg.jacrev(f))(x), want, 1e-9)
    _assert_tree_close(jg.vmap(jg.jacfwd(f))(x), want, 1e-9)
    # the Jacobian of a batched function is block diagonal
    jac = jg.jacrev(jg.vmap(f))(x)
    for i in range(4):
        np.testing.assert_allclose(_np(jac)[i, :, i, :], want[i], rtol=1e-9, atol=1e-9)
    hess = jg.vmap(jg.hessian(lambda v: jnp.sum(jnp.sin(v) * v)))(x)
    _assert_tree_close(hess, _loop(jg.hessian(lambda v: jnp.sum(jnp.sin(v) * v)), list(x)),
                       1e-9)


# ----------------------------------------------------------------------------- control flow

def test_cond_with_batched_and_unbatched_predicate():
    x = np.array([-1.0, 2.0, 3.0])
    f = lambda v: jg.cond(v > 0, lambda a: a * 2, lambda a: -a, v)
    _assert_tree_close(jg.jit(jg.vmap(f))(x), [1.0, 4.0, 6.0])
    g = lambda p, v: jg.cond(p, lambda a: a * 2, lambda a: jnp.zeros_like(a), v)
    _assert_tree_close(jg.jit(jg.vmap(g, (None, 0)))(False, x), [0.0, 0.0, 0.0])
    sw = lambda i, v: jg.switch(i, [lambda a: a, lambda a: a * 10, lambda a: a * 100], v)
    _assert_tree_close(jg.jit(jg.vmap(sw))(np.array([0, 1, 2]), x), [-1.0, 20.0, 300.0])
    # gradients flow through the select of both branches
    gr = jg.vmap(jg.grad(lambda v: jg.cond(v > 0, lambda a: a * a, lambda a: -a, v)))(x)
    _assert_tree_close(gr, [-1.0, 4.0, 6.0])


def _collatz_steps(n):
    step = lambda c: (jnp.where(c[0] % 2 == 0, c[0] // 2, 3 * c[0] + 1), c[1] + 1)
    return jg.while_loop(lambda c: c[0] != 1, step, (n, 0))[1]


def test_while_loop_with_batched_predicate_runs_until_every_lane_is_done():
    ns = np.array([1, 6, 7, 27])
    got = jg.jit(jg.vmap(_collatz_steps))(ns)
    _assert_tree_close(got, [0, 8, 16, 111])
    # an unbatched predicate with a batched carry
    f = lambda v: jg.while_loop(lambda c: c[1] < 3, lambda c: (c[0] * 2, c[1] + 1), (v, 0))[0]
    _assert_tree_close(jg.jit(jg.vmap(f))(np.array([1.0, 2.0])), [8.0, 16.0])


def test_fori_loop_and_scan():
    x = np.array([-1.0, 2.0, 3.0])
    f = lambda v: jg.fori_loop(0, 3, lambda i, c: c * v + i, v)
    _assert_tree_close(jg.jit(jg.vmap(f))(x), _loop(f, list(x)))
    dyn = lambda n, v: jg.fori_loop(0, n, lambda i, c: c + v, v * 0)
    _assert_tree_close(jg.jit(jg.vmap(dyn))(np.array([1, 2, 3]), x), [-1.0, 4.0, 9.0])

    def cumulative(xs, k):
        return jg.scan(lambda c, a: (c + a * k, c * a), 0.0, xs)

    xs = np.random.default_rng(2).standard_normal((4, 5))
    ks = np.array([1.0, 2.0, 3.0, 4.0])
    _assert_tree_close(jg.jit(jg.vmap(cumulative))(xs, ks), _loop(cumulative, list(xs), list(ks)))
    _assert_tree_close(jg.vmap(cumulative, (None, 0))(xs[0], ks),
                       _loop(lambda k: cumulative(xs[0], k), list(ks)))
    # reverse mode through a batched scan
    g = jg.vmap(jg.grad(lambda xs: jnp.sum(cumulative(xs, 2.0)[1])))(xs)
    _assert_tree_close(g, _loop(jg.grad(lambda xs: jnp.sum(cumulative(xs, 2.0)[1])), list(xs)),
                       1e-9)


# ----------------------------------------------------------------------------- random, custom_vjp

def test_batched_keys_give_independent_streams():
    keys = jg.random.split(jg.random.key(0), 3)
    draw = lambda k: jg.random.normal(k, (2,))
    got = jg.vmap(draw)(keys)
    _assert_tree_close(got, _loop(draw, list(keys)))
    assert len({tuple(np.round(r, 6)) for r in _np(got)}) == 3
    _assert_tree_close(jg.jit(jg.vmap(draw))(keys), got)
    # one shared key: every example draws the same numbers
    same = jg.vmap(lambda x, k: x + jg.random.uniform(k, (2,)), (0, None))(np.zeros((3, 2)),
                                                                        keys[0])
    assert np.allclose(_np(same), _np(same)[0])


def test_custom_vjp_under_vmap_keeps_the_custom_rule():
    @jg.custom_vjp
    def clip_gradient(x):
        return x

    clip_gradient.defvjp(lambda x: (x, None), lambda r, g: (jnp.clip(g, -0.5, 0.5),))
    x = np.ones((2, 3))
    per = jg.vmap(jg.grad(lambda v: jnp.sum(clip_gradient(v) * 3.0)))(x)
    _assert_tree_close(per, np.full((2, 3), 0.5))
    total = jg.grad(lambda v: jnp.sum(jg.vmap(clip_gradient)(v) * 3.0))(x)
    _assert_tree_close(total, np.full((2, 3), 0.5))
    _assert_tree_close(jg.vmap(clip_gradient)(x * 2), x * 2)


# ----------------------------------------------------------------------------- kernels

def _layer(x, w, b):
    return F.softmax(jnp.tanh(x @ w + b))


def test_kernel_count_matches_the_hand_batched_program(data):
    x, w, b = (a.astype(np.float32) for a in data)
    hand = len(jg.jit(_layer).lower(x, w, b).schedule)
    assert len(jg.jit(jg.vmap(_layer, (0, None, None))).lower(x, w, b).schedule) == hand
    vmap_of_jit = jg.jit(jg.vmap(jg.jit(_layer), (0, None, None)))
    assert len(vmap_of_jit.lower(x, w, b).schedule) == hand


def test_per_example_gradient_kernels_have_no_loop_over_examples(mlp):
    params, x, y = mlp
    lowered = jg.jit(jg.vmap(jg.grad(_mlp_loss), (None, 0, 0))).lower(params, x, y)
    single = jg.jit(jg.grad(_mlp_loss)).lower(params, x[0], y[0])
    # the batched program has as many kernels as one example's, not one per example
    assert len(lowered.schedule) <= len(single.schedule)
    assert "scan" not in lowered.optimized_ir and "while_loop" not in lowered.optimized_ir


def test_compiled_per_example_gradients(mlp):
    params, x, y = mlp
    params = tree_util.tree_map(lambda a: a.astype(np.float32), params)
    x = x.astype(np.float32)
    got = jg.jit(jg.vmap(jg.grad(_mlp_loss), (None, 0, 0)))(params, x, y)
    want = _loop(lambda xi, yi: jg.grad(_mlp_loss)(params, xi, yi), list(x), list(y))
    _assert_tree_close(got, want, 1e-5)


def test_compiled_control_flow_and_nn_ensemble():
    _assert_tree_close(jg.jit(jg.vmap(_collatz_steps))(np.array([1, 6, 7])), [0, 8, 16])
    jg.manual_seed(0)
    models = [nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2)) for _ in range(3)]
    stacked = tree_util.tree_map(lambda *ps: np.stack([_np(p) for p in ps]), *models)
    x = np.random.default_rng(3).standard_normal((5, 4)).astype(np.float32)
    got = jg.jit(jg.vmap(lambda m, x: m(x), (0, None)))(stacked, x)
    _assert_tree_close(got, np.stack([_np(m(x)) for m in models]), 1e-5)


def test_compiled_random_streams_and_per_example_gathers():
    keys = jg.random.split(jg.random.key(1), 3)
    draw = lambda k: jg.random.normal(k, (2,))
    _assert_tree_close(jg.jit(jg.vmap(draw))(keys), _loop(draw, list(keys)))
    x = np.random.default_rng(4).standard_normal((3, 4))
    idx = np.array([[0, -1], [3, 2], [-4, 1]])
    _assert_tree_close(jg.jit(jg.vmap(jnp.take))(x, idx), _loop(np.take, list(x), list(idx)))
    with pytest.raises(IndexError, match="out of bounds"):
        jg.jit(jg.vmap(jnp.take))(x, np.full((3, 2), 9))
