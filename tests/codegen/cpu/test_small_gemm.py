"""The unpacked GEMMs (codegen/cpu/llvm_small_gemm.py) and the convolution products that read their
columns in place: which products take them, their values against NumPy (float64 references)
at tile edges, transposed operands, batches and pool blocks, the same bits on one thread and
on two, and the rewrite of a convolution's input gradient (ir/passes/conv_input_grad.py)."""
import os
import subprocess
import sys

import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad.codegen.cpu import llvm_small_gemm
from jitgrad.codegen.cpu.kernels import matmul
from jitgrad.ir.interpreter import interpret
from jitgrad.ir.ops import Op
from jitgrad.ir.passes.conv_input_grad import conv_input_grad
from jitgrad.ir.passes.dce import dce
from jitgrad.nn import functional as F

rng = np.random.default_rng(7)


def _forms(f, *args):
    """kernels.matmul.small_gemm of each matmul kernel of f's schedule."""
    return [matmul.small_gemm(n) for n in jg.jit(f).lower(*args).schedule
            if n.params["kind"] == "matmul"]


@pytest.mark.parametrize("isa", sorted(llvm_small_gemm.SWEPT_BYTES))
def test_the_policy_picks_by_shape_and_layout(isa):
    lanes = llvm_small_gemm.SHAPES[isa][0] // 4      # float32 per vector

    def use(*args, **kw):
        return llvm_small_gemm.use_for(*args, **kw, cpu=isa)
    f32 = np.float32
    assert use(16, 512, 128, False, False, f32) == "bcast"       # few rows, B untransposed
    assert use(256, 512, 16, False, False, f32) == "bcast"       # shallow K: packing costs most
    assert use(16, 128, 512, False, True, f32) == "dot"          # x @ W.T with few rows
    assert use(2048, 784, 512, False, False, f32) is None        # A (4 MB) not in cache: BLAS
    # square-ish products whose swept operand fits in cache: unpacked with AVX-512 only, and
    # `x @ W.T` with many rows through packed panels that the copy transposes (any W)
    cached = "bcast" if isa == "avx512f" else None
    assert use(256, 784, 512, False, False, f32) == cached       # A: 512 KB
    assert use(256, 512, 784, False, True, f32) == (cached and "bcast_t")
    assert use(256, 2048, 784, False, True, f32) == (cached and "bcast_t")   # W 6.4 MB, A 0.8
    assert use(2048, 512, 784, False, True, f32) is None         # A (6.4 MB) not in cache: BLAS
    assert use(48, 512, 784, False, True, f32) == (cached and "dot")    # few rows: no packing
    # ... unless K is shallow (12 rows or more)
    assert use(16, 512, 128, False, True, f32) == ("bcast_t" if cached else "dot")
    assert use(8, 512, 128, False, True, f32) == "dot"
    assert use(256, 512, 784, True, True, f32) is None           # both transposed: BLAS
    assert use(4000, 4000, 4000, False, False, f32, rows_table=True) == "bcast_rows"
    assert use(0, 8, 8, False, False, f32) is None
    assert use(16, lanes - 2, 2048, False, False, f32) is None   # N under a vector: BLAS
    assert use(32, 512, lanes - 1, False, True, f32) is None     # K under a vector (dot): BLAS
    assert use(16, lanes - 2, 2048, False, False, np.float64) == "bcast"  # half as many lanes
    assert use(16, 512, 128, False, False, np.int32) is None     # integers: kernels/int_gemm


@pytest.mark.parametrize("isa,registers", [("avx512f", 32), ("avx2", 16)])
def test_register_tiles_fit_the_register_file(isa, registers):
    """A step's accumulators and the vectors it loads fit the ISA's vector registers (the
    AVX-512 tiles on an AVX2 machine spilled: 30 GFLOP/s against OpenBLAS's 84 on one core)."""
    _, (mr, nv), (dr, dq), packed = llvm_small_gemm.SHAPES[isa]
    for r, v in [(mr, nv)] + ([packed] if packed else []):
        assert r * v + v + 1 <= registers           # bcast: C tile, B's row vectors, A broadcast
    assert dr * dq + dr + dq <= registers           # dot: C tile, A's and B's vectors


