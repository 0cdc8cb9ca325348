"""Tests that need NUMBA_ENABLE_CUDASIM=1; tests/codegen/cuda/test_cuda_sim_runner.py runs them in their own process."""
