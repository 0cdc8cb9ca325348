"""jnp.fft against numpy.fft (n= / s=, axis= / axes=, every norm, float64 and complex128,
eagerly and under jit), the dtypes of float32/complex64 transforms, gradients with check_grads
order 2 in both modes (JAX's transpose rules for fft, rfft and irfft), vmap, and the errors."""
import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad.test_util import check_grads

RNG = np.random.default_rng(0)
Z = RNG.standard_normal((3, 8)) + 1j * RNG.standard_normal((3, 8))
Z3 = RNG.standard_normal((2, 5, 4)) + 1j * RNG.standard_normal((2, 5, 4))
R = RNG.standard_normal((4, 6, 5))

CASES = [
    ("fft", Z, {}), ("fft", Z, {"n": 5}), ("fft", Z, {"n": 11, "axis": 0}), ("fft", R, {"axis": 1}),
    ("ifft", Z, {}), ("ifft", Z, {"n": 6, "axis": -2}),
    ("fft2", Z3, {}), ("ifft2", Z3, {"s": (3, 6)}), ("fft2", R, {"axes": (0, 2)}),
    ("fftn", Z3, {}), ("fftn", Z3, {"axes": (0, 2)}), ("ifftn", Z3, {"s": (4, 4), "axes": (2, 1)}),
    ("rfft", R, {}), ("rfft", R, {"n": 7, "axis": 1}), ("irfft", Z, {}), ("irfft", Z, {"n": 7}),
    ("irfft", Z3, {"axis": 1}),
    ("rfft2", R, {}), ("irfft2", Z3, {}), ("irfft2", Z3, {"s": (4, 5)}),
    ("rfftn", R, {}), ("rfftn", R, {"axes": (2, 0)}), ("irfftn", Z3, {}),
    ("irfftn", Z3, {"s": (3, 3, 4), "axes": (0, 1, 2)}),
    ("hfft", Z, {}), ("hfft", Z, {"n": 9, "axis": 0}), ("ihfft", R, {}), ("ihfft", R, {"n": 4}),
]


@pytest.mark.parametrize("norm", [None, "backward", "ortho", "forward"])
@pytest.mark.parametrize("mode", ["eager", "jit"])
def test_transforms_match_numpy(norm, mode):
    for name, arg, kw in CASES:
        fn = getattr(jnp.fft, name)
        f = jg.jit(lambda a: fn(a, norm=norm, **kw)) if mode == "jit" else (
            lambda a: fn(a, norm=norm, **kw))
        got, want = np.asarray(f(jnp.asarray(arg))), getattr(np.fft, name)(arg, norm=norm, **kw)
        assert got.shape == want.shape and got.dtype == want.dtype, (name, kw)
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12, err_msg=f"{name} {kw}")


def test_single_precision_stays_single():
    z64, r32 = jnp.asarray(Z.astype(np.complex64)), jnp.asarray(R.astype(np.float32))
    assert jnp.fft.fft(z64).dtype == np.complex64 and jnp.fft.irfft(z64).dtype == np.float32
    assert jnp.fft.rfft(r32).dtype == np.complex64 and jnp.fft.fft(r32).dtype == np.complex64
    assert jnp.fft.hfft(z64).dtype == np.float32 and jnp.fft.ihfft(r32).dtype == np.complex64
    assert jnp.fft.fft(jnp.arange(4)).dtype == np.complex64        # ints: the default dtype
    np.testing.assert_allclose(np.asarray(jnp.fft.fft(z64)), np.fft.fft(Z), rtol=1e-4, atol=1e-4)


def test_round_trips_and_helpers():
    x = jnp.asarray(R)
    np.testing.assert_allclose(np.asarray(jnp.fft.irfftn(jnp.fft.rfftn(x), s=R.shape)), R, atol=1e-12)
    np.testing.assert_allclose(np.asarray(jnp.fft.ifft(jnp.fft.fft(jnp.asarray(Z)))), Z, atol=1e-12)
    np.testing.assert_allclose(np.asarray(jnp.fft.fftshift(jnp.fft.fftfreq(8))),
                               np.fft.fftshift(np.fft.fftfreq(8)))


def _real_loss(fn, **kw):
    return lambda x: jnp.sum(jnp.abs(fn(x, **kw)) ** 2 * jnp.cos(jnp.real(fn(x, **kw))))


