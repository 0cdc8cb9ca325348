"""complex64 / complex128: promotion (weak Python complex scalars included), elementwise math,
reductions and matmul against NumPy eagerly and under jit, JAX's gradient conventions, and the
errors for what complex numbers do not have (an ordering) or where they do not run (CUDA)."""
import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad.test_util import check_grads

C64, C128, F32, F64 = (np.dtype(d) for d in ("complex64", "complex128", "float32", "float64"))


def z(shape=(2, 3), dtype=C128, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.uniform(-1.5, 1.5, shape) + 1j * rng.uniform(-1.5, 1.5, shape)).astype(dtype)


def test_dtype_names_and_kinds():
    assert jg.complex64 == jnp.complex64 == C64 and jg.complex128 == jnp.complex128 == C128
    assert jnp.isdtype(jnp.complex64, "complex floating")
    assert jnp.isdtype(jnp.complex128, "numeric") and not jnp.isdtype(jnp.complex64, "real floating")
    assert jnp.iscomplexobj(jnp.asarray(z())) and not jnp.iscomplexobj(jnp.ones(2))
    assert jnp.finfo(jnp.complex64).dtype == F32 and jnp.finfo(jnp.complex128).eps == np.finfo(F64).eps
    assert jnp.asarray(1j).dtype == C64 and jnp.asarray([1 + 2j]).dtype == C64
    assert jnp.asarray(np.complex128(1j)).dtype == C128


# JAX's lattice, as torch: int32 + complex64 is complex64 (NumPy: complex128)
@pytest.mark.parametrize("a, b, want", [
    (F32, C64, C64), (F64, C64, C128), (F32, C128, C128), (np.dtype("int32"), C64, C64),
    (np.dtype("bool"), C128, C128)])
def test_array_promotion_follows_jax(a, b, want):
    x, y = jnp.ones(2, dtype=a), jnp.ones(2, dtype=b)
    assert (x + y).dtype == want == jnp.result_type(a, b)


def test_weak_python_complex_keeps_the_arrays_precision():
    assert (jnp.ones(2, dtype=F32) * 1j).dtype == C64
    assert (jnp.ones(2, dtype=F64) + 2j).dtype == C128
    assert (jnp.arange(3) * 1j).dtype == C64             # ints meet a complex scalar: default
    assert (jnp.asarray(z(dtype=C64)) * 2.5).dtype == C64
    assert jnp.result_type(jnp.float32, 1j) == C64
    jg.config.update("enable_x64", True)
    try:
        assert (jnp.arange(3) * 1j).dtype == C128 and jnp.asarray(1j).dtype == C128
    finally:
        jg.config.update("enable_x64", False)


UNARY = ["exp", "log", "log1p", "expm1", "sqrt", "sin", "cos", "tan", "tanh", "sinh", "cosh",
         "arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh", "negative", "square",
         "abs", "sign", "real", "imag", "conj", "angle", "isnan", "isfinite", "rint"]


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("mode", ["eager", "jit"])
def test_unary_matches_numpy(name, mode):
    fn = getattr(jnp, name)
    f = jg.jit(fn) if mode == "jit" else fn
    for dt in (C64, C128):
        a = z(dtype=dt)
        got, want = np.asarray(f(jnp.asarray(a))), getattr(np, name)(a)
        assert got.dtype == want.dtype, name
        np.testing.assert_allclose(got, want, rtol=1e-5 if dt == C64 else 1e-12, atol=1e-6)


@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "divide", "power", "equal",
                                  "not_equal", "matmul", "vecdot"])
@pytest.mark.parametrize("mode", ["eager", "jit"])
def test_binary_matches_numpy(name, mode):
    fn = getattr(jnp, name)
    f = jg.jit(fn) if mode == "jit" else fn
    a, b = z((3, 3), seed=1), z((3, 3), seed=2)
    b[0, 0] = a[0, 0]
    np.testing.assert_allclose(np.asarray(f(jnp.asarray(a), jnp.asarray(b))),
                               getattr(np, name)(a, b), rtol=1e-12)


@pytest.mark.parametrize("mode", ["eager", "jit"])
def test_reductions_match_numpy(mode):
    a = z((3, 4))
    for name, kw in [("sum", {"axis": 1}), ("prod", {"axis": 0}), ("mean", {}), ("sum", {}),
                     ("cumsum", {"axis": 1}), ("var", {"axis": 1}), ("std", {})]:
        fn = getattr(jnp, name)
        f = jg.jit(lambda x: fn(x, **kw)) if mode == "jit" else (lambda x: fn(x, **kw))
        np.testing.assert_allclose(np.asarray(f(jnp.asarray(a))), getattr(np, name)(a, **kw),
                                   rtol=1e-12)


