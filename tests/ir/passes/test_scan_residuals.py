"""What a scan's forward loop stacks for its backward: cheap elementwise values (sigmoid's
s * (1 - s)) are recomputed in the reverse loop, not stacked (ir/autodiff/scan_vjp.py); repeated
or unread stacked outputs are dropped (prune_scan_ys). Structure, and gradients against finite
differences."""
import numpy as np

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad.ir.interpreter import interpret
from jitgrad.ir.ops import Op
from jitgrad.ir.passes.dce import dce
from jitgrad.ir.passes.prune_scan_ys import prune_scan_ys

rng = np.random.default_rng(7)


def _sig(x):
    return 1.0 / (1.0 + jnp.exp(-x))


def _loss(w, xs):
    def cell(h, x):
        s = jg.nn.functional.sigmoid(h @ w + x)
        h = s * jnp.tanh(x)
        return h, h
    _, hs = jg.scan(cell, jnp.zeros((3, 4), dtype=jnp.float64), xs)
    return jnp.sum(hs * hs)


def test_sigmoid_derivative_not_stacked():
    w, xs = rng.standard_normal((4, 4)) * 0.5, rng.standard_normal((6, 3, 4))
    g = jg.make_graph(jg.grad(_loss))(w, xs)
    fwd = [n for n in g.walk_nodes() if n.op == Op.scan and not n.params["reverse"]]
    (b,) = [n for n in g.walk_nodes() if n.op == Op.scan and n.params["reverse"]]
    for f in fwd:          # the primal scan and the VJP's forward scan (merged later)
        body = f.params["body"]
        made = body.producers()
        for v in body.outputs[f.params["n_carry"]:]:     # not 1 - s, not s * (1 - s)
            n = made.get(v)
            if v is body.outputs[0] or n is None:          # h = s * tanh(x) itself: the carry
                continue
            assert not (n.op in (Op.sub, Op.mul) and any(
                made.get(u) is not None and made[u].op == Op.sigmoid for u in n.inputs))
    assert any(n.op == Op.sub for n in b.params["body"].nodes)        # 1 - s, recomputed


def test_gradient_finite_differences():
    w, xs = rng.standard_normal((4, 4)) * 0.5, rng.standard_normal((6, 3, 4))
    got = np.asarray(jg.jit(jg.grad(_loss))(w, xs))
    eps = 1e-6
    for i, j in [(0, 0), (1, 3), (3, 2)]:
        d = np.zeros_like(w)
        d[i, j] = eps
        fd = (float(_loss(w + d, xs)) - float(_loss(w - d, xs))) / (2 * eps)
        np.testing.assert_allclose(got[i, j], fd, rtol=1e-6, atol=1e-7)


def test_prune_repeated_and_unread_ys():
    def f(xs):
        def body(c, x):
            c = c + x
            return c, (c, c * 2.0, c, x)
        c, (a, b, a2, _) = jg.scan(body, jnp.zeros(3, dtype=jnp.float64), xs)
        return c, a, a2, b
    xs = rng.standard_normal((5, 3))
    g = jg.make_graph(f)(xs)
    new = dce(prune_scan_ys(g))
    (scan,) = [n for n in new.nodes if n.op == Op.scan]
    assert len(scan.outputs) == 1 + 2          # the carry, c stacked once, c * 2
    for got, want in zip(interpret(new, [xs]), interpret(g, [xs])):
        np.testing.assert_array_equal(got, want)
