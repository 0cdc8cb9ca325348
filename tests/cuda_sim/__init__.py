"""Tests that need NUMBA_ENABLE_CUDASIM=1; tests/test_cuda_sim_runner.py runs them in their own process."""
