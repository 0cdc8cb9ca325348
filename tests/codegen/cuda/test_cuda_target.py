"""The CUDA target description (codegen/cuda/target.py): one set of device limits read by the jit
and eager generators, the SM count from the device where a GPU is present, an H100's elsewhere."""
import numpy as np

from jitgrad.codegen.cuda import eager, target
from jitgrad.codegen.cuda.fused import fused_kernel, matmul, reduce
from jitgrad.runtime import cuda_device


def test_without_a_gpu_the_target_is_the_documented_default():
    if cuda_device.simulator_enabled() or not cuda_device.is_available():
        assert target.current() == target.DEFAULT
    assert (target.DEFAULT.sms, target.DEFAULT.block, target.WARP) == (132, 256, 32)


def test_jit_and_eager_generators_read_the_same_limits():
    assert fused_kernel.MAX_BLOCK == target.DEFAULT.block
    assert fused_kernel.MAX_BLOCKS == target.DEFAULT.max_blocks
    assert (reduce.SPLIT_ELEMS, reduce.MAX_SPLIT) == (target.DEFAULT.split_elems,
                                                      target.DEFAULT.max_split)
    assert not hasattr(eager, "MAX_BLOCKS") and not hasattr(matmul, "SMS")


def test_split_k_follows_the_targets_sm_count(monkeypatch):
    """A 256 x 256 float32 product has 16 output tiles: on an H100 (132 SMs) K splits into
    ceil(264 / 16) = 17 shares (two blocks per SM); on a 16-SM GPU its tiles fill the SMs."""
    args = (256, 256, 4096, (), np.float32)
    assert matmul.k_split(*args) == 17
    monkeypatch.setattr(target, "current", lambda: target.CudaTarget(sms=16))
    assert matmul.k_split(*args) == 1
    assert matmul.k_split(64, 64, 4096, (), np.float32) == 32        # 1 tile: MAX_K_SPLIT


def test_jit_and_eager_launches_take_their_blocks_from_one_rule():
    assert [target.threads_for(n) for n in (1, 32, 33, 100, 5000)] == [32, 32, 64, 128, 256]
    assert target.threads_for(1000, per_thread=4) == 256 and target.threads_for(100, 4) == 32
    assert target.grid_for(1000, 256) == 4 and target.grid_for(10 ** 9, 256) == 4096
    assert eager.grid_1d(1000) == (target.grid_for(1000, 256), target.threads_for(1000))
