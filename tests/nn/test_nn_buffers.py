"""Module buffers: registration, state_dict, .to(), pytree leaves that grad does not
differentiate, and buffer writes under jit (extra outputs written back after the call), grad,
vjp/jvp, lower().compile(), refused under vmap and for closed-over modules under jit."""
import copy

import numpy as np
import pytest

import jitgrad as jg
from jitgrad import nn
from jitgrad import numpy as jnp
from jitgrad.nn import functional as F

from tests.support import nn_norm_reference as ref


def _np(t):
    return np.asarray(t)


class Counter(nn.Module):
    """Counts calls and sums its outputs in buffers while training."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 2)
        self.register_buffer("total", jnp.zeros(2))
        self.register_buffer("calls", jg.tensor(np.int64(0)))
        self.register_buffer("scratch", jnp.ones(2), persistent=False)

    def forward(self, x):
        y = self.lin(x)
        if self.training:
            self.total = self.total + jg.stop_gradient(y).sum(0)
            self.calls = self.calls + 1
        return y


def _net():
    return nn.Sequential(nn.Conv2d(2, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(),
                         nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(4, 3),
                         nn.BatchNorm1d(3, momentum=None))


# ------------------------------------------------------------------------------ registration

def test_register_buffer_and_traversal():
    m = Counter()
    assert [n for n, _ in m.named_buffers()] == ["total", "calls", "scratch"]
    assert [n for n, _ in m.named_parameters()] == ["lin.weight", "lin.bias"]
    assert list(m.state_dict()) == ["total", "calls", "lin.weight", "lin.bias"]  # not scratch
    seq = nn.Sequential(m, nn.BatchNorm1d(2))
    assert [n for n, _ in seq.named_buffers()] == [
        "0.total", "0.calls", "0.scratch", "1.running_mean", "1.running_var",
        "1.num_batches_tracked"]
    assert len(list(seq.buffers())) == 6 and not any(b.requires_grad for b in seq.buffers())
    m.total = np.full(2, 5.0, np.float32)             # assignment keeps it a buffer
    assert "total" in dict(m.named_buffers()) and _np(m.total).tolist() == [5.0, 5.0]
    m.register_buffer("maybe", None)
    assert "maybe" not in dict(m.named_buffers()) and m.maybe is None
    del m.scratch
    assert "scratch" not in dict(m.named_buffers())
    with pytest.raises(TypeError, match="cannot assign int as buffer 'total'"):
        m.total = 3
    with pytest.raises(KeyError, match="without '.'"):
        m.register_buffer("a.b", jnp.zeros(1))
    with pytest.raises(KeyError, match="already exists"):
        m.register_buffer("lin", jnp.zeros(1))


def test_state_dict_round_trip_keeps_dtypes():
    a, b = _net(), _net()
    x = np.random.default_rng(0).standard_normal((5, 2, 4, 4)).astype(np.float32)
    a(x)
    a(x)
    sd = a.state_dict()
    assert "1.running_mean" in sd and "6.num_batches_tracked" in sd
    missing, unexpected = b.load_state_dict({k: np.asarray(v) for k, v in sd.items()})
    assert missing == [] and unexpected == []
    for (k, va), (_, vb) in zip(sd.items(), b.state_dict().items()):
        np.testing.assert_array_equal(_np(va), _np(vb), err_msg=k)
        assert va.dtype == vb.dtype, k
    assert int(b[1].num_batches_tracked) == 2 and b[1].num_batches_tracked.dtype == np.int64
    a.eval()
    b.eval()
    np.testing.assert_array_equal(_np(a(x)), _np(b(x)))
    with pytest.raises(KeyError, match=r"missing keys \['1.running_var'\]"):
        b.load_state_dict({k: v for k, v in sd.items() if k != "1.running_var"})
    with pytest.raises(ValueError, match="'1.running_mean' expects shape"):
        b.load_state_dict({**sd, "1.running_mean": np.zeros(5, np.float32)})


def test_to_dtype_casts_floating_buffers_only():
    m = _net()
    assert m.to(jg.float64) is m
    assert all(p.dtype == np.float64 for p in m.parameters())
    assert m[1].running_mean.dtype == np.float64 and m[1].running_var.dtype == np.float64
    assert m[1].num_batches_tracked.dtype == np.int64              # integer buffers keep theirs
    assert all(isinstance(p, nn.Parameter) and p.requires_grad for p in m.parameters())
    x = np.random.default_rng(1).standard_normal((3, 2, 4, 4))
    assert m(x).dtype == np.float64
    m.to("cpu", dtype="float32")
    assert m[1].running_mean.dtype == np.float32 and m[0].weight.dtype == np.float32
    assert m.double()[6].running_var.dtype == np.float64


def test_to_meta_moves_buffers_and_writes_stay_on_meta():
    m = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4, momentum=None)).to("meta")
    assert all(t.device == jg.device("meta") for t in [*m.parameters(), *m.buffers()])
    x = jg.tensor(np.ones((5, 3), np.float32)).to("meta")
    for call in (lambda m, x: m(x), jg.jit(lambda m, x: m(x))):
        y = call(m, x)
        assert y.shape == (5, 4) and y.device == jg.device("meta")
        assert m[1].running_mean.device == jg.device("meta") and m[1].running_mean.shape == (4,)
        assert m[1].num_batches_tracked.dtype == np.int64


def test_buffers_are_leaves_but_not_differentiated(rng):
    m = Counter()
    leaves = jg.tree_util.tree_leaves(m)
    assert len(leaves) == 5                       # weight, bias and the three buffers
    x = rng.standard_normal((4, 3)).astype(np.float32)
    g = jg.grad(lambda m: m(x).sum())(m)
    assert type(g) is Counter and g.calls.dtype == np.int64 and int(g.calls) == 0
    assert not np.any(_np(g.total))
    np.testing.assert_allclose(_np(g.lin.bias), [4.0, 4.0])
    # eval: the output depends on the running statistics, still no gradient for them
    bn = nn.BatchNorm1d(3).eval()
    gb = jg.grad(lambda m: (m(x) ** 2).sum())(bn)
    assert not np.any(_np(gb.running_mean)) and np.any(_np(gb.weight))


# ------------------------------------------------------------------------------ writes under jit

def test_jit_writes_back_and_traces_once(rng):
    m = Counter()
    f = jg.jit(lambda m, x: m(x).sum())
    x = rng.standard_normal((4, 3)).astype(np.float32)
    want = np.zeros(2)
    for step in range(1, 4):
        f(m, x)
        want += _np(m.lin(x)).sum(0)
        assert int(m.calls) == step and m.calls.dtype == np.int64
        np.testing.assert_allclose(_np(m.total), want, rtol=1e-5)
        assert m.total.grad_fn is None and not m.total.requires_grad   # no autograd history
    assert f.trace_count == 1                     # buffer values are inputs, not constants
    m.eval()
    before = list(m.buffers())
    f(m, x)
    assert all(a is b for a, b in zip(before, m.buffers()))       # eval: nothing written


def test_jit_returns_model_with_new_buffers(rng):
    m = Counter()
    x = rng.standard_normal((4, 3)).astype(np.float32)
    new = jg.jit(lambda m, x: (m, m(x)))(m, x)[0]
    assert int(new.calls) == 1 and int(m.calls) == 1
    np.testing.assert_allclose(_np(new.total), _np(m.total))


def _train_step(opt):
    def step(model, state, x, y):
        loss, grads = jg.value_and_grad(lambda m: F.cross_entropy(m(x), y))(model)
        model, state = opt.update(grads, state, model)
        return model, state, loss
    return step


def test_jitted_training_steps_equal_eager(rng):
    """value_and_grad + a functional optimizer (with weight decay, which must leave buffers
    alone): after N steps, parameters and running statistics equal eager's."""
    opt = jg.optim.sgd(0.1, momentum=0.9, weight_decay=1e-2)
    m0 = _net()
    xs = [rng.standard_normal((8, 2, 5, 5)).astype(np.float32) for _ in range(4)]
    ys = [rng.integers(0, 3, 8) for _ in range(4)]
    finals = {}
    for name, step in (("eager", _train_step(opt)), ("jit", jg.jit(_train_step(opt)))):
        model = copy.deepcopy(m0)
        first, state = model, opt.init(model)
        for x, y in zip(xs, ys):
            model, state, loss = step(model, state, x, y)
        assert int(first[1].num_batches_tracked) == 1          # the first step wrote its input
        assert int(model[6].num_batches_tracked) == 4
        finals[name] = model.state_dict()
    assert list(finals["eager"]) == list(finals["jit"])
    for k in finals["eager"]:
        np.testing.assert_allclose(_np(finals["jit"][k]), _np(finals["eager"][k]), rtol=2e-5,
                                   atol=1e-6, err_msg=k)
    assert finals["jit"]["6.num_batches_tracked"].dtype == np.int64


