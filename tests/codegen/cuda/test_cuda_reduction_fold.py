"""codegen/cuda/reduction_fold.py: every CUDA reduction, jit (fused/blocks.py) and eager
(eager_reduce.py, from the same generators), folds through one accumulator rule, one warp fold and one block fold. No device needed: the
generated source is checked."""
import pathlib

import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad.codegen.cuda import fused
from jitgrad.codegen.cuda import reduction_fold as fold
from jitgrad.codegen.cuda import eager_reduce
from jitgrad.codegen.kernel.buffer import IndentedBuffer
from jitgrad.compilation.compile_graph import optimize
from jitgrad.ir.kernel import kernel_nodes
from jitgrad.ir.ops import Op

CUDA = pathlib.Path(fold.__file__).parent


def _fused_source(fn, x):
    optimized, schedule, _ = optimize(jg.jit(fn).lower(x).graph)
    (node,) = [n for n in kernel_nodes(optimized, schedule) if n.params["kind"] == "reduce"]
    return fused.GENERATORS["reduce"]("k", node).source.text


def test_shuffles_are_written_in_one_place():
    writers = sorted(p.relative_to(CUDA).as_posix() for p in CUDA.rglob("*.py")
                     if "cuda.shfl_down_sync(" in p.read_text())
    assert writers == ["reduction_fold.py"]


@pytest.mark.parametrize("op, dt", [(Op.reduce_sum, "float32"), (Op.reduce_max, "int32"),
                                    (Op.argmax, "float32"), (Op.reduce_sum, "bool")])
def test_eager_and_jit_block_reductions_fold_alike(op, dt):
    out_dt = np.dtype("int64") if op is Op.argmax or dt == "bool" else np.dtype(dt)
    eager = eager_reduce.rows(op, np.dtype(dt), out_dt, (False, True), 256).text
    jit = _fused_source(lambda x: jnp.sum(x * 2.0, axis=1), np.ones((4, 300), np.float32))
    for src in (eager, jit):
        assert src.count(f"for offset in {fold.WARP_STEPS}:") == 2      # warps, then warp 0
        assert "if lane < WARPS else" in src and "while offset" not in src


def test_integer_accumulators_wrap_in_their_width_on_every_kernel():
    # numba computes int32 arithmetic in int64: the one combine rule wraps it back
    assert fold.combine("max", "a", "b", np.dtype("int32")).startswith("np.int32(")
    assert fold.combine("sum", "a", "b", np.dtype("float32")) == "(a + b)"
    src = eager_reduce.rows(Op.reduce_sum, np.dtype("int32"), np.dtype("int64"), (False, True),
                            32).text
    assert "acc0 = np.int64((acc0 + np.int64(" in src  # int32 sums accumulate in int64


def test_the_argmax_fold_keeps_the_first_index_of_ties():
    buf = IndentedBuffer()
    fold.arg("max", np.dtype("float32"), "C0").combine(buf)
    assert "at_o < at" in buf.lines[0]
    assert [line.strip() for line in buf.lines[1:]] == ["acc = acc_o", "at = at_o"]
