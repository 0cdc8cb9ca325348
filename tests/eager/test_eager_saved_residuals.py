"""The composites' eager backward from saved values (transforms/fused_saving.py's rules,
eager/saved_residuals.py): softmax and log_softmax read their output, GELU its erf (or tanh)
term, cross_entropy its log-probabilities. Every tier (op by op, then the compiled call with
its rule) is checked against a NumPy reference and central finite differences of it in
float64, against jg.grad in float32, and the backward graph is checked to hold none of the
forward's work. layer_norm (the autodiff of its compiled call, no rule) is checked alike."""
import math

import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad.eager import backward as eager_backward
from jitgrad.ir import Op
from jitgrad.nn import functional as F
from jitgrad.transforms import fused_eager

RNG = np.random.default_rng(7)
_erf = np.vectorize(math.erf)


def _softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _log_softmax(x, axis=-1):
    s = x - x.max(axis=axis, keepdims=True)
    return s - np.log(np.exp(s).sum(axis=axis, keepdims=True))


def _gelu(x, approximate=False):
    if approximate:
        return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))
    return 0.5 * x * (1 + _erf(x / math.sqrt(2)))


def _layer_norm(x, shape, w=None, b=None, eps=1e-5):
    axes = tuple(range(x.ndim - len(shape), x.ndim))
    c = x - x.mean(axis=axes, keepdims=True)
    y = c / np.sqrt((c * c).mean(axis=axes, keepdims=True) + eps)
    y = y if w is None else y * w
    return y if b is None else y + b


def _cross_entropy(logits, target, reduction="mean", label_smoothing=0.0, ignore_index=-100):
    lp = _log_softmax(logits)
    n = logits.shape[-1]
    keep = None
    if target.dtype.kind in "iu":
        keep = target != ignore_index
        target = np.eye(n)[np.where(keep, target, 0)]
    t = target * (1 - label_smoothing) + label_smoothing / n
    loss = -(t * lp).sum(-1)
    if keep is not None:
        loss = np.where(keep, loss, 0.0)
    if reduction == "mean":
        return loss.sum() / (keep.sum() if keep is not None else loss.size)
    return loss.sum() if reduction == "sum" else loss


def _fd_grads(ref, args, wrt, w, eps=1e-6):
    """d sum(ref(*args) * w) / d args[i] for i in wrt, by central differences (float64)."""
    grads = []
    for i in wrt:
        g = np.zeros_like(args[i])
        for idx in np.ndindex(args[i].shape):
            hi, lo = [a.copy() for a in args], [a.copy() for a in args]
            hi[i][idx] += eps
            lo[i][idx] -= eps
            g[idx] = ((ref(*hi) * w).sum() - (ref(*lo) * w).sum()) / (2 * eps)
        grads.append(g)
    return grads


# name -> (jitgrad call, NumPy reference, argument arrays, which of them get gradients)
X = RNG.standard_normal((3, 4, 6)) * 2
LOGITS, LABELS = RNG.standard_normal((5, 7)) * 3, RNG.integers(0, 7, 5).astype(np.int32)
LABELS_IGNORED = np.where(np.arange(5) == 2, -1, LABELS).astype(np.int32)
SOFT = _softmax(RNG.standard_normal((5, 7)))
W6, B6 = RNG.standard_normal(6), RNG.standard_normal(6)
W46 = RNG.standard_normal((4, 6))
CASES = {
    "softmax": (lambda x: F.softmax(x, axis=-1), _softmax, [X], [0]),
    "softmax axis 1": (lambda x: F.softmax(x, axis=1), lambda x: _softmax(x, 1), [X], [0]),
    "log_softmax": (lambda x: F.log_softmax(x, axis=-1), _log_softmax, [X], [0]),
    "gelu": (F.gelu, _gelu, [X], [0]),
    "gelu tanh": (lambda x: F.gelu(x, approximate="tanh"), lambda x: _gelu(x, True), [X], [0]),
    "layer_norm": (lambda x, w, b: F.layer_norm(x, (6,), w, b),
                   lambda x, w, b: _layer_norm(x, (6,), w, b), [X, W6, B6], [0, 1, 2]),
    "layer_norm no affine": (lambda x: F.layer_norm(x, 6), lambda x: _layer_norm(x, (6,)),
                             [X], [0]),
    "layer_norm 2 axes": (lambda x, w: F.layer_norm(x, (4, 6), w),
                          lambda x, w: _layer_norm(x, (4, 6), w), [X, W46], [0, 1]),
    "cross_entropy": (lambda x: F.cross_entropy(x, jnp.asarray(LABELS)),
                      lambda x: _cross_entropy(x, LABELS), [LOGITS], [0]),
    "cross_entropy sum smoothed": (
        lambda x: F.cross_entropy(x, jnp.asarray(LABELS), reduction="sum", label_smoothing=0.1),
        lambda x: _cross_entropy(x, LABELS, "sum", 0.1), [LOGITS], [0]),
    "cross_entropy none ignored": (
        lambda x: F.cross_entropy(x, jnp.asarray(LABELS_IGNORED), reduction="none",
                                  ignore_index=-1),
        lambda x: _cross_entropy(x, LABELS_IGNORED, "none", 0.0, -1), [LOGITS], [0]),
    "cross_entropy mean ignored": (
        lambda x: F.cross_entropy(x, jnp.asarray(LABELS_IGNORED), ignore_index=-1),
        lambda x: _cross_entropy(x, LABELS_IGNORED, ignore_index=-1), [LOGITS], [0]),
    "cross_entropy soft targets": (F.cross_entropy, _cross_entropy, [LOGITS, SOFT], [0, 1]),
}


