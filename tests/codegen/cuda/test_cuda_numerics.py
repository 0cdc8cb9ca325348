"""Numerics decided once for every target (issue 51): CUDA's rowwise kernels divide x / s as the
CPU does, with no x * (1/s) rewrite, so softmax and layernorm round the same on both."""
import re

import jitgrad as jg
import jitgrad.nn.functional as F
from jitgrad.codegen.cuda.fused import GENERATORS
from jitgrad.compilation.compile_graph import optimize
from jitgrad.ir.kernel import kernel_nodes


def _sources(fn, *args):
    optimized, schedule, _ = optimize(jg.jit(fn).lower(*args).graph)     # no device needed
    return [GENERATORS[n.params["kind"]](f"k{i}", n).source.text
            for i, n in enumerate(kernel_nodes(optimized, schedule)) if n.params["kind"] in GENERATORS]


def test_cuda_softmax_divides_each_element_by_the_row_sum():
    (text,) = _sources(lambda x: F.softmax(x, axis=-1), jg.ShapeDtype((64, 256), "float32"))
    assert "(rowwise" in text.splitlines()[0]
    # each element's exp over the row's sum accumulator, in the scalar and the vector loop
    assert len(re.findall(r"= \(\w+ / acc\d+\)", text)) == 5
    assert not re.search(r"= \(C\d+ / ", text), "a reciprocal of a per-row value"
