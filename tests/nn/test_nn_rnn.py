"""nn.LSTM / GRU / RNN and their cells against a NumPy reference of PyTorch's equations
(tests/support/rnn_reference.py): outputs, and gradients of every parameter, of the input and of the
initial state against central finite differences of the reference (float64), on three paths:
eager `.backward()`, `jg.grad` without jit, and `jg.jit(jg.grad(...))`."""
from __future__ import annotations

import math

import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad import nn
from tests.support import rnn_reference as ref

RNG = np.random.default_rng(0)


def numpy_params(model):
    return {k: np.array(v, dtype=np.float64) for k, v in model.state_dict().items()}


def finite_differences(f, arrays, eps=1e-6):
    """d f / d every entry of every array (a dict of float64 arrays), central differences."""
    grads = {}
    for name, a in arrays.items():
        g = np.zeros_like(a)
        for i in np.ndindex(a.shape):
            keep = a[i]
            a[i] = keep + eps
            up = f(arrays)
            a[i] = keep - eps
            down = f(arrays)
            a[i] = keep
            g[i] = (up - down) / (2 * eps)
        grads[name] = g
    return grads


# ------------------------------------------------------------------------- sequence layers

MODULES = {"LSTM": nn.LSTM, "GRU": nn.GRU, "RNN_TANH": nn.RNN, "RNN_RELU": nn.RNN}
INPUT, HIDDEN, SEQ, BATCH = 3, 2, 4, 2

# (mode, constructor kwargs, give hx, unbatched)
CONFIGS = {
    "lstm-2layer-bidir-hx": ("LSTM", dict(num_layers=2, bidirectional=True), True, False),
    "lstm-batch_first": ("LSTM", dict(batch_first=True), False, False),
    "lstm-proj-2layer-bidir-hx": ("LSTM", dict(num_layers=2, bidirectional=True, proj_size=1),
                                  True, False),
    "lstm-nobias-unbatched-hx": ("LSTM", dict(bias=False), True, True),
    "gru-2layer-bidir-hx": ("GRU", dict(num_layers=2, bidirectional=True), True, False),
    "gru-batch_first-2layer": ("GRU", dict(num_layers=2, batch_first=True), False, False),
    "gru-unbatched-bidir": ("GRU", dict(bidirectional=True), False, True),
    "rnn-tanh-2layer-bidir-hx": ("RNN_TANH", dict(num_layers=2, bidirectional=True), True, False),
    "rnn-relu-batch_first-hx": ("RNN_RELU", dict(batch_first=True, nonlinearity="relu"), True,
                                False),
}


def make_case(mode, kwargs, give_hx, unbatched):
    model = MODULES[mode](INPUT, HIDDEN, **kwargs)
    d = 2 if kwargs.get("bidirectional") else 1
    layers = kwargs.get("num_layers", 1)
    h_out = kwargs.get("proj_size") or HIDDEN
    x_shape = ((SEQ, INPUT) if unbatched else
               (BATCH, SEQ, INPUT) if kwargs.get("batch_first") else (SEQ, BATCH, INPUT))
    batch = () if unbatched else (BATCH,)
    arrays = {"x": RNG.normal(size=x_shape)}
    if give_hx:
        arrays["h0"] = RNG.normal(size=(layers * d,) + batch + (h_out,))
        if mode == "LSTM":
            arrays["c0"] = RNG.normal(size=(layers * d,) + batch + (HIDDEN,))
    return model, arrays


def reference(mode, kwargs, arrays):
    params = {k: v for k, v in arrays.items() if k not in ("x", "h0", "c0")}
    hx = tuple(arrays[k] for k in ("h0", "c0") if k in arrays) or None
    return ref.rnn(mode, params, arrays["x"], hx, num_layers=kwargs.get("num_layers", 1),
                   bidirectional=kwargs.get("bidirectional", False),
                   batch_first=kwargs.get("batch_first", False), hidden_size=HIDDEN,
                   proj_size=kwargs.get("proj_size", 0))


def weights_for(out, state):
    """Fixed random cotangents, so the loss sees every output entry with a distinct weight."""
    rng = np.random.default_rng(1)
    return [rng.normal(size=np.shape(a)) for a in (out,) + tuple(state)]


