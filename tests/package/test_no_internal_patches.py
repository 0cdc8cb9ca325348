"""Tests reach a code path through a public seam (a jg.config option or its JITGRAD_* variable,
a parameter, the profiler, the debug log), not by patching a module's internals (issue 51, item
4): a `monkeypatch.setattr` / `mock.patch` of a private name, of a name a module only imports, or
of a local object fails here unless ALLOWED names it with the reason it stays
(tests/support/patch_sites.py finds them). Patching a public name (a probe of the machine, a
fault injected, a call counter) is allowed; the test says why in a comment."""
import functools
from pathlib import Path

from tests.support.patch_sites import sites

ROOT = Path(__file__).resolve().parents[2]

# (test file, patched target) -> why no public seam replaces the patch
ALLOWED = {
    ("tests/codegen/cpu/test_unit_keys.py", "jitgrad.codegen.cpu.backend.unit_key"):
        "counts the calls codegen/cpu/backend.py makes through its own import of units.unit_key "
        "(backend.py belongs to the waves work; calling units.unit_key there would let the test "
        "patch the public name alone)",
    ("tests/codegen/cpu/test_unit_keys.py", "jitgrad.codegen.cpu.backend.kernel_unit"):
        "the same, for units.kernel_unit",
    ("tests/eager/test_eager_fast.py", "jitgrad.eager.dispatch.infer_types"):
        "counts the type-rule runs of the eager path through dispatch.py's import of "
        "ir.registry.infer_types (jitgrad/eager belongs to the eager work; no counter exists)",
}
# test files of the CUDA work, left as they are while its seams land (their patches: the
# benchmark's stand-ins for the device, peers and jitgrad's own workload, the nvJitLink version
# probe, the device's SM count, an op's CUDA coverage)
CUDA_WORK = ("tests/codegen/cuda/", "tests/cuda_sim/", "tests/programs/test_cuda_bench.py")


@functools.lru_cache(maxsize=None)
def _internal():
    found = []
    for path in sorted((ROOT / "tests").rglob("test_*.py")):
        found += [s for s in sites(path, ROOT) if s.internal]
    return tuple(found)


def test_no_test_patches_an_internal_name():
    new = [f"{s.file}:{s.line} patches {s.target}: {s.internal}" for s in _internal()
           if (s.file, s.target) not in ALLOWED and not s.file.startswith(CUDA_WORK)]
    assert not new, ("tests patch internals; use a public seam (a jg.config option, a parameter, "
                     "jg.profiler, the JITGRAD_DEBUG log) or add one, else allow it in "
                     "tests/package/test_no_internal_patches.py with the reason:\n"
                     + "\n".join(new))


def test_every_allowed_patch_is_still_there():
    found = {(s.file, s.target) for s in _internal()}
    stale = [key for key in ALLOWED if key not in found]
    assert not stale, f"no longer patched: drop them from ALLOWED: {stale}"
    assert all((ROOT / p).exists() for p in CUDA_WORK)


SAMPLE = '''
import jitgrad as jg
from unittest import mock
from jitgrad.codegen.cpu import units, backend
from jitgrad.runtime.sequencer import Program


def test_sample(monkeypatch):
    monkeypatch.setattr(units, "unit_key", None)
    monkeypatch.setattr(units, "_UNITS", {})
    monkeypatch.setattr(backend, "kernel_unit", None)
    monkeypatch.setattr(Program, "call", None)
    monkeypatch.setattr(Program, "no_such_method", None)
    monkeypatch.setattr("jitgrad.cli.demo.main", None)
    with monkeypatch.context() as m:
        m.setattr(jg.config, "update", None)
    thing = object()
    monkeypatch.setattr(thing, "a", 1)
    monkeypatch.delattr(units, "_NAMES")
    mock.patch.object(units, "forget")
    mock.patch("jitgrad.codegen.cpu.units._lock")
    monkeypatch.setenv("JITGRAD_DEBUG", "1")
    monkeypatch.setitem({}, "k", 1)
'''


def test_the_finder_reads_every_spelling(tmp_path):
    (tmp_path / "test_sample.py").write_text(SAMPLE)
    found = [(s.line, s.target, s.internal) for s in sites(tmp_path / "test_sample.py", tmp_path)]
    units, program = "jitgrad.codegen.cpu.units", "jitgrad.runtime.sequencer.Program"
    assert found == [
        (9, f"{units}.unit_key", ""),
        (10, f"{units}._UNITS", "a private name"),
        (11, "jitgrad.codegen.cpu.backend.kernel_unit",
         "a name jitgrad.codegen.cpu.backend imports, not one it defines"),
        (12, f"{program}.call", ""),
        (13, f"{program}.no_such_method", f"not defined by the class {program}"),
        (14, "jitgrad.cli.demo.main", ""),
        (16, "jitgrad.config.update", ""),
        (18, "thing.a", "an object the test's imports do not name (a local or a fixture)"),
        (19, f"{units}._NAMES", "a private name"),
        (20, f"{units}.forget", ""),
        (21, f"{units}._lock", "a private name")]
