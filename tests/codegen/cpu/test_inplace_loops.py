"""An elementwise kernel whose output the memory plan stores in place of its input runs its
vectorized loop: the loops say their iterations are independent (llvm.loop.parallel_accesses),
else LLVM's runtime overlap check fails on the shared buffer and its scalar loop runs (ReLU with
its bool mask in the CNN step: 2.3 ms against 0.1 ms)."""
import numpy as np

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad.nn import functional as F


def _relu_grad(x):
    return jnp.sum(F.relu(jnp.transpose(x, (0, 2, 1))[:, 1:29]) ** 2)


def test_relu_and_its_mask_in_place_are_marked_parallel():
    x = np.random.default_rng(0).standard_normal((64, 8, 30)).astype(np.float32)
    f = jg.jit(jg.grad(_relu_grad))
    low = f.lower(x)
    assert "in place of" in str(low.memory_plan)
    relu = [u.source for u in low.compile().units if "= le " in u.source]
    assert relu and all("llvm.loop.parallel_accesses" in s for s in relu)
    want = np.zeros_like(x)
    want[:, :, 1:29] = 2 * np.maximum(x[:, :, 1:29], 0)
    np.testing.assert_allclose(np.asarray(f(x)), want, rtol=1e-6)


def test_integer_loops_stay_unmarked():
    """Integer bodies keep LLVM's own checks (marked, an integer power loop hung its
    optimizer)."""
    x = np.arange(4096, dtype=np.int32)
    f = jg.jit(lambda x: jnp.transpose(x.reshape(64, 64)) * 3 + 1)
    units = f.lower(x).compile().units
    assert not any("llvm.loop.parallel_accesses" in u.source for u in units)
    np.testing.assert_array_equal(np.asarray(f(x)), x.reshape(64, 64).T * 3 + 1)
