"""jitgrad.data: IDX parsing, MNIST loading and its errors, bundled digits, splits, ArrayLoader."""

import gzip
import re
import struct

import numpy as np
import pytest

from jitgrad import data
from jitgrad.data import DataError, ArrayLoader

IDX_CODES = {"u1": 0x08, "i1": 0x09, ">i2": 0x0B, ">i4": 0x0C, ">f4": 0x0D, ">f8": 0x0E}


def idx_bytes(array, code=None):
    """Serialize ``array`` as an IDX file (big-endian dims and data)."""
    big = array.dtype.newbyteorder(">") if array.dtype.itemsize > 1 else array.dtype
    code = IDX_CODES[big.str.lstrip("|")] if code is None else code
    header = struct.pack(">BBBB", 0, 0, code, array.ndim) + struct.pack(
        f">{array.ndim}I", *array.shape
    )
    return header + array.astype(big).tobytes()


def write(path, payload, gz=False):
    path.write_bytes(gzip.compress(payload) if gz else payload)
    return path


def write_mnist(directory, kind="train", n=5, n_labels=None, gz=False, rows=28, cols=28):
    """A tiny MNIST-layout pair; returns the (uint8 images, labels) written."""
    prefix = "train" if kind == "train" else "t10k"
    suffix = ".gz" if gz else ""
    rng = np.random.default_rng(0)
    images = rng.integers(0, 256, (n, rows, cols), dtype=np.uint8)
    labels = rng.integers(0, 10, n if n_labels is None else n_labels, dtype=np.uint8)
    write(directory / f"{prefix}-images-idx3-ubyte{suffix}", idx_bytes(images), gz)
    write(directory / f"{prefix}-labels-idx1-ubyte{suffix}", idx_bytes(labels), gz)
    return images, labels


# ---------------------------------------------------------------- read_idx


@pytest.mark.parametrize("dtype", ["u1", "i1", "i2", "i4", "f4", "f8"])
@pytest.mark.parametrize("gz", [False, True])
def test_read_idx_round_trips_every_dtype(tmp_path, dtype, gz):
    array = (np.arange(24).reshape(2, 3, 4) - 5).astype(dtype)
    out = data.read_idx(write(tmp_path / "a.idx", idx_bytes(array), gz))
    assert out.dtype == np.dtype(dtype) and out.dtype.isnative
    np.testing.assert_array_equal(out, array)


def test_read_idx_scalar_and_empty(tmp_path):
    assert data.read_idx(write(tmp_path / "e", idx_bytes(np.zeros((0, 3), "u1")))).shape == (0, 3)
    assert data.read_idx(write(tmp_path / "s", idx_bytes(np.array(7, ">i4")))) == 7


def test_read_idx_bad_magic(tmp_path):
    f = write(tmp_path / "x.idx", b"\x01\x02\x08\x01" + b"\x00" * 8)
    with pytest.raises(DataError, match=r"x\.idx: bad magic number: expected .*00 00.*"
                                        r"found 01 02 08 01"):
        data.read_idx(f)
    with pytest.raises(DataError, match="bad magic number.*found an empty file"):
        data.read_idx(write(tmp_path / "empty", b""))


def test_read_idx_unknown_dtype_code(tmp_path):
    f = write(tmp_path / "x.idx", idx_bytes(np.zeros(3, "u1"), code=0x07))
    with pytest.raises(DataError, match=r"x\.idx: unknown IDX dtype code 0x07; expected one of "
                                        r"0x08 \(ubyte\), .*0x0E \(double\)"):
        data.read_idx(f)


def test_read_idx_truncated_and_oversized(tmp_path):
    full = idx_bytes(np.zeros((4, 5), ">i2"))
    with pytest.raises(DataError, match=r"t\.idx: truncated data: shape \(4, 5\) of short "
                                        r"needs 40 data bytes, found 39"):
        data.read_idx(write(tmp_path / "t.idx", full[:-1]))
    with pytest.raises(DataError, match=r"size mismatch: .*needs 40 data bytes, found 41"):
        data.read_idx(write(tmp_path / "t.idx", full + b"\x00"))
    with pytest.raises(DataError, match=r"truncated header: 2 dimensions need 12 bytes, found 9"):
        data.read_idx(write(tmp_path / "t.idx", full[:9]))
    with pytest.raises(DataError, match=r"t\.idx\.gz: truncated data"):
        data.read_idx(write(tmp_path / "t.idx.gz", full[:-3], gz=True))


