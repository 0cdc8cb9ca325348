"""torch.utils.data.dataloader: DataLoader, default_collate, get_worker_info."""
from __future__ import annotations

import collections.abc

import numpy as np

from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, SequentialSampler

__all__ = ["DataLoader", "default_collate", "get_worker_info"]


def _jg():
    import jitgrad      # lazy: this module loads from jitgrad.__getattr__, inside that import
    return jitgrad


def default_collate(batch):
    """Merge a list of samples into a batch, by torch.utils.data.default_collate's rules."""
    jg = _jg()
    elem = batch[0]
    if isinstance(elem, jg.Tensor):
        return jg.stack(list(batch), 0)
    if isinstance(elem, np.ndarray) and elem.dtype.kind not in "SUO":
        return jg.as_tensor(np.stack(batch))
    if isinstance(elem, np.generic) and elem.dtype.kind not in "SUO":
        return jg.as_tensor(np.asarray(batch))
    if isinstance(elem, bool):
        return jg.tensor(batch, dtype=jg.bool)
    if isinstance(elem, int):
        return jg.tensor(batch, dtype=jg.int64)
    if isinstance(elem, float):
        return jg.tensor(batch, dtype=jg.float64)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        return {key: default_collate([d[key] for d in batch]) for key in elem}
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # namedtuple
        return type(elem)(*(default_collate(list(s)) for s in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        if any(len(e) != len(elem) for e in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = [default_collate(list(s)) for s in zip(*batch)]
        if isinstance(elem, tuple):
            return transposed
        try:
            return type(elem)(transposed)
        except TypeError:
            return transposed
    raise TypeError(f"default_collate: batch must contain tensors, numpy arrays, numbers, dicts "
                    f"or lists; found {type(elem)}")


def get_worker_info():
    """None: jitgrad's DataLoader loads in the main process."""
    return None


class DataLoader:
    """torch.utils.data.DataLoader, loading in the calling process."""

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
                 num_workers=0, collate_fn=None, pin_memory=False, drop_last=False, timeout=0,
                 worker_init_fn=None, multiprocessing_context=None, generator=None, *,
                 prefetch_factor=None, persistent_workers=False, pin_memory_device="",
                 in_order=True):
        self.dataset, self.batch_size, self.drop_last = dataset, batch_size, drop_last
        self.num_workers, self.pin_memory, self.generator = num_workers, pin_memory, generator
        self.collate_fn = default_collate if collate_fn is None else collate_fn
        self._iterable = isinstance(dataset, IterableDataset)
        if self._iterable:
            if shuffle or sampler is not None or batch_sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified "
                                 "shuffle, sampler and batch_sampler")
        else:
            if sampler is not None and shuffle:
                raise ValueError("sampler option is mutually exclusive with shuffle")
            if batch_sampler is not None:
                if batch_size != 1 or shuffle or sampler is not None or drop_last:
                    raise ValueError("batch_sampler option is mutually exclusive with "
                                     "batch_size, shuffle, sampler, and drop_last")
                batch_size, drop_last = None, False
            if sampler is None:
                sampler = (RandomSampler(dataset, generator=generator) if shuffle
                           else SequentialSampler(dataset))
            if batch_size is not None and batch_sampler is None:
                batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.sampler, self.batch_sampler = sampler, batch_sampler
        self.batch_size, self.drop_last = batch_size, drop_last

    def __iter__(self):
        if self._iterable:
            return self._iter_iterable()
        if self.batch_sampler is None:  # batch_size=None: samples one by one, uncollated
            return (self.dataset[i] for i in self.sampler)
        return (self.collate_fn([self.dataset[i] for i in idx]) for idx in self.batch_sampler)

    def _iter_iterable(self):
        if self.batch_size is None:
            yield from iter(self.dataset)
            return
        batch = []
        for sample in self.dataset:
            batch.append(sample)
            if len(batch) == self.batch_size:
                yield self.collate_fn(batch)
                batch = []
        if batch and not self.drop_last:
            yield self.collate_fn(batch)

    def __len__(self):
        if self._iterable:
            n = len(self.dataset)
            if self.batch_size is None:
                return n
            return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
        return len(self.batch_sampler if self.batch_sampler is not None else self.sampler)