def test_the_shape_follows_the_host():
    from jitgrad.codegen.cpu import llvm_jit
    want = "avx512f" if llvm_jit.host_has("avx512f") else "avx2"
    assert llvm_small_gemm.isa() == want
    vector_bytes, (mr, nv), _, packed = llvm_small_gemm.SHAPES[want]
    assert llvm_small_gemm.tile("bcast", np.float32) == (mr, nv * vector_bytes // 4)
    pr, pv = packed or (mr, nv)
    many = llvm_small_gemm.PACK_ROWS
    assert llvm_small_gemm.tile("bcast", np.float32, many) == (pr, pv * vector_bytes // 4)


CASES = [  # (M, K, N, left transposed, right transposed)
    (1, 1, 1, False, False), (3, 7, 5, False, False), (9, 33, 197, False, False),
    (16, 128, 512, False, False), (17, 1, 40, True, False), (32, 100, 16, False, False),
    (200, 16, 70, True, False), (16, 512, 128, False, True), (5, 19, 3, False, True),
    (31, 64, 33, False, True), (64, 40, 20, False, True), (300, 200, 150, False, False),
    (70, 90, 257, False, True), (2048, 40, 300, False, False),
    # packed panels of B (M >= PACK_ROWS): several blocks of p, a partial last one, edge columns
    (64, 257, 70, False, False), (130, 300, 200, True, False), (97, 129, 1000, False, False),
    # x @ W.T with many rows (bcast_t): panels transposed in W x W blocks, p past the last one
    (130, 300, 64, False, True), (64, 17, 200, False, True), (100, 300, 129, False, True),
    (16, 128, 512, False, True), (13, 200, 70, False, True)]


@pytest.mark.parametrize("M,K,N,ta,tb", CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_products_match_numpy(M, K, N, ta, tb, dtype):
    a = rng.standard_normal((K, M) if ta else (M, K)).astype(dtype)
    b = rng.standard_normal((N, K) if tb else (K, N)).astype(dtype)

    def f(a, b):
        return jnp.matmul(a.T if ta else a, b.T if tb else b)
    want = (a.T if ta else a).astype(np.float64) @ (b.T if tb else b).astype(np.float64)
    got = np.asarray(jg.jit(f)(a, b))
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * np.sqrt(K) * 4)
    form = llvm_small_gemm.use_for(M, N, K, ta, tb, dtype)
    assert _forms(f, a, b) == [(form, np.dtype(dtype).name) if form else None]


def test_batched_products_and_pool_blocks():
    """A stack of products and one large enough for the pool (its columns split in blocks)."""
    x, w = rng.standard_normal((6, 16, 96)).astype(np.float32), \
        rng.standard_normal((6, 96, 1000)).astype(np.float32)
    got = np.asarray(jg.jit(jnp.matmul)(x, w))
    np.testing.assert_allclose(got, x.astype(np.float64) @ w, rtol=1e-5, atol=1e-4)
    assert _forms(jnp.matmul, x, w) == [("bcast", "float32")]
    # unpacked blocks start at whole tiles: a block ending mid-tile pays a scalar tail
    cols = llvm_small_gemm.tile("bcast", np.float32)[1]
    assert llvm_small_gemm.blocks("bcast", 16, 1000, 1, 16) == ("m", 16, cols)
    assert llvm_small_gemm.blocks("bcast", 20, 200, 1, 16) == ("m", 200 // cols, cols)
    assert llvm_small_gemm.blocks("dot", 400, 8, 2, 16) == \
        ("n", 8, llvm_small_gemm.tile("dot", np.float32)[0])


def test_packed_products_split_in_whole_tiles():
    """Packed forms split columns at whole packed tiles (a block ending in a partial tile adds
    an unpacked tail per block) or rows in blocks of PACK_ROWS at least (fewer rows would not
    pack); values and bits as on one thread."""
    if llvm_small_gemm.SHAPES[llvm_small_gemm.isa()][3] is None:
        pytest.skip("this CPU has no packed tiles (AVX2)")
    span = llvm_small_gemm.tile("bcast", np.float32, llvm_small_gemm.PACK_ROWS)[1]
    assert llvm_small_gemm.blocks("bcast", 512, 784, 1, 16) == ("m", 784 // span, span)
    assert llvm_small_gemm.blocks("bcast_t", 512, 128, 1, 16) == ("n", 8, 1)
    x = rng.standard_normal((512, 256)).astype(np.float32)
    w = rng.standard_normal((256, 784)).astype(np.float32)
    v = rng.standard_normal((100, 256)).astype(np.float32)
    got = jg.jit(lambda x, w, v: (x.T @ (x @ w), x @ v.T))(x, w, v)
    np.testing.assert_allclose(np.asarray(got[0]), x.T.astype(np.float64) @ (x @ w), rtol=2e-4,
                               atol=1e-2)
    np.testing.assert_allclose(np.asarray(got[1]), x.astype(np.float64) @ v.T, rtol=1e-5,
                               atol=1e-3)


def test_shallow_x_at_w_t_transposes_w_first():
    """`x @ W.T` with many rows and K < DOT_DEPTH: W transposed into scratch, then the broadcast
    form (the dot form's horizontal sums cost as much as its products at such K)."""
    x = rng.standard_normal((8, 64, 64)).astype(np.float32)
    w = rng.standard_normal((384, 64)).astype(np.float32)
    f = jg.jit(lambda x, w: jnp.tanh(x @ w.T))
    np.testing.assert_allclose(np.asarray(f(x, w)), np.tanh(x.astype(np.float64) @ w.T),
                               rtol=1e-5, atol=1e-5)
    first = llvm_small_gemm.transposed_first
    # with packed tiles (AVX-512) the panels' copy transposes W: no copy first
    packed = llvm_small_gemm.SHAPES[llvm_small_gemm.isa()][3] is not None
    assert first(512, 384, 64, False, True, np.float32) == (not packed)
    assert not first(512, 384, 128, False, True, np.float32)    # AVX2: BLAS; AVX-512: bcast_t
    assert not first(16, 384, 64, False, True, np.float32)      # few rows
    assert not first(512, 384, 784, False, True, np.float32)    # deep K: the dot form
    assert _forms(lambda x, w: x @ w.T, x, w) == [("bcast_t" if packed else "bcast", "float32")]


def test_packed_panels_give_the_direct_forms_bits():
    """With many rows the broadcast form packs B's columns in panels of PANEL_ROWS rows of p and
    restarts its accumulators from C; each element is still one sum over p in order, so the
    rows it computes are bit for bit the rows the direct form computes with fewer rows."""
    import ctypes
    M, few, N, K = llvm_small_gemm.PACK_ROWS + 6, 32, 150, 2 * llvm_small_gemm.PANEL_ROWS + 37
    f = ctypes.CFUNCTYPE(None, *[ctypes.c_int64] * 3, ctypes.c_void_p, *[ctypes.c_int64] * 2,
                         ctypes.c_void_p, ctypes.c_int64, ctypes.c_void_p, ctypes.c_int64)(
        llvm_small_gemm.address("bcast", "float32"))
    for ta in (False, True):
        a = rng.standard_normal((K, M) if ta else (M, K)).astype(np.float32)
        b = rng.standard_normal((K, N)).astype(np.float32)
        sai, sap = (1, M) if ta else (K, 1)
        packed, direct = np.full((M, N), np.nan, np.float32), np.full((few, N), np.nan, np.float32)
        f(M, N, K, a.ctypes.data, sai, sap, b.ctypes.data, N, packed.ctypes.data, N)
        f(few, N, K, a.ctypes.data, sai, sap, b.ctypes.data, N, direct.ctypes.data, N)
        want = (a.T if ta else a).astype(np.float64) @ b
        np.testing.assert_allclose(packed, want, rtol=1e-5, atol=1e-4 * np.sqrt(K))
        assert np.array_equal(packed[:few], direct)


def test_packed_products_differentiate_and_match_eager(monkeypatch):
    """Packed panels (bcast, bcast_t) in a compiled function and its gradients: finite
    differences in float64 through jit, and the same values as eager and as jit with fusion off."""
    from jitgrad.test_util import check_grads
    x, w, v = (rng.standard_normal(s) for s in ((70, 40), (96, 40), (96, 80)))

    def f(x, w, v):
        return jnp.sum(jnp.tanh(x @ w.T) @ v)
    packed = llvm_small_gemm.SHAPES[llvm_small_gemm.isa()][3] is not None
    g = jg.jit(jg.grad(f, argnums=(0, 1, 2)))
    forms = {m for m in _forms(jg.grad(f, argnums=(0, 1, 2)), x, w, v) if m}
    if packed:      # x @ w.T and its gradients take bcast_t; (.) @ v the packed bcast
        assert ("bcast_t", "float64") in forms and ("bcast", "float64") in forms
    check_grads(jg.jit(f), (x, w, v), order=1, modes=("rev",))
    got = [np.asarray(t) for t in g(x, w, v)]
    eager = jg.grad(f, argnums=(0, 1, 2))(*(jg.tensor(a) for a in (x, w, v)))
    monkeypatch.setenv("JITGRAD_DISABLE", "fuse")
    unfused = jg.jit(jg.grad(f, argnums=(0, 1, 2)))(x, w, v)
    for a, e, u in zip(got, eager, unfused):
        np.testing.assert_allclose(a, np.asarray(e), rtol=1e-10, atol=1e-10)
        np.testing.assert_allclose(a, np.asarray(u), rtol=1e-10, atol=1e-10)


def test_same_bits_on_one_thread_and_two():
    """Each element's sum runs over K in an order fixed by K alone, whatever block of the pool
    computes it, and however many blocks the pool's size gave the packed products (2, 4, 16)."""
    code = ("import numpy as np, jitgrad as jg, jitgrad.numpy as jnp;"
            "r = np.random.default_rng(1);"
            "x = r.standard_normal((24, 300)).astype(np.float32);"
            "w = r.standard_normal((300, 2000)).astype(np.float32);"
            "v = r.standard_normal((2000, 300)).astype(np.float32);"
            "y = r.standard_normal((300, 300)).astype(np.float32);"   # packed panels
            "a, b, c = jg.jit(lambda x, w, v, y: (x @ w, x @ v.T, y @ y + y @ y.T))(x, w, v, y);"
            "import sys; sys.stdout.buffer.write(b''.join(np.asarray(o).tobytes() for o in (a, b, c)))")
    outs = [subprocess.run([sys.executable, "-c", code], capture_output=True, check=True,
                           env={**os.environ, "JITGRAD_NUM_THREADS": t}).stdout for t in ("1", "2", "8")]
    assert len(outs[0]) == 4 * (24 * 4000 + 300 * 300) and outs[0] == outs[1] == outs[2]


def _conv_loss(x, w, stride=1, dilation=1, padding=1):
    return jnp.sum(jnp.tanh(F.conv2d(x, w, padding=padding, stride=stride, dilation=dilation)))


@pytest.mark.parametrize("shape,out_c,stride,dilation,padding", [
    ((2, 3, 8, 8), 4, 1, 1, 1), ((3, 16, 12, 10), 16, 1, 1, 1), ((2, 4, 10, 10), 40, 1, 2, 2),
    ((2, 5, 9, 7), 6, 2, 1, 1), ((1, 2, 5, 5), 3, 1, 1, 0)])
@pytest.mark.parametrize("dtype,tol", [(np.float32, 2e-4), (np.float64, 1e-10)])
def test_convolution_reads_its_columns_in_place(shape, out_c, stride, dilation, padding, dtype, tol):
    """The products of a convolution read the image (and, at stride 1, the padded output
    gradient) in place; values and gradients equal eager's (NumPy's im2col and col2im)."""
    x = rng.standard_normal(shape).astype(dtype)
    w = (rng.standard_normal((out_c, shape[1], 3, 3)) * 0.2).astype(dtype)

    def loss(x, w):
        return _conv_loss(x, w, stride, dilation, padding)
    vg = jg.value_and_grad(loss, argnums=(0, 1))
    v, (gx, gw) = jg.jit(vg)(x, w)
    xt, wt = jg.tensor(x, requires_grad=True), jg.tensor(w, requires_grad=True)
    ve = loss(xt, wt)
    ve.backward()
    np.testing.assert_allclose(float(v), float(np.asarray(ve)), rtol=tol, atol=tol)
    np.testing.assert_allclose(np.asarray(gx), np.asarray(xt.grad), rtol=tol, atol=tol)
    np.testing.assert_allclose(np.asarray(gw), np.asarray(wt.grad), rtol=tol, atol=tol * 10)
    sched = jg.jit(vg).lower(x, w).schedule
    kernels = [[m.op for m in n.params["body"].nodes] for n in sched]
    products = [ops for ops in kernels if Op.matmul in ops]
    assert [Op.im2col] not in kernels                       # no columns written out
    # the input gradient: a product over the padded gradient at stride 1 (three products read
    # columns), col2im of a plain product otherwise (two)
    assert len(products) == 3 and [Op.col2im in ops for ops in kernels].count(True) == (stride != 1)
    assert sum(Op.im2col in ops for ops in products) == (3 if stride == 1 else 2)


GRAPH = """
graph g(%a: f32[27,4], %d: f32[2,4,48]) -> (f32[2,3,72]{extra}) {{
  %0 = matmul %a, %d : f32[2,27,48]
  %1 = col2im %0 starts=((0,0),(0,1),(0,2),(0,8),(0,9),(0,10),(0,16),(0,17),(0,18)) rows=3 length=48 size=(3,72) : f32[2,3,72]
  return %1{ret}
}}
"""


def test_the_input_gradient_rewrite_only_where_the_product_is_col2im_s_alone():
    g = jg.ir.parse(GRAPH.format(extra="", ret=""))
    out = dce(conv_input_grad(g))
    assert [n.op for n in out.nodes] == [Op.pad, Op.im2col, Op.reshape, Op.transpose, Op.reshape,
                                         Op.matmul]
    a = rng.standard_normal((27, 4)).astype(np.float32)
    d = rng.standard_normal((2, 4, 48)).astype(np.float32)
    np.testing.assert_allclose(interpret(out, [a, d])[0], interpret(g, [a, d])[0], rtol=1e-5,
                               atol=1e-5)
    kept = jg.ir.parse(GRAPH.format(extra=", f32[2,27,48]", ret=", %0"))
    assert Op.col2im in [n.op for n in conv_input_grad(kept).nodes]
