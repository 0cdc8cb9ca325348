"""CUDA's eager reductions run the jit's kernels over runtime extents (codegen/cuda/eager_reduce.py)
where the jit's layout rules pick them: columns when the innermost axis is kept (split over
grid.y when there are few columns), a split over blocks for a long full reduction, rows (a
block per output, argmax/argmin included) otherwise; each against NumPy. Run by tests/codegen/cuda/test_cuda_sim_runner.py."""
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


@pytest.mark.parametrize("op, shape, axes, block", [
    (Op.argmax, (40, 33), (0,), 64),        # arg reductions: rows, reading x in place
    (Op.reduce_sum, (40, 33), (1,), 64),    # the innermost axis reduced
    (Op.reduce_sum, (40, 31), (0,), 64),    # fewer columns than a warp
    (Op.reduce_max, (3, 20, 5), (0, 2), 32),   # short rows: a warp each
])
def test_other_reductions_run_the_rows_kernel_in_place(op, shape, axes, block, rng):
    x = rng.standard_normal(shape).astype(np.float32)
    out_dtype = np.dtype("int64") if op is Op.argmax else x.dtype
    plan = eager_reduce.plan(op, x.shape, axes, x.dtype, out_dtype)
    assert plan.generator is eager_reduce.rows and plan.block == block
    name = {Op.argmax: "argmax", Op.reduce_sum: "sum", Op.reduce_max: "max"}[op]
    axis = axes if len(axes) > 1 else axes[0]
    got = getattr(jnp, name)(jg.tensor(x, device="cuda"), axis=axis).numpy()
    np.testing.assert_allclose(got, getattr(np, name)(x, axis=axis), rtol=1e-5)


@pytest.mark.parametrize("name", ["argmax", "argmin"])
def test_arg_reductions_keep_the_first_tie_and_the_first_nan(name, rng):
    """NumPy's rules on every lane and warp boundary: a tie goes to the first index, a NaN wins
    (the first one)."""
    x = rng.standard_normal((3, 300)).astype(np.float32)
    x[0, [7, 40, 290]] = 9.0 if name == "argmax" else -9.0     # ties across warps
    x[1, [250, 33, 260]] = np.nan                             # the first NaN, 33, wins
    x[2, [255, 256]] = -9.0 if name == "argmax" else 9.0      # nothing to see
    got = getattr(jnp, name)(jg.tensor(x, device="cuda"), axis=1).numpy()
    np.testing.assert_array_equal(got, getattr(np, name)(x, axis=1))
    whole = getattr(jnp, name)(jg.tensor(x[0], device="cuda")).item()
    assert whole == getattr(np, name)(x[0])


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


@pytest.mark.parametrize("name, dtype, shape, axis", [
    ("max", np.int8, (2 * 2048 + 5,), None),     # a full split over 3 blocks
    ("min", np.uint16, (96, 32), 0),             # one column block: a 3-way split over grid.y
])
def test_small_int_partials_split_exactly(name, dtype, shape, axis, rng):
    """8/16-bit partials travel in 32-bit words (numba's atomics read no narrower): the split
    kernels run for them, their extremes exact."""
    info = np.iinfo(dtype)
    x = rng.integers(info.min, info.max, shape, endpoint=True).astype(dtype)
    x.flat[-2] = info.max if name == "max" else info.min     # in the last block's share
    plan = _plan(getattr(Op, f"reduce_{name}"), x, (0,) if axis is None else (axis,))
    assert plan.work[0][0] == np.int32
    got = getattr(jnp, name)(jg.tensor(x, device="cuda"), axis=axis).numpy()
    np.testing.assert_array_equal(got, getattr(np, name)(x, axis=axis))
    jitted = jg.jit(lambda t: getattr(jnp, name)(t, axis=axis))(jg.tensor(x, device="cuda"))
    np.testing.assert_array_equal(jitted.numpy(), getattr(np, name)(x, axis=axis))
