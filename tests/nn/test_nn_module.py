"""jg.nn.Module: registration, pytree behaviour under jit/grad/tree_map, state_dict, repr, and
gradients of the layers (check_grads)."""
import numpy as np
import pytest

import jitgrad as jg
from jitgrad import nn
from jitgrad.nn import functional as F
from jitgrad.test_util import check_grads


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(4, 8), nn.Tanh())
        self.head = nn.Linear(8, 3)
        self.scale = nn.Parameter(np.ones((), np.float32))
        self.note = "static"

    def forward(self, x):
        return self.head(self.body(x)) * self.scale


def test_registration_and_traversal():
    net = Net()
    names = [n for n, _ in net.named_parameters()]
    assert names == ["scale", "body.0.weight", "body.0.bias", "head.weight", "head.bias"]
    assert [n for n, _ in net.named_modules()] == ["", "body", "body.0", "body.1", "head"]
    assert net.num_parameters() == 1 + 4 * 8 + 8 + 8 * 3 + 3
    assert all(p.requires_grad for p in net.parameters())
    assert not any(m.training for m in net.eval().modules())
    assert all(m.training for m in net.train().modules())
    with pytest.raises(AttributeError, match="no attribute 'missing'"):
        net.missing
    with pytest.raises(AttributeError, match="super\\(\\).__init__\\(\\)"):
        class Bad(nn.Module):
            def __init__(self):
                self.w = nn.Parameter(np.zeros(2, np.float32))
        Bad()


def test_pytree_round_trip_and_tree_map():
    net = Net()
    leaves, treedef = jg.tree_util.tree_flatten(net)
    assert len(leaves) == 5
    rebuilt = jg.tree_util.tree_unflatten(treedef, leaves)
    assert type(rebuilt) is Net and rebuilt.note == "static"
    assert type(rebuilt.body) is nn.Sequential
    assert [n for n, _ in rebuilt.named_parameters()] == [n for n, _ in net.named_parameters()]
    assert jg.tree_util.tree_structure(rebuilt) == treedef
    doubled = jg.tree_util.tree_map(lambda p: p * 2, net)
    np.testing.assert_allclose(np.asarray(doubled.head.weight.detach()),
                               2 * np.asarray(net.head.weight.detach()))
    assert jg.tree_util.tree_structure(net.eval()) != jg.tree_util.tree_structure(net.train())


def test_grad_is_model_shaped_and_jit_reuses_trace(rng):
    net = Net()
    x = rng.standard_normal((5, 4)).astype(np.float32)
    y = np.array([0, 1, 2, 1, 0])

    def loss(model, x, y):
        return F.cross_entropy(model(x), y)

    grads = jg.grad(loss)(net, x, y)
    assert type(grads) is Net
    for (n, p), (gn, g) in zip(net.named_parameters(), grads.named_parameters()):
        assert n == gn and g.shape == p.shape

    # the same gradient from PyTorch-style eager backward
    loss(net, x, y).backward()
    for p, g in zip(net.parameters(), grads.parameters()):
        np.testing.assert_allclose(np.asarray(p.grad), np.asarray(g), rtol=1e-4, atol=1e-6)


def test_jit_takes_and_returns_models_without_retracing(rng):
    x = rng.standard_normal((5, 4)).astype(np.float32)
    y = rng.standard_normal((5, 2)).astype(np.float32)

    def loss(model, x, y):
        return F.mse_loss(model(x), y)

    @jg.jit
    def step(model, x, y):
        g = jg.grad(loss)(model, x, y)
        return jg.tree_util.tree_map(lambda p, d: p - 0.1 * d, model, g)

    model = nn.Linear(4, 2)
    m1 = step(model, x, y)
    m2 = step(m1, x, y)
    assert step.trace_count == 1 and type(m2) is nn.Linear and m2.in_features == 4
    assert float(loss(m2, x, y)) < float(loss(model, x, y))


