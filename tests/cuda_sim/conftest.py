"""The simulator's settings and default sample. A shorter GIL switch interval (0.5 ms instead of
CPython's 5 ms):

The simulator runs every CUDA thread of a block as a Python thread, and its barriers (syncthreads,
the warp shuffles of runtime/cuda_sim.py) wake up to 256 of them, each waiting for the GIL: at
5 ms per hand-over a warp reduction of a 7 x 33 array took 6.5 s, at 0.5 ms 1.6 s. Speed only:
results do not depend on thread interleaving (the kernels synchronise as on a GPU).

Generated cases that take seconds each (EXPENSIVE_S, measured) run as a deterministic sample by
default: a third of each test function's expensive cases, at least one; all of them with -m slow
(or JITGRAD_OPINFO_ALL=1). The cheap cases and the single tests always run."""
import os
import sys
import zlib

import pytest

from jitgrad.codegen.cuda.toolchain import cuda_simulator_enabled

SWITCH_INTERVAL_S = 5e-4

if cuda_simulator_enabled():
    sys.setswitchinterval(SWITCH_INTERVAL_S)


# Generated cases measured at >= 2.5 s each on the simulator (2026-12-08, 2 shared cores:
# `NUMBA_ENABLE_CUDASIM=1 pytest tests/cuda_sim --durations=120`), 526 s of the ~720 s run.
EXPENSIVE_S = {
    'test_cuda_jit.py::test_conv2d_value_and_grad_on_cuda_im2col_col2im[stride0-1]': 26.46,
    'test_cuda_lowp.py::test_matmul[float16-eager]': 22.07,
    'test_cuda_eager_records.py::test_record_matches_numpy_on_cuda[argmin(axis=-1)]': 17.71,
    'test_cuda_lowp.py::test_matmul[bfloat16-eager]': 17.52,
    'test_cuda_eager_records.py::test_record_matches_numpy_on_cuda[min(axis=0)]': 17.3,
    'test_cuda_jit.py::test_conv2d_value_and_grad_on_cuda_im2col_col2im[1-2]': 16.71,
    'test_cuda_eager_reduce.py::test_other_reductions_run_the_rows_kernel_in_place[argmax-shape0-axes0-64]': 15.63,
    'test_cuda_eager_records.py::test_record_matches_numpy_on_cuda[prod(axis=0)]': 15.57,
    'test_cuda_eager_records.py::test_record_matches_numpy_on_cuda[log_softmax(axis=0)]': 14.26,
    'test_cuda_tensor_cores.py::test_jitted_product_with_epilogue_and_split_k[high]': 13.37,
    'test_cuda_split_k.py::test_split_k_products_match_numpy_twice[transposed_batched]': 11.06,
    'test_cuda_lowp.py::test_matmul[float16-jit]': 10.47,
    'test_cuda_split_k.py::test_split_k_products_match_numpy_twice[bias_relu]': 10.46,
    'test_cuda_eager_reduce.py::test_other_reductions_run_the_rows_kernel_in_place[reduce_sum-shape1-axes1-64]': 10.15,
    'test_cuda_eager_records.py::test_record_matches_numpy_on_cuda[vecdot]': 9.08,
    'test_cuda_eager_records.py::test_record_matches_numpy_on_cuda[searchsorted0]': 8.4,
    'test_cuda_lowp.py::test_jitted_value_and_grad_of_an_mlp[float16]': 8.37,
    'test_cuda_eager_reduce.py::test_other_reductions_run_the_rows_kernel_in_place[reduce_sum-shape2-axes2-64]': 8.01,
    'test_cuda_lowp.py::test_jitted_value_and_grad_of_an_mlp[bfloat16]': 7.83,
    'test_cuda_lowp.py::test_matmul[bfloat16-jit]': 7.36,
    'test_cuda_lowp.py::test_sum_and_mean_accumulate_wide[float16-eager]': 7.31,
    'test_cuda_eager_reduce.py::test_arg_reductions_keep_the_first_tie_and_the_first_nan[argmin]': 7.22,
    'test_cuda_split_k.py::test_split_k_products_match_numpy_twice[uneven_k]': 7.13,
    'test_cuda_lowp.py::test_sum_and_mean_accumulate_wide[uint8-eager]': 6.88,
    'test_cuda_eager_records.py::test_record_matches_numpy_on_cuda[log_softmax(dim=-1)]': 6.85,
    'test_cuda_eager_records.py::test_record_matches_numpy_on_cuda[softmax(dim=-1)]': 6.79,
    'test_cuda_wrong_answers_edges.py::test_integer_ops_match_numpy_at_the_edges_on_cuda[eager]': 6.72,
    'test_cuda_tensor_cores.py::test_eager_tiled_matmul_on_tensor_cores[64x64 tiles, 2x4 warps of 2x2-highest]': 6.55,
    'test_cuda_eager_records.py::test_record_matches_numpy_on_cuda[argmax]': 6.43,
    'test_cuda_eager_records.py::test_record_matches_numpy_on_cuda[argmin]': 6.4,
    'test_cuda_eager_reduce.py::test_arg_reductions_keep_the_first_tie_and_the_first_nan[argmax]': 6.3,
    'test_cuda_lowp.py::test_sum_and_mean_accumulate_wide[int8-eager]': 6.17,
    'test_cuda_eager_reduce.py::test_small_int_partials_split_exactly[max-int8-shape0-None]': 5.99,
    'test_cuda_eager_records.py::test_record_matches_numpy_on_cuda[linalg.matrix_norm(-1)]': 5.74,
    'test_cuda_lowp.py::test_sum_and_mean_accumulate_wide[bfloat16-eager]': 5.72,
    'test_cuda_eager_records.py::test_record_matches_numpy_on_cuda[searchsorted1]': 5.68,
    'test_cuda_lowp.py::test_sum_and_mean_accumulate_wide[uint32-eager]': 5.66,
    'test_cuda_lowp.py::test_sum_and_mean_accumulate_wide[int16-eager]': 5.53,
    'test_cuda_lowp.py::test_sum_and_mean_accumulate_wide[uint8-jit]': 5.3,
    'test_cuda_eager_records.py::test_record_matches_numpy_on_cuda[linalg.matrix_norm(inf)]': 5.24,
    'test_cuda_lowp.py::test_sum_and_mean_accumulate_wide[uint16-eager]': 5.13,
    'test_cuda_eager_records.py::test_record_matches_numpy_on_cuda[std]': 4.92,
    'test_cuda_lowp.py::test_sum_and_mean_accumulate_wide[bfloat16-jit]': 4.88,
    'test_cuda_lowp.py::test_sum_and_mean_accumulate_wide[uint32-jit]': 4.85,
    'test_cuda_lowp.py::test_sum_and_mean_accumulate_wide[uint16-jit]': 4.84,
    'test_cuda_lowp.py::test_sum_and_mean_accumulate_wide[int16-jit]': 4.76,
    'test_cuda_lowp.py::test_arithmetic[int8-eager]': 4.74,
    'test_cuda_eager_records.py::test_record_matches_numpy_on_cuda[var]': 4.73,
    'test_cuda_eager_records.py::test_record_matches_numpy_on_cuda[trace]': 4.68,
    'test_cuda_tensor_cores.py::test_eager_tiled_matmul_on_tensor_cores[64x16, 4x2 warps of 1x1-highest]': 4.65,
    'test_cuda_lowp.py::test_sum_and_mean_accumulate_wide[int8-jit]': 4.57,
    'test_cuda_lowp.py::test_sum_and_mean_accumulate_wide[float16-jit]': 4.31,
    'test_cuda_lowp.py::test_sum_and_mean_accumulate_wide[uint64-eager]': 4.3,
    'test_cuda_lowp.py::test_sum_and_mean_accumulate_wide[uint64-jit]': 4.14,
    'test_cuda_eager_reduce.py::test_other_reductions_run_the_rows_kernel_in_place[reduce_max-shape3-axes3-32]': 4.12,
    'test_cuda_tensor_cores.py::test_eager_tiled_matmul_on_tensor_cores[16x64, 1x8 warps of 1x1-highest]': 4.1,
    'test_cuda_eager_records.py::test_record_matches_numpy_on_cuda[linalg.vector_norm]': 3.89,
    'test_cuda_lowp.py::test_arithmetic[uint8-eager]': 3.59,
    'test_cuda_eager_reduce.py::test_small_int_partials_split_exactly[min-uint16-shape1-0]': 3.55,
    'test_cuda_device.py::test_block_per_row_reductions[argmin]': 3.55,
    'test_cuda_eager_records.py::test_record_matches_numpy_on_cuda[max(axis=-1,keepdims=True)]': 3.54,
    'test_cuda_tensor_cores.py::test_eager_tiled_matmul_on_tensor_cores[64x16, 4x2 warps of 1x1-high]': 3.4,
    'test_cuda_eager_records.py::test_record_matches_numpy_on_cuda[prod(axis=-1,keepdims=True)]': 3.35,
    'test_cuda_eager_records.py::test_record_matches_numpy_on_cuda[linalg.matrix_rank]': 3.29,
    'test_cuda_lowp.py::test_convert_between_every_pair[uint8]': 3.23,
    'test_cuda_eager_reduce.py::test_full_reductions_split_over_blocks_in_one_launch[sum-float32]': 3.04,
    'test_cuda_eager_records.py::test_record_matches_numpy_on_cuda[std(axis=(0, 1),keepdims=True)]': 2.99,
    'test_cuda_eager_reduce.py::test_full_reductions_split_over_blocks_in_one_launch[max-int64]': 2.92,
    'test_cuda_eager_records.py::test_record_matches_numpy_on_cuda[einsum[ij->j]]': 2.75,
    'test_cuda_lowp.py::test_exp_tanh_and_a_broadcast_chain[float16-eager]': 2.7,
    'test_cuda_lowp.py::test_convert_between_every_pair[bfloat16]': 2.66,
    'test_cuda_eager_reduce.py::test_full_reductions_split_over_blocks_in_one_launch[any-bool]': 2.6,
    'test_cuda_eager_records.py::test_record_matches_numpy_on_cuda[sum]': 2.58,
    'test_cuda_eager_records.py::test_record_matches_numpy_on_cuda[min]': 2.55,
    'test_cuda_device.py::test_block_per_row_reductions[argmax]': 2.5,
}
SHARE = 3


def _default_sample(items):
    """The expensive cases each test function keeps by default (the others are marked slow)."""
    groups = {}
    for item in items:
        key = item.nodeid.split("tests/cuda_sim/")[-1]
        if key in EXPENSIVE_S:
            groups.setdefault(key.split("[")[0], []).append((key, item))
    for cases in groups.values():
        kept = [k for k, _ in cases if zlib.crc32(k.encode()) % SHARE == 0] \
            or [min(cases, key=lambda c: EXPENSIVE_S[c[0]])[0]]
        for key, item in cases:
            if key not in kept:
                item.add_marker(pytest.mark.slow)


@pytest.hookimpl(tryfirst=True)     # before tests/conftest.py deselects what is marked slow
def pytest_collection_modifyitems(config, items):
    if os.environ.get("JITGRAD_OPINFO_ALL") != "1":
        _default_sample(items)
