"""The cuda device end to end under the simulator: tensors, transfers, the caching allocator,
interop, device errors, and the kernels the op records don't reach at their small sizes
(block-per-row reductions, tiled matmul). Run by tests/codegen/cuda/test_cuda_sim_runner.py."""
import gc
import importlib.util

import numpy as np
import pytest

from jitgrad.codegen.cuda.toolchain import cuda_simulator_enabled

if not cuda_simulator_enabled() or importlib.util.find_spec("numba_cuda") is None:
    pytest.skip("needs numba-cuda and NUMBA_ENABLE_CUDASIM=1 (tests/codegen/cuda/test_cuda_sim_runner.py)",
                allow_module_level=True)

import jitgrad as jg  # noqa: E402
import jitgrad.numpy as jnp  # noqa: E402
from jitgrad.codegen.cuda import eager as cuda_eager, target as cuda_target  # noqa: E402
from jitgrad.runtime.cuda_memory import allocator, size_class  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")


def test_simulator_counts_as_one_cuda_device():
    assert jg.cuda.is_available() and jg.cuda.device_count() == 1
    assert jg.device("cuda") == jg.device("cuda:0")
    with pytest.raises(RuntimeError, match=r"cuda:1 was requested but only 1 CUDA device"):
        jg.device("cuda:1")


def test_tensors_move_between_devices(rng):
    a = rng.standard_normal((3, 4)).astype(np.float32)
    x = jg.tensor(a, device="cuda")
    assert x.device == jg.device("cuda:0") and x.shape == (3, 4) and x.dtype == np.float32
    for moved in (x.cpu(), x.to("cpu")):
        assert moved.device == jg.device("cpu")
        np.testing.assert_array_equal(moved.numpy(), a)
    y = jg.tensor(a).cuda()
    np.testing.assert_array_equal(np.asarray(y), a)
    assert x.to("meta").device == jg.device("meta") and x.to("meta").shape == (3, 4)
    assert "device='cuda:0'" in repr(x)
    # numpy() is a copy: writing to it leaves the device data alone
    host = x.numpy()
    host[0, 0] = 99
    assert x.numpy()[0, 0] == a[0, 0]


def test_creation_functions_take_device():
    assert jg.zeros(2, 3, device="cuda").device.type == "cuda"
    np.testing.assert_array_equal(jg.ones(4, device="cuda").numpy(), np.ones(4, np.float32))
    np.testing.assert_array_equal(jnp.arange(5, device="cuda").numpy(), np.arange(5))


def test_mixing_devices_names_both():
    with pytest.raises(jg.DeviceMismatchError, match=r"cuda:0 and cpu|cpu and cuda:0"):
        jnp.add(jg.ones(3, device="cuda"), jg.ones(3))


def test_scalars_follow_the_tensor_to_its_device():
    x = jg.tensor([1.0, 2.0], device="cuda")
    y = 2 * x + 1
    assert y.device.type == "cuda"
    np.testing.assert_allclose(y.numpy(), [3.0, 5.0])


def test_allocator_reuses_freed_blocks_by_size_class():
    alloc = allocator(0)
    alloc.empty_cache()
    x = jg.zeros(1000, device="cuda")       # 4000 bytes -> a 4096-byte block
    held = jg.cuda.memory_allocated()
    assert held >= size_class(4000)
    reserved = jg.cuda.memory_reserved()
    del x
    gc.collect()
    assert jg.cuda.memory_allocated() == held - size_class(4000)
    assert alloc.cached_blocks() >= 1
    y = jg.ones(1020, device="cuda")         # same size class: the cached block, no new memory
    assert jg.cuda.memory_reserved() == reserved
    del y
    gc.collect()
    jg.cuda.empty_cache()
    assert alloc.cached_blocks() == 0
    assert jg.cuda.memory_reserved() == jg.cuda.memory_allocated()


def test_reshape_views_keep_their_block_alive():
    x = jg.tensor(np.arange(12, dtype=np.float32), device="cuda")
    y = x.reshape(3, 4)
    del x
    gc.collect()
    z = jg.tensor(np.full(12, 7, np.float32), device="cuda")   # must not land on y's block
    np.testing.assert_array_equal(y.numpy(), np.arange(12, dtype=np.float32).reshape(3, 4))
    np.testing.assert_array_equal(z.numpy(), np.full(12, 7, np.float32))


def test_in_place_updates_and_sgd_step(rng):
    w = jg.tensor(rng.standard_normal(5).astype(np.float32), device="cuda")
    before = w.numpy()
    w -= 0.5 * jg.ones(5, device="cuda")
    np.testing.assert_allclose(w.numpy(), before - 0.5)
    w.zero_()
    np.testing.assert_array_equal(w.numpy(), np.zeros(5, np.float32))


def test_dlpack_export_and_import(rng):
    a = rng.standard_normal((2, 3)).astype(np.float32)
    x = jg.tensor(a, device="cuda")
    # the simulator's device memory is host memory, so NumPy can consume the capsule
    np.testing.assert_array_equal(np.from_dlpack(x), a)
    assert jg.from_dlpack(x).device == x.device
    c = jg.from_dlpack(np.arange(4.0))
    assert c.device == jg.device("cpu") and c.dtype == np.float64
    with pytest.raises(AttributeError, match="simulator"):
        x.__cuda_array_interface__


# ----------------------------------------------------------------------------- kernel variants

LONG_ROW = 1061      # a block of 256 threads per row (fused/reduce.rows_grid), 4+ elements each


