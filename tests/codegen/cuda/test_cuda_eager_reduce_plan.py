"""codegen/cuda/eager_reduce.plan: every eager CUDA reduction runs one of the jit's reduce kernels,
picked by the jit's layout rules and launched on the jit's policies (split_blocks, column_grid,
rows_grid). No device needed: the plan is host arithmetic."""
import numpy as np
import pytest

from jitgrad.codegen.cuda import eager_reduce as ER
from jitgrad.codegen.cuda.fused.fused_kernel import MAX_BLOCK, MAX_BLOCKS
from jitgrad.codegen.cuda.fused.reduce import SPLIT_ELEMS, rows_grid
from jitgrad.ir.ops import Op

F32, I64 = np.dtype("float32"), np.dtype("int64")


@pytest.mark.parametrize("length, threads", [(1, 32), (32, 32), (33, 64), (200, 224),
                                              (5000, MAX_BLOCK)])
def test_rows_get_a_warp_when_short_and_a_block_when_long(length, threads):
    assert rows_grid(10, length) == (10, threads)
    assert rows_grid(10 ** 7, length) == (MAX_BLOCKS, threads)   # grid-stride past that


@pytest.mark.parametrize("op, shape, axes, generator", [
    (Op.reduce_sum, (8, 300), (1,), ER.rows),          # the innermost axis reduced
    (Op.reduce_sum, (300, 8), (0,), ER.rows),          # fewer columns than a warp
    (Op.reduce_sum, (300, 64), (0,), ER.columns),
    (Op.reduce_sum, (2 * SPLIT_ELEMS,), (0,), ER.full),
    (Op.argmax, (2 * SPLIT_ELEMS,), (0,), ER.rows),    # an arg reduction's partials need indices
    (Op.argmin, (300, 64), (0,), ER.rows),
    (Op.reduce_max, (5, 1), (1,), ER.rows),            # only a unit axis reduced
    (Op.reduce_max, (), (), ER.rows),
])
def test_each_reduction_picks_the_jits_layout(op, shape, axes, generator):
    out = I64 if op in (Op.argmax, Op.argmin) else F32
    plan = ER.plan(op, shape, axes, F32, out)
    assert plan.generator is generator
    if generator is ER.rows:
        kept = int(np.prod([e for d, e in enumerate(shape) if d not in axes]))
        length = int(np.prod([shape[d] for d in axes]))
        assert (plan.grid, plan.block) == ((rows_grid(kept, length)[0],), rows_grid(kept,
                                                                                    length)[1])
        assert plan.key[-1] == plan.block and plan.work == ()


def test_half_floats_are_widened_before_they_come():
    with pytest.raises(ValueError, match=r"expected dtypes numba.cuda computes in .*float16"):
        ER.plan(Op.reduce_sum, (4, 4), (1,), np.dtype("float16"), np.dtype("float16"))