def test_running_stats_after_jitted_steps_match_reference(rng):
    bn = nn.BatchNorm1d(3)
    step = jg.jit(lambda m, x: jg.value_and_grad(lambda m: (m(x) ** 2).mean())(m))
    rm, rv = np.zeros(3), np.ones(3)
    for _ in range(5):
        x = (rng.standard_normal((6, 3)) * 3 + 1).astype(np.float32)
        step(bn, x)
        _, rm, rv = ref.batch_norm(x, rm, rv, None, None, True, 0.1)
    np.testing.assert_allclose(_np(bn.running_mean), rm, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(_np(bn.running_var), rv, rtol=1e-5, atol=1e-6)
    assert int(bn.num_batches_tracked) == 5 and step.trace_count == 1


def test_lowered_compiled_writes_back(rng):
    m = Counter()
    x = rng.standard_normal((4, 3)).astype(np.float32)
    compiled = jg.jit(lambda m, x: m(x)).lower(m, x).compile()
    compiled(m, x)
    compiled(m, x)
    assert int(m.calls) == 2


# ------------------------------------------------------------------------------ grad, vjp, jvp

def test_grad_vjp_jvp_write_buffers_as_eager(rng):
    m = Counter()
    x = rng.standard_normal((4, 3)).astype(np.float32)
    jg.grad(lambda m: m(x).sum())(m)                       # the model is the argument
    jg.grad(lambda x: m(x).sum())(x)                       # the model is closed over
    jg.vjp(lambda m: m(x), m)
    jg.jvp(lambda x: m(x), (x,), (np.ones_like(x),))
    assert int(m.calls) == 4 and isinstance(m.total, jg.Tensor)
    np.testing.assert_allclose(_np(m.total), 4 * _np(m.lin(x)).sum(0), rtol=1e-5)


def test_grad_of_closed_over_argument_inside_jit(rng):
    m = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4))
    x = rng.standard_normal((5, 3)).astype(np.float32)
    step = jg.jit(lambda model, x: jg.grad(lambda x: model(x).sum())(x))
    step(m, x)
    step(m, x)
    assert int(m[1].num_batches_tracked) == 2 and step.trace_count == 1


