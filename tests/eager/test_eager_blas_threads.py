"""NumPy's BLAS (runtime/blas_threads.py) rests on one thread, the compiled kernels call that same
library, and an eager product of PARALLEL_MACS multiply-adds or more runs on the runtime's
num_threads, following jg.config.update("num_threads", n)."""
import numpy as np
import pytest

import jitgrad as jg
from jitgrad.codegen.cpu import llvm_jit
from jitgrad.ir import config
from jitgrad.runtime import blas_threads as bt

pytestmark = pytest.mark.skipif(bt.blas_threads() is None, reason="NumPy bundles no OpenBLAS here")


def test_blas_rests_on_one_thread_and_large_products_take_num_threads():
    saved = config.chosen()
    try:
        for n in (1, 2, 1):
            jg.config.update("num_threads", n)
            assert bt.blas_threads() == 1
            assert bt.run_product(bt.PARALLEL_MACS, bt.blas_threads) == n
            assert bt.run_product(bt.PARALLEL_MACS - 1, bt.blas_threads) == 1
            assert bt.blas_threads() == 1
    finally:
        config.restore(saved)


def test_one_thread_again_after_a_large_product_that_raised():
    saved = config.chosen()
    try:
        jg.config.update("num_threads", 2)
        with pytest.raises(ValueError, match="matmul"):
            bt.run_product(bt.PARALLEL_MACS, np.matmul, np.ones((2, 3)), np.ones((2, 3)))
        assert bt.blas_threads() == 1
    finally:
        config.restore(saved)


def test_compiled_kernels_call_the_library_whose_threads_are_set():
    """One library: a large eager product's threads never reach a compiled kernel's gemm."""
    if llvm_jit.blas_library():
        assert llvm_jit.blas_library() == bt.library_path()


@pytest.mark.parametrize("shapes", [((3, 4), (4, 5)), ((2, 3, 4), (4, 5)), ((4, 3), (2, 3, 5)),
                                    ((2, 3, 4), (2, 4, 5))])
def test_eager_products_leave_the_blas_on_one_thread(monkeypatch, shapes):
    """Below and past the threshold (run_product above shows the threads inside a product)."""
    a = np.arange(np.prod(shapes[0]), dtype=np.float32).reshape(shapes[0])
    b = np.arange(np.prod(shapes[1]), dtype=np.float32).reshape(shapes[1])
    macs = np.matmul(a, b).size * a.shape[-1]
    saved = config.chosen()
    try:
        jg.config.update("num_threads", 2)
        for limit in (macs + 1, macs):
            # the public threshold lowered: a product past the real one takes the pool's GEMM
            monkeypatch.setattr(bt, "PARALLEL_MACS", limit)
            out = jg.tensor(a) @ jg.tensor(b)
            assert bt.blas_threads() == 1
            np.testing.assert_allclose(np.asarray(out), a @ b)
    finally:
        config.restore(saved)
