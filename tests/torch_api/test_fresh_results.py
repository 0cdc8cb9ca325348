"""torch's non-view functions return new tensors: where nothing changes (roll by 0, flip of no
dims, cat of one tensor, a tile of ones, rot90 by 0, a pad of 0, rounding integers) the result is
a copy (eager/own_storage.py), so an in-place write to it does not reach the input (makemore's
MLP writes into `torch.roll(idx, 1, 1)` of a (b, 1) tensor); jitgrad.numpy's functions copy there
as NumPy's do. Views still alias, as in torch; and an empty dim list reduces every dim in torch's
reductions (NumPy's axis=() none)."""
import numpy as np
import pytest

import jitgrad as jg
import jitgrad.nn.functional as F
import jitgrad.numpy as jnp

x2 = lambda: jg.ones(2, 3)          # noqa: E731
NEW = {
    "roll by 0": lambda x: jg.roll(x, 0, 1),
    "roll by the length": lambda x: x.roll(3, 1),
    "roll of a size-1 dim": lambda x: jg.roll(x[:, :1], 1, 1),
    "flip of no dims": lambda x: jg.flip(x, []),
    "cat of one": lambda x: jg.cat([x]),
    "stack of one": lambda x: jg.stack([x])[0],
    "repeat of ones": lambda x: x.repeat(1, 1),
    "tile of ones": lambda x: jg.tile(x, (1, 1)),
    "rot90 by 0": lambda x: jg.rot90(x, 0),
    "diff n=0": lambda x: jg.diff(x, n=0),
    "pad of 0": lambda x: F.pad(x, (0, 0)),
    "round of ints": lambda x: jg.round(x.long()),
    "nan_to_num of ints": lambda x: jg.nan_to_num(x.long()),
    "floor of ints": lambda x: jg.floor(x.long()),
    "repeat of a size-1 dim": lambda x: x[:, :1].repeat(1, 4),
    "repeat_interleave by 1": lambda x: x.repeat_interleave(1, dim=1),
    "pad cropping only": lambda x: F.pad(x, (0, -1)),
    "clone": lambda x: x.clone(),
    "flip of a dim": lambda x: jg.flip(x, [1]),
    "fliplr": lambda x: jg.fliplr(x),
    "flipud": lambda x: x.flipud(),
    "rot90 by 2": lambda x: x.rot90(2),
    "narrow_copy": lambda x: x.narrow_copy(1, 0, 2),
    "conj_physical of reals": lambda x: jg.conj_physical(x),
}
# jitgrad.numpy: NumPy's functions copy where they change nothing
NUMPY_NEW = {
    "roll by 0": lambda x: jnp.roll(x, 0, 1),
    "concatenate of one": lambda x: jnp.concatenate([x]),
    "stack of one": lambda x: jnp.stack([x])[0],
    "tile of ones": lambda x: jnp.tile(x, (1, 1)),
    "tile of a size-1 axis": lambda x: jnp.tile(x[:, :1], (1, 3)),
    "repeat by 1": lambda x: jnp.repeat(x, 1, axis=1),
    "pad of 0": lambda x: jnp.pad(x, 0),
    "pad of 0, edge": lambda x: jnp.pad(x, 0, mode="edge"),
    "round of ints": lambda x: jnp.round(x.astype("int64")),
    "nan_to_num of ints": lambda x: jnp.nan_to_num(x.astype("int64")),
    "copy": lambda x: jnp.copy(x),
    "sum over no axes": lambda x: jnp.sum(x, axis=()),
    "max over no axes": lambda x: jnp.max(x, axis=()),
}
VIEWS = {
    "view": lambda x: x.view(3, 2),
    "transpose": lambda x: x.transpose(0, 1),
    "narrow": lambda x: x.narrow(1, 0, 2),
    "reshape": lambda x: x.reshape(6),
}


@pytest.mark.parametrize("name", sorted(NEW))
def test_writing_a_new_result_leaves_the_input(name):
    x = x2()
    base = x.long() if "ints" in name else x
    y = NEW[name](base)
    y.view(-1)[0] = 7
    assert np.asarray(base).ravel()[0] == 1


@pytest.mark.parametrize("fn", [jg.abs, lambda b: b.any(dim=()), lambda b: b.all(dim=[]),
                                jnp.abs])
def test_bool_results_are_new(fn):
    b = x2().bool()
    y = fn(b)
    y[0, 0] = False
    assert bool(b[0, 0])


@pytest.mark.parametrize("name", sorted(NUMPY_NEW))
def test_numpy_functions_copy_where_they_change_nothing(name):
    x = x2()
    y = NUMPY_NEW[name](x)
    y[(0,) * y.ndim] = 7
    assert np.asarray(x).ravel()[0] == 1 and float(np.asarray(y).ravel()[0]) == 7


@pytest.mark.parametrize("name", ["roll by 0", "cat of one", "pad of 0", "clone", "flip of no dims"])
def test_copies_keep_the_gradient(name):
    """The copy of a tensor that requires grad is recorded: the gradient reaches the input,
    eagerly and through jg.grad; jitted, the same values."""
    _gradient_and_jit(name)


@pytest.mark.interpreter
def test_copies_on_the_interpreter():
    _gradient_and_jit("roll by 0")


def _gradient_and_jit(name):
    x = jg.tensor(np.arange(6.0, dtype=np.float32).reshape(2, 3), requires_grad=True)
    y = NEW[name](x)
    assert y is not x and y.grad_fn is not None
    (y * x).sum().backward()
    np.testing.assert_allclose(np.asarray(x.grad), 2 * np.asarray(x.detach()))
    g = jg.grad(lambda a: (NEW[name](a) * a).sum())(x.detach())
    np.testing.assert_allclose(np.asarray(g), 2 * np.asarray(x.detach()))
    np.testing.assert_allclose(np.asarray(jg.jit(NEW[name])(x.detach())), np.asarray(x.detach()))


@pytest.mark.parametrize("name", sorted(VIEWS))
def test_views_still_alias(name):
    x = x2()
    y = VIEWS[name](x)
    y[(0,) * y.ndim] = 7              # every view here starts at x[0, 0]
    assert np.asarray(x)[0, 0] == 7


def test_empty_dim_reduces_every_dim_as_torch():
    x = jg.arange(6.0).reshape(2, 3)
    assert x.sum(dim=()).shape == () and float(x.sum(dim=[])) == 15.0
    assert x.mean(dim=()).shape == () and x.amax(dim=()).shape == ()
    assert x.std(dim=()).shape == () and x.var(dim=[]).shape == ()
    assert x.bool().any(dim=()).shape == (2, 3)         # torch's any/all keep every dim
    assert x.sum(axis=()).shape == (2, 3)               # NumPy's spelling: no reduction
