"""The eager Tensor: attributes, conversion, printing, operators, dtype promotion, creation
functions, and mutation through views."""
import operator

import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp

F32, F64, I32, I64, B = (np.dtype(d) for d in ("float32", "float64", "int32", "int64", "bool"))


# ----------------------------------------------------------------------------- attributes

def test_attributes():
    x = jg.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    assert x.shape == (2, 3) and x.dtype == F32 and x.ndim == 2 and x.size == 6
    assert x.device == "cpu" and x.device == jg.device("cpu") and str(x.device) == "cpu"
    assert len(x) == 2
    assert x.T.shape == (3, 2) and x.T.tolist() == [[1, 4], [2, 5], [3, 6]]
    assert x.tolist() == [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    assert isinstance(x.numpy(), np.ndarray) and x.numpy().dtype == F32
    assert np.asarray(x).shape == (2, 3) and np.asarray(x, dtype=F64).dtype == F64
    assert x[1, 2].item() == 6.0 and isinstance(x[1, 2].item(), float)
    assert jg.tensor(3).item() == 3 and isinstance(jg.tensor(3).item(), int)
    assert float(jg.tensor(2.5)) == 2.5 and int(jg.tensor(7)) == 7 and bool(jg.tensor(True))
    assert [v.item() for v in jg.tensor([4, 5])] == [4, 5]
    seen = []
    jg.make_graph(lambda t: seen.append(isinstance(t, jnp.ndarray)) or t)(x)
    assert isinstance(x, jnp.ndarray) and seen == [True]      # traced values are arrays too


def test_numpy_shares_memory():
    x = jg.zeros(3)
    x.numpy()[0] = 5.0
    assert x[0].item() == 5.0


def test_conversion_errors():
    with pytest.raises(ValueError, match=r"one element, got shape \(2,\)"):
        jg.tensor([1.0, 2.0]).item()
    with pytest.raises(TypeError, match="len\\(\\) of a 0-d tensor"):
        len(jg.tensor(1.0))
    with pytest.raises(ValueError, match="ambiguous"):
        bool(jg.tensor([1.0, 2.0]))
    with pytest.raises(TypeError, match="mixed or non-numeric"):
        jg.tensor(["a", 1])


@pytest.mark.parametrize("x, text", [
    (jg.tensor([1.0, 2.0]), "tensor([1., 2.])"),
    (jg.tensor([1, 2]), "tensor([1, 2])"),
    (jg.tensor(3.5), "tensor(3.5)"),
    (jg.tensor([True, False]), "tensor([ True, False])"),
    (jg.tensor([0.5], dtype="float64"), "tensor([0.5], dtype=float64)"),
    (jg.tensor([1, 2], dtype="int32"), "tensor([1, 2], dtype=int32)"),
    (jg.tensor([[1.0, 2.0], [3.0, 4.0]]), "tensor([[1., 2.],\n        [3., 4.]])"),
    (jg.zeros(2, 3, device="meta"), "tensor(..., size=(2, 3), dtype=float32, device='meta')"),
], ids=["f32", "i64", "0d", "bool", "f64", "i32", "2d", "meta"])
def test_repr(x, text):
    assert repr(x) == text and str(x) == text


def test_repr_marks_requires_grad():
    assert repr(jg.tensor([1.0], requires_grad=True)) == "tensor([1.], requires_grad=True)"


# ----------------------------------------------------------------------------- operators

BINARY_OPS = [operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv,
              operator.mod, operator.pow, operator.eq, operator.ne, operator.lt, operator.le,
              operator.gt, operator.ge]


@pytest.mark.parametrize("op", BINARY_OPS, ids=lambda o: o.__name__)
def test_binary_operators_and_reflected(op):
    a = np.array([[1.5, -2.0, 3.0], [0.5, 2.5, -1.0]], np.float32)
    b = np.array([2.0, 0.5, -3.0], np.float32)
    ta, tb = jg.tensor(a), jg.tensor(b)
    for got, want in [(op(ta, tb), op(a, b)), (op(ta, b), op(a, b)), (op(a, tb), op(a, b)),
                      (op(ta, 2.0), op(a, np.float32(2.0))), (op(3.0, tb), op(np.float32(3.0), b))]:
        assert isinstance(got, jg.Tensor)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-6, equal_nan=True)


