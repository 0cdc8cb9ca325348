"""mkdocs hooks, and the one definition of jitgrad's public names (tests/package/test_docstrings.py
imports it: what the reference renders is what the test checks).

- A reference page's `::: jitgrad.x` directive gets the namespace's public names as its
  `members` list. Griffe reads the source statically, but jitgrad's namespaces re-export their
  functions from submodules (and load some lazily), which it does not count as public without an
  `__all__`; the names are read from the package itself (`public_names`).
- Regions between `<!-- begin generated: NAME -->` and `<!-- end generated: NAME -->` are
  rendered from the code (`GENERATORS`: the naming table from jitgrad/torch_api/naming.py, the
  CLI reference from jitgrad's argparse parsers) at build time; `python docs/hooks.py` rewrites
  them in the Markdown sources, and tests/package/test_docstrings.py fails when a source is stale."""
import contextlib
import importlib
import inspect
import io
import os
import pathlib
import re

_DIRECTIVE = re.compile(r"^::: (jitgrad(?:\.\w+)*)\s*$", re.M)
_SKIP_PREFIXES = ("jitgrad.ir", "jitgrad.codegen", "jitgrad.runtime")

# namespace -> its reference page (docs/reference/); every namespace here is rendered there
NAMESPACES = {
    "jitgrad": "jitgrad.md",
    "jitgrad.numpy": "numpy.md",
    "jitgrad.numpy.linalg": "numpy.md",
    "jitgrad.numpy.fft": "numpy.md",
    "jitgrad.nn": "nn.md",
    "jitgrad.nn.init": "nn.md",
    "jitgrad.nn.utils": "nn.md",
    "jitgrad.nn.functional": "functional.md",
    "jitgrad.optim": "optim.md",
    "jitgrad.optim.lr_scheduler": "optim.md",
    "jitgrad.autograd": "autograd-utils.md",
    "jitgrad.linalg": "autograd-utils.md",
    "jitgrad.autograd.functional": "autograd-utils.md",
    "jitgrad.utils.data": "autograd-utils.md",
    "jitgrad.utils.tensorboard": "autograd-utils.md",
    "jitgrad.lax": "lax.md",
    "jitgrad.random": "random.md",
    "jitgrad.scipy.special": "scipy.md",
    "jitgrad.scipy.linalg": "scipy.md",
    "jitgrad.scipy.stats": "scipy.md",
    "jitgrad.example_libraries.optimizers": "example-libraries.md",
    "jitgrad.example_libraries.stax": "example-libraries.md",
    "jitgrad.tree_util": "tree-util.md",
    "jitgrad.profiler": "profiler.md",
    "jitgrad.errors": "errors.md",
}

# public names defined in the layers below the front end (skipped by _SKIP_PREFIXES otherwise)
REEXPORTED = {"jitgrad": {"Device", "device", "ShapeError"}}

# functions a namespace imports for its own use, not part of its API (name -> why)
HELPERS = {
    "jitgrad.numpy.linalg": dict.fromkeys(
        ("apply", "asarray", "device_of", "host_array", "normalize_axes", "normalize_axis",
         "operands", "Op", "kind_of", "namedtuple"),
        "an import of the implementation (jitgrad.numpy's converters, dispatch, IR types)"),
    "jitgrad.numpy.fft": dict.fromkeys(
        ("apply", "asarray", "default_float", "normalize_axes", "normalize_axis",
         "user_source_info", "Op", "kind_of", "canonical_dtype", "complex_dtype"),
        "an import of the implementation"),
    "jitgrad.nn.functional": {"METHODS": "the names of the Tensor methods it registers"},
    "jitgrad.example_libraries.optimizers": dict.fromkeys(
        ("register_pytree_node", "tree_flatten", "tree_map", "tree_unflatten", "namedtuple"),
        "jitgrad.tree_util's, imported for the module's own use (as jax's optimizers does)"),
}


def _is_api_object(obj):
    return inspect.isfunction(obj) or inspect.isclass(obj)


def public_names(modname):
    """The namespace's public functions and classes, sorted: its `__all__` when it has one, else
    every attribute without a leading underscore that is a function or class defined in jitgrad's
    front end (not jitgrad.ir / codegen / runtime, unless REEXPORTED), less HELPERS."""
    mod = importlib.import_module(modname)
    explicit = getattr(mod, "__all__", None)
    helpers = HELPERS.get(modname, {})
    names = []
    for name in sorted(explicit if explicit is not None else dir(mod)):
        if name.startswith("_") or name in helpers:
            continue
        try:
            obj = getattr(mod, name)
        except Exception:           # a lazy name whose optional dependency is missing
            continue
        if not _is_api_object(obj):
            continue
        owner = getattr(obj, "__module__", "") or ""
        if not owner.startswith("jitgrad."):
            continue
        if (explicit is None and owner.startswith(_SKIP_PREFIXES)
                and name not in REEXPORTED.get(modname, ())):
            continue
        names.append(name)
    return names