def jg_hx(mode, hx):
    if not hx:
        return None
    return (hx[0], hx[1]) if mode == "LSTM" else hx[0]


def jg_loss(model, x, hx, mode, weights):
    out, state = model(x, jg_hx(mode, hx))
    state = state if mode == "LSTM" else (state,)
    return sum(jnp.sum(jnp.multiply(a, w)) for a, w in zip((out,) + tuple(state), weights))


def grads_by_path(path, model, mode, arrays, weights):
    """(loss, {name: gradient}) for the parameters, x, h0 and c0 along one path."""
    x = arrays["x"]
    hx = [arrays[k] for k in ("h0", "c0") if k in arrays]
    if path == "eager":
        x_t = jg.tensor(x, requires_grad=True)
        hx_t = [jg.tensor(h, requires_grad=True) for h in hx]
        loss = jg_loss(model, x_t, hx_t, mode, weights)
        loss.backward()
        got = {k: p.grad for k, p in model.named_parameters()}
        got["x"] = x_t.grad
        got.update({k: h.grad for k, h in zip(("h0", "c0"), hx_t)})
        return float(loss.item()), got
    fn = jg.value_and_grad(lambda m, x, hx: jg_loss(m, x, hx, mode, weights), argnums=(0, 1, 2))
    fn = jg.jit(fn) if path == "jit" else fn
    loss, (g_model, g_x, g_hx) = fn(model, jnp.asarray(x), [jnp.asarray(h) for h in hx])
    got = dict(g_model.named_parameters())
    got["x"] = g_x
    got.update(dict(zip(("h0", "c0"), g_hx)))
    return float(loss), got


