"""torch's non-view functions return new tensors: where jitgrad's implementation takes NumPy's
shortcut (roll by 0, flip of no dims, cat of one tensor, a tile of ones, rot90 by 0, a pad of 0,
rounding integers) an in-place write to the result must not reach the input (makemore's MLP
writes into `torch.roll(idx, 1, 1)` of a (b, 1) tensor). Views still alias, as in torch; and
an empty dim list reduces every dim in torch's reductions (NumPy's axis=() none)."""
import numpy as np
import pytest

import jitgrad as jg
import jitgrad.nn.functional as F

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
