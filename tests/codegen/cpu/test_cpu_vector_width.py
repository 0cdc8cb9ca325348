"""The cpu_vector_width option (ir/config.py): the width LLVM's loop vectorizer is asked for in
every CPU kernel unit, read when the kernel is generated; values stay those of NumPy at any
width."""
import re
import subprocess
import sys

import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad.nn import functional as F


def _units(fn, *args):
    return [u for u in fn.lower(*args).compile().units]


def _widths(text):
    return re.findall(r'^define [^\n]*"prefer-vector-width"="(\d+)"', text, re.M)


def _program(x):
    return F.softmax(x * 1.5, axis=-1) + jnp.tanh(x).sum(axis=0)


@pytest.mark.parametrize("width", [512, 256, 0])
def test_units_ask_for_the_width(width, monkeypatch):
    monkeypatch.setenv("JITGRAD_CPU_VECTOR_WIDTH", str(width))
    x = np.random.default_rng(0).standard_normal((64, 256)).astype(np.float32)
    f = jg.jit(lambda x: _program(x) + width)       # its own kernels, compiled now
    units = _units(f, x)
    assert units
    for u in units:
        found = _widths(u.source)
        assert found == ([str(width)] * len(found) if width else [])
        if width:
            assert found              # every unit's functions carry it
    np.testing.assert_allclose(np.asarray(f(x)), np.asarray(_program(jnp.asarray(x))) + width,
                               rtol=2e-6, atol=2e-6)


def test_default_is_512_and_zmm_is_used_on_avx512_hosts():
    from jitgrad.codegen.cpu import llvm_jit
    assert jg.config.read("cpu_vector_width") == 512
    if not llvm_jit.host_has("avx512f"):
        pytest.skip("the host has no AVX-512")
    x = np.ones((4096, 64), np.float32)
    units = _units(jg.jit(lambda x: jnp.exp(x * 0.5 + 1.0) * x), x)
    assert any("zmm" in u.assembly() for u in units)


def test_bad_values_are_refused():
    with pytest.raises(ValueError, match="cpu_vector_width"):
        jg.config.update("cpu_vector_width", 300)
    code = "import jitgrad as jg; print(jg.config.read('cpu_vector_width'))"
    for text, want in (("wide", "'wide'"), ("300", "300")):
        run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             env={"JITGRAD_CPU_VECTOR_WIDTH": text, "PATH": ""})
        assert run.returncode != 0
        assert f"JITGRAD_CPU_VECTOR_WIDTH expects one of 0, 128, 256, 512, got {want}" in run.stderr
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={"JITGRAD_CPU_VECTOR_WIDTH": " 256 ", "PATH": ""})
    assert run.stdout.strip() == "256"
