"""A Module keeps the pytree aux it was flattened to or rebuilt from (nn/module_tree.py `_AUX`)
until an attribute other than its tables changes: a jitted step's cache lookup then compares the
same objects. These tests check that every change a user can make is still seen (a retrace or a
different result), and that an unchanged model does reuse its aux (the structural check)."""
import pickle

import numpy as np

import jitgrad as jg
from jitgrad import nn, tree_util


class Scaled(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)
        self.scale = 2.0

    def forward(self, x):
        y = self.fc(x) * self.scale
        return y if self.training else y + 100.0


def _step():
    @jg.jit
    def step(model, x):
        return model, model(x)
    return step


def _ref(model, x):
    with jg.no_grad():
        return np.asarray(model(jg.tensor(x)))


def _aux(m):
    return tree_util.tree_structure(m).aux


def test_unchanged_model_reuses_its_aux_and_the_cache_entry():
    step, x = _step(), np.ones((4, 3), np.float32)
    m = Scaled()
    m2, _ = step(m, x)
    m3, _ = step(m2, x)
    assert step.trace_count == 1
    assert _aux(m3) is _aux(m3)              # flattened twice: one aux object
    assert _aux(m2) is _aux(m3)              # rebuilt from the cached output structure
    assert type(m3.fc.weight) is nn.Parameter and m3.fc.weight.requires_grad


def test_static_attribute_change_retraces():
    step, x = _step(), np.ones((4, 3), np.float32)
    m, _ = step(Scaled(), x)
    m.scale = 5.0
    m2, y = step(m, x)
    np.testing.assert_allclose(np.asarray(y), _ref(m, x), rtol=1e-6)
    assert step.trace_count == 2 and m2.scale == 5.0
    m2.note = "new"                           # a new static attribute: a new structure
    _, y = step(m2, x)
    assert step.trace_count == 3
    del m2.note                               # and deleting it: the first structure again
    _, y = step(m2, x)
    assert step.trace_count == 3
    np.testing.assert_allclose(np.asarray(y), _ref(m2, x), rtol=1e-6)


def test_train_eval_switch_retraces():
    step, x = _step(), np.ones((4, 3), np.float32)
    m, y_train = step(Scaled(), x)
    m.eval()
    _, y_eval = step(m, x)
    np.testing.assert_allclose(np.asarray(y_eval), np.asarray(y_train) + 100.0, rtol=1e-6)
    m.train()
    _, y = step(m, x)
    np.testing.assert_allclose(np.asarray(y), np.asarray(y_train), rtol=1e-6)


def test_direct_table_edits_are_seen():
    step, x = _step(), np.ones((4, 3), np.float32)
    m, _ = step(Scaled(), x)
    m._modules["fc"] = nn.Linear(3, 5)                 # module surgery, as torch users do
    m2, y = step(m, x)
    assert np.asarray(y).shape == (4, 5)
    np.testing.assert_allclose(np.asarray(y), _ref(m, x), rtol=1e-6)
    m2.fc.__dict__["_parameters"]["bias"] = None       # a table slot emptied directly
    _, y = step(m2, x)
    np.testing.assert_allclose(np.asarray(y), _ref(m2, x), rtol=1e-6)
    m2.register_buffer("extra", jg.zeros(1))           # a new buffer: one more leaf
    assert tree_util.tree_structure(m2).num_leaves == 2


def test_gradient_trees_keep_plain_tensors():
    m = Scaled()
    g = jg.jit(jg.grad(lambda mod, x: mod(x).sum()))(m, np.ones((4, 3), np.float32))
    assert type(g.fc.weight) is jg.Tensor and not g.fc.weight.requires_grad
    g2 = jg.tree_util.tree_map(lambda t: t * 2, g)
    assert type(g2.fc.weight) is jg.Tensor


def test_aux_pickles_with_a_fresh_hash():
    td = tree_util.tree_structure(Scaled())
    back = pickle.loads(pickle.dumps(td))
    assert back == td and hash(back) == hash(td)


def test_modules_walks_in_named_modules_order():
    m = nn.Sequential(nn.Linear(2, 3), nn.Sequential(nn.Tanh(), nn.Linear(3, 1)), nn.ReLU())
    m.body = Scaled()
    assert [id(x) for x in m.modules()] == [id(x) for _, x in m.named_modules()]


class Frozen(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)
        self.emb = nn.Parameter(np.ones((2,), np.float32), requires_grad=False)
        self.register_buffer("count", jg.zeros(()))

    def forward(self, x):
        self.count = self.count + 1.0
        return self.fc(x) + self.emb


def _kinds(tree):
    return [(type(t), t.requires_grad) for t in tree_util.tree_leaves(tree)]


def test_jit_results_replay_the_first_calls_parameters(monkeypatch):
    """From the second call on, a jitted step's outputs are made as the first call's restored
    result had them (Parameters with each one's requires_grad, plain tensors elsewhere) instead
    of rebuilt and then restored: the same kinds, values and buffer writes on every call."""
    from jitgrad.transforms import pytree_roles

    @jg.jit
    def step(model, x):
        loss, g = jg.value_and_grad(lambda m: m(x).sum())(model)
        new = jg.tree_util.tree_map(lambda p, d: p - 0.1 * d, model, g)
        return new, g, loss

    x = np.ones((4, 3), np.float32)
    ref = Frozen()
    m = Frozen()
    m.load_state_dict(ref.state_dict())
    first, g1, _ = step(m, x)
    want_model, want_grad = _kinds(first), _kinds(g1)
    assert (nn.Parameter, False) in want_model and (nn.Parameter, True) in want_model
    assert all(k == (jg.Tensor, False) for k in want_grad)
    restores, restore = [], pytree_roles.as_jit_result
    # counting the public hook runner is the point (a Module's hook matches before any other)
    monkeypatch.setattr(pytree_roles, "as_jit_result", lambda t: restores.append(1) or restore(t))
    second, g2, _ = step(first, x)
    third, g3, _ = step(second, x)
    assert restores == [] and step.trace_count == 1          # replayed, not restored
    assert _kinds(second) == _kinds(third) == want_model
    assert _kinds(g2) == _kinds(g3) == want_grad
    # each call wrote its count into the model it was given, as the eager call would have
    assert [float(np.asarray(t.count)) for t in (m, first, second)] == [1.0, 2.0, 3.0]
    # the same numbers as three eager updates
    for _ in range(3):
        ref.zero_grad()
        ref(jg.tensor(x)).sum().backward()
        with jg.no_grad():
            for p in ref.parameters():
                if p.requires_grad:
                    p -= 0.1 * p.grad
    np.testing.assert_allclose(np.asarray(third.fc.weight), np.asarray(ref.fc.weight), rtol=1e-6)
    # and the replayed model trains eagerly like the first one
    third(jg.tensor(x)).sum().backward()
    assert third.fc.weight.grad is not None and third.emb.grad is None
