"""Records of the reductions, cumulative ops, shape and data-movement ops, indexing and matmul."""
from __future__ import annotations

import numpy as np

from .. import reference
from ..autodiff import jvp_rules as J
from ..autodiff import vjp_rules as V
from ..batching import rules as B
from ..ops import Op
from ..registry import Primitive
from . import type_rules as T

_ARG = "an index: piecewise constant, no derivative (as in JAX)"


def _reduce(op, accepts, ref, vjp, jvp, doc, **kw):
    return Primitive(op, "reduce", T.reduce_rule, ref, 1, "reduce", accepts, vjp=vjp, jvp=jvp,
                     batch=B.shift("axes"), doc=doc, **kw)


def _shape(op, ref, vjp, jvp, batch, doc, arity=1):
    return Primitive(op, "shape", getattr(T, f"{op.value}_rule"), ref, arity, "shape", vjp=vjp,
                     jvp=jvp, batch=batch, doc=doc)


RECORDS = [
    _reduce(Op.reduce_sum, "numeric", reference.reduce_sum, V.reduce_sum,
            J.linear, "the sum over params['axes']"),
    _reduce(Op.reduce_max, "ordered", lambda x, *, axes: np.max(x, axis=axes), V.reduce_extremum,
            J.reduce_extremum, "the maximum over params['axes'] (NaN wins)"),
    _reduce(Op.reduce_min, "ordered", lambda x, *, axes: np.min(x, axis=axes), V.reduce_extremum,
            J.reduce_extremum, "the minimum over params['axes'] (NaN wins)"),
    _reduce(Op.reduce_prod, "numeric", lambda x, *, axes: np.prod(x, axis=axes), V.reduce_prod,
            J.reduce_prod, "the product over params['axes']"),
    _reduce(Op.argmax, "ordered", lambda x, *, axes: np.argmax(x, axis=axes[0]), None, None,
            "the index of the first maximum along the one axis (the first NaN wins)",
            nondiff=_ARG),
    _reduce(Op.argmin, "ordered", lambda x, *, axes: np.argmin(x, axis=axes[0]), None, None,
            "the index of the first minimum along the one axis (the first NaN wins)",
            nondiff=_ARG),
    Primitive(Op.cumsum, "cumulative", T.cumulative_rule,
              lambda x, *, axis: np.cumsum(x, axis=axis, dtype=x.dtype), vjp=V.cumsum,
              jvp=J.linear, batch=B.shift("axis"),
              doc="the running sum along params['axis']"),
    Primitive(Op.sort, "cumulative", T.cumulative_rule,
              lambda x, *, axis: np.sort(x, axis=axis, kind="stable"), accepts="ordered",
              vjp=V.sort, jvp=J.sort, batch=B.shift("axis"),
              doc="x sorted along params['axis'] (stable)"),
    Primitive(Op.argsort, "cumulative", T.cumulative_rule,
              lambda x, *, axis: np.argsort(x, axis=axis, kind="stable"), accepts="ordered",
              nondiff=_ARG, batch=B.shift("axis"),
              doc="the stable sorting permutation along params['axis']"),
    _shape(Op.reshape, lambda x, *, shape: np.reshape(x, shape), V.reshape, J.linear,
           B.prepend(shape=None), "x with params['shape'] (same size)"),
    _shape(Op.transpose, lambda x, *, perm: np.transpose(x, perm), V.transpose, J.linear,
           B.transpose, "x's axes permuted by params['perm']"),
    _shape(Op.broadcast_to, lambda x, *, shape: np.broadcast_to(x, shape), V.broadcast_to,
           J.linear, B.broadcast_to, "x broadcast to params['shape']"),
    _shape(Op.slice, reference.slice_op, V.slice, J.linear, B.prepend(start=0, stop=None, step=1),
           "x[start:stop:step] per axis"),
    _shape(Op.rev, lambda x, *, axes: np.flip(x, axes), V.rev, J.linear, B.shift("axes"),
           "x reversed along params['axes']"),
    _shape(Op.pad, reference.pad, V.pad, J.pad, B.prepend(lo=0, hi=0),
           "x padded with lo / hi copies of params['value'] per axis"),
    _shape(Op.concatenate, lambda *xs, axis: np.concatenate(xs, axis=axis), V.concatenate,
           J.concatenate, B.concatenate, "the inputs joined along params['axis']", arity=None),
    Primitive(Op.take, "index", T.take_rule, reference.take, 2, "index", vjp=V.take, jvp=J.take,
              batch=B.take, doc="x's entries at integer indices along params['axis'] "
                                "(IndexError out of range; params['check']: an assertion)"),
    Primitive(Op.scatter_add, "index", T.scatter_add_rule, reference.scatter_add, 2, "index",
              vjp=V.scatter_add, jvp=J.scatter_add, batch=B.scatter_add,
              doc="zeros of params['shape'] with the updates added at the indices"),
    Primitive(Op.matmul, "matmul", T.matmul_rule, np.matmul, 2, "matmul", "numeric",
              vjp=V.matmul, jvp=J.matmul, batch=B.matmul,
              numpy=("matmul",), method=("matmul",), doc="x1 @ x2, batched over leading axes"),
]
