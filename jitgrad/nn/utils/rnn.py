"""torch.nn.utils.rnn: PackedSequence and the functions that pack, pad and unpad batches of
variable-length sequences. The lengths are host values (shapes depend on them); the data moves
by gathers of host indices, so gradients flow through packing and padding on every path.

    packed = pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
    padded, lengths = pad_packed_sequence(packed, batch_first=True)
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ... import numpy as jnp
from ...eager.tensor import Tensor, tensor
from ...numpy._convert import asarray


class PackedSequence(NamedTuple):
    """torch.nn.utils.rnn.PackedSequence: `data` holds time step 0 of every sequence, then step
    1 of those still running, ...; batch_sizes[t] counts the sequences at step t (sorted by
    decreasing length: sorted_indices maps sorted position -> batch index)."""
    data: object
    batch_sizes: object = None
    sorted_indices: object = None
    unsorted_indices: object = None

    def to(self, *args, **kwargs):
        """The same packing with `data` moved or cast (Tensor.to's arguments)."""
        return self._replace(data=self.data.to(*args, **kwargs))


def _host_lengths(lengths, where):
    if isinstance(lengths, Tensor):
        lengths = lengths._host(where)
    values = np.asarray(lengths).reshape(-1)
    if values.dtype.kind not in "iu" and not np.all(values == np.round(values)):
        raise ValueError(f"{where}: lengths must be integers, got {values.tolist()}")
    return values.astype(np.int64)


def invert_permutation(permutation):
    """torch.nn.utils.rnn.invert_permutation: p^-1 with p^-1[p[i]] = i (None stays None)."""
    if permutation is None:
        return None
    p = _host_lengths(permutation, "invert_permutation")
    out = np.empty_like(p)
    out[p] = np.arange(p.size)
    return tensor(out)


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """torch.nn.utils.rnn.pad_sequence: a list of (L_i, *) tensors -> (L_max, B, *) (or
    (B, L_max, *) with batch_first), padded with padding_value on the right (or left)."""
    if padding_side not in ("right", "left"):
        raise ValueError(f"pad_sequence: padding_side must be 'right' or 'left', got "
                         f"{padding_side!r}")
    seqs = [asarray(s) for s in sequences]
    if not seqs:
        raise ValueError("pad_sequence: expected at least one sequence")
    longest = max(s.shape[0] for s in seqs)
    rows = []
    for s in seqs:
        gap = [(0, 0)] * s.ndim
        gap[0] = (0, longest - s.shape[0]) if padding_side == "right" else \
            (longest - s.shape[0], 0)
        rows.append(jnp.pad(s, gap, constant_values=padding_value))
    return jnp.stack(rows, axis=0 if batch_first else 1)


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """torch.nn.utils.rnn.pack_padded_sequence of a padded (L, B, *) (or (B, L, *)) batch."""
    x = asarray(input)
    n = _host_lengths(lengths, "pack_padded_sequence")
    b_axis, t_axis = (0, 1) if batch_first else (1, 0)
    if n.shape != (x.shape[b_axis],) or (n < 1).any() or (n > x.shape[t_axis]).any():
        raise ValueError(f"pack_padded_sequence: expected {x.shape[b_axis]} lengths in [1, "
                         f"{x.shape[t_axis]}], got {n.tolist()}")
    if enforce_sorted:
        if (np.diff(n) > 0).any():
            raise ValueError(f"pack_padded_sequence: lengths must be sorted in decreasing order "
                             f"with enforce_sorted=True, got {n.tolist()}; pass "
                             f"enforce_sorted=False to sort them")
        order = None
    else:
        order = np.argsort(-n, kind="stable")
    perm = np.arange(n.size) if order is None else order
    sorted_n = n[perm]
    batch_sizes = np.array([(sorted_n > t).sum() for t in range(sorted_n[0])], np.int64)
    time_major = x if not batch_first else jnp.swapaxes(x, 0, 1)
    return PackedSequence(_packed_data(time_major, batch_sizes, perm), tensor(batch_sizes),
                          None if order is None else tensor(order),
                          None if order is None else invert_permutation(order))


def _packed_data(time_major, batch_sizes, perm):
    """The packed rows of a (L, B, *) batch: (t, perm[k]) for k < batch_sizes[t], t rising."""
    b = time_major.shape[1]
    flat = np.concatenate([t * b + perm[:k] for t, k in enumerate(batch_sizes)])
    return jnp.take(jnp.reshape(time_major, (-1,) + tuple(time_major.shape[2:])), flat, axis=0)


def packed_forward(module, packed, hx=None, key=None):
    """An RNN/LSTM/GRU layer over a PackedSequence, as torch's: each sequence runs for its own
    length (one call per sequence, so the final states and the backward direction see only
    its steps); returns (PackedSequence of outputs packed like the input, final states in the
    input's batch order)."""
    padded, lengths = pad_packed_sequence(packed)                     # (L, B, *) batch order
    n = np.asarray(lengths)
    lstm = isinstance(hx, tuple)
    outs, finals = [], []
    for i, length in enumerate(n):
        x = padded[:int(length), i:i + 1]
        h = None if hx is None else tuple(s[:, i:i + 1] for s in hx) if lstm else hx[:, i:i + 1]
        if module.batch_first:
            x = jnp.swapaxes(x, 0, 1)
        y, state = module(x, h, key=key)
        y = jnp.swapaxes(y, 0, 1) if module.batch_first else y
        outs.append(jnp.pad(y, [(0, padded.shape[0] - int(length))] + [(0, 0)] * (y.ndim - 1)))
        finals.append(state)
    out = jnp.concatenate(outs, axis=1)
    sizes = _host_lengths(packed.batch_sizes, "packed_forward")
    perm = np.arange(n.size) if packed.sorted_indices is None else \
        _host_lengths(packed.sorted_indices, "packed_forward")
    data = _packed_data(out, sizes, perm)
    if isinstance(finals[0], tuple):
        state = tuple(jnp.concatenate([f[j] for f in finals], axis=1)
                      for j in range(len(finals[0])))
    else:
        state = jnp.concatenate(finals, axis=1)
    return packed._replace(data=data), state


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """torch.nn.utils.rnn.pad_packed_sequence: (padded batch in the original order, lengths as
    an int64 tensor)."""
    data = asarray(sequence.data)
    sizes = _host_lengths(sequence.batch_sizes, "pad_packed_sequence")
    b, steps = int(sizes[0]), sizes.size
    if total_length is not None and total_length < steps:
        raise ValueError(f"pad_packed_sequence: total_length {total_length} is shorter than the "
                         f"longest sequence ({steps})")
    length = steps if total_length is None else int(total_length)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    sorted_n = np.array([(sizes > k).sum() for k in range(b)], np.int64)
    k = np.arange(b)
    t = np.arange(length)[:, None]
    inside = k[None, :] < np.where(t < steps, sizes[np.minimum(t, steps - 1)], 0)  # (L, B)
    rows = np.where(inside, starts[np.minimum(t, steps - 1)] + k[None, :], 0)
    padded = jnp.take(data, rows.reshape(-1), axis=0)
    padded = jnp.reshape(padded, (length, b) + tuple(data.shape[1:]))
    mask = inside.reshape((length, b) + (1,) * (data.ndim - 1))
    padded = jnp.where(mask, padded, jnp.asarray(padding_value, data.dtype))
    lengths = sorted_n
    if sequence.unsorted_indices is not None:
        back = _host_lengths(sequence.unsorted_indices, "pad_packed_sequence")
        padded = jnp.take(padded, back, axis=1)
        lengths = sorted_n[back]
    return (jnp.swapaxes(padded, 0, 1) if batch_first else padded), tensor(lengths)


def pack_sequence(sequences, enforce_sorted=True):
    """torch.nn.utils.rnn.pack_sequence: pad_sequence then pack_padded_sequence."""
    lengths = [asarray(s).shape[0] for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """torch.nn.utils.rnn.unpad_sequence: the list of sequences, each cut to its length."""
    x = asarray(padded_sequences)
    x = x if batch_first else jnp.swapaxes(x, 0, 1)
    return [x[i, :int(n)] for i, n in enumerate(_host_lengths(lengths, "unpad_sequence"))]


def unpack_sequence(packed_sequences):
    """torch.nn.utils.rnn.unpack_sequence: the list of sequences a PackedSequence holds."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)


__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence", "pad_packed_sequence",
           "pad_sequence", "unpad_sequence", "pack_sequence", "unpack_sequence", "packed_forward"]
