"""jitgrad.utils.data as torch.utils.data: the submodules programs import from, samplers drawn
lazily (an "infinite" loader), generator= honoured, WeightedRandomSampler / SubsetRandomSampler."""
import itertools

import numpy as np
import pytest

import jitgrad as jg
from jitgrad.utils.data import (DataLoader, RandomSampler, SubsetRandomSampler, TensorDataset,
                                WeightedRandomSampler, random_split)


def test_torch_submodule_paths_import():
    from jitgrad.utils.data.dataloader import DataLoader as D, default_collate
    from jitgrad.utils.data.dataset import Dataset, TensorDataset as T
    from jitgrad.utils.data.sampler import BatchSampler, Sampler
    assert D is DataLoader and T is TensorDataset
    assert all(callable(x) for x in (default_collate, Dataset, BatchSampler, Sampler))


def test_random_sampler_with_replacement_is_lazy_for_a_huge_count():
    ds = TensorDataset(jg.arange(10.0))
    sampler = RandomSampler(ds, replacement=True, num_samples=int(1e10))   # makemore's loader
    loader = DataLoader(ds, sampler=sampler, batch_size=4)
    batches = list(itertools.islice(iter(loader), 3))
    assert [tuple(b[0].shape) for b in batches] == [(4,)] * 3
    assert len(sampler) == int(1e10)


def test_random_sampler_rejects_a_non_positive_count():
    with pytest.raises(ValueError, match="num_samples should be a positive integer"):
        RandomSampler(TensorDataset(jg.arange(0.0)))


def test_generator_makes_shuffles_and_splits_reproducible():
    ds = TensorDataset(jg.arange(20))

    def order(seed):
        g = jg.Generator().manual_seed(seed)
        return [b[0].tolist() for b in DataLoader(ds, batch_size=5, shuffle=True, generator=g)]
    assert order(3) == order(3) and order(3) != order(4)
    assert sorted(sum(order(3), [])) == list(range(20))
    a = random_split(ds, [0.75, 0.25], generator=jg.Generator().manual_seed(1))
    b = random_split(ds, [15, 5], generator=jg.Generator().manual_seed(1))
    assert a[0].indices == b[0].indices and len(a[1]) == 5


def test_generator_does_not_advance_the_default_stream():
    jg.manual_seed(0)
    want = jg.rand(3).tolist()
    jg.manual_seed(0)
    list(RandomSampler(range(50), generator=jg.Generator().manual_seed(9)))
    assert jg.rand(3).tolist() == want


def test_weighted_and_subset_samplers():
    draws = list(WeightedRandomSampler([0.0, 1.0, 0.0, 3.0], 400,
                                       generator=jg.Generator().manual_seed(0)))
    assert set(draws) == {1, 3} and 250 < draws.count(3) < 350
    assert sorted(WeightedRandomSampler([1, 1, 1], 3, replacement=False)) == [0, 1, 2]
    with pytest.raises(ValueError, match="without replacement from 2 non-zero weights"):
        list(WeightedRandomSampler([1, 0, 1], 3, replacement=False))
    with pytest.raises(ValueError, match="non-negative"):
        list(WeightedRandomSampler([1, -1], 2))
    assert sorted(SubsetRandomSampler([7, 3, 5])) == [3, 5, 7]
    assert np.asarray(list(DataLoader(TensorDataset(jg.arange(10)), batch_size=3,
                                      sampler=SubsetRandomSampler([1, 2, 3])))[0][0]).size == 3
