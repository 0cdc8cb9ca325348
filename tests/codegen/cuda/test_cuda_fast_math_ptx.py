"""jg.config cuda_fast_math (JITGRAD_CUDA_FAST_MATH=1): CUDA kernels compiled with numba's
fastmath, checked in their PTX without a GPU: division and square root become `div.approx` /
`sqrt.approx` instead of IEEE-rounded `div.rn` / `sqrt.rn`, exp becomes libdevice's short fast
form; off by default. Cannot share a process with the simulator (which ignores the flag)."""
import numpy as np
import pytest

import jitgrad as jg
from jitgrad.codegen.cuda import toolchain as tc

if tc.cuda_simulator_enabled():
    pytest.skip("NUMBA_ENABLE_CUDASIM=1: compile_ptx cannot run beside the simulator",
                allow_module_level=True)
if not tc.cuda_toolchain_available():
    pytest.skip(f"CUDA toolchain not installed: {tc.INSTALL_HINT}", allow_module_level=True)

from jitgrad.codegen.cuda import kernels as K  # noqa: E402
from jitgrad.ir.ops import Op  # noqa: E402

F32 = np.dtype("float32")


@pytest.fixture
def fast_math():
    """Switch the option on for one test, then back to its default."""
    jg.config.update("cuda_fast_math", True)
    yield
    jg.config.reset("cuda_fast_math")


def _ptx(op, arity):
    src = K.elementwise_op(op, {}, (F32,) * arity, F32, 1)
    return tc.compile_ptx(src.load()[0], src.signature, cc=(9, 0))


def test_off_by_default_ieee_division_and_sqrt():
    assert jg.config.read("cuda_fast_math") is False
    assert "div.rn.f32" in _ptx(Op.div, 2) and "div.approx" not in _ptx(Op.div, 2)
    assert "sqrt.rn.f32" in _ptx(Op.sqrt, 1)


def test_fast_math_approximates_division_sqrt_and_exp(fast_math):
    div, sqrt = _ptx(Op.div, 2), _ptx(Op.sqrt, 1)
    assert "div.approx" in div and "div.rn.f32" not in div
    assert "sqrt.approx" in sqrt and "sqrt.rn.f32" not in sqrt
    exp_fast = _ptx(Op.exp, 1)
    jg.config.update("cuda_fast_math", False)
    exp_ieee = _ptx(Op.exp, 1)
    # libdevice's __expf: a multiply and ex2.approx, against expf's range reduction
    assert "ex2.approx" in exp_fast
    assert len(exp_fast.splitlines()) < len(exp_ieee.splitlines())


def test_flag_is_read_from_the_environment(monkeypatch):
    jg.config.reset("cuda_fast_math")
    monkeypatch.setenv("JITGRAD_CUDA_FAST_MATH", "1")
    assert jg.config.read("cuda_fast_math") is True
    monkeypatch.setenv("JITGRAD_CUDA_FAST_MATH", "0")
    assert jg.config.read("cuda_fast_math") is False


def test_explicit_argument_wins_over_the_option(fast_math):
    src = K.elementwise_op(Op.div, {}, (F32, F32), F32, 1)
    assert "div.rn.f32" in tc.compile_ptx(src.load()[0], src.signature, fastmath=False)
