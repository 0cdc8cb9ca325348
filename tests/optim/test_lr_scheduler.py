"""jg.optim.lr_scheduler: the learning rates (and cycled momenta) of every scheduler over a few
steps, two parameter groups, against torch 2.13's; the closed form of step(epoch), state_dict,
resuming, errors and the optimizer-order warning."""
import subprocess
import sys
import warnings

import numpy as np
import pytest

import jitgrad as jg
from jitgrad import nn, optim
from jitgrad.optim import lr_scheduler as S

# get_last_lr() after construction and after each step (rows), one column per group; the
# '.momentum' rows are the groups' momentum (SGD) or beta1 (Adam) after each step. Produced by
# running the same schedules with torch 2.13's torch.optim.lr_scheduler and pasted.
WANT = {'LambdaLR': [[0.1, 0.05],
                     [0.09000000000000001, 0.025],
                     [0.08100000000000002, 0.016666666666666666],
                     [0.0729, 0.0125],
                     [0.06561, 0.010000000000000002],
                     [0.05904900000000001, 0.008333333333333333],
                     [0.05314410000000001, 0.007142857142857143]],
        'MultiplicativeLR': [[0.1, 0.05],
                             [0.05, 0.025],
                             [0.045000000000000005, 0.022500000000000003],
                             [0.022500000000000003, 0.011250000000000001],
                             [0.020250000000000004, 0.010125000000000002],
                             [0.010125000000000002, 0.005062500000000001],
                             [0.009112500000000003, 0.004556250000000001]],
        'StepLR': [[0.1, 0.05],
                   [0.1, 0.05],
                   [0.05, 0.025],
                   [0.05, 0.025],
                   [0.025, 0.0125],
                   [0.025, 0.0125],
                   [0.0125, 0.00625]],
        'MultiStepLR': [[0.1, 0.05],
                        [0.05, 0.025],
                        [0.05, 0.025],
                        [0.05, 0.025],
                        [0.0125, 0.00625],
                        [0.0125, 0.00625],
                        [0.0125, 0.00625]],
        'ConstantLR': [[0.05, 0.025],
                       [0.05, 0.025],
                       [0.05, 0.025],
                       [0.1, 0.05],
                       [0.1, 0.05],
                       [0.1, 0.05]],
        'LinearLR': [[0.025, 0.0125],
                     [0.037500000000000006, 0.018750000000000003],
                     [0.05, 0.025],
                     [0.0625, 0.03125],
                     [0.075, 0.0375],
                     [0.075, 0.0375],
                     [0.075, 0.0375]],
        'ExponentialLR': [[0.1, 0.05],
                          [0.08000000000000002, 0.04000000000000001],
                          [0.06400000000000002, 0.03200000000000001],
                          [0.051200000000000016, 0.025600000000000008],
                          [0.04096000000000002, 0.02048000000000001],
                          [0.03276800000000001, 0.016384000000000006]],
        'PolynomialLR': [[0.1, 0.05],
                         [0.05625, 0.028125],
                         [0.024999999999999998, 0.012499999999999999],
                         [0.0062499999999999995, 0.0031249999999999997],
                         [0.0, 0.0],
                         [0.0, 0.0],
                         [0.0, 0.0]],
        'CosineAnnealingLR': [[0.1, 0.05],
                              [0.0775, 0.04],
                              [0.032500000000000015, 0.020000000000000004],
                              [0.01, 0.01],
                              [0.0325, 0.019999999999999997],
                              [0.07750000000000005, 0.040000000000000015],
                              [0.10000000000000007, 0.05000000000000002],
                              [0.07750000000000007, 0.04000000000000002],
                              [0.03250000000000006, 0.020000000000000018]],
        'SequentialLR': [[0.010000000000000002, 0.005000000000000001],
                         [0.05500000000000001, 0.027500000000000004],
                         [0.1, 0.05],
                         [0.1, 0.05],
                         [0.05, 0.025],
                         [0.025, 0.0125],
                         [0.0125, 0.00625]],
        'ChainedScheduler': [[0.05, 0.025],
                             [0.045000000000000005, 0.022500000000000003],
                             [0.08100000000000002, 0.04050000000000001],
                             [0.07290000000000002, 0.03645000000000001],
                             [0.06561000000000002, 0.03280500000000001],
                             [0.05904900000000002, 0.02952450000000001]],
        'ReduceLROnPlateau': [[0.1, 0.05],
                              [0.1, 0.05],
                              [0.1, 0.05],
                              [0.1, 0.05],
                              [0.05, 0.025],
                              [0.05, 0.025],
                              [0.05, 0.025],
                              [0.05, 0.025],
                              [0.05, 0.025]],
        'CyclicLR': [[0.01, 0.01],
                     [0.055, 0.03],
                     [0.09999999999999999, 0.049999999999999996],
                     [0.01, 0.01],
                     [0.03249999999999998, 0.01999999999999999],
                     [0.054999999999999966, 0.029999999999999978],
                     [0.01, 0.01],
                     [0.021250000000000005, 0.015000000000000003]],
        'CyclicLR.momentum': [[0.8500000000000001, 0.8500000000000001],
                              [0.8, 0.8],
                              [0.9, 0.9],
                              [0.875, 0.875],
                              [0.8500000000000001, 0.8500000000000001],
                              [0.9, 0.9],
                              [0.8875000000000001, 0.8875000000000001]],
        'CosineAnnealingWarmRestarts': [[0.1, 0.05],
                                        [0.05500000000000001, 0.03],
                                        [0.1, 0.05],
                                        [0.08681980515339464, 0.044142135623730955],
                                        [0.05500000000000001, 0.03],
                                        [0.023180194846605363, 0.01585786437626905],
                                        [0.1, 0.05],
                                        [0.0965745789630079, 0.048477590650225735]],
        'OneCycleLR': [[0.020000000000000018, 0.020000000000000018],
                       [0.49720771772545586, 0.49720771772545586],
                       [0.4058728269748815, 0.4058728269748815],
                       [0.23131855133348753, 0.23131855133348753],
                       [0.0667387650944153, 0.0667387650944153],
                       [2e-06, 2e-06],
                       [0.06673876509441527, 0.06673876509441527]],
        'OneCycleLR.momentum': [[0.8505584586887436, 0.8505584586887436],
                                [0.8688255099070633, 0.8688255099070633],
                                [0.9037365046793212, 0.9037365046793212],
                                [0.9366525935914912, 0.9366525935914912],
                                [0.95, 0.95],
                                [0.9366525935914912, 0.9366525935914912]]}
