"""torch.optim's optimizers in jg.optim against NumPy references written from torch's documented
algorithms (float64), over a few steps on a small quadratic, fused and per-tensor, eager and
with the fused step on the reference interpreter; param groups, state_dict, closures, errors."""
import copy
import math

import numpy as np
import pytest

import jitgrad as jg
from jitgrad import nn, optim

SHAPES = [(3,), (2, 2)]
STEPS = 6
A = [np.array([1.0, 2.0, 0.5]), np.array([[3.0, 0.2], [1.0, 4.0]])]
B = [np.array([0.3, -1.0, 2.0]), np.array([[-0.5, 1.5], [0.7, 0.1]])]
P0 = [np.array([1.0, -2.0, 0.5]), np.array([[0.4, -0.3], [2.0, 1.0]])]


def _grad(k, p):
    """The gradient of sum(a * p**2 / 2 + b * p)."""
    return A[k] * p + B[k]


# --- torch's algorithms (torch.optim docs, single tensor), one state dict per parameter ---------
def ref_sgd(h, p, g, st, t):
    g = -g if h.get("maximize") else g
    g = g + h.get("weight_decay", 0) * p
    mom = h.get("momentum", 0)
    if mom:
        st["b"] = g if t == 1 else mom * st["b"] + (1 - h.get("dampening", 0)) * g
        g = g + mom * st["b"] if h.get("nesterov") else st["b"]
    return p - h["lr"] * g


def _adam_grad(h, p, g):
    g = -g if h.get("maximize") else g
    if h.get("decoupled"):
        return p * (1 - h["lr"] * h.get("weight_decay", 0)), g
    return p, g + h.get("weight_decay", 0) * p


def ref_adam(h, p, g, st, t):
    b1, b2 = h.get("betas", (0.9, 0.999))
    p, g = _adam_grad(h, p, g)
    st["m"] = b1 * st.get("m", 0) + (1 - b1) * g
    st["v"] = b2 * st.get("v", 0) + (1 - b2) * g * g
    v = st["v"]
    if h.get("amsgrad"):
        st["vmax"] = v = np.maximum(st.get("vmax", 0), v)
    m_hat, v_hat = st["m"] / (1 - b1 ** t), v / (1 - b2 ** t)
    return p - h["lr"] * m_hat / (np.sqrt(v_hat) + h.get("eps", 1e-8))


def ref_adamax(h, p, g, st, t):
    b1, b2 = h.get("betas", (0.9, 0.999))
    g = g + h.get("weight_decay", 0) * p
    st["m"] = b1 * st.get("m", 0) + (1 - b1) * g
    st["u"] = np.maximum(b2 * st.get("u", 0), np.abs(g) + h.get("eps", 1e-8))
    return p - h["lr"] / (1 - b1 ** t) * st["m"] / st["u"]


def ref_nadam(h, p, g, st, t):
    b1, b2 = h.get("betas", (0.9, 0.999))
    psi = h.get("momentum_decay", 4e-3)
    p, g = _adam_grad(h, p, g)
    mu = b1 * (1 - 0.5 * 0.96 ** (t * psi))
    mu_next = b1 * (1 - 0.5 * 0.96 ** ((t + 1) * psi))
    st["prod"] = st.get("prod", 1.0) * mu
    st["m"] = b1 * st.get("m", 0) + (1 - b1) * g
    st["v"] = b2 * st.get("v", 0) + (1 - b2) * g * g
    m_hat = mu_next * st["m"] / (1 - st["prod"] * mu_next) + (1 - mu) * g / (1 - st["prod"])
    return p - h["lr"] * m_hat / (np.sqrt(st["v"] / (1 - b2 ** t)) + h.get("eps", 1e-8))


