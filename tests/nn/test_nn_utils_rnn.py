"""jg.nn.utils.rnn (torch.nn.utils.rnn): packing, padding and unpadding variable-length
sequences, against hand-built layouts (CI) and the installed torch (where it is)."""
import numpy as np
import pytest

import jitgrad as jg
from jitgrad.nn.utils import rnn

SEQS = [np.arange(6.0).reshape(3, 2), np.arange(10.0, 20.0).reshape(5, 2), np.array([[-1.0, -2]])]


def test_pack_sequence_layout_and_round_trip():
    packed = rnn.pack_sequence(SEQS, enforce_sorted=False)
    # sorted by length: batch 1 (5), batch 0 (3), batch 2 (1); time step by time step
    assert np.asarray(packed.batch_sizes).tolist() == [3, 2, 2, 1, 1]
    assert np.asarray(packed.sorted_indices).tolist() == [1, 0, 2]
    assert np.asarray(packed.unsorted_indices).tolist() == [1, 0, 2]
    want = np.concatenate([[SEQS[1][0], SEQS[0][0], SEQS[2][0]], [SEQS[1][1], SEQS[0][1]],
                           [SEQS[1][2], SEQS[0][2]], [SEQS[1][3]], [SEQS[1][4]]])
    np.testing.assert_array_equal(np.asarray(packed.data), want)
    padded, lengths = rnn.pad_packed_sequence(packed, batch_first=True, padding_value=-9.0)
    assert np.asarray(lengths).tolist() == [3, 5, 1]
    np.testing.assert_array_equal(np.asarray(padded)[0], np.concatenate([SEQS[0],
                                                                         np.full((2, 2), -9.0)]))
    for got, seq in zip(rnn.unpack_sequence(packed), SEQS):
        np.testing.assert_array_equal(np.asarray(got), seq)


def test_pad_sequence_sides_and_unpad():
    right = np.asarray(rnn.pad_sequence(SEQS, batch_first=True))
    left = np.asarray(rnn.pad_sequence(SEQS, padding_value=1.0, padding_side="left"))
    assert right.shape == (3, 5, 2) and left.shape == (5, 3, 2)
    np.testing.assert_array_equal(left[:, 2], np.concatenate([np.ones((4, 2)), SEQS[2]]))
    back = rnn.unpad_sequence(jg.tensor(right), jg.tensor([3, 5, 1]), batch_first=True)
    assert [tuple(b.shape) for b in back] == [(3, 2), (5, 2), (1, 2)]


def test_gradients_flow_through_packing():
    x = jg.tensor(np.ones((4, 2, 3)), requires_grad=True)
    padded, _ = rnn.pad_packed_sequence(rnn.pack_padded_sequence(x, [4, 2]))
    padded.sum().backward()
    np.testing.assert_array_equal(np.asarray(x.grad)[:, :, 0], [[1, 1], [1, 1], [1, 0], [1, 0]])


def test_errors_name_what_was_expected():
    with pytest.raises(ValueError, match="sorted in decreasing order.*enforce_sorted=False"):
        rnn.pack_padded_sequence(np.zeros((4, 2)), [2, 4])
    with pytest.raises(ValueError, match=r"expected 2 lengths in \[1, 4\], got \[5, 1\]"):
        rnn.pack_padded_sequence(np.zeros((4, 2)), [5, 1])
    with pytest.raises(ValueError, match="total_length 2 is shorter"):
        rnn.pad_packed_sequence(rnn.pack_sequence(SEQS, False), total_length=2)


def test_matches_torch():
    torch = pytest.importorskip("torch")
    R = torch.nn.utils.rnn
    x = np.random.default_rng(0).standard_normal((5, 3, 2))
    for lengths, sort in (([5, 3, 1], True), ([2, 5, 3], False)):
        tp = R.pack_padded_sequence(torch.tensor(x), lengths, enforce_sorted=sort)
        jp = rnn.pack_padded_sequence(x, lengths, enforce_sorted=sort)
        for got, want in zip(jp, tp):
            assert (got is None) == (want is None)
            if want is not None:
                np.testing.assert_array_equal(np.asarray(got), want.numpy())
        tpad, tl = R.pad_packed_sequence(tp, batch_first=True, total_length=6)
        jpad, jl = rnn.pad_packed_sequence(jp, batch_first=True, total_length=6)
        np.testing.assert_array_equal(np.asarray(jpad), tpad.numpy())
        np.testing.assert_array_equal(np.asarray(jl), tl.numpy())


def test_recurrent_layers_take_packed_sequences_as_torch():
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    tl = torch.nn.LSTM(2, 3, num_layers=2, bidirectional=True, batch_first=True).double()
    jl = jg.nn.LSTM(2, 3, num_layers=2, bidirectional=True, batch_first=True)
    jl.load_state_dict({k: v.detach().numpy() for k, v in tl.state_dict().items()})
    jl = jl.to(dtype=jg.float64)
    x = np.random.default_rng(1).standard_normal((3, 4, 2))
    xt, xj = torch.tensor(x, requires_grad=True), jg.tensor(x, requires_grad=True)
    lengths = [2, 4, 3]
    out_t, (h_t, c_t) = tl(torch.nn.utils.rnn.pack_padded_sequence(xt, lengths, True, False))
    out_j, (h_j, c_j) = jl(rnn.pack_padded_sequence(xj, lengths, True, False))
    np.testing.assert_allclose(np.asarray(out_j.data), out_t.data.detach().numpy(), atol=1e-12)
    np.testing.assert_allclose(np.asarray(h_j), h_t.detach().numpy(), atol=1e-12)
    np.testing.assert_allclose(np.asarray(c_j), c_t.detach().numpy(), atol=1e-12)
    (out_t.data.sum() + h_t.sum()).backward()
    (out_j.data.sum() + h_j.sum()).backward()
    np.testing.assert_allclose(np.asarray(xj.grad), xt.grad.numpy(), atol=1e-12)


def test_a_packed_batch_runs_each_sequence_for_its_length():
    gru = jg.nn.GRU(2, 3)
    seqs = [np.asarray(s, np.float32) for s in SEQS]
    out, h_n = gru(rnn.pack_sequence(seqs, enforce_sorted=False))
    for i, (got, seq) in enumerate(zip(rnn.unpack_sequence(out), seqs)):
        alone, h_alone = gru(seq[:, None])
        np.testing.assert_allclose(np.asarray(got), np.asarray(alone)[:, 0], rtol=1e-6)
        np.testing.assert_allclose(np.asarray(h_n)[:, i], np.asarray(h_alone)[:, 0], rtol=1e-6)