METRICS = [3, 2, 2, 2, 2, 2, 1, 1]                  # ReduceLROnPlateau's step(metrics)
MAKERS = {
    "LambdaLR": lambda o: S.LambdaLR(o, [lambda e: 0.9 ** e, lambda e: 1 / (e + 1)]),
    "MultiplicativeLR": lambda o: S.MultiplicativeLR(o, lambda e: 0.5 if e % 2 else 0.9),
    "StepLR": lambda o: S.StepLR(o, step_size=2, gamma=0.5),
    "MultiStepLR": lambda o: S.MultiStepLR(o, milestones=[1, 4, 4], gamma=0.5),
    "ConstantLR": lambda o: S.ConstantLR(o, factor=0.5, total_iters=3),
    "LinearLR": lambda o: S.LinearLR(o, start_factor=0.25, end_factor=0.75, total_iters=4),
    "ExponentialLR": lambda o: S.ExponentialLR(o, gamma=0.8),
    "PolynomialLR": lambda o: S.PolynomialLR(o, total_iters=4, power=2.0),
    "CosineAnnealingLR": lambda o: S.CosineAnnealingLR(o, T_max=3, eta_min=0.01),
    "SequentialLR": lambda o: S.SequentialLR(o, [S.LinearLR(o, 0.1, 1.0, 2),
                                                 S.ExponentialLR(o, 0.5)], milestones=[3]),
    "ChainedScheduler": lambda o: S.ChainedScheduler([S.ConstantLR(o, 0.5, 2),
                                                      S.ExponentialLR(o, 0.9)]),
    "ReduceLROnPlateau": lambda o: S.ReduceLROnPlateau(o, patience=1, cooldown=1, factor=0.5,
                                                       min_lr=[0.02, 0.0]),
    "CyclicLR": lambda o: S.CyclicLR(o, base_lr=0.01, max_lr=[0.1, 0.05], step_size_up=2,
                                     step_size_down=1, mode="triangular2"),
    "CosineAnnealingWarmRestarts": lambda o: S.CosineAnnealingWarmRestarts(o, T_0=2, T_mult=2,
                                                                           eta_min=0.01),
    "OneCycleLR": lambda o: S.OneCycleLR(o, max_lr=0.5, total_steps=6),
}
OPTIMIZERS = {"CyclicLR": lambda g: optim.SGD(g, lr=0.1, momentum=0.9),
              "OneCycleLR": lambda g: optim.Adam(g, lr=0.1)}


