"""Behaviour the Array API conformance suite checks that the op records do not: copies and views,
0-d results of integer indexing, the sign bit of NaN, integer bit operations and their errors."""
import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp


def test_asarray_copy_true_never_aliases():
    x = jnp.asarray([1.0, 2.0])
    y = jnp.asarray(x, copy=True)
    y += 1
    assert x.tolist() == [1.0, 2.0] and y.tolist() == [2.0, 3.0]
    a = np.arange(3.0)
    t = jnp.asarray(a, copy=True)
    a[0] = 9
    assert t.tolist() == [0.0, 1.0, 2.0]
    assert jnp.array(x) is not x and jnp.asarray(x) is x


def test_asarray_copy_false_shares_or_raises():
    a = np.arange(3.0)
    t = jnp.asarray(a, copy=False)
    a[0] = 9
    assert t.tolist() == [9.0, 1.0, 2.0]
    with pytest.raises(ValueError, match=r"asarray\(copy=False\): a list can't become a int64 "
                                         r"tensor on cpu without a copy"):
        jnp.asarray([1, 2], copy=False)
    with pytest.raises(ValueError, match="a ndarray of float64 can't become a float32 tensor"):
        jnp.asarray(a, dtype=jnp.float32, copy=False)


def test_integer_index_gives_a_0d_array():
    x = jnp.asarray(np.arange(6.0).reshape(2, 3))
    e = x[0, 1]
    assert e.shape == () and isinstance(e._data, np.ndarray)
    assert np.asarray(e).shape == () and float(np.asarray(e)) == 1.0
    e += 1            # a view, as x[0] is: the write reaches x (PyTorch's semantics)
    assert x[0, 1].item() == 2.0 and e.item() == 2.0
    assert jnp.asarray([True, False])[1].shape == ()


@pytest.mark.parametrize("run", [lambda f, x: f(x), lambda f, x: jg.jit(f)(x)],
                         ids=["eager", "jit"])
def test_signbit_reads_the_sign_bit(run):
    z = np.array([-0.0, 0.0, -np.nan, np.nan, -1.0, np.inf, -np.inf], np.float32)
    assert run(jnp.signbit, z).tolist() == np.signbit(z).tolist()
    ones = np.ones_like(z)
    assert run(lambda b: jnp.copysign(ones, b), z).tolist() == np.copysign(ones, z).tolist()


def test_cross_keeps_the_vector_axis():
    a, b = np.random.rand(2, 3, 4), np.random.rand(2, 3, 4)
    got = jnp.cross(a, b, axis=-2)
    assert got.shape == (2, 3, 4)
    np.testing.assert_allclose(got.numpy(), np.cross(a, b, axis=-2))
    np.testing.assert_allclose(jnp.cross(a, b, axisa=1, axisb=1, axisc=0).numpy(),
                               np.cross(a, b, axisa=1, axisb=1, axisc=0))
    with pytest.raises(ValueError, match=r"cross: the vectors need 3 components on axis -1 "
                                         r"\(and -1\), got shapes \(2, 3, 4\) and \(2, 3, 4\)"):
        jnp.cross(a, b)


def test_cumprod_empty_axis_and_int_dtype():
    assert jnp.cumprod(np.zeros((2, 0), np.int32), axis=1).shape == (2, 0)
    assert jnp.cumprod(np.zeros((2, 0), np.int32), axis=1).dtype == np.int64
    assert jnp.cumprod(np.arange(1, 4, dtype=np.int32)).dtype == np.int64
    assert jnp.cumprod(np.arange(1, 4, dtype=np.int32), dtype=jnp.float32).dtype == np.float32


