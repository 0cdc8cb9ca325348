"""join_pads: a sum of zero pads tiling one axis (the cotangent of `split`) is one concatenate;
values against the reference interpreter, the LSTM-style gate split's gradient, cases left alone."""
import numpy as np

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad.ir.interpreter import interpret
from jitgrad.ir.ops import Op
from jitgrad.ir.passes.dce import dce
from jitgrad.ir.passes.join_pads import join_pads

rng = np.random.default_rng(5)


def _ops(g):
    return [n.op for n in g.walk_nodes()]


def _same(g, args):
    new = dce(join_pads(g))
    for a, b in zip(interpret(new, args), interpret(g, args)):
        np.testing.assert_array_equal(a, b)
    return new


def test_split_cotangent_is_one_concatenate():
    def loss(x):
        a, b, c, d = jnp.split(x, 4, axis=-1)
        return jnp.sum(jnp.tanh(a) * b + c * c - jnp.sin(d))

    x = rng.standard_normal((3, 16))
    g = jg.make_graph(jg.grad(loss))(x)
    assert Op.pad in _ops(g)
    new = _same(g, [x])
    assert Op.pad not in _ops(new) and _ops(new).count(Op.concatenate) == 1
    np.testing.assert_allclose(np.asarray(jg.jit(jg.grad(loss))(x)),
                               interpret(g, [x])[0], rtol=1e-12, atol=1e-12)


def test_inside_a_scan_body():
    def loss(xs):
        def body(c, x):
            a, b = jnp.split(x, 2, axis=-1)
            return c + jnp.sum(a * b), a
        return jnp.sum(jg.scan(body, 0.0, xs)[1] ** 2)

    xs = rng.standard_normal((4, 2, 6))
    new = _same(jg.make_graph(jg.grad(loss))(xs), [xs])
    assert Op.concatenate in _ops(new)


def test_left_alone():
    """Pieces that overlap, leave a gap, or pad two axes; a non-zero pad value."""
    a, b = rng.standard_normal((2, 3)), rng.standard_normal((2, 3))
    cases = [lambda a, b: jnp.pad(a, ((0, 0), (0, 2))) + jnp.pad(b, ((0, 0), (2, 0))),
             lambda a, b: jnp.pad(a, ((0, 0), (0, 4))) + jnp.pad(b, ((0, 0), (4, 0))),
             lambda a, b: jnp.pad(a, ((0, 1), (0, 3))) + jnp.pad(b, ((1, 0), (3, 0))),
             lambda a, b: jnp.pad(a, ((0, 0), (0, 3)), constant_values=1.0)
             + jnp.pad(b, ((0, 0), (3, 0)))]
    for f in cases:
        g = jg.make_graph(f)(a, b)
        assert Op.concatenate not in _ops(_same(g, [a, b]))
    tiled = lambda a, b: jnp.pad(a, ((0, 0), (0, 3))) + jnp.pad(b, ((0, 0), (3, 0)))  # noqa: E731
    g = jg.make_graph(tiled)(a, b)
    assert Op.concatenate in _ops(_same(g, [a, b]))
