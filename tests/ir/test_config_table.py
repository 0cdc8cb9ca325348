"""One configuration: ir/config.py is the only option store, jg.config its view, and the docs'
table (docs/reference/configuration.md, "Configuration, debug flags and environment variables")
lists every option of the store, generated from it."""
import re
from pathlib import Path

import pytest

import jitgrad as jg
from jitgrad.ir import config

REPO = Path(__file__).resolve().parents[2]
TITLE = "# Configuration, debug flags and environment variables"
PAGE = REPO / "docs" / "reference" / "configuration.md"


def _section() -> str:
    text = PAGE.read_text()
    assert text.startswith(TITLE + "\n"), f"{PAGE} does not start with {TITLE!r}"
    return text.split(TITLE + "\n", 1)[1]


def test_the_readme_table_is_the_one_generated_from_the_store():
    assert config.table() in _section(), (
        "docs/reference/configuration.md's table is not the one ir/config.table() generates; paste:\n"
        + config.table())


def test_the_table_lists_every_option_and_its_variable():
    rows = [line for line in _section().split("\n") if line.startswith("| `")]
    listed = {re.match(r"\| `(\w+)`", row).group(1) for row in rows}
    assert listed == set(config.OPTIONS)
    for o in config.OPTIONS.values():
        row = next(r for r in rows if r.startswith(f"| `{o.name}`"))
        assert (o.env or "(none)") in row and o.reader in row


def test_the_docs_link_the_page():
    assert "reference/configuration.md" in (REPO / "mkdocs.yml").read_text()
    assert "docs/reference/configuration.md" in (REPO / "README.md").read_text()


def test_every_jitgrad_variable_the_package_names_is_an_option():
    """A JITGRAD_* variable named anywhere in the package is one of the store's (no module reads
    its own variable past the store)."""
    known = {o.env for o in config.OPTIONS.values() if o.env}
    found = {}
    for folder in ("ir", "codegen", "runtime", "jitgrad"):
        for path in (REPO / folder).rglob("*.py"):
            for name in re.findall(r"\bJITGRAD_[A-Z0-9_]*[A-Z0-9]\b", path.read_text()):
                found.setdefault(name, path.relative_to(REPO).as_posix())
    unknown = {name: where for name, where in found.items() if name not in known}
    assert not unknown, f"variables outside ir/config.OPTIONS: {unknown}"


def test_one_store_no_other_config_module():
    assert not (REPO / "runtime" / "config.py").exists()
    assert not (REPO / "ir" / "debug_flags.py").exists()


@pytest.fixture
def restore():
    saved = config.chosen()
    yield
    config.restore(saved)


def test_update_beats_the_environment_which_beats_the_default(monkeypatch, restore):
    monkeypatch.delenv("JITGRAD_DEBUG", raising=False)
    assert jg.config.debug == 0 == config.debug_level()
    monkeypatch.setenv("JITGRAD_DEBUG", "3")            # read when the option is read
    assert jg.config.read("debug") == 3
    jg.config.update("debug", 1)
    assert jg.config.debug == 1 == config.debug_level()
    jg.config.reset("debug")
    assert jg.config.debug == 3


def test_every_option_reads_and_checks_what_update_gets(restore):
    for name in config.names():
        jg.config.read(name)                            # every option (and alias) reads
    jg.config.update("disable", "fuse, cse")
    assert config.disabled_passes() == {"fuse", "cse"}
    with pytest.raises(ValueError, match=r"jg.config.update\('backend', ...\) expects one of "
                                         r"'compiled', 'interpreter', got 'cuda'"):
        jg.config.update("backend", "cuda")
    with pytest.raises(TypeError, match="expects True or False, got int 1"):
        jg.config.update("verify", 1)
    with pytest.raises(AttributeError, match="no option 'debug_level'; known options: "
                                             "enable_x64, jax_enable_x64, default_dtype"):
        jg.config.update("debug_level", 1)


def test_the_front_end_and_the_store_agree(restore):
    jg.config.update("jax_enable_x64", True)
    assert config.read("enable_x64") is True and jg.get_default_dtype() == jg.float64
    jg.set_default_dtype(jg.float32)                    # PyTorch's switch wins when set
    assert jg.config.default_dtype == jg.float32 == jg.get_default_dtype()


def test_float32_matmul_precision_is_pytorchs_setter(monkeypatch):
    assert jg.get_float32_matmul_precision() == "highest"
    jg.set_float32_matmul_precision("high")
    try:
        assert jg.config.read("float32_matmul_precision") == "high"
        with pytest.raises(ValueError, match=r"set_float32_matmul_precision expects one of "
                                             r"'highest', 'high', 'medium', got 'fast'"):
            jg.set_float32_matmul_precision("fast")
        assert jg.get_float32_matmul_precision() == "high"
    finally:
        jg.config.reset("float32_matmul_precision")
    monkeypatch.setenv("JITGRAD_FLOAT32_MATMUL_PRECISION", "medium")
    assert jg.get_float32_matmul_precision() == "medium"
    monkeypatch.setenv("JITGRAD_FLOAT32_MATMUL_PRECISION", "bogus")     # unknown text: default
    assert jg.get_float32_matmul_precision() == "highest"
