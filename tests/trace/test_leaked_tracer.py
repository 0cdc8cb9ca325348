"""A traced value that escapes its jitted or transformed function (kept in a list or a global)
and is used after the trace ended raises UnexpectedTracerError (JAX's name, a TypeError),
naming the function being traced, the line that made the value and the line using it."""
from __future__ import annotations

import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad.errors import UnexpectedTracerError

X = np.array([1.0, 2.0, 3.0], np.float32)
# the error names where the value was made (this file, inside `leaky`) and the trace's function
MADE = r"created at test_leaked_tracer.py:\d+ while tracing leaky\)"


def leak(transform):
    """A tracer of `transform`'s trace, kept after it returned."""
    kept = []

    def leaky(x):
        kept.append(x * 2.0)
        return jnp.sum(x)
    transform(leaky)(X)
    return kept[0]


TRANSFORMS = {"jit": jg.jit, "grad": jg.grad, "vmap": jg.vmap,
              "jit_interpreter": jg.jit}


@pytest.fixture(params=sorted(TRANSFORMS))
def leaked(request, monkeypatch):
    if request.param == "jit_interpreter":
        monkeypatch.setenv("JITGRAD_BACKEND", "interpreter")
    return leak(TRANSFORMS[request.param])


USES = {
    "arithmetic": lambda t: t + 1.0,
    "jnp function": jnp.sin,
    "method": lambda t: t.astype("float64"),
    "float": float,
    "bool": bool,
    "numpy": np.asarray,
    "item": lambda t: t.item(),
    "index": lambda t: t[None],
    "print": str,
    "another jit": lambda t: jg.jit(lambda y: y * t)(X),
    "returned by a jit": lambda t: jg.jit(lambda: t)(),
    "eager grad": lambda t: jg.grad(lambda y: jnp.sum(y * t))(X),
}


@pytest.mark.parametrize("use", sorted(USES))
def test_using_a_leaked_tracer_raises(leaked, use):
    with pytest.raises(UnexpectedTracerError, match=MADE + r" was used after that trace ended "
                                                           r"\(at test_leaked_tracer.py:\d+\)"):
        USES[use](leaked)


def test_error_is_a_type_error_and_repr_says_leaked():
    t = leak(jg.jit)
    assert issubclass(UnexpectedTracerError, TypeError)
    assert "leaked" in repr(t) and "leaky" in repr(t)
    with pytest.raises(TypeError, match="Return it from the function instead"):
        t * 2


def test_leaked_argument_tracer_names_the_function():
    kept = []

    def keeps_its_argument(x):
        kept.append(x)
        return x
    jg.jit(keeps_its_argument)(X)
    with pytest.raises(UnexpectedTracerError, match="an argument while tracing keeps_its_argument"):
        kept[0] + 1


def test_values_returned_from_traces_are_unaffected():
    out = jg.jit(lambda x: x * 2.0)(X)
    np.testing.assert_array_equal((out + 1.0).numpy(), X * 2 + 1)
    # a tracer closed over by an inner transformation while its trace is alive is fine
    g = jg.jit(lambda x: jg.grad(lambda y: jnp.sum(y * x))(x))(X)
    np.testing.assert_array_equal(g.numpy(), X)
