"""Issue 24, part B: the reproducers of items 5, 7, 8, 9, 12 and 13 on every path that applies
(eager, jit on the interpreter, jit compiled). Donation (item 4): tests/runtime/test_donation.py;
integer edges (item 6): tests/numpy/test_int_edges.py; README snippets: tests/package/test_readme.py."""
import warnings

import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad import nn
from jitgrad.nn import functional as F

JIT_PATHS = {"compiled": {}, "interpreter": {"JITGRAD_BACKEND": "interpreter"}}


@pytest.fixture(params=sorted(JIT_PATHS))
def jit_path(request, monkeypatch):
    for k, v in JIT_PATHS[request.param].items():
        monkeypatch.setenv(k, v)
    return request.param


# item 7: config ----------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["enable_x64", "jax_enable_x64"])
def test_assigning_a_config_option_raises_and_points_to_update(name):
    with pytest.raises(AttributeError, match=rf"jg.config.update\('{name}', True\)"):
        setattr(jg.config, name, True)
    assert jg.config.read("enable_x64") is False
    assert jnp.asarray(1.5).dtype == np.float32             # the mode did not change


def test_unknown_config_names_raise_naming_the_options():
    with pytest.raises(AttributeError, match="no option 'nonsense'; known options: "
                                             "enable_x64, jax_enable_x64"):
        jg.config.update("nonsense", 1)
    with pytest.raises(AttributeError, match="no option 'nonsense'.*jg.config.update"):
        jg.config.nonsense = 1
    with pytest.raises(AttributeError, match="nonsense"):
        jg.config.nonsense
    with pytest.raises(TypeError, match="expects True or False"):
        jg.config.update("enable_x64", 1)


# item 8: optimizer parameter checks ------------------------------------------------------------
def test_optimizer_refuses_a_non_leaf_tensor():
    w = jg.tensor([1.0, 2.0], requires_grad=True)
    for opt in (jg.optim.SGD, jg.optim.Adam, jg.optim.AdamW):
        with pytest.raises(ValueError, match="can't optimize a non-leaf Tensor"):
            opt([w * 2], lr=0.1)
        with pytest.raises(ValueError, match="can't optimize a non-leaf Tensor"):
            opt([{"params": [w], "lr": 0.1}, {"params": [w + 1]}], lr=0.1)


PARAM_ERRORS = {
    "lone tensor": (lambda w: w, TypeError, "should be an iterable of Tensors or dicts"),
    "set": (lambda w: {w}, TypeError, "ordering of tensors in sets"),
    "empty": (lambda w: [], ValueError, "optimizer got an empty parameter list"),
    "numpy array": (lambda w: [np.ones(2)], TypeError, "can only optimize Tensors.*ndarray"),
    "two groups": (lambda w: [{"params": [w]}, {"params": [w]}], ValueError,
                   "more than one parameter group"),
}


@pytest.mark.parametrize("case", sorted(PARAM_ERRORS))
def test_optimizer_param_checks_like_pytorch(case):
    make, exc, msg = PARAM_ERRORS[case]
    w = jg.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(exc, match=msg):
        jg.optim.SGD(make(w), lr=0.1)


def test_duplicate_parameters_warn_and_a_leaf_still_trains():
    w = jg.tensor([1.0, 2.0], requires_grad=True)
    with pytest.warns(UserWarning, match="duplicate parameters"):
        jg.optim.SGD([w, w], lr=0.1)
    opt = jg.optim.SGD([w], lr=0.5)
    (w * w).sum().backward()
    opt.step()
    np.testing.assert_allclose(w.detach().numpy(), [0.0, 0.0])


# item 13: static_argnames, block_until_ready ----------------------------------------------------
def test_static_argnames_like_jax(jit_path):
    def f(x, n, *, scale=1.0):
        return x * n * scale if n > 1 else x          # Python control flow on n and scale
    g = jg.jit(f, static_argnames=("n", "scale"))
    x = jnp.asarray(np.array([1.0, 2.0], np.float32))
    np.testing.assert_allclose(g(x, n=3).numpy(), [3, 6])
    np.testing.assert_allclose(g(x, 3).numpy(), [3, 6])          # by position: also static
    np.testing.assert_allclose(g(x, n=3, scale=2.0).numpy(), [6, 12])
    np.testing.assert_allclose(g(x, n=1).numpy(), [1, 2])
    count = g.trace_count
    g(x, n=3, scale=2.0)
    assert g.trace_count == count                                # the same statics: cached
    g(x, n=4, scale=2.0)
    assert g.trace_count == count + 1


def test_static_argnums_covers_the_keyword_spelling(jit_path):
    g = jg.jit(lambda x, shape: jnp.reshape(x, shape), static_argnums=1)
    x = jnp.arange(6)
    assert g(x, shape=(2, 3)).shape == (2, 3)
    assert g(x, (3, 2)).shape == (3, 2)
    both = jg.jit(lambda a, b, c: a * b + c, static_argnums=1, static_argnames="c")
    np.testing.assert_allclose(both(np.ones(2, np.float32), 2, c=5).numpy(), [7, 7])


def test_static_argnames_errors():
    with pytest.raises(ValueError, match="static_argnames names 'm', which is not a parameter"):
        jg.jit(lambda x, n: x, static_argnames="m")
    g = jg.jit(lambda x, n: x * len(n), static_argnames="n")
    with pytest.raises(TypeError, match="static argument 'n' of type list is not hashable"):
        g(np.ones(2), n=[1, 2])


def test_block_until_ready_returns_the_tree():
    tree = {"a": jnp.ones(2), "b": [jnp.zeros(3), 3, "text"]}
    out = jg.block_until_ready(tree)
    assert out is tree
    x = jnp.ones(2)
    x.delete()
    with pytest.raises(RuntimeError, match="Array has been deleted"):
        jg.block_until_ready([x])


