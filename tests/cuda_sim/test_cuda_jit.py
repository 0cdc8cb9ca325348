"""@jit on cuda tensors under the simulator: every scheduled kernel of the benchmark workloads runs
as one generated kernel (elementwise, reduce, rowwise, matmul) and matches NumPy at small sizes.
Run by tests/codegen/cuda/test_cuda_sim_runner.py."""
import importlib.util

import numpy as np
import pytest

from jitgrad.codegen.cuda.toolchain import cuda_simulator_enabled

if not cuda_simulator_enabled() or importlib.util.find_spec("numba_cuda") is None:
    pytest.skip("needs numba-cuda and NUMBA_ENABLE_CUDASIM=1 (tests/codegen/cuda/test_cuda_sim_runner.py)",
                allow_module_level=True)

import jitgrad as jg  # noqa: E402
import jitgrad.nn.functional as F  # noqa: E402
import jitgrad.numpy as jnp  # noqa: E402
from jitgrad.eager.dispatch import apply  # noqa: E402
from jitgrad.ir import Op  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")


def ew_chain(x):
    return jnp.tanh(x * 2.0 + 1.0) * x - jnp.exp(-x * x) * 0.5


def layernorm(x, w, b):
    mu = jnp.mean(x, axis=-1, keepdims=True)
    var = jnp.mean((x - mu) ** 2, axis=-1, keepdims=True)
    return (x - mu) / jnp.sqrt(var + 1e-5) * w + b


def _check(fn, *arrays, rtol=1e-5, atol=1e-6, kinds=None):
    """fn jitted on cuda matches eager NumPy; every scheduled kernel ran as one generated kernel
    (`kinds`: the schedule's kernel kinds, in order, when given)."""
    want = fn(*[jg.tensor(a) for a in arrays])
    args = [jg.tensor(a, device="cuda") for a in arrays]
    got = jg.jit(fn)(*args)
    for g, w in zip(jg.tree_util.tree_leaves(got), jg.tree_util.tree_leaves(want)):
        assert g.device == jg.device("cuda")
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=rtol, atol=atol)
    lowered = jg.jit(fn).lower(*args)
    _assert_fused(lowered, kinds)
    return lowered


def _assert_fused(lowered, kinds=None):
    schedule = [n.params["kind"] for n in lowered.schedule]
    if kinds is not None:
        assert schedule == kinds
    assert lowered.kernels.count("# kernel ") == len(schedule) - schedule.count("opaque")
    assert "per-op eager kernels" not in lowered.kernels.replace("(opaque): per-op", "")


def test_ew_chain_is_one_fused_kernel(rng):
    a = rng.standard_normal((16, 128)).astype(np.float32)
    lowered = _check(ew_chain, a, rtol=1e-4, kinds=["elementwise"])
    assert "while i < 2048:" in lowered.kernels and "math.tanh" in lowered.kernels


def test_softmax_is_one_rowwise_kernel(rng):
    lowered = _check(lambda x: F.softmax(x, axis=-1),
                     rng.standard_normal((8, 96)).astype(np.float32), kinds=["rowwise"])
    assert "(rowwise: row cached in shared memory, 4-wide vectors)" in lowered.kernels


def test_rows_too_long_for_shared_memory_are_reread(rng):
    x = rng.standard_normal((2, 8200)).astype(np.float32)   # 32.8 KB > ROW_CACHE_BYTES
    lowered = _check(lambda x: F.softmax(x, axis=-1), x, kinds=["rowwise"])
    assert "(rowwise, 4-wide vectors)" in lowered.kernels
    assert "cuda.shared.array(ROW" not in lowered.kernels


def test_sum_of_squares_is_one_reduce_kernel(rng):
    x = rng.standard_normal((6, 40)).astype(np.float32)
    _check(lambda x: jnp.sum(x * x), x, rtol=1e-5, kinds=["reduce"])
    _check(lambda x: jnp.sum(x * x, axis=0), x, rtol=1e-5, kinds=["reduce"])


def test_full_reduction_splits_over_blocks_and_resets_its_ticket(rng):
    x = rng.standard_normal(4500).astype(np.float32)   # 3 blocks of 256 threads
    fn = jg.jit(lambda x: jnp.sqrt(jnp.mean(x * x)))
    xd = jg.tensor(x, device="cuda")
    for _ in range(2):     # the last block zeroes the ticket, so a second call is right too
        np.testing.assert_allclose(fn(xd).numpy(), np.sqrt(np.mean(x * x)), rtol=1e-5)
    lowered = fn.lower(xd)
    assert "(reduce: split over blocks, 4-wide vectors)" in lowered.kernels
    assert "SPLIT = 3" in lowered.kernels
    got = jg.jit(lambda x: (jnp.max(x), jnp.min(x)))(xd)
    np.testing.assert_array_equal([g.numpy() for g in got], [x.max(), x.min()])


