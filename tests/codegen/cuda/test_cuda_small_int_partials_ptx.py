"""8/16-bit integer max/min reductions whose blocks fold through shuffles and publish partials
(the jit's split and column-split kernels, the eager ones from the same generators) compile to
PTX for a GPU: shuffles and the atomic read of the partials go through 32-bit words
(codegen/cuda/reduction_fold.word_dtype). No GPU or driver needed (cannot share a process with
the simulator)."""
import re

import numpy as np
import pytest

from jitgrad.codegen.cuda import toolchain as tc

if tc.cuda_simulator_enabled():
    pytest.skip("NUMBA_ENABLE_CUDASIM=1: compile_ptx cannot run beside the simulator",
                allow_module_level=True)
if not tc.cuda_toolchain_available():
    pytest.skip(f"CUDA toolchain not installed: {tc.INSTALL_HINT}", allow_module_level=True)

import jitgrad as jg  # noqa: E402
import jitgrad.numpy as jnp  # noqa: E402
from jitgrad.codegen.cuda import eager_reduce  # noqa: E402
from jitgrad.codegen.cuda.fused import GENERATORS  # noqa: E402
from jitgrad.compilation.compile_graph import optimize  # noqa: E402
from jitgrad.ir.kernel import kernel_nodes  # noqa: E402
from jitgrad.ir.ops import Op  # noqa: E402

# each dtype reduces a full split with one of max/min and split columns with the other
CASES = [("int8", "max"), ("int16", "min"), ("uint8", "min"), ("uint16", "max")]
OTHER = {"max": "min", "min": "max"}
FULL, COLUMNS = (8192,), (64, 48)     # a 4-block split; 48 columns, split over grid.y


def _jit_kernel(fn, shape, dtype):
    optimized, schedule, _ = optimize(jg.jit(fn).lower(jg.ShapeDtype(shape, dtype)).graph)
    (node,) = [n for n in kernel_nodes(optimized, schedule) if n.params["kind"] == "reduce"]
    return GENERATORS["reduce"]("k", node).source


def _jit_sources(dtype, name):
    full = _jit_kernel(getattr(jnp, name), FULL, dtype)
    cols = _jit_kernel(lambda x: getattr(jnp, OTHER[name])(x, axis=0), COLUMNS, dtype)
    assert re.search(r"\(reduce: split over blocks", full.text)
    assert re.search(r"\(reduce: columns, split \d+ ways", cols.text)
    return full, cols


def _eager_sources(dtype, name):
    dt = np.dtype(dtype)
    full = eager_reduce.plan(Op[f"reduce_{name}"], FULL, (0,), dt, dt)
    cols = eager_reduce.plan(Op[f"reduce_{OTHER[name]}"], COLUMNS, (0,), dt, dt)
    assert full.generator is eager_reduce.full and cols.key[-1] is True   # both publish partials
    return full.generator(*full.key), cols.generator(*cols.key)


@pytest.mark.parametrize("path", [_jit_sources, _eager_sources], ids=["jit", "eager"])
@pytest.mark.parametrize("dtype, name", CASES, ids=[f"{d}_{n}" for d, n in CASES])
def test_small_int_partials_compile_for_sm80(dtype, name, path):
    for src in path(dtype, name):
        ptx = tc.compile_ptx(src.load()[0], src.signature, cc=(8, 0))
        assert ".target sm_80" in ptx and src.name in ptx
        assert "atom.global.add.u32" in ptx     # partials read as 32-bit words


@pytest.mark.parametrize("path", [_jit_sources, _eager_sources], ids=["jit", "eager"])
def test_small_int_partials_link_for_sm90(path):
    for src in path("int8", "max"):
        ptx = tc.compile_ptx(src.load()[0], src.signature, cc=(9, 0))
        assert tc.link_cubin(ptx, "sm_90")[:4] == b"\x7fELF"
