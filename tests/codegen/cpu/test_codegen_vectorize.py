"""The main generated kernels are vectorized: their compiled assembly does packed float
arithmetic in ymm/zmm registers (AVX2/AVX-512), not one scalar element at a time: the LLVM units
(numba builds no CPU kernels since issue 26)."""
import re

import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
import jitgrad.nn.functional as F
from jitgrad.codegen.cpu import units as cpu_units

PACKED = re.compile(r"\bv(?:add|sub|mul|div|max|min|fmadd\w*|fnmadd\w*)ps\s+.*%[yz]mm")

WORKLOADS = {
    "ew_chain": (lambda x: jnp.tanh(x * 1.5 + 0.3) * F.sigmoid(x) + jnp.exp(-x * x), (1031,)),
    "gelu": (lambda x: 0.5 * x * (1 + jnp.tanh(0.79788456 * (x + 0.044715 * x * x * x))), (1033,)),
    "sum_sq": (lambda x: jnp.sum(x * x), (1037,)),
    "softmax": (lambda x: F.softmax(x, axis=-1), (7, 129)),
    "bias_relu": (lambda x, b: jnp.maximum(x + b, 0), (9, 131)),
}


@pytest.mark.parametrize("name", list(WORKLOADS))
def test_main_kernels_use_packed_simd(name):
    fn, shape = WORKLOADS[name]
    args = [np.ones(shape, np.float32)] + ([np.ones(shape[-1], np.float32)] if name == "bias_relu" else [])
    f = jg.jit(fn)
    f(*args)
    for u in f.lower(*args).compile().units:
        assert u.target == "cpu-llvm", f"{name}: {u.name} is not an LLVM unit"
        asm = u.assembly()
        assert len(PACKED.findall(asm)) >= 2, f"{name}: {u.name} has no packed float arithmetic"


MASK = np.tril(np.ones((64, 64), bool))
SCALAR_MAX = re.compile(r"\bvmaxs[sd]\b")
PACKED_INT_MAX = re.compile(r"\bvpmax[su][dq]\s+.*%[xyz]mm")


@pytest.mark.parametrize("fn", [
    lambda x: F.softmax(jnp.where(MASK, x, -jnp.inf), axis=-1),          # rowwise
    lambda x: jnp.max(jnp.where(MASK, x, -jnp.inf), axis=-1)])           # reduce
def test_masked_max_reductions_are_vectorized(fn):
    """Attention's masked softmax: llvm.maximum of where(mask, x, -inf) stayed a scalar loop
    (LLVM's vectorizer does not take that recurrence); its integer keys run packed."""
    x = np.ones((4, 64, 64), np.float32)
    (u,) = jg.jit(fn).lower(x).compile().units
    asm = u.assembly()
    assert not SCALAR_MAX.search(asm) and PACKED_INT_MAX.search(asm), u.name
