"""jitgrad.nn's jax.nn functions and jax.nn.initializers: values against NumPy formulas (eager
and jit), float64 gradients, dot_product_attention against a NumPy reference, initializer
statistics; with jax installed, a cross-check against jax.nn itself."""
import math

import numpy as np
import pytest

import jitgrad as jg
import jitgrad.nn as nn
import jitgrad.numpy as jnp
from jitgrad.nn import initializers as init
from jitgrad.test_util import check_grads

X = np.linspace(-4.0, 4.0, 33)
SELU_A, SELU_S = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


def _softplus(x):
    return np.logaddexp(x, 0.0)


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))


def _softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


# name -> (call, NumPy reference of X)
ELEMENTWISE = {
    "relu": (nn.relu, lambda x: np.maximum(x, 0)),
    "relu6": (nn.relu6, lambda x: np.clip(x, 0, 6)),
    "sigmoid": (nn.sigmoid, _sigmoid),
    "tanh": (nn.tanh, np.tanh),
    "softplus": (nn.softplus, _softplus),
    "log_sigmoid": (nn.log_sigmoid, lambda x: -_softplus(-x)),
    "silu": (nn.silu, lambda x: x * _sigmoid(x)),
    "swish": (nn.swish, lambda x: x * _sigmoid(x)),
    "identity": (nn.identity, lambda x: x),
    "leaky_relu": (lambda x: nn.leaky_relu(x, 0.2), lambda x: np.where(x >= 0, x, 0.2 * x)),
    "elu": (lambda x: nn.elu(x, 0.5), lambda x: np.where(x > 0, x, 0.5 * np.expm1(x))),
    "celu": (lambda x: nn.celu(x, 2.0),
             lambda x: np.maximum(x, 0) + 2.0 * np.expm1(np.minimum(x, 0) / 2.0)),
    "selu": (nn.selu, lambda x: SELU_S * np.where(x > 0, x, SELU_A * np.expm1(x))),
    "gelu": (nn.gelu, _gelu_tanh),
    "hard_tanh": (nn.hard_tanh, lambda x: np.clip(x, -1, 1)),
    "hard_sigmoid": (nn.hard_sigmoid, lambda x: np.clip(x + 3, 0, 6) / 6),
    "hard_silu": (nn.hard_silu, lambda x: x * np.clip(x + 3, 0, 6) / 6),
    "hard_swish": (nn.hard_swish, lambda x: x * np.clip(x + 3, 0, 6) / 6),
    "mish": (nn.mish, lambda x: x * np.tanh(_softplus(x))),
    "soft_sign": (nn.soft_sign, lambda x: x / (np.abs(x) + 1)),
    "squareplus": (lambda x: nn.squareplus(x, 2.0), lambda x: (x + np.sqrt(x * x + 2.0)) / 2),
    "sparse_plus": (nn.sparse_plus,
                    lambda x: np.where(x <= -1, 0, np.where(x >= 1, x, (x + 1) ** 2 / 4))),
    "sparse_sigmoid": (nn.sparse_sigmoid, lambda x: np.clip(x + 1, 0, 2) / 2),
    "log1mexp": (lambda x: nn.log1mexp(jnp.abs(x) + 0.01),
                 lambda x: np.log(-np.expm1(-(np.abs(x) + 0.01)))),
    "glu": (lambda x: nn.glu(x[:32]), lambda x: x[:16] * _sigmoid(x[16:32])),
}


@pytest.mark.parametrize("name", sorted(ELEMENTWISE))
def test_elementwise_eager_and_jit(name):
    call, ref = ELEMENTWISE[name]
    np.testing.assert_allclose(call(X).numpy(), ref(X), rtol=1e-12, atol=1e-12)
    got = jg.jit(call)(X.astype(np.float32)).numpy()
    np.testing.assert_allclose(got, ref(X.astype(np.float32)), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", ["sigmoid", "softplus", "celu", "selu", "gelu", "mish",
                                  "soft_sign", "squareplus", "log1mexp", "glu", "hard_silu"])
def test_gradients(name):
    call, _ = ELEMENTWISE[name]
    # log1mexp's call takes |x| + 0.01: keep away from 0, where its slope is steep
    x = X + 4.5 if name == "log1mexp" else X + 0.013
    check_grads(call, (x,), order=1, modes=("rev",))


A = np.random.RandomState(0).randn(3, 5)
KEEP = A > -0.5


