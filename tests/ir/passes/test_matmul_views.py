"""Matmul operands read in place through strided views (ir/passes/matmul_views.py): slices,
transposes and reshapes of a kernel input fold into the GEMM's offset, batch strides and leading
dimension instead of running as copy kernels before it. The view arithmetic against NumPy's own
strides, then the compiled path (BLAS and the unpacked GEMMs, serial and in row blocks on the
pool) against NumPy, gradients against finite differences, and which chains stay copies."""
import math

import numpy as np
import pytest

import jitgrad as jg
import jitgrad.nn.functional as F
import jitgrad.numpy as jnp
from jitgrad.ir.passes.matmul_views import View, gemm_layout, reshaped_strides

rng = np.random.default_rng(0)


def _kernels(f, *args):
    return [(n.params["kind"], tuple(m.op.name for m in n.params["body"].nodes))
            for n in f.lower(*args).schedule]


def _copies_before_products(f, *args) -> list:
    """The opaque slice/transpose kernels of f's schedule whose results a matmul kernel reads
    (what a folded view no longer runs)."""
    schedule = f.lower(*args).schedule
    read = {v for n in schedule if n.params["kind"] == "matmul" for v in n.inputs}
    return [tuple(m.op.name for m in n.params["body"].nodes) for n in schedule
            if n.params["kind"] == "opaque" and set(n.outputs) & read
            and {m.op.name for m in n.params["body"].nodes} & {"slice", "transpose"}]


# ---------------------------------------------------------------------------- the arithmetic

def _numpy_view(shape, steps, perm):
    base = np.arange(math.prod(d * s for d, s in zip(shape, steps)), dtype=np.float32)
    v = base.reshape([d * s for d, s in zip(shape, steps)])[tuple(slice(None, None, s)
                                                                  for s in steps)]
    return base, v.transpose(perm)