def test_column_reductions_read_along_rows(rng):
    x = rng.standard_normal((3, 5, 40)).astype(np.float32)
    lowered = _check(lambda x: jnp.max(x, axis=1) * 2.0, x, kinds=["reduce"])
    assert "(reduce: columns, 4-wide vectors)" in lowered.kernels
    _check(lambda x: jnp.mean(x, axis=(0, 1)), x, rtol=1e-5, kinds=["reduce"])
    b = rng.standard_normal((9, 33)) > 0
    _check(lambda b: jnp.any(b, axis=0), b)


def test_matmul_bias_relu_is_one_matmul_kernel(rng):
    x = rng.standard_normal((20, 24)).astype(np.float32)
    w = rng.standard_normal((24, 18)).astype(np.float32)
    b = rng.standard_normal(18).astype(np.float32)
    lowered = _check(lambda x, w, b: F.relu(x @ w + b), x, w, b, rtol=1e-4, atol=1e-5,
                     kinds=["matmul"])
    assert "(matmul: 16x16 tiles, tensor cores (3xTF32), 1x2 warps of 1x1 mma tiles)" \
        in lowered.kernels


def test_matmul_register_tiles_with_edges(rng):
    # 70 rows and 66 columns: 64x64 tiles (2x4 warps of 2x2 mma tiles), with ragged edge tiles
    a = rng.standard_normal((2, 70, 20)).astype(np.float32)
    b = rng.standard_normal((20, 66)).astype(np.float32)
    lowered = _check(lambda a, b: jnp.tanh(a @ b), a, b, rtol=1e-4, atol=1e-5, kinds=["matmul"])
    assert "(matmul: 64x64 tiles, tensor cores (3xTF32), 2x4 warps of 2x2 mma tiles)" \
        in lowered.kernels
    bt = rng.standard_normal((66, 20)).astype(np.float32)
    lowered = _check(lambda a, b: a[0].T.T @ b.T, a, bt, rtol=1e-4, atol=1e-5)


def test_matmul_with_transposed_operands(rng):
    a = rng.standard_normal((17, 20)).astype(np.float32)
    b = rng.standard_normal((9, 17)).astype(np.float32)
    _check(lambda a, b: a.T @ b.T * 2.0, a, b, rtol=1e-4, atol=1e-5, kinds=["matmul"])


def test_matmul_operands_read_through_views(rng):
    """Attention's heads cut from one qkv array and a strided row slice: the products read them
    in place (MatmulOperand offset, batch strides, leading dimension), no copy kernel first;
    the heads' product merged back, (q @ k^T).transpose(0, 2, 1, 3), is stored at the
    transposed layout's strides (MatmulNest.store), no copy kernel after."""
    x = rng.standard_normal((2, 8, 48)).astype(np.float32)
    w = rng.standard_normal((16, 5)).astype(np.float32)

    def fn(x, w):
        q, k = (x[..., i * 16:(i + 1) * 16].reshape(2, 8, 2, 8).transpose(0, 2, 1, 3)
                for i in range(2))
        return (q @ jnp.swapaxes(k, -1, -2)).transpose(0, 2, 1, 3), x[:, ::2, 16:32] @ w
    lowered = _check(fn, x, w, rtol=1e-4, atol=1e-5, kinds=["matmul", "matmul"])
    assert all("slice" in [m.op.name for m in n.params["body"].nodes] for n in lowered.schedule)


def test_layernorm(rng):
    x = rng.standard_normal((8, 64)).astype(np.float32)
    w = rng.standard_normal(64).astype(np.float32)
    b = rng.standard_normal(64).astype(np.float32)
    _check(layernorm, x, w, b, rtol=1e-4, atol=1e-5, kinds=["rowwise"])


