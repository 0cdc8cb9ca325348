"""Every math function the LLVM kernel units compute, by (name, dtype name): exp/log family
(codegen/cpu/llvm_math.py), trigonometry (llvm_math_trig.py), erf and hyperbolic functions
(llvm_math_special.py). A pair missing here is a gap llvm_kernels.why_not names."""
from __future__ import annotations

from . import llvm_math, llvm_math_special, llvm_math_trig

FUNCTIONS = {**llvm_math.FUNCTIONS, **llvm_math_trig.FUNCTIONS, **llvm_math_special.FUNCTIONS}
