"""How a kernel generator says "this fused body is outside what I generate".

A generator raises `NotCovered(reason)` when it finds, while generating, a fused body it does not
handle (an operand shape it cannot index, a matmul operand computed inside the kernel, ...). Its
caller takes the documented fallback for that backend and logs the reason at JITGRAD_DEBUG=1:
the CPU entry splits the kernel into single-op kernels (codegen/entry_program.py), CUDA runs the
kernel op by op (codegen/cuda.py). This is the only exception codegen catches to choose a path;
an op a backend does not implement at all is `ir.errors.UnsupportedOpError`, which reaches the
user with the op, the backend and the reason.
"""


class NotCovered(Exception):
    """A generator does not cover this kernel body (the reason says what); never user-facing."""
