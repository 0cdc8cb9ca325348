"""torch.utils.tensorboard's SummaryWriter, for programs written against PyTorch: scalars, text
and histograms written as TensorBoard event files (event_file.py), readable by TensorBoard,
without TensorFlow, protobuf or the tensorboard package.

>>> import tempfile
>>> with SummaryWriter(tempfile.mkdtemp()) as w:
...     w.add_scalar("loss/train", 0.5, 1)

Images, audio, video, graphs, embeddings, meshes, figures, PR curves and hparams are not
written: those methods raise an error naming what is supported (docs/guide/torch-utils.md)."""
from __future__ import annotations

import datetime
import os
import socket
import time

import numpy as np

from . import event_file as ev

__all__ = ["SummaryWriter"]

UNSUPPORTED = ("add_image", "add_images", "add_image_with_boxes", "add_figure", "add_video",
               "add_audio", "add_graph", "add_embedding", "add_pr_curve", "add_pr_curve_raw",
               "add_mesh", "add_hparams", "add_custom_scalars", "add_custom_scalars_multilinechart",
               "add_custom_scalars_marginchart", "add_onnx_graph", "add_histogram_raw")


def _tensorflow_bins() -> np.ndarray:
    """TensorFlow's default histogram bucket edges (torch's bins="tensorflow"): +-1e-12
    growing by 10% to +-1e20, and 0."""
    pos = 1e-12 * 1.1 ** np.arange(int(np.ceil(np.log(1e32) / np.log(1.1))))
    pos = pos[pos < 1e20]
    return np.concatenate([-pos[::-1], [0.0], pos])


def _float(value) -> float:
    """A Python float from a number, a 0-d / one-element tensor or array."""
    arr = np.asarray(value.detach().cpu().numpy() if hasattr(value, "detach") else value)
    if arr.size != 1:
        raise ValueError(f"add_scalar: expected a number or a one-element tensor, got shape "
                         f"{arr.shape}")
    return float(arr.reshape(()))


class SummaryWriter:
    """torch.utils.tensorboard.SummaryWriter: events appended to a file in `log_dir` (default
    runs/<date>_<host><comment>), flushed every `max_queue` events, `flush_secs` seconds, on
    flush() and close()."""

    def __init__(self, log_dir=None, comment="", purge_step=None, max_queue=10, flush_secs=120,
                 filename_suffix=""):
        if log_dir is None:
            stamp = datetime.datetime.now().strftime("%b%d_%H-%M-%S")
            log_dir = os.path.join("runs", f"{stamp}_{socket.gethostname()}{comment}")
        self.log_dir, self.purge_step = str(log_dir), purge_step
        self.max_queue, self.flush_secs, self.filename_suffix = max_queue, flush_secs, filename_suffix
        os.makedirs(self.log_dir, exist_ok=True)
        name = (f"events.out.tfevents.{int(time.time()):010d}.{socket.gethostname()}."
                f"{os.getpid()}.{id(self) % 100000}{filename_suffix}")
        self.path = os.path.join(self.log_dir, name)
        self._pending, self._last_flush, self._children = [], time.time(), {}
        self._write(ev.event(time.time(), file_version="brain.Event:2"))
        self.flush()

    def get_logdir(self) -> str:
        return self.log_dir

    def _write(self, data: bytes):
        if self._pending is None:
            raise ValueError(f"SummaryWriter: {self.log_dir!r} is closed")
        self._pending.append(ev.record(data))
        if len(self._pending) >= self.max_queue or time.time() - self._last_flush > self.flush_secs:
            self.flush()

    def _summary(self, value: bytes, global_step, walltime):
        step = None if global_step is None else int(global_step)
        self._write(ev.event(time.time() if walltime is None else walltime, step,
                             summary=ev.summary(value)))

    def add_scalar(self, tag, scalar_value, global_step=None, walltime=None, new_style=False,
                   double_precision=False):
        """One point of the curve `tag`."""
        self._summary(ev.scalar_value(tag, _float(scalar_value)), global_step, walltime)

    def add_scalars(self, main_tag, tag_scalar_dict, global_step=None, walltime=None):
        """Several curves in one chart: each in log_dir/<main_tag>_<tag>, as torch writes them."""
        for tag, value in tag_scalar_dict.items():
            key = os.path.join(self.log_dir, f"{main_tag.replace('/', '_')}_{tag}")
            if key not in self._children:
                self._children[key] = SummaryWriter(key, max_queue=self.max_queue,
                                                    flush_secs=self.flush_secs)
            self._children[key].add_scalar(main_tag, value, global_step, walltime)

    def add_text(self, tag, text_string, global_step=None, walltime=None):
        """A text (markdown) entry for TensorBoard's text plugin."""
        self._summary(ev.text_value(tag, str(text_string)), global_step, walltime)

    def add_histogram(self, tag, values, global_step=None, bins="tensorflow", walltime=None,
                      max_bins=None):
        """A histogram of `values` (bins: "tensorflow" for TensorFlow's default edges, or what
        numpy.histogram takes)."""
        v = np.asarray(values.detach().cpu().numpy() if hasattr(values, "detach") else values,
                       dtype=np.float64).reshape(-1)
        if v.size == 0:
            raise ValueError(f"add_histogram: {tag!r}: the input has no values")
        counts, edges = np.histogram(v, bins=_tensorflow_bins() if bins == "tensorflow" else bins)
        nonzero = np.flatnonzero(counts)
        first, last = max(nonzero[0] - 1, 0), nonzero[-1] + 1      # one empty bucket before
        self._summary(ev.histogram_value(tag, v.min(), v.max(), v.size, v.sum(), v @ v,
                                         edges[first + 1:last + 1], counts[first:last]),
                      global_step, walltime)

    def flush(self):
        if self._pending:
            with open(self.path, "ab") as f:
                f.write(b"".join(self._pending))
            self._pending.clear()
        self._last_flush = time.time()
        for child in self._children.values():
            child.flush()

    def close(self):
        if self._pending is not None:
            self.flush()
            for child in self._children.values():
                child.close()
            self._pending = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __getattr__(self, name):
        if name in UNSUPPORTED:
            raise NotImplementedError(
                f"SummaryWriter.{name}: jitgrad's SummaryWriter writes scalars (add_scalar, "
                f"add_scalars), text (add_text) and histograms (add_histogram); for {name} use "
                f"torch.utils.tensorboard or tensorboardX with NumPy arrays (x.numpy())")
        raise AttributeError(f"'SummaryWriter' object has no attribute {name!r}")
