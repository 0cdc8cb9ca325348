"""Issue 51's limits, read from the source with `ast`: no product file (jitgrad/, ir/, codegen/,
runtime/) over 600 lines, no function or method in them over 100 lines. A file or function that
grows past them is split (a module per concept, a function in named steps), not allowed here."""
import ast

from tests.support import import_graph

MAX_FILE_LINES = 600
MAX_FUNCTION_LINES = 100


def oversized(paths, root=import_graph.REPO) -> list:
    """'file: N lines' and 'file:line name: N lines' for every file and function over the
    limits (files named relative to `root`)."""
    found = []
    for path in paths:
        text = path.read_text(encoding="utf-8")
        rel = path.relative_to(root).as_posix()
        n = len(text.splitlines())
        if n > MAX_FILE_LINES:
            found.append(f"{rel}: {n} lines (at most {MAX_FILE_LINES})")
        for node in ast.walk(ast.parse(text, rel)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                size = node.end_lineno - node.lineno + 1
                if size > MAX_FUNCTION_LINES:
                    found.append(f"{rel}:{node.lineno} {node.name}: {size} lines "
                                 f"(at most {MAX_FUNCTION_LINES})")
    return found


def test_no_product_file_or_function_over_the_limits():
    found = oversized(import_graph.modules().values())
    assert not found, "split these:\n" + "\n".join(found)


def test_the_checker_reports_a_long_file_and_a_long_method(tmp_path):
    lines = [f"x{i} = {i}\n" for i in range(MAX_FUNCTION_LINES)]
    (tmp_path / "big.py").write_text(          # a method: a def and 100 lines; 706 in all
        "class A:\n    def long(self):\n" + "".join("        " + s for s in lines) +
        "\n\ndef short():\n    return 1\n" + "# filler\n" * MAX_FILE_LINES)
    (tmp_path / "ok.py").write_text(           # exactly at the limit: a def and 99 lines
        "def f():\n" + "".join("    " + s for s in lines[1:]))
    found = oversized([tmp_path / "big.py", tmp_path / "ok.py"], tmp_path)
    assert found == ["big.py: 706 lines (at most 600)", "big.py:2 long: 101 lines (at most 100)"]
