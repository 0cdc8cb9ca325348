"""Issue 48 item 5: a max-pool window's gradient goes, whole, to its FIRST maximum (row-major
window scan order), as PyTorch's max_pool2d and JAX's reduce_window max / min do, instead of being
split among tied maxima; on every path (eager, jit compiled, jit on the interpreter). Expected
gradients are worked out by hand and were checked against torch 2 and jax 0.4 (see the
importorskip tests)."""
import numpy as np
import pytest

import jitgrad as jg
import jitgrad.nn.functional as F
from jitgrad import lax, nn

X = np.array([[3, 1, 3, 3], [3, 2, 0, 3], [1, 3, 3, 1], [0, 2, 3, 3]], np.float32)
W = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)       # the loss's weight per output


@pytest.fixture(params=["eager", "jit", "interpreter"])
def run(request, monkeypatch):
    if request.param == "interpreter":
        monkeypatch.setenv("JITGRAD_BACKEND", "interpreter")
    if request.param == "eager":
        return lambda fn, *args: fn(*args)
    return lambda fn, *args: jg.jit(fn)(*args)


def _grad(run, pool, x, w):
    return np.asarray(run(jg.grad(lambda x: (pool(x) * w).sum()), x))


def test_issue_reproducer(run):
    x = np.array([[[[1, 1], [0, 0]]]], np.float32)
    np.testing.assert_array_equal(_grad(run, lambda x: F.max_pool2d(x, 2), x, 1.0),
                                  [[[[1, 0], [0, 0]]]])
    g = _grad(run, lambda x: lax.reduce_window(x, -np.inf, lax.max, (1, 1, 2, 2), (1, 1, 1, 1),
                                               "VALID"), x, 1.0)
    np.testing.assert_array_equal(g, [[[[1, 0], [0, 0]]]])


def test_max_pool2d_non_overlapping_windows(run):
    g = _grad(run, lambda x: F.max_pool2d(x, 2), X[None, None], W)
    # every 2x2 window's maximum 3 ties; the first (row-major) takes the window's weight
    np.testing.assert_array_equal(g[0, 0], [[1, 0, 2, 0], [0, 0, 0, 0], [0, 3, 4, 0],
                                            [0, 0, 0, 0]])


def test_max_pool2d_overlapping_windows_and_module(run):
    g = _grad(run, lambda x: nn.MaxPool2d(3, stride=1)(x), X[None, None], W)
    np.testing.assert_array_equal(g[0, 0], [[1, 0, 2, 0], [3, 0, 0, 4], [0, 0, 0, 0],
                                            [0, 0, 0, 0]])


def test_max_pool2d_padded(run):
    x = np.array([[[[1, 1], [0, 0]]]], np.float32)
    g = _grad(run, lambda x: F.max_pool2d(x, 2, stride=1, padding=1), x, 1.0)
    np.testing.assert_array_equal(g, [[[[4, 2], [2, 1]]]])


def test_max_pool2d_values_keep_nan_and_infinities(run):
    x = np.array([[[[np.nan, 1, -np.inf, -np.inf], [1, np.nan, -np.inf, -np.inf]]]], np.float32)
    y = np.asarray(run(lambda x: F.max_pool2d(x, 2), x))
    np.testing.assert_array_equal(y, [[[[np.nan, -np.inf]]]])
    g = _grad(run, lambda x: F.max_pool2d(x, 2), x, 1.0)
    np.testing.assert_array_equal(g, [[[[1, 0, 1, 0], [0, 0, 0, 0]]]])


def test_reduce_window_max_and_min(run):
    g = _grad(run, lambda x: lax.reduce_window(x, -np.inf, lax.max, (3, 3), (1, 1), "VALID"),
              X, W)
    np.testing.assert_array_equal(g, [[1, 0, 2, 0], [3, 0, 0, 4], [0, 0, 0, 0], [0, 0, 0, 0]])
    g = _grad(run, lambda x: lax.reduce_window(x, np.inf, lax.min, (3, 3), (1, 1), "VALID"), X, W)
    np.testing.assert_array_equal(g, [[0, 0, 0, 0], [0, 0, 10, 0], [0, 0, 0, 0], [0, 0, 0, 0]])


