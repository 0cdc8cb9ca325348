"""The memory-bound kernels' fast paths under the simulator (issue 30, item 4): 128-bit groups with
a scalar tail, the scalar path for pointers that are not 16-byte aligned, one reciprocal per row,
and column reductions split along the reduced axis; each against NumPy.
Run by tests/codegen/cuda/test_cuda_sim_runner.py."""
import importlib.util

import numpy as np
import pytest

from jitgrad.codegen.cuda.toolchain import cuda_simulator_enabled

if not cuda_simulator_enabled() or importlib.util.find_spec("numba_cuda") is None:
    pytest.skip("needs numba-cuda and NUMBA_ENABLE_CUDASIM=1 (tests/codegen/cuda/test_cuda_sim_runner.py)",
                allow_module_level=True)

import jitgrad as jg  # noqa: E402
import jitgrad.nn.functional as F  # noqa: E402
import jitgrad.numpy as jnp  # noqa: E402
from numba import cuda  # noqa: E402

from jitgrad.codegen.cuda.fused import GENERATORS  # noqa: E402
from jitgrad.ir.kernel import kernel_nodes  # noqa: E402
from jitgrad.ir.passes.manager import run_pipeline  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")


def chain(x, y):
    return jnp.tanh(x * 1.5 + 0.3) * y + jnp.exp(-x * x)


def _fused(fn, *shapes_dtypes):
    """The one generated kernel of fn's schedule, compiled for the simulator."""
    graph = jg.jit(fn).lower(*[jg.ShapeDtype(s, d) for s, d in shapes_dtypes]).graph
    (node,) = kernel_nodes(*run_pipeline(graph)[:2])
    fused = GENERATORS[node.params["kind"]]("k_test", node)
    return fused, cuda.jit(fused.source.load()[0])


@pytest.mark.parametrize("n", [1030, 3])        # groups of 4 + a tail of 2; tail only
def test_elementwise_groups_and_tail(rng, n):
    x, y = (rng.standard_normal(n).astype(np.float32) for _ in range(2))
    got = jg.jit(chain)(jg.tensor(x, device="cuda"), jg.tensor(y, device="cuda"))
    np.testing.assert_allclose(got.numpy(), chain(jg.tensor(x), jg.tensor(y)).numpy(),
                               rtol=2e-6, atol=1e-6)
    assert "elementwise: 4-wide vectors" in jg.jit(chain).lower(
        jg.tensor(x, device="cuda"), jg.tensor(y, device="cuda")).kernels


def test_float64_uses_pairs(rng):
    x = jg.tensor(rng.standard_normal(37), device="cuda")
    lowered = jg.jit(lambda x: x * 2.0 + 1.0).lower(x)
    assert "2-wide vectors" in lowered.kernels and "load2(" in lowered.kernels
    got = jg.jit(lambda x: x * 2.0 + 1.0)(x)
    x = x.numpy()
    np.testing.assert_array_equal(got.numpy(), x * 2.0 + 1.0)


@pytest.mark.parametrize("offset", [0, 1])
def test_unaligned_arrays_take_the_scalar_path(rng, offset):
    """Views one element into a buffer (4 bytes off 16) run the scalar loop; results are equal."""
    n = 70
    fused, kernel = _fused(chain, ((n,), "float32"), ((n,), "float32"))
    x, y = (rng.standard_normal(n).astype(np.float32) for _ in range(2))
    bufs = [cuda.to_device(np.zeros(n + 4, np.float32)) for _ in range(3)]
    for b, a in zip(bufs, (x, y)):
        b[offset:offset + n].copy_to_device(a)
    views = [b[offset:offset + n] for b in bufs]
    kernel[fused.grid, fused.block](*views)
    want = np.tanh(x * np.float32(1.5) + np.float32(0.3)) * y + np.exp(-x * x)
    np.testing.assert_allclose(views[2].copy_to_host(), want, rtol=2e-6, atol=1e-6)