@pytest.mark.parametrize("case", list(CONFIGS))
def test_forward_matches_reference(x64, case):
    mode, kwargs, give_hx, unbatched = CONFIGS[case]
    model, arrays = make_case(mode, kwargs, give_hx, unbatched)
    arrays.update(numpy_params(model))
    want_out, want_state = reference(mode, kwargs, arrays)
    hx = jg_hx(mode, [jnp.asarray(arrays[k]) for k in ("h0", "c0") if k in arrays])
    for run in (lambda m, x, h: m(x, h), jg.jit(lambda m, x, h: m(x, h))):
        out, state = run(model, jnp.asarray(arrays["x"]), hx)
        state = state if mode == "LSTM" else (state,)
        np.testing.assert_allclose(np.asarray(out), want_out, rtol=1e-10, atol=1e-12)
        assert len(state) == len(want_state)
        for got, want in zip(state, want_state):
            assert got.shape == want.shape
            np.testing.assert_allclose(np.asarray(got), want, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("case", list(CONFIGS))
def test_gradients_match_finite_differences(x64, case):
    mode, kwargs, give_hx, unbatched = CONFIGS[case]
    model, arrays = make_case(mode, kwargs, give_hx, unbatched)
    arrays.update(numpy_params(model))
    weights = weights_for(*reference(mode, kwargs, arrays))

    def ref_loss(a):
        out, state = reference(mode, kwargs, a)
        return sum(float(np.sum(v * w)) for v, w in zip((out,) + tuple(state), weights))
    want_loss = ref_loss(arrays)
    want = finite_differences(ref_loss, arrays)
    for path in ("eager", "grad", "jit"):
        loss, got = grads_by_path(path, model, mode, arrays, weights)
        assert loss == pytest.approx(want_loss, rel=1e-10), path
        assert set(got) == set(want), path
        for name in want:
            np.testing.assert_allclose(np.asarray(got[name]), want[name], rtol=1e-5, atol=1e-7,
                                       err_msg=f"{path}: d loss / d {name}")
        model.zero_grad()


# ------------------------------------------------------------------------------------ cells

CELLS = {"LSTM": lambda: nn.LSTMCell(INPUT, HIDDEN), "GRU": lambda: nn.GRUCell(INPUT, HIDDEN),
         "RNN_TANH": lambda: nn.RNNCell(INPUT, HIDDEN),
         "RNN_RELU": lambda: nn.RNNCell(INPUT, HIDDEN, nonlinearity="relu"),
         "LSTM-nobias": lambda: nn.LSTMCell(INPUT, HIDDEN, bias=False)}


@pytest.mark.parametrize("unbatched", [False, True])
@pytest.mark.parametrize("give_hx", [False, True])
@pytest.mark.parametrize("kind", list(CELLS))
def test_cell_forward_and_gradients(x64, kind, give_hx, unbatched):
    mode = kind.split("-")[0]
    cell = CELLS[kind]()
    batch = () if unbatched else (BATCH,)
    arrays = {"x": RNG.normal(size=batch + (INPUT,))}
    n_state = 2 if mode == "LSTM" else 1
    if give_hx:
        arrays.update({k: RNG.normal(size=batch + (HIDDEN,)) for k in ("h", "c")[:n_state]})
    arrays.update({k: np.array(v) for k, v in cell.state_dict().items()})

    def ref_state(a):
        state = tuple(a.get(k, np.zeros(batch + (HIDDEN,))) for k in ("h", "c")[:n_state])
        return ref.cell(mode, a["x"], state, {k: v for k, v in a.items() if k not in "xhc"})
    weights = [RNG.normal(size=batch + (HIDDEN,)) for _ in range(n_state)]

    def ref_loss(a):
        return sum(float(np.sum(s * w)) for s, w in zip(ref_state(a), weights))

    def loss(cell, x, hx):
        state = cell(x, None if not hx else tuple(hx) if n_state == 2 else hx[0])
        state = state if n_state == 2 else (state,)
        return sum(jnp.sum(jnp.multiply(s, w)) for s, w in zip(state, weights))

    hx = [jnp.asarray(arrays[k]) for k in ("h", "c")[:n_state] if k in arrays]
    out = cell(jnp.asarray(arrays["x"]), None if not hx else tuple(hx) if n_state == 2 else hx[0])
    for got, want in zip(out if n_state == 2 else (out,), ref_state(arrays)):
        assert got.shape == want.shape
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-10, atol=1e-12)
    want = finite_differences(ref_loss, arrays)

    def eager(cell, x, hx):                 # PyTorch style: .backward() fills .grad
        x = jg.tensor(np.asarray(x), requires_grad=True)
        hx = [jg.tensor(np.asarray(h), requires_grad=True) for h in hx]
        value = loss(cell, x, hx)
        value.backward()
        grads = jg.tree_util.tree_map(lambda p: p.grad, cell)
        return value, (grads, x.grad, [h.grad for h in hx])
    for fn in (eager, jg.value_and_grad(loss, argnums=(0, 1, 2)),
               jg.jit(jg.value_and_grad(loss, argnums=(0, 1, 2)))):
        value, (g_cell, g_x, g_hx) = fn(cell, jnp.asarray(arrays["x"]), hx)
        cell.zero_grad()
        assert float(value) == pytest.approx(ref_loss(arrays), rel=1e-10)
        got = dict(g_cell.named_parameters(), x=g_x, **dict(zip("hc", g_hx)))
        assert set(got) == set(want)
        for name in want:
            np.testing.assert_allclose(np.asarray(got[name]), want[name], rtol=1e-5, atol=1e-7,
                                       err_msg=f"d loss / d {name}")


# ------------------------------------------------------------------- names, shapes, init

def test_state_dict_names_and_shapes_are_pytorchs():
    m = nn.LSTM(5, 4, num_layers=2, bidirectional=True, proj_size=3)
    want = []
    for layer, in_size in ((0, 5), (1, 6)):
        for sfx in ("", "_reverse"):
            want += [(f"weight_ih_l{layer}{sfx}", (16, in_size)),
                     (f"weight_hh_l{layer}{sfx}", (16, 3)),
                     (f"bias_ih_l{layer}{sfx}", (16,)), (f"bias_hh_l{layer}{sfx}", (16,)),
                     (f"weight_hr_l{layer}{sfx}", (3, 4))]
    assert [(k, tuple(v.shape)) for k, v in m.state_dict().items()] == want
    g = nn.GRU(5, 4, num_layers=2, bias=False)
    assert [(k, tuple(v.shape)) for k, v in g.state_dict().items()] == [
        ("weight_ih_l0", (12, 5)), ("weight_hh_l0", (12, 4)),
        ("weight_ih_l1", (12, 4)), ("weight_hh_l1", (12, 4))]
    r = nn.RNN(5, 4, nonlinearity="relu")
    assert [(k, tuple(v.shape)) for k, v in r.state_dict().items()] == [
        ("weight_ih_l0", (4, 5)), ("weight_hh_l0", (4, 4)), ("bias_ih_l0", (4,)),
        ("bias_hh_l0", (4,))]
    cells = {nn.LSTMCell: 16, nn.GRUCell: 12, nn.RNNCell: 4}
    for cls, gates in cells.items():
        assert [(k, tuple(v.shape)) for k, v in cls(5, 4).state_dict().items()] == [
            ("weight_ih", (gates, 5)), ("weight_hh", (gates, 4)), ("bias_ih", (gates,)),
            ("bias_hh", (gates,))]


