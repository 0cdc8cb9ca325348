"""numba written by hand, as well as we can: one fused loop per workload, prange where it helps.

- Constants are float32: an int or float64 constant silently promotes the loop to float64.
- numba's tanh is a scalar libm call that LLVM does not vectorize (FACTS.md: 161 ms for 10M),
  while np.exp on float32 vectorizes; so tanh and sigmoid are written with one exp each.
- fastmath without nnan/ninf: exp may overflow to inf on purpose (1/(1+inf) = 0).
- The training steps keep their loops serial: prange threads and OpenBLAS threads compete
  (FACTS.md: 45 ms instead of 5.4 ms for the MLP step), and the matmuls dominate anyway.
- cache=True so the first-call benchmark can measure loading from disk.
"""
import numba
import numpy as np
from numba import njit, prange

from .impl import Impl, collect
from .workloads import LR

f32 = np.float32
FAST = {"nsz", "arcp", "contract", "afn", "reassoc"}
GELU_C = f32(np.sqrt(2 / np.pi))
ONE, TWO = f32(1), f32(2)
jit_parallel = njit(parallel=True, fastmath=FAST, cache=True)
jit_serial = njit(fastmath=FAST, cache=True)


@jit_parallel
def ew_chain(x):
    out = np.empty_like(x)
    for i in prange(x.size):
        v = x[i]
        tanh = ONE - TWO / (np.exp(TWO * (v * f32(1.5) + f32(0.3))) + ONE)
        out[i] = tanh / (ONE + np.exp(-v)) + np.exp(-v * v)
    return out


@jit_parallel
def gelu(x):
    out = np.empty_like(x)
    for i in prange(x.size):
        v = x[i]
        # 0.5*v*(1 + tanh(u)) == v * sigmoid(2u)
        out[i] = v / (ONE + np.exp(-TWO * GELU_C * (v + f32(0.044715) * v * v * v)))
    return out


@jit_parallel
def softmax(x):
    out = np.empty_like(x)
    for r in prange(x.shape[0]):
        row, o = x[r], out[r]
        m = row.max()
        s = f32(0)
        for j in range(row.size):
            o[j] = np.exp(row[j] - m)
            s += o[j]
        inv = ONE / s
        for j in range(row.size):
            o[j] *= inv
    return out


@jit_parallel
def layernorm(x):
    out = np.empty_like(x)
    n = f32(x.shape[1])
    for r in prange(x.shape[0]):
        row = x[r]
        mean = row.sum() / n
        var = f32(0)
        for j in range(row.size):
            d = row[j] - mean
            var += d * d
        inv = ONE / np.sqrt(var / n + f32(1e-5))
        for j in range(row.size):
            out[r, j] = (row[j] - mean) * inv
    return out


@jit_parallel
def sum_sq(x):
    acc = f32(0)
    for i in prange(x.size):
        acc += x[i] * x[i]
    return acc


@jit_serial
def _softmax_ce_grad(logits, y):
    """In place: logits become d(mean CE)/d(logits); returns the mean CE."""
    batch, classes = logits.shape
    loss = f32(0)
    for r in range(batch):
        m = logits[r].max()
        s = f32(0)
        for j in range(classes):
            s += np.exp(logits[r, j] - m)
        log_s = np.log(s)
        for j in range(classes):
            z = logits[r, j] - m
            loss -= y[r, j] * (z - log_s)
            logits[r, j] = (np.exp(z) / s - y[r, j]) / f32(batch)
    return loss / f32(batch)


@jit_serial
def _sgd(p, g):
    out = np.empty_like(p)
    flat_out, flat_p, flat_g = out.reshape(-1), p.reshape(-1), g.reshape(-1)
    for i in range(flat_p.size):
        flat_out[i] = flat_p[i] - f32(LR) * flat_g[i]
    return out


@jit_serial
def _bias_relu(h, b):
    for r in range(h.shape[0]):
        for j in range(h.shape[1]):
            h[r, j] = max(h[r, j] + b[j], f32(0))


@jit_serial
def _relu_grad(d, h):
    for r in range(d.shape[0]):
        for j in range(d.shape[1]):
            if h[r, j] <= 0:
                d[r, j] = f32(0)


@jit_serial
def logreg_step(w, x, y):
    dlogits = x @ w
    _softmax_ce_grad(dlogits, y)
    return _sgd(w, x.T @ dlogits)


@jit_serial
def mlp_step(params, x, y):
    w1, b1, w2, b2, w3, b3 = params
    h1 = x @ w1
    _bias_relu(h1, b1)
    h2 = h1 @ w2
    _bias_relu(h2, b2)
    d3 = h2 @ w3
    for r in range(d3.shape[0]):
        d3[r] += b3
    loss = _softmax_ce_grad(d3, y)
    d2 = d3 @ w3.T
    _relu_grad(d2, h2)
    d1 = d2 @ w2.T
    _relu_grad(d1, h1)
    new = (_sgd(w1, x.T @ d1), _sgd(b1, d1.sum(axis=0)), _sgd(w2, h1.T @ d2),
           _sgd(b2, d2.sum(axis=0)), _sgd(w3, h2.T @ d3), _sgd(b3, d3.sum(axis=0)))
    return new, loss


@jit_serial
def call_overhead(x):
    out = np.empty_like(x)
    for i in range(x.size):
        out[i] = x[i] * TWO + ONE
    return out


IMPLS = [Impl("numba", numba.__version__, collect(globals()))]
