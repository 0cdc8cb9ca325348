"""Every primitive's VJP and JVP rule, checked against central differences (check_grads, order 2,
both modes, float64) on the primitive itself, over several shapes including broadcasting; plus
the conventions at kinks and the stable formulas."""
import math

import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
import jitgrad.nn.functional as F
from jitgrad.eager.dispatch import apply
from jitgrad.ir import Op
from jitgrad.ir.registry import NON_DIFFERENTIABLE, RECORDS
from jitgrad.ir.autodiff import JVP_RULES, VJP_RULES
from jitgrad.test_util import check_grads


def prim(op, **params):
    return lambda *xs: apply(op, list(xs), params)


def idx(*a):
    return jnp.asarray(np.array(a, dtype=np.int64))


ANY, POS, UNIT, GE1 = (-2.0, 2.0), (0.5, 2.0), (-0.9, 0.9), (1.1, 3.0)
UNARY_SHAPES = [(), (5,), (2, 3)]
BINARY_SHAPES = [((), ()), ((2, 3), (3,)), ((3, 1), (1, 4)), ((), (2, 3)), ((2, 3), (2, 3))]


def unary(op, dom=ANY, **params):
    return [(prim(op, **params), [s], dom) for s in UNARY_SHAPES]


def binary(op, dom=(ANY, ANY)):
    return [(prim(op), list(s), dom) for s in BINARY_SHAPES]


