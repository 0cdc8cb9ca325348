"""jg.Array (jax.Array): isinstance holds for eager tensors and traced values."""
import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp


def test_eager_arrays_are_instances_and_numpy_arrays_are_not():
    assert isinstance(jnp.arange(5), jg.Array)      # JAX docs, thinking_in_jax
    assert isinstance(jg.tensor([1.0]), jg.Array)
    assert not isinstance(np.ones(2), jg.Array) and not isinstance(1.0, jg.Array)
    assert issubclass(jg.Tensor, jg.Array) and not issubclass(np.ndarray, jg.Array)


@pytest.mark.parametrize("transform", ["jit", "grad", "vmap"])
def test_traced_values_are_instances(transform):
    seen = []

    def f(x):
        seen.append(isinstance(x, jg.Array))
        return jnp.sum(x * x)
    x = np.arange(3.0, dtype=np.float32)
    {"jit": jg.jit, "grad": jg.grad, "vmap": jg.vmap}[transform](f)(x)
    assert seen == [True]


def test_array_is_not_a_constructor():
    with pytest.raises(TypeError, match="jg.Array is a type for isinstance checks"):
        jg.Array([1, 2])
