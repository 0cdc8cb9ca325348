"""Issue 24, part A: each reproducer on every path (eager value, eager .backward(), grad, jvp,
jit of grad on the reference interpreter and compiled), against values worked out by hand or
by NumPy.

Classes: arrays built from Python containers of traced values (jnp.array/asarray of nested
lists, linspace/logspace/geomspace endpoints, full/full_like/pad fill values, append of lists,
copy), autograd's suite failures (std's derivative at 0, einsum's sublist form,
real_if_close), scan's carry type, and NumPy scalars as weak constants."""
from __future__ import annotations

import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp

F32, F64 = np.dtype("float32"), np.dtype("float64")
PATHS = ("eager_backward", "grad", "jvp", "jit_interpreter", "jit_compiled")


def _derivative(path, f, x0, monkeypatch):
    """df/dx at x0 (float64) on one path."""
    x = jnp.asarray(np.float64(x0))
    if path == "eager_backward":
        t = jg.tensor(x0, dtype="float64", requires_grad=True)
        f(t).backward()
        assert t.grad is not None, "no gradient reached the input"
        return float(t.grad)
    if path == "grad":
        return float(jg.grad(f)(x))
    if path == "jvp":
        return float(jg.jvp(f, (x,), (jnp.asarray(np.float64(1.0)),))[1])
    if path == "jit_interpreter":
        monkeypatch.setenv("JITGRAD_BACKEND", "interpreter")
    return float(jg.jit(jg.grad(f))(x))


X0 = 0.7
# (id, scalar function of x, d/dx at X0 worked out by hand)
DERIVATIVES = [
    ("array_nested", lambda x: jnp.array([[x, x * 1.0, x / 2.0], [x, x, x]]).sum(), 5.5),
    ("asarray_nested_tuple", lambda x: jnp.asarray(((x, 1.0), (3.0, x * x))).sum(), 1 + 2 * X0),
    ("array_of_arrays", lambda x: jnp.array([jnp.stack([x, 2 * x]), [1.0, 2.0]]).sum(), 3.0),
    ("array_dtype_given", lambda x: jnp.array([[x, 1.0]], dtype=jnp.float64).sum(), 1.0),
    ("linspace", lambda x: jnp.linspace(x, 3 * x, 5).sum(), 10.0),
    ("linspace_no_endpoint", lambda x: jnp.linspace(x, 3 * x, 4, endpoint=False).sum(), 7.0),
    ("linspace_one", lambda x: jnp.linspace(x, 3 * x, 1).sum(), 1.0),
    ("logspace", lambda x: jnp.logspace(x, 2 * x, 3).sum(),
     sum(np.log(10) * (1 + k / 2) * 10 ** (X0 * (1 + k / 2)) for k in range(3))),
    ("geomspace", lambda x: jnp.geomspace(x, 4 * x, 3).sum(), 7.0),
    ("geomspace_negative", lambda x: jnp.geomspace(-x, -4 * x, 3).sum(), -7.0),
    ("full_traced_fill", lambda x: jnp.full((2, 3), x).sum(), 6.0),
    ("full_list_fill", lambda x: jnp.full((2, 2), [x, 2 * x]).sum(), 6.0),
    ("full_like_traced_fill", lambda x: jnp.full_like(jnp.zeros(3), x).sum(), 3.0),
    ("pad_traced_constant", lambda x: jnp.pad(jnp.ones(2) * x, 1, constant_values=x).sum(), 4.0),
    ("copy", lambda x: jnp.copy(x * 2), 2.0),
    ("append_2d_list", lambda x: jnp.append(jnp.ones(2), [[x, 2 * x]]).sum(), 3.0),
    ("append_list_of_traced", lambda x: jnp.append([x, x], [[x, 2 * x]]).sum(), 5.0),
    ("max_of_nested_array", lambda x: jnp.max(jnp.array([[x, x], [x, 0.5]]), axis=1).sum(), 2.0),
    ("std_of_one_value", lambda x: jnp.std(x), 0.0),
    ("std_of_equal_values", lambda x: jnp.std(jnp.stack([x, x, x])), 0.0),
    ("std_list_of_boxes", lambda x: jnp.std([x, x + 2]), 0.0),
    ("einsum_sublists", lambda x: jnp.einsum(jnp.stack([x, 1.0]), [0], jnp.stack([x, 2.0]), [0]),
     2 * X0),
    ("einsum_sublists_out", lambda x: jnp.einsum(
        jnp.reshape(jnp.stack([x, 1.0, 2.0, x]), (2, 2)), [0, 1], jnp.ones((2, 3)), [1, 2],
        [2, 0]).sum(), 6.0),
    ("scan_python_int_carry", lambda x: jg.scan(lambda c, v: (c + v, v), 0,
                                                jnp.stack([x, x * x]))[0], 1 + 2 * X0),
    ("weak_numpy_scalar", lambda x: x * np.float64(0.5) + x * np.array(0.25), 0.75),
    ("at_set_list_of_traced", lambda x: jnp.zeros(3).at[np.array([0, 1])].set([x, 2 * x]).sum(),
     3.0),
    ("at_add_nested_list", lambda x: jnp.zeros((2, 2)).at[0].add([x, x * x]).sum(), 1 + 2 * X0),
]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("case", DERIVATIVES, ids=[c[0] for c in DERIVATIVES])
def test_derivative_on_every_path(case, path, monkeypatch):
    _, f, want = case
    np.testing.assert_allclose(_derivative(path, f, X0, monkeypatch), want, rtol=1e-6, atol=1e-9)