# op -> [(function of float64 arrays, argument shapes, domain per argument or for all)]
CASES = {
    **{op: unary(op) for op in (Op.exp, Op.expm1, Op.sin, Op.cos, Op.tanh, Op.atan, Op.sinh,
                                Op.cosh, Op.asinh, Op.erf, Op.sigmoid, Op.neg, Op.square)},
    **{op: unary(op, POS) for op in (Op.log, Op.log1p, Op.sqrt, Op.rsqrt)},
    **{op: unary(op, UNIT) for op in (Op.tan, Op.asin, Op.acos, Op.atanh)},
    Op.acosh: unary(Op.acosh, GE1),
    Op.abs: unary(Op.abs, POS) + [(prim(Op.abs), [(4,)], (-2.0, -0.5))],
    Op.convert: [(lambda x: apply(Op.convert, [prim(Op.convert, dtype=np.dtype("float32"))(x)],
                                  {"dtype": np.dtype("float64")}), [(3,)], ANY)],
    **{op: binary(op) for op in (Op.add, Op.sub, Op.mul, Op.max, Op.min)},
    Op.div: binary(Op.div, (ANY, POS)),
    Op.pow: binary(Op.pow, (POS, ANY)),
    Op.atan2: binary(Op.atan2, (POS, ANY)),
    Op.mod: [(prim(Op.mod), [(2, 3), (3,)], ((2.1, 2.9), (1.0, 1.05)))],
    Op.select: [(lambda a, b, m=m: apply(Op.select, [jnp.asarray(m), a, b]), s, ANY)
                for m, s in [(np.array([True, False, True]), [(2, 3), (3,)]),
                             (np.array([[True], [False]]), [(), (2, 3)])]],
    Op.reduce_sum: [(prim(Op.reduce_sum, axes=a), [s], ANY)
                    for s, a in [((5,), (0,)), ((2, 3, 4), (0, 2)), ((2, 3), (1,))]],
    Op.reduce_max: [(prim(Op.reduce_max, axes=a), [s], ANY)
                    for s, a in [((5,), (0,)), ((2, 3, 4), (0, 2))]],
    Op.reduce_min: [(prim(Op.reduce_min, axes=a), [s], ANY)
                    for s, a in [((5,), (0,)), ((2, 3, 4), (1,))]],
    Op.reduce_prod: [(prim(Op.reduce_prod, axes=a), [s], (0.6, 1.4))
                     for s, a in [((5,), (0,)), ((2, 3, 4), (0, 2))]],
    Op.cumsum: [(prim(Op.cumsum, axis=a), [s], ANY) for s, a in [((5,), 0), ((2, 3, 4), 1)]],
    Op.sort: [(prim(Op.sort, axis=a), [s], ANY)
              for s, a in [((5,), 0), ((3, 4), 0), ((2, 3, 4), 2)]],
    Op.reshape: [(prim(Op.reshape, shape=(3, 2)), [(2, 3)], ANY),
                 (prim(Op.reshape, shape=(1,)), [()], ANY)],
    Op.transpose: [(prim(Op.transpose, perm=(1, 2, 0)), [(2, 3, 4)], ANY)],
    Op.broadcast_to: [(prim(Op.broadcast_to, shape=(2, 3, 4)), [s], ANY)
                      for s in [(), (4,), (3, 1), (1, 3, 4)]],
    Op.slice: [(prim(Op.slice, start=(1,), stop=(4,), step=(1,)), [(5,)], ANY),
               (prim(Op.slice, start=(0, 1), stop=(5, 7), step=(2, 3)), [(5, 7)], ANY),
               (prim(Op.slice, start=(1, 0), stop=(4, 6), step=(2, 4)), [(5, 7)], ANY)],
    Op.rev: [(prim(Op.rev, axes=(0,)), [(4,)], ANY), (prim(Op.rev, axes=(0, 2)), [(2, 3, 4)], ANY)],
    Op.pad: [(prim(Op.pad, lo=(1, 0), hi=(2, 3), value=0.5), [(2, 3)], ANY)],
    Op.concatenate: [(prim(Op.concatenate, axis=0), [(2, 3), (1, 3)], ANY),
                     (prim(Op.concatenate, axis=1), [(2, 1), (2, 3), (2, 2)], ANY)],
    Op.take: [(lambda x: apply(Op.take, [x, idx(0, 2, 2, 1)], {"axis": 0}), [(3,)], ANY),
              (lambda x: apply(Op.take, [x, idx([3, 0], [1, 1])], {"axis": 1}), [(2, 4)], ANY)],
    Op.scatter_add: [(lambda u: apply(Op.scatter_add, [idx(0, 2, 2), u],
                                      {"shape": (4, 2), "axis": 0}), [(3, 2)], ANY)],
    Op.im2col: [(prim(Op.im2col, starts=((0, 0), (1, 2), (0, 1)), rows=2, length=3),
                 [(2, 3, 5)], ANY)],
    Op.col2im: [(prim(Op.col2im, starts=((0, 0), (1, 2), (1, 1)), rows=2, length=3,
                      size=(3, 5)), [(2, 6, 3)], ANY)],
    Op.matmul: [(prim(Op.matmul), s, ANY) for s in [[(3, 4), (4, 2)], [(2, 3, 4), (4, 2)],
                                                    [(2, 1, 3, 4), (3, 4, 2)]]],
}


def _spd(x):        # a well-conditioned symmetric positive-definite matrix from any x
    return jnp.matmul(x, jnp.swapaxes(x, -1, -2)) + 3.0 * jnp.eye(x.shape[-1], dtype=x.dtype)


def _spread(x):     # singular values near 3, 2, 1, ...: well apart, so derivatives are smooth
    m, n = x.shape[-2:]
    k = min(m, n)
    return 0.2 * x + jnp.asarray(np.eye(m, n) * np.pad(np.arange(k + 1, 1, -1), (0, n - k)))


def _sq(outs):      # squares: singular / eigen vectors are defined up to sign
    return tuple(o * o for o in outs)


