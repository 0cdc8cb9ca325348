"""Datasets and batching for NumPy arrays: MNIST IDX files, bundled 8x8 digits, ArrayLoader.

Everything here returns plain NumPy arrays; hand batches to ``jg.tensor`` or a jitted function.

>>> (x_train, y_train), (x_test, y_test) = digits_split(test_size=0.2, seed=0)
>>> x_train.shape, x_test.shape
((1437, 64), (360, 64))
>>> for xb, yb in ArrayLoader(x_train, y_train, batch_size=128, shuffle=True, seed=0):
...     pass  # one epoch of (128, 64) float32 / (128,) int64 batches
"""

from __future__ import annotations

import gzip
import math
import os
import zlib
from pathlib import Path

import numpy as np

__all__ = [
    "DataError",
    "read_idx",
    "load_mnist",
    "load_digits",
    "train_test_split",
    "digits_split",
    "ArrayLoader",
]

# IDX type code -> (name, big-endian NumPy dtype)
_IDX_DTYPES = {
    0x08: ("ubyte", np.dtype("u1")),
    0x09: ("byte", np.dtype("i1")),
    0x0B: ("short", np.dtype(">i2")),
    0x0C: ("int", np.dtype(">i4")),
    0x0D: ("float", np.dtype(">f4")),
    0x0E: ("double", np.dtype(">f8")),
}
_MNIST_PREFIX = {"train": "train", "test": "t10k"}
_DIGITS_FILE = Path(__file__).parent / "datasets" / "digits.csv.gz"


class DataError(ValueError):
    """A data file is missing or malformed; the message names the file and what was wrong."""


def read_idx(file: str | os.PathLike) -> np.ndarray:
    """Read an IDX file (plain or gzipped, detected by content) into a native-endian array.

    The format: two zero bytes, a type code (0x08 ubyte, 0x09 byte, 0x0B short, 0x0C int,
    0x0D float, 0x0E double), the number of dimensions, then each dimension as a big-endian
    uint32, then the data in row-major order.

    >>> read_idx("mnist/t10k-labels-idx1-ubyte.gz").shape  # doctest: +SKIP
    (10000,)
    """
    file = Path(file)
    try:
        raw = file.read_bytes()
    except FileNotFoundError:
        raise DataError(f"{file}: no such file") from None
    except OSError as e:
        raise DataError(f"{file}: cannot read ({e.strerror})") from None
    if raw[:2] == b"\x1f\x8b":
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError, zlib.error) as e:
            raise DataError(f"{file}: cannot decompress gzip data ({e})") from None

    if len(raw) < 4 or raw[0] != 0 or raw[1] != 0:
        raise DataError(
            f"{file}: bad magic number: expected an IDX header 00 00 <type> <ndim>, "
            f"found {raw[:4].hex(' ') or 'an empty file'}"
        )
    code, ndim = raw[2], raw[3]
    if code not in _IDX_DTYPES:
        known = ", ".join(f"0x{c:02X} ({name})" for c, (name, _) in _IDX_DTYPES.items())
        raise DataError(f"{file}: unknown IDX dtype code 0x{code:02X}; expected one of {known}")
    name, dtype = _IDX_DTYPES[code]

    header = 4 + 4 * ndim
    if len(raw) < header:
        raise DataError(
            f"{file}: truncated header: {ndim} dimensions need {header} bytes, found {len(raw)}"
        )
    shape = tuple(int(d) for d in np.frombuffer(raw, ">u4", count=ndim, offset=4))
    expected = math.prod(shape) * dtype.itemsize
    found = len(raw) - header
    if found != expected:
        problem = "truncated data" if found < expected else "size mismatch"
        raise DataError(
            f"{file}: {problem}: shape {shape} of {name} needs {expected} data bytes, found {found}"
        )
    data = np.frombuffer(raw, dtype, offset=header).reshape(shape)
    return data.astype(dtype.newbyteorder("="))