def test_reduce_window_ties_with_padding_and_a_non_identity_init(run):
    x = np.array([2.0, 2.0, 1.0], np.float32)
    g = _grad(run, lambda x: lax.reduce_window(x, -np.inf, lax.max, (3,), (1,), "SAME"), x, 1.0)
    np.testing.assert_array_equal(g, [2, 1, 0])     # windows (-inf, 2, 2), (2, 2, 1), (2, 1, -inf)
    y = np.asarray(run(lambda x: lax.reduce_window(x, 1.5, lax.max, (2,), (1,), "VALID"), x))
    np.testing.assert_array_equal(y, [2, 2])


def test_reduce_window_integer_and_bool_values(run):
    x = np.array([[1, 5, 5], [5, 0, -7]], np.int32)
    y = np.asarray(run(lambda x: lax.reduce_window(x, np.iinfo(np.int32).min, lax.max, (2, 2),
                                                   (1, 1), "VALID"), x))
    np.testing.assert_array_equal(y, [[5, 5]])
    assert y.dtype == np.int32
    y = np.asarray(run(lambda x: lax.reduce_window(x, np.iinfo(np.int32).max, lax.min, (2, 2),
                                                   (1, 1), "VALID"), x))
    np.testing.assert_array_equal(y, [[0, -7]])
    b = np.array([[True, False, False], [False, False, False]])
    y = np.asarray(run(lambda b: lax.reduce_window(b, False, lax.max, (2, 2), (1, 1), "VALID"), b))
    np.testing.assert_array_equal(y, [[True, False]])


def test_vmap_of_pool_gradient():
    xs = np.stack([X, X.T])[:, None, None]
    g = jg.vmap(jg.grad(lambda x: (F.max_pool2d(x, 2) * W).sum()))(xs)
    for gi, xi in zip(np.asarray(g), xs):
        np.testing.assert_array_equal(gi, _grad(lambda f, a: f(a), lambda x: F.max_pool2d(x, 2),
                                                xi, W))


def test_matches_torch_on_tie_heavy_inputs():
    torch = pytest.importorskip("torch")
    x = np.random.default_rng(0).integers(0, 3, (2, 3, 7, 6)).astype(np.float32)
    for k, s, p in ((2, 2, 0), (3, 1, 1), (3, 2, 1)):
        t = torch.tensor(x, requires_grad=True)
        torch.nn.functional.max_pool2d(t, k, s, p).sum().backward()
        g = jg.grad(lambda x: F.max_pool2d(x, k, s, p).sum())(x)
        np.testing.assert_array_equal(np.asarray(g), t.grad.numpy())


def test_matches_jax_on_tie_heavy_inputs():
    jax = pytest.importorskip("jax")
    x = np.random.default_rng(1).integers(0, 3, (6, 7)).astype(np.float32)
    for fn, init in ((jax.lax.max, -np.inf), (jax.lax.min, np.inf)):
        want = jax.grad(lambda x: jax.lax.reduce_window(x, init, fn, (3, 2), (2, 1),
                                                        "SAME").sum())(x)
        mine = {jax.lax.max: lax.max, jax.lax.min: lax.min}[fn]
        got = jg.grad(lambda x: lax.reduce_window(x, init, mine, (3, 2), (2, 1), "SAME").sum())(x)
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


def test_value_is_the_first_maximum_itself(run):
    # -0.0 and 0.0 tie; the first is the value, sign included (PyTorch's max_pool2d: -0.)
    x = np.array([[[[-0.0, 0.0], [0.0, -1.0]]]], np.float32)
    y = np.asarray(run(lambda x: F.max_pool2d(x, 2), x))
    assert y.shape == (1, 1, 1, 1) and y[0, 0, 0, 0] == 0 and np.signbit(y[0, 0, 0, 0])


