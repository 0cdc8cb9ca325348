"""Runs tests/cuda_sim in a child process with NUMBA_ENABLE_CUDASIM=1.

The simulator replaces numba.cuda when it is first imported, and compile_ptx (used by
test_cuda_toolchain.py) cannot run beside it, so the simulator tests get a process of their own.
"""
import importlib.util
import os
import pathlib
import subprocess
import sys

import pytest

from jitgrad.codegen.cuda_toolchain import cuda_simulator_enabled

ROOT = pathlib.Path(__file__).resolve().parent.parent

pytestmark = [
    pytest.mark.skipif(
        importlib.util.find_spec("numba_cuda") is None, reason="numba-cuda not installed"
    ),
    pytest.mark.skipif(
        cuda_simulator_enabled(), reason="simulator already on: tests/cuda_sim runs in this process"
    ),
]


def test_simulator_kernels_pass_in_their_own_process():
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1")
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "tests/cuda_sim", "-q", "-rA"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )
    report = result.stdout + result.stderr
    assert result.returncode == 0, report
    # -rA lists each outcome (pyproject's -q plus ours hide the totals line); a PASSED line shows
    # the variable reached the child instead of everything skipping.
    assert "PASSED" in report, report