def load_mnist(
    path: str | os.PathLike, kind: str = "train", flatten: bool = True
) -> tuple[np.ndarray, np.ndarray]:
    """Load MNIST (or Fashion-MNIST) from a directory of the standard IDX files.

    ``kind="train"`` reads ``train-images-idx3-ubyte`` and ``train-labels-idx1-ubyte``,
    ``kind="test"`` the ``t10k-*`` pair; each may also be present with a ``.gz`` suffix.
    Returns ``(images, labels)``: float32 images scaled to [0, 1] of shape (N, H*W), or
    (N, H, W) with ``flatten=False``, and int64 labels of shape (N,).

    >>> x, y = load_mnist("~/data/mnist", kind="test")  # doctest: +SKIP
    >>> x.shape, x.dtype, y.shape, y.dtype  # doctest: +SKIP
    ((10000, 784), dtype('float32'), (10000,), dtype('int64'))
    """
    if kind not in _MNIST_PREFIX:
        raise ValueError(f"load_mnist: kind must be 'train' or 'test', got {kind!r}")
    directory = Path(path).expanduser()
    prefix = _MNIST_PREFIX[kind]
    names = (f"{prefix}-images-idx3-ubyte", f"{prefix}-labels-idx1-ubyte")
    wanted = " and ".join(f"{n}[.gz]" for n in names)
    if not directory.is_dir():
        raise DataError(f"MNIST directory {directory} does not exist; expected it to hold {wanted}")

    files = []
    for name in names:
        candidates = [directory / name, directory / f"{name}.gz"]
        found = [f for f in candidates if f.is_file()]
        if not found:
            present = sorted(p.name for p in directory.iterdir()) or ["nothing"]
            raise DataError(
                f"MNIST {kind} set: {name} (or {name}.gz) not found in {directory}; expected "
                f"{wanted}, found {', '.join(present)}"
            )
        files.append(found[0])
    image_file, label_file = files

    images, labels = read_idx(image_file), read_idx(label_file)
    for file, array, want_ndim, what in (
        (image_file, images, 3, "(N, rows, cols)"),
        (label_file, labels, 1, "(N,)"),
    ):
        if array.dtype != np.uint8 or array.ndim != want_ndim:
            raise DataError(
                f"{file}: expected ubyte data of shape {what}, "
                f"found {array.dtype} data of shape {array.shape}"
            )
    if len(images) != len(labels):
        raise DataError(
            f"MNIST {kind} set: count mismatch: {image_file.name} has {len(images)} images "
            f"but {label_file.name} has {len(labels)} labels"
        )
    x = images.astype(np.float32) / np.float32(255)
    return (x.reshape(len(x), -1) if flatten else x), labels.astype(np.int64)