# ------------------------------------------------------------------------------ refusals

def test_vmap_refuses_buffer_writes_and_allows_eval(rng):
    m = nn.BatchNorm1d(3)
    x = rng.standard_normal((4, 5, 3)).astype(np.float32)
    with pytest.raises(ValueError, match="jg.vmap: BatchNorm1d assigns its buffer"):
        jg.vmap(lambda x: m(x))(x)
    with pytest.raises(ValueError, match="track_running_stats=False"):
        jg.vmap(lambda m, x: m(x), in_axes=(None, 0))(m, x)
    assert int(m.num_batches_tracked) == 0
    m.eval()
    np.testing.assert_allclose(_np(jg.vmap(lambda x: m(x))(x)), _np(m(x.reshape(20, 3))).reshape(
        4, 5, 3), rtol=1e-6)
    free = nn.BatchNorm1d(3, track_running_stats=False)      # no buffers: per-example stats
    np.testing.assert_allclose(_np(jg.vmap(free)(x)), np.stack([_np(free(e)) for e in x]),
                               rtol=1e-5, atol=1e-6)


def test_jit_refuses_writes_to_closed_over_modules(rng):
    m = nn.BatchNorm1d(3)
    x = rng.standard_normal((4, 3)).astype(np.float32)
    before = list(m.buffers())
    with pytest.raises(ValueError, match="not one of its arguments.*Pass the model as an "
                                         "argument"):
        jg.jit(lambda x: m(x))(x)
    assert all(a is b for a, b in zip(before, m.buffers()))       # restored, no traced values
    m.eval()
    np.testing.assert_allclose(_np(jg.jit(lambda x: m(x))(x)), _np(m(x)), rtol=1e-6)