def test_matmul_operator_and_reflected():
    a = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    b = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    np.testing.assert_allclose((jg.tensor(a) @ jg.tensor(b)).numpy(), a @ b)
    np.testing.assert_allclose((a @ jg.tensor(b)).numpy(), a @ b)       # reflected
    np.testing.assert_allclose((jg.tensor(a) @ b).numpy(), a @ b)
    assert (jg.tensor(b[:, 0]) @ jg.tensor(b[:, 1])).shape == ()


def test_unary_and_mask_operators():
    x = jg.tensor([-1.5, 0.0, 2.0])
    assert (-x).tolist() == [1.5, -0.0, -2.0] and (+x).tolist() == x.tolist()
    assert abs(x).tolist() == [1.5, 0.0, 2.0]
    m, n = x > 0, x < 1
    assert (~m).tolist() == [True, True, False]
    assert (m & n).tolist() == [False, False, False] and (m | n).tolist() == [True, True, True]
    assert (m ^ n).tolist() == [True, True, True]
    assert (~jg.tensor([1, 2])).tolist() == [-2, -3]       # integers: bitwise NOT, as NumPy
    with pytest.raises(TypeError, match="supported on integer and bool tensors, got float32"):
        ~jg.tensor([1.5])


def test_methods():
    x = jg.tensor([[3.0, 1.0], [2.0, 4.0]])
    assert x.sum().item() == 10.0 and x.mean(axis=0).tolist() == [2.5, 2.5]
    assert x.max().item() == 4.0 and x.argmax(axis=1).tolist() == [0, 1]
    assert x.reshape(4).shape == (4,) and x.reshape(1, 4).shape == (1, 4)
    assert x.reshape((4, 1)).shape == (4, 1) and x.flatten().shape == (4,)
    assert x.transpose().tolist() == [[3.0, 2.0], [1.0, 4.0]] and x.transpose(1, 0).shape == (2, 2)
    assert x.astype(jnp.int32).dtype == I32 and x.long().dtype == I64 and x.double().dtype == F64
    assert x.unsqueeze(0).shape == (1, 2, 2) and x.clip(2, 3).tolist() == [[3, 2], [2, 3]]


# ----------------------------------------------------------------------------- dtypes

def test_dtypes_compare_equal_to_numpy():
    for name in ("float32", "float64", "int32", "int64"):
        for mod in (jg, jnp):
            d = getattr(mod, name)
            assert d == getattr(np, name) and d == np.dtype(name) and np.dtype(d) == name
    assert jg.bool == np.bool_ and jnp.bool_ == np.bool_ and jg.bool_ == np.dtype(bool)
    assert jg.tensor([1.0]).dtype == jg.float32 == jnp.float32
    assert jnp.float32(1.5) == 1.5          # NumPy's scalar constructors work as in NumPy


@pytest.mark.parametrize("a, b, want", [
    (np.zeros(2, F32), np.zeros(2, F64), F64),
    (np.zeros(2, I32), np.zeros(2, I64), I64),
    (np.zeros(2, I32), np.zeros(2, F32), F32),      # JAX and torch (NumPy: float64)
    (np.zeros(2, I64), np.zeros(2, F32), F32),
    (np.zeros(2, B), np.zeros(2, I32), I32),
    (np.zeros(2, B), np.zeros(2, F32), F32),
    (np.zeros(2, F32), 2.5, F32),                   # weak Python scalars keep the array dtype
    (np.zeros(2, F64), 2.5, F64),
    (np.zeros(2, I32), 2, I32),
    (np.zeros(2, I32), 2.5, F32),                   # NumPy: float64 (documented deviation)
    (np.zeros(2, B), 2, I64),
    (np.zeros(2, B), True, B),
    (np.zeros(2, I32), np.float64(2.5), F32),       # NumPy scalars are weak (PyTorch; NumPy: f64)
    (np.zeros(2, F32), np.float64(2.5), F32),
    (np.zeros(2, F32), np.array(2.5), F32),         # so are 0-d NumPy arrays
    (np.zeros(2, I32), np.int64(2), I32),
    (np.zeros(2, F32), np.complex128(1j), np.complex64),
    (2, 3, I64),
    (2, 3.0, F32),
    (True, 1, I64),
])
def test_promotion(a, b, want):
    ta = jg.tensor(a) if isinstance(a, np.ndarray) else a
    assert jnp.add(ta, b).dtype == want
    assert jnp.add(b, ta).dtype == want
    if isinstance(a, np.ndarray):
        assert (ta + b).dtype == want and (b + ta).dtype == want


