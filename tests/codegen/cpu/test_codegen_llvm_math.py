"""The LLVM kernels' math functions (codegen/cpu/llvm_math.py) against NumPy, on special values
(zeros, infinities, NaN, subnormals, the overflow edges) and on random ones."""
import numpy as np
import pytest

import jitgrad as jg
import jitgrad.nn.functional as F
import jitgrad.numpy as jnp
from jitgrad.codegen.cpu import units as cpu_units
from jitgrad.codegen.cpu.llvm_math import FUNCTIONS

SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40, -1e-40, 1.0, -1.0, 88.7, 89.5, -103.0, -110.0,
           1e30, -1e30, 0.5, 2.0, 3.0, -3.0, 1e-8, 709.0, 711.0, -745.0, -750.0]
UNARY = {"exp": jnp.exp, "log": jnp.log, "tanh": jnp.tanh, "sigmoid": F.sigmoid,
         "log1p": jnp.log1p, "expm1": jnp.expm1}


def _args(dt):
    rng = np.random.default_rng(0)
    x = np.concatenate([SPECIAL, rng.standard_normal(2000) * 10, rng.standard_normal(2000),
                        np.exp(rng.uniform(-80, 80, 2000))]).astype(dt)
    y = np.concatenate([SPECIAL, rng.uniform(-5, 5, x.size - len(SPECIAL))]).astype(dt)
    y[100:300] = np.round(y[100:300])            # integer exponents: odd and even powers
    return x, y


def _run(f, args):
    cpu_units.forget()
    jf = jg.jit(f)
    out = np.asarray(jf(*args))
    units = jf.lower(*args).compile().units
    assert [u.target for u in units] == ["cpu-llvm"], units
    return out


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("name", [*UNARY, "pow"])
def test_llvm_math_matches_numpy(name, dt):
    assert (name, dt) in FUNCTIONS
    f = (lambda x, y: x ** y) if name == "pow" else (lambda x, y, g=UNARY[name]: g(x))
    args = _args(np.dtype(dt))
    a = _run(f, args)
    with np.errstate(all="ignore"):
        want = args[0] ** args[1] if name == "pow" else \
            (1 / (1 + np.exp(-args[0])) if name == "sigmoid" else getattr(np, name)(args[0]))
    np.testing.assert_allclose(a, want.astype(dt), rtol=1e-5 if dt == "float32" else 1e-12,
                               atol=0 if name != "sigmoid" else 1e-7)
