"""jg.optim.swa_utils: AveragedModel (SWA mean, EMA), update_bn and SWALR against NumPy."""
import numpy as np
import pytest

import jitgrad as jg
from jitgrad import nn, optim
from jitgrad.optim import swa_utils


def _move(model, k):
    """Changes the model's weights; returns them."""
    with jg.no_grad():
        for p in model.parameters():
            p.copy_(p * 1.5 + 0.1 * (k + 1))
    return [np.asarray(p.detach()).copy() for p in model.parameters()]


@pytest.mark.parametrize("kind", ["swa", "ema", "ema-per-tensor"])
def test_averaged_model(kind):
    model = nn.Sequential(nn.Linear(2, 3), nn.Tanh(), nn.Linear(3, 1))
    fns = {"swa": {}, "ema": {"multi_avg_fn": swa_utils.get_ema_multi_avg_fn(0.9)},
           "ema-per-tensor": {"avg_fn": swa_utils.get_ema_avg_fn(0.9)}}
    avg = swa_utils.AveragedModel(model, **fns[kind])
    snaps = []
    for k in range(3):
        snaps.append(_move(model, k))
        avg.update_parameters(model)
    assert int(avg.n_averaged) == 3
    for k, p in enumerate(avg.module.parameters()):
        seq = [s[k] for s in snaps]
        if kind == "swa":
            want = np.mean(seq, axis=0)
        else:
            want = seq[0]
            for s in seq[1:]:
                want = 0.9 * want + 0.1 * s
        np.testing.assert_allclose(np.asarray(p.detach()), want, rtol=1e-5)
    x = jg.tensor(np.ones((2, 2), np.float32))
    np.testing.assert_array_equal(np.asarray(avg(x).detach()), np.asarray(avg.module(x).detach()))


def test_update_bn_recomputes_cumulative_statistics():
    model = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2, momentum=0.3))
    model.eval()
    rng = np.random.default_rng(0)
    batches = [rng.standard_normal((4, 2)).astype(np.float32) for _ in range(3)]
    swa_utils.update_bn([(jg.tensor(b), 0) for b in batches], model)
    w, b = np.asarray(model[0].weight.detach()), np.asarray(model[0].bias.detach())
    hidden = [x @ w.T + b for x in batches]
    bn = model[1]
    np.testing.assert_allclose(np.asarray(bn.running_mean),
                               np.mean([h.mean(0) for h in hidden], axis=0), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(bn.running_var),
                               np.mean([h.var(0, ddof=1) for h in hidden], axis=0), rtol=1e-5)
    assert bn.momentum == 0.3 and not model.training


def test_swalr_learning_rates():
    """torch 2.13's SWALR(lr 0.5 -> swa_lr 0.05) sequences, produced with torch and pasted."""
    want = {("cos", 3): [0.5, 0.3875, 0.16250000000000006, 0.05, 0.05, 0.05],
            ("linear", 2): [0.5, 0.275, 0.05, 0.05, 0.05, 0.05],
            ("cos", 0): [0.05] * 6}
    for (strategy, epochs), lrs in want.items():
        opt = optim.SGD([nn.Parameter(np.ones(1))], lr=0.5)
        sched = swa_utils.SWALR(opt, swa_lr=0.05, anneal_epochs=epochs,
                                anneal_strategy=strategy)
        got = [sched.get_last_lr()[0]]
        for _ in range(5):
            opt.step()
            sched.step()
            got.append(sched.get_last_lr()[0])
        np.testing.assert_allclose(got, lrs, rtol=1e-12)
    with pytest.raises(ValueError, match="anneal_strategy must be one of 'cos' or 'linear'"):
        swa_utils.SWALR(opt, 0.1, anneal_strategy="step")
    with pytest.raises(ValueError, match="Invalid decay value 2"):
        swa_utils.get_ema_avg_fn(2)
    with pytest.raises(ValueError, match="only one of avg_fn and multi_avg_fn"):
        swa_utils.AveragedModel(nn.Linear(1, 1), avg_fn=swa_utils.get_swa_avg_fn(),
                                multi_avg_fn=swa_utils.get_swa_multi_avg_fn())