def test_tensor_dtype_inference():
    assert jg.tensor(1.5).dtype == F32 and jg.tensor([1, 2]).dtype == I64
    assert jg.tensor(True).dtype == B and jg.tensor(np.float64(1)).dtype == F64
    assert jg.tensor(np.arange(3, dtype=np.int32)).dtype == I32
    assert jg.tensor([1, 2], dtype=jg.float64).dtype == F64
    assert jg.tensor(np.arange(3.0), dtype="float32").dtype == F32


def test_tensor_copies_as_tensor_shares():
    a = np.zeros(3, np.float32)
    t, s = jg.tensor(a), jg.as_tensor(a)
    a[0] = 1.0
    assert t[0].item() == 0.0 and s[0].item() == 1.0


# ----------------------------------------------------------------------------- creation

def test_torch_style_creation():
    assert jg.zeros(1024).shape == (1024,) and jg.zeros(1024).dtype == F32
    assert jg.ones(()).shape == () and jg.ones(()).item() == 1.0
    assert jg.zeros(2, 3).shape == (2, 3) and jg.ones((2, 3)).shape == (2, 3)
    assert jg.zeros(2, dtype=jg.int32).dtype == I32
    assert jg.full((2, 2), 7.0).tolist() == [[7.0, 7.0], [7.0, 7.0]]
    assert jg.full((2,), 7).dtype == I64 and jg.full((2,), 7.0).dtype == F32
    assert jg.full((2,), 1, dtype=jg.float64).dtype == F64
    assert jg.arange(4).tolist() == [0, 1, 2, 3] and jg.arange(4).dtype == I64
    assert jg.arange(1, 2, 0.25).tolist() == [1.0, 1.25, 1.5, 1.75]
    assert jg.arange(1.0, 3).dtype == F32
    assert jg.arange(3, dtype=jg.float64).dtype == F64
    x = jg.randn(3, 4, dtype=jg.float64)
    assert x.shape == (3, 4) and x.dtype == F64 and x.device == "cpu"
    assert jg.randn((2, 2)).dtype == F32 and jg.rand(5).numpy().min() >= 0
    assert jg.randint(0, 3, (10,)).numpy().max() < 3
    for fn in (jg.zeros, jg.ones, jg.randn, jg.rand):
        m = fn(2, 3, device="meta")
        assert m.device == "meta" and m.shape == (2, 3)
    assert jg.full((2,), 1.0, device="meta").device == "meta"
    assert jg.arange(5, device="meta").shape == (5,)


def test_creation_is_writable_and_independent():
    a, b = jg.zeros(3), jg.zeros(3)
    a[0] = 1.0
    assert b[0].item() == 0.0 and a[0].item() == 1.0


def test_manual_seed_determinism():
    jg.manual_seed(3)
    a = jg.randn(4).numpy().copy()
    jg.manual_seed(3)
    assert np.array_equal(jg.randn(4).numpy(), a)


def test_requires_grad_creation():
    x = jg.zeros(3, requires_grad=True)
    assert x.requires_grad and x.is_leaf
    with pytest.raises(RuntimeError, match="only float and complex tensors can require gradients, got int64"):
        jg.tensor([1, 2], requires_grad=True)