def _optimizer(name):
    groups = [{"params": [nn.Parameter(np.ones(1))]},
              {"params": [nn.Parameter(np.ones(1))], "lr": 0.05}]
    return OPTIMIZERS.get(name, lambda g: optim.SGD(g, lr=0.1))(groups)


def _momenta(opt):
    return [g["momentum"] if "momentum" in g else g["betas"][0] for g in opt.param_groups]


@pytest.mark.parametrize("name", list(MAKERS))
def test_learning_rates_match_torch(name):
    opt = _optimizer(name)
    sched = MAKERS[name](opt)
    lrs, momenta = [sched.get_last_lr()], []
    for i in range(len(WANT[name]) - 1):
        opt.step()
        sched.step(METRICS[i]) if name == "ReduceLROnPlateau" else sched.step()
        lrs.append(sched.get_last_lr())
        momenta.append(_momenta(opt))
        assert [g["lr"] for g in opt.param_groups] == lrs[-1]
    np.testing.assert_allclose(lrs, WANT[name], rtol=1e-12, atol=1e-15)
    if name + ".momentum" in WANT:
        np.testing.assert_allclose(momenta, WANT[name + ".momentum"], rtol=1e-12)


def test_the_learning_rate_reaches_the_update():
    p = nn.Parameter(np.array([1.0]))
    opt = optim.SGD([p], lr=1.0)
    sched = S.StepLR(opt, step_size=1, gamma=0.5)
    assert opt.param_groups[0]["initial_lr"] == 1.0 and sched.base_lrs == [1.0]
    for _ in range(3):                        # lr 1, 0.5, 0.25 on gradient 1
        p.grad = jg.tensor(np.array([1.0]))
        opt.step()
        sched.step()
    np.testing.assert_allclose(np.asarray(p.detach()), [1.0 - 1.75])
    assert sched.last_epoch == 3


def test_closed_form_with_epoch_argument():
    """step(epoch) (deprecated, warns) jumps to the closed form from base_lrs."""
    opt = _optimizer("StepLR")
    sched = S.StepLR(opt, step_size=2, gamma=0.5)
    opt.step()
    with pytest.warns(UserWarning, match="epoch parameter"):
        sched.step(5)
    assert sched.get_last_lr() == [0.1 * 0.5 ** 2, 0.05 * 0.5 ** 2] and sched.last_epoch == 5
    warm = S.CosineAnnealingWarmRestarts(_optimizer("x"), T_0=2, T_mult=2)
    warm.step(4.5)               # cycles of 2, 4, 8 epochs: the second, T_i = 4, T_cur = 2.5
    np.testing.assert_allclose(warm.get_last_lr()[0], 0.1 * (1 + np.cos(np.pi * 2.5 / 4)) / 2)
    assert (warm.T_i, warm.T_cur, warm.last_epoch) == (4, 2.5, 4)


def test_state_dict_round_trip_and_resume():
    opt = _optimizer("ExponentialLR")
    sched = S.ExponentialLR(opt, gamma=0.8)
    for _ in range(2):
        opt.step()
        sched.step()
    state = sched.state_dict()
    assert "optimizer" not in state and state["last_epoch"] == 2 and state["gamma"] == 0.8
    opt2 = _optimizer("ExponentialLR")
    opt2.load_state_dict(opt.state_dict())
    resumed = S.ExponentialLR(opt2, gamma=0.5, last_epoch=1)
    resumed.load_state_dict(state)
    assert resumed.gamma == 0.8
    opt2.step()
    resumed.step()
    np.testing.assert_allclose(resumed.get_last_lr(), WANT["ExponentialLR"][3], rtol=1e-12)
    lam = S.LambdaLR(_optimizer("LambdaLR"), lambda e: 1.0)
    assert lam.state_dict()["lr_lambdas"] == [None, None]
    seq = MAKERS["SequentialLR"](_optimizer("SequentialLR"))
    assert len(seq.state_dict()["_schedulers"]) == 2


