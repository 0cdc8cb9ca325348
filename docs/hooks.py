"""mkdocs hook: a reference page's `::: jitgrad.x` directive gets the namespace's public names as
its `members` list. Griffe reads the source statically, but jitgrad's namespaces re-export their
functions from submodules (and load some lazily), which it does not count as public without an
`__all__`; the names are read from the package itself (`dir()` of the module, functions and
classes defined in jitgrad's own front-end modules)."""
import importlib
import inspect
import re

_DIRECTIVE = re.compile(r"^::: (jitgrad(?:\.\w+)*)\s*$", re.M)
_SKIP_PREFIXES = ("jitgrad.ir", "jitgrad.codegen", "jitgrad.runtime")


def public_names(modname):
    mod = importlib.import_module(modname)
    names = []
    for name in sorted(dir(mod)):
        if name.startswith("_"):
            continue
        try:
            obj = getattr(mod, name)
        except Exception:           # a lazy name whose optional dependency is missing
            continue
        if not (inspect.isfunction(obj) or inspect.isclass(obj)):
            continue
        owner = getattr(obj, "__module__", "") or ""
        if owner.startswith("jitgrad.") and not owner.startswith(_SKIP_PREFIXES):
            names.append(name)
    return names


def on_page_markdown(markdown, page, config, files):
    def expand(m):
        members = public_names(m.group(1))
        listed = "\n".join(f"        - {n}" for n in members)
        return f"::: {m.group(1)}\n    options:\n      members:\n{listed}\n"
    return _DIRECTIVE.sub(expand, markdown)


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
