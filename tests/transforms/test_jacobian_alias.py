"""jg.jacobian is jax.jacobian: JAX's alias of jacrev (the JAX docs' thinking_in_jax notebook)."""
import numpy as np

import jitgrad as jg
import jitgrad.numpy as jnp


def test_jacobian_is_jacrev():
    assert jg.jacobian is jg.jacrev
    x = np.arange(3.0, dtype=np.float32)
    np.testing.assert_allclose(np.asarray(jg.jacobian(jnp.exp)(x)), np.diag(np.exp(x)), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(jg.jit(jg.jacobian(jnp.exp))(x)), np.diag(np.exp(x)),
                               rtol=1e-6)
