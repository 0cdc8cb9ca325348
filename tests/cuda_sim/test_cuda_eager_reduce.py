"""CUDA's eager reductions run the jit's kernels over runtime extents (codegen/cuda/eager_reduce.py)
where the jit's layout rules pick them: columns when the innermost axis is kept (split over
grid.y when there are few columns), a split over blocks for a long full reduction; each against
NumPy. Run by tests/codegen/cuda/test_cuda_sim_runner.py."""
import importlib.util

import numpy as np
import pytest

from jitgrad.codegen.cuda.toolchain import cuda_simulator_enabled

if not cuda_simulator_enabled() or importlib.util.find_spec("numba_cuda") is None:
    pytest.skip("needs numba-cuda and NUMBA_ENABLE_CUDASIM=1 (tests/codegen/cuda/test_cuda_sim_runner.py)",
                allow_module_level=True)

import jitgrad as jg  # noqa: E402
import jitgrad.numpy as jnp  # noqa: E402
from jitgrad.codegen.cuda import eager_reduce, target  # noqa: E402
from jitgrad.ir.ops import Op  # noqa: E402


def _plan(op, x, axes):
    return eager_reduce.plan(op, x.shape, axes, x.dtype, x.dtype)


@pytest.mark.parametrize("name, op, shape, axis, dtype, split", [
    ("sum", Op.reduce_sum, (40, 33), 0, np.float32, False),        # 33 columns: two lanes' worth
    ("max", Op.reduce_max, (3, 7, 40), 1, np.int64, False),        # kept, reduced, kept
    ("min", Op.reduce_min, (96, 32), 0, np.float64, True),         # one column block: 3-way split
    ("any", Op.reduce_max, (70, 40), 0, np.bool_, True),
])
def test_columns_reduce_in_place(name, op, shape, axis, dtype, split, rng):
    x = rng.integers(-50, 50, shape).astype(dtype) if dtype is not np.bool_ else \
        rng.random(shape) < 0.02
    plan = _plan(op, x, (axis,))
    assert plan.generator is eager_reduce.columns and plan.key[-1] == split
    got = getattr(jnp, name)(jg.tensor(x, device="cuda"), axis=axis).numpy()
    np.testing.assert_array_equal(got, getattr(np, name)(x, axis=axis))


def test_empty_reduced_axis_gives_the_identity():
    x = np.zeros((0, 40), np.float32)
    assert _plan(Op.reduce_sum, x, (0,)) is not None
    np.testing.assert_array_equal(jnp.sum(jg.tensor(x, device="cuda"), axis=0).numpy(),
                                  np.zeros(40, np.float32))


@pytest.mark.parametrize("op, shape, axes", [
    (Op.argmax, (40, 33), (0,)),           # arg reductions keep the rows kernels
    (Op.reduce_sum, (40, 33), (1,)),       # the innermost axis reduced
    (Op.reduce_sum, (40, 31), (0,)),       # fewer columns than a warp
])
def test_other_reductions_keep_the_rows_kernels(op, shape, axes, rng):
    x = rng.standard_normal(shape).astype(np.float32)
    assert _plan(op, x, axes) is None
    name = {Op.argmax: "argmax", Op.reduce_sum: "sum"}[op]
    got = getattr(jnp, name)(jg.tensor(x, device="cuda"), axis=axes[0]).numpy()
    np.testing.assert_allclose(got, getattr(np, name)(x, axis=axes[0]), rtol=1e-5)


@pytest.mark.parametrize("name, dtype", [("sum", np.float32), ("max", np.int64),
                                         ("any", np.bool_)])
def test_full_reductions_split_over_blocks_in_one_launch(name, dtype, rng):
    n = 2 * target.DEFAULT.split_elems + 5
    x = rng.integers(-50, 50, n).astype(dtype) if dtype is not np.bool_ else np.zeros(n, bool)
    if dtype is np.bool_:
        x[n - 3] = True                  # only the last block's partial is True
    assert _plan(Op.reduce_max if name != "sum" else Op.reduce_sum, x, (0,)).generator is \
        eager_reduce.full
    got = getattr(jnp, name)(jg.tensor(x, device="cuda")).numpy()
    np.testing.assert_array_equal(got, getattr(np, name)(x))


def test_small_int_partials_are_not_split(rng):
    """numba.cuda's atomics (the last block's read of the partials) take 32/64-bit words only:
    int16 columns run unsplit, an int16 full reduction keeps the rows kernels."""
    x = rng.integers(-50, 50, (96, 32)).astype(np.int16)
    plan = _plan(Op.reduce_min, x, (0,))
    assert plan.generator is eager_reduce.columns and plan.key[-1] is False and plan.work == ()
    np.testing.assert_array_equal(jnp.min(jg.tensor(x, device="cuda"), axis=0).numpy(),
                                  x.min(0))
    assert _plan(Op.reduce_max, x.reshape(-1).repeat(3), (0,)) is None
