"""The eager optimizers' fused multi-tensor step (jitgrad/optim/fused_step.py): the same updates
as the per-tensor path and as torch's equations, PyTorch's in-place semantics, one compile."""
import copy

import numpy as np
import pytest

import jitgrad as jg
from jitgrad import nn, optim

SHAPES = [(3, 4), (4,), (2, 3, 2), ()]
STEPS = 4
TOL = {np.float32: dict(rtol=1e-6, atol=1e-7), np.float64: dict(rtol=1e-13, atol=1e-15)}
CLASSES = {"sgd": optim.SGD, "adam": optim.Adam, "adamw": optim.AdamW}


def _values(dtype, seed=0):
    rng = np.random.default_rng(seed)
    params = [rng.standard_normal(s).astype(dtype) for s in SHAPES]
    grads = [[rng.standard_normal(s).astype(dtype) for s in SHAPES] for _ in range(STEPS)]
    return params, grads


def _has_grad(step, k, skip):
    return not (skip and k == 1 and step % 2 == 1)     # parameter 1: no grad on odd steps


def _run(name, hyper, dtype, foreach, skip=False, edit=None):
    """The parameters after STEPS steps; `edit(opt, step)` changes groups between steps."""
    p0, grads = _values(dtype)
    params = [nn.Parameter(a.copy()) for a in p0]
    opt = CLASSES[name](params, foreach=foreach, **hyper)
    for t in range(STEPS):
        for k, p in enumerate(params):
            p.grad = jg.tensor(grads[t][k]) if _has_grad(t, k, skip) else None
        opt.step()
        if edit is not None:
            edit(opt, t)
    return [np.asarray(p.detach()) for p in params], opt


# torch's equations (torch.optim.SGD / Adam / AdamW, single-tensor form) in NumPy float64
def _reference(name, hyper, dtype, skip=False, edit=None):
    p0, grads = _values(dtype)
    h = {"momentum": 0.0, "nesterov": False, "weight_decay": 0.01 if name == "adamw" else 0.0,
         "betas": (0.9, 0.999), "eps": 1e-8, **hyper}
    out = []
    for k, p in enumerate(p0):
        p, buf, m, v, step = p.astype(np.float64), None, 0.0, 0.0, 0
        hk = dict(h)
        for t in range(STEPS):
            if _has_grad(t, k, skip):
                g, step = grads[t][k].astype(np.float64), step + 1
                lr = hk["lr"](step) if callable(hk["lr"]) else hk["lr"]
                wd, (b1, b2) = hk["weight_decay"], hk["betas"]
                if name == "sgd":
                    g = g + wd * p
                    if hk["momentum"]:
                        buf = g if buf is None else hk["momentum"] * buf + g
                        g = g + hk["momentum"] * buf if hk["nesterov"] else buf
                    p = p - lr * g
                else:
                    if name == "adamw":
                        p = p * (1 - lr * wd)
                    else:
                        g = g + wd * p
                    m = b1 * m + (1 - b1) * g
                    v = b2 * v + (1 - b2) * g * g
                    p = p - lr * (m / (1 - b1 ** step)) / (np.sqrt(v / (1 - b2 ** step))
                                                            + hk["eps"])
            if edit is not None:
                hk.update(edit.get(t, {}))
        out.append(p)
    return out


CASES = [
    ("sgd", dict(lr=0.1)),
    ("sgd", dict(lr=0.1, momentum=0.9)),
    ("sgd", dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01)),
    ("sgd", dict(lr=lambda step: 0.1 / step, momentum=0.5, weight_decay=0.1)),
    ("adam", dict(lr=0.01)),
    ("adam", dict(lr=0.01, betas=(0.8, 0.99), weight_decay=0.1)),
    ("adamw", dict(lr=0.01, weight_decay=0.1)),
    ("adamw", dict(lr=lambda step: 0.01 * 0.5 ** step)),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("skip", [False, True], ids=["all-grads", "grad-none-some-steps"])
@pytest.mark.parametrize("name,hyper", CASES)
def test_fused_matches_per_tensor_and_torch_equations(name, hyper, dtype, skip):
    fused, opt = _run(name, hyper, dtype, None, skip)
    single, opt_single = _run(name, hyper, dtype, False, skip)
    assert opt.fused_step.compiles >= 1 and opt_single.fused_step.compiles == 0
    for a, b, want in zip(fused, single, _reference(name, hyper, dtype, skip)):
        assert a.dtype == dtype
        np.testing.assert_allclose(a, b, **TOL[dtype])
        np.testing.assert_allclose(a, want, rtol=2e-5 if dtype == np.float32 else 1e-10,
                                   atol=1e-6 if dtype == np.float32 else 1e-12)


def test_second_step_does_not_recompile():
    """lr (a schedule or a number written into the group) and the step count are runtime
    scalars; only the first step compiles."""
    params = [nn.Parameter(np.ones(s, np.float32)) for s in SHAPES]
    opt = optim.AdamW(params, lr=lambda step: 1e-2 / step)
    for t in range(5):
        for p in params:
            p.grad = jg.tensor(np.full(p.shape, 0.5, np.float32))
        opt.step()
        assert opt.fused_step.compiles == 1 and len(opt.fused_step.cache) == 1
    opt.param_groups[0]["lr"] = 0.5                 # a number instead of the schedule
    opt.step()
    assert opt.fused_step.compiles == 1


