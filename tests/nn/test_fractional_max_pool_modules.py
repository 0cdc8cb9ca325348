"""nn.FractionalMaxPool2d / FractionalMaxPool3d (torch.nn's modules): torch's arguments and
checks, a _random_samples buffer, values and indices from the NumPy reference of the functional,
on eager, jit (compiled and interpreter), grad and vmap."""
import numpy as np
import pytest

import jitgrad as jg
from jitgrad import nn
from tests.support.opinfo.nn_functional_more_refs import fractional_max

RNG = np.random.default_rng(7)
X2 = RNG.standard_normal((2, 3, 9, 8)).astype(np.float32)
U2 = RNG.random((2, 3, 2)).astype(np.float32)
X3 = RNG.standard_normal((1, 2, 6, 7, 5)).astype(np.float32)
U3 = RNG.random((1, 2, 3)).astype(np.float32)


@pytest.mark.parametrize("size", [dict(output_size=(4, 3)), dict(output_size=5),
                                  dict(output_ratio=0.5), dict(output_ratio=(0.6, 0.4))])
def test_2d_values_and_indices_match_numpy(size):
    pool = nn.FractionalMaxPool2d(3, return_indices=True, _random_samples=jg.tensor(U2), **size)
    out, idx = pool(jg.tensor(X2))
    want, want_idx = fractional_max(X2, 3, U2, 2, indices=True, **size)
    np.testing.assert_array_equal(out.numpy(), want)
    np.testing.assert_array_equal(idx.numpy(), want_idx)


def test_3d_matches_numpy_and_takes_unbatched_input():
    pool = nn.FractionalMaxPool3d((2, 3, 2), output_size=(3, 4, 2), _random_samples=jg.tensor(U3))
    np.testing.assert_array_equal(pool(jg.tensor(X3)).numpy(),
                                  fractional_max(X3, (2, 3, 2), U3, 3, output_size=(3, 4, 2)))
    np.testing.assert_array_equal(pool(jg.tensor(X3[0])).numpy(),
                                  fractional_max(X3, (2, 3, 2), U3, 3, output_size=(3, 4, 2))[0])


def test_samples_are_a_buffer_and_the_arguments_are_torchs():
    pool = nn.FractionalMaxPool2d(2, output_ratio=0.5, _random_samples=jg.tensor(U2))
    assert list(pool.state_dict()) == ["_random_samples"] and list(pool.parameters()) == []
    assert (pool.kernel_size, pool.output_ratio, pool.output_size) == ((2, 2), (0.5, 0.5), None)
    assert repr(pool) == ("FractionalMaxPool2d(kernel_size=(2, 2), output_ratio=(0.5, 0.5), "
                          "return_indices=False)")
    assert list(nn.FractionalMaxPool3d(2, output_size=3).state_dict()) == []


def test_without_samples_the_windows_come_from_the_global_generator():
    pool = nn.FractionalMaxPool2d(2, output_size=(4, 4))
    jg.manual_seed(3)
    first = pool(jg.tensor(X2)).numpy()
    jg.manual_seed(3)
    np.testing.assert_array_equal(pool(jg.tensor(X2)).numpy(), first)
    assert first.shape == (2, 3, 4, 4)


@pytest.mark.parametrize("args, match", [
    (dict(), "requires specifying either an output size, or a pooling ratio"),
    (dict(output_size=2, output_ratio=0.5), "only one of output_size and output_ratio"),
    (dict(output_ratio=1.0), r"output_ratio must be between 0 and 1 .* got 1.0"),
    (dict(output_ratio=(0.5, 0.5, 0.5)), "output_ratio must be between 0 and 1"),
    (dict(output_size=(2, 0)), "output_size: expected an int >= 1"),
])
def test_bad_arguments_raise(args, match):
    with pytest.raises(ValueError, match=match):
        nn.FractionalMaxPool2d(2, **args)


def test_wrong_sample_shape_raises_at_the_call():
    pool = nn.FractionalMaxPool2d(2, output_size=3, _random_samples=jg.tensor(U3))
    with pytest.raises(ValueError, match=r"_random_samples must have shape \(2, 3, 2\)"):
        pool(jg.tensor(X2))


def _jitted_matches(pool, x, want):
    out = jg.jit(lambda m, v: m(v))(pool, jg.tensor(x))
    np.testing.assert_array_equal(out.numpy(), want)


def test_jit_reads_the_samples_buffer():
    pool = nn.FractionalMaxPool2d(3, output_size=(4, 3), _random_samples=jg.tensor(U2))
    _jitted_matches(pool, X2, fractional_max(X2, 3, U2, 2, output_size=(4, 3)))


@pytest.mark.interpreter
def test_jit_on_the_interpreter():
    pool = nn.FractionalMaxPool3d(2, output_ratio=0.5, _random_samples=jg.tensor(U3))
    _jitted_matches(pool, X3, fractional_max(X3, 2, U3, 3, output_ratio=0.5))


def test_gradient_reaches_each_selected_input_once_per_selection():
    pool = nn.FractionalMaxPool2d(3, output_size=(4, 3), return_indices=True,
                                  _random_samples=jg.tensor(U2))
    want = np.zeros((2, 3, 72), np.float32)
    _, idx = fractional_max(X2, 3, U2, 2, indices=True, output_size=(4, 3))
    for n, c in np.ndindex(2, 3):
        np.add.at(want[n, c], idx[n, c].ravel(), 1.0)
    x = jg.tensor(X2, requires_grad=True)
    pool(x)[0].sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), want.reshape(X2.shape))
    g = jg.grad(lambda v: pool(v)[0].sum())(jg.tensor(X2))
    np.testing.assert_array_equal(g.numpy(), want.reshape(X2.shape))


def test_vmap_over_unbatched_inputs():
    pool = nn.FractionalMaxPool2d(3, output_size=(4, 3), _random_samples=jg.tensor(U2[:1]))
    out = jg.vmap(pool)(jg.tensor(X2))
    want = fractional_max(X2, 3, np.repeat(U2[:1], 2, 0), 2, output_size=(4, 3))
    np.testing.assert_array_equal(out.numpy(), want)