def test_state_dict_round_trip():
    a, b = Net(), Net()
    sd = a.state_dict()
    assert list(sd) == [n for n, _ in a.named_parameters()]
    b.load_state_dict(sd)
    for pa, pb in zip(a.parameters(), b.parameters()):
        np.testing.assert_array_equal(np.asarray(pa.detach()), np.asarray(pb.detach()))
    as_numpy = {k: np.asarray(v) for k, v in sd.items()}
    Net().load_state_dict(as_numpy)
    with pytest.raises(KeyError, match="missing keys \\['scale'\\]"):
        b.load_state_dict({k: v for k, v in sd.items() if k != "scale"})
    assert b.load_state_dict({"scale": sd["scale"]}, strict=False)[1] == []
    with pytest.raises(ValueError, match="'head.bias' expects shape \\(3,\\), got \\(4,\\)"):
        b.load_state_dict({**sd, "head.bias": np.zeros(4, np.float32)})


def test_deepcopy_and_pickle():
    import copy
    import pickle
    net = Net()
    for clone in (copy.deepcopy(net), pickle.loads(pickle.dumps(net))):
        assert type(clone) is Net and clone.note == "static"
        for (n, p), (cn, c) in zip(net.named_parameters(), clone.named_parameters()):
            assert n == cn and isinstance(c, nn.Parameter) and c.requires_grad
            assert c._data is not p._data
            np.testing.assert_array_equal(np.asarray(c.detach()), np.asarray(p.detach()))


def test_repr_like_pytorch():
    model = nn.Sequential(nn.Linear(128, 128), nn.ReLU(), nn.Dropout(0.1),
                          nn.Linear(128, 10, bias=False))
    assert repr(model) == (
        "Sequential(\n"
        "  (0): Linear(in_features=128, out_features=128, bias=True)\n"
        "  (1): ReLU()\n"
        "  (2): Dropout(p=0.1)\n"
        "  (3): Linear(in_features=128, out_features=10, bias=False)\n"
        ")")
    assert repr(Net()).splitlines()[:3] == [
        "Net(", "  (body): Sequential(", "    (0): Linear(in_features=4, out_features=8, bias=True)"]
    assert repr(nn.Conv2d(1, 8, 3, stride=2, padding=1)) == \
        "Conv2d(1, 8, kernel_size=(3, 3), stride=(2, 2), padding=(1, 1))"
    assert repr(nn.LayerNorm(16)) == "LayerNorm((16,), eps=1e-05, elementwise_affine=True)"
    assert repr(nn.Parameter(np.zeros(2, np.float32))).startswith("Parameter containing:\ntensor(")


def test_sequential_indexing_and_module_list():
    model = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
    assert len(model) == 3 and isinstance(model[-1], nn.Linear)
    assert isinstance(model[:2], nn.Sequential) and len(model[:2]) == 2
    layers = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)])
    assert len(list(layers.parameters())) == 6 and layers[1] is list(layers)[1]


@pytest.mark.parametrize("name,fn", [
    ("conv2d", lambda x, w: F.conv2d(x, w, stride=2, padding=1)),
    ("max_pool2d", lambda x, w: F.max_pool2d(x, 2) * w.sum()),
    ("avg_pool2d", lambda x, w: F.avg_pool2d(x, 3, 1, 1) * w.sum()),
])
def test_window_op_gradients(rng, name, fn):
    x = rng.standard_normal((2, 2, 5, 5))
    w = rng.standard_normal((3, 2, 3, 3)) * 0.5
    check_grads(fn, (x, w), order=1, modes=("rev",))


def test_layer_gradients(rng):
    x = rng.standard_normal((3, 4))
    w, b = rng.standard_normal((5, 4)), rng.standard_normal(5)
    g = rng.standard_normal(4) + 1
    check_grads(lambda x, w, b: F.linear(x, w, b), (x, w, b), order=1, modes=("rev",))
    check_grads(lambda x, g: F.layer_norm(x, 4, g, None), (x, g), order=1, modes=("rev",))
    y = np.array([1, 0, 4])
    check_grads(lambda z: F.cross_entropy(z, y), (rng.standard_normal((3, 5)),), order=2,
                modes=("rev",))
    t = rng.random((3, 5))
    check_grads(lambda z: F.binary_cross_entropy_with_logits(z, t), (rng.standard_normal((3, 5)),),
                order=1, modes=("rev",))
