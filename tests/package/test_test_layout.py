"""tests/ mirrors the source folders (tests/README.md): no test file lies at the top, every
folder is a source folder's name (jitgrad/<x>, ir, codegen, runtime and their subfolders) or
one of the shared folders, and oracles and helpers live in tests/support/, not beside tests."""
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"
SHARED = {"support", "consistency", "package", "programs", "cuda_sim"}
GOLDEN = {"golden", "verifier", "own_programs"}


def _source_folders():
    folders = set()
    for top in ("jitgrad", "ir", "codegen", "runtime"):
        for path in (ROOT / top).rglob("*.py"):
            rel = path.parent.relative_to(ROOT / top if top == "jitgrad" else ROOT)
            folders.add(rel.as_posix())
    return folders


def _folders():
    for path in TESTS.rglob("*"):
        rel = path.relative_to(TESTS)
        if path.is_dir() and "__pycache__" not in rel.parts and not GOLDEN & set(rel.parts):
            yield rel.as_posix()


def test_no_test_file_at_the_top():
    assert sorted(p.name for p in TESTS.glob("*.py")) == ["conftest.py"]


def test_every_folder_mirrors_a_source_folder():
    sources = _source_folders()
    stray = [f for f in _folders() if f.split("/")[0] not in SHARED and f not in sources]
    assert not stray, f"test folders with no source folder of that name: {stray}"


def test_helpers_live_in_support():
    helpers = [p.relative_to(TESTS).as_posix() for p in TESTS.rglob("*.py")
               if not p.name.startswith(("test_", "conftest", "__init__"))
               and "support" not in p.relative_to(TESTS).parts
               and not GOLDEN & set(p.relative_to(TESTS).parts) and p.parent.name != "cuda_sim"]
    assert not helpers, f"helpers outside tests/support: {helpers}"


def test_test_file_names_are_unique():
    names = [p.name for p in TESTS.rglob("test_*.py") if "__pycache__" not in p.parts]
    assert len(names) == len(set(names)), "pytest imports test files by their basename"
