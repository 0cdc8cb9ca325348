"""while_loop / fori_loop whose condition or bound is traced while the initial value is a
constant (`while_loop(lambda i: i < n, ..., 0)` under jit or vmap) run as one loop, as JAX's;
fori_loop's index is int32 (the bounds' dtype when they are typed) and weakly typed, so a
float32 carry stays float32; a carry whose type changes is refused naming the function the
user called. Expected values are worked out by hand."""
from __future__ import annotations

import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad import lax

PATHS = ["eager", "jit", pytest.param("jit_interpreter", marks=pytest.mark.interpreter)]
JIT_PATHS = ["jit", pytest.param("jit_interpreter", marks=pytest.mark.interpreter)]


def run(path, f, *args):
    return f(*args) if path == "eager" else jg.jit(f)(*args)


def count_to(n):
    return jg.while_loop(lambda i: i < n, lambda i: i + 1, 0)


def add_ones(n):
    return jg.fori_loop(0, n, lambda i, v: v + 1.0, 0.0)


@pytest.mark.parametrize("path", PATHS)
def test_while_loop_condition_closes_over_a_traced_bound(path):
    assert int(run(path, count_to, np.int32(5))) == 5


@pytest.mark.parametrize("path", PATHS)
def test_fori_loop_with_a_traced_upper_bound(path):
    out = run(path, add_ones, np.int32(5))
    assert out.dtype == np.float32 and float(out) == 5.0
    out = run(path, lambda lo: jg.fori_loop(lo, 7, lambda i, v: v + i, 0), np.int32(3))
    assert int(out) == 3 + 4 + 5 + 6


@pytest.mark.parametrize("path", PATHS)
def test_constant_init_carry_traced_after_one_step(path):
    # cond is concrete, the body makes the carry traced: one loop from there
    def f(x):
        return jg.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * x), (0, 1.0))[1]
    assert float(run(path, f, np.float32(2.0))) == 8.0


@pytest.mark.parametrize("path", PATHS)
def test_vmap_batched_bound_and_condition(path):
    ns = jnp.asarray(np.array([0, 2, 5], np.int32))
    out = run(path, jg.vmap(add_ones), ns)
    np.testing.assert_array_equal(out.numpy(), [0.0, 2.0, 5.0])
    out = run(path, jg.vmap(count_to), ns)
    np.testing.assert_array_equal(out.numpy(), [0, 2, 5])


@pytest.mark.parametrize("path", PATHS)
def test_fori_loop_index_keeps_a_float32_carry(path):
    # 1 -> 1.5 -> 3.25 -> 6.875 -> 13.3125 (JAX gives 13.3125 in float32)
    def f(x):
        return lax.fori_loop(0, 4, lambda i, v: v * 1.5 + i, x)
    for x in (np.float32(1.0), jnp.asarray(np.float32(1.0))):
        out = run(path, f, x)
        assert out.dtype == np.float32 and float(out) == 13.3125
    # with a traced bound (a while loop)
    out = run(path, lambda x, n: lax.fori_loop(0, n, lambda i, v: v * 1.5 + i, x),
              jnp.asarray(np.float32(1.0)), np.int32(4))
    assert out.dtype == np.float32 and float(out) == 13.3125


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("bounds, dtype", [((0, 3), np.int32), ((np.int64(0), 3), np.int64)])
def test_fori_loop_index_dtype(path, bounds, dtype):
    def f(v):
        return jg.fori_loop(*bounds, lambda i, v: v + jnp.zeros((), i.dtype), v)
    out = run(path, f, jnp.asarray(np.array([1, 2], np.int64)))
    assert out.dtype == np.int64     # the index never widens the carry
    seen = []
    run(path, lambda v: jg.fori_loop(*bounds, lambda i, v: (seen.append(i.dtype), v)[1], v),
        jnp.asarray(np.float32(0)))
    assert seen and all(d == dtype for d in seen)


@pytest.mark.parametrize("path", PATHS)
def test_grad_through_fori_loop(path):
    # v0 = x, v_{i+1} = v_i * x + i: v3 = x**4 + x + 2, d/dx = 4 x**3 + 1 = 33 at x = 2
    def f(x):
        return jg.fori_loop(0, 3, lambda i, v: v * x + i, x)
    g = run(path, jg.grad(f), np.float32(2.0))
    assert g.dtype == np.float32 and float(g) == 33.0


@pytest.mark.parametrize("path", PATHS)
def test_fori_loop_carry_type_error_names_fori_loop(path):
    init = jnp.zeros((), np.int32)
    msg = (r"fori_loop: the body function's carry input and carry output must have equal "
           r"types, but they differ: .*int32\[\] but the corresponding output carry component "
           r"has type float32\[\]")
    with pytest.raises(TypeError, match=msg):
        run(path, lambda c: jg.fori_loop(0, 3, lambda i, v: v + 0.5, c), init)


@pytest.mark.parametrize("path", JIT_PATHS)
def test_traced_loop_carry_type_errors_name_the_loop(path):
    init = jnp.zeros((), np.int32)
    with pytest.raises(TypeError, match=r"fori_loop: the body function's carry input and "
                                        r"carry output must have equal types"):
        run(path, lambda c, n: jg.fori_loop(0, n, lambda i, v: v + 0.5, c), init, np.int32(3))
    with pytest.raises(TypeError, match=r"while_loop: the body function's carry input and "
                                        r"carry output must have equal types.*int32\[\].*"
                                        r"float32\[\]"):
        run(path, lambda c: jg.while_loop(lambda v: v < 3, lambda v: v + 0.5, c), init)


@pytest.mark.parametrize("path", PATHS)
def test_while_loop_weak_carry_takes_the_body_type(path):
    # a Python-scalar carry is weak (as JAX's): 0 + 0.5 steps is a float32 carry
    out = run(path, lambda n: jg.while_loop(lambda v: v < n, lambda v: v + 0.5, 0), np.int32(2))
    assert out.dtype == np.float32 and float(out) == 2.0