@pytest.mark.parametrize("fn, kw, shape, cplx", [
    (jnp.fft.fft, {}, (5,), True), (jnp.fft.ifft, {"n": 6, "norm": "ortho"}, (2, 4), True),
    (jnp.fft.fftn, {"axes": (0, 2)}, (2, 3, 3), True), (jnp.fft.rfft, {}, (6,), False),
    (jnp.fft.rfft, {"n": 5, "norm": "forward"}, (2, 6), False),
    (jnp.fft.rfftn, {}, (3, 4), False), (jnp.fft.irfft, {}, (2, 4), True),
    (jnp.fft.irfft, {"n": 7}, (4,), True), (jnp.fft.irfftn, {"s": (3, 4)}, (3, 3), True),
    (jnp.fft.hfft, {}, (4,), True), (jnp.fft.ihfft, {"n": 5}, (5,), False)])
def test_check_grads_order2_both_modes(fn, kw, shape, cplx):
    rng = np.random.default_rng(1)
    x = rng.standard_normal(shape) + (1j * rng.standard_normal(shape) if cplx else 0)
    check_grads(lambda a: fn(a, **kw), (x,), order=2)           # the transform itself
    check_grads(_real_loss(fn, **kw), (x,), order=2)           # a real loss of it
    check_grads(jg.jit(lambda a: fn(a, **kw)), (x,), order=1)  # the same rules under jit


def test_grad_matches_jax_convention():
    # d/dx sum |fft(x)|^2 = 2 N conj(x) for complex x (Parseval; JAX returns the conjugate form)
    x = jnp.asarray(Z[0])
    g = jg.grad(lambda a: jnp.sum(jnp.abs(jnp.fft.fft(a)) ** 2))(x)
    np.testing.assert_allclose(np.asarray(g), 2 * 8 * np.conj(Z[0]), rtol=1e-12)
    g = jg.grad(lambda a: jnp.sum(jnp.abs(jnp.fft.rfft(a)) ** 2))(jnp.asarray(R[0, 0]))
    w = np.fft.irfft(np.fft.rfft(R[0, 0]) * [1, 0.5, 0.5], n=5) * 5 * 2   # paired bins count half
    np.testing.assert_allclose(np.asarray(g), w, rtol=1e-10)


def test_vmap_of_fft():
    out = jg.vmap(lambda a: jnp.fft.rfft(a, n=8))(jnp.asarray(R[0]))
    np.testing.assert_allclose(np.asarray(out), np.fft.rfft(R[0], n=8), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("call, exc, msg", [
    (lambda: jnp.fft.fft(jnp.asarray(Z), norm="unitary"), ValueError,
     "fft: norm must be one of None, 'backward', 'ortho', 'forward', got 'unitary'"),
    (lambda: jnp.fft.fft(jnp.asarray(Z), n=0), ValueError,
     r"fft: invalid number of FFT data points \(0\) specified"),
    (lambda: jnp.fft.irfft(jnp.asarray(Z[:, :1])), ValueError,
     r"irfft: invalid number of FFT data points \(0\) specified"),
    (lambda: jnp.fft.rfft(jnp.asarray(Z)), TypeError,
     r"rfft: expected a real input, got complex128 \(take jnp.real first\)"),
    (lambda: jnp.fft.fft(jnp.asarray(1.0 + 0j)), ValueError,
     "fft: expected an array of at least one dimension, got a 0-d array"),
    (lambda: jnp.fft.fftn(jnp.asarray(Z), s=(2, 3), axes=(0,)), ValueError,
     r"fftn: s \(2, 3\) and axes \(0,\) differ in length"),
    (lambda: jnp.fft.fftn(jnp.asarray(Z), axes=(1, -1)), ValueError, r"fftn: repeated axis in \(1, 1\)"),
    (lambda: jnp.fft.fft(jnp.asarray(Z), n=2.5), TypeError, "fft: n / s must be an integer, got float 2.5"),
])
def test_errors_name_what_came_and_the_line(call, exc, msg):
    with pytest.raises(exc, match=msg + r".*\(at test_fft.py:\d+\)"):
        call()


def test_fft_primitive_type_errors():
    from jitgrad.eager.dispatch import apply
    from jitgrad.ir import Op
    from jitgrad.ir.errors import ShapeError
    with pytest.raises(ShapeError, match=r"fft: rfft expects a float input, got c128\[3,8\]"):
        apply(Op.fft, [jnp.asarray(Z)], {"fft_type": "rfft", "lengths": (8,)})
    with pytest.raises(ShapeError, match=r"fft: irfft of lengths \(8,\) expects trailing axes "
                                         r"\(5,\), got c128\[3,8\]"):
        apply(Op.fft, [jnp.asarray(Z)], {"fft_type": "irfft", "lengths": (8,)})
    with pytest.raises(ShapeError, match=r"fft: fft_type must be one of"):
        apply(Op.fft, [jnp.asarray(Z)], {"fft_type": "dct", "lengths": (8,)})
