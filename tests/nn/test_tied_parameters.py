"""A tied weight (`head.weight = emb.weight`) is one parameter, as in PyTorch: listed once by
parameters()/named_parameters() (so an optimizer updates it once), kept under both names by
state_dict(), one pytree leaf under jit and grad (its gradient sums both uses, and a jitted
update returns one tensor in both slots). Shared submodules likewise."""
import numpy as np
import pytest

import jitgrad as jg
from jitgrad import nn
from jitgrad.nn import functional as F

E0 = (np.arange(15, dtype=np.float64).reshape(5, 3) - 7) / 10
IDX = np.array([0, 3, 3, 1])
Y = np.array([2, 0, 4, 3])
LR, WD = 0.1, 0.01


class Tied(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(5, 3)
        self.head = nn.Linear(3, 5, bias=False)
        self.head.weight = self.emb.weight

    def forward(self, idx):
        return self.head(self.emb(idx))


def _model():
    model = Tied().double()
    with jg.no_grad():
        model.emb.weight.copy_(E0)
    return model


def grad_by_hand(E):
    """d/dE of cross_entropy(E[IDX] @ E.T, Y): the head's use plus the embedding's."""
    h = E[IDX]
    z = h @ E.T
    p = np.exp(z - z.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    dz = (p - np.eye(5)[Y]) / len(Y)
    g = dz.T @ h                        # as the head's weight
    np.add.at(g, IDX, dz @ E)           # as the embedding table
    return g


def adamw_by_hand(steps):
    E, m, v = E0.copy(), np.zeros_like(E0), np.zeros_like(E0)
    for t in range(1, steps + 1):
        g = grad_by_hand(E)
        E = E * (1 - LR * WD)
        m, v = 0.9 * m + 0.1 * g, 0.999 * v + 0.001 * g * g
        E = E - LR * (m / (1 - 0.9 ** t)) / (np.sqrt(v / (1 - 0.999 ** t)) + 1e-8)
    return E


def test_a_tied_weight_is_listed_once_under_its_first_name():
    model = _model()
    assert [n for n, _ in model.named_parameters()] == ["emb.weight"]
    assert len(list(model.parameters())) == 1
    assert [n for n, _ in model.named_parameters(remove_duplicate=False)] == ["emb.weight",
                                                                            "head.weight"]
    assert list(model.state_dict()) == ["emb.weight", "head.weight"]
    assert model.num_parameters() == 15


def test_load_state_dict_with_both_names_keeps_the_tie():
    model = _model()
    sd = {k: np.asarray(v) * 2 for k, v in model.state_dict().items()}
    model.load_state_dict(sd)
    assert model.head.weight is model.emb.weight
    np.testing.assert_array_equal(np.asarray(model.emb.weight), E0 * 2)
    model.to(jg.float32)
    assert model.head.weight is model.emb.weight and model.emb.weight.dtype == np.float32


def test_eager_adamw_updates_a_tied_weight_once_per_step():
    model = _model()
    opt = jg.optim.AdamW(model.parameters(), lr=LR, weight_decay=WD)
    for _ in range(3):
        F.cross_entropy(model(jg.tensor(IDX)), jg.tensor(Y)).backward()
        np.testing.assert_allclose(np.asarray(model.emb.weight.grad),
                                   grad_by_hand(np.asarray(model.emb.weight)), rtol=1e-10)
        opt.step()
        opt.zero_grad()
    assert model.head.weight is model.emb.weight
    np.testing.assert_allclose(np.asarray(model.emb.weight), adamw_by_hand(3), rtol=1e-10)


def _loss(m, idx, y):
    return F.cross_entropy(m(idx), y)


def test_the_gradient_of_a_tied_weight_sums_both_uses():
    model = _model()
    leaves, _ = jg.tree_util.tree_flatten(model)
    assert len(leaves) == 1                                      # one leaf
    for grad in (jg.grad(_loss), jg.jit(jg.grad(_loss))):
        g = grad(model, IDX, Y)
        assert g.head.weight is g.emb.weight
        np.testing.assert_allclose(np.asarray(g.emb.weight), grad_by_hand(E0), rtol=1e-10)


@pytest.mark.parametrize("wrap", [lambda f: f, jg.jit], ids=["eager", "jit"])
def test_functional_adamw_keeps_the_tie_and_matches_by_hand(wrap):
    opt = jg.optim.adamw(LR, weight_decay=WD)

    @wrap
    def step(model, state):
        grads = jg.grad(_loss)(model, IDX, Y)
        return opt.update(grads, state, model)

    model = _model()
    state = opt.init(model)
    for _ in range(3):
        model, state = step(model, state)
        assert model.head.weight is model.emb.weight
    np.testing.assert_allclose(np.asarray(model.emb.weight), adamw_by_hand(3), rtol=1e-10)
    assert [n for n, _ in model.named_parameters()] == ["emb.weight"]
    if wrap is jg.jit:      # a jit result's parameters are Parameters again, the tie one
        assert isinstance(model.emb.weight, nn.Parameter)


@pytest.mark.interpreter
def test_tied_weight_on_the_interpreter():
    g = jg.jit(jg.grad(_loss))(_model(), IDX, Y)
    np.testing.assert_allclose(np.asarray(g.head.weight), grad_by_hand(E0), rtol=1e-10)


class Shared(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(2, 2)
        self.inner = nn.Sequential(nn.Tanh(), self.a)     # the same Linear, twice

    def forward(self, x):
        return self.inner(self.a(x)).sum()


def test_a_shared_submodule_is_one_module_and_one_subtree():
    model = Shared().double()
    assert [n for n, _ in model.named_modules()] == ["", "a", "inner", "inner.0"]
    assert len(list(model.modules())) == 4 and len(list(model.parameters())) == 2
    assert [n for n, _ in model.named_children()] == ["a", "inner"]
    assert len(list(model.named_modules(remove_duplicate=False))) == 5
    assert set(model.state_dict()) == {"a.weight", "a.bias", "inner.1.weight", "inner.1.bias"}
    x = np.array([[0.5, -1.0]])
    w, b = np.asarray(model.a.weight), np.asarray(model.a.bias)
    h = x @ w.T + b
    t = np.tanh(h)
    dh2 = np.ones((1, 2))                                  # d sum / d (t @ w.T + b)
    dt = dh2 @ w
    dh = dt * (1 - t ** 2)
    want_w, want_b = dh2.T @ t + dh.T @ x, dh2.sum(0) + dh.sum(0)
    for grad in (jg.grad(lambda m: m(x)), jg.jit(jg.grad(lambda m: m(x)))):
        g = grad(model)
        assert g.inner[1] is g.a
        np.testing.assert_allclose(np.asarray(g.a.weight), want_w, rtol=1e-12)
        np.testing.assert_allclose(np.asarray(g.a.bias), want_b, rtol=1e-12)
