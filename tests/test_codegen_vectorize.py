"""The main generated kernels are vectorized: their compiled assembly does packed float
arithmetic in ymm/zmm registers (AVX2/AVX-512), not one scalar element at a time."""
import re

import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
import jitgrad.nn.functional as F

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
    module = next(iter(f._cache.values())).exe.run.module
    kernels = [getattr(module, n) for n in dir(module) if re.fullmatch(r"k\d+_\w+", n)]
    kernels = kernels or [module.entry0]    # serial kernels are written into the entry
    for k in kernels:
        asm = "\n".join(k.inspect_asm().values())
        assert len(PACKED.findall(asm)) >= 4, f"{name}: {k.__name__} has no packed float arithmetic"
