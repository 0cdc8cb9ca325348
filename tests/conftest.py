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


# Jitted functions compile to kernels in every test, as they do for users (LLVM units compile in
# milliseconds). A test marked `@pytest.mark.interpreter` runs its jitted graphs, optimized by the
# same pass pipeline, on the reference interpreter instead: for the few that check the
# interpreter itself or would compile hundreds of numba-only kernels.
def pytest_configure(config):
    if not hasattr(config, "workerinput"):     # the xdist controller, or the only process
        from tests.support import early_children
        early_children.share_dir()
    config.addinivalue_line("markers", "interpreter: run jitted graphs on the reference "
                                       "interpreter (JITGRAD_BACKEND=interpreter)")
    config.addinivalue_line("markers", "slow: long runs (thousands of fuzzed programs); only "
                                       "with -m slow")


def pytest_unconfigure(config):
    if not hasattr(config, "workerinput"):
        from tests.support import early_children
        early_children.remove_shared_dir()


@pytest.hookimpl(trylast=True)     # after -k/-m deselection: no child for a test not run
def pytest_collection_modifyitems(config, items):
    if "slow" not in (config.getoption("-m") or ""):
        slow = [item for item in items if item.get_closest_marker("slow")]
        if slow:
            config.hook.pytest_deselected(items=slow)
            items[:] = [item for item in items if not item.get_closest_marker("slow")]
    if not config.option.collectonly:     # a collection alone starts no child
        _start_simulator_children(items)


def _start_simulator_children(items):
    """Child processes of the selected tests (the CUDA simulator's: minutes) start now, so they
    run beside the rest of the suite instead of after it (tests/support/early_children.py); the tests
    that wait for them run last, so that the suite's own tests overlap the children's whole
    run (in alphabetical order the suite waited 145 s for the simulator halfway through)."""
    from tests.support import early_children
    waiting = []
    for item in items:
        module = getattr(item, "module", None)
        if item.name in getattr(module, "CHILDREN", {}):
            waiting.append(item)
            if early_children.is_starter() and \
                    not any(m.args and m.args[0] for m in item.iter_markers("skipif")):
                early_children.start(module, item.name)
    if waiting:
        items[:] = [item for item in items if item not in waiting] + waiting


@pytest.fixture(autouse=True)
def _backend_for_test(request, monkeypatch):
    if request.node.get_closest_marker("interpreter") is not None:
        monkeypatch.setenv("JITGRAD_BACKEND", "interpreter")
    yield


@pytest.fixture
def rng():
    import numpy as np
    return np.random.default_rng(0)


@pytest.fixture
def x64():
    """64-bit defaults (jg.config's enable_x64) for one test, forgotten afterwards: reset, not
    set back, because an option that is set (even to its default) wins over the environment."""
    import jitgrad as jg
    jg.config.update("enable_x64", True)
    yield
    jg.config.reset("enable_x64")
