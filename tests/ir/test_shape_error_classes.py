"""ShapeError is a TypeError and a ValueError: the JAX docs' vmapped_log_probs notebook catches a
broadcasting mismatch with `except ValueError` (NumPy and jax.numpy raise ValueError there)."""
import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp

A, B = np.ones(4, np.float32), np.ones((4, 3), np.float32)
MESSAGE = r"mul: cannot broadcast shapes f32\[4\] and f32\[4,3\]"


@pytest.mark.parametrize("catch", [ValueError, TypeError, jg.ShapeError])
def test_a_broadcast_mismatch_is_caught_as_numpy_and_jax_users_catch_it(catch):
    for run in (lambda: jnp.multiply(A, B), lambda: jg.jit(jnp.multiply)(A, B)):
        with pytest.raises(catch, match=MESSAGE):
            run()


@pytest.mark.interpreter
def test_the_same_exception_on_the_interpreter_and_under_vmap():
    with pytest.raises(ValueError, match=MESSAGE):
        jg.jit(jnp.multiply)(A, B)
    with pytest.raises(ValueError, match="cannot broadcast"):
        jg.vmap(lambda a, b: a * b)(np.ones((2, 4)), np.ones((2, 4, 3)))


def test_what_numpy_says_for_the_same_shapes():
    with pytest.raises(ValueError):
        np.multiply(A, B)