# the decompositions on inputs where their derivatives exist (distinct eigenvalues / singular
# values, full rank); several outputs come back as a tuple
CASES.update({
    Op.cholesky: [(lambda x: apply(Op.cholesky, [_spd(x)]), [(3, 3)], ANY),
                  (lambda x: apply(Op.cholesky, [_spd(x)]), [(2, 3, 3)], ANY)],
    Op.eigh: [(lambda x: _sq(apply(Op.eigh, [_spd(x)])), [(3, 3)], ANY),
              (lambda x: _sq(apply(Op.eigh, [_spread(x + jnp.swapaxes(x, -1, -2))])),
               [(2, 4, 4)], ANY)],
    Op.svd: [(lambda x: _sq(apply(Op.svd, [_spread(x)], {"full_matrices": False})), [s], ANY)
             for s in [(3, 3), (4, 2), (2, 2, 4)]],
    Op.qr: [(lambda x: apply(Op.qr, [x], {"mode": "reduced"}), [s], ANY)
            for s in [(3, 3), (4, 2), (2, 3, 2)]],
    Op.solve: [(lambda a, b: apply(Op.solve, [_spd(a), b]), [(3, 3), (3, 2)], ANY),
               (lambda a, b: apply(Op.solve, [_spd(a), b]), [(2, 3, 3), (2, 3, 1)], ANY)],
    Op.slogdet: [(lambda x: apply(Op.slogdet, [_spd(x)])[1], [(3, 3)], ANY),
                 (lambda x: apply(Op.slogdet, [x + 3.0 * jnp.eye(3)]), [(2, 3, 3)], UNIT)],
})


# complex ops on complex values built from two float64 arrays (complex is itself checked)
def _z(x, y):
    return apply(Op.complex, [x, y])


def _fft(kind, lengths, real_in=False):
    def f(x, y=None):
        return apply(Op.fft, [x if real_in else _z(x, y)], {"fft_type": kind, "lengths": lengths})
    return f


CASES.update({
    Op.complex: [(_z, list(s), ANY) for s in BINARY_SHAPES[:3]],
    **{op: [(lambda x, y, op=op: apply(op, [_z(x, y)]), [s, s], ANY) for s in UNARY_SHAPES]
       for op in (Op.real, Op.imag, Op.conj)},
    Op.fft: [(_fft("fft", (5,)), [(5,), (5,)], ANY), (_fft("ifft", (2, 3)), [(4, 2, 3)] * 2, ANY),
             (_fft("rfft", (6,), real_in=True), [(2, 6)], ANY),
             (_fft("rfft", (3, 5), real_in=True), [(3, 5)], ANY),
             (_fft("irfft", (6,)), [(2, 4), (2, 4)], ANY), (_fft("irfft", (2, 5)), [(2, 3)] * 2, ANY)],
})
# (the ops holding graphs, control flow and custom_vjp_call, have tests of their own)
DIFFERENTIABLE = sorted((op for op, r in RECORDS.items() if op not in NON_DIFFERENTIABLE
                         and r.kind not in ("kernel", "control", "custom")), key=str)


def test_every_op_has_both_rules_or_is_non_differentiable():
    assert [op for op in DIFFERENTIABLE if op not in VJP_RULES] == []
    assert [op for op in DIFFERENTIABLE if op not in JVP_RULES] == []


def test_the_check_table_covers_every_differentiable_op():
    assert [op for op in DIFFERENTIABLE if op not in CASES] == []


def _args(shapes, dom, seed):
    rng = np.random.default_rng(seed)
    doms = dom if isinstance(dom[0], tuple) else (dom,) * len(shapes)
    return tuple(rng.uniform(lo, hi, s) for s, (lo, hi) in zip(shapes, doms))


@pytest.mark.parametrize("op", DIFFERENTIABLE, ids=str)
def test_check_grads_order2_both_modes(op):
    for k, (fn, shapes, dom) in enumerate(CASES[op]):
        tol = 2e-3 if op is Op.convert else None   # a float32 round trip
        check_grads(fn, _args(shapes, dom, k), order=2, atol=tol, rtol=tol)


# ----------------------------------------------------------------------------- conventions

def grad_at(f, x):
    return float(jg.grad(f)(jnp.asarray(np.float64(x))))


