"""Random generators behind PyTorch-style random creation (jg.randn, jg.rand, jg.randint,
jg.randperm, x.normal_(), ...), nn.init, eager dropout and jitgrad.utils.data's samplers:
torch.Generator, torch.default_generator, torch.manual_seed / initial_seed / seed.

Every such function takes `generator=` as torch's do: a `jg.Generator` draws from its own
stream, None from the default generator that `jg.manual_seed` seeds. The numbers differ from
PyTorch's (the streams are NumPy's PCG64), the reproducibility rules are the same."""
from __future__ import annotations

import numpy as np

DEFAULT_SEED = 0    # a generator's seed before any manual_seed (torch's is 67280421310721)


class Generator:
    """torch.Generator: a random stream of its own, passed as `generator=`.

    >>> g = Generator().manual_seed(42)
    >>> g.initial_seed()
    42
    """

    def __init__(self, device="cpu"):
        self.device = device
        self.manual_seed(DEFAULT_SEED)

    def manual_seed(self, seed) -> "Generator":
        """Restart the stream from `seed`; returns the generator (as torch's)."""
        self._seed = int(seed)
        self.rng = np.random.default_rng(self._seed)
        return self

    def initial_seed(self) -> int:
        """The seed the stream was last started from."""
        return self._seed

    def seed(self) -> int:
        """Restart from a seed drawn from the OS's entropy; returns that seed."""
        fresh = int(np.random.SeedSequence().entropy % 2 ** 63)
        self.manual_seed(fresh)
        return fresh

    def get_state(self) -> dict:
        """The stream's state (a NumPy bit-generator state dict; torch's is a byte tensor),
        for set_state."""
        return self.rng.bit_generator.state

    def set_state(self, state) -> "Generator":
        """Continue the stream from a state get_state returned."""
        self.rng.bit_generator.state = state
        return self

    def __repr__(self):
        return f"<jitgrad.Generator device={self.device!r} seed={self._seed}>"


default_generator = Generator()


def rng_of(generator=None) -> np.random.Generator:
    """The NumPy stream a `generator=` argument names: its own, or the default generator's."""
    if generator is None:
        return default_generator.rng
    if isinstance(generator, Generator):
        return generator.rng
    raise TypeError(f"generator: expected a jitgrad.Generator or None, got "
                    f"{type(generator).__module__}.{type(generator).__name__}")


def global_rng() -> np.random.Generator:
    """The default generator's stream: what jg.manual_seed seeds."""
    return default_generator.rng


def manual_seed(seed: int) -> Generator:
    """Seed the default generator (as torch.manual_seed); returns it."""
    return default_generator.manual_seed(seed)


def initial_seed() -> int:
    """torch.initial_seed: the seed the default generator was last seeded with."""
    return default_generator.initial_seed()


def seed() -> int:
    """torch.seed: seed the default generator from the OS's entropy; returns the seed."""
    return default_generator.seed()