def ref_radam(h, p, g, st, t):
    b1, b2 = h.get("betas", (0.9, 0.999))
    p, g = _adam_grad(h, p, g)
    st["m"] = b1 * st.get("m", 0) + (1 - b1) * g
    st["v"] = b2 * st.get("v", 0) + (1 - b2) * g * g
    m_hat = st["m"] / (1 - b1 ** t)
    rho_inf = 2 / (1 - b2) - 1
    rho = rho_inf - 2 * t * b2 ** t / (1 - b2 ** t)
    if rho <= 5:
        return p - h["lr"] * m_hat
    adaptive = math.sqrt(1 - b2 ** t) / (np.sqrt(st["v"]) + h.get("eps", 1e-8))
    r = math.sqrt((rho - 4) * (rho - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho))
    return p - h["lr"] * m_hat * adaptive * r


def ref_rmsprop(h, p, g, st, t):
    alpha, eps, mom = h.get("alpha", 0.99), h.get("eps", 1e-8), h.get("momentum", 0)
    g = g + h.get("weight_decay", 0) * p
    st["v"] = alpha * st.get("v", 0) + (1 - alpha) * g * g
    v = st["v"]
    if h.get("centered"):
        st["ga"] = alpha * st.get("ga", 0) + (1 - alpha) * g
        v = v - st["ga"] ** 2
    if mom:
        st["b"] = mom * st.get("b", 0) + g / (np.sqrt(v) + eps)
        return p - h["lr"] * st["b"]
    return p - h["lr"] * g / (np.sqrt(v) + eps)


def ref_adagrad(h, p, g, st, t):
    g = g + h.get("weight_decay", 0) * p
    lr = h["lr"] / (1 + (t - 1) * h.get("lr_decay", 0))
    st["s"] = st.get("s", h.get("initial_accumulator_value", 0)) + g * g
    return p - lr * g / (np.sqrt(st["s"]) + h.get("eps", 1e-10))


def ref_adadelta(h, p, g, st, t):
    rho, eps = h.get("rho", 0.9), h.get("eps", 1e-6)
    g = g + h.get("weight_decay", 0) * p
    st["v"] = rho * st.get("v", 0) + (1 - rho) * g * g
    dx = np.sqrt(st.get("u", 0) + eps) / np.sqrt(st["v"] + eps) * g
    st["u"] = rho * st.get("u", 0) + (1 - rho) * dx * dx
    return p - h.get("lr", 1.0) * dx


def ref_asgd(h, p, g, st, t):
    lr, lambd, alpha, t0 = h["lr"], h.get("lambd", 1e-4), h.get("alpha", 0.75), h.get("t0", 1e6)
    eta, mu = st.get("eta", lr), st.get("mu", 1.0)
    g = g + h.get("weight_decay", 0) * p
    p = p * (1 - lambd * eta) - eta * g
    st["ax"] = p if mu == 1 else st["ax"] + mu * (p - st["ax"])
    st["eta"] = lr / (1 + lambd * lr * t) ** alpha
    st["mu"] = 1 / max(1, t - t0)
    return p


def ref_rprop(h, p, g, st, t):
    (minus, plus), (lo, hi) = h.get("etas", (0.5, 1.2)), h.get("step_sizes", (1e-6, 50))
    prev, size = st.get("prev", np.zeros_like(p)), st.get("size", np.full_like(p, h["lr"]))
    sign = np.sign(g * prev)
    size = np.clip(size * np.where(sign > 0, plus, np.where(sign < 0, minus, 1.0)), lo, hi)
    g = np.where(sign < 0, 0.0, g)
    st["prev"], st["size"] = g, size
    return p - np.sign(g) * size


