"""jitgrad.utils.tensorboard.SummaryWriter writes TensorBoard event files: decoded here by the
format's rules (TFRecord frames with masked CRC-32C, Event protocol buffers), and read by
TensorBoard's own EventAccumulator where the tensorboard package is installed."""
import os
import struct

import numpy as np
import pytest

import jitgrad as jg
from jitgrad.utils.tensorboard import SummaryWriter
from jitgrad.utils.tensorboard.event_file import crc32c, masked_crc


def _frames(path):
    data, out, at = open(path, "rb").read(), [], 0
    while at < len(data):
        (n,) = struct.unpack_from("<Q", data, at)
        assert struct.unpack_from("<I", data, at + 8)[0] == masked_crc(data[at:at + 8])
        body = data[at + 12:at + 12 + n]
        assert struct.unpack_from("<I", data, at + 12 + n)[0] == masked_crc(body)
        out.append(body)
        at += 16 + n
    return out


def _fields(msg):
    """{field number: [values]} of a protocol buffer (varint, 64-bit, bytes, 32-bit)."""
    out, at = {}, 0
    while at < len(msg):
        key, at = _varint(msg, at)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, at = _varint(msg, at)
        elif wire == 1:
            value, at = struct.unpack_from("<d", msg, at)[0], at + 8
        elif wire == 5:
            value, at = struct.unpack_from("<f", msg, at)[0], at + 4
        else:
            n, at = _varint(msg, at)
            value, at = msg[at:at + n], at + n
        out.setdefault(number, []).append(value)
    return out


def _varint(buf, at):
    shift = value = 0
    while True:
        b = buf[at]
        value |= (b & 0x7F) << shift
        at, shift = at + 1, shift + 7
        if not b & 0x80:
            return value, at


def _events(log_dir):
    (name,) = [f for f in os.listdir(log_dir) if f.startswith("events.out.tfevents.")]
    return [_fields(f) for f in _frames(os.path.join(log_dir, name))]


def test_crc32c_check_value():
    assert crc32c(b"123456789") == 0xE3069283


def test_scalars_and_text_are_written_as_events(tmp_path):
    with SummaryWriter(tmp_path) as w:
        for step in range(3):
            w.add_scalar("loss/train", 1.0 / (step + 1), step)
        w.add_scalar("lr", jg.tensor(0.25), 10)
        w.add_text("note", "hello", 4)
    first, *events = _events(tmp_path)
    assert first[3] == [b"brain.Event:2"]
    points = []
    for e in events[:4]:
        value = _fields(_fields(e[5][0])[1][0])      # Event.summary -> Summary.value
        points.append((value[1][0].decode(), e[2][0], round(value[2][0], 6)))
    assert points == [("loss/train", 0, 1.0), ("loss/train", 1, 0.5),
                      ("loss/train", 2, 0.333333), ("lr", 10, 0.25)]
    text = _fields(_fields(events[4][5][0])[1][0])
    assert text[1] == [b"note/text_summary"] and _fields(text[8][0])[8] == [b"hello"]


def test_histogram_counts_every_value(tmp_path):
    values = np.random.default_rng(0).normal(size=500)
    with SummaryWriter(tmp_path) as w:
        w.add_histogram("w", values, 1)
        w.add_histogram("b", values, 2, bins=10)
    for e, buckets in zip(_events(tmp_path)[1:], (None, 10)):
        histo = _fields(_fields(_fields(e[5][0])[1][0])[5][0])
        counts = struct.unpack(f"<{len(histo[7][0]) // 8}d", histo[7][0])
        assert histo[3] == [500.0] and sum(counts) == 500
        assert np.isclose(histo[1][0], values.min()) and np.isclose(histo[4][0], values.sum())
        assert buckets is None or len(counts) <= buckets


def test_unsupported_kinds_and_closed_writer_raise(tmp_path):
    w = SummaryWriter(tmp_path)
    with pytest.raises(NotImplementedError, match="add_image: jitgrad's SummaryWriter writes "
                                                  "scalars"):
        w.add_image("x", np.zeros((3, 2, 2)))
    with pytest.raises(ValueError, match="one-element tensor, got shape"):
        w.add_scalar("x", jg.ones(2))
    w.close()
    with pytest.raises(ValueError, match="is closed"):
        w.add_scalar("x", 1.0)


def test_tensorboard_reads_the_file(tmp_path):
    accumulator = pytest.importorskip(
        "tensorboard.backend.event_processing.event_accumulator")
    with SummaryWriter(tmp_path) as w:
        w.add_scalar("loss", 0.5, 3)
        w.add_histogram("w", np.arange(10.0), 3)
        w.add_scalars("run", {"a": 1.0, "b": 2.0}, 1)
    ea = accumulator.EventAccumulator(str(tmp_path))
    ea.Reload()
    assert [(e.step, e.value) for e in ea.Scalars("loss")] == [(3, 0.5)]
    assert ea.Histograms("w")[0].histogram_value.num == 10
    sub = accumulator.EventAccumulator(str(tmp_path / "run_b"))
    sub.Reload()
    assert [e.value for e in sub.Scalars("run")] == [2.0]