def test_relu_abs_and_sign_at_zero():
    assert grad_at(F.relu, 0.0) == 0.0
    assert grad_at(F.relu, 1.0) == 1.0
    assert grad_at(jnp.abs, 0.0) == 0.0
    assert grad_at(jnp.abs, -3.0) == -1.0
    assert grad_at(jnp.sign, 0.5) == 0.0


def test_elementwise_max_min_split_ties():
    g = jg.grad(lambda a, b: jnp.maximum(a, b), argnums=(0, 1))(
        jnp.asarray(np.float64(2.0)), jnp.asarray(np.float64(2.0)))
    assert [float(v) for v in g] == [0.5, 0.5]
    g = jg.grad(lambda a: jnp.sum(jnp.minimum(a, 1.0)))(jnp.asarray([0.0, 1.0, 2.0]))
    np.testing.assert_array_equal(np.asarray(g), [1.0, 0.5, 0.0])


def test_reduce_max_min_split_equally_among_ties():
    x = jnp.asarray(np.array([[1.0, 3.0, 3.0, 3.0], [2.0, 0.0, 0.0, 1.0]]))
    np.testing.assert_allclose(np.asarray(jg.grad(lambda a: jnp.sum(jnp.max(a, axis=1)))(x)),
                               [[0, 1 / 3, 1 / 3, 1 / 3], [1, 0, 0, 0]])
    np.testing.assert_allclose(np.asarray(jg.grad(lambda a: jnp.sum(jnp.min(a, axis=1)))(x)),
                               [[1, 0, 0, 0], [0, 0.5, 0.5, 0]])
    t = jg.jvp(lambda a: jnp.max(a), (x,), (jnp.ones_like(x),))[1]
    assert float(t) == pytest.approx(1.0)


def test_power_at_zero_base_and_zero_exponent():
    x0 = jnp.asarray(np.float64(0.0))
    assert grad_at(lambda x: x ** 0.0, 0.0) == 0.0                 # d/dx x**0 = 0, not nan
    assert float(jg.grad(jg.grad(lambda x: x ** 0.0))(x0)) == 0.0
    assert grad_at(lambda x: x ** 2.0, 0.0) == 0.0
    assert grad_at(lambda x: x ** 1.0, 0.0) == 1.0
    assert float(jg.grad(lambda y: 0.0 ** y)(jnp.asarray(np.float64(2.0)))) == 0.0
    assert grad_at(lambda x: x ** 3.0, 2.0) == 12.0


def test_prod_gradient_with_zeros():
    g = jg.grad(lambda a: jnp.prod(a))
    np.testing.assert_allclose(np.asarray(g(jnp.asarray([2.0, 0.0, 3.0]))), [0.0, 6.0, 0.0])
    np.testing.assert_allclose(np.asarray(g(jnp.asarray([0.0, 0.0, 3.0]))), [0.0, 0.0, 0.0])
    np.testing.assert_allclose(np.asarray(g(jnp.asarray([2.0, 4.0, 3.0]))), [12.0, 6.0, 8.0])


@pytest.mark.parametrize("x", [-1000.0, -30.0, 0.0, 30.0, 1000.0])
def test_stable_sigmoid_softplus_logsumexp(x):
    s = 1 / (1 + math.exp(-x)) if x > -700 else 0.0
    for mode in ("rev", "fwd"):
        for f, want in [(F.sigmoid, s * (1 - s)), (F.softplus, s)]:
            if mode == "rev":
                got = grad_at(f, x)
            else:
                got = float(jg.jvp(f, (jnp.asarray(np.float64(x)),),
                                   (jnp.asarray(np.float64(1.0)),))[1])
            assert got == pytest.approx(want, abs=1e-12), (f, mode)
    v = jnp.asarray(np.array([x, x, x - 1000.0]))
    g = np.asarray(jg.grad(lambda a: F.logsumexp(a))(v))
    np.testing.assert_allclose(g, [0.5, 0.5, 0.0], atol=1e-12)
