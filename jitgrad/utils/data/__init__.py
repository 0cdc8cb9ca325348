"""torch.utils.data's map-style datasets and loader, for programs written against PyTorch.

``DataLoader(dataset, batch_size=1, shuffle=False, ...)`` draws indices from a sampler, fetches
``dataset[i]`` and merges each batch with ``default_collate`` (torch's rules: tensors and NumPy
arrays are stacked into one jg.Tensor, Python ints become int64 and floats float64 tensors,
tuples/lists are collated field by field and returned as a list, dicts key by key, strings stay
a list). Loading is in-process: num_workers, pin_memory, prefetch_factor and persistent_workers
are accepted and ignored. Shuffling draws from jitgrad's global generator (``jg.manual_seed``).

>>> import numpy as np, jitgrad as jg
>>> ds = TensorDataset(jg.arange(10.0), jg.arange(10))
>>> [tuple(x.shape) for x, y in DataLoader(ds, batch_size=4)]
[(4,), (4,), (2,)]

(``jitgrad.data.DataLoader`` is the NumPy-array loader for jitted training loops; this one is
torch's shape.)
"""
from .dataloader import DataLoader, default_collate, get_worker_info
from .dataset import (ConcatDataset, Dataset, IterableDataset, Subset, TensorDataset,
                      random_split)
from .sampler import (BatchSampler, RandomSampler, Sampler, SequentialSampler,
                      SubsetRandomSampler, WeightedRandomSampler)

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "Subset", "ConcatDataset",
           "random_split", "Sampler", "SequentialSampler", "RandomSampler",
           "SubsetRandomSampler", "WeightedRandomSampler", "BatchSampler", "DataLoader",
           "default_collate", "get_worker_info"]
