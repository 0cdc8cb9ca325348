"""jg.optim against torch.optim itself (skipped where torch is not installed, as in CI): every
optimizer over 10 steps with several options, fused and per-tensor; LBFGS with and without the
line search; a torch state_dict loaded mid-run."""
import numpy as np
import pytest

import jitgrad as jg
from jitgrad import nn, optim

torch = pytest.importorskip("torch")

SHAPES = [(3, 2), (4,)]
STEPS = 10
CASES = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.9, dampening=0.3, weight_decay=0.05, maximize=True)),
    ("SGD", dict(lr=0.05, momentum=0.8, nesterov=True, weight_decay=0.1)),
    ("Adam", dict(lr=0.05)),
    ("Adam", dict(lr=0.05, amsgrad=True, weight_decay=0.1, maximize=True)),
    ("Adam", dict(lr=0.05, weight_decay=0.1, decoupled_weight_decay=True)),
    ("AdamW", dict(lr=0.05, amsgrad=True)),
    ("RMSprop", dict()),
    ("RMSprop", dict(lr=0.01, alpha=0.9, momentum=0.5, centered=True, weight_decay=0.1)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.05, weight_decay=0.1, initial_accumulator_value=0.2)),
    ("Adadelta", dict()),
    ("Adadelta", dict(lr=0.5, rho=0.8, weight_decay=0.1, maximize=True)),
    ("Adamax", dict(lr=0.05, weight_decay=0.1)),
    ("NAdam", dict(lr=0.05)),
    ("NAdam", dict(lr=0.05, weight_decay=0.1, momentum_decay=0.01, decoupled_weight_decay=True)),
    ("RAdam", dict(lr=0.05)),
    ("RAdam", dict(lr=0.05, weight_decay=0.1, decoupled_weight_decay=True, betas=(0.8, 0.9))),
    ("ASGD", dict(lr=0.05, t0=3, lambd=0.01, weight_decay=0.1)),
    ("Rprop", dict()),
    ("Rprop", dict(lr=0.05, etas=(0.4, 1.5), step_sizes=(1e-3, 0.1), maximize=True)),
    ("Adafactor", dict()),
    ("Adafactor", dict(lr=0.05, beta2_decay=-0.5, eps=(1e-20, 1e-2), d=1.5, weight_decay=0.1,
                       maximize=True)),
    ("Muon", dict(lr=0.02)),
    ("Muon", dict(lr=0.02, nesterov=False, adjust_lr_fn="match_rms_adamw", weight_decay=0.05,
                  ns_steps=3, momentum=0.9)),
]


MATRICES = [(3, 2), (2, 4)]        # Muon takes 2-D parameters only


def _grads(name="", seed=0):
    rng = np.random.default_rng(seed)
    return [[rng.standard_normal(s) for s in (MATRICES if name == "Muon" else SHAPES)]
            for _ in range(STEPS)]


def _p0(name=""):
    rng = np.random.default_rng(1)
    return [rng.standard_normal(s) for s in (MATRICES if name == "Muon" else SHAPES)]


def _torch_run(name, hyper, grads, p0, dtype):
    params = [torch.nn.Parameter(torch.tensor(a, dtype=dtype)) for a in p0]
    opt = getattr(torch.optim, name)(params, **hyper)
    out = []
    for t in range(STEPS):
        for p, g in zip(params, grads[t]):
            p.grad = torch.tensor(g, dtype=dtype) * (1 + p.detach())   # depends on p: Rprop
        opt.step()
        out.append([p.detach().numpy().copy() for p in params])
    return out, opt


def _jg_run(name, hyper, grads, p0, dtype, foreach):
    params = [nn.Parameter(a.astype(dtype)) for a in p0]
    opt = getattr(optim, name)([{"params": params, "foreach": foreach}], **hyper)
    out = []
    for t in range(STEPS):
        for p, g in zip(params, grads[t]):
            p.grad = jg.tensor(g.astype(dtype) * (1 + np.asarray(p.detach())))
        opt.step()
        out.append([np.asarray(p.detach()).copy() for p in params])
    return out, opt