@pytest.mark.parametrize("name", ["sum", "max", "min", "argmax", "argmin"])
def test_block_per_row_reductions(name, rng):
    """Long rows: a block per row, warps folding through shuffles and shared memory."""
    a = rng.standard_normal((2, LONG_ROW)).astype(np.float32)
    a[1, 5] = a[1, 900] = 10.0          # a tie: the first index wins, as NumPy
    got = getattr(jnp, name)(jg.tensor(a, device="cuda"), axis=1).numpy()
    np.testing.assert_allclose(got, getattr(np, name)(a, axis=1), rtol=1e-5)


def test_block_reduction_of_bools_and_ints(rng):
    b = rng.random((1, LONG_ROW)) < 0.01
    np.testing.assert_array_equal(jnp.any(jg.tensor(b, device="cuda"), axis=1).numpy(), b.any(1))
    i = rng.integers(-9, 9, (1, LONG_ROW))
    np.testing.assert_array_equal(jnp.max(jg.tensor(i, device="cuda"), axis=1).numpy(), i.max(1))


def test_eager_full_reductions_split_over_blocks(rng):
    n = 2 * cuda_target.DEFAULT.split_elems + 5       # 3 blocks of partials, then one fold
    x = rng.standard_normal(n).astype(np.float32)
    np.testing.assert_allclose(jnp.sum(jg.tensor(x, device="cuda")).numpy(), x.sum(), rtol=1e-5)
    i = rng.integers(-1000, 1000, n)
    np.testing.assert_array_equal(jnp.max(jg.tensor(i, device="cuda")).numpy(), i.max())
    b = np.zeros(n, bool)
    b[n - 3] = True                          # only the last block's partial is True
    assert jnp.any(jg.tensor(b, device="cuda")).item() is True
    assert jnp.argmax(jg.tensor(x, device="cuda")).item() == x.argmax()   # one block


@pytest.mark.parametrize("dtype", [np.float32, np.int64])
@pytest.mark.parametrize("m,n", [(11, 13), (19, 18), (35, 7)],
                         ids=["1x1-per-thread", "4x4-per-thread", "4x1-per-thread"])
def test_tiled_matmul_with_edge_tiles(dtype, m, n, rng):
    # 4x4 threads (simulator-sized): sides of 16 or more get 4 outputs per thread
    a = rng.integers(-3, 4, (2, m, 9)).astype(dtype)
    b = rng.integers(-3, 4, (2, 9, n)).astype(dtype)
    out = cuda_eager.empty((2, m, n), dtype)
    da, db = jg.tensor(a, device="cuda")._data, jg.tensor(b, device="cuda")._data
    cuda_eager.matmul_into(out, da, db, 2, m, n, 9, "tiled", threads=4)
    np.testing.assert_array_equal(out.copy_to_host(), a @ b)


def test_sort_puts_nans_last_and_is_stable():
    a = np.array([[3.0, np.nan, 1.0, 3.0, -1.0]], np.float32)
    x = jg.tensor(a, device="cuda")
    np.testing.assert_array_equal(jnp.sort(x).numpy(), np.sort(a))
    np.testing.assert_array_equal(jnp.argsort(x).numpy(), np.argsort(a, kind="stable"))


def test_scatter_add_accumulates_repeated_indices():
    idx = jg.tensor(np.array([0, 2, 0, 0]), device="cuda")
    x = jg.zeros(3, device="cuda")
    got = x.at[idx].add(jg.ones(4, device="cuda"))
    np.testing.assert_array_equal(got.numpy(), [3.0, 0.0, 1.0])


def test_transforms_without_jit_keep_results_on_the_inputs_device():
    """grad / value_and_grad / vjp / jvp / vmap of cuda tensors, not jitted: the graph runs on
    the host, the results come back on cuda (they were CPU tensors: a silent device change)."""
    a = np.array([0.5, -1.0, 2.0], np.float32)
    x = jg.tensor(a, device="cuda")
    f = lambda x: jnp.sum(jnp.tanh(x) * x)  # noqa: E731
    results = {"grad": jg.grad(f)(x), "value_and_grad": jg.value_and_grad(f)(x)[1],
               "vjp": jg.vjp(lambda x: x * x, x)[1](x)[0],
               "jvp": jg.jvp(lambda x: x * x, (x,), (x,))[1], "vmap": jg.vmap(lambda x: x * 2)(x)}
    want = {"grad": np.tanh(a) + a * (1 - np.tanh(a) ** 2), "vjp": 2 * a * a, "jvp": 2 * a * a,
            "vmap": 2 * a}
    want["value_and_grad"] = want["grad"]
    for name, r in results.items():
        assert r.device == jg.device("cuda"), name
        np.testing.assert_allclose(r.numpy(), want[name], rtol=1e-5, err_msg=name)


def test_backward_leaves_gradients_on_the_device(rng):
    """.backward() of cuda tensors: each leaf's .grad is a cuda tensor holding device memory
    (it held a host array labelled cuda, so .numpy() raised), and a second backward adds."""
    a = rng.standard_normal((3, 4)).astype(np.float32)
    x = jg.tensor(a, device="cuda", requires_grad=True)
    for k in (1, 2):
        jnp.sum(jnp.tanh(x) * 2.0).backward()
        assert x.grad.device == jg.device("cuda:0")
        np.testing.assert_allclose(x.grad.numpy(), k * 2 * (1 - np.tanh(a) ** 2), rtol=1e-5)
        np.testing.assert_allclose(x.grad.cpu().numpy(), x.grad.numpy())
