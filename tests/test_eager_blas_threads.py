"""Eager matmuls (NumPy's BLAS) run on the runtime's number of threads (runtime/blas_threads.py),
as compiled code does, following jg.config.update("num_threads", n)."""
import numpy as np
import pytest

import jitgrad as jg
from jitgrad.ir import config
from jitgrad.runtime.blas_threads import blas_threads

pytestmark = pytest.mark.skipif(blas_threads() is None, reason="NumPy bundles no OpenBLAS here")


def test_eager_blas_threads_follow_the_runtime_setting():
    saved = config.chosen()
    try:
        assert blas_threads() == config.read("num_threads")
        for n in (1, 2, 1):
            jg.config.update("num_threads", n)
            assert blas_threads() == n
            a = np.arange(12, dtype=np.float32).reshape(3, 4)
            np.testing.assert_allclose(np.asarray(jg.tensor(a) @ jg.tensor(a.T)), a @ a.T)
    finally:
        config.restore(saved)
    assert blas_threads() == config.read("num_threads")
