"""codegen/coverage.py: one entry, why_not(node, target), over each target's reason (the CPU's
host ops and LLVM units, the CUDA generators, the native library)."""
import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad.codegen import coverage
from jitgrad.ir.kernel import kernel_nodes
from jitgrad.compilation.compile_graph import optimize

X = np.linspace(-1, 1, 24, dtype=np.float32).reshape(4, 6)


def _kernel(fn, *args, kind=None):
    optimized, schedule, _ = optimize(jg.jit(fn).lower(*args).graph)
    nodes = kernel_nodes(optimized, schedule)
    return nodes[-1] if kind is None else next(n for n in nodes if n.params["kind"] == kind)


@pytest.mark.parametrize("target", ["cpu", "cuda", "native"])
def test_a_fused_float_kernel_is_built_by_every_target(target):
    node = _kernel(lambda x: jnp.tanh(x * 2.0) + 1.0, X)
    assert coverage.why_not(node, target) is None


def test_what_the_cpu_does_not_build_as_a_unit_says_why():
    fft = _kernel(lambda x: jnp.fft.fft(x), X[0])
    assert coverage.why_not(fft, "cpu") == "complex values (op fft)"
    loop = _kernel(lambda x: jg.while_loop(lambda x: jnp.sum(x) < 100.0, lambda x: x * 2.0 + 1.0,
                                           x), X)
    assert coverage.why_not(loop, "cpu").startswith("while_loop holds sub-graphs")
    assert "the JIT runs it on the host" in coverage.why_not(fft, "native")


def test_what_the_cuda_generators_do_not_write_says_why():
    node = _kernel(lambda x: jnp.argmax(x * 2.0, axis=1), X, kind="reduce")
    assert coverage.why_not(node, "cuda") == "argmax runs as an eager kernel"
    assert coverage.why_not(node, "cpu") is None        # an LLVM unit on the CPU
    sort = _kernel(lambda x: jnp.sort(x, axis=1), X)
    assert coverage.why_not(sort, "cuda") == "opaque kernel: eager per-op kernels"


def test_an_unknown_target_is_named():
    node = _kernel(lambda x: x + 1.0, X)
    with pytest.raises(ValueError, match=r"unknown codegen target 'tpu'; known: cpu, cuda, native"):
        coverage.why_not(node, "tpu")