def test_nested_array_reproducer():
    f = lambda x: jnp.array([[x, x * 1.0, x / 2.0], [x, x, x]])
    tangent = jg.jvp(f, (jnp.asarray(1.0),), (jnp.asarray(1.0),))[1]
    np.testing.assert_allclose(tangent.numpy(), [[1, 1, .5], [1, 1, 1]])
    assert float(jg.grad(lambda x: f(x).sum())(jnp.asarray(1.0))) == 5.5
    np.testing.assert_allclose(jg.jit(f)(jnp.asarray(2.0)).numpy(), [[2, 2, 1], [2, 2, 2]])


def test_nested_array_of_tensors_that_require_grad():
    a, b = jg.tensor(1.0, requires_grad=True), jg.tensor(2.0, requires_grad=True)
    m = jnp.array([[a, b], [b * b, 3.0]])
    assert m.dtype == F32 and m.requires_grad
    (m * jnp.array([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
    assert float(a.grad) == 1.0 and float(b.grad) == 2.0 + 3.0 * 2 * 2.0


def test_nested_array_dtype_promotes_leaves_with_weak_scalars():
    x32 = jnp.ones((), dtype=jnp.float32)
    assert jnp.array([[x32, 1.0], [2, 3]]).dtype == F32
    assert jnp.array([[jnp.ones((), dtype=jnp.float64), 1.0]]).dtype == F64
    assert jnp.array([x32, np.float64(1.0)]).dtype == F32      # NumPy scalars weak too
    with pytest.raises(ValueError, match="same shape"):
        jnp.array([[x32, x32], [x32]])


def test_linspace_values_dtypes_and_jit():
    np.testing.assert_allclose(jnp.linspace(1.0, 2.0, 5).numpy(), np.linspace(1, 2, 5), rtol=1e-6)
    assert jnp.linspace(np.float64(1), np.float64(2), 3).dtype == F64       # as NumPy
    assert jnp.linspace(jnp.asarray(np.float64(1)), 2.0, 3).dtype == F64
    assert jnp.linspace(0, 1, 3).dtype == F32                                # default float
    assert jnp.linspace(0, 10, 4, dtype=int).tolist() == np.linspace(0, 10, 4, dtype=int).tolist()
    a = np.array([1.0, 2.0], np.float64)
    out = jg.jit(lambda a: jnp.linspace(a[0], a[1], 4))(a)
    assert out.dtype == F64
    np.testing.assert_array_equal(out.numpy(), np.linspace(1.0, 2.0, 4))     # endpoint exact
    lo, hi = np.zeros(2), np.array([1.0, 4.0])
    got, step = jnp.linspace(jnp.asarray(lo), jnp.asarray(hi), 3, axis=1, retstep=True)
    want, wstep = np.linspace(lo, hi, 3, axis=1, retstep=True)
    np.testing.assert_allclose(got.numpy(), want)
    np.testing.assert_allclose(np.asarray(step), wstep)
    np.testing.assert_allclose(jnp.geomspace(jnp.asarray(1.0), 8.0, 4).numpy(), [1, 2, 4, 8],
                               rtol=1e-6)
    np.testing.assert_allclose(jnp.logspace(jnp.asarray(1.0), 2.0, 3, base=2).numpy(),
                               np.logspace(1, 2, 3, base=2), rtol=1e-6)


def test_arange_with_traced_bounds_is_jax_error_under_jit():
    with pytest.raises(jg.ConcretizationError, match="jnp.arange's argument 'stop' must be a "
                                                     "concrete value"):
        jg.jit(lambda n: jnp.arange(n))(jnp.asarray(3.0))
    # under grad the value is concrete (JAX's grad traces the same way): derivative 0
    assert float(jg.grad(lambda x: x * jnp.arange(x).sum())(jnp.asarray(3.0))) == 3.0
    assert jnp.arange(jg.tensor(3.0, requires_grad=True)).tolist() == [0.0, 1.0, 2.0]


def test_real_if_close_values_and_jit_error():
    z = np.array([1 + 1e-14j, 2 + 0j])
    assert jnp.real_if_close(z).dtype == F64 and jnp.real_if_close(z).tolist() == [1.0, 2.0]
    assert jnp.real_if_close(np.array([1 + 1e-3j])).dtype == np.complex128
    with pytest.raises(jg.ConcretizationError, match="real_if_close"):
        jg.jit(lambda x: jnp.real_if_close(x + 0j))(jnp.ones(2))
    # differentiable where its values are concrete (eager, grad, jvp)
    f = lambda x: jnp.real_if_close(jnp.stack([x, 2 * x]) + 0j).sum()
    x = jnp.asarray(np.float64(X0))
    assert float(jg.grad(f)(x)) == 3.0
    assert float(jg.jvp(f, (x,), (jnp.asarray(np.float64(1.0)),))[1]) == 3.0


def test_einsum_sublist_form_matches_numpy():
    rng = np.random.default_rng(0)
    a, b, c = rng.standard_normal((2, 3)), rng.standard_normal((3, 4)), rng.standard_normal((5, 2, 3))
    for args in ((a, [0, 1], b, [1, 2]), (a, [0, 1], b, [1, 2], [2, 0]), (a, [1, 0]),
                 (c, [Ellipsis, 0, 1], b, [1, 2]), (c, [Ellipsis, 0, 1], b, [1, 2], [Ellipsis, 2])):
        want = np.einsum(*args)
        np.testing.assert_allclose(jnp.einsum(*args).numpy(), want, rtol=1e-12)
        out = args[-1] if len(args) % 2 else None
        pairs = args[:-1] if out is not None else args
        ops, subs = pairs[0::2], pairs[1::2]      # sublists are static: closed over under jit

        def f(*xs, subs=subs, out=out):
            flat = [v for x, s_ in zip(xs, subs) for v in (x, s_)]
            return jnp.einsum(*flat, *([out] if out is not None else []))
        np.testing.assert_allclose(jg.jit(f)(*ops).numpy(), want, rtol=1e-12)
    with pytest.raises(ValueError, match="sublist holds integers"):
        jnp.einsum(a, [0, "x"])


@pytest.mark.parametrize("path", ["eager", "jit_interpreter", "jit_compiled"])
def test_scan_carry_type(path, monkeypatch):
    if path == "jit_interpreter":
        monkeypatch.setenv("JITGRAD_BACKEND", "interpreter")
    run = (lambda f, *a: f(*a)) if path == "eager" else (lambda f, *a: jg.jit(f)(*a))
    xs = np.ones(3, np.float32)
    # a Python-int carry takes float32 from the body on every path (jit gave float64)
    c = run(lambda xs: jg.scan(lambda c, x: (c + x, x), 0, xs)[0], xs)
    assert c.dtype == F32 and float(c) == 3.0
    msg = (r"scan: the body function's carry input and carry output must have equal types, but "
           r"they differ: the input carry has type int32\[\] but the corresponding output carry "
           r"component has type float32\[\], so the dtypes do not match")     # int32 + float32
    with pytest.raises(TypeError, match=msg):
        run(lambda c, xs: jg.scan(lambda c, x: (c + x, x), c, xs)[0], np.int32(0) + np.zeros(
            (), np.int32), xs)
    with pytest.raises(TypeError, match=r"float32\[\] but the corresponding output carry "
                                        r"component has type float32\[2\], so the shapes"):
        run(lambda c, xs: jg.scan(lambda c, x: (jnp.stack([c, c]), x), c, xs)[0],
            np.zeros((), np.float32), xs)


@pytest.mark.parametrize("path", ["eager", "jit_interpreter", "jit_compiled", "grad"])
def test_numpy_scalars_are_weak(path, monkeypatch):
    if path == "jit_interpreter":
        monkeypatch.setenv("JITGRAD_BACKEND", "interpreter")
    f = lambda x: x * np.float64(0.5) + x * (1.0 / np.sqrt(32)) + np.array(1.0)
    x = np.arange(3, dtype=np.float32)
    if path == "grad":
        out = jg.grad(lambda x: f(x).sum())(x)
        np.testing.assert_allclose(out.numpy(), 0.5 + 1 / np.sqrt(32), rtol=1e-6)
    else:
        out = f(jnp.asarray(x)) if path == "eager" else jg.jit(f)(x)
        np.testing.assert_allclose(out.numpy(), x * 0.5 + x / np.sqrt(32) + 1, rtol=1e-6)
    assert out.dtype == F32


def test_numpy_scalar_promotion_table():
    i32, f32 = jnp.ones(2, dtype=jnp.int32), jnp.ones(2, dtype=jnp.float32)
    assert (i32 + np.int64(1)).dtype == np.int32            # PyTorch; NumPy 2: int64
    assert (i32 * np.float64(1.5)).dtype == F32             # the default float, as 1.5
    assert (f32 * np.complex128(1j)).dtype == np.complex64
    assert (f32 * np.ones(2)).dtype == F64                  # a 1-d NumPy array stays strong
    assert jnp.add(np.float64(1), np.float64(2)).dtype == F64    # no jitgrad array: NumPy's
    assert jnp.result_type(f32, np.float64(1)) == F32


def test_setitem_with_a_list_of_tensors_that_require_grad():
    a = jg.tensor(2.0, requires_grad=True)
    x = jnp.zeros(3)
    x[0:2] = [a, a * a]
    x.sum().backward()
    assert x.tolist() == [2.0, 4.0, 0.0] and float(a.grad) == 5.0
    y = jnp.zeros(3)
    y[0:2] = [1.0, 2.0]                 # plain numbers: an in-place write, as before
    assert y.tolist() == [1.0, 2.0, 0.0]


def test_jg_tensor_refuses_traced_values():
    """jg.tensor makes a new leaf (torch.tensor): of traced values it would drop derivatives."""
    for transform in (jg.grad, jg.jit):
        with pytest.raises(TypeError, match="jg.tensor copies data into a new leaf tensor, but "
                                            "got traced values"):
            transform(lambda x: jg.tensor([x, 1.0]).sum())(jnp.asarray(1.0))
    assert jg.tensor([jg.tensor(1.0), 2.0]).tolist() == [1.0, 2.0]     # eager tensors: copied
