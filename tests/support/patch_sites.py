"""Where tests patch attributes (`monkeypatch.setattr` / `delattr`, `m.setattr` in a
`monkeypatch.context()`, `mock.patch("a.b.c")`, `mock.patch.object(owner, "name")`), and whether
the attribute patched belongs to its owner's public surface (read by
tests/package/test_no_internal_patches.py).

An owner is resolved from the test file's own imports (a module, or a class of one); its public
surface is what its source defines at the top (def, class, assignment) or lists in `__all__`,
without a leading underscore (dunders count as public). A patch is *internal* when the name is
private, when the owner only imports it (patching a module's copy of another module's name), or
when the owner is not a module or class the imports name (a local object)."""
from __future__ import annotations

import ast
import importlib.util
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

PATCH_METHODS = ("setattr", "delattr")
CALLED = re.compile(r"\.(setattr|delattr)\(|\bpatch(\.object)?\(")     # a file worth parsing


@dataclass(frozen=True)
class Site:
    file: str           # relative to the repository, posix
    line: int
    target: str         # "owner.name": the owner's dotted path, or its source text if unresolved
    internal: str       # why the patch reaches past the public surface; "" when it does not


def _aliases(tree) -> dict:
    """Name bound by an import anywhere in the file -> the dotted path it names."""
    names = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                top = a.name.split(".")[0]
                names[a.asname or top] = a.name if a.asname else top
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for a in node.names:
                names[a.asname or a.name] = f"{node.module}.{a.name}"
    return names


def _dotted(expr, aliases):
    """The dotted path an expression names through the imports, or None (a local object)."""
    if isinstance(expr, ast.Name):
        return aliases.get(expr.id)
    if isinstance(expr, ast.Attribute):
        base = _dotted(expr.value, aliases)
        return f"{base}.{expr.attr}" if base else None
    return None


def _is_module(dotted: str) -> bool:
    try:
        return importlib.util.find_spec(dotted) is not None
    except (ImportError, ValueError, AttributeError):
        return False


@lru_cache(maxsize=None)
def _module_tree(dotted: str):
    spec = importlib.util.find_spec(dotted)
    if spec is None or not spec.origin or not spec.origin.endswith(".py"):
        return None
    return ast.parse(Path(spec.origin).read_text())


def _defined(body) -> set:
    """Names a module or class body defines at its top (inside if / try blocks too)."""
    names = set()
    for st in body:
        if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(st.name)
        elif isinstance(st, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            for t in (st.targets if isinstance(st, ast.Assign) else [st.target]):
                names.update(n.id for n in ast.walk(t) if isinstance(n, ast.Name))
        elif isinstance(st, ast.If):
            names |= _defined(st.body) | _defined(st.orelse)
        elif isinstance(st, ast.Try):
            names |= _defined(st.body) | _defined(st.orelse) | _defined(st.finalbody)
            for h in st.handlers:
                names |= _defined(h.body)
    return names


def _exported(tree) -> set:
    for st in tree.body:
        if isinstance(st, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__"
                                              for t in st.targets):
            try:
                return set(ast.literal_eval(st.value))
            except ValueError:
                return set()
    return set()


def why_internal(owner, name: str) -> str:
    """'' when `owner.name` is public surface, else the reason it is not; owner: a dotted path
    (a module, or module.Class) or None for an object the imports do not name."""
    if name.startswith("_") and not (name.startswith("__") and name.endswith("__")):
        return "a private name"
    if owner is None:
        return "an object the test's imports do not name (a local or a fixture)"
    if name.startswith("__"):
        return ""
    if _is_module(owner):
        tree = _module_tree(owner)
        if tree is None:
            return ""       # an extension module: no source to read
        if name in _defined(tree.body) or name in _exported(tree):
            return ""
        return f"a name {owner} imports, not one it defines"
    module, _, cls = owner.rpartition(".")
    tree = _module_tree(module) if module and _is_module(module) else None
    body = next((st.body for st in (tree.body if tree else ())
                 if isinstance(st, ast.ClassDef) and st.name == cls), None)
    if body is None:
        return f"{owner} is neither a module nor a class defined where the test imports it"
    return "" if name in _defined(body) else f"not defined by the class {owner}"


def _string_target(text: str):
    """('a.b', 'c') for 'a.b.c': the longest prefix that is a module owns the name."""
    parts = text.split(".")
    for k in range(len(parts) - 1, 0, -1):
        owner = ".".join(parts[:k])
        if _is_module(owner):
            return ".".join(parts[:k]), ".".join(parts[k:])
    return None, text


def _patch(call, aliases):
    """(owner path or None, owner text, name) when `call` patches an attribute, else None."""
    f = call.func
    args = call.args
    text = ast.unparse(f)
    const = [a.value if isinstance(a, ast.Constant) and isinstance(a.value, str) else None
             for a in args]
    if isinstance(f, ast.Attribute) and f.attr in PATCH_METHODS and isinstance(f.value, ast.Name):
        if len(args) >= 2 and const[1] is not None:
            return _dotted(args[0], aliases), ast.unparse(args[0]), const[1]
        if args and const[0] is not None and "." in const[0]:
            owner, name = _string_target(const[0])
            return owner, const[0].rpartition(".")[0], name
        return None
    if text.endswith("patch.object") and len(args) >= 2 and const[1] is not None:
        return _dotted(args[0], aliases), ast.unparse(args[0]), const[1]
    if (text.endswith("mock.patch") or text == "patch") and args and const[0] is not None:
        owner, name = _string_target(const[0])
        return owner, const[0].rpartition(".")[0], name
    return None


def sites(path: Path, root: Path) -> list:
    """Every patch of an attribute in the file at `path` (a Site each, named relative to root)."""
    text = path.read_text()
    if not CALLED.search(text):
        return []
    tree = ast.parse(text, str(path))
    aliases, found = _aliases(tree), []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            hit = _patch(node, aliases)
            if hit is not None:
                owner, text, name = hit
                found.append(Site(path.relative_to(root).as_posix(), node.lineno,
                                  f"{owner or text}.{name}", why_internal(owner, name)))
    return sorted(found, key=lambda s: (s.file, s.line))