def test_errors_and_warnings():
    opt = _optimizer("x")
    with pytest.raises(KeyError, match="'initial_lr' is not specified in param_groups"):
        S.StepLR(opt, step_size=1, last_epoch=3)
    with pytest.raises(TypeError, match="is not an Optimizer"):
        S.StepLR(object(), step_size=1)
    with pytest.raises(ValueError, match="expected 2 lr_lambdas, but got 1"):
        S.LambdaLR(opt, [lambda e: 1.0])
    with pytest.raises(ValueError, match="factor expected to be between 0 and 1"):
        S.ConstantLR(opt, factor=2.0)
    with pytest.raises(ValueError, match="does not support `ReduceLROnPlateau`"):
        S.ChainedScheduler([S.ReduceLROnPlateau(opt)])
    with pytest.raises(ValueError, match="number of milestones"):
        S.SequentialLR(opt, [S.StepLR(opt, 1)], milestones=[2])
    with pytest.raises(ValueError, match="total steps is 2"):
        sched = S.OneCycleLR(_optimizer("OneCycleLR"), max_lr=0.1, total_steps=2)
        for _ in range(3):
            sched.optimizer.step()
            sched.step()
    with pytest.raises(ValueError, match="must support momentum or beta1"):
        S.OneCycleLR(optim.Adagrad([nn.Parameter(np.ones(1))]), max_lr=0.1, total_steps=5)
    with pytest.raises(TypeError, match="a schedule function"):
        S.StepLR(optim.SGD([nn.Parameter(np.ones(1))], lr=lambda step: 0.1), step_size=1)
    with pytest.warns(UserWarning, match="before `optimizer.step\\(\\)`"):
        S.StepLR(_optimizer("x"), step_size=1).step()
    sched = S.StepLR(_optimizer("x"), step_size=1)
    with pytest.warns(UserWarning, match="use `get_last_lr\\(\\)`"):
        sched.get_lr()
    sched.optimizer.step()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sched.step()


def test_scheduler_module_loads_lazily():
    code = ("import sys, jitgrad; assert 'jitgrad.optim.lr_scheduler' not in sys.modules; "
            "from jitgrad.optim import lr_scheduler; import jitgrad.optim.swa_utils; "
            "assert jitgrad.optim.lr_scheduler.StepLR is lr_scheduler.StepLR")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_lr_scheduler_alias():
    assert issubclass(S._LRScheduler, S.LRScheduler)


@pytest.mark.parametrize("make", [lambda g, fe: optim.SGD(g, lr=0.1, momentum=0.9, foreach=fe),
                                  lambda g, fe: optim.Adam(g, lr=0.1, foreach=fe),
                                  lambda g, fe: optim.RMSprop(g, momentum=0.5, foreach=fe)],
                         ids=["SGD", "Adam", "RMSprop"])
def test_cycled_momentum_does_not_recompile_the_fused_step(make):
    """OneCycleLR changes momentum (beta1) every step: a runtime scalar of the fused step, so
    it compiles once, and gives the per-tensor path's values."""
    def run(foreach):
        params = [nn.Parameter(np.array([1.0, -2.0])), nn.Parameter(np.array([[0.5]]))]
        opt = make(params, foreach)
        sched = S.OneCycleLR(opt, max_lr=0.2, total_steps=5)
        for t in range(4):
            for p in params:
                p.grad = jg.tensor(np.full(p.shape, 0.5 + t))
            opt.step()
            sched.step()
        return [np.asarray(p.detach()) for p in params], opt
    fused, opt = run(None)
    single, _ = run(False)
    assert opt.fused_step.compiles == 1
    for a, b in zip(fused, single):
        np.testing.assert_allclose(a, b, rtol=1e-13)
