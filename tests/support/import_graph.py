"""The package's import graph, read from the source with `ast` (nothing is imported): which
jitgrad modules each module imports, at import time (module level) or at all (function-level
imports too), and the strongly connected components (import cycles) of either graph.

Used by test_layering.py and test_imports_isolated.py; run it to measure the graph:

    python tests/support/import_graph.py [-v]
"""
from __future__ import annotations

import ast
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
# folder -> package name (setup.py's ROOTS; benchmarks/ are scripts with their own extras)
ROOTS = {"jitgrad": "jitgrad", "ir": "jitgrad.ir", "codegen": "jitgrad.codegen",
         "runtime": "jitgrad.runtime"}


def modules() -> dict:
    """Every module of the package: dotted name -> source path."""
    out = {}
    for folder, package in ROOTS.items():
        for path in sorted((REPO / folder).rglob("*.py")):
            parts = list(path.relative_to(REPO / folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join([package, *parts])] = path
    return out


def _statements(tree, module_level: bool):
    """Import statements; with module_level, those run when the module is imported (not inside
    a def, nor under `if TYPE_CHECKING:`)."""
    todo = list(tree.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        elif module_level and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        elif (module_level and isinstance(node, ast.If)
              and "TYPE_CHECKING" in ast.unparse(node.test)):
            todo.extend(node.orelse)
        else:
            todo.extend(ast.iter_child_nodes(node))


def imported_names(name: str, path: Path, module_level: bool, known=None) -> list:
    """(dotted module name, line) of every import in the file, relative ones resolved.
    `from m import x` names m.x when that is one of the `known` modules, else m."""
    known = modules() if known is None else known
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = []
    for node in _statements(ast.parse(path.read_text(), str(path)), module_level):
        if isinstance(node, ast.Import):
            out += [(a.name, node.lineno) for a in node.names]
            continue
        base = node.module or ""
        if node.level:
            anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
            base = f"{anchor}.{base}" if base else anchor
        for a in node.names:
            sub = f"{base}.{a.name}"
            out.append((sub if sub in known else base, node.lineno))
    return sorted(out, key=lambda t: t[1])


def graph(module_level: bool) -> dict:
    """module -> set of the package's modules it imports (a package's own parents, which Python
    imports before any module in it, are left out)."""
    mods = modules()
    out = {}
    for name, path in mods.items():
        deps = {t for t, _ in imported_names(name, path, module_level, mods) if t in mods}
        out[name] = {d for d in deps if not name.startswith(d + ".") and d != name}
    return out


def cycles(g: dict) -> list:
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []
    for root in g:
        if root in index:
            continue
        work = [(root, iter(sorted(g[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            v, children = work[-1]
            w = next(children, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(g[w]))))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                component = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    component.append(w)
                    if w == v:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def function_level_imports(name: str, path: Path) -> list:
    """(line, source text of the line) of every import inside a def of the module."""
    tree = ast.parse(path.read_text(), str(path))
    lines = path.read_text().split("\n")
    found = {}
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for node in ast.walk(fn):
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    found[node.lineno] = "\n".join(lines[node.lineno - 1:node.end_lineno])
    return sorted(found.items())


def private_imports(name: str, path: Path, known=None) -> list:
    """(line, 'module.name') for every private name (`_x`, not dunder) the module takes from
    another module of the package: `from m import _x`, or `m._x` read through an imported
    module `m`."""
    known = modules() if known is None else known
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    tree = ast.parse(path.read_text(), str(path))
    aliases, found = {}, []

    def private(attr):
        return attr.startswith("_") and not attr.startswith("__")

    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{anchor}.{base}" if base else anchor
            if not base.startswith("jitgrad"):
                continue
            for a in node.names:
                full = f"{base}.{a.name}"
                if full in known:
                    aliases[a.asname or a.name] = full
                elif private(a.name) and base != name:
                    found.append((node.lineno, full))
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name in known and a.asname:
                    aliases[a.asname] = a.name
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                and node.value.id in aliases and private(node.attr)
                and aliases[node.value.id] != name):
            found.append((node.lineno, f"{aliases[node.value.id]}.{node.attr}"))
    return sorted(set(found))


def main(argv) -> None:
    for label, module_level in (("at import time (module-level imports)", True),
                                ("counting function-level imports too", False)):
        found = cycles(graph(module_level))
        print(f"{label}: {len(modules())} modules, {sum(map(len, found))} in cycles "
              f"{sorted(map(len, found), reverse=True)}")
        if "-v" in argv:
            for component in found:
                print("   ", " ".join(component))
    mods = modules()
    lazy = sum(len(function_level_imports(n, p)) for n, p in mods.items())
    private = [(n, line, what) for n, p in mods.items() for line, what in private_imports(n, p, mods)]
    print(f"function-level imports: {lazy}; cross-module private imports: {len(private)}")
    if "-v" in argv:
        for n, line, what in private:
            print(f"    {n}:{line} takes {what}")


if __name__ == "__main__":
    main(sys.argv[1:])
