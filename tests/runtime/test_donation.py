"""donate_argnums (issue 24, item 4): a donated tensor is deleted, never silently aliased; a
donated NumPy array is copied and never overwritten (JAX's semantics); on every jit path."""
import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad.runtime.deleted_storage import DeletedArrayError

PATHS = {"compiled": {}, "interpreter": {"JITGRAD_BACKEND": "interpreter"}}


@pytest.fixture(params=sorted(PATHS))
def path(request, monkeypatch):
    for k, v in PATHS[request.param].items():
        monkeypatch.setenv(k, v)
    return request.param


READS = {
    "np.asarray": np.asarray,
    ".numpy()": lambda x: x.numpy(),
    "repr": repr,
    "str": str,
    "arithmetic": lambda x: x + 1,
    "reflected arithmetic": lambda x: 1.0 - x,
    "numpy ufunc": lambda x: np.exp(x),
    "jnp function": jnp.sum,
    "indexing": lambda x: x[0],
    ".item()": lambda x: x[:1].item(),
    "tolist": lambda x: x.tolist(),
    "another jitted function": jg.jit(lambda v: v - 1),
    "grad": jg.grad(lambda v: (v * v).sum()),
}


@pytest.mark.parametrize("read", sorted(READS))
def test_reproducer_donated_tensor_is_deleted(path, read):
    f = jg.jit(lambda v: v * 2 + 1, donate_argnums=0)
    x = jnp.asarray(np.arange(3, dtype=np.float32))
    y = f(x)
    np.testing.assert_array_equal(y.numpy(), [1, 3, 5])
    assert x.is_deleted() and not y.is_deleted()
    assert x.shape == (3,) and x.dtype == np.float32           # metadata stays, as in JAX
    with pytest.raises(DeletedArrayError, match=r"Array has been deleted with shape=float32\[3\]"
                                                r".*donated to the jitted function"):
        READS[read](x)
    with pytest.raises(RuntimeError, match="donate_argnums"):   # and f again
        f(x)
    np.testing.assert_array_equal(y.numpy(), [1, 3, 5])       # the result is intact


def test_donated_numpy_array_is_copied_never_overwritten(path):
    f = jg.jit(lambda v: v * 2 + 1, donate_argnums=0)
    a = np.arange(4, dtype=np.float32)
    for _ in range(2):                                        # again: nothing was consumed
        np.testing.assert_array_equal(f(a).numpy(), [1, 3, 5, 7])
        np.testing.assert_array_equal(a, [0, 1, 2, 3])


@pytest.mark.parametrize("share", ["np.asarray", "as_tensor", "numpy view", "tensor view"])
def test_memory_shared_with_the_caller_is_not_overwritten(path, share):
    """A donated tensor that shares memory with something the caller still holds runs on a
    private copy: the holder keeps its values; the tensor itself is deleted."""
    f = jg.jit(lambda v: v * 2 + 1, donate_argnums=0)
    base = np.arange(4, dtype=np.float32)
    if share == "as_tensor":
        x, held = jg.as_tensor(base), base
    else:
        x = jnp.asarray(base.copy())
        held = {"np.asarray": lambda: np.asarray(x), "numpy view": lambda: np.asarray(x)[1:],
                "tensor view": lambda: x[1:]}[share]()
    before = np.array(held, copy=True)
    np.testing.assert_array_equal(f(x).numpy(), [1, 3, 5, 7])
    np.testing.assert_array_equal(np.asarray(held), before)
    assert x.is_deleted()


def test_donation_in_a_training_step_updates_and_consumes(path):
    """The typical use: params donated to an update step; the new ones are usable, the old
    ones are gone, and a pytree (dict) argument is donated leaf by leaf."""
    step = jg.jit(lambda p, g: {k: p[k] - 0.5 * g[k] for k in p}, donate_argnums=0)
    p = {"w": jnp.asarray(np.ones((2, 3), np.float32)), "b": jnp.asarray(np.zeros(3, np.float32))}
    g = {"w": jnp.asarray(np.full((2, 3), 2.0, np.float32)),
         "b": jnp.asarray(np.ones(3, np.float32))}
    for want in (0.0, -1.0, -2.0):
        old = p
        p = step(p, g)
        assert all(t.is_deleted() for t in old.values())
        assert not any(t.is_deleted() for t in g.values())
        np.testing.assert_array_equal(p["w"].numpy(), np.full((2, 3), want))


def test_same_tensor_donated_and_passed_again_is_an_error(path):
    f = jg.jit(lambda a, b: a * 2 + b, donate_argnums=0)
    x = jnp.asarray(np.ones(3, np.float32))
    with pytest.raises(ValueError, match="donated tensor is also passed as a non-donated"):
        f(x, x)
    assert not x.is_deleted()                         # refused before anything ran
    np.testing.assert_array_equal(x.numpy(), [1, 1, 1])


