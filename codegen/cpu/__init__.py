"""The CPU backend: kernels as LLVM units (llvm_*.py), compiled by llvmlite and sequenced over the
memory plan (backend.py; codegen/__init__.py: the layout)."""
