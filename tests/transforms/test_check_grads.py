"""jg.test_util.check_grads itself: it passes correct derivatives (pytrees, several arguments) and
catches wrong ones in each mode and at each order."""
import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad.ir import Op
from jitgrad.ir.autodiff import JVP_RULES, VJP_RULES
from jitgrad.test_util import check_grads

X = np.array([0.3, -0.8, 1.2])


def test_passes_correct_derivatives_on_pytrees_and_several_arguments():
    def f(d, y):
        return {"a": jnp.sin(d["u"]) * y, "b": jnp.sum(d["v"] ** 2.0)}
    check_grads(f, ({"u": X, "v": X[:2]}, np.array(2.0)), order=2)


def _wrong_sin(scale_first, scale_second):
    """sin with a custom rule: cos(x) * scale_first, whose own derivative is off by scale_second."""
    @jg.custom_vjp
    def f(x):
        return jnp.sin(x)

    def bwd(x, g):
        exact = jnp.cos(jg.stop_gradient(x)) if scale_second else jnp.cos(x)
        return (g * exact * scale_first,)
    f.defvjp(lambda x: (f(x), x), bwd)
    return f


def test_catches_a_wrong_first_derivative_in_reverse_mode():
    with pytest.raises(AssertionError, match="VJP"):
        check_grads(_wrong_sin(1.01, False), (X,), order=1, modes=("rev",))


def test_catches_a_wrong_second_derivative_only_at_order_two():
    f = _wrong_sin(1.0, True)                # first derivative right, second one zero
    check_grads(f, (X,), order=1, modes=("rev",))
    with pytest.raises(AssertionError, match="VJP of VJP"):
        check_grads(f, (X,), order=2, modes=("rev",))


def test_catches_a_wrong_jvp_rule(monkeypatch):
    right = JVP_RULES[Op.sin]
    monkeypatch.setitem(JVP_RULES, Op.sin, lambda e, node, ts: [e.mul(right(e, node, ts)[0], 1.01)])
    with pytest.raises(AssertionError, match="JVP"):
        check_grads(jnp.sin, (X,), order=1, modes=("fwd",))
    check_grads(jnp.sin, (X,), order=1, modes=("rev",))


def test_catches_a_wrong_vjp_rule_at_second_order(monkeypatch):
    # cos's VJP feeds the second derivative of sin
    right = VJP_RULES[Op.cos]
    monkeypatch.setitem(VJP_RULES, Op.cos,
                        lambda e, node, cts: [e.neg(r) for r in right(e, node, cts)])
    check_grads(jnp.sin, (X,), order=1, modes=("rev",))
    with pytest.raises(AssertionError, match="VJP of VJP"):
        check_grads(jnp.sin, (X,), order=2, modes=("rev",))


def test_bad_mode_is_an_error():
    with pytest.raises(ValueError, match="modes must be"):
        check_grads(jnp.sin, (X,), modes=("backward",))
