"""Eager matmuls (NumPy's BLAS) run on at most the runtime's number of threads
(runtime/blas_threads.py), following jg.config.update("num_threads", n); products under
PARALLEL_MACS multiply-adds run on one thread."""
import numpy as np
import pytest

import jitgrad as jg
from jitgrad.ir import config
from jitgrad.runtime import blas_threads as bt

pytestmark = pytest.mark.skipif(bt.blas_threads() is None, reason="NumPy bundles no OpenBLAS here")


def test_eager_blas_threads_follow_the_runtime_setting():
    saved = config.chosen()     # (an earlier small eager product may have left one thread)
    try:
        for n in (1, 2, 1):
            jg.config.update("num_threads", n)
            assert bt.blas_threads() == n
    finally:
        config.restore(saved)
    assert bt.blas_threads() == config.read("num_threads")


@pytest.mark.parametrize("shapes", [((3, 4), (4, 5)), ((2, 3, 4), (4, 5)), ((4, 3), (2, 3, 5)),
                                    ((2, 3, 4), (2, 4, 5))])
def test_small_products_run_on_one_thread_large_ones_on_num_threads(monkeypatch, shapes):
    a = np.arange(np.prod(shapes[0]), dtype=np.float32).reshape(shapes[0])
    b = np.arange(np.prod(shapes[1]), dtype=np.float32).reshape(shapes[1])
    macs = np.matmul(a, b).size * a.shape[-1]
    saved = config.chosen()
    try:
        jg.config.update("num_threads", 2)
        for limit, threads in ((macs + 1, 1), (macs, 2)):
            # the public threshold lowered: a product past the real one takes the pool's GEMM
            monkeypatch.setattr(bt, "PARALLEL_MACS", limit)
            out = jg.tensor(a) @ jg.tensor(b)
            assert bt.blas_threads() == threads
            np.testing.assert_allclose(np.asarray(out), a @ b)
    finally:
        config.restore(saved)