def test_inplace_bit_operators_write_through():
    x = jnp.asarray(np.arange(5))
    alias = x
    alias <<= 2
    alias |= 1
    alias ^= 3
    alias >>= 1
    alias &= 6
    want = ((((np.arange(5) << 2) | 1) ^ 3) >> 1) & 6
    assert x.tolist() == want.tolist() and alias is x
    y = jnp.asarray(np.arange(1, 6))
    y //= 2
    y %= 2
    y **= 3
    assert y.tolist() == (((np.arange(1, 6) // 2) % 2) ** 3).tolist()


@pytest.mark.parametrize("call, msg", [
    (lambda: jnp.bitwise_and(np.ones(2), np.ones(2, np.int32)),
     "bitwise_and is supported on integer and bool tensors, got float64 and float64"),
    (lambda: jnp.left_shift(np.ones(2, np.float32), 1),
     "left_shift is supported on integer and bool tensors, got float32 and float32"),
    (lambda: ~jnp.ones(2), r"invert \(~\) is supported on integer and bool tensors, got float32"),
    (lambda: jnp.asarray([1.5]) | 1, "bitwise_or is supported on integer and bool tensors"),
])
def test_bit_operations_on_floats_are_errors(call, msg):
    with pytest.raises(TypeError, match=msg):
        call()


# ----------------------------------------------------------------------------- the namespace

def test_array_namespace_and_devices():
    x = jnp.asarray([1.0, 2.0])
    assert x.__array_namespace__() is jnp and jnp.__array_api_version__ == "2023.12"
    assert x.to_device("cpu") is x and x.to_device(jg.device("cpu")) is x
    assert complex(jnp.asarray(2.5)) == 2.5 + 0j
    info = jnp.__array_namespace_info__()
    assert info.default_device() in info.devices()
    assert info.capabilities()["boolean indexing"] is True
    assert info.default_dtypes()["real floating"] == jnp.float32
    assert info.default_dtypes()["indexing"] == jnp.int64
    assert set(info.dtypes()) == {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16",
                                  "uint32", "uint64", "float32", "float64", "complex64",
                                  "complex128"}
    assert set(info.dtypes(kind="complex floating")) == {"complex64", "complex128"}
    assert info.default_dtypes()["complex floating"] == jnp.complex64
    assert set(info.dtypes(kind="integral")) == {"int8", "int16", "int32", "int64", "uint8",
                                                 "uint16", "uint32", "uint64"}
    assert set(info.dtypes(kind=("bool", "real floating"))) == {"bool", "float32", "float64"}


def test_dtype_functions():
    assert jnp.can_cast(jnp.int32, jnp.int64) and not jnp.can_cast(jnp.float64, jnp.int32)
    assert jnp.can_cast(jnp.asarray([1], dtype=jnp.int32), jnp.float64)
    assert jnp.isdtype(jnp.float32, "real floating") and jnp.isdtype(jnp.int64, "integral")
    assert not jnp.isdtype(jnp.bool_, "numeric") and jnp.isdtype(jnp.int32, (jnp.int32, "bool"))
    assert jnp.result_type(jnp.int32, jnp.float32) == np.float32      # JAX (NumPy: float64)
    assert jnp.result_type(jnp.asarray([1], dtype=jnp.int32), 1.5) == np.float32    # weak float
    f = jnp.finfo(jnp.float32)
    assert isinstance(f.eps, float) and f.bits == 32 and f.smallest_normal == float(np.finfo(np.float32).tiny)
    i = jnp.iinfo(jnp.asarray([1]))
    assert (i.bits, i.max) == (64, 2 ** 63 - 1) and isinstance(i.min, int)
    assert jnp.asarray(np.zeros(2, jnp.uint8)).dtype == np.uint8       # every name is itself


def test_out_writes_eager_results():
    o = jnp.zeros(3)
    assert jnp.add(np.ones(3), 2, out=o) is o and o.tolist() == [3.0, 3.0, 3.0]
    n = np.zeros(3)
    assert jnp.exp(np.zeros(3), out=n) is n and n.tolist() == [1.0, 1.0, 1.0]
    o64 = jnp.zeros(2, dtype=jnp.float64)
    jnp.sum(np.ones((3, 2)), axis=0, out=o64)
    jnp.matmul(np.eye(2), np.ones((2, 2)), out=(jnp.zeros((2, 2)),))
    assert o64.tolist() == [3.0, 3.0]


def test_unique_functions_follow_the_standard():
    x = np.array([3.0, 1.0, 3.0, np.nan, np.nan])
    r = jnp.unique_all(x)
    assert r.values.tolist()[:2] == [1.0, 3.0] and np.isnan(r.values.tolist()[2:]).all()
    assert r.counts.tolist() == [1, 2, 1, 1] and r.indices.tolist() == [1, 0, 3, 4]
    assert r.inverse_indices.tolist() == [1, 0, 1, 2, 3]
    inv = jnp.unique_inverse(np.array([[2, 1], [1, 2]]))
    assert inv.inverse_indices.shape == (2, 2) and inv.values.tolist() == [1, 2]
    assert jnp.unique_counts(np.array([True, True])).counts.tolist() == [2]
    assert jnp.unique_values(np.array([2, 2, 0])).tolist() == [0, 2]


def test_partition_puts_kth_in_place():
    a = np.random.default_rng(0).permutation(11).astype(np.float64)
    for k in (0, 4, -1):
        p = jnp.partition(a, k).numpy()
        kth = np.sort(a)[k]
        assert p[k] == kth and (p[:k % 11] <= kth).all() and (p[k % 11:] >= kth).all()
        assert a[jnp.argpartition(a, k).numpy()][k] == kth


def test_r_and_c():
    assert jnp.r_[1:4, [7, 8], 0.5].tolist() == np.r_[1:4, [7, 8], 0.5].tolist()
    assert jnp.c_[np.arange(3), np.arange(3)].tolist() == np.c_[np.arange(3), np.arange(3)].tolist()
    assert jnp.r_["0,2", [1, 2], [3, 4]].tolist() == np.r_["0,2", [1, 2], [3, 4]].tolist()
    np.testing.assert_allclose(jnp.r_[0:1:5j].numpy(), np.r_[0:1:5j])


def test_from_dlpack_and_clip_keywords():
    a = np.arange(3.0)
    t = jnp.from_dlpack(a)
    a[0] = 7
    assert t.tolist() == [7.0, 1.0, 2.0]
    assert jnp.from_dlpack(a, copy=True)._data is not a
    assert jnp.clip(np.arange(5), 1, 3).tolist() == [1, 1, 2, 3, 3]
    assert jnp.clip(np.arange(5), a_min=1, a_max=3).tolist() == [1, 1, 2, 3, 3]
    assert jnp.clip(np.arange(5), max=2).tolist() == [0, 1, 2, 2, 2]


def test_linalg_under_jit_matches_eager_and_grads():
    L = jnp.linalg
    a = np.random.default_rng(3).standard_normal((2, 3, 3)) + 3 * np.eye(3)
    f = lambda m: (L.det(m), L.inv(m), L.slogdet(m).logabsdet, L.svdvals(m), L.qr(m).R)  # noqa: E731
    for got, want in zip(jg.jit(f)(a), f(a)):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-10, atol=1e-12)
    g = jg.jit(jg.grad(lambda m: jnp.sum(L.inv(m)) + jnp.sum(L.det(m))))(a)
    inv = np.linalg.inv(a)
    want = -np.swapaxes(inv, -1, -2) @ np.ones((3, 3)) @ np.swapaxes(inv, -1, -2) \
        + np.linalg.det(a)[:, None, None] * np.swapaxes(inv, -1, -2)
    np.testing.assert_allclose(g.numpy(), want, rtol=1e-9)
    assert L.solve(np.eye(2, dtype=np.float32), np.ones(2)).dtype == np.float64   # promoted
    bad = np.stack([np.eye(2), -np.eye(2)])          # not positive definite: NaN, as JAX
    for run in (L.cholesky, jg.jit(L.cholesky)):
        out = run(bad).numpy()
        assert np.isfinite(out[0]).all() and np.isnan(out[1]).all()


T = jg.ShapeDtype((3,), "float32")


@pytest.mark.parametrize("call, err, msg", [
    (lambda: jnp.reshape(jnp.asarray(np.arange(6.0).reshape(2, 3)).T, (6,), copy=False),
     ValueError, r"reshape\(copy=False\): an array of shape \(3, 2\) can't be viewed as shape"),
    (lambda: jg.jit(lambda x: x.to_device("meta"))(np.ones(3)), ValueError,
     "to_device: a traced value stays on cpu inside the function"),
    (lambda: jnp.ones(2).to_device("cpu", stream=1), ValueError, "jitgrad has no streams"),
    (lambda: jnp.ones(2).__array_namespace__(api_version="2030.12"), ValueError,
     "implements the Array API standard 2023.12"),
    (lambda: jnp.can_cast("x", jnp.int32), TypeError, "can_cast: expected a dtype or an array, got str"),
    (lambda: jnp.isdtype(jnp.int32, "integer"), ValueError, "isdtype: unknown kind 'integer'"),
    (lambda: jnp.isdtype(3, "integral"), TypeError, "isdtype: expected a dtype, got int 3"),
    (lambda: jnp.result_type(), ValueError, "result_type: at least one array or dtype"),
    (lambda: jnp.finfo(jnp.int32), ValueError, "finfo: expected a floating or complex dtype, got int32"),
    (lambda: jnp.iinfo(jnp.float32), ValueError, "iinfo: expected an integer dtype, got float32"),
    (lambda: jnp.__array_namespace_info__().dtypes(device="meta"), ValueError,
     "meta is not one of this namespace.s devices"),
    (lambda: jg.jit(jnp.unique_values)(np.ones(3)), jg.ConcretizationError,
     "unique_values gives a data-dependent shape, so it runs eagerly"),
    (lambda: jnp.searchsorted(np.ones(3), 1.0, side="middle"), ValueError,
     "side must be 'left' or 'right', got 'middle'"),
    (lambda: jnp.searchsorted(np.ones((2, 2)), 1.0), ValueError, "x1 must be 1-d, got shape"),
    (lambda: jnp.partition(np.ones(3), 3), ValueError, r"kth\(=3\) out of bounds \(3\)"),
    (lambda: jnp.select([np.ones(2, bool)], []), ValueError,
     "list of cases must be same length as list of conditions"),
    (lambda: jnp.select([], []), ValueError, "select with an empty condition list"),
    (lambda: jnp.select([np.ones(2)], [np.ones(2)]), TypeError, "should be boolean ndarray, got float"),
    (lambda: jnp.unstack(jnp.asarray(1.0)), ValueError, "unstack: expected an array of dimension >= 1"),
    (lambda: jnp.matrix_transpose(np.ones(3)), ValueError, r"expected an array of dimension >= 2, got shape \(3,\)"),
    (lambda: jnp.dsplit(np.ones((2, 2)), 2), ValueError, "dsplit only works on arrays of 3 or more"),
    (lambda: jnp.rollaxis(np.ones((2, 2)), 0, 5), np.exceptions.AxisError, "rollaxis: start 5 is out of bounds"),
    (lambda: jnp.rot90(np.ones((2, 2)), axes=(0, 0)), ValueError, r"rot90: axes must be different, got \(0, 0\)"),
    (lambda: jnp.rot90(np.ones((2, 2)), axes=(0,)), ValueError, r"rot90: len\(axes\) must be 2"),
    (lambda: jnp.gradient(np.ones(3), edge_order=3), ValueError, "edge_order must be 1 or 2, got 3"),
    (lambda: jnp.gradient(np.ones(2), edge_order=2), ValueError, "at least \\(edge_order \\+ 1\\) elements"),
    (lambda: jnp.gradient(np.ones((2, 2)), 1.0, 2.0, 3.0), TypeError, "3 spacings given for 2 axes"),
    (lambda: jnp.gradient(np.ones(3), [0.0, 1.0]), ValueError, "distances must be a scalar or match"),
    (lambda: jnp.cumulative_sum(np.ones((2, 2))), ValueError, "axis is required for an array of dimension 2"),
    (lambda: jnp.sort(np.ones(2), order="f"), NotImplementedError, "order= \\(structured arrays\\)"),
    (lambda: jg.jit(lambda x: jnp.exp(x, out=x))(np.ones(2)), TypeError,
     r"exp\(out=...\): arrays inside jg.jit / grad are immutable"),
    (lambda: jnp.exp(np.ones(2), out=[0, 0]), TypeError, "expected a jitgrad tensor or a NumPy array, got list"),
    (lambda: jnp.exp(np.ones(2), out=jnp.zeros(3)), ValueError, r"out has shape \(3,\), the result has shape \(2,\)"),
    (lambda: jnp.exp(np.ones(2), out=jnp.zeros(2, dtype="int64")), TypeError,
     "cannot cast the float64 result to out's int64"),
    (lambda: jnp.vecdot(np.ones(3), np.ones(4)), ValueError, "vecdot: the operands need equal sizes along axis -1"),
    (lambda: jnp.einsum("i1,i", np.ones(3), np.ones(3)), ValueError, "einsum: invalid subscript '1'"),
    (lambda: jnp.einsum("i->j", np.ones(3)), ValueError, "output subscript 'j' does not appear"),
    (lambda: jnp.einsum("...ij->", np.ones(3)), ValueError, r"subscripts '...ij' don't match an operand of shape \(3,\)"),
    (lambda: jnp.r_["r", [1]], NotImplementedError, "the matrix directive 'r' is not supported"),
    (lambda: jnp.r_[()], ValueError, "nothing to concatenate"),
    (lambda: jnp.from_dlpack(np.ones(2), device="meta", copy=False), BufferError,
     r"from_dlpack\(copy=False\): the data is on cpu, moving it to meta needs a copy"),
    (lambda: jnp.linalg.inv(np.ones((2, 3))), np.linalg.LinAlgError,
     r"inv: expected square matrices \[..., n, n\], got an array of shape \(2, 3\)"),
    (lambda: jnp.linalg.solve(np.eye(3), np.ones(2)), ValueError, "solve: x2 needs 3 rows"),
    (lambda: jnp.linalg.qr(np.eye(2), mode="raw"), ValueError, "mode must be 'reduced', 'complete' or 'r'"),
    (lambda: jnp.linalg.matrix_norm(np.eye(2), ord=3), ValueError, "invalid norm order 3 for matrices"),
    (lambda: jnp.linalg.norm(np.ones((2, 2)), axis=(0, 0)), ValueError, "the two axes must differ"),
    (lambda: jnp.linalg.norm(np.ones((2, 2, 2)), axis=(0, 1, 2)), ValueError, r"improper number of dimensions to norm \(3 axes\)"),
    (lambda: jnp.linalg.multi_dot([np.eye(2)]), ValueError, "expecting at least two arrays"),
    (lambda: jnp.linalg.matrix_power(np.ones((2, 3)), 2), np.linalg.LinAlgError, "matrix_power: expected square"),
    (lambda: jnp.linalg.matrix_power(np.eye(2), 1.5), TypeError, "matrix_power: the exponent must be an integer"),
    (lambda: jg.grad(lambda m: jnp.sum(jnp.linalg.qr(m).Q))(np.ones((2, 3))), NotImplementedError,
     r"qr: the derivative is implemented for mode='reduced' of tall or square matrices \(as in JAX\), got a 2x3"),
    (lambda: jg.grad(lambda m: jnp.sum(jnp.linalg.svd(m)[0]))(np.eye(2)), NotImplementedError,
     "svd: the derivative with full_matrices=True is not implemented"),
])
def test_error_messages(call, err, msg):
    with pytest.raises(err, match=msg):
        call()
