"""The CPU backend: kernels as LLVM units, compiled by llvmlite and sequenced over the memory plan.

In rooms by role: kernel generators (kernels/: one module per kernel kind; llvm_kernels.py picks
one and builds the unit; llvm_small_gemm.py the unpacked GEMMs), scalar math (llvm_exprs.py and
the llvm_math*, llvm_int, llvm_divmod, llvm_lowp, llvm_complex rules), loops (loops.py,
loop_fused.py), orchestration (backend.py, units.py, unit_prefetch.py, waves.py: the pool's
concurrent waves, host.py, llvm_jit.py). codegen/__init__.py: the whole layout."""
