"""The CUDA backend: numba.cuda kernels generated per kernel node, eager per-op kernels, host
loops (backend.py; codegen/__init__.py: the layout)."""
