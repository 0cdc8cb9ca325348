"""Elementwise kernels walk the shared ElementwiseNest (codegen/kernel/nest.py): the flat index
is unravelled over the collapsed dims an operand spans, so a broadcast reads with fewer
divisions than over the output's own dims, and a same-shape kernel with none; each against
NumPy, on the vector path and the scalar one. Run by tests/codegen/cuda/test_cuda_sim_runner.py."""
import importlib.util
import re

import numpy as np
import pytest

from jitgrad.codegen.cuda.toolchain import cuda_simulator_enabled

if not cuda_simulator_enabled() or importlib.util.find_spec("numba_cuda") is None:
    pytest.skip("needs numba-cuda and NUMBA_ENABLE_CUDASIM=1 (tests/codegen/cuda/test_cuda_sim_runner.py)",
                allow_module_level=True)

import jitgrad as jg  # noqa: E402
import jitgrad.numpy as jnp  # noqa: E402
from numba import cuda  # noqa: E402

from jitgrad.codegen.cuda.fused import GENERATORS  # noqa: E402
from jitgrad.ir.kernel import kernel_nodes  # noqa: E402
from jitgrad.ir.passes.manager import run_pipeline  # noqa: E402


def _fused(fn, *shapes, dtype="float32"):
    graph = jg.jit(fn).lower(*[jg.ShapeDtype(s, dtype) for s in shapes]).graph
    (node,) = kernel_nodes(*run_pipeline(graph)[:2])
    fused = GENERATORS[node.params["kind"]]("k_test", node)
    return fused, cuda.jit(fused.source.load()[0])


def _divmods(fused) -> list:
    """Every `// d` and `% d` of the kernel's body."""
    return re.findall(r"(//|%) (\d+)", fused.source.text.split("def k_test")[1])


def _run(fused, kernel, *arrays, dtype=np.float32):
    out = cuda.to_device(np.zeros(max(a.size for a in arrays), dtype))
    kernel[fused.grid, fused.block](*[cuda.to_device(a.ravel()) for a in arrays], out)
    return out.copy_to_host()


@pytest.mark.parametrize("dtype", ["float32", "int16"])     # 4-wide vectors; scalar only
def test_broadcast_unravels_over_the_collapsed_dims(rng, dtype):
    """(2, 3, 4, 5) + (3, 4, 5): over the output's dims the operand was read at
    (i // 20) % 3, (i // 5) % 4 and i % 5 (2 divisions, 3 remainders); collapsed to (2, 60) it is
    read at i % 60."""
    fused, kernel = _fused(lambda x, b: x * 2 + b, (2, 3, 4, 5), (3, 4, 5), dtype=dtype)
    assert ("4-wide vectors" in fused.source.text) == (dtype == "float32")
    ops = _divmods(fused)
    assert ops and set(ops) == {("%", "60")}, ops
    x = (rng.standard_normal((2, 3, 4, 5)) * 10).astype(dtype)
    b = (rng.standard_normal((3, 4, 5)) * 10).astype(dtype)
    np.testing.assert_array_equal(_run(fused, kernel, x, b, dtype=dtype).reshape(x.shape),
                                  x * np.array(2, dtype) + b)


def test_leading_broadcast_divides_once(rng):
    """(2, 3, 4, 5) * (2, 3, 1, 1): the operand is read at i // 20 (it was (i // 20) % 3 and
    i // 60)."""
    fused, kernel = _fused(lambda x, y: jnp.tanh(x) * y, (2, 3, 4, 5), (2, 3, 1, 1))
    assert set(_divmods(fused)) == {("//", "20")}
    x = rng.standard_normal((2, 3, 4, 5)).astype(np.float32)
    y = rng.standard_normal((2, 3, 1, 1)).astype(np.float32)
    np.testing.assert_allclose(_run(fused, kernel, x, y).reshape(x.shape), np.tanh(x) * y,
                               rtol=2e-6, atol=1e-6)


def test_same_shape_kernel_has_no_divmod(rng):
    fused, _ = _fused(lambda x, y: x * y + 1.0, (2, 3, 4, 5), (2, 3, 4, 5))
    assert _divmods(fused) == []


def test_broadcasts_on_both_sides_through_the_backend(rng):
    x, y, b = (rng.standard_normal(s).astype(np.float32) for s in ((3, 1, 4, 6), (3, 5, 4, 1),
                                                                    (6,)))
    f = jg.jit(lambda x, y, b: (x + y) * b)         # through the CUDA backend, as users run it
    got = f(*[jg.tensor(a, device="cuda") for a in (x, y, b)])
    np.testing.assert_allclose(got.numpy(), (x + y) * b, rtol=1e-6)