@pytest.mark.parametrize("offset", [0, 1])
def test_rowwise_vectors_unaligned_and_dividing_as_the_cpu(rng, offset):
    rows, L = 3, 40
    fused, kernel = _fused(lambda x: F.softmax(x, axis=-1), ((rows, L), "float32"))
    assert "4-wide vectors" in fused.source.text
    body = fused.source.text.split("def k_test")[1]
    assert body.count(" / ") == 5      # x / s per element (4 lanes, the scalar loop), as the CPU
    x = rng.standard_normal((rows, L)).astype(np.float32)
    bufs = [cuda.to_device(np.zeros(rows * L + 4, np.float32)) for _ in range(2)]
    bufs[0][offset:offset + rows * L].copy_to_device(x.ravel())
    views = [b[offset:offset + rows * L] for b in bufs]
    kernel[fused.grid, fused.block](*views)
    e = np.exp(x - x.max(-1, keepdims=True))
    np.testing.assert_allclose(views[1].copy_to_host().reshape(rows, L),
                               e / e.sum(-1, keepdims=True), rtol=1e-6, atol=1e-7)


def test_layernorm_rows_of_two_float64_lanes(rng):
    def layernorm(x):
        d = x - jnp.mean(x, axis=-1, keepdims=True)
        return d / jnp.sqrt(jnp.mean(d * d, axis=-1, keepdims=True) + 1e-5)
    x = rng.standard_normal((4, 34))
    lowered = jg.jit(layernorm).lower(jg.tensor(x, device="cuda"))
    assert "2-wide vectors" in lowered.kernels
    got = jg.jit(layernorm)(jg.tensor(x, device="cuda")).numpy()
    d = x - x.mean(-1, keepdims=True)
    np.testing.assert_allclose(got, d / np.sqrt((d * d).mean(-1, keepdims=True) + 1e-5),
                               rtol=1e-13)


def test_split_reduction_tail(rng):
    x = rng.standard_normal(4503).astype(np.float32)    # 1125 groups of 4 and 3 left over
    fn = jg.jit(lambda x: jnp.sum(x * x))
    np.testing.assert_allclose(fn(jg.tensor(x, device="cuda")).numpy(), np.sum(x * x),
                               rtol=1e-5)


def test_column_reduction_split_along_rows(rng):
    """A sum over 200 rows of 40 columns: one block of 128 columns (4 per lane, 128-bit loads) x
    6 row chunks, partials folded by the last block; right on a second call too (the ticket is
    reset). Then a max over 70 rows of (3, 36) columns, and bools (no vectors)."""
    x = rng.standard_normal((200, 40)).astype(np.float32)
    fn = jg.jit(lambda x: jnp.sum(x, axis=0) * 0.5)
    xd = jg.tensor(x, device="cuda")
    assert "split 6 ways along the reduced axis, 4-wide vectors" in fn.lower(xd).kernels
    for _ in range(2):
        np.testing.assert_allclose(fn(xd).numpy(), x.sum(0) * 0.5, rtol=1e-5, atol=1e-5)
    y = rng.standard_normal((70, 3, 36)).astype(np.float32)   # columns (3, 36), rows 70
    got = jg.jit(lambda y: jnp.max(y, axis=0) - 1.0)(jg.tensor(y, device="cuda"))
    np.testing.assert_array_equal(got.numpy(), y.max(0) - np.float32(1.0))
    b = rng.standard_normal((70, 33)) > 0.8
    got = jg.jit(lambda b: jnp.any(b, axis=0))(jg.tensor(b, device="cuda"))
    np.testing.assert_array_equal(got.numpy(), b.any(0))


@pytest.mark.parametrize("offset", [0, 1])
def test_column_reduction_unaligned_takes_the_scalar_path(rng, offset):
    rows, cols = 70, 32                       # 2 row chunks (a ticket), 128-bit groups of 4
    fused, kernel = _fused(lambda x: jnp.sum(x, axis=0), ((rows, cols), "float32"))
    assert "split 2 ways" in fused.source.text and "4-wide vectors" in fused.source.text
    x = rng.standard_normal((rows, cols)).astype(np.float32)
    buf = cuda.to_device(np.zeros(rows * cols + 4, np.float32))
    buf[offset:offset + rows * cols].copy_to_device(x.ravel())
    out = cuda.to_device(np.zeros(cols, np.float32))
    work = [cuda.to_device(np.zeros(n, dt)) for dt, n in fused.workspace]
    kernel[fused.grid, fused.block](buf[offset:offset + rows * cols], out, *work)
    np.testing.assert_allclose(out.copy_to_host(), x.sum(0), rtol=1e-5, atol=1e-5)