def test_read_idx_missing_and_corrupt_gzip(tmp_path):
    with pytest.raises(DataError, match=r"nope\.idx: no such file"):
        data.read_idx(tmp_path / "nope.idx")
    with pytest.raises(DataError, match=r"cannot read \(Is a directory\)"):
        data.read_idx(tmp_path)
    corrupt = gzip.compress(idx_bytes(np.zeros(100, "u1")))[:-10]
    with pytest.raises(DataError, match=r"c\.gz: cannot decompress gzip data"):
        data.read_idx(write(tmp_path / "c.gz", corrupt))
    garbled = bytearray(gzip.compress(bytes(range(256)) * 50))
    garbled[20:30] = b"x" * 10
    with pytest.raises(DataError, match=r"g\.gz: cannot decompress gzip data"):
        data.read_idx(write(tmp_path / "g.gz", bytes(garbled)))


# ---------------------------------------------------------------- load_mnist


@pytest.mark.parametrize("gz", [False, True])
@pytest.mark.parametrize("kind", ["train", "test"])
def test_load_mnist(tmp_path, gz, kind):
    images, labels = write_mnist(tmp_path, kind, n=6, gz=gz)
    x, y = data.load_mnist(tmp_path, kind=kind)
    assert x.shape == (6, 784) and x.dtype == np.float32
    assert y.shape == (6,) and y.dtype == np.int64
    assert 0.0 <= x.min() and x.max() <= 1.0
    np.testing.assert_allclose(x, images.reshape(6, -1) / 255.0, rtol=1e-6)
    np.testing.assert_array_equal(y, labels)
    x3, _ = data.load_mnist(str(tmp_path), kind=kind, flatten=False)
    assert x3.shape == (6, 28, 28)


def test_load_mnist_missing_directory(tmp_path):
    with pytest.raises(DataError, match=r"MNIST directory .*nowhere does not exist; expected it "
                                        r"to hold train-images-idx3-ubyte\[\.gz\] and "
                                        r"train-labels-idx1-ubyte\[\.gz\]"):
        data.load_mnist(tmp_path / "nowhere")


def test_load_mnist_missing_file_lists_expected_and_found(tmp_path):
    write_mnist(tmp_path, "train")
    (tmp_path / "train-labels-idx1-ubyte").unlink()
    with pytest.raises(DataError, match=r"train-labels-idx1-ubyte \(or train-labels-idx1-ubyte"
                                        r"\.gz\) not found .*found train-images-idx3-ubyte"):
        data.load_mnist(tmp_path)
    with pytest.raises(DataError, match=r"MNIST test set: t10k-images-idx3-ubyte .*not found.*"
                                        r"expected t10k-images-idx3-ubyte\[\.gz\] and "
                                        r"t10k-labels-idx1-ubyte\[\.gz\]"):
        data.load_mnist(tmp_path, kind="test")


def test_load_mnist_count_mismatch(tmp_path):
    write_mnist(tmp_path, n=5, n_labels=4, gz=True)
    with pytest.raises(DataError, match=r"count mismatch: train-images-idx3-ubyte\.gz has 5 images "
                                        r"but train-labels-idx1-ubyte\.gz has 4 labels"):
        data.load_mnist(tmp_path)


def test_load_mnist_wrong_dtype_or_rank(tmp_path):
    write_mnist(tmp_path)
    write(tmp_path / "train-images-idx3-ubyte", idx_bytes(np.zeros((5, 28, 28), ">f4")))
    with pytest.raises(DataError, match=r"train-images-idx3-ubyte: expected ubyte data of shape "
                                        r"\(N, rows, cols\), found float32 data of shape"):
        data.load_mnist(tmp_path)
    write(tmp_path / "train-images-idx3-ubyte", idx_bytes(np.zeros((5, 784), "u1")))
    with pytest.raises(DataError, match=r"found uint8 data of shape \(5, 784\)"):
        data.load_mnist(tmp_path)


def test_load_mnist_propagates_idx_errors_and_bad_kind(tmp_path):
    write_mnist(tmp_path)
    labels = tmp_path / "train-labels-idx1-ubyte"
    labels.write_bytes(labels.read_bytes()[:-2])
    with pytest.raises(DataError, match=r"train-labels-idx1-ubyte: truncated data"):
        data.load_mnist(tmp_path)
    with pytest.raises(ValueError, match="kind must be 'train' or 'test', got 'val'"):
        data.load_mnist(tmp_path, kind="val")


# ---------------------------------------------------------------- digits and splits


def test_load_digits():
    x, y = data.load_digits()
    assert x.shape == (1797, 64) and x.dtype == np.float32
    assert y.shape == (1797,) and y.dtype == np.int64
    assert x.min() == 0.0 and x.max() == 1.0
    assert np.all(x * 16 == np.round(x * 16))  # pixels were counts 0..16
    counts = np.bincount(y)
    assert len(counts) == 10 and counts.sum() == 1797 and counts.min() >= 170
    assert data.load_digits(flatten=False)[0].shape == (1797, 8, 8)