def test_tensor_parts_and_python_conversions():
    t = jnp.asarray(np.array([3 + 4j, -1j]))
    np.testing.assert_array_equal(np.asarray(t.real), [3, 0])
    np.testing.assert_array_equal(np.asarray(t.imag), [4, -1])
    np.testing.assert_array_equal(np.asarray(t.conj()), [3 - 4j, 1j])
    assert complex(t[0]) == 3 + 4j and t.tolist() == [3 + 4j, -1j]
    assert jnp.real(jnp.ones(2)).dtype == F32 and float(jnp.imag(jnp.ones(2)).sum()) == 0.0


def test_complex_from_infinite_parts_keeps_them():
    from jitgrad.eager.dispatch import apply
    from jitgrad.ir import Op
    out = apply(Op.complex, [jnp.asarray(np.array([1.0, np.inf])),
                             jnp.asarray(np.array([np.inf, 0.0]))])
    assert np.asarray(out).tolist() == [complex(1, np.inf), complex(np.inf, 0)]


def test_adding_zero_keeps_signed_zeros_under_jit():
    a = np.array([complex(-0.0, -0.0), complex(-0.0, 1.0)])
    for c in (0j, complex(-0.0, -0.0)):
        got = np.asarray(jg.jit(lambda v: v + c)(jnp.asarray(a)))
        want = a + c
        assert [(np.signbit(g.real), np.signbit(g.imag)) for g in got] == \
            [(np.signbit(w.real), np.signbit(w.imag)) for w in want]


def test_expm1_is_accurate_near_zero():
    a = np.array([1e-10 + 2e-10j])
    np.testing.assert_allclose(np.asarray(jnp.expm1(jnp.asarray(a))), a + a * a / 2, rtol=1e-12)


def _parts(x):
    return [(float(v.real), float(v.imag), bool(np.signbit(v.real)), bool(np.signbit(v.imag)))
            for v in np.asarray(x)]


def test_special_values_follow_the_standard():
    inf = np.inf
    e = jnp.expm1(jnp.asarray(np.array([complex(-0.0, 0.0), complex(inf, 0.0), complex(-inf, 1.0)])))
    assert _parts(e) == _parts(np.array([0j, complex(inf, 0.0), complex(-1.0, 0.0)]))
    t = jnp.tanh(jnp.asarray(np.array([complex(inf, 2.0), complex(-inf, -3.0)])))
    assert _parts(t) == _parts(np.array([complex(1.0, 0.0), complex(-1.0, -0.0)]))


# ----------------------------------------------------------------------------- gradients

def test_grad_of_a_real_function_of_complex_input_is_jax_convention():
    x = jnp.asarray(np.array([3 + 4j, -1 + 0.5j]))
    want = 2 * np.conj(np.asarray(x))            # JAX: grad(|z|^2) = 2 conj(z)
    for f in (lambda v: jnp.sum(jnp.abs(v) ** 2), lambda v: jnp.sum(v.real ** 2 + v.imag ** 2),
              lambda v: jnp.sum(jnp.real(v * jnp.conj(v)))):
        np.testing.assert_allclose(np.asarray(jg.grad(f)(x)), want, rtol=1e-12)
        np.testing.assert_allclose(np.asarray(jg.jit(jg.grad(f))(x)), want, rtol=1e-12)


def test_holomorphic_grad_and_its_errors():
    x = jnp.asarray(np.complex128(1 + 2j))
    assert complex(jg.grad(lambda v: v * v * v, holomorphic=True)(x)) == pytest.approx(3 * (1 + 2j) ** 2)
    with pytest.raises(TypeError, match=r"grad requires a scalar float output, got c128\[\]"):
        jg.grad(lambda v: v * v)(x)
    with pytest.raises(TypeError, match=r"holomorphic=True requires a scalar complex output, got f64\[\]"):
        jg.grad(lambda v: jnp.abs(v), holomorphic=True)(x)
    with pytest.raises(TypeError, match=r"holomorphic=True requires complex inputs, got f64\[\]"):
        jg.grad(lambda v: v * 1j, holomorphic=True)(jnp.asarray(np.float64(1.0)))


@pytest.mark.parametrize("f", [
    lambda v: jnp.exp(v) * jnp.conj(v), lambda v: jnp.abs(v) * jnp.angle(v),
    lambda v: jnp.sum(jnp.sin(v) / (v + 3.0)), lambda v: jnp.sqrt(v + 4.0) ** 2.5,
    lambda v: jnp.matmul(v, jnp.tanh(v)), lambda v: jnp.prod(v, axis=0),
    lambda v: jnp.real(v) * jnp.imag(v) + jnp.log(v * v + 5.0),
    lambda v: jnp.arcsinh(v) * jnp.arctan(v * 0.5)])