def test_gradient_is_exactly_zero_off_the_chosen_entries(run):
    # an infinite or NaN cotangent lands on the chosen entry only (a scatter, as PyTorch's and
    # JAX's; a multiply by a 0/1 mask would spread NaN); values checked against torch and jax
    x = np.array([[[[1, 5, 2, 2], [5, 0, 2, 7]]]], np.float32)
    ct = np.array([[[[np.inf, np.nan]]]], np.float32)
    g = run(lambda x, ct: jg.vjp(lambda x: F.max_pool2d(x, 2), x)[1](ct)[0], x, ct)
    np.testing.assert_array_equal(np.asarray(g), [[[[0, np.inf, 0, 0], [0, 0, 0, np.nan]]]])


def test_forward_mode_takes_the_first_maximum_tangent(run):
    x = np.array([[1, 5, 2, 2], [5, 0, 2, 7]], np.float32)
    t = np.arange(8, dtype=np.float32).reshape(2, 4)
    y, ty = run(lambda x, t: jg.jvp(lambda x: lax.reduce_window(
        x, -np.inf, lax.max, (2, 2), (2, 2), "VALID"), (x,), (t,)), x, t)
    np.testing.assert_array_equal(np.asarray(y), [[5, 7]])
    np.testing.assert_array_equal(np.asarray(ty), [[1, 7]])     # jax.jvp gives [[1., 7.]]


def test_jitted_pool_gradient_gathers_once_and_scatters_once():
    """The forward is two window reductions (the max, then the first position holding it) and
    one take of that position; the backward one scatter_add of the cotangent: no select of
    floats (a cotangent broadcast over the window layout) anywhere."""
    x = np.zeros((2, 3, 8, 8), np.float32)
    lowered = jg.jit(jg.value_and_grad(lambda x: F.max_pool2d(x, 2).sum())).lower(x)
    nodes = [n for k in lowered.schedule for n in k.params["body"].nodes]
    ops = [str(n.op) for n in nodes]
    assert [ops.count(op) for op in ("reduce_max", "reduce_min", "take", "scatter_add")] == \
        [1, 1, 1, 1], ops
    assert not [n for n in nodes if str(n.op) == "select"
                and np.dtype(str(n.outputs[0].type.dtype)).kind == "f"]


def test_hot_eager_backward_scatters_to_the_saved_positions():
    """Eagerly, a hot max_pool2d saves each window's first-maximum position, as PyTorch's
    max_pool2d_with_indices does: its backward reduces no window again."""
    from jitgrad.transforms import fused_eager
    x = jg.tensor(X[None, None], requires_grad=True)
    for _ in range(fused_eager.HOT + 1):
        x.grad = None
        (F.max_pool2d(x, 2) * jg.tensor(W)).sum().backward()
    y = (F.max_pool2d(x, 2) * jg.tensor(W)).sum()
    x.grad = None
    with jg.profiler.profile() as prof:
        y.backward()
    kernels = [e.name for e in prof.events if e.cat == "kernel"]
    assert any("scatter_add" in k for k in kernels) and not any("reduce" in k for k in kernels)
    np.testing.assert_array_equal(x.grad.numpy()[0, 0], [[1, 0, 2, 0], [0, 0, 0, 0],
                                                         [0, 3, 4, 0], [0, 0, 0, 0]])


def test_indices_are_the_first_maxima(run):
    """return_indices gives the positions the gradient goes to (hand-computed on X's ties)."""
    x = X[None, None]
    v, i = run(lambda x: F.max_pool2d(x, 3, 1, return_indices=True), x)
    np.testing.assert_array_equal(np.asarray(i)[0, 0], [[0, 2], [4, 7]])
    np.testing.assert_array_equal(np.asarray(v)[0, 0], [[3, 3], [3, 3]])
    v, i = run(lambda x: F.adaptive_max_pool2d(x, 2, return_indices=True), x)
    np.testing.assert_array_equal(np.asarray(i)[0, 0], [[0, 2], [9, 10]])
    np.testing.assert_array_equal(np.asarray(v)[0, 0], [[3, 3], [3, 3]])