def test_structure_change_inside_jit_is_an_error(rng):
    class Grows(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("a", jnp.zeros(1))

        def forward(self, x):
            self.register_buffer("b", x)
            return x

    with pytest.raises(ValueError, match="changed the number of tensors"):
        jg.jit(lambda m, x: m(x))(Grows(), np.ones(1, np.float32))


def test_control_flow_bodies_refuse_closed_over_writes_and_carry_models(rng):
    m = nn.BatchNorm1d(3)
    xs = rng.standard_normal((4, 5, 3)).astype(np.float32)
    with pytest.raises(ValueError, match="inside a traced jg.cond/switch/while_loop"):
        jg.jit(lambda x: jg.scan(lambda c, xi: (c, m(xi).sum()), 0.0, x))(xs)
    assert int(m.num_batches_tracked) == 0
    step = jg.jit(lambda m, x: jg.scan(lambda m, xi: (m, m(xi).sum()), m, x)[0])
    out = step(m, xs)                              # the model as the carry: its writes come out
    assert int(out.num_batches_tracked) == 4
    _, rm, _ = ref.batch_norm(xs[0], np.zeros(3), np.ones(3), None, None, True, 0.1)
    for x in xs[1:]:
        _, rm, _ = ref.batch_norm(x, rm, np.ones(3), None, None, True, 0.1)
    np.testing.assert_allclose(_np(out.running_mean), rm, rtol=1e-5, atol=1e-6)


def test_checkpointed_blocks_write_buffers_once_per_forward(rng):
    blk = nn.Sequential(nn.Linear(3, 3), nn.BatchNorm1d(3))
    twin = copy.deepcopy(blk)
    x = rng.standard_normal((6, 3)).astype(np.float32)
    t = rng.standard_normal((6, 3)).astype(np.float32)   # a weighted sum: sum(BN(z)**2) is
    # nearly constant in z, and its gradient mostly rounding
    plain = jg.grad(lambda m, x: (m(x) * t).sum())(twin, x)
    as_arg = jg.jit(jg.grad(lambda m, x: (jg.checkpoint(lambda m, x: m(x))(m, x) * t).sum()))
    closed = jg.jit(jg.grad(lambda m, x: (jg.checkpoint(lambda x: m(x))(x) * t).sum()))
    for step in (as_arg, closed):
        g = step(blk, x)
        np.testing.assert_allclose(_np(g[0].weight), _np(plain[0].weight), rtol=1e-5, atol=1e-6)
    assert int(blk[1].num_batches_tracked) == 2
    jg.grad(lambda m, x: (m(x) * t).sum())(twin, x)
    np.testing.assert_allclose(_np(blk[1].running_mean), _np(twin[1].running_mean), rtol=1e-6)
    np.testing.assert_allclose(_np(blk[1].running_var), _np(twin[1].running_var), rtol=1e-6)


def test_jacrev_writes_once_and_jacfwd_refuses(rng):
    m = nn.BatchNorm1d(3)
    x = rng.standard_normal((5, 3)).astype(np.float32)
    assert jg.jacrev(lambda x: m(x).sum(0))(x).shape == (3, 5, 3)
    assert int(m.num_batches_tracked) == 1                   # one forward pass, one write
    before = list(m.buffers())
    for fn in (lambda x: m(x).sum(0), lambda x: (m(x) ** 2).sum()):
        for transform in (jg.jacfwd, jg.hessian):
            with pytest.raises(ValueError, match="once per input element"):
                transform(fn)(x)
    assert all(a is b for a, b in zip(before, m.buffers()))  # nothing written, nothing leaked
    m.eval()
    assert jg.hessian(lambda x: (m(x) ** 2).sum())(x).shape == (5, 3, 5, 3)