def test_a_copied_optimizer_compiles_its_own_step():
    p = nn.Parameter(np.ones(3, np.float32))
    opt = optim.Adam([p], lr=0.1)
    p.grad = jg.tensor(np.ones(3, np.float32))
    opt.step()
    twin = copy.deepcopy(opt)
    assert len(twin.fused_step.cache) == 0
    q = twin.param_groups[0]["params"][0]
    assert q is not p and twin.state[q]["step"] == 1
    q.grad = jg.tensor(np.ones(3, np.float32))
    twin.step()
    opt.step()
    assert twin.fused_step.compiles == 2 and opt.fused_step.compiles == 1
    np.testing.assert_array_equal(np.asarray(q.detach()), np.asarray(p.detach()))


def test_group_edits_between_steps_take_effect():
    def edit(opt, t):
        if t == 0:
            opt.param_groups[0]["lr"] = 0.05            # a learning-rate schedule by hand
        if t == 1:
            opt.param_groups[0]["weight_decay"] = 0.2    # compiled in: compiles again
            opt.param_groups[0]["momentum"] = 0.5
    hyper = dict(lr=0.1, momentum=0.9, weight_decay=0.01)
    fused, opt = _run("sgd", hyper, np.float64, None, edit=edit)
    single, _ = _run("sgd", hyper, np.float64, False, edit=edit)
    want = _reference("sgd", hyper, np.float64,
                      edit={0: {"lr": 0.05}, 1: {"weight_decay": 0.2, "momentum": 0.5}})
    for a, b, w in zip(fused, single, want):
        np.testing.assert_allclose(a, b, **TOL[np.float64])
        np.testing.assert_allclose(a, w, rtol=1e-10, atol=1e-12)
    assert opt.fused_step.compiles == 2          # lr edits: none; the weight-decay edit: one


def test_two_groups_with_different_hyperparameters():
    p0, grads = _values(np.float32)

    def run(foreach):
        params = [nn.Parameter(a.copy()) for a in p0]
        opt = optim.Adam([{"params": params[:2], "lr": 0.1, "betas": (0.5, 0.9)},
                          {"params": params[2:], "weight_decay": 0.3}],
                         lr=0.01, foreach=foreach)
        for t in range(STEPS):
            for k, p in enumerate(params):
                p.grad = jg.tensor(grads[t][k])
            opt.step()
        return [np.asarray(p.detach()) for p in params], opt
    fused, opt = run(None)
    single, _ = run(False)
    assert opt.fused_step.compiles == 2              # one per group
    first = _reference("adam", dict(lr=0.1, betas=(0.5, 0.9)), np.float32)
    second = _reference("adam", dict(lr=0.01, weight_decay=0.3), np.float32)
    for a, b, w in zip(fused, single, first[:2] + second[2:]):
        np.testing.assert_allclose(a, b, **TOL[np.float32])
        np.testing.assert_allclose(a, w, rtol=2e-5, atol=1e-6)


def test_parameter_identity_storage_views_and_version():
    p = nn.Parameter(np.arange(6, dtype=np.float32).reshape(2, 3))
    storage, version = np.asarray(p.detach()), p._version[0]
    with jg.no_grad():
        row = p[1]                                       # a view: sees the update
    opt = optim.SGD([p], lr=0.5, momentum=0.9)
    params_before = list(opt.param_groups[0]["params"])
    p.grad = jg.tensor(np.ones((2, 3), np.float32))
    opt.step()
    assert opt.fused_step.compiles == 1
    assert opt.param_groups[0]["params"][0] is p and params_before[0] is p
    assert isinstance(p, nn.Parameter) and p.requires_grad and p.is_leaf
    want = np.arange(6, dtype=np.float32).reshape(2, 3) - 0.5
    np.testing.assert_array_equal(storage, want)         # written in p's own storage
    np.testing.assert_array_equal(np.asarray(row), want[1])
    assert p._version[0] > version
    np.testing.assert_array_equal(np.asarray(p.grad), 1.0)   # the gradient is left as it was
    # the updated parameter keeps working with autograd
    loss = (p * p).sum()
    loss.backward()
    np.testing.assert_allclose(np.asarray(p.grad), 1.0 + 2 * want, rtol=1e-6)


def test_where_the_fused_step_does_not_apply():
    half = nn.Parameter(np.ones(3, np.float16))            # float16: per-tensor path
    full = nn.Parameter(np.ones(3, np.float32))
    opt = optim.SGD([half, full], lr=0.25)
    half.grad, full.grad = jg.tensor(np.ones(3, np.float16)), jg.tensor(np.ones(3, np.float32))
    opt.step()
    np.testing.assert_array_equal(np.asarray(half.detach()), np.float16(0.75))
    np.testing.assert_array_equal(np.asarray(full.detach()), np.float32(0.75))
    assert len(opt.fused_step.cache) == 1            # the float32 parameter only
    with pytest.raises(ValueError, match="foreach=True.*float16"):
        optim.SGD([half], lr=0.1, foreach=True).step()
    with pytest.raises(ValueError, match="foreach must be"):
        optim.Adam([full], foreach="yes")
    no_fused = optim.Adam([full], foreach=False)
    no_fused.step()
    assert no_fused.fused_step.compiles == 0


def test_parameters_sharing_storage_use_the_per_tensor_path():
    """A parameter that is a view of another is updated after it, reading its new value."""
    def run(foreach):
        memory = np.arange(4, dtype=np.float64)
        base = jg.as_tensor(memory).requires_grad_()
        part = jg.as_tensor(memory[:2]).requires_grad_()
        opt = optim.SGD([base, part], lr=0.5, foreach=foreach)
        base.grad = jg.tensor(np.ones(4))
        part.grad = jg.tensor(np.full(2, 2.0))
        opt.step()
        return np.asarray(base.detach()), opt
    fused, opt = run(None)
    single, _ = run(False)
    np.testing.assert_array_equal(single, [-1.5, -0.5, 1.5, 2.5])
    np.testing.assert_array_equal(fused, single)
    assert opt.fused_step.compiles == 0