def public_attributes(modname):
    """Every attribute a user can reach as `modname.x` without a leading underscore (`__all__`
    when the namespace has one): the set tests/package/test_docstrings.py accounts for, name by name."""
    mod = importlib.import_module(modname)
    explicit = getattr(mod, "__all__", None)
    return sorted(n for n in (explicit if explicit is not None else dir(mod))
                  if not n.startswith("_"))


# ----------------------------------------------------------------------- generated regions

def naming_table():
    """The table of names PyTorch and NumPy both use (jitgrad/torch_api/naming.py), as Markdown;
    rows with the same three meanings are merged."""
    from jitgrad.torch_api.naming import SHARED_NAMES
    rows = {}
    for name, meanings in SHARED_NAMES.items():
        rows.setdefault(meanings, []).append(name)

    def cell(text):
        return text.replace("|", "\\|")
    lines = ["| name | PyTorch | NumPy | how jitgrad reads a method call |", "|---|---|---|---|"]
    for meanings, names in rows.items():
        lines.append("| " + ", ".join(f"`{n}`" for n in names) + " | "
                     + " | ".join(cell(m) for m in meanings) + " |")
    return "\n".join(lines)


def _help(parser_or_fn):
    os.environ["COLUMNS"] = "100"       # argparse wraps at the terminal's width
    if callable(parser_or_fn) and not hasattr(parser_or_fn, "format_help"):
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):
            parser_or_fn()
        return out.getvalue().rstrip()
    return parser_or_fn.format_help().rstrip()


def cli_reference():
    """`jitgrad --help` and each subcommand's `--help`, read from the parsers (jitgrad/cli/main.py
    build_parser, benchmarks/cli.py parse for `jitgrad bench`)."""
    import argparse
    from jitgrad.cli.main import build_parser
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    parts = ["### `jitgrad`", "", "```text", _help(parser), "```"]
    for name, sp in sub.choices.items():
        if name == "bench":             # the benchmark harness owns its arguments and --help
            from benchmarks.cli import parse
            text = _help(lambda: parse(["--help"], "jitgrad bench"))
        else:
            text = _help(sp)
        parts += ["", f"### `jitgrad {name}`", "", "```text", text, "```"]
    return "\n".join(parts)


GENERATORS = {"naming-table": naming_table, "cli": cli_reference}
_REGION = re.compile(r"(<!-- begin generated: ([\w-]+) -->\n)(.*?)(<!-- end generated: \2 -->)",
                     re.S)


def render_generated(markdown):
    """The Markdown with each generated region rendered anew."""
    return _REGION.sub(lambda m: m.group(1) + GENERATORS[m.group(2)]() + "\n" + m.group(4),
                       markdown)


# ----------------------------------------------------------------------- mkdocs hooks

def on_page_markdown(markdown, page, config, files):
    def expand(m):
        members = public_names(m.group(1))
        listed = "\n".join(f"        - {n}" for n in members)
        return f"::: {m.group(1)}\n    options:\n      members:\n{listed}\n"
    return _DIRECTIVE.sub(expand, render_generated(markdown))


class _PlainTextDocstrings:
    """jitgrad's docstrings are plain text, not Markdown: `choices[a[i]][i]` is an expression, not
    a cross-reference. Drop autorefs' "could not find cross-reference target" warnings for
    reference pages rendered from docstrings (the guide's own links stay checked: strict mode,
    `validation` in mkdocs.yml)."""

    def filter(self, record):
        msg = record.getMessage()
        return not ("Could not find cross-reference target" in msg and "reference/" in msg)


def on_config(config):
    import logging
    for name in list(logging.root.manager.loggerDict):
        if "autorefs" in name:
            logging.getLogger(name).addFilter(_PlainTextDocstrings())
    return config


if __name__ == "__main__":      # rewrite the generated regions of the Markdown sources
    import sys
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
    for path in sorted(pathlib.Path(__file__).resolve().parent.rglob("*.md")):
        text = path.read_text()
        new = render_generated(text)
        if new != text:
            path.write_text(new)
            print(f"rewrote {path}")
