"""Structured control flow: ops that hold sub-graphs as params.

  cond        inputs (pred: bool[], *operands)      params true=Graph, false=Graph
              both branches take the operands and return the same types
  switch      inputs (index: int[], *operands)       params branches=(Graph, ...)
              runs branches[clamp(index, 0, n - 1)] (lax.switch); same contract as cond
  while_loop  inputs (*carry, *consts)               params cond=Graph, body=Graph, n_carry=int
              cond: (*carry, *consts) -> bool[];  body: (*carry, *consts) -> carry
  scan        inputs (*carry, *xs, *consts)          params body=Graph, n_carry, n_xs, length,
              reverse; body: (*carry, *x_slices, *consts) -> (*carry, *y_slices);
              outputs (*carry, *ys stacked on a new leading axis of size length)
"""
from __future__ import annotations

import numpy as np

from .errors import ShapeError
from .interpreter import interpret
from .ops import Op
from .types import TensorType, bool_, is_int

COND, SWITCH, WHILE, SCAN = Op.cond, Op.switch, Op.while_loop, Op.scan


def _types(vals):
    return [v.type for v in vals]


def _fmt(ts):
    return "(" + ", ".join(map(str, ts)) + ")"


def cond_rule(op, in_types, params):
    t, f = params["true"], params["false"]
    pred, ops_ = in_types[0], list(in_types[1:])
    if pred.shape != () or pred.dtype != bool_:
        raise ShapeError(f"cond: expected a scalar bool predicate, got {pred}")
    for name, g in (("true", t), ("false", f)):
        if _types(g.inputs) != ops_:
            raise ShapeError(f"cond: {name} branch takes {_fmt(_types(g.inputs))} but the "
                             f"operands are {_fmt(ops_)}")
    if _types(t.outputs) != _types(f.outputs):
        raise ShapeError(f"cond: branches return different types: true gives "
                         f"{_fmt(_types(t.outputs))}, false gives {_fmt(_types(f.outputs))}")
    return _types(t.outputs)


def branches(node_op, params) -> list:
    """The branch graphs of a cond (false, true: index = pred) or a switch, in index order."""
    return [params["false"], params["true"]] if node_op == COND else list(params["branches"])


def with_branches(node_op, graphs) -> dict:
    """The params of a cond / switch node running `graphs` (in index order)."""
    return {"false": graphs[0], "true": graphs[1]} if node_op == COND else {"branches": tuple(graphs)}


def switch_rule(op, in_types, params):
    index, ops_ = in_types[0], list(in_types[1:])
    gs = list(params["branches"])
    if index.shape != () or not is_int(index.dtype):
        raise ShapeError(f"switch: expected a scalar integer index, got {index}")
    if not gs:
        raise ShapeError("switch: expected at least one branch")
    for k, g in enumerate(gs):
        if _types(g.inputs) != ops_:
            raise ShapeError(f"switch: branch {k} takes {_fmt(_types(g.inputs))} but the "
                             f"operands are {_fmt(ops_)}")
        if _types(g.outputs) != _types(gs[0].outputs):
            raise ShapeError(f"switch: branches return different types: branch 0 gives "
                             f"{_fmt(_types(gs[0].outputs))}, branch {k} gives "
                             f"{_fmt(_types(g.outputs))}")
    return _types(gs[0].outputs)


def while_rule(op, in_types, params):
    n = params["n_carry"]
    carry, consts = list(in_types[:n]), list(in_types[n:])
    c, b = params["cond"], params["body"]
    if _types(c.inputs) != carry + consts or _types(b.inputs) != carry + consts:
        raise ShapeError(f"while_loop: cond/body inputs don't match the carry {_fmt(carry)}")
    if _types(c.outputs) != [TensorType((), bool_)]:
        raise ShapeError(f"while_loop: cond_fun must return a scalar bool, got "
                         f"{_fmt(_types(c.outputs))}")
    if _types(b.outputs) != carry:
        raise ShapeError(f"while_loop: body_fun must return the carry's types {_fmt(carry)}, "
                         f"got {_fmt(_types(b.outputs))}")
    return carry


def scan_rule(op, in_types, params):
    nc, nx, length = params["n_carry"], params["n_xs"], params["length"]
    carry, xs, consts = list(in_types[:nc]), list(in_types[nc:nc + nx]), list(in_types[nc + nx:])
    for x in xs:
        if not x.shape or x.shape[0] != length:
            raise ShapeError(f"scan: every xs leaf needs leading axis {length}, got {x}")
    slices = [TensorType(x.shape[1:], x.dtype) for x in xs]
    body = params["body"]
    if _types(body.inputs) != carry + slices + consts:
        raise ShapeError(f"scan: body takes {_fmt(_types(body.inputs))}, expected "
                         f"{_fmt(carry + slices + consts)}")
    outs = _types(body.outputs)
    if outs[:nc] != carry:
        raise ShapeError(f"scan: body must return the carry's types {_fmt(carry)} first, got "
                         f"{_fmt(outs[:nc])}")
    return carry + [TensorType((length,) + y.shape, y.dtype) for y in outs[nc:]]


def _run(g, arrays):
    return interpret(g, arrays)


def cond_reference(*arrays, true, false):
    g = true if bool(arrays[0]) else false
    return _run(g, arrays[1:])


def switch_reference(*arrays, branches):
    k = min(max(int(arrays[0]), 0), len(branches) - 1)
    return _run(branches[k], arrays[1:])


def while_reference(*arrays, cond, body, n_carry):
    n = n_carry
    carry, consts = list(arrays[:n]), list(arrays[n:])
    while bool(_run(cond, carry + consts)[0]):
        carry = _run(body, carry + consts)
    return carry


def scan_reference(*arrays, **p):
    nc, nx, length = p["n_carry"], p["n_xs"], p["length"]
    carry, xs, consts = list(arrays[:nc]), arrays[nc:nc + nx], list(arrays[nc + nx:])
    ys = []
    order = range(length - 1, -1, -1) if p["reverse"] else range(length)
    for i in order:
        out = _run(p["body"], carry + [x[i] for x in xs] + consts)
        carry, y = out[:nc], out[nc:]
        ys.append(y)
    if p["reverse"]:
        ys.reverse()
    y_types = [v.type for v in p["body"].outputs[nc:]]
    stacked = [np.stack([y[k] for y in ys]) if ys else np.zeros((0,) + t.shape, t.dtype)
               for k, t in enumerate(y_types)]
    return carry + stacked
