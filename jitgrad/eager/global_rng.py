"""The global NumPy generator behind PyTorch-style random creation (jg.randn, jg.rand,
jg.randint), nn.init and eager dropout: torch.manual_seed / initial_seed / seed."""
from __future__ import annotations

import numpy as np

_GEN = {"rng": np.random.default_rng(0), "seed": 0}


def manual_seed(seed: int):
    """Seed the global generator behind jg.randn / jg.rand / jg.randint (as torch.manual_seed)."""
    _GEN["rng"], _GEN["seed"] = np.random.default_rng(int(seed)), int(seed)


def initial_seed() -> int:
    """torch.initial_seed: the seed the global generator was last seeded with."""
    return _GEN["seed"]


def seed() -> int:
    """torch.seed: seed the global generator from the OS's entropy; returns the seed."""
    fresh = int(np.random.SeedSequence().entropy % 2 ** 63)
    manual_seed(fresh)
    return fresh


def global_rng() -> np.random.Generator:
    """The global generator jg.manual_seed seeds: jg.randn's, nn.init's and eager dropout's."""
    return _GEN["rng"]