# item 5: embedding indices ------------------------------------------------------------------------
@pytest.mark.parametrize("bad", [-1, -5, 5, 7])
def test_embedding_out_of_range_raises_eagerly_and_under_jit(jit_path, bad):
    emb = nn.Embedding(5, 3)
    idx = np.array([0, bad, 2])
    calls = {"module": lambda: emb(idx), "F.embedding": lambda: F.embedding(idx, emb.weight),
             "jit, closed over": lambda: jg.jit(lambda i: emb(i))(idx),
             "jit, module argument": lambda: jg.jit(lambda m, i: m(i))(emb, idx),
             "jit, F.embedding": lambda: jg.jit(lambda w, i: F.embedding(i, w))(emb.weight, idx),
             "grad": lambda: jg.grad(lambda m: m(idx).sum())(emb)}
    for name, call in calls.items():
        with pytest.raises(IndexError, match=rf"embedding: index {bad} is out of bounds for 5 "
                                             r"embeddings: expected indices in \[0, 5\)"):
            call()


def test_embedding_in_range_matches_rows_and_grad(jit_path):
    emb = nn.Embedding(5, 3)
    w = emb.weight.detach().numpy()
    idx = np.array([[4, 0], [2, 2]])
    np.testing.assert_array_equal(emb(idx).detach().numpy(), w[idx])
    np.testing.assert_array_equal(jg.jit(lambda m, i: m(i))(emb, idx).detach().numpy(), w[idx])
    g = jg.grad(lambda m: (m(idx) * 2.0).sum())(emb).weight.numpy()
    np.testing.assert_array_equal(g[:, 0], [2, 0, 4, 0, 2])


def test_embedding_padding_idx_row_gets_no_gradient():
    emb = nn.Embedding(4, 2, padding_idx=1)
    assert emb.weight.detach().numpy()[1].tolist() == [0.0, 0.0]
    idx = np.array([1, 1, 3])
    emb(idx).sum().backward()
    np.testing.assert_array_equal(emb.weight.grad.numpy(), [[0, 0], [0, 0], [0, 0], [1, 1]])
    g = jg.jit(jg.grad(lambda m: m(idx).sum()))(emb).weight.numpy()
    np.testing.assert_array_equal(g, [[0, 0], [0, 0], [0, 0], [1, 1]])


def test_take_keeps_numpys_negative_indices():
    x = jnp.arange(5)
    assert jnp.take(x, np.array([-1])).tolist() == [4]
    with pytest.raises(IndexError, match="index -6 is out of bounds"):
        jnp.take(x, np.array([-6]))


# item 9: requires_grad through jit ---------------------------------------------------------------
def _model_and_step():
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    model[2].bias.requires_grad_(False)                   # a frozen parameter stays frozen
    opt = jg.optim.sgd(0.1)
    x = np.random.default_rng(0).standard_normal((5, 3)).astype(np.float32)

    def loss(m):
        return (m(x) ** 2).sum()

    def step(m, s):
        return opt.update(jg.grad(loss)(m), s, m)
    return model, opt.init(model), x, loss, step


def test_model_returned_by_a_jitted_step_keeps_requires_grad(jit_path):
    model, state, x, loss, step = _model_and_step()
    flags = [p.requires_grad for p in model.parameters()]
    assert flags == [True, True, True, False]
    model2, state = jg.jit(step)(model, state)
    assert all(isinstance(p, nn.Parameter) for p in model2.parameters())
    assert [p.requires_grad for p in model2.parameters()] == flags
    assert all(p.is_leaf for p in model2.parameters())
    loss(model2).backward()                                # the reproducer: works now
    grads = jg.grad(loss)(model2)
    np.testing.assert_allclose(model2[0].weight.grad.numpy(), grads[0].weight.numpy(), rtol=1e-5)
    assert model2[2].bias.grad is None
    model3, _ = jg.jit(step)(model2, state)                # and again, from the restored model
    assert [p.requires_grad for p in model3.parameters()] == flags
    np.testing.assert_allclose(model3[0].weight.detach().numpy(),
                               step(model2, state)[0][0].weight.detach().numpy(), rtol=1e-5)


def test_gradients_stay_plain_tensors_through_jit_and_tree_map(jit_path):
    model, state, x, loss, step = _model_and_step()
    doubled = jg.jit(lambda m: jg.tree_util.tree_map(lambda g: g * 2, jg.grad(loss)(m)))
    for grads in (jg.grad(loss)(model), jg.jit(jg.grad(loss))(model), doubled(model)):
        for g in grads.parameters():
            assert type(g) is jg.Tensor and not g.requires_grad
            g.numpy()
    same = jg.jit(lambda m: m)(model)
    assert [type(p) for p in same.parameters()] == [nn.Parameter] * 4


# item 12: a Python complex argument ---------------------------------------------------------------
def test_grad_of_a_python_complex_like_jax(jit_path):
    f = lambda z: jnp.abs(z) ** 2                          # noqa: E731  (the README's example)
    for g in (jg.grad(f), jg.jit(jg.grad(f))):
        out = g(3 + 4j)
        assert out.dtype == np.complex64 and complex(out) == 6 - 8j   # JAX: (6-8j), complex64
    assert jg.grad(f)(np.complex128(3 + 4j)).dtype == np.complex128
    value, grad = jg.value_and_grad(f)(3 + 4j)
    assert float(value) == 25.0 and complex(grad) == 6 - 8j
    doubled = jg.jit(lambda z: z * 2)(1 + 2j)
    assert doubled.dtype == np.complex64 and complex(doubled) == 2 + 4j


def test_tensor_block_until_ready_method():
    x = jnp.ones(3)
    assert x.block_until_ready() is x
