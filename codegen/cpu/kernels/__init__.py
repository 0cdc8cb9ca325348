"""The LLVM generators of the CPU's kernel kinds, one module each (elementwise, reduce, rowwise,
matmul, opaque: sorts, scans, gathers, im2col and LAPACK calls), building in the function of
function.py;
codegen/cpu/llvm_kernels.py picks one and builds the unit."""
