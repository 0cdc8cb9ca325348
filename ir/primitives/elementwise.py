"""Shared parts of the elementwise records: the record constructors, and the gap reasons backends
give for ops they leave to another path.

An elementwise record gets its VJP and JVP from its `linearized` derivative (the Jacobian is
diagonal, so multiplying by the derivative is the same emission for a tangent and a cotangent),
and the one elementwise batching rule.
"""
from __future__ import annotations

from ..autodiff import jvp_rules, vjp_rules
from ..batching import rules as batching
from ..registry import Primitive
from .type_rules import elementwise_binary, elementwise_unary

# why a backend leaves an op to another path (each is a documented fallback: README "Fallbacks")
COMPLEX_HOST = ("complex-valued kernels run as NumPy host steps between compiled kernels on the "
                "CPU; CUDA refuses complex numbers with an error")
# the LLVM units compute complex parts (codegen/cpu/llvm_complex.py); CUDA does not
COMPLEX_GAPS = {"cuda": COMPLEX_HOST}


def _elementwise(op, type_rule, arity, group, accepts, reference, d, kw):
    vjp, jvp = kw.pop("vjp", None), kw.pop("jvp", None)
    if d is not None:
        vjp = vjp or vjp_rules.from_linearized(d)
        jvp = jvp or jvp_rules.from_linearized(d)
    return Primitive(op, "elementwise", type_rule, reference, arity, group, accepts,
                     linearized=d, vjp=vjp, jvp=jvp, batch=batching.elementwise, **kw)


def unary(op, group, accepts, reference, d=None, **kw) -> Primitive:
    """A one-input elementwise record; `d(e, x, y, g)` = g * dy/dx (x the input, y the output)."""
    lin = None if d is None else (lambda e, x, y, g, i: d(e, x[0], y, g))
    return _elementwise(op, elementwise_unary, 1, group, accepts, reference, lin, kw)


def binary(op, group, accepts, reference, d=None, **kw) -> Primitive:
    """A two-input elementwise record; `d(e, x, y, g, i)` = g * dy/dx[i]."""
    return _elementwise(op, elementwise_binary, 2, group, accepts, reference, d, kw)
