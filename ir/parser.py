"""`parse(text)` reads the printed IR back into a Graph: print(parse(s)) == s."""
from __future__ import annotations

import re

import numpy as np

from .errors import ParseError
from .graph import Graph, Literal, Node, Value
from .ops import Op
from .types import TensorType, dtype_from_short

_TOKEN = re.compile(r"""
    (?P<comment>\#[^\n]*) | (?P<value>%[A-Za-z0-9_.]+) | (?P<ref>@[0-9a-f]+)
  | (?P<string>"[^"]*") | (?P<arrow>->)
  | (?P<complex>-?(?:\d[\d.eE+-]*?|inf|nan)[+-](?:\d[\d.eE+-]*?|inf|nan)j)
  | (?P<number>-?(?:\d+\.\d*(?:[eE][-+]?\d+)?|\d+[eE][-+]?\d+|\d+)|-inf)
  | (?P<ident>[A-Za-z_][A-Za-z0-9_.]*) | (?P<punct>[()\[\]{},:=])
  | (?P<newline>\n) | (?P<space>[ \t\r]+) | (?P<bad>.)""", re.VERBOSE)
_SCALARS = {"True": True, "False": False, "None": None, "inf": float("inf"), "nan": float("nan")}


class _Parser:
    def __init__(self, text, constants):
        self.toks = []
        line = 1
        for m in _TOKEN.finditer(text):
            kind = m.lastgroup
            if kind == "newline":
                line += 1
            elif kind == "bad":
                raise ParseError(f"line {line}: unexpected character {m.group()!r}")
            elif kind != "space":
                self.toks.append((kind, m.group(), line))
        self.i = 0
        self.constants = constants or {}

    def peek(self, k=0):
        return self.toks[self.i + k] if self.i + k < len(self.toks) else ("eof", "", -1)

    def next(self):
        t = self.peek()
        self.i += 1
        return t

    def expect(self, text):
        kind, tok, line = self.next()
        if tok != text:
            raise ParseError(f"line {line}: expected {text!r}, got {tok!r}")
        return tok

    def type(self):
        kind, tok, line = self.next()
        dtype = dtype_from_short(tok)
        if dtype is None:
            raise ParseError(f"line {line}: expected a dtype, got {tok!r}")
        self.expect("[")
        dims = []
        while self.peek()[1] != "]":
            dims.append(int(self.next()[1]))
            if self.peek()[1] == ",":
                self.next()
        self.expect("]")
        return TensorType(tuple(dims), dtype)

    def graph(self):
        self.expect("graph")
        g = Graph(name=self.next()[1])
        env = {}
        self.expect("(")
        arg_names = []
        while self.peek()[1] != ")":
            _, vname, line = self.next()
            self.expect(":")
            v = Value(self.type())
            self.define(env, vname, v, line)
            arg_names.append(vname[1:])
            g.inputs.append(v)
            if self.peek()[1] == ",":
                self.next()
        self.expect(")")
        g.arg_names = arg_names
        self.expect("->")
        declared = []
        if self.peek()[1] == "(":
            self.next()
            while self.peek()[1] != ")":
                declared.append(self.type())
                if self.peek()[1] == ",":
                    self.next()
            self.next()
        else:
            declared.append(self.type())
        self.expect("{")
        while self.peek()[1] != "return":
            g.nodes.append(self.node(env))
        line = self.next()[2]
        g.outputs = [self.use(env)]
        while self.peek()[1] == ",":
            self.next()
            g.outputs.append(self.use(env))
        self.expect("}")
        returned = [v.type for v in g.outputs]
        if returned != declared:
            raise ParseError(f"line {line}: graph {g.name} declares it returns "
                             f"({', '.join(map(str, declared))}) but returns "
                             f"({', '.join(map(str, returned))})")
        return g

    @staticmethod
    def define(env, name, value, line):
        """Bind a value name; each name is defined once (SSA)."""
        if name in env:
            raise ParseError(f"line {line}: {name} is defined twice (each value is defined once)")
        env[name] = value

    def use(self, env):
        kind, tok, line = self.next()
        if tok not in env:
            raise ParseError(f"line {line}: {tok} is used before it is defined")
        return env[tok]

    def node(self, env):
        lhs = [self.next()[1]]
        while self.peek()[1] == ",":
            self.next()
            lhs.append(self.next()[1])
        self.expect("=")
        kind, opname, line = self.next()
        op = Op(opname) if opname in Op.__members__ else opname
        inputs = []
        if self.peek()[0] == "value":
            inputs.append(self.use(env))
            while self.peek()[1] == ",":
                self.next()
                inputs.append(self.use(env))
        params = {}
        while self.peek()[1] != ":":
            key = self.next()[1]
            self.expect("=")
            params[key] = self.param()
        self.expect(":")
        types = [self.type()]
        while self.peek()[1] == ",":
            self.next()
            types.append(self.type())
        end_line = self.toks[self.i - 1][2]
        source = None
        if self.peek()[0] == "comment" and self.peek()[2] == end_line:
            source = self.next()[1][1:].strip()
        if op == Op.constant:
            params["value"] = self.literal(params["value"], types[0], line)
        outs = tuple(Value(t) for t in types)
        for n, v in zip(lhs, outs):
            self.define(env, n, v, line)
        return Node(op, tuple(inputs), params, outs, source)

    def literal(self, raw, t, line):
        if isinstance(raw, Literal):
            return raw
        arr = np.array(raw if not isinstance(raw, tuple) else list(raw), dtype=t.dtype)
        return Literal(arr.reshape(t.shape))

    def param(self):
        kind, tok, line = self.peek()
        if tok == "graph":
            return self.graph()
        self.next()
        if kind == "number":
            return float(tok) if any(c in tok for c in ".eEn") else int(tok)
        if kind == "complex":
            return complex(tok)
        if kind == "string":
            return tok[1:-1]
        if kind == "ref":
            if tok[1:] not in self.constants:
                raise ParseError(f"line {line}: constant {tok} is not among the given constants")
            return Literal(self.constants[tok[1:]])
        if kind == "ident":
            if tok in _SCALARS:
                return _SCALARS[tok]
            dtype = dtype_from_short(tok)
            if dtype is not None:
                return dtype
            raise ParseError(f"line {line}: unexpected {tok!r} in a parameter")
        if tok in "([":
            close = ")" if tok == "(" else "]"
            items = []
            while self.peek()[1] != close:
                items.append(self.param())
                if self.peek()[1] == ",":
                    self.next()
            self.next()
            return tuple(items) if close == ")" else list(items)
        raise ParseError(f"line {line}: unexpected {tok!r} in a parameter")


def parse(text: str, constants: dict | None = None) -> Graph:
    """Read IR text; `constants` maps the @digest of large constants to their arrays."""
    p = _Parser(text, constants)
    g = p.graph()
    if p.peek()[0] != "eof":
        raise ParseError(f"line {p.peek()[2]}: unexpected {p.peek()[1]!r} after the graph")
    return g