def _run(fn, arrays, wrt, w):
    ts = [jg.tensor(a, requires_grad=i in wrt) for i, a in enumerate(arrays)]
    out = fn(*ts)
    jnp.sum(out * jnp.asarray(w)).backward()
    return out, [ts[i].grad.numpy() for i in wrt]


@pytest.mark.parametrize("name", CASES)
def test_every_tier_matches_numpy_and_finite_differences(name):
    fn, ref, arrays, wrt = CASES[name]
    want = ref(*arrays)
    w = RNG.standard_normal(np.shape(want))
    fd = _fd_grads(ref, arrays, wrt, w)
    for call in range(fused_eager.HOT + 2):
        out, grads = _run(fn, arrays, wrt, w)
        assert (out._ctx.name == "custom_vjp_call") == (call >= fused_eager.HOT)
        np.testing.assert_allclose(out.detach().numpy(), want, rtol=1e-12, atol=1e-12)
        for g, f in zip(grads, fd):
            np.testing.assert_allclose(g, f, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("name", CASES)
def test_float32_gradients_are_jg_grads(name):
    fn, _, arrays, wrt = CASES[name]
    arrays = [a.astype(np.float32) if a.dtype.kind == "f" else a for a in arrays]
    w = RNG.standard_normal(np.shape(fn(*map(jnp.asarray, arrays)))).astype(np.float32)
    want = jg.grad(lambda *a: jnp.sum(fn(*a) * jnp.asarray(w)), argnums=tuple(wrt))(
        *map(jnp.asarray, arrays))
    for _ in range(fused_eager.HOT + 1):
        out, grads = _run(fn, arrays, wrt, w)
    assert out._ctx.name == "custom_vjp_call" and out.dtype == np.float32
    for g, v in zip(grads, want):
        assert g.dtype == np.float32
        np.testing.assert_allclose(g, v.numpy(), rtol=2e-5, atol=2e-6)


# name -> ops the backward graph of a compiled call must not hold (the forward's work)
NOT_RECOMPUTED = {"softmax": {Op.exp, Op.reduce_max}, "log_softmax": {Op.reduce_max, Op.log},
                  "gelu": {Op.erf}, "gelu tanh": {Op.tanh},
                  "cross_entropy": {Op.reduce_max, Op.log}}


@pytest.mark.parametrize("name", NOT_RECOMPUTED)
def test_backward_graph_reads_the_saved_values(name):
    fn, _, arrays, wrt = CASES[name]
    arrays = [a.astype(np.float32) if a.dtype.kind == "f" else a for a in arrays]
    for _ in range(fused_eager.HOT + 1):
        ts = [jg.tensor(a, requires_grad=i in wrt) for i, a in enumerate(arrays)]
        out = fn(*ts)
    assert out._ctx.name == "custom_vjp_call"
    jnp.sum(out).backward()
    ops = {n.op for n in eager_backward.graphs()[-1].walk_nodes()}
    assert not ops & NOT_RECOMPUTED[name], ops & NOT_RECOMPUTED[name]


def test_writing_into_a_saved_output_is_caught():
    x0 = RNG.standard_normal((4, 5)).astype(np.float32)
    for _ in range(fused_eager.HOT + 1):
        x = jg.tensor(x0, requires_grad=True)
        y = F.softmax(x, axis=-1)
    assert y._ctx.name == "custom_vjp_call"
    with jg.no_grad():
        y *= 2.0
    with pytest.raises(RuntimeError, match="modified by an in-place operation"):
        jnp.sum(y * y).backward()


def test_unrecorded_calls_compile_the_function_alone():
    """Under no_grad (or on tensors that need no grad) nothing is saved: the plain compiled
    call, the same values."""
    x0 = RNG.standard_normal((6, 8)).astype(np.float32)
    for _ in range(fused_eager.HOT + 1):
        with jg.no_grad():
            y = F.gelu(jg.tensor(x0, requires_grad=True))
        z = F.gelu(jg.tensor(x0))
    assert y._ctx is None and z._ctx is None
    for _ in range(fused_eager.HOT + 1):
        r = F.gelu(jg.tensor(x0, requires_grad=True))
    np.testing.assert_array_equal(y.numpy(), z.numpy())
    np.testing.assert_array_equal(y.numpy(), r.detach().numpy())
    np.testing.assert_array_equal(y.numpy(), jg.jit(F.gelu)(jnp.asarray(x0)).numpy())


@pytest.mark.parametrize("name, fn, arrays", [
    ("layer_norm float64 x, float32 weight", lambda x, w: F.layer_norm(x, (6,), w),
     [X, W6.astype(np.float32)]),
    ("cross_entropy float32 logits, float64 targets", F.cross_entropy,
     [LOGITS.astype(np.float32), SOFT]),
])
def test_cotangents_take_each_arguments_dtype(name, fn, arrays):
    want = jg.grad(lambda *a: jnp.sum(fn(*a)), argnums=(0, 1))(*map(jnp.asarray, arrays))
    for _ in range(fused_eager.HOT + 1):
        ts = [jg.tensor(a, requires_grad=True) for a in arrays]
        out = fn(*ts)
    assert out._ctx.name == "custom_vjp_call"
    jnp.sum(out).backward()
    for t, v in zip(ts, want):
        assert t.grad.dtype == t.dtype == v.dtype
        np.testing.assert_allclose(t.grad.numpy(), v.numpy(), rtol=1e-5, atol=1e-6)
