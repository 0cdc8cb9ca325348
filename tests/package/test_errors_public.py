"""Every exception jitgrad raises on purpose is importable from jitgrad.errors (jax.errors'
place), and the ones users catch most also at the top level (jg.ShapeError, ...)."""
import ast
import builtins
import importlib
import pathlib

import pytest

import jitgrad as jg
import jitgrad.errors as errors

ROOT = pathlib.Path(__file__).resolve().parents[2]
# the directories jitgrad is made of -> the package name they are imported under
PACKAGES = {"jitgrad": "jitgrad", "ir": "jitgrad.ir", "runtime": "jitgrad.runtime",
            "codegen": "jitgrad.codegen"}
BUILTIN = {n for n, v in vars(builtins).items()
           if isinstance(v, type) and issubclass(v, BaseException)}


def _base_names(node):
    return {b.id if isinstance(b, ast.Name) else b.attr for b in node.bases
            if isinstance(b, (ast.Name, ast.Attribute))}


def defined_exceptions():
    """(module, class name) of every exception class defined in jitgrad's sources, found by
    reading them (importing every module would load numba, LLVM, MPI)."""
    classes = []
    for directory, package in PACKAGES.items():
        for path in sorted((ROOT / directory).rglob("*.py")):
            parts = path.relative_to(ROOT / directory).with_suffix("").parts
            module = ".".join((package, *parts)).removesuffix(".__init__")
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.ClassDef):
                    classes.append((module, node.name, _base_names(node)))
    known, found, grew = set(BUILTIN), [], True
    while grew:             # subclasses of exceptions defined here are exceptions too
        grew = False
        for module, name, bases in classes:
            if (module, name) not in found and bases & known:
                found.append((module, name))
                known.add(name)
                grew = True
    return found


EXCEPTIONS = defined_exceptions()


def test_the_walk_finds_the_known_exceptions():
    names = {name for _, name in EXCEPTIONS}
    assert {"ShapeError", "ArtifactError", "DeviceMismatchError", "ConcretizationError",
            "NativeToolMissing", "CacheWarning"} <= names


@pytest.mark.parametrize("module,name", EXCEPTIONS, ids=[n for _, n in EXCEPTIONS])
def test_every_exception_is_reachable_from_jitgrad_errors(module, name):
    cls = getattr(importlib.import_module(module), name)
    assert issubclass(cls, BaseException)
    assert name in errors.__all__ and name in dir(errors)
    assert getattr(errors, name) is cls


@pytest.mark.parametrize("name", ["ConcretizationError", "ShapeError", "DeviceMismatchError",
                                  "ArtifactError", "UnexpectedTracerError"])
def test_key_exceptions_at_the_top_level(name):
    assert getattr(jg, name) is getattr(errors, name)


def test_an_artifact_that_fails_to_load_raises_the_public_class(tmp_path):
    bad = tmp_path / "bad.jgz"
    bad.write_bytes(b"not a zip")
    with pytest.raises(jg.ArtifactError, match="truncated or not a zip"):
        jg.load(bad)


def test_shape_errors_are_caught_as_the_public_class():
    import jitgrad.numpy as jnp
    with pytest.raises(jg.ShapeError):
        jg.jit(lambda a, b: a + b)(jnp.ones(3), jnp.ones(4))


def test_jax_spelling_and_unknown_names():
    assert errors.ConcretizationTypeError is jg.ConcretizationError
    with pytest.raises(AttributeError, match="module 'jitgrad.errors' has no attribute 'Nope'"):
        errors.Nope  # noqa: B018