CASES = [
    ("SGD", ref_sgd, dict(lr=0.1)),
    ("SGD", ref_sgd, dict(lr=0.1, momentum=0.9, dampening=0.5, weight_decay=0.1)),
    ("SGD", ref_sgd, dict(lr=0.05, momentum=0.9, nesterov=True, maximize=True)),
    ("Adam", ref_adam, dict(lr=0.1)),
    ("Adam", ref_adam, dict(lr=0.1, amsgrad=True, weight_decay=0.2, maximize=True)),
    ("Adam", ref_adam, dict(lr=0.1, weight_decay=0.2, decoupled_weight_decay=True)),
    ("AdamW", ref_adam, dict(lr=0.1, amsgrad=True)),
    ("Adamax", ref_adamax, dict(lr=0.1, weight_decay=0.1)),
    ("NAdam", ref_nadam, dict(lr=0.1)),
    ("NAdam", ref_nadam, dict(lr=0.1, weight_decay=0.1, decoupled_weight_decay=True,
                              momentum_decay=0.01)),
    ("RAdam", ref_radam, dict(lr=0.1)),
    ("RAdam", ref_radam, dict(lr=0.1, betas=(0.5, 0.6), weight_decay=0.1)),
    ("RMSprop", ref_rmsprop, dict(lr=0.01)),
    ("RMSprop", ref_rmsprop, dict(lr=0.01, momentum=0.5, centered=True, weight_decay=0.1)),
    ("Adagrad", ref_adagrad, dict(lr=0.1, lr_decay=0.1, initial_accumulator_value=0.5)),
    ("Adadelta", ref_adadelta, dict()),
    ("Adadelta", ref_adadelta, dict(lr=0.5, rho=0.5, weight_decay=0.1)),
    ("ASGD", ref_asgd, dict(lr=0.05, lambd=0.1, t0=2, weight_decay=0.1)),
    ("Rprop", ref_rprop, dict(lr=0.05)),
    ("Rprop", ref_rprop, dict(lr=0.05, etas=(0.3, 2.0), step_sizes=(1e-3, 0.15))),
]
IDS = [f"{name}-{i}" for i, (name, _, _) in enumerate(CASES)]


def _reference(name, ref, hyper):
    h = {**hyper, "decoupled": name == "AdamW" or hyper.get("decoupled_weight_decay")}
    if name == "AdamW":
        h.setdefault("weight_decay", 1e-2)
    out, params, states = [], [p.copy() for p in P0], [{} for _ in P0]
    for t in range(1, STEPS + 1):
        params = [ref(h, p, _grad(k, p), st, t) for k, (p, st) in enumerate(zip(params, states))]
        out.append(params)
    return out


def _train(name, hyper, foreach, steps=STEPS):
    params = [nn.Parameter(p.copy()) for p in P0]
    opt = getattr(optim, name)(params, foreach=foreach, **hyper)
    a, b = [jg.tensor(x) for x in A], [jg.tensor(x) for x in B]
    out = []
    for _ in range(steps):
        opt.zero_grad()
        loss = sum(((x * p * p) / 2 + y * p).sum() for x, y, p in zip(a, b, params))
        loss.backward()
        opt.step()
        out.append([np.asarray(p.detach()).copy() for p in params])
    return out, opt, params


@pytest.mark.parametrize("foreach", [None, False], ids=["fused", "per-tensor"])
@pytest.mark.parametrize("name,ref,hyper", CASES, ids=IDS)
def test_trajectory_matches_torch_algorithm(name, ref, hyper, foreach):
    got, opt, _ = _train(name, hyper, foreach)
    assert (opt.fused_step.compiles >= 1) == (foreach is None)
    for t, (ours, want) in enumerate(zip(got, _reference(name, ref, hyper)), 1):
        for x, y in zip(ours, want):
            np.testing.assert_allclose(x, y, rtol=1e-6, atol=1e-9, err_msg=f"step {t}")


@pytest.mark.interpreter
@pytest.mark.parametrize("name,ref,hyper", [CASES[i] for i in (1, 4, 9, 11, 13, 17, 19)],
                         ids=[IDS[i] for i in (1, 4, 9, 11, 13, 17, 19)])
