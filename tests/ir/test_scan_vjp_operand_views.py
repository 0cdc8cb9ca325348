"""scan's VJP keeps a transpose of a loop-invariant matrix in the reverse loop's body when the
backward part reads it only as the right operand of a deep product (the `g @ W_hh` of an LSTM's
`h @ W_hh.T`, ir/autodiff/scan_vjp.py): the product reads it with a transposed-operand flag
instead of a hoisted copy. Structure, and gradients against finite differences on every path."""
import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad.ir.ops import Op
from jitgrad.ir.autodiff.scan_vjp import VIEW_BYTES, VIEW_DEPTH

rng = np.random.default_rng(11)
# (H, G) of a float64 weight over VIEW_BYTES with a deep contraction G: read as a view
H_DEEP = VIEW_BYTES // (8 * VIEW_DEPTH) + 1


def _loss(wt, xs):
    """A tanh cell h' = tanh(h @ wt[:, :H] + x) over xs; wt is (H, G): the backward's product
    g @ wt.T contracts over G."""
    h_size = wt.shape[0]

    def cell(h, x):
        h = jnp.tanh(jnp.matmul(h, wt)[:, :h_size] + x[:, :h_size])
        return h, h
    _, hs = jg.scan(cell, jnp.zeros((2, h_size), dtype=jnp.float64), xs)
    return jnp.sum(hs * hs)


def _loss_reads_transpose_forward(w, xs):
    """h @ w.T inside the body: the forward part reads the transpose too, so it stays hoisted."""
    h_size = w.shape[1]

    def cell(h, x):
        h = jnp.tanh(jnp.matmul(h, jnp.transpose(w))[:, :h_size] + x[:, :h_size])
        return h, h
    _, hs = jg.scan(cell, jnp.zeros((2, h_size), dtype=jnp.float64), xs)
    return jnp.sum(hs * hs)


def _reverse_body_transposes(fn, w, xs):
    g = jg.make_graph(jg.grad(fn))(w, xs)
    (rev,) = [n for n in g.walk_nodes() if n.op == Op.scan and n.params["reverse"]]
    return [n for n in rev.params["body"].nodes        # of the weight, not of the h of dW
            if n.op == Op.transpose and tuple(n.inputs[0].type.shape) == w.shape]


def _check_finite_differences(fn, w, xs, grad_fn):
    got = np.asarray(grad_fn(w, xs))
    eps = 1e-6
    for idx in [(0, 0), (1, 3), (w.shape[0] - 1, w.shape[1] - 1)]:
        d = np.zeros_like(w)
        d[idx] = eps
        fd = (float(fn(w + d, xs)) - float(fn(w - d, xs))) / (2 * eps)
        np.testing.assert_allclose(got[idx], fd, rtol=1e-5, atol=1e-8)


def _xs():
    return rng.standard_normal((3, 2, VIEW_DEPTH))       # a cell of H units reads x[:, :H]


def test_deep_large_matrix_is_read_transposed_in_the_loop():
    wt, xs = rng.standard_normal((H_DEEP, VIEW_DEPTH)) * 0.1, _xs()
    g = jg.make_graph(jg.grad(_loss))(wt, xs)
    (rev,) = [n for n in g.walk_nodes() if n.op == Op.scan and n.params["reverse"]]
    body = rev.params["body"]
    (t,) = [n for n in body.nodes
            if n.op == Op.transpose and tuple(n.inputs[0].type.shape) == wt.shape]
    readers = [n for n in body.nodes if t.outputs[0] in n.inputs]
    assert readers and all(n.op == Op.matmul and n.inputs[1] is t.outputs[0] for n in readers)


@pytest.mark.parametrize("shape", [(4, 16), (4, VIEW_DEPTH), (H_DEEP + 71, VIEW_DEPTH - 1)],
                         ids=["shallow-small", "deep-small", "shallow-large"])
def test_small_or_shallow_matrix_stays_hoisted(shape):
    wt, xs = rng.standard_normal(shape) * 0.1, _xs()
    assert _reverse_body_transposes(_loss, wt, xs) == []


@pytest.mark.parametrize("fn, shape", [(_loss, (H_DEEP, VIEW_DEPTH)),
                                       (_loss_reads_transpose_forward, (VIEW_DEPTH, H_DEEP))])
def test_gradient_finite_differences_jit(fn, shape):
    w, xs = rng.standard_normal(shape) * 0.1, _xs()
    _check_finite_differences(fn, w, xs, jg.jit(jg.grad(fn)))


@pytest.mark.interpreter
@pytest.mark.parametrize("fn, shape", [(_loss, (H_DEEP, VIEW_DEPTH)),
                                       (_loss_reads_transpose_forward, (VIEW_DEPTH, H_DEEP))])
def test_gradient_finite_differences_interpreter(fn, shape):
    w, xs = rng.standard_normal(shape) * 0.1, _xs()
    _check_finite_differences(fn, w, xs, jg.jit(jg.grad(fn)))


def test_gradient_eager_matches_jit():
    wt, xs = rng.standard_normal((H_DEEP, VIEW_DEPTH)) * 0.1, _xs()
    np.testing.assert_allclose(np.asarray(jg.grad(_loss)(wt, xs)),
                               np.asarray(jg.jit(jg.grad(_loss))(wt, xs)), rtol=1e-10)
