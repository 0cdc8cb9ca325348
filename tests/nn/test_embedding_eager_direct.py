"""F.embedding on eager CPU tensors takes NumPy's take directly (nn/embedding.py): the rows,
the gradient (the looked-up rows' cotangents summed per row, np.add.at), the same record and
errors as the general path (the one jg.profiler forces), and a copy of the indices saved."""
import numpy as np
import pytest

import jitgrad as jg

F = jg.nn.functional
IDX = np.array([[3, 1, 3], [0, 4, 3]])


def _w():
    return np.arange(15, dtype=np.float32).reshape(5, 3) / 3


def _run(idx, dtype=np.int64):
    w = jg.tensor(_w(), requires_grad=True)
    i = jg.tensor(idx.astype(dtype))
    rows = F.embedding(i, w)
    g = np.random.default_rng(0).standard_normal(rows.shape).astype(np.float32)
    (rows * jg.tensor(g)).sum().backward()
    return rows, w.grad.numpy(), g


@pytest.mark.parametrize("dtype", [np.int64, np.int32])
def test_rows_and_gradient_match_numpy(dtype):
    rows, grad, g = _run(IDX, dtype)
    np.testing.assert_array_equal(rows.detach().numpy(), _w()[IDX])
    want = np.zeros((5, 3), np.float32)
    np.add.at(want, IDX, g)
    np.testing.assert_allclose(grad, want, rtol=1e-6)


def test_empty_indices_give_no_rows_and_a_zero_gradient():
    rows, grad, _ = _run(np.zeros((0, 2), np.int64))
    assert rows.shape == (0, 2, 3)
    np.testing.assert_array_equal(grad, np.zeros((5, 3), np.float32))


def test_the_record_and_gradient_are_the_general_paths():
    rows, grad, _ = _run(IDX)
    with jg.profiler.profile() as prof:
        rows2, grad2, _ = _run(IDX)
    assert repr(rows.grad_fn) == repr(rows2.grad_fn) == "<take>"
    assert "take" in {r.name for r in prof.key_averages() if r.kind == "eager"}
    np.testing.assert_array_equal(grad, grad2)


def test_writing_the_indices_after_the_call_leaves_the_gradient_alone():
    w = jg.tensor(_w(), requires_grad=True)
    i = jg.tensor(IDX)
    rows = F.embedding(i, w)
    i[...] = 0
    rows.sum().backward()
    want = np.zeros((5, 3), np.float32)
    np.add.at(want, IDX, 1.0)
    np.testing.assert_array_equal(w.grad.numpy(), want)


def test_without_grad_nothing_is_recorded():
    w = jg.tensor(_w(), requires_grad=True)
    with jg.no_grad():
        rows = F.embedding(jg.tensor(IDX), w)
    assert not rows.requires_grad and rows.grad_fn is None


@pytest.mark.parametrize("bad", [-1, 5])
def test_out_of_range_indices_raise_pytorchs_error(bad):
    w = jg.tensor(_w(), requires_grad=True)
    with pytest.raises(IndexError, match=f"index {bad} is out of bounds for 5 embeddings"):
        F.embedding(jg.tensor([1, bad]), w)


def test_padding_idx_still_gets_no_gradient():
    w = jg.tensor(_w(), requires_grad=True)
    F.embedding(jg.tensor(IDX), w, padding_idx=3).sum().backward()
    want = np.zeros((5, 3), np.float32)
    np.add.at(want, IDX, 1.0)
    want[3] = 0
    np.testing.assert_array_equal(w.grad.numpy(), want)
