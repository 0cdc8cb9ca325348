"""A Module keeps the pytree aux it was flattened to or rebuilt from (nn/module.py `_AUX`) until
an attribute other than its tables changes: a jitted step's cache lookup then compares the same
objects. These tests check that every change a user can make is still seen (a retrace or a
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