@pytest.mark.parametrize("foreach", [None, False], ids=["fused", "per-tensor"])
@pytest.mark.parametrize("name,hyper", CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)])
def test_matches_torch_over_ten_steps(name, hyper, foreach):
    grads, p0 = _grads(name), _p0(name)
    want, topt = _torch_run(name, hyper, grads, p0, torch.float64)
    got, opt = _jg_run(name, hyper, grads, p0, np.float64, foreach)
    for t, (a, b) in enumerate(zip(got, want)):
        for x, y in zip(a, b):
            np.testing.assert_allclose(x, y, rtol=1e-9, atol=1e-12, err_msg=f"step {t + 1}")
    ours, theirs = opt.state_dict(), topt.state_dict()
    assert [sorted(set(g) - {"foreach"}) for g in ours["param_groups"]] == \
        [sorted(set(g) - {"foreach"}) for g in theirs["param_groups"]]
    assert sorted(ours["state"]) == sorted(theirs["state"])
    for k, st in theirs["state"].items():
        assert list(ours["state"][k]) == list(st)
        for key, v in st.items():
            np.testing.assert_allclose(np.asarray(ours["state"][k][key]), v.numpy(), rtol=1e-6)


@pytest.mark.parametrize("name,hyper", CASES[1::3], ids=[n for n, _ in CASES[1::3]])
def test_torch_state_dict_loads_mid_run(name, hyper):
    """5 steps in torch, its state_dict (as NumPy) loaded into jitgrad, 5 more steps in each."""
    grads, p0 = _grads(name), _p0(name)
    want, _ = _torch_run(name, hyper, grads, p0, torch.float64)
    tparams = [torch.nn.Parameter(torch.tensor(a)) for a in p0]
    topt = getattr(torch.optim, name)(tparams, **hyper)
    for t in range(5):
        for p, g in zip(tparams, grads[t]):
            p.grad = torch.tensor(g) * (1 + p.detach())
        topt.step()
    sd = topt.state_dict()
    sd = {"state": {k: {n: v.numpy() if isinstance(v, torch.Tensor) else v
                        for n, v in st.items()} for k, st in sd["state"].items()},
          "param_groups": sd["param_groups"]}
    params = [nn.Parameter(p.detach().numpy().copy()) for p in tparams]
    opt = getattr(optim, name)(params, lr=123.0)
    opt.load_state_dict(sd)
    assert opt.param_groups[0]["lr"] == sd["param_groups"][0]["lr"]
    for t in range(5, STEPS):
        for p, g in zip(params, grads[t]):
            p.grad = jg.tensor(g * (1 + np.asarray(p.detach())))
        opt.step()
    for x, y in zip(params, want[-1]):
        np.testing.assert_allclose(np.asarray(x.detach()), y, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
def test_lbfgs_matches_torch(line_search_fn):
    a = np.array([[3.0, 0.5], [0.5, 1.0]])
    b = np.array([1.0, -2.0])

    def run(lib, x):
        opt = lib.optim.LBFGS([x], lr=0.8, max_iter=7, history_size=3,
                              line_search_fn=line_search_fn)
        mat, vec = lib.tensor(a), lib.tensor(b)

        def closure():
            opt.zero_grad()
            loss = ((x @ mat) * x).sum() + (vec * x).sum() + (x ** 4).sum() * 0.1
            loss.backward()
            return loss
        losses = [float(opt.step(closure)) for _ in range(3)]
        return losses, np.asarray(x.detach()), opt.state[x]["func_evals"]
    want = run(torch, torch.tensor([1.0, 1.0], dtype=torch.float64, requires_grad=True))
    got = run(jg, nn.Parameter(np.array([1.0, 1.0])))
    np.testing.assert_allclose(got[0], want[0], rtol=1e-10)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-9, atol=1e-12)
    assert got[2] == want[2]


