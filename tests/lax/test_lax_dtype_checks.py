"""jg.lax's binary elementwise functions refuse operands of two dtypes, as jax.lax does
("lax.add requires arguments to have the same dtypes, got float32, int32"): NumPy scalars
carry their dtype, Python scalars are weak and take the other operand's (when it can hold
them). Expected values are NumPy's."""
from __future__ import annotations

import numpy as np
import pytest

import jitgrad as jg
from jitgrad import lax

PATHS = ["eager", "jit", pytest.param("jit_interpreter", marks=pytest.mark.interpreter)]

A = np.array([-3, 0, 5, 6], np.int32)
B = np.array([2, 1, 3, 6], np.int32)
F = np.array([-1.5, 0.25, 2.0, 3.0], np.float32)
G = np.array([0.5, 2.0, -1.0, 3.0], np.float32)

# name -> (NumPy reference, operands of one dtype, a mismatched pair and its dtypes)
BINARY = {
    "add": (np.add, (F, G), (np.float32(1), np.int32(1)), "float32, int32"),
    "sub": (np.subtract, (F, G), (np.float32(1), np.float64(1)), "float32, float64"),
    "mul": (np.multiply, (A, B), (np.int32(1), np.int64(1)), "int32, int64"),
    "div": (np.true_divide, (F, G), (np.float32(1), np.int32(1)), "float32, int32"),
    "rem": (np.fmod, (F, G), (np.float64(1), np.float32(1)), "float64, float32"),
    "pow": (np.power, (np.abs(F), G), (np.float32(1), np.float64(1)), "float32, float64"),
    "max": (np.maximum, (F, G), (np.int32(1), np.float32(1)), "int32, float32"),
    "min": (np.minimum, (A, B), (np.int64(1), np.int32(1)), "int64, int32"),
    "atan2": (np.arctan2, (F, G), (np.float32(1), np.float64(1)), "float32, float64"),
    "eq": (np.equal, (A, B), (np.float32(1), np.int32(1)), "float32, int32"),
    "ne": (np.not_equal, (F, G), (np.float32(1), np.int32(1)), "float32, int32"),
    "lt": (np.less, (F, G), (np.float32(1), np.int32(1)), "float32, int32"),
    "le": (np.less_equal, (A, B), (np.int32(1), np.int64(1)), "int32, int64"),
    "gt": (np.greater, (F, G), (np.float32(1), np.int32(1)), "float32, int32"),
    "ge": (np.greater_equal, (A, B), (np.int32(1), np.int64(1)), "int32, int64"),
    "bitwise_and": (np.bitwise_and, (A, B), (np.int32(1), np.int64(1)), "int32, int64"),
    "bitwise_or": (np.bitwise_or, (A, B), (np.int32(1), np.int16(1)), "int32, int16"),
    "bitwise_xor": (np.bitwise_xor, (A, B), (np.uint8(1), np.int32(1)), "uint8, int32"),
    "shift_left": (np.left_shift, (A, B), (np.int32(1), np.int16(1)), "int32, int16"),
    "shift_right_arithmetic": (np.right_shift, (A, B), (np.int32(1), np.int64(1)),
                               "int32, int64"),
}
# lax names whose message names the operation differently (jax.lax's: "lax.and", ...)
MESSAGE_NAME = {"bitwise_and": "and", "bitwise_or": "or", "bitwise_xor": "xor"}


def run(path, f, *args):
    return f(*args) if path == "eager" else jg.jit(f)(*args)


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("name", sorted(BINARY))
def test_mixed_dtypes_are_refused(path, name):
    _, _, pair, dtypes = BINARY[name]
    fn = getattr(lax, name)
    msg = f"lax.{MESSAGE_NAME.get(name, name)} requires arguments to have the same dtypes, " \
          f"got {dtypes}"
    with pytest.raises(TypeError, match=msg):
        run(path, fn, *pair)


@pytest.mark.parametrize("name", sorted(BINARY))
def test_one_dtype_gives_numpys_values(name):
    ref, (x, y), _, _ = BINARY[name]
    got = getattr(lax, name)(x, y)
    want = ref(x, y)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-6)


@pytest.mark.parametrize("path", PATHS)
def test_python_scalars_are_weak(path):
    out = run(path, lambda x: lax.add(x, 2), F)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out.numpy(), F + 2)
    out = run(path, lambda a: lax.mul(a, 3), A)
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out.numpy(), A * 3)
    assert run(path, lambda a: lax.lt(a, 1), A).dtype == np.bool_


@pytest.mark.parametrize("path", PATHS)
def test_python_float_does_not_become_an_integer(path):
    with pytest.raises(TypeError, match=r"lax.add requires arguments to have the same dtypes, "
                                        r"got int32 and the Python float 2.5, which int32 "
                                        r"cannot hold"):
        run(path, lambda a: lax.add(a, 2.5), A)


@pytest.mark.parametrize("path", PATHS)
def test_numpy_scalar_arguments_of_one_dtype(path):
    out = run(path, lax.add, np.float32(1.5), np.float32(2.0))
    assert out.dtype == np.float32 and float(out) == 3.5


@pytest.mark.parametrize("path", PATHS)
def test_pow_takes_an_integer_exponent(path):
    out = run(path, lax.pow, np.abs(F), np.array([2, 3, 0, 1], np.int32))
    assert out.dtype == np.float32
    np.testing.assert_allclose(out.numpy(), np.abs(F) ** np.array([2, 3, 0, 1]), rtol=1e-6)


def test_weak_traced_scalar_carries_its_dtype():
    # a jit argument np.float64(1) is weak, but lax checks dtypes as they are (as JAX's lax)
    with pytest.raises(TypeError, match="lax.add requires arguments to have the same dtypes, "
                                        "got float32, float64"):
        jg.jit(lambda x, s: lax.add(x, s))(F, np.float64(1))


@pytest.mark.parametrize("name", ["add", "mul", "lt", "max"])
def test_against_jax(name):
    jax_lax = pytest.importorskip("jax.lax")
    with pytest.raises(TypeError, match="requires arguments to have the same dtypes"):
        getattr(jax_lax, name)(np.float32(1), np.int32(1))
    np.testing.assert_allclose(np.asarray(getattr(lax, name)(F, G)),
                               np.asarray(getattr(jax_lax, name)(F, G)))