@pytest.mark.parametrize("seed", range(40))
def test_reshaped_strides_match_numpys_no_copy_reshape(seed):
    r = np.random.default_rng(seed)
    nd = int(r.integers(1, 5))
    shape = tuple(int(d) for d in r.integers(1, 5, nd))
    steps = tuple(int(s) for s in r.integers(1, 3, nd))
    perm = tuple(int(p) for p in r.permutation(nd))
    base, v = _numpy_view(shape, steps, perm)
    dims = [d for d in v.shape]
    new = tuple(int(d) for d in r.permutation(dims)) if r.random() < 0.3 else \
        (math.prod(dims[:len(dims) // 2]), math.prod(dims[len(dims) // 2:]))
    strides = tuple(s // 4 for s in v.strides)
    got = reshaped_strides(v.shape, strides, new)
    try:
        w = v.view()
        w.shape = new           # NumPy raises where the reshape needs a copy
    except AttributeError:
        assert got is None or math.prod(new) != v.size
        return
    if math.prod(new) != v.size:
        assert got is None
        return
    assert got is not None
    assert all(g == s // 4 for g, s, d in zip(got, w.strides, new) if d != 1)


def test_gemm_layout_orientation_and_leading_dimension():
    # attention's heads: qkv[2, 8, 48] -> q[..., :16] -> [2, 8, 2, 8] -> [2, 2, 8, 8]
    v = View.of((2, 8, 48))
    v = View(v.offset + 16, (2, 8, 16), v.strides)
    v = View(v.offset, (2, 8, 2, 8), reshaped_strides(v.shape, v.strides, (2, 8, 2, 8)))
    v = View(v.offset, (2, 2, 8, 8), tuple(v.strides[a] for a in (0, 2, 1, 3)))
    assert gemm_layout(v, False) == ((2, 2, 8, 8), False, 48, (384, 8))
    # the same heads as k^T: rows are the contiguous axis, so the operand is transposed
    t = View(v.offset, (2, 2, 8, 8), tuple(v.strides[a] for a in (0, 1, 3, 2)))
    assert gemm_layout(t, False) == ((2, 2, 8, 8), True, 48, (384, 8))
    # neither matrix axis contiguous: not a GEMM operand
    assert gemm_layout(View(0, (4, 4), (8, 2)), False) is None
    # a column: either orientation; the caller's preference picks
    assert gemm_layout(View(0, (5, 1), (1, 1)), True)[1] is True
    assert gemm_layout(View(0, (5, 1), (1, 1)), False)[1] is False


# ---------------------------------------------------------------------------- compiled products

def heads(qkv, h):
    b, t, d3 = qkv.shape
    d = d3 // 3
    q, k, v = jnp.split(qkv, 3, axis=-1)
    q, k, v = (z.reshape(b, t, h, d // h).transpose(0, 2, 1, 3) for z in (q, k, v))
    return q, k, v


def attention(qkv, mask, h=2):
    q, k, v = heads(qkv, h)
    att = (q @ k.transpose(0, 1, 3, 2)) * (1.0 / math.sqrt(q.shape[-1]))
    att = F.softmax(jnp.where(mask, att, -jnp.inf), axis=-1)
    b, _, t, hd = q.shape
    return (att @ v).transpose(0, 2, 1, 3).reshape(b, t, h * hd)


def attention_numpy(qkv, mask, h=2):
    b, t, d3 = qkv.shape
    d = d3 // 3
    q, k, v = (qkv[..., i * d:(i + 1) * d].reshape(b, t, h, d // h).transpose(0, 2, 1, 3)
               for i in range(3))
    att = q @ k.transpose(0, 1, 3, 2) / math.sqrt(d // h)
    att = np.where(mask, att, -np.inf)
    att = np.exp(att - att.max(-1, keepdims=True))
    att /= att.sum(-1, keepdims=True)
    return (att @ v).transpose(0, 2, 1, 3).reshape(b, t, d)


@pytest.mark.parametrize("b,t,d,h", [(2, 8, 16, 2), (4, 64, 128, 4)])
def test_attention_heads_are_read_in_place(b, t, d, h):
    """The q, k, v heads cut from one qkv product: no slice or transpose copy runs before any
    product, forward or backward; values against NumPy, gradients against finite differences
    (float64, the small case)."""
    x = rng.standard_normal((b, t, 3 * d)).astype(np.float32)
    mask = np.tril(np.ones((t, t), bool))
    f = jg.jit(lambda x: attention(x, mask, h))
    np.testing.assert_allclose(np.asarray(f(x)), attention_numpy(x, mask, h), rtol=1e-4,
                               atol=1e-5)
    g = jg.jit(jg.grad(lambda x: (attention(x, mask, h) ** 2).sum()))
    assert _copies_before_products(f, x) == []
    assert _copies_before_products(g, x) == []
    assert any(kind == "matmul" and "slice" in ops for kind, ops in _kernels(g, x))
    if b == 2:
        x64 = x.astype(np.float64)
        loss = lambda z: (attention_numpy(z, mask, h) ** 2).sum()     # noqa: E731
        want = np.zeros_like(x64)
        for i in np.ndindex(x64.shape):
            e = np.zeros_like(x64)
            e[i] = 1e-6
            want[i] = (loss(x64 + e) - loss(x64 - e)) / 2e-6
        np.testing.assert_allclose(np.asarray(g(x64)), want, rtol=1e-6, atol=1e-7)
    eager = jg.grad(lambda x: (attention(x, mask, h) ** 2).sum())(jg.tensor(x))
    np.testing.assert_allclose(np.asarray(g(x)), np.asarray(eager), rtol=1e-4, atol=1e-5)


VIEWS = {
    "every other row": (lambda a: a[..., ::2, :], (3, 9, 24)),
    "columns from 5": (lambda a: a[..., 5:], (3, 8, 29)),
    "batch into rows": (lambda a: jnp.swapaxes(a, 0, -2), (6, 4, 24)),
    "heads": (lambda a: jnp.swapaxes(a.reshape(3, 8, 2, 12), -3, -2), (3, 8, 24)),
    "transposed rows slice": (lambda a: jnp.swapaxes(a[:, 2:, :], -1, -2), (3, 10, 24)),
    "big, every other row": (lambda a: a[:, ::2, :], (4, 256, 256)),
    "big, column slice": (lambda a: a[..., 128:384], (2, 256, 512)),
}


@pytest.mark.parametrize("name", list(VIEWS))
@pytest.mark.parametrize("dtype,tol", [(np.float32, 1e-4), (np.float64, 1e-11)])
def test_views_fold_into_the_product(name, dtype, tol):
    """Each view times a weight (BLAS or the unpacked GEMMs by shape; the big ones in row blocks
    on the pool): no copy kernel, values against NumPy; the weight's gradient too."""
    view, shape = VIEWS[name]
    a = rng.standard_normal(shape).astype(dtype)
    k = view(np.asarray(a)).shape[-1] if name != "heads" else 12
    w = rng.standard_normal((k, 20)).astype(dtype)
    ref = {"heads": lambda a: np.swapaxes(a.reshape(3, 8, 2, 12), -3, -2),
           "batch into rows": lambda a: np.swapaxes(a, 0, -2),
           "transposed rows slice": lambda a: np.swapaxes(a[:, 2:, :], -1, -2)}.get(name, view)
    f = jg.jit(lambda a, w: jnp.tanh(view(a) @ w))
    want = np.tanh(ref(a.astype(np.float64)) @ w)
    np.testing.assert_allclose(np.asarray(f(a, w)), want, rtol=tol, atol=tol)
    assert _copies_before_products(f, a, w) == []
    g = jg.jit(jg.grad(lambda w, a: (view(a) @ w).sum()))
    va = ref(a.astype(np.float64))
    gw = va.reshape(-1, k).sum(0)[:, None] * np.ones((1, 20))
    np.testing.assert_allclose(np.asarray(g(w, a)), gw, rtol=tol * 10, atol=tol * 10)
    # the weight gradient sums over batch and rows as one [B*M, K] operand (contract_batch):
    # a view whose batch and rows are not one strided matrix is copied for it, once
    merged_copy = name in ("every other row", "batch into rows", "heads")
    assert len(_copies_before_products(g, w, a)) == merged_copy


def test_a_view_read_by_two_products_is_read_in_place_by_each():
    x = rng.standard_normal((4, 16, 24)).astype(np.float32)
    w1, w2 = rng.standard_normal((8, 5)).astype(np.float32), rng.standard_normal((16, 8))
    f = jg.jit(lambda x, w1, w2: (x[..., 8:16] @ w1, w2.astype(np.float32).T @ x[..., 8:16]))
    y1, y2 = f(x, w1, w2)
    np.testing.assert_allclose(np.asarray(y1), x[..., 8:16] @ w1, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(np.asarray(y2), w2.astype(np.float32).T @ x[..., 8:16],
                               rtol=1e-5, atol=1e-5)
    assert _copies_before_products(f, x, w1, w2) == []
    assert sum(kind == "matmul" for kind, _ in _kernels(f, x, w1, w2)) == 2


def test_a_view_the_gemm_cannot_read_stays_one_copy():
    """(p.transpose(0, 2, 1, 3).reshape(b, t, h*d)): the merged last axis has two strides, so
    the transpose runs as one copy kernel before the two products that read it."""
    p = rng.standard_normal((2, 3, 5, 4)).astype(np.float32)
    w1, w2 = rng.standard_normal((12, 6)).astype(np.float32), rng.standard_normal((12, 7))
    merged = lambda p: p.transpose(0, 2, 1, 3).reshape(2, 5, 12)     # noqa: E731
    f = jg.jit(lambda p, w1, w2: (merged(p) @ w1, merged(p) @ w2.astype(np.float32)))
    y1, y2 = f(p, w1, w2)
    np.testing.assert_allclose(np.asarray(y1), merged(p) @ w1, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(np.asarray(y2), merged(p) @ w2.astype(np.float32), rtol=1e-5,
                               atol=1e-5)
    assert [ops for kind, ops in _kernels(f, p, w1, w2) if kind == "opaque"] == [
        ("transpose",), ("reshape",)]        # the reshape of the copy: a view


# ---------------------------------------------------------------------------- product stores

def _copies_after_products(f, *args) -> list:
    """The opaque transpose kernels of f's schedule that read a matmul kernel's result."""
    schedule = f.lower(*args).schedule
    made = {v for n in schedule if n.params["kind"] == "matmul" for v in n.outputs}
    return [n for n in schedule if n.params["kind"] == "opaque" and set(n.inputs) & made
            and n.params["body"].nodes[0].op.name == "transpose"]


STORES = {     # (a shape, b shape, perm of the product), the last axis kept last
    "heads merged": ((2, 3, 5, 4), (2, 3, 4, 6), (0, 2, 1, 3)),
    "batch last but one": ((4, 7, 5), (5, 9), (1, 0, 2)),
    "three batch axes": ((2, 3, 2, 5, 4), (4, 6), (2, 0, 3, 1, 4)),
    "big, on the pool": ((4, 256, 128), (128, 256), (1, 0, 2)),
    "big heads": ((8, 4, 64, 64), (8, 4, 64, 32), (0, 2, 1, 3)),
}


@pytest.mark.parametrize("name", list(STORES))
@pytest.mark.parametrize("dtype,tol", [(np.float32, 1e-4), (np.float64, 1e-11)])
def test_transposed_product_is_stored_in_place(name, dtype, tol):
    """transpose(a @ b) keeping the last axis: the GEMM writes C at the transposed layout's
    strides (MatmulNest.store), no copy kernel after it; values against NumPy, and the
    gradients (whose products read the transposed cotangent in place)."""
    sa, sb, perm = STORES[name]
    a, b = rng.standard_normal(sa).astype(dtype), rng.standard_normal(sb).astype(dtype)
    f = jg.jit(lambda a, b: jnp.transpose(a @ b, perm))
    want = np.transpose(a.astype(np.float64) @ b, perm)
    np.testing.assert_allclose(np.asarray(f(a, b)), want, rtol=tol, atol=tol)
    assert _copies_after_products(f, a, b) == []
    w = rng.standard_normal(want.shape).astype(dtype)
    g = jg.jit(jg.grad(lambda a, b: (jnp.transpose(a @ b, perm) * w).sum(), argnums=(0, 1)))
    wt = np.transpose(w.astype(np.float64), np.argsort(perm))     # the product's cotangent
    ga = wt @ np.swapaxes(b, -1, -2)
    gb = np.swapaxes(a, -1, -2) @ wt
    gb = gb.reshape((-1,) + sb).sum(0) if len(sb) < len(sa) else gb
    got = g(a, b)
    np.testing.assert_allclose(np.asarray(got[0]), ga, rtol=tol * 10, atol=tol * 10)
    np.testing.assert_allclose(np.asarray(got[1]), gb, rtol=tol * 10, atol=tol * 100)


def test_products_the_gemm_does_not_store_transposed():
    """An epilogue before the transpose, or a transpose that moves the last axis: the product
    is stored as is and a copy kernel transposes it, values right either way."""
    a, b = rng.standard_normal((2, 3, 5, 4)), rng.standard_normal((2, 3, 4, 6))
    for fn, ref in ((lambda a, b: jnp.transpose(jnp.tanh(a @ b), (0, 2, 1, 3)),
                     lambda a, b: np.transpose(np.tanh(a @ b), (0, 2, 1, 3))),
                    (lambda a, b: jnp.transpose(a @ b, (0, 2, 3, 1)),
                     lambda a, b: np.transpose(a @ b, (0, 2, 3, 1)))):
        f = jg.jit(fn)
        np.testing.assert_allclose(np.asarray(f(a, b)), ref(a, b), rtol=1e-12)
        assert len(_copies_after_products(f, a, b)) == 1


def test_attention_forward_and_backward_run_no_head_copies():
    """GPT's attention: the heads are read in place and every product's head transpose is a
    store; what copies is the concatenation of dq, dk and dv (and the reshapes are views)."""
    x = rng.standard_normal((2, 8, 48)).astype(np.float32)
    mask = np.tril(np.ones((8, 8), bool))
    f = jg.jit(jg.value_and_grad(lambda x: (attention(x, mask) ** 2).sum()))
    ops = [ops for kind, ops in _kernels(f, x) if kind == "opaque"]
    assert [o for o in ops if o != ("reshape",)] == [("concatenate",)]
    want = jg.value_and_grad(lambda x: (attention(x, mask) ** 2).sum())(jg.tensor(x))
    got = f(x)
    np.testing.assert_allclose(float(got[0]), float(want[0]), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(got[1]), np.asarray(want[1]), rtol=1e-4, atol=1e-5)
