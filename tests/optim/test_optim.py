"""jg.optim: updates against hand-computed PyTorch formulas; functional == stateful; jit."""
import numpy as np
import pytest

import jitgrad as jg
from jitgrad import nn, optim

P0 = np.array([1.0, -2.0, 0.5], np.float32)
GRADS = [np.array(g, np.float32) for g in ([0.5, -1.0, 2.0], [0.1, 0.3, -0.2], [-1.0, 0.0, 0.4])]


def sgd_reference(lr, momentum=0.0, nesterov=False, wd=0.0):
    p, buf, out = P0.astype(np.float64), None, []
    for g in GRADS:
        g = g + wd * p
        if momentum:
            buf = g if buf is None else momentum * buf + g
            g = g + momentum * buf if nesterov else buf
        p = p - lr * g
        out.append(p)
    return out


def adam_reference(lr, b1=0.9, b2=0.999, eps=1e-8, wd=0.0, decoupled=False):
    p, m, v, out = P0.astype(np.float64), 0.0, 0.0, []
    for t, g in enumerate(GRADS, 1):
        if decoupled:
            p = p * (1 - lr * wd)
        else:
            g = g + wd * p
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        p = p - lr * (m / (1 - b1 ** t)) / (np.sqrt(v / (1 - b2 ** t)) + eps)
        out.append(p)
    return out


CASES = [
    ("sgd", dict(lr=0.1), sgd_reference(0.1)),
    ("sgd", dict(lr=0.1, momentum=0.9), sgd_reference(0.1, 0.9)),
    ("sgd", dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01),
     sgd_reference(0.1, 0.9, True, 0.01)),
    ("adam", dict(lr=0.01), adam_reference(0.01)),
    ("adam", dict(lr=0.01, weight_decay=0.1), adam_reference(0.01, wd=0.1)),
    ("adamw", dict(lr=0.01, weight_decay=0.1), adam_reference(0.01, wd=0.1, decoupled=True)),
]
STATEFUL = {"sgd": optim.SGD, "adam": optim.Adam, "adamw": optim.AdamW}


@pytest.mark.parametrize("name,hyper,want", CASES)
def test_functional_and_stateful_match_hand_computed(name, hyper, want):
    opt = getattr(optim, name)(**hyper)
    params = {"w": jg.tensor(P0)}
    state = opt.init(params)
    p = nn.Parameter(P0)
    torch_style = STATEFUL[name]([p], **hyper)
    for g, expected in zip(GRADS, want):
        params, state = opt.update({"w": jg.tensor(g)}, state, params)
        p.grad = jg.tensor(g)
        torch_style.step()
        np.testing.assert_allclose(np.asarray(params["w"]), expected, rtol=2e-6, atol=1e-7)
        np.testing.assert_allclose(np.asarray(p.detach()), np.asarray(params["w"]),
                                   rtol=1e-6, atol=1e-7)
    assert int(state.step) == len(GRADS)


@pytest.mark.parametrize("name", ["adam", "sgd"])
def test_training_state_can_be_donated(name):
    """The JAX idiom jg.jit(step, donate_argnums=(0, 1)): every slot of the state is a tensor of
    its own (Adam's m and v were one shared tree of zeros, and donating it raised 'the same
    tensor is donated twice'); the donated step gives the undonated one's numbers."""
    opt = getattr(optim, name)(0.01, **({"momentum": 0.9} if name == "sgd" else {}))
    params = {"w": jg.tensor(P0), "b": jg.tensor(P0[:2])}
    state = opt.init(params)
    leaves = jg.tree_util.tree_leaves(state)
    assert len({id(t) for t in leaves}) == len(leaves)

    def step(params, state, g):
        return opt.update({"w": g, "b": g[:2]}, state, params)
    plain, donated = jg.jit(step), jg.jit(step, donate_argnums=(0, 1))
    p1, s1 = params, state
    p2, s2 = ({k: jg.tensor(np.asarray(v)) for k, v in params.items()}, opt.init(params))
    for g in GRADS:
        p1, s1 = plain(p1, s1, jg.tensor(g))
        old = p2["w"]
        p2, s2 = donated(p2, s2, jg.tensor(g))
        with pytest.raises(RuntimeError, match="deleted"):
            np.asarray(old)
    for a, b in zip(jg.tree_util.tree_leaves((p1, s1)), jg.tree_util.tree_leaves((p2, s2))):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-6)


def test_functional_update_inside_jit_matches_eager():
    opt = optim.adam(0.01)
    params = (jg.tensor(P0), {"b": jg.tensor(P0[:2])})
    grads = (jg.tensor(GRADS[0]), {"b": jg.tensor(GRADS[1][:2])})
    step = jg.jit(opt.update)
    p_jit, s_jit = params, opt.init(params)
    p_eager, s_eager = params, opt.init(params)
    for _ in range(3):
        p_jit, s_jit = step(grads, s_jit, p_jit)
        p_eager, s_eager = opt.update(grads, s_eager, p_eager)
    assert step.trace_count == 1
    for a, b in zip(jg.tree_util.tree_leaves(p_jit), jg.tree_util.tree_leaves(p_eager)):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-6)


def test_stateful_training_loop_with_backward():
    jg.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 1))
    opt = optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    x = np.random.default_rng(0).standard_normal((32, 3)).astype(np.float32)
    y = x.sum(1, keepdims=True)
    losses = []
    for _ in range(2):      # eager backward compiles its graph from the 3rd call: stay short
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad()
        losses.append(float(loss.detach()))
    with jg.no_grad():
        losses.append(float(nn.functional.mse_loss(model(x), y)))
    assert losses[2] < losses[1] < losses[0]
    assert all(p.grad is None for p in model.parameters())


def test_param_groups_and_schedule():
    a, b = nn.Parameter(np.ones(2, np.float32)), nn.Parameter(np.ones(2, np.float32))
    opt = optim.SGD([{"params": [a]}, {"params": [b], "lr": 1.0}], lr=0.1)
    a.grad = b.grad = jg.tensor(np.ones(2, np.float32))
    opt.step()
    np.testing.assert_allclose(np.asarray(a.detach()), 0.9)
    np.testing.assert_allclose(np.asarray(b.detach()), 0.0)
    opt.param_groups[0]["lr"] = 0.5
    opt.step()
    np.testing.assert_allclose(np.asarray(a.detach()), 0.4)
    sched = optim.sgd(lambda step: 0.1 * step)              # lr 0.1, then 0.2
    params = jg.tensor(np.zeros(1, np.float32))
    state = sched.init(params)
    for _ in range(2):
        params, state = sched.update(jg.tensor(np.ones(1, np.float32)), state, params)
    np.testing.assert_allclose(np.asarray(params), -0.3, rtol=1e-6)


def test_bad_hyperparameters_and_structures():
    with pytest.raises(ValueError, match="lr must be"):
        optim.sgd(-1.0)
    with pytest.raises(ValueError, match="nesterov"):
        optim.SGD([nn.Parameter(P0)], lr=0.1, nesterov=True)
    with pytest.raises(ValueError, match="betas"):
        optim.adam(betas=(0.9, 1.5))
    with pytest.raises(ValueError, match="empty parameter list"):
        optim.Adam([])
    opt = optim.sgd(0.1)
    params = {"w": jg.tensor(P0), "b": jg.tensor(P0)}
    with pytest.raises(ValueError, match="grads has 1 leaves but params have 2"):
        opt.update({"w": jg.tensor(P0)}, opt.init(params), params)