def test_mlp_training_step(rng):
    def loss(params, x, y):
        w1, b1, w2, b2 = params
        h = F.relu(x @ w1 + b1)
        logits = h @ w2 + b2
        return -jnp.mean(jnp.sum(F.log_softmax(logits, axis=-1) * y, axis=-1))

    def step(params, x, y):
        value, grads = jg.value_and_grad(loss)(params, x, y)
        return value, [p - 0.1 * g for p, g in zip(params, grads)]

    params = [rng.standard_normal(s).astype(np.float32) * 0.3 for s in [(12, 16), (16,),
                                                                        (16, 4), (4,)]]
    x = rng.standard_normal((8, 12)).astype(np.float32)
    y = np.eye(4, dtype=np.float32)[rng.integers(0, 4, 8)]
    want_v, want_p = step([jg.tensor(p) for p in params], jg.tensor(x), jg.tensor(y))
    got_v, got_p = jg.jit(step)([jg.tensor(p, device="cuda") for p in params],
                                jg.tensor(x, device="cuda"), jg.tensor(y, device="cuda"))
    np.testing.assert_allclose(got_v.numpy(), want_v.numpy(), rtol=1e-5)
    for g, w in zip(got_p, want_p):
        assert g.device.type == "cuda"
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-4, atol=1e-6)
    lowered = jg.jit(step).lower([jg.tensor(p, device="cuda") for p in params],
                                 jg.tensor(x, device="cuda"), jg.tensor(y, device="cuda"))
    _assert_fused(lowered)
    kinds = {n.params["kind"] for n in lowered.schedule}
    assert {"matmul", "rowwise", "reduce"} <= kinds, kinds
    assert lowered.memory_plan.arena_bytes > 0


def test_identical_kernels_of_two_graphs_are_one_module():
    """CUDA kernels are named by their canonical text: the same kernel in two jitted functions
    (different source lines, different graphs) is one generated module."""
    x = np.linspace(-1, 1, 64, dtype=np.float32).reshape(4, 16)

    def first(a):
        return jnp.tanh(a * 2.0 + 1.0)

    def second(a):
        return jnp.tanh(a * 2.0 + 1.0)
    names = []
    for fn in (first, second):
        jf = jg.jit(fn)
        np.testing.assert_allclose(jf(jg.tensor(x, device="cuda")).numpy(), np.tanh(x * 2 + 1),
                                   rtol=1e-5, atol=1e-6)
        units = jf.lower(jg.tensor(x, device="cuda")).compile().units
        names.append([u.name for u in units if u.target == "cuda"])
    assert names[0] == names[1] and len(names[0]) == 1 and names[0][0].startswith("k_")


def test_unusable_cache_dir_keeps_kernels_in_memory(tmp_path, monkeypatch):
    """A cache directory that is a file: the kernel module runs from memory, with one warning."""
    import warnings

    from jitgrad.codegen.disk_cache import CacheWarning
    path = tmp_path / "not-a-dir"
    path.write_text("user data\n")
    monkeypatch.setenv("JITGRAD_CACHE_DIR", str(path))
    x = np.linspace(-1, 1, 32, dtype=np.float32)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = jg.jit(lambda a: jnp.exp(a) * 3.0 - a)(jg.tensor(x, device="cuda"))
    np.testing.assert_allclose(got.numpy(), np.exp(x) * 3 - x, rtol=1e-5, atol=1e-6)
    assert len([w for w in caught if issubclass(w.category, CacheWarning)]) == 1
    assert path.read_text() == "user data\n"


@pytest.mark.parametrize("stride, dilation", [((1, 2), 1), (1, 2)])
def test_conv2d_value_and_grad_on_cuda_im2col_col2im(stride, dilation):
    """A 3x3 convolution's im2col and its gradient's col2im on cuda tensors (jitted; and the two
    ops eagerly) against the CPU's values. Jitted, the products read the columns in place
    (their rows by a table); at stride 1 the input gradient is a product over the padded output
    gradient (ir/passes/conv_input_grad), at stride (1, 2) a col2im."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 3, 6, 5)).astype(np.float32)
    w = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)

    def loss(x, w):
        return jnp.sum(F.conv2d(x, w, padding=1, stride=stride, dilation=dilation) ** 2)
    fn = jg.value_and_grad(loss, argnums=(0, 1))
    want_v, want_g = fn(jg.tensor(x), jg.tensor(w))
    got_v, got_g = jg.jit(fn)(jg.tensor(x, device="cuda"), jg.tensor(w, device="cuda"))
    np.testing.assert_allclose(got_v.numpy(), want_v.numpy(), rtol=1e-5)
    for g, w_ in zip(got_g, want_g):
        assert g.device == jg.device("cuda")
        np.testing.assert_allclose(g.numpy(), w_.numpy(), rtol=1e-4, atol=1e-4)
    p = {"starts": ((0, 0), (1, 2), (2, 1)), "rows": 2, "length": 3}
    cols = apply(Op.im2col, [jg.tensor(x, device="cuda")], p)
    back = apply(Op.col2im, [cols], {**p, "size": (6, 5)})
    want_cols = apply(Op.im2col, [jg.tensor(x)], p)
    want_back = apply(Op.col2im, [want_cols], {**p, "size": (6, 5)})
    assert back.device == jg.device("cuda")
    np.testing.assert_array_equal(cols.numpy(), want_cols.numpy())
    np.testing.assert_array_equal(back.numpy(), want_back.numpy())