def test_fused_step_on_the_interpreter(name, ref, hyper):
    got, opt, _ = _train(name, hyper, None, steps=3)
    assert opt.fused_step.compiles >= 1
    for ours, want in zip(got, _reference(name, ref, hyper)):
        for x, y in zip(ours, want):
            np.testing.assert_allclose(x, y, rtol=1e-6, atol=1e-9)


def test_float32_parameters_keep_their_dtype():
    for name, _, hyper in CASES:
        p = nn.Parameter(np.ones(3, np.float32))
        opt = getattr(optim, name)([p], **hyper)
        for _ in range(2):
            p.grad = jg.tensor(np.array([0.5, -1.0, 2.0], np.float32))
            opt.step()
        assert np.asarray(p.detach()).dtype == np.float32, name
        assert all(v.dtype == np.float32 for v in opt.state[p].values()
                   if isinstance(v, jg.Tensor)), name


def test_param_groups_defaults_and_lr_edits():
    a, b = nn.Parameter(np.ones(2)), nn.Parameter(np.ones(2))
    opt = optim.SGD([{"params": [a]}, {"params": b, "lr": 1.0, "momentum": 0.5}], lr=0.1)
    assert [g["lr"] for g in opt.param_groups] == [0.1, 1.0]
    assert opt.param_groups[0]["momentum"] == 0 and opt.param_groups[1]["momentum"] == 0.5
    assert set(opt.param_groups[0]) == {"params", "lr", "momentum", "dampening", "weight_decay",
                                        "nesterov", "maximize", "foreach", "differentiable",
                                        "fused"}
    a.grad = b.grad = jg.tensor(np.ones(2))
    opt.step()
    np.testing.assert_allclose(np.asarray(a.detach()), 0.9)
    np.testing.assert_allclose(np.asarray(b.detach()), 0.0)
    opt.param_groups[0]["lr"] = 0.5            # takes effect at the next step
    opt.step()
    np.testing.assert_allclose(np.asarray(a.detach()), 0.4)
    c = nn.Parameter(np.ones(1))
    opt.add_param_group({"params": [c], "lr": 2.0})
    assert opt.param_groups[2]["momentum"] == 0 and opt.param_groups[2]["lr"] == 2.0
    with pytest.raises(ValueError, match="more than one parameter group"):
        opt.add_param_group({"params": [a]})


def test_named_parameters_and_grad_none_skipped():
    model = nn.Linear(2, 1)
    opt = optim.Adam(model.named_parameters(), lr=0.1)
    assert opt.param_groups[0]["param_names"] == ["weight", "bias"]
    model.weight.grad = jg.tensor(np.ones((1, 2), np.float32))
    bias = np.asarray(model.bias.detach()).copy()
    opt.step()
    np.testing.assert_array_equal(np.asarray(model.bias.detach()), bias)
    assert model.bias not in opt.state and opt.state[model.weight]["step"] == 1


def test_zero_grad_and_closure():
    p = nn.Parameter(np.array([1.0, 2.0]))
    opt = optim.SGD([p], lr=0.1)

    def closure():
        opt.zero_grad()
        loss = (p * p).sum()
        loss.backward()
        return loss
    loss = opt.step(closure)
    assert float(loss) == 5.0
    np.testing.assert_allclose(np.asarray(p.detach()), [0.8, 1.6])
    opt.zero_grad(set_to_none=False)
    np.testing.assert_array_equal(np.asarray(p.grad), [0.0, 0.0])
    opt.zero_grad()
    assert p.grad is None