def test_reductions_with_axis_and_where():
    np.testing.assert_allclose(nn.softmax(A, axis=0).numpy(), _softmax(A, 0))
    np.testing.assert_allclose(nn.log_softmax(A).numpy(), np.log(_softmax(A)))
    masked = np.where(KEEP, A, -np.inf)
    np.testing.assert_allclose(nn.softmax(A, where=KEEP).numpy(),
                               np.where(KEEP, _softmax(masked), 0.0))
    with np.errstate(divide="ignore"):
        want = np.where(KEEP, np.log(_softmax(masked)), -np.inf)
    np.testing.assert_allclose(nn.log_softmax(A, where=KEEP).numpy(), want)
    lse = np.log(np.exp(A).sum(axis=1))
    np.testing.assert_allclose(nn.logsumexp(A, axis=1).numpy(), lse)
    np.testing.assert_allclose(nn.logmeanexp(A, axis=1).numpy(), lse - math.log(5))
    np.testing.assert_allclose(nn.logmeanexp(A, axis=1, where=KEEP).numpy(),
                               np.log((np.exp(A) * KEEP).sum(1) / KEEP.sum(1)))
    mu, var = A.mean(-1, keepdims=True), A.var(-1, keepdims=True)
    np.testing.assert_allclose(nn.standardize(A).numpy(), (A - mu) / np.sqrt(var + 1e-5))
    np.testing.assert_allclose(nn.standardize(A, axis=0, algorithm="stable").numpy(),
                               (A - A.mean(0)) / np.sqrt(A.var(0) + 1e-5))


def test_one_hot_takes_axis_and_dtype():
    i = np.array([[0, 2, 5], [-1, 1, 3]])
    got = nn.one_hot(i, 4)
    assert got.dtype == np.float32 and got.shape == (2, 3, 4)
    np.testing.assert_array_equal(got.numpy(), (i[..., None] == np.arange(4)).astype(np.float32))
    np.testing.assert_array_equal(nn.one_hot(i, 4, axis=0, dtype=np.int32).numpy(),
                                  np.moveaxis((i[..., None] == np.arange(4)), -1, 0))


def _attention(q, k, v, keep, scale):
    """NumPy attention over (B, T, N, H) with (B, S, K, H) keys/values."""
    g = q.shape[2] // k.shape[2]
    k, v = np.repeat(k, g, axis=2), np.repeat(v, g, axis=2)
    logits = np.einsum("btnh,bsnh->bnts", q, k) * scale
    logits = np.where(keep, logits, -0.7 * np.finfo(np.float32).max)
    return np.einsum("bnts,bsnh->btnh", _softmax(logits), v)


R = np.random.RandomState(1)
Q, K, V = R.randn(2, 4, 6, 8), R.randn(2, 5, 3, 8), R.randn(2, 5, 3, 8)
MASK = R.rand(2, 6, 4, 5) > 0.3


def test_dot_product_attention():
    full = np.ones((1, 1, 4, 5), bool)
    causal = np.tril(np.ones((4, 5), bool))[None, None]
    np.testing.assert_allclose(nn.dot_product_attention(Q, K, V).numpy(),
                               _attention(Q, K, V, full, 1 / math.sqrt(8)), rtol=1e-10)
    np.testing.assert_allclose(nn.dot_product_attention(Q, K, V, mask=MASK, is_causal=True,
                                                        scale=0.3).numpy(),
                               _attention(Q, K, V, MASK & causal, 0.3), rtol=1e-10)
    bias = R.randn(2, 6, 4, 5)
    np.testing.assert_allclose(nn.dot_product_attention(Q, K, V, bias=bias).numpy(),
                               _attention_with_bias(Q, K, V, bias), rtol=1e-10)
    out, lse = nn.dot_product_attention(Q[0], K[0], V[0], return_residual=True)
    assert out.shape == (4, 6, 8) and lse.shape == (4, 6)
    lengths = nn.dot_product_attention(Q, K, V, query_seq_lengths=np.array([2, 4]))
    assert np.all(lengths.numpy()[0, 2:] == 0)
    f = jg.jit(lambda q, k, v: nn.dot_product_attention(q, k, v, is_causal=True))
    np.testing.assert_allclose(f(Q, K, V).numpy(), _attention(Q, K, V, causal, 1 / math.sqrt(8)),
                               rtol=1e-10)
    check_grads(lambda q, v: nn.dot_product_attention(q, K, v, mask=MASK), (Q, V), order=1,
                modes=("rev",))


def _attention_with_bias(q, k, v, bias):
    g = q.shape[2] // k.shape[2]
    k, v = np.repeat(k, g, axis=2), np.repeat(v, g, axis=2)
    logits = np.einsum("btnh,bsnh->bnts", q, k) / math.sqrt(8) + bias
    return np.einsum("bnts,bsnh->btnh", _softmax(logits), v)


