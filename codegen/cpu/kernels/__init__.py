"""The LLVM generators of the CPU's kernel kinds, one module each (elementwise, reduce, rowwise,
matmul; opaque kernels: codegen/cpu/llvm_opaque.py), building in the function of function.py;
codegen/cpu/llvm_kernels.py picks one and builds the unit."""