def test_check_grads_order2_both_modes_complex128(f):
    check_grads(f, (z((3, 3)),), order=2)
    check_grads(jg.jit(f), (z((3, 3), seed=3),), order=1)


def test_real_to_complex_and_back_differentiates():
    x = np.random.default_rng(0).uniform(0.5, 2.0, (4,))
    check_grads(lambda v: jnp.abs(v * (1 + 2j) + 1j) ** 3, (x,), order=2)
    check_grads(lambda v: jnp.real(jnp.exp(1j * v)), (x,), order=2)


def test_eager_backward_on_complex_leaf():
    x = jg.tensor(np.array([3 + 4j]), requires_grad=True)
    (jnp.abs(x) ** 2).sum().backward()
    np.testing.assert_allclose(np.asarray(x.grad), [6 - 8j])


# ----------------------------------------------------------------------------- errors

@pytest.mark.parametrize("fn, msg", [
    (lambda a: a < a, r"lt: expected real inputs \(complex numbers have no ordering\), got c128\[2,3\]"),
    (lambda a: jnp.maximum(a, a), r"max: expected real inputs \(complex numbers have no ordering\)"),
    (lambda a: jnp.max(a), r"reduce_max: expected a real input \(complex numbers have no ordering\), got c128\[2,3\]"),
    (lambda a: jnp.sort(a), r"sort: expected a real input \(complex numbers have no ordering\)"),
    (lambda a: jnp.floor(a + 0), r"floor: expected a real input \(complex numbers have no floor\), got c128\[2,3\]"),
    (lambda a: jnp.arctan2(a, a), r"atan2: expected real inputs"),
])
def test_ops_complex_numbers_lack_are_errors_naming_the_line(fn, msg):
    with pytest.raises(TypeError, match=msg + r".*\(at test_complex.py:\d+\)"):
        fn(jnp.asarray(z()))


def test_complex_on_cuda_is_a_clear_error():
    from jitgrad import cuda
    from jitgrad.compilation.compile_graph import compile_graph
    from jitgrad.ir import Op, TensorType
    from jitgrad.trace.tracing import trace_to_graph
    with pytest.raises(NotImplementedError, match="exp on cuda: complex numbers and the fft run "
                                                  r"on the CPU only \(move the arrays with"):
        cuda.run_eager(Op.exp, [z()], {}, [TensorType((2, 3), C128)])
    g = trace_to_graph(lambda a: jnp.exp(a), (jnp.asarray(z()),))[0]
    with pytest.raises(NotImplementedError, match=r"jit on cuda: exp has complex values \(c128\[2,3\]\); "
                                                  "complex numbers and the fft run on the CPU only"):
        compile_graph(g, device="cuda")


def test_linalg_of_complex_matrices_matches_numpy():
    a = z((3, 3), seed=4)
    h = a @ a.conj().T + 3 * np.eye(3)
    la = jnp.linalg
    for got, want in [(la.det(jnp.asarray(a)), np.linalg.det(a)),
                      (la.inv(jnp.asarray(a)), np.linalg.inv(a)),
                      (la.pinv(jnp.asarray(a)), np.linalg.pinv(a)),
                      (la.solve(jnp.asarray(a), jnp.asarray(h)), np.linalg.solve(a, h)),
                      (la.cholesky(jnp.asarray(h), upper=True), np.linalg.cholesky(h).conj().T),
                      (la.eigvalsh(jnp.asarray(h)), np.linalg.eigvalsh(h)),
                      (la.svdvals(jnp.asarray(a)), np.linalg.svd(a, compute_uv=False)),
                      (la.vector_norm(jnp.asarray(a)), np.linalg.norm(a)),
                      (la.matrix_norm(jnp.asarray(a)), np.linalg.norm(a, "fro")),
                      (jnp.vecdot(jnp.asarray(a), jnp.asarray(h)), np.vecdot(a, h))]:
        got = np.asarray(got)
        assert got.dtype == np.asarray(want).dtype
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def test_linalg_derivatives_of_complex_matrices_are_a_clear_error():
    with pytest.raises(NotImplementedError, match=r"the derivative of slogdet of complex matrices "
                                                  r"is not implemented \(c128\[3,3\]\)"):
        jg.grad(lambda m: jnp.abs(jnp.linalg.det(m)))(jnp.asarray(z((3, 3))))
