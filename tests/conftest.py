"""Test-wide settings: an isolated kernel cache per session and a fast hypothesis profile."""
import os
import tempfile

import pytest

# Kernel source and numba's cache go to a fresh directory, not the user's cache.
os.environ.setdefault("JITGRAD_CACHE_DIR", tempfile.mkdtemp(prefix="jitgrad-test-cache-"))
os.environ.setdefault("JITGRAD_VERIFY", "1")

try:
    from hypothesis import HealthCheck, settings
    settings.register_profile("ci", max_examples=40, deadline=None,
                              suppress_health_check=[HealthCheck.too_slow])
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
except ImportError:  # hypothesis is in the test extra; tests that need it import it themselves
    pass


@pytest.fixture
def rng():
    import numpy as np
    return np.random.default_rng(0)