def test_output_shapes_are_pytorchs():
    m = nn.LSTM(3, 5, num_layers=3, bidirectional=True, proj_size=2, batch_first=True)
    out, (h, c) = m(jnp.zeros((4, 7, 3)))
    assert (out.shape, h.shape, c.shape) == ((4, 7, 4), (6, 4, 2), (6, 4, 5))
    out, (h, c) = m(jnp.zeros((7, 3)))                     # unbatched
    assert (out.shape, h.shape, c.shape) == ((7, 4), (6, 2), (6, 5))
    out, h = nn.GRU(3, 5)(jnp.zeros((7, 4, 3)))
    assert (out.shape, h.shape) == ((7, 4, 5), (1, 4, 5))
    assert out.dtype == np.float32


def test_initialization_is_uniform_within_one_over_sqrt_hidden():
    jg.manual_seed(0)
    m = nn.GRU(10, 64, num_layers=2, bidirectional=True)
    bound = 1 / math.sqrt(64)
    values = np.concatenate([np.asarray(p).ravel() for p in m.parameters()])
    assert np.abs(values).max() <= bound
    # uniform on (-b, b): mean ~0, variance b^2 / 3
    assert abs(values.mean()) < 0.02 * bound
    assert values.var() == pytest.approx(bound ** 2 / 3, rel=0.05)


def test_load_state_dict_round_trip():
    a, b = nn.LSTM(3, 4, num_layers=2), nn.LSTM(3, 4, num_layers=2)
    b.load_state_dict({k: np.asarray(v) for k, v in a.state_dict().items()})
    x = jnp.asarray(RNG.normal(size=(5, 2, 3)).astype(np.float32))
    np.testing.assert_array_equal(np.asarray(a(x)[0]), np.asarray(b(x)[0]))


# ---------------------------------------------------------------------------------- dropout

def test_dropout_acts_between_layers_only_while_training(x64):
    m = nn.LSTM(3, 4, num_layers=2, dropout=0.5)
    x = jnp.asarray(RNG.normal(size=(6, 2, 3)))
    key = jg.random.key(3)
    fwd = jg.jit(lambda m, x, k: m(x, key=k))
    out_train, (h_train, c_train) = fwd(m, x, key)
    m.eval()
    out_eval, (h_eval, c_eval) = fwd(m, x, key)
    arrays = numpy_params(m)
    want_out, (want_h, want_c) = ref.rnn("LSTM", arrays, np.asarray(x), num_layers=2,
                                         hidden_size=4)
    np.testing.assert_allclose(np.asarray(out_eval), want_out, rtol=1e-10)
    # the first layer never sees dropout; the second layer's input does
    np.testing.assert_allclose(np.asarray(h_train)[0], want_h[0], rtol=1e-10)
    np.testing.assert_allclose(np.asarray(c_train)[0], want_c[0], rtol=1e-10)
    assert not np.allclose(np.asarray(out_train), want_out)
    # exactly: the reference with the mask drawn from the layer's key, scaled by 1 / (1 - p)
    keep = np.asarray(jg.random.bernoulli(jg.random.split(key, 1)[0], 0.5, (6, 2, 4)))
    want_train, _ = ref.rnn("LSTM", arrays, np.asarray(x), num_layers=2, hidden_size=4,
                            masks=[keep / 0.5])
    np.testing.assert_allclose(np.asarray(out_train), want_train, rtol=1e-10)


