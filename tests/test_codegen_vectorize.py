"""The main generated kernels are vectorized: their compiled assembly does packed float
arithmetic in ymm/zmm registers (AVX2/AVX-512), not one scalar element at a time: the LLVM units
(the default) and the numba ones (JITGRAD_KERNELS=numba)."""
import re

import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
import jitgrad.nn.functional as F
from jitgrad.codegen import cpu_units, llvm_jit

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
    units = next(iter(f._cache.values())).exe.run.units
    for u in units:
        assert u.name.startswith("jg_llvm_"), f"{name}: {u.name} is not an LLVM unit"
        asm = llvm_jit.assembly(u.source)
        assert len(PACKED.findall(asm)) >= 4, f"{name}: {u.name} has no packed float arithmetic"


@pytest.mark.parametrize("name", list(WORKLOADS))
def test_numba_kernels_use_packed_simd(name, monkeypatch):
    """JITGRAD_KERNELS=numba: the numba units of the same workloads vectorize too."""
    monkeypatch.setenv("JITGRAD_KERNELS", "numba")
    cpu_units.forget()
    fn, shape = WORKLOADS[name]
    args = [np.ones(shape, np.float32)] + ([np.ones(shape[-1], np.float32)] if name == "bias_relu" else [])
    f = jg.jit(fn)
    f(*args)
    units = next(iter(f._cache.values())).exe.run.units
    cfuncs = [cpu_units._LOADED[u.name][0].kernel for u in units]
    cpu_units.forget()
    for u, k in zip(units, cfuncs):
        asm = k._library.get_asm_str()        # numba's CFunc has inspect_llvm but no inspect_asm
        assert len(PACKED.findall(asm)) >= 4, f"{name}: {u.name} has no packed float arithmetic"
