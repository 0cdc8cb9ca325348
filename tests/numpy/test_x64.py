"""The float64 mode: JAX's jg.config.update("enable_x64", True) / JITGRAD_ENABLE_X64=1 and
PyTorch's jg.set_default_dtype(jg.float64). Weak-type rules stay otherwise."""
import os
import subprocess
import sys

import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad.ir import config

F32, F64 = np.dtype("float32"), np.dtype("float64")


@pytest.fixture
def restore_mode():
    saved = config.chosen()
    yield
    config.restore(saved)


def _float_results():
    """Every way a float dtype gets chosen for the user rather than by them."""
    return {
        "jg.tensor(1.5)": jg.tensor(1.5).dtype,
        "jnp.asarray([1.5])": jnp.asarray([1.5]).dtype,
        "int / int": (jnp.arange(3) / 2).dtype,
        "int * 0.5": (jnp.arange(3) * 0.5).dtype,
        "exp(int)": jnp.exp(jnp.arange(3)).dtype,
        "mean(int)": jnp.mean(jnp.arange(3)).dtype,
        "var(int)": jnp.var(jnp.arange(3)).dtype,
        "zeros": jnp.zeros(2).dtype,
        "ones": jnp.ones(2).dtype,
        "eye": jnp.eye(2).dtype,
        "linspace": jnp.linspace(0, 1, 3).dtype,
        "arange(0.5)": jnp.arange(0.5, 3).dtype,
        "jg.randn": jg.randn(2).dtype,
        "jg.zeros": jg.zeros(2).dtype,
        "random.normal": jg.random.normal(jg.random.key(0), (2,)).dtype,
        "traced python float": jg.jit(lambda n: n * 1.5)(jnp.arange(2)).dtype,
    }


def test_default_is_float32():
    assert set(_float_results().values()) == {F32}
    assert jg.get_default_dtype() == F32 and jg.config.read("enable_x64") is False


@pytest.mark.parametrize("switch", ["config", "jax_name", "torch"])
def test_float64_mode_makes_every_default_float64(restore_mode, switch):
    {"config": lambda: jg.config.update("enable_x64", True),
     "jax_name": lambda: jg.config.update("jax_enable_x64", True),
     "torch": lambda: jg.set_default_dtype(jg.float64)}[switch]()
    got = _float_results()
    assert {k: v for k, v in got.items() if v != F64} == {}
    assert jg.get_default_dtype() == F64


def test_weak_scalars_keep_array_dtypes(restore_mode):
    jg.config.update("enable_x64", True)
    x32 = jnp.ones(3, dtype="float32")
    assert (x32 * 2.5).dtype == F32 and (2.5 + x32).dtype == F32
    assert jnp.exp(x32).dtype == F32
    assert (jnp.arange(3) + 2).dtype == np.dtype("int64")
    assert (jnp.ones(2, dtype="int32") * 3).dtype == np.dtype("int32")


def test_python_float_keeps_float64_precision_in_grads(restore_mode):
    jg.config.update("enable_x64", True)
    x = 0.1
    g = jg.grad(lambda v: jnp.sin(v) * 3.0)(x)
    assert g.dtype == F64
    np.testing.assert_allclose(float(g), 3 * np.cos(0.1), rtol=1e-14)
    jg.test_util.check_grads(lambda v: jnp.tanh(v) * v, (0.3,), order=2, modes=("fwd", "rev"))


def test_jit_retraces_when_the_mode_changes(restore_mode):
    f = jg.jit(lambda n: n / 2)
    x = jnp.arange(4)
    assert f(x).dtype == F32
    jg.config.update("enable_x64", True)
    assert f(x).dtype == F64
    np.testing.assert_array_equal(np.asarray(f(x)), np.arange(4) / 2)
    jg.config.update("enable_x64", False)
    assert f(x).dtype == F32
    assert f.trace_count == 2            # the float32 trace was kept, not redone
    assert f.lower(x).ir.count("f32") >= 1


def test_set_default_dtype_wins_over_enable_x64(restore_mode):
    jg.config.update("enable_x64", True)
    jg.set_default_dtype(jg.float32)
    assert jg.tensor(1.5).dtype == F32


def test_env_variable_turns_it_on():
    code = "import jitgrad as jg; print(jg.tensor(1.5).dtype, jg.config.enable_x64)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "JITGRAD_ENABLE_X64": "1"}).stdout.split()
    assert out == ["float64", "True"]


@pytest.mark.parametrize("call, err, msg", [
    (lambda: jg.set_default_dtype(jg.int64), TypeError,
     "only float32 and float64 can be the default dtype, got int64"),
    (lambda: jg.set_default_dtype("float16"), TypeError,
     "only float32 and float64 can be the default dtype, got float16"),
    (lambda: jg.config.update("enable_x64", "yes"), TypeError,
     "expects True or False, got str 'yes'"),
    (lambda: jg.config.update("enable_x65", True), AttributeError,
     "jg.config has no option 'enable_x65'; known options: enable_x64, jax_enable_x64"),
])
def test_errors(restore_mode, call, err, msg):
    with pytest.raises(err, match=msg.replace("(", r"\(").replace(")", r"\)")):
        call()


@pytest.mark.parametrize("switch", [lambda: jg.set_default_dtype(jg.float64),
                                    lambda: jg.config.update("enable_x64", True)])
def test_nn_layers_parameters_follow_the_default_dtype(restore_mode, switch):
    from jitgrad import nn
    make = [lambda: nn.Linear(3, 2), lambda: nn.LayerNorm(4), lambda: nn.Embedding(5, 3),
            lambda: nn.Conv2d(1, 2, 3)]
    assert {p.dtype for m in make for p in m().parameters()} == {F32}
    switch()
    layers = [m() for m in make]
    assert {p.dtype for m in layers for p in m.parameters()} == {F64}
    x = jnp.asarray(np.random.default_rng(0).standard_normal((2, 3)))
    out = layers[0](x)
    jnp.sum(out ** 2).backward()
    assert out.dtype == F64 and layers[0].weight.grad.dtype == F64
