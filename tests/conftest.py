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


# Test files about code generation, compiled artifacts and end-to-end runs compile with numba;
# the rest check semantics (ops, tracing, autodiff, passes, nn) and run jitted graphs, optimized
# by the same pass pipeline, on the reference interpreter: numba compile time would otherwise
# dominate the suite. Mark a test `@pytest.mark.codegen` to compile it anyway.
_COMPILING = ("test_codegen", "test_demo", "test_aot", "test_bench", "test_native", "test_cli",
              "test_cuda", "test_mathlib")


def pytest_configure(config):
    config.addinivalue_line("markers", "codegen: compile jitted functions with numba even in a "
                                       "semantics test file")
    config.addinivalue_line("markers", "slow: long runs (thousands of fuzzed programs); only "
                                       "with -m slow")


def pytest_collection_modifyitems(config, items):
    if "slow" in (config.getoption("-m") or ""):
        return
    slow = [item for item in items if item.get_closest_marker("slow")]
    if slow:
        config.hook.pytest_deselected(items=slow)
        items[:] = [item for item in items if not item.get_closest_marker("slow")]


@pytest.fixture(autouse=True)
def _backend_for_test(request, monkeypatch):
    module = request.node.module.__name__.rsplit(".", 1)[-1]
    if not module.startswith(_COMPILING) and request.node.get_closest_marker("codegen") is None:
        monkeypatch.setenv("JITGRAD_BACKEND", "interpreter")
    yield


@pytest.fixture
def rng():
    import numpy as np
    return np.random.default_rng(0)