@pytest.mark.parametrize("got, want", [
    (lambda m: m.zeros((2, 3)), None), (lambda m: m.ones(4, dtype=m.int32), None),
    (lambda m: m.full((2, 2), 1.5), F32), (lambda m: m.full(3, 2), None),
    (lambda m: m.arange(5), None), (lambda m: m.arange(1, 7, 2), None),
    (lambda m: m.arange(0.0, 1.0, 0.25), F32), (lambda m: m.eye(3), None),
    (lambda m: m.eye(2, 3, k=1), None), (lambda m: m.zeros_like(np.ones((2, 2), np.int32)), None),
    (lambda m: m.ones_like(np.ones(3, np.float64)), F64), (lambda m: m.linspace(0, 1, 5), F32),
    (lambda m: m.linspace(0, 1, 4, endpoint=False), F32),
    (lambda m: m.full_like(np.ones(2, np.float32), 3), None), (lambda m: m.identity(2), None),
    (lambda m: m.empty((2, 0)), None),
], ids=lambda f: "" if f is None or isinstance(f, np.dtype) else None)
def test_numpy_style_creation(got, want):
    """jnp creation matches NumPy; Python-float defaults give float32 (NumPy: float64)."""
    t, n = got(jnp), got(np)
    assert isinstance(t, jg.Tensor) and t.shape == n.shape
    exp = want or (F32 if n.dtype == F64 else np.dtype(n.dtype))
    assert t.dtype == exp
    if n.size:
        np.testing.assert_allclose(t.numpy(), n, rtol=1e-6)


# ----------------------------------------------------------------------------- views and mutation

def test_alias_mutation():
    x = jg.arange(10)
    y = x
    y[1] = 17
    assert x[1].item() == 17


def test_slice_is_a_view():
    x = jg.arange(10)
    z = x[1:5]
    z[1] = 6
    assert x[2].item() == 6
    z += 100
    assert x.tolist()[:6] == [0, 101, 106, 103, 104, 5]


def test_strided_and_row_views():
    x = jg.arange(10)
    x[::3][1] = -1
    assert x[3].item() == -1
    x[::-1][0] = 99
    assert x[9].item() == 99
    m = jg.zeros(3, 4)
    r = m[1]
    r += 1.0
    m[:, 2] = jg.tensor([7.0, 8.0, 9.0])
    m[..., 0] = 5.0
    assert m.tolist() == [[5, 0, 7, 0], [5, 1, 8, 1], [5, 0, 9, 0]]


def test_advanced_index_is_a_copy():
    x = jg.arange(5)
    g = x[[0, 1]]
    g[0] = 42
    assert x[0].item() == 0


def test_setitem_forms():
    x = jg.zeros(6)
    x[2] = 1.0
    x[-1] = 2.0
    x[[0, 1]] = jg.tensor([3.0, 4.0])
    x[np.array([3])] = 5.0
    assert x.tolist() == [3, 4, 1, 5, 0, 2]
    x[x > 2.5] = 0.0
    assert x.tolist() == [0, 0, 1, 0, 0, 2]
    x[1:3] = [7, 8]
    assert x.tolist() == [0, 7, 8, 0, 0, 2]


def test_inplace_operators_keep_identity_and_dtype():
    x = jg.tensor([1.0, 2.0])
    ident = id(x)
    x += 1
    x *= 2
    x -= jg.tensor([1.0, 1.0])
    x /= 2
    assert id(x) == ident and x.tolist() == [1.5, 2.5] and x.dtype == F32
    v = jg.zeros(4)
    w = v[1:3]
    w *= 0
    w += 3
    assert v.tolist() == [0, 3, 3, 0]
    i = jg.tensor([1, 2])
    with pytest.raises(TypeError, match="float32 can't be cast to int64"):
        i += 1.5


def test_version_counter_shared_by_views():
    x = jg.zeros(4)
    v = x[1:]
    before = x._version[0]
    v[0] = 1.0
    assert x._version[0] == before + 1 and v._version is x._version
