"""jitgrad/numpy/ufuncs.py is generated from the primitives' records: it is up to date, and its
functions are real defs with NumPy's names, signatures and a docstring naming their counterpart."""
import inspect

import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad.ir.registry import RECORDS
from jitgrad.numpy import _generate, ufuncs

GENERATED = sorted((r for r in RECORDS.values() if r.numpy_kind), key=lambda r: r.numpy[0])


def test_the_checked_in_module_is_what_the_records_generate():
    assert _generate.TARGET.read_text() == _generate.source(), (
        "jitgrad/numpy/ufuncs.py is stale: run python -m jitgrad.numpy._generate")


@pytest.mark.parametrize("r", GENERATED, ids=lambda r: r.numpy[0])
def test_each_function_is_a_def_named_and_documented(r):
    name = r.numpy[0]
    fn = getattr(jnp, name)      # jnp's public functions are wrapped (errors name the user's line)
    assert inspect.unwrap(fn) is inspect.unwrap(getattr(ufuncs, name)) and fn.__name__ == name
    assert f"def {name}(" in inspect.getsource(fn)
    assert f"numpy.{name}" in fn.__doc__ and r.doc[1:] in fn.__doc__
    for alias in r.numpy[1:]:
        assert inspect.unwrap(getattr(jnp, alias)) is inspect.unwrap(fn)
        assert f"jnp.{alias}" in fn.__doc__
    params = list(inspect.signature(fn).parameters.values())
    assert all(p.kind is p.POSITIONAL_ONLY for p in params) and len(params) == r.arity


def test_the_module_exports_only_the_functions():
    assert set(ufuncs.__all__) == {n for r in GENERATED for n in r.numpy}
    assert not hasattr(jnp, "float_unary") and not hasattr(jnp, "accepts_out")


def test_generated_functions_run_eagerly_and_under_jit():
    x = np.array([0.25, 0.5, 2.0], np.float32)
    np.testing.assert_allclose(np.asarray(jnp.arcsin(x[:2])), np.arcsin(x[:2]), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(jg.jit(jnp.power)(x, x)), x ** x, rtol=1e-6)
    assert jnp.left_shift(np.int32(1), np.int32(3)) == 8
    out = np.zeros(3, np.float32)
    assert jnp.exp(x, out=out) is out
    np.testing.assert_allclose(out, np.exp(x), rtol=1e-6)
    with pytest.raises(TypeError, match="bitwise_and is supported on integer and bool"):
        jnp.bitwise_and(x, x)
