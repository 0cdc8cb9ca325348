"""The cuda device where CUDA can't be used (no driver, no GPU, or no numba-cuda): importing
and every CPU path work, is_available() is False, and asking for cuda says why in one line."""
import subprocess
import sys

import numpy as np
import pytest

import jitgrad as jg
from jitgrad.runtime.cuda_device import CudaUnavailableError, simulator_enabled

pytestmark = pytest.mark.skipif(jg.cuda.is_available() or simulator_enabled(),
                                reason="CUDA is usable here")


def test_is_available_is_false_and_count_zero():
    assert jg.cuda.is_available() is False
    assert jg.cuda.device_count() == 0


@pytest.mark.parametrize("make", [
    lambda: jg.tensor([1.0, 2.0]).to("cuda"),
    lambda: jg.tensor([1.0, 2.0]).cuda(),
    lambda: jg.tensor([1.0], device="cuda:0"),
    lambda: jg.zeros(3, device="cuda"),
    lambda: jg.device("cuda"),
], ids=["to", "cuda()", "tensor", "zeros", "device"])
def test_asking_for_cuda_gives_one_clear_line(make):
    with pytest.raises(CudaUnavailableError) as info:
        make()
    msg = str(info.value)
    assert "\n" not in msg
    assert "cuda:0 was requested but CUDA is not available:" in msg
    assert info.value.__cause__ is None and info.value.__context__ is None   # no chained noise


def test_cpu_paths_do_not_touch_numba_cuda():
    code = ("import sys, numpy as np, jitgrad as jg, jitgrad.numpy as jnp; "
            "x = jg.tensor(np.ones(3)); (jnp.exp(x) * 2).numpy(); jg.cuda.memory_allocated; "
            "print(sorted(m for m in sys.modules if m.startswith(('numba.cuda', 'numba_cuda'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_cpu_dlpack_round_trip_shares_memory():
    a = np.arange(6.0).reshape(2, 3)
    t = jg.from_dlpack(a)
    assert t.device == jg.device("cpu")
    a[0, 0] = 42
    assert t.numpy()[0, 0] == 42
    np.testing.assert_array_equal(np.from_dlpack(t), a)