def test_train_test_split_sizes_and_partition():
    x, y = np.arange(40).reshape(20, 2), np.arange(20)
    (x_tr, y_tr), (x_te, y_te) = data.train_test_split(x, y, test_size=0.25, seed=1)
    assert (len(x_tr), len(x_te)) == (15, 5)
    np.testing.assert_array_equal(x_tr[:, 1] // 2, y_tr)  # rows stay paired
    assert sorted(np.concatenate([y_tr, y_te])) == list(range(20))
    assert len(data.train_test_split(x, y, test_size=0.01)[1][0]) == 1  # rounds up
    assert len(data.train_test_split(x, y, test_size=3)[1][0]) == 3


def test_train_test_split_determinism():
    x, y = np.arange(100.0), np.arange(100)
    a = data.train_test_split(x, y, seed=3)
    b = data.train_test_split(x, y, seed=3)
    c = data.train_test_split(x, y, seed=4)
    np.testing.assert_array_equal(a[1][1], b[1][1])
    assert not np.array_equal(a[1][1], c[1][1])


@pytest.mark.parametrize("test_size", [0.0, 1.0, 0, 20, 1.5, True, "0.2"])
def test_train_test_split_rejects_bad_sizes(test_size):
    with pytest.raises(ValueError, match="train_test_split: test_size"):
        data.train_test_split(np.zeros(20), np.zeros(20), test_size=test_size)


def test_train_test_split_length_mismatch():
    with pytest.raises(ValueError, match=r"differ in length along axis 0: "
                                         r"shapes \[\(3,\), \(4,\)\]"):
        data.train_test_split(np.zeros(3), np.zeros(4))


def test_digits_split():
    (x_tr, y_tr), (x_te, y_te) = data.digits_split(test_size=0.2, seed=0)
    assert x_tr.shape == (1437, 64) and x_te.shape == (360, 64)
    assert y_tr.shape == (1437,) and y_te.shape == (360,)
    (_, y_tr2), _ = data.digits_split(test_size=0.2, seed=0)
    np.testing.assert_array_equal(y_tr, y_tr2)


# ---------------------------------------------------------------- ArrayLoader


@pytest.mark.parametrize("n,batch,drop_last,sizes", [
    (10, 4, False, [4, 4, 2]),
    (10, 4, True, [4, 4]),
    (8, 4, False, [4, 4]),
    (8, 4, True, [4, 4]),
    (3, 4, False, [3]),
    (3, 4, True, []),
    (0, 4, False, []),
])
def test_loader_batch_counts(n, batch, drop_last, sizes):
    loader = ArrayLoader(np.zeros((n, 2)), np.zeros(n), batch_size=batch, drop_last=drop_last)
    batches = list(loader)
    assert len(loader) == len(sizes) == len(batches)
    assert [len(xb) for xb, _ in batches] == sizes
    assert all(len(xb) == len(yb) for xb, yb in batches)


def test_loader_in_order_without_shuffle():
    x = np.arange(14).reshape(7, 2)
    batches = list(ArrayLoader(x, np.arange(7), batch_size=3))
    assert all(isinstance(b, tuple) and len(b) == 2 for b in batches)
    np.testing.assert_array_equal(np.concatenate([xb for xb, _ in batches]), x)
    (only,) = next(iter(ArrayLoader(x, batch_size=2)))
    np.testing.assert_array_equal(only, x[:2])


def test_loader_shuffle_covers_all_rows_and_keeps_pairs():
    x, y = np.arange(50) * 10, np.arange(50)
    loader = ArrayLoader(x, y, batch_size=8, shuffle=True, seed=0)
    for _ in range(3):
        xs, ys = map(np.concatenate, zip(*loader))
        np.testing.assert_array_equal(xs, ys * 10)
        np.testing.assert_array_equal(np.sort(ys), y)
        assert not np.array_equal(ys, y)


def epochs(loader, count):
    return [np.concatenate([yb for _, yb in loader]) for _ in range(count)]


def test_loader_shuffle_is_reproducible_and_varies_per_epoch():
    y = np.arange(64)
    a = epochs(ArrayLoader(y, y, batch_size=16, shuffle=True, seed=7), 3)
    b = epochs(ArrayLoader(y, y, batch_size=16, shuffle=True, seed=7), 3)
    c = epochs(ArrayLoader(y, y, batch_size=16, shuffle=True, seed=8), 1)
    for ea, eb in zip(a, b):
        np.testing.assert_array_equal(ea, eb)
    assert not np.array_equal(a[0], a[1]) and not np.array_equal(a[1], a[2])
    assert not np.array_equal(a[0], c[0])


def test_loader_epoch_can_be_set_to_resume():
    y = np.arange(32)
    loader = ArrayLoader(y, y, batch_size=5, shuffle=True, seed=1)
    first_three = epochs(loader, 3)
    assert loader.epoch == 3
    resumed = ArrayLoader(y, y, batch_size=5, shuffle=True, seed=1)
    resumed.epoch = 2
    np.testing.assert_array_equal(epochs(resumed, 1)[0], first_three[2])


def test_loader_unseeded_shuffle_still_varies():
    y = np.arange(64)
    e0, e1 = epochs(ArrayLoader(y, y, batch_size=64, shuffle=True), 2)
    np.testing.assert_array_equal(np.sort(e0), y)
    assert not np.array_equal(e0, e1)


def test_loader_drop_last_with_shuffle_gives_full_batches():
    loader = ArrayLoader(np.arange(10), np.arange(10), batch_size=3, shuffle=True, seed=0,
                        drop_last=True)
    assert [len(yb) for _, yb in loader] == [3, 3, 3]


@pytest.mark.parametrize("batch_size", [0, -1, 2.0, None, True])
def test_loader_rejects_bad_batch_size(batch_size):
    with pytest.raises(ValueError, match="batch_size must be a positive int"):
        ArrayLoader(np.zeros(4), batch_size=batch_size)


def test_loader_rejects_mismatched_or_scalar_arrays():
    with pytest.raises(ValueError, match=r"ArrayLoader: arrays differ in length along axis 0"):
        ArrayLoader(np.zeros((4, 2)), np.zeros(5))
    with pytest.raises(ValueError, match=r"ArrayLoader: arrays need at least one dimension"):
        ArrayLoader(np.float32(1.0))


# ---------------------------------------------------------------- ArrayLoader shards


@pytest.mark.parametrize("n,world,batch", [(10, 2, 3), (11, 3, 2), (7, 4, 5), (3, 4, 1)])
@pytest.mark.parametrize("shuffle", [False, True])
def test_loader_shards_cover_every_sample_once_per_epoch(n, world, batch, shuffle):
    y = np.arange(n)
    loaders = [ArrayLoader(y * 10, y, batch_size=batch, shuffle=shuffle, seed=5, shard=(r, world))
               for r in range(world)]
    for _ in range(3):   # each epoch: disjoint shards whose union is every sample exactly once
        seen = [np.concatenate([yb for _, yb in ld] or [np.zeros(0, int)]) for ld in loaders]
        np.testing.assert_array_equal(np.sort(np.concatenate(seen)), y)
        assert max(map(len, seen)) - min(map(len, seen)) <= 1
        for ld, s in zip(loaders, seen):
            assert len(ld) == -(-len(s) // batch)


def test_loader_shards_are_deterministic_per_seed_and_follow_the_global_order():
    y = np.arange(40)
    full = epochs(ArrayLoader(y, y, batch_size=40, shuffle=True, seed=3), 2)
    for r in range(2):
        mine = epochs(ArrayLoader(y, y, batch_size=4, shuffle=True, seed=3, shard=(r, 2)), 2)
        again = epochs(ArrayLoader(y, y, batch_size=4, shuffle=True, seed=3, shard=(r, 2)), 2)
        for e in range(2):
            np.testing.assert_array_equal(mine[e], full[e][r::2])
            np.testing.assert_array_equal(mine[e], again[e])


def test_loader_shards_with_drop_last_give_every_rank_the_same_full_batches():
    y = np.arange(23)
    loaders = [ArrayLoader(y, y, batch_size=3, shuffle=True, seed=0, drop_last=True,
                          shard=(r, 3)) for r in range(3)]
    assert [len(ld) for ld in loaders] == [2, 2, 2]          # (23 // 3) // 3
    batches = [[yb for _, yb in ld] for ld in loaders]
    assert all(len(b) == 2 and all(len(yb) == 3 for yb in b) for b in batches)
    rows = np.concatenate([np.concatenate(b) for b in batches])
    assert len(np.unique(rows)) == len(rows) == 18            # still disjoint


@pytest.mark.parametrize("shard", [(2, 2), (-1, 2), (0, 0), [0, 2], (0.0, 2), (True, 2), (0,)])
def test_loader_rejects_bad_shard(shard):
    with pytest.raises(ValueError, match=r"ArrayLoader: shard must be a tuple \(rank, world\) of "
                                         r"ints with 0 <= rank < world, .*got " + re.escape(repr(shard))):
        ArrayLoader(np.zeros(4), batch_size=1, shard=shard)
