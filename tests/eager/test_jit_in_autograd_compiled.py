"""A jitted function called inside eager autograd: its backward runs compiled kernels from its
first use (issue 50 item 3), with the values of the same code written eagerly."""
import numpy as np

import jitgrad as jg
import jitgrad.numpy as jnp


def loss(w, x):
    return jnp.sum(jnp.tanh(x @ w) ** 2)


def test_backward_of_a_jitted_call_is_compiled_at_its_first_use():
    rng = np.random.default_rng(0)
    w0 = rng.standard_normal((16, 8)).astype(np.float32)
    x = jg.tensor(rng.standard_normal((4, 16)).astype(np.float32))
    step = jg.jit(loss)
    grads = []
    for _ in range(2):
        w = jg.tensor(w0, requires_grad=True)
        out = step(w, x)
        with jg.profiler.profile() as prof:
            out.backward()
        cats = {e.cat for e in prof.events}
        assert "kernel" in cats and "interpreted" not in cats, cats
        grads.append(np.asarray(w.grad))
    w = jg.tensor(w0, requires_grad=True)
    loss(w, x).backward()                       # the same code, eagerly
    for g in grads:
        np.testing.assert_allclose(g, np.asarray(w.grad), rtol=1e-5, atol=1e-6)