def test_negative_donate_argnums_and_lower_compile(path):
    f = jg.jit(lambda a, b: a * 2 + b, donate_argnums=-1)
    x, y = (jnp.asarray(np.ones(3, np.float32)) for _ in range(2))
    np.testing.assert_array_equal(f(x, y).numpy(), [3, 3, 3])
    assert y.is_deleted() and not x.is_deleted()
    compiled = jg.jit(lambda a, b: a * 2 + b, donate_argnums=1).lower(x, x).compile()
    z = jnp.asarray(np.ones(3, np.float32))
    np.testing.assert_array_equal(compiled(x, z).numpy(), [3, 3, 3])
    assert z.is_deleted() and not x.is_deleted()
    with pytest.raises(DeletedArrayError):
        compiled(x, z)


def test_donation_under_eager_autograd_keeps_the_gradient_right(path):
    """The call records one op whose backward reads the donated input as it was (the compiled
    code runs on a copy there), so the other arguments' gradients are right."""
    f = jg.jit(lambda w, x: (w * x).sum() + (x * x).sum(), donate_argnums=1)
    w = jg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    x = jnp.asarray(np.array([4.0, 5.0, 6.0], np.float32))
    f(w, x).backward()
    np.testing.assert_allclose(w.grad.numpy(), [4.0, 5.0, 6.0])
    assert x.is_deleted()


def test_backward_through_a_donated_leaf_says_it_was_donated(path):
    """Differentiating eagerly through a tensor after donating it is a read of a deleted
    tensor (as an in-place change of it is an error in PyTorch), never a stale value."""
    f = jg.jit(lambda w: (w * w).sum(), donate_argnums=0)
    w = jg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    loss = f(w)
    assert w.is_deleted()
    with pytest.raises(DeletedArrayError, match="donated to the jitted function"):
        loss.backward()


def test_donation_is_ignored_inside_a_transformation(path):
    inner = jg.jit(lambda v: v * 3, donate_argnums=0)
    x = jnp.asarray(np.array([1.0, 2.0], np.float32))
    np.testing.assert_allclose(jg.grad(lambda v: inner(v).sum())(x).numpy(), [3, 3])
    np.testing.assert_allclose(jg.jit(lambda v: inner(v) + 1)(x).numpy(), [4, 7])
    assert not x.is_deleted()


def test_delete_and_is_deleted_like_jax():
    x = jnp.asarray(np.ones(2, np.float32))
    assert not x.is_deleted()
    x.delete()
    assert x.is_deleted()
    with pytest.raises(RuntimeError, match="deleted with .delete()"):
        x + 1


def test_loaded_artifact_donates_like_jit(tmp_path):
    """jg.load of a function saved with donated arguments: the same rules (a NumPy array is
    copied and kept, a tensor is consumed)."""
    x = jnp.asarray(np.ones(3, np.float32))
    jg.jit(lambda v: v * 2 + 1, donate_argnums=0).lower(x).compile().save(tmp_path / "f.jgz")
    f = jg.load(tmp_path / "f.jgz")
    a = np.ones(3, np.float32)
    np.testing.assert_array_equal(f(a).numpy(), [3, 3, 3])
    np.testing.assert_array_equal(a, [1, 1, 1])
    t = jnp.asarray(np.ones(3, np.float32))
    np.testing.assert_array_equal(f(t).numpy(), [3, 3, 3])
    assert t.is_deleted()
    with pytest.raises(DeletedArrayError, match="donated"):
        f(t)


def test_update_in_a_donated_buffer_is_returned_without_a_copy():
    """x = f(x) with x donated: the kernel writes into x's memory (an in-place elementwise loop,
    vectorized: codegen/cpu/kernels/function.Fn.parallel_loops) and that memory is the result, not a copy
    of it; values over chained calls as NumPy's."""
    f = jg.jit(lambda p, g: p - 0.1 * g * jnp.sqrt(g + 1.0), donate_argnums=0)
    p0 = np.linspace(-1, 1, 4099, dtype=np.float32)
    g = jnp.asarray(np.linspace(0, 2, 4099, dtype=np.float32))
    x, want = jnp.asarray(p0.copy()), p0.copy()
    for _ in range(3):
        address = x._data.ctypes.data       # (holding the array would make it shared)
        x = f(x, g)
        want = want - np.float32(0.1) * np.asarray(g) * np.sqrt(np.asarray(g) + np.float32(1))
        assert np.asarray(x).ctypes.data == address
    np.testing.assert_allclose(np.asarray(x), want, rtol=1e-6)
    out = f.lower(x, g).compile().units
    assert any("llvm.loop.parallel_accesses" in u.source for u in out)
