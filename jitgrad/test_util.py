"""jg.test_util.check_grads: JAX's derivative check.

Forward mode: the JVP along a random direction must match central differences
(f(x + eps t) - f(x - eps t)) / 2 eps. Reverse mode: the VJP must satisfy the inner-product
(transpose) identity <vjp(ct), t> == <ct, jvp(t)> with the JVP from central differences.
Higher orders check the JVP function and the VJP function recursively.
"""
from __future__ import annotations

import numpy as np

from . import tree_util
from .ir.types import kind_of
from .numpy import asarray
from .transforms.autodiff import jvp, vjp

EPS = 1e-4
# default gradient tolerances by dtype (JAX's)
TOLERANCE = {np.dtype("float32"): 2e-3, np.dtype("float64"): 1e-5,
             np.dtype("complex64"): 2e-3, np.dtype("complex128"): 1e-5}


def _np(x):
    return np.asarray(x)


def _tensors(tree):
    return tree_util.tree_map(lambda a: asarray(np.asarray(a)), tree)


def _tol(given, trees):
    if given is not None:
        return given
    dts = [_np(x).dtype for t in trees for x in tree_util.tree_leaves(t)]
    return max((TOLERANCE.get(d, 1e-5) for d in dts), default=1e-5)


def _check_close(got, want, atol, rtol, what):
    g, g_tree = tree_util.tree_flatten(got)
    w, w_tree = tree_util.tree_flatten(want)
    if g_tree != w_tree:
        raise AssertionError(f"{what}: result structure {g_tree} != expected {w_tree}")
    for a, b in zip(g, w):
        np.testing.assert_allclose(_np(a), _np(b), atol=_tol(atol, [a, b]),
                                   rtol=_tol(rtol, [a, b]), err_msg=what)


def _rand(rng, x):
    """Standard normal entries in x's shape and dtype (both parts random for complex x)."""
    r = rng.standard_normal(x.shape)
    if kind_of(x.dtype) == "c":
        r = r + 1j * rng.standard_normal(x.shape)
    return r.astype(x.dtype)


def _rand_like(rng, tree):
    return tree_util.tree_map(lambda x: _rand(rng, _np(x)), tree)


def _conj(tree):
    return tree_util.tree_map(lambda x: np.conj(_np(x)), tree)


def _axpy(a, x, y):
    return tree_util.tree_map(lambda u, v: _np(v) + a * _np(u), x, y)


def numerical_jvp(f, primals, tangents, eps=EPS):
    f_pos = f(*_tensors(_axpy(eps, tangents, primals)))
    f_neg = f(*_tensors(_axpy(-eps, tangents, primals)))
    return tree_util.tree_map(lambda p, n: (_np(p) - _np(n)) * (0.5 / eps), f_pos, f_neg)


def _inner(x, y):
    """The real inner product Re <x, y> (of complex arrays as pairs of reals), as JAX."""
    return sum(float(np.real(np.vdot(_np(a), _np(b)))) for a, b in
               zip(tree_util.tree_leaves(x), tree_util.tree_leaves(y)))


def check_jvp(f, args, atol=None, rtol=None, eps=EPS, err_msg="JVP"):
    rng = np.random.RandomState(0)
    tangent = _rand_like(rng, args)
    v_out, t_out = jvp(f, _tensors(args), _tensors(tangent))
    _check_close(v_out, f(*_tensors(args)), atol, rtol, err_msg + " primal")
    _check_close(t_out, numerical_jvp(f, args, tangent, eps), atol, rtol, err_msg + " tangent")


def check_vjp(f, args, atol=None, rtol=None, eps=EPS, err_msg="VJP"):
    rng = np.random.RandomState(0)
    v_out, vjp_fn = vjp(f, *_tensors(args))
    _check_close(v_out, f(*_tensors(args)), atol, rtol, err_msg + " primal")
    tangent = _rand_like(rng, args)
    t_out = numerical_jvp(f, args, tangent, eps)
    cotangent = _rand_like(rng, v_out)
    # JAX's convention: the VJP is the transpose without conjugation, so the pairing
    # conjugates around it (conj(vjp(conj(ct))); the identity for real values)
    ct_in = _conj(vjp_fn(_tensors(_conj(cotangent))))
    ip, ip_expected = _inner(tangent, ct_in), _inner(t_out, cotangent)
    dtypes_from = [args, v_out]     # the inner products are as exact as their operands
    np.testing.assert_allclose(ip, ip_expected, atol=_tol(atol, dtypes_from),
                               rtol=_tol(rtol, dtypes_from),
                               err_msg=err_msg + " inner product <vjp(ct), t> vs <ct, jvp(t)>")


def check_grads(fn, args, order=2, modes=("fwd", "rev"), atol=None, rtol=None, eps=None):
    """Check fn's derivatives up to `order` in the given modes; raises AssertionError."""
    eps = eps or EPS
    for m in modes:
        if m not in ("fwd", "rev"):
            raise ValueError(f"check_grads: modes must be 'fwd' and/or 'rev', got {m!r}")

    def _check(f, args, order, msg):
        if "fwd" in modes:
            fwd_msg = f"JVP of {msg}" if msg else "JVP"
            check_jvp(f, args, atol, rtol, eps, fwd_msg)
            if order > 1:
                _check(lambda p, t: jvp(f, p, t), (args, args), order - 1, fwd_msg)
        if "rev" in modes:
            rev_msg = f"VJP of {msg}" if msg else "VJP"
            check_vjp(f, args, atol, rtol, eps, rev_msg)
            if order > 1:
                def f_vjp(*a):
                    out, vjp_fn = vjp(f, *a)
                    return vjp_fn(out)
                _check(f_vjp, args, order - 1, rev_msg)

    _check(fn, tuple(args), order, "")
