"""Ahead-of-time export: a jitted function as a C library of the CPU's LLVM units (export.py;
codegen/__init__.py: the layout)."""