# schedulers: (kwargs builder over the scheduler module M and optimizer o, optimizer, steps)
SCHEDULERS = {
    "LambdaLR": lambda M, o: M.LambdaLR(o, [lambda e: 0.9 ** e, lambda e: 1 / (e + 1)]),
    "MultiplicativeLR": lambda M, o: M.MultiplicativeLR(o, lambda e: 0.95),
    "StepLR": lambda M, o: M.StepLR(o, 3, 0.5),
    "MultiStepLR": lambda M, o: M.MultiStepLR(o, [2, 5, 5, 9], 0.5),
    "ConstantLR": lambda M, o: M.ConstantLR(o, 0.5, 4),
    "LinearLR": lambda M, o: M.LinearLR(o, 0.25, 0.9, 6),
    "ExponentialLR": lambda M, o: M.ExponentialLR(o, 0.8),
    "PolynomialLR": lambda M, o: M.PolynomialLR(o, 7, 2.0),
    "CosineAnnealingLR": lambda M, o: M.CosineAnnealingLR(o, 4, 0.01),
    "SequentialLR": lambda M, o: M.SequentialLR(
        o, [M.LinearLR(o, 0.1, 1.0, 3), M.ExponentialLR(o, 0.9)], [3]),
    "ChainedScheduler": lambda M, o: M.ChainedScheduler([M.ConstantLR(o, 0.5, 4),
                                                         M.ExponentialLR(o, 0.9)]),
    "ReduceLROnPlateau": lambda M, o: M.ReduceLROnPlateau(o, "max", patience=0, threshold=0.1,
                                                          threshold_mode="abs",
                                                          min_lr=[0.02, 0.0]),
    "CyclicLR": lambda M, o: M.CyclicLR(o, 0.01, 0.1, step_size_up=3, step_size_down=2,
                                        mode="exp_range", gamma=0.9),
    "CosineAnnealingWarmRestarts": lambda M, o: M.CosineAnnealingWarmRestarts(o, 3, 2, 0.001),
    "OneCycleLR": lambda M, o: M.OneCycleLR(o, [0.5, 0.2], epochs=3, steps_per_epoch=4,
                                            three_phase=True, anneal_strategy="linear"),
}


@pytest.mark.parametrize("opt_name", ["SGD", "Adam"])
@pytest.mark.parametrize("name", list(SCHEDULERS))
def test_scheduler_matches_torch(name, opt_name):
    import torch.optim.lr_scheduler as torch_sched
    from jitgrad.optim import lr_scheduler as jg_sched
    hyper = dict(lr=0.1, momentum=0.9) if opt_name == "SGD" else dict(lr=0.1)
    metrics = [1, 2, 2.05, 2.05, 3, 3, 3, 3, 3, 3, 3, 3]

    def groups(make):
        return [{"params": [make()]}, {"params": [make()], "lr": 0.05}]
    topt = getattr(torch.optim, opt_name)(groups(lambda: torch.nn.Parameter(torch.ones(1))),
                                          **hyper)
    jopt = getattr(optim, opt_name)(groups(lambda: nn.Parameter(np.ones(1))), **hyper)
    ts, js = SCHEDULERS[name](torch_sched, topt), SCHEDULERS[name](jg_sched, jopt)
    for i in range(12):
        topt.step()
        jopt.step()
        (ts.step(metrics[i]), js.step(metrics[i])) if name == "ReduceLROnPlateau" else \
            (ts.step(), js.step())
        np.testing.assert_allclose(js.get_last_lr(), ts.get_last_lr(), rtol=1e-12)
        for a, b in zip(jopt.param_groups, topt.param_groups):
            key = "momentum" if opt_name == "SGD" else "betas"
            np.testing.assert_allclose(np.asarray(a[key], float), np.asarray(b[key], float))
    assert getattr(js, "last_epoch", None) == getattr(ts, "last_epoch", None)
