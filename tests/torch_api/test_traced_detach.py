"""x.detach() inside jit / grad / vmap is the value without its gradient (torch's meaning,
jax.lax.stop_gradient); it was an eager-only method (found by the op database's detach record)."""
import numpy as np

import jitgrad as jg

X = np.array([1.0, 2.0, 3.0])


def test_detach_in_jit_and_vmap_is_the_value():
    np.testing.assert_array_equal(jg.jit(lambda a: a.detach() * 2)(X), 2 * X)
    np.testing.assert_array_equal(jg.jit(lambda a: jg.detach(a))(X), X)
    np.testing.assert_array_equal(jg.vmap(lambda a: a.detach() + 1)(X), X + 1)


def test_detach_under_grad_drops_the_gradient():
    # d/da sum(a * stop(a)) = stop(a): the detached factor is a constant
    np.testing.assert_array_equal(jg.grad(lambda a: (a * a.detach()).sum())(X), X)
    np.testing.assert_array_equal(jg.jit(jg.grad(lambda a: (a.detach() ** 2).sum() + a.sum()))(X),
                                  np.ones(3))
