"""IndentedBuffer and CSE: how generated source is written (the torch/_inductor pattern).

Code is emitted line by line at the buffer's current depth (`with buf.indent():` opens a block),
never by concatenating hand-indented strings. `CSE` names each distinct expression once per
scope: `cse.get("(x[i] * c0)")` writes `t3 = (x[i] * c0)` the first time and returns `t3`
afterwards, so a sub-expression used twice is computed once and the source stays readable.
"""
from __future__ import annotations

import contextlib


class IndentedBuffer:
    def __init__(self, step: str = "    "):
        self._lines: list[str] = []
        self._depth = 0
        self._step = step

    @property
    def lines(self) -> list[str]:
        """The lines written so far (indented)."""
        return self._lines

    def writeline(self, line: str = "") -> None:
        self._lines.append(self._step * self._depth + line if line else "")

    def writelines(self, lines) -> None:
        for line in lines:
            self.writeline(line)

    def splice(self, other: "IndentedBuffer") -> None:
        """Append another buffer's lines, indented to this buffer's depth."""
        for line in other._lines:
            self.writeline(line)

    @contextlib.contextmanager
    def indent(self, header: str | None = None):
        """`with buf.indent("for i in range(n):"):` writes the header and indents the block."""
        if header is not None:
            self.writeline(header)
        self._depth += 1
        try:
            yield self
        finally:
            self._depth -= 1

    def getvalue(self) -> str:
        return "\n".join(self._lines) + "\n"


class CSE:
    """Expression -> temporary name, writing `name = expr` into `buf` on first use.

    A child scope (a nested loop body) sees its parent's names but its own new temporaries
    stay local, so a value computed inside one loop is never reused outside it."""

    def __init__(self, buf: IndentedBuffer, prefix: str = "t", parent: "CSE | None" = None,
                 counter: list | None = None):
        self.buf, self.prefix, self.parent = buf, prefix, parent
        self._names: dict[str, str] = {}
        self._counter = counter if counter is not None else (parent._counter if parent else [0])

    def lookup(self, expr: str):
        scope = self
        while scope is not None:
            if expr in scope._names:
                return scope._names[expr]
            scope = scope.parent
        return None

    def get(self, expr: str) -> str:
        """The temporary holding `expr`; atoms (names, literals) are returned as they are."""
        if expr.isidentifier() or _is_literal(expr):
            return expr
        name = self.lookup(expr)
        if name is None:
            name = self.fresh()
            self.buf.writeline(f"{name} = {expr}")
            self._names[expr] = name
        return name

    def fresh(self, prefix: str | None = None) -> str:
        self._counter[0] += 1
        return f"{prefix or self.prefix}{self._counter[0]}"

    def child(self, buf: IndentedBuffer | None = None) -> "CSE":
        return CSE(buf or self.buf, self.prefix, self)


def _is_literal(expr: str) -> bool:
    try:
        float(expr)
        return True
    except ValueError:
        return False
