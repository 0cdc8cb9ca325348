"""Runs tests/cuda_sim in a child process with NUMBA_ENABLE_CUDASIM=1.

The simulator replaces numba.cuda when it is first imported, and compile_ptx (used by
test_cuda_toolchain.py) cannot run beside it, so the simulator tests get a process of their own.
The simulator is slow (minutes): the children start as soon as collection has selected their
tests (tests/support/early_children.py), so they run beside the rest of the suite.
"""
import importlib.util
import pathlib
import sys

import pytest

from jitgrad.codegen.cuda.toolchain import cuda_simulator_enabled
from tests.support import early_children

ROOT = pathlib.Path(__file__).resolve().parents[3]

pytestmark = [
    pytest.mark.skipif(
        importlib.util.find_spec("numba_cuda") is None, reason="numba-cuda not installed"
    ),
    pytest.mark.skipif(
        cuda_simulator_enabled(), reason="simulator already on: tests/cuda_sim runs in this process"
    ),
]


CHILDREN = {"test_simulator_kernels_pass_in_their_own_process":
            ["-m", "pytest", "tests/cuda_sim", "-q", "-rA"]}


def test_simulator_kernels_pass_in_their_own_process():
    code, report = early_children.result(sys.modules[__name__],
                                         "test_simulator_kernels_pass_in_their_own_process")
    assert code == 0, report
    # -rA lists each outcome (pyproject's -q plus ours hide the totals line); a PASSED line shows
    # the variable reached the child instead of everything skipping.
    assert "PASSED" in report, report


# What a user debugging with the stock simulator runs: no pytest, no conftest, no patch.
USER_SCRIPT = """
import numpy as np
import jitgrad as jg, jitgrad.numpy as jnp, jitgrad.nn.functional as F

rng = np.random.default_rng(0)
x = rng.standard_normal((4, 80)).astype(np.float32)
w = rng.standard_normal((80, 6)).astype(np.float32)

def layernorm(x):
    d = x - jnp.mean(x, axis=-1, keepdims=True)
    return d / jnp.sqrt(jnp.mean(d * d, axis=-1, keepdims=True) + 1e-5)

cases = {
    "softmax": (lambda x: F.softmax(x, axis=-1), (x,)),
    "layernorm": (layernorm, (x,)),
    "sum": (lambda x: jnp.sum(x * x), (x,)),
    "column_sum": (lambda x: jnp.sum(x, axis=0), (x,)),
    "matmul": (lambda x, w: F.relu(x @ w), (x, w)),
}
for name, (fn, args) in cases.items():
    want = fn(*[jg.tensor(a) for a in args]).numpy()
    got = jg.jit(fn)(*[jg.tensor(a, device="cuda") for a in args])
    assert got.device.type == "cuda", name
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-4, atol=1e-5, err_msg=name)
    print(name, "ok")
eager = jnp.max(jg.tensor(rng.standard_normal((2, 1500)).astype(np.float32), device="cuda"), axis=1)
print("eager block reduce", eager.shape)
"""


CHILDREN["test_user_script_runs_under_the_stock_simulator"] = ["-c", USER_SCRIPT]


def test_user_script_runs_under_the_stock_simulator():
    code, out = early_children.result(sys.modules[__name__],
                                      "test_user_script_runs_under_the_stock_simulator")
    assert code == 0, out
    for name in ("softmax", "layernorm", "sum", "column_sum", "matmul"):
        assert f"{name} ok" in out
    assert "eager block reduce (2,)" in out