def test_state_dict_format_and_round_trip():
    """Training 3 steps, saving, loading into a fresh optimizer and 3 more steps gives the
    uninterrupted trajectory; the format is torch's."""
    hyper = dict(lr=0.1, amsgrad=True, weight_decay=0.1)
    whole, _, _ = _train("Adam", hyper, None)
    first, opt, params = _train("Adam", hyper, None, steps=3)
    sd = copy.deepcopy(opt.state_dict())
    assert sorted(sd["state"]) == [0, 1]
    assert list(sd["state"][0]) == ["step", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"]
    assert float(sd["state"][0]["step"]) == 3.0
    assert sd["param_groups"][0]["params"] == [0, 1] and sd["param_groups"][0]["amsgrad"]
    fresh = [nn.Parameter(np.asarray(p.detach()).copy()) for p in params]
    opt2 = optim.Adam(fresh, lr=5.0)
    opt2.load_state_dict({"state": {k: {n: np.asarray(v) for n, v in st.items()}
                                    for k, st in sd["state"].items()},
                          "param_groups": sd["param_groups"]})
    assert opt2.param_groups[0]["lr"] == 0.1 and opt2.param_groups[0]["params"][0] is fresh[0]
    assert opt2.state[fresh[0]]["step"] == 3
    a, b = [jg.tensor(x) for x in A], [jg.tensor(x) for x in B]
    for _ in range(3):
        opt2.zero_grad()
        sum(((x * p * p) / 2 + y * p).sum() for x, y, p in zip(a, b, fresh)).backward()
        opt2.step()
    for x, y in zip(fresh, whole[-1]):
        np.testing.assert_allclose(np.asarray(x.detach()), y, rtol=1e-12)


def test_torch_style_state_dict_loads():
    """A state dict as torch's SGD writes it (no 'step'; momentum_buffer a NumPy array) and as
    its NAdam writes it (float32 scalar step and mu_product)."""
    p = nn.Parameter(np.array([1.0, 2.0]))
    opt = optim.SGD([p], lr=0.1, momentum=0.9)
    opt.load_state_dict({"state": {0: {"momentum_buffer": np.array([1.0, -1.0])}},
                         "param_groups": [{"lr": 0.5, "momentum": 0.9, "dampening": 0.5,
                                           "weight_decay": 0, "nesterov": False,
                                           "maximize": False, "foreach": None,
                                           "differentiable": False, "fused": None,
                                           "params": [0]}]})
    p.grad = jg.tensor(np.array([2.0, 2.0]))
    opt.step()          # the buffer exists: momentum * buf + (1 - dampening) * g
    np.testing.assert_allclose(np.asarray(p.detach()), [1.0 - 0.5 * 1.9, 2.0 - 0.5 * 0.1])
    q = nn.Parameter(np.ones(2, np.float32))
    nadam = optim.NAdam([q])
    nadam.load_state_dict({"state": {0: {"step": np.float32(4), "mu_product": np.float32(0.5),
                                         "exp_avg": np.zeros(2), "exp_avg_sq": np.ones(2)}},
                           "param_groups": [dict(nadam.state_dict()["param_groups"][0])]})
    st = nadam.state[q]
    assert st["step"] == 4 and st["mu_product"] == 0.5 and st["exp_avg"].dtype == np.float32


def test_custom_optimizer_subclass():
    class PlainSGD(optim.Optimizer):
        def __init__(self, params, lr=0.1):
            super().__init__(params, dict(lr=lr))

        def step(self, closure=None):
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is not None:
                        with jg.no_grad():
                            p.copy_(p - group["lr"] * p.grad)
                        self.state[p]["n"] = self.state[p].get("n", 0) + 1
    p = nn.Parameter(np.array([1.0]))
    opt = PlainSGD([p], lr=0.25)
    p.grad = jg.tensor(np.array([2.0]))
    opt.step()
    np.testing.assert_allclose(np.asarray(p.detach()), [0.5])
    assert opt.state_dict() == {"state": {0: {"n": 1}},
                                "param_groups": [{"lr": 0.25, "params": [0]}]}
    assert opt._opt_called


# LBFGS on f(x) = x.A.x + b.x + 0.1 sum(x**4) from [1, 1]: the three losses step() returns and
# the final point, as torch 2.13's LBFGS(lr=0.8, max_iter=7, history_size=3) gives them in
# float64 (produced with torch here and pasted)
LBFGS_WANT = {
    None: ([4.2, -1.2329068774299514, -1.2329071445890099],
           [-0.3271694679917079, 0.9770459101325508], 12),
    "strong_wolfe": ([4.2, -1.2329068774299514, -1.2329071445890099],
                     [-0.3271694679917079, 0.9770459101325508], 13),
}


@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
def test_lbfgs_matches_torch_constants(line_search_fn):
    a, b = np.array([[3.0, 0.5], [0.5, 1.0]]), np.array([1.0, -2.0])
    x = nn.Parameter(np.array([1.0, 1.0]))
    opt = optim.LBFGS([x], lr=0.8, max_iter=7, history_size=3, line_search_fn=line_search_fn)
    mat, vec = jg.tensor(a), jg.tensor(b)

    def closure():
        opt.zero_grad()
        loss = ((x @ mat) * x).sum() + (vec * x).sum() + (x ** 4).sum() * 0.1
        loss.backward()
        return loss
    losses = [float(opt.step(closure)) for _ in range(3)]
    want_losses, want_x, evals = LBFGS_WANT[line_search_fn]
    np.testing.assert_allclose(losses, want_losses, rtol=1e-9)
    np.testing.assert_allclose(np.asarray(x.detach()), want_x, rtol=1e-8)
    assert opt.state[x]["func_evals"] == evals


def test_errors():
    p = nn.Parameter(np.ones(2))
    with pytest.raises(ValueError, match="Adam: betas must be two numbers in"):
        optim.Adam([p], betas=(0.9, 1.0))
    with pytest.raises(ValueError, match="SGD: nesterov momentum requires"):
        optim.SGD([p], lr=0.1, momentum=0.9, dampening=0.1, nesterov=True)
    with pytest.raises(ValueError, match="Rprop: etas must be"):
        optim.Rprop([p], etas=(1.5, 1.2))
    with pytest.raises(ValueError, match="RMSprop: eps must be a number >= 0, got -1"):
        optim.RMSprop([p], eps=-1)
    with pytest.raises(NotImplementedError, match="differentiable=True"):
        optim.Adam([p], differentiable=True)
    with pytest.raises(ValueError, match=r"Adadelta: rho must be a number in \[0, 1\], got 2"):
        optim.Adadelta([{"params": [p], "rho": 2.0}])
    assert optim.Adadelta([{"params": [p], "name": "head"}]).param_groups[0]["name"] == "head"
    opt = optim.SGD([p], lr=0.1)
    with pytest.raises(ValueError, match="has 2 parameter groups, the optimizer has 1"):
        opt.load_state_dict({"state": {}, "param_groups": [{"params": [0]}, {"params": [1]}]})
    with pytest.raises(ValueError, match="doesn't match the size of optimizer's group"):
        opt.load_state_dict({"state": {}, "param_groups": [{"params": [0, 1]}]})
    with pytest.raises(TypeError, match="needs a closure"):
        optim.LBFGS([p]).step(None)
    with pytest.raises(ValueError, match="doesn't support per-parameter options"):
        optim.LBFGS([{"params": [p]}, {"params": [nn.Parameter(np.ones(1))]}])
    with pytest.raises(ValueError, match="line_search_fn must be None or 'strong_wolfe'"):
        optim.LBFGS([p], line_search_fn="armijo")
    with pytest.raises(NotImplementedError, match="defines step"):
        optim.Optimizer([p], {"lr": 0.1}).step()


def _lerp(a, b, w):
    return a + w * (b - a)


def ref_adafactor(h, p, g, st, t):
    lr, (eps1, eps2), d = h.get("lr", 1e-2), h.get("eps", (None, 1e-3)), h.get("d", 1.0)
    eps1 = np.finfo(np.float64).eps if eps1 is None else eps1
    weight = t ** h.get("beta2_decay", -0.8)
    alpha = max(eps2, np.sqrt(np.mean(p * p))) * min(lr, 1 / math.sqrt(t))
    p = p * (1 - lr * h.get("weight_decay", 0.0))
    if g.ndim > 1:
        st["r"] = _lerp(st.get("r", 0), (g * g).mean(-1, keepdims=True), weight)
        st["c"] = _lerp(st.get("c", 0), (g * g).mean(-2, keepdims=True), weight)
        v = st["r"] @ st["c"] / np.maximum(st["r"].mean(-2, keepdims=True), eps1)
    else:
        st["v"] = v = _lerp(st.get("v", 0), g * g, weight)
    update = g / np.sqrt(np.maximum(v, eps1 * eps1))
    return p - alpha / max(1.0, np.sqrt(np.mean(update * update)) / d) * update


@pytest.mark.parametrize("hyper", [{}, dict(lr=0.05, beta2_decay=-0.5, eps=(1e-20, 1e-2), d=1.2,
                                            weight_decay=0.1)])
def test_adafactor_matches_its_algorithm(hyper):
    got, opt, _ = _train("Adafactor", hyper, None)
    assert list(opt.state_dict()["state"][1]) == ["step", "row_var", "col_var"]
    for ours, want in zip(got, _reference("Adafactor", ref_adafactor, hyper)):
        for x, y in zip(ours, want):
            np.testing.assert_allclose(x, y, rtol=1e-9, atol=1e-12)


def _bf16(x):
    """x rounded to bfloat16 (round to nearest even), as float32."""
    bits = np.asarray(x, np.float32).view(np.uint32)
    bits = (bits + np.uint32(0x7FFF) + ((bits >> 16) & 1)) & np.uint32(0xFFFF0000)
    return bits.view(np.float32)


def _newton_schulz(x, a=3.4445, b=-4.775, c=2.0315, steps=5, eps=1e-7):
    """torch's _zeropower_via_newtonschulz: bfloat16 storage, float32 accumulation."""
    tall = x.shape[0] > x.shape[1]
    y = _bf16(x.T if tall else x)
    y = _bf16(y / _bf16(max(np.linalg.norm(y), eps)))
    for _ in range(steps):
        gram = _bf16(y @ y.T)
        y = _bf16(a * y + _bf16(b * gram + c * (gram @ gram)) @ y)
    return y.T if tall else y


@pytest.mark.parametrize("foreach", [None, False], ids=["fused", "per-tensor"])
@pytest.mark.parametrize("nesterov", [True, False])
def test_muon_matches_its_algorithm(nesterov, foreach):
    rng = np.random.default_rng(0)
    p0 = [rng.standard_normal((3, 2)).astype(np.float32),
          rng.standard_normal((2, 4)).astype(np.float32)]
    params = [nn.Parameter(p.copy()) for p in p0]
    opt = optim.Muon([{"params": params, "foreach": foreach}], lr=0.02, nesterov=nesterov)
    want, bufs = [p.astype(np.float64) for p in p0], [0.0, 0.0]
    for _ in range(3):
        for k, p in enumerate(params):
            g = rng.standard_normal(p.shape).astype(np.float32)
            p.grad = jg.tensor(g)
            bufs[k] = bufs[k] + 0.05 * (g - bufs[k])
            update = g + 0.95 * (bufs[k] - g) if nesterov else bufs[k]
            scale = math.sqrt(max(1, p.shape[0] / p.shape[1]))
            want[k] = want[k] * (1 - 0.02 * 0.1) - 0.02 * scale * _newton_schulz(update)
        opt.step()
    for p, w in zip(params, want):
        np.testing.assert_allclose(np.asarray(p.detach()), w, rtol=1e-4, atol=1e-5)
    with pytest.raises(ValueError, match="Muon only supports 2D parameters"):
        optim.Muon([nn.Parameter(np.ones(3))])
    with pytest.raises(ValueError, match="adjust_lr_fn must be None, 'original' or"):
        optim.Muon(params, adjust_lr_fn="sqrt")