def load_digits(flatten: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Load the bundled 8x8 handwritten digits (UCI optical digits via scikit-learn; offline).

    Returns ``(images, labels)``: 1797 float32 images scaled from 0..16 to [0, 1], of shape
    (1797, 64), or (1797, 8, 8) with ``flatten=False``, and int64 labels 0..9.
    Source and license: ``jitgrad/datasets/LICENSE-digits.txt``.

    >>> x, y = load_digits()
    >>> x.shape, x.dtype, y.shape, y.dtype
    ((1797, 64), dtype('float32'), (1797,), dtype('int64'))
    """
    table = np.loadtxt(_DIGITS_FILE, delimiter=",", dtype=np.int64)
    x = table[:, :64].astype(np.float32) / np.float32(16)
    return (x if flatten else x.reshape(-1, 8, 8)), table[:, 64]


def train_test_split(
    x: np.ndarray, y: np.ndarray, test_size: float | int = 0.2, seed: int | None = 0
) -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
    """Shuffle rows with ``seed`` and split them into ``(x_train, y_train), (x_test, y_test)``.

    ``test_size`` is a fraction in (0, 1) (the test count is rounded up) or a row count.
    Note the grouping differs from scikit-learn's flat 4-tuple.

    >>> x, y = np.arange(20).reshape(10, 2), np.arange(10)
    >>> (x_tr, y_tr), (x_te, y_te) = train_test_split(x, y, test_size=0.3, seed=0)
    >>> len(x_tr), len(x_te)
    (7, 3)
    """
    x, y = np.asarray(x), np.asarray(y)
    n = _common_length(x, y, where="train_test_split")
    if isinstance(test_size, (int, np.integer)) and not isinstance(test_size, bool):
        n_test = int(test_size)
    elif isinstance(test_size, float) and 0.0 < test_size < 1.0:
        n_test = math.ceil(test_size * n)
    else:
        raise ValueError(
            f"train_test_split: test_size must be a fraction in (0, 1) or a row count, "
            f"got {test_size!r}"
        )
    if not 0 < n_test < n:
        raise ValueError(
            f"train_test_split: test_size={test_size!r} gives {n_test} test rows out of {n}; "
            f"both train and test must be non-empty"
        )
    order = np.random.default_rng(seed).permutation(n)
    train, test = order[n_test:], order[:n_test]
    return (x[train], y[train]), (x[test], y[test])


def digits_split(
    test_size: float | int = 0.2, seed: int | None = 0
) -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
    """Split the bundled digits: ``(x_train, y_train), (x_test, y_test)``.

    Same as ``train_test_split(*load_digits(), test_size=test_size, seed=seed)``.

    >>> (x_train, y_train), (x_test, y_test) = digits_split()
    >>> x_train.shape, x_test.shape
    ((1437, 64), (360, 64))
    """
    return train_test_split(*load_digits(), test_size=test_size, seed=seed)


class ArrayLoader:
    """Iterate over ``x`` (and ``y``) in mini-batches along the first axis, PyTorch-style.

    Each batch is a tuple of NumPy arrays: ``(xb, yb)`` when ``y`` is given, else ``(xb,)``.
    ``len(loader)`` is the number of batches per epoch; the last batch is smaller unless
    ``drop_last=True`` drops it. With ``shuffle=True`` every pass draws a new order from
    ``(seed, epoch)``, and ``epoch`` advances at the start of each pass, so two loaders with the
    same ``seed`` yield the same sequence of epochs; ``seed=None`` picks a random seed.
    Set ``loader.epoch`` to resume a run at a given epoch.

    ``shard=(rank, world)`` gives this process its part of every epoch, for data-parallel
    training (as torch's DistributedSampler): all ranks draw the same order from ``seed``
    and rank ``r`` takes every ``world``-th sample from position ``r``, so the shards are
    disjoint and together cover each sample once. Shards then differ in length by at most one
    sample; with ``drop_last=True`` every rank gets the same number of full batches,
    ``(num_samples // world) // batch_size``, so ranks that average gradients every step stay
    in step. ``num_samples`` stays the whole data set's size.

    >>> x, y = np.zeros((10, 3), np.float32), np.arange(10)
    >>> loader = ArrayLoader(x, y, batch_size=4, shuffle=True, seed=0)
    >>> len(loader), [len(yb) for xb, yb in loader]
    (3, [4, 4, 2])
    """

    def __init__(
        self,
        x: np.ndarray,
        y: np.ndarray | None = None,
        batch_size: int = 1,
        shuffle: bool = False,
        seed: int | None = None,
        drop_last: bool = False,
        shard: tuple[int, int] | None = None,
    ):
        is_int = isinstance(batch_size, (int, np.integer)) and not isinstance(batch_size, bool)
        if not (is_int and batch_size >= 1):
            raise ValueError(f"ArrayLoader: batch_size must be a positive int, got {batch_size!r}")
        self.arrays = (np.asarray(x),) if y is None else (np.asarray(x), np.asarray(y))
        self.num_samples = _common_length(*self.arrays, where="ArrayLoader")
        self.batch_size = int(batch_size)
        self.shuffle = shuffle
        self.seed = np.random.SeedSequence().entropy if seed is None else seed
        self.drop_last = drop_last
        self.rank, self.world = _check_shard(shard)
        self.epoch = 0

    def _shard_length(self) -> int:
        if self.drop_last:
            return self.num_samples // self.world
        return len(range(self.rank, self.num_samples, self.world))

    def __len__(self) -> int:
        if self.drop_last:
            return self._shard_length() // self.batch_size
        return -(-self._shard_length() // self.batch_size)

    def __iter__(self):
        order = None
        if self.shuffle:
            order = np.random.default_rng((self.seed, self.epoch)).permutation(self.num_samples)
        if self.world > 1:
            order = np.arange(self.num_samples) if order is None else order
            order = order[self.rank::self.world][:self._shard_length()]
        self.epoch += 1
        return self._batches(order)

    def _batches(self, order: np.ndarray | None):
        for i in range(len(self)):
            rows = slice(i * self.batch_size, (i + 1) * self.batch_size)
            if order is not None:
                rows = order[rows]
            yield tuple(a[rows] for a in self.arrays)


def _check_shard(shard) -> tuple[int, int]:
    """(rank, world) from ArrayLoader's ``shard`` argument; (0, 1) for None."""
    if shard is None:
        return 0, 1
    ints = isinstance(shard, tuple) and len(shard) == 2 and all(
        isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in shard)
    if not (ints and shard[1] >= 1 and 0 <= shard[0] < shard[1]):
        raise ValueError(f"ArrayLoader: shard must be a tuple (rank, world) of ints with "
                         f"0 <= rank < world, e.g. (jg.distributed.rank(), "
                         f"jg.distributed.world_size()), got {shard!r}")
    return int(shard[0]), int(shard[1])


def _common_length(*arrays: np.ndarray, where: str) -> int:
    """The shared first-axis length of ``arrays``, or a ValueError naming ``where``."""
    if any(a.ndim == 0 for a in arrays):
        raise ValueError(f"{where}: arrays need at least one dimension, got shapes "
                         f"{[a.shape for a in arrays]}")
    lengths = {len(a) for a in arrays}
    if len(lengths) != 1:
        raise ValueError(f"{where}: arrays differ in length along axis 0: "
                         f"shapes {[a.shape for a in arrays]}")
    return lengths.pop()