def test_dropout_is_random_per_call_eagerly_and_needs_a_key_under_jit():
    m = nn.GRU(3, 4, num_layers=2, dropout=0.5)
    x = jnp.asarray(RNG.normal(size=(6, 2, 3)).astype(np.float32))
    a, b = np.asarray(m(x)[0]), np.asarray(m(x)[0])
    assert not np.allclose(a, b)
    with pytest.raises(ValueError, match="key"):
        jg.jit(lambda m, x: m(x))(m, x)
    m.eval()
    np.testing.assert_allclose(np.asarray(m(x)[0]), np.asarray(jg.jit(lambda m, x: m(x))(m, x)[0]),
                               rtol=1e-5, atol=1e-6)


def test_dropout_with_one_layer_warns_as_pytorch():
    with pytest.warns(UserWarning, match="num_layers=1"):
        nn.LSTM(3, 4, dropout=0.3)


# ----------------------------------------------------------------------------------- errors

@pytest.mark.parametrize("make, call, match", [
    (lambda: nn.LSTM(3, 4), lambda m: m(jnp.zeros((5, 2, 7))), r"input_size=3.*\(5, 2, 7\)"),
    (lambda: nn.LSTM(3, 4), lambda m: m(jnp.zeros((5, 2, 3)), (jnp.zeros((1, 2, 4)),)),
     "pair"),
    (lambda: nn.LSTM(3, 4, num_layers=2),
     lambda m: m(jnp.zeros((5, 2, 3)), (jnp.zeros((1, 2, 4)), jnp.zeros((2, 2, 4)))),
     r"h_0 of shape \(2, 2, 4\).*\(1, 2, 4\)"),
    (lambda: nn.GRU(3, 4), lambda m: m(jnp.zeros((5, 3)), jnp.zeros((1, 2, 4))),
     r"h_0 of shape \(1, 4\)"),
    (lambda: nn.GRU(3, 4), lambda m: m(jnp.zeros((0, 2, 3))), "length >= 1"),
    (lambda: nn.GRUCell(3, 4), lambda m: m(jnp.zeros((2, 3)), jnp.zeros((2, 5))),
     r"h of shape \(2, 4\)"),
    (lambda: nn.LSTMCell(3, 4), lambda m: m(jnp.zeros((2, 2, 3))), r"\(batch, 3\)"),
])
def test_bad_inputs_are_named(make, call, match):
    with pytest.raises(ValueError, match=match):
        call(make())


@pytest.mark.parametrize("make, match", [
    (lambda: nn.GRU(3, 4, proj_size=2), "LSTM only"),
    (lambda: nn.LSTM(3, 4, proj_size=4), "smaller than hidden_size"),
    (lambda: nn.RNN(3, 4, nonlinearity="gelu"), "'tanh' or 'relu'"),
    (lambda: nn.LSTM(3, 4, num_layers=2, dropout=1.5), r"\[0, 1\]"),
    (lambda: nn.LSTM(3, 0), "hidden_size must be a positive integer"),
    (lambda: nn.LSTM(3, 4, num_layers=0), "num_layers"),
])
def test_bad_constructor_arguments_are_named(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def test_repr_reads_like_pytorchs():
    assert repr(nn.LSTM(3, 4, num_layers=2, batch_first=True)) == \
        "LSTM(3, 4, num_layers=2, batch_first=True)"
    assert repr(nn.RNNCell(3, 4, nonlinearity="relu")) == "RNNCell(3, 4, nonlinearity='relu')"


# ------------------------------------------------------------------------------- structure

@pytest.mark.parametrize("make, inside", [
    (lambda: nn.LSTM(3, 4, num_layers=2, bidirectional=True), 1),
    (lambda: nn.GRU(3, 4), 1), (lambda: nn.RNN(3, 4, nonlinearity="relu"), 1),
    (lambda: nn.LSTM(3, 4, proj_size=2), 2),               # h @ W_hh.T, then the projection
])
def test_only_the_recurrent_matmul_is_inside_the_scan(make, inside):
    m = make()
    graph = jg.make_graph(lambda m, x: m(x))(m, jnp.zeros((5, 2, 3)))
    scans = [n for n in graph.nodes if n.op.name == "scan"]
    assert len(scans) == m.num_layers * (2 if m.bidirectional else 1)
    for node in scans:
        assert [n.op.name for n in node.params["body"].nodes].count("matmul") == inside
    outside = [n.op.name for n in graph.nodes].count("matmul")
    assert outside == len(scans)                           # one input projection per scan