@pytest.mark.parametrize("call,error,match", [
    (lambda: nn.glu(np.ones(3)), ValueError, "even size"),
    (lambda: nn.standardize(A, algorithm="slow"), ValueError, "'fast' or 'stable'"),
    (lambda: nn.dot_product_attention(Q, np.ones((2, 5, 4, 8)), np.ones((2, 5, 4, 8))),
     ValueError, "multiple"),
    (lambda: nn.dot_product_attention(Q, K, V, implementation="cudnn"), ValueError, "cudnn"),
    (lambda: init.variance_scaling(1.0, "fan_mid", "normal"), ValueError, "mode must be"),
    (lambda: init.variance_scaling(1.0, "fan_in", "cauchy"), ValueError, "distribution"),
    (lambda: init.orthogonal()(jg.random.key(0), (3,)), ValueError, "at least a 2D"),
    (lambda: init.delta_orthogonal()(jg.random.key(0), (3, 3)), ValueError, "3D, 4D or 5D"),
])
def test_errors(call, error, match):
    with pytest.raises(error, match=match):
        call()


KEY = jg.random.key(0)
SHAPE = (3, 3, 64, 128)         # HWIO: receptive field 9, fan_in 576, fan_out 1152


@pytest.mark.parametrize("name,variance", [
    ("glorot_normal", 2 / (576 + 1152)), ("glorot_uniform", 2 / (576 + 1152)),
    ("xavier_normal", 2 / (576 + 1152)), ("he_normal", 2 / 576), ("kaiming_uniform", 2 / 576),
    ("lecun_normal", 1 / 576), ("lecun_uniform", 1 / 576)])
def test_variance_scaling_initializers(name, variance):
    w = getattr(init, name)()(KEY, SHAPE)
    assert w.shape == SHAPE and w.dtype == np.float32
    assert abs(float(w.numpy().var()) / variance - 1) < 0.05


def test_simple_initializers():
    assert init.zeros(KEY, (2, 3)).tolist() == [[0.0] * 3] * 2
    assert init.ones(KEY, (2,), np.float64).dtype == np.float64
    assert init.constant(7.0)(KEY, (2,)).tolist() == [7.0, 7.0]
    u = init.uniform(2.0)(KEY, (4000,)).numpy()
    assert u.min() >= 0 and u.max() < 2 and abs(u.mean() - 1) < 0.05
    n = init.normal(3.0)(KEY, (4000,)).numpy()
    assert abs(n.std() / 3 - 1) < 0.05
    t = init.truncated_normal(1.0, lower=-1.0, upper=1.0)(KEY, (4000,)).numpy()
    assert t.min() >= -1 and t.max() <= 1
    assert init.compute_fans((3, 3, 64, 128)) == (576, 1152)


def test_orthogonal_initializers():
    w = init.orthogonal(2.0)(KEY, (5, 3)).numpy()
    np.testing.assert_allclose(w.T @ w, 4 * np.eye(3), atol=1e-5)
    d = init.delta_orthogonal()(KEY, (3, 3, 4, 4)).numpy()
    np.testing.assert_allclose(d[1, 1].T @ d[1, 1], np.eye(4), atol=1e-5)
    assert np.count_nonzero(d) == np.count_nonzero(d[1, 1])


def test_stax_uses_these_initializers():
    from jitgrad.example_libraries import stax
    assert stax.glorot_normal is init.glorot_normal and stax.zeros is init.zeros


def test_agrees_with_jax():
    jax_nn = pytest.importorskip("jax.nn")
    x = X.astype(np.float32)
    for name in ["relu", "gelu", "selu", "celu", "mish", "hard_swish", "sparse_plus", "log1mexp",
                 "squareplus", "soft_sign", "glu", "standardize", "log_softmax"]:
        arg = np.abs(x) + 0.01 if name == "log1mexp" else x[:32] if name == "glu" else x
        np.testing.assert_allclose(getattr(nn, name)(arg).numpy(),
                                   np.asarray(getattr(jax_nn, name)(arg)), rtol=2e-5, atol=1e-6,
                                   err_msg=name)
    q, k, v = (t.astype(np.float32) for t in (Q, K, V))
    np.testing.assert_allclose(nn.dot_product_attention(q, k, v, mask=MASK, is_causal=True)
                               .numpy(),
                               np.asarray(jax_nn.dot_product_attention(q, k, v, mask=MASK,
                                                                       is_causal=True)),
                               rtol=1e-5, atol=1e-6)
