"""jitgrad.* top-level functions (torch's meaning: dim=, unbiased std, Tensor methods): torch
owns the names; the reference is NumPy, and torch's own function when torch is installed."""
import numpy as np
import scipy.special

import jitgrad as jg
from . import (torch_elementwise_ops, torch_index_ops,  # noqa: F401  (their records join
               torch_matrix_ops, torch_misc_ops, torch_more_ops,  # the tables below)
               torch_nn_ops, torch_reduction_ops, torch_shape_ops)
from .core import BINARY, FLOATS, NUMERIC, R2, TERNARY, UNARY, err
from .torch_records import FUNCTION_RECORDS as RECORDS
from .torch_records import function_record as record


def _np_softmax(x, dim):
    e = np.exp(x - x.max(axis=dim, keepdims=True))
    return e / e.sum(axis=dim, keepdims=True)


for _n, _ref in (("add", np.add), ("sub", np.subtract), ("mul", np.multiply),
                 ("maximum", np.maximum), ("minimum", np.minimum), ("hypot", np.hypot),
                 ("atan2", np.arctan2)):
    record(_n, getattr(jg, _n), _ref, BINARY, dtypes=FLOATS, domain="nonzero")
record("div", jg.div, np.divide, BINARY, dtypes=FLOATS, domain=("any", "nonzero"))
record("xlogy", jg.xlogy, scipy.special.xlogy, BINARY, dtypes=FLOATS, domain=("any", "positive"))
for _n in ("exp", "sigmoid", "erf", "tanh", "square", "neg", "abs"):
    _ref = {"sigmoid": scipy.special.expit, "erf": scipy.special.erf, "neg": np.negative,
            "abs": np.abs}.get(_n, getattr(np, _n, None))
    record(_n, getattr(jg, _n), _ref, UNARY, dtypes=FLOATS, domain="nonzero")
record("rsqrt", jg.rsqrt, lambda x: 1 / np.sqrt(x), UNARY, dtypes=FLOATS, domain="positive")
record("clamp", jg.clamp, np.clip, UNARY, dtypes=NUMERIC, kwargs={"min": -1, "max": 1},
       owner_kwargs=None)
record("lerp", jg.lerp, lambda a, b, w: a + w * (b - a), TERNARY[:3], dtypes=FLOATS)
record("addcmul", jg.addcmul, lambda a, b, c, value: a + value * b * c, TERNARY[:3],
       dtypes=FLOATS, kwargs={"value": 0.5})
# reductions: dim=, keepdim=, torch's unbiased var / std
for _n, _ref in (("sum", np.sum), ("mean", np.mean), ("amax", np.amax), ("amin", np.amin),
                 ("logsumexp", scipy.special.logsumexp)):
    record(_n, getattr(jg, _n), lambda x, dim, keepdim=False, _r=_ref: _r(
        x, axis=dim, keepdims=keepdim), R2, dtypes=FLOATS, kwargs={"dim": 1},
        errors=(err([(3, 4)], (IndexError, ValueError), "dim|range|axis",
                    kwargs={"dim": 3}),))
    record(_n, getattr(jg, _n), lambda x, dim, keepdim=False, _r=_ref: _r(
        x, axis=dim, keepdims=keepdim), R2, dtypes=FLOATS, kwargs={"dim": -1, "keepdim": True})
for _n, _ref in (("var", np.var), ("std", np.std)):
    record(_n, getattr(jg, _n), lambda x, dim, _r=_ref: _r(x, axis=dim, ddof=1), R2,
           dtypes=FLOATS, kwargs={"dim": 1})
    record(_n, getattr(jg, _n), lambda x, _r=_ref: _r(x, ddof=1), [((3, 4),), ((5,),)],
           dtypes=FLOATS)
record("softmax", jg.softmax, _np_softmax, R2, dtypes=FLOATS, kwargs={"dim": -1})
record("cumsum", jg.cumsum, lambda x, dim: np.cumsum(x, dim), R2, dtypes=FLOATS,
       kwargs={"dim": 1})
record("cumprod", jg.cumprod, lambda x, dim: np.cumprod(x, dim), R2, dtypes=FLOATS,
       domain="near1", kwargs={"dim": -1})
record("logcumsumexp", jg.logcumsumexp, lambda x, dim: np.logaddexp.accumulate(x, dim), R2,
       dtypes=FLOATS, kwargs={"dim": 1})
record("diff", jg.diff, lambda x: np.diff(x), R2, dtypes=FLOATS)
record("norm", jg.norm, lambda x: np.sqrt((x * x).sum()), [((3, 4),), ((5,),)], dtypes=FLOATS,
       domain="nonzero")
record("dist", jg.dist, lambda a, b: np.sqrt(((a - b) ** 2).sum()), [((3, 4), (3, 4)),
                                                                     ((3, 4), (4,))],
       dtypes=FLOATS, domain=("any", "nonzero"))
record("cdist", jg.cdist, lambda a, b: np.sqrt(((a[:, None] - b[None]) ** 2).sum(-1)),
       [((3, 4), (5, 4))], dtypes=FLOATS, domain=("any", "nonzero"), tol=1e-4)
record("cat", lambda a, b, dim: jg.cat([a, b], dim), lambda a, b, dim: np.concatenate(
    [a, b], dim), [((2, 3), (2, 4))], dtypes=FLOATS, kwargs={"dim": 1}, owner_path=None,
    errors=(err([(2, 3), (3, 4)], (ValueError, RuntimeError, TypeError),
                "size|shape|dimension|concat",
                kwargs={"dim": 1}),))
record("matmul", jg.matmul, np.matmul, [((3, 4), (4, 5)), ((2, 3, 4), (4,))], dtypes=FLOATS)
record("bmm", jg.bmm, np.matmul, [((2, 3, 4), (2, 4, 5))], dtypes=FLOATS,
       errors=(err([(3, 4), (4, 5)], (ValueError, RuntimeError), "3-d|batch|dim|rank"),))
record("addmm", jg.addmm, lambda c, a, b: c + a @ b, [((3, 5), (3, 4), (4, 5)),
                                                     ((5,), (3, 4), (4, 5))], dtypes=FLOATS)
record("outer", jg.outer, np.outer, [((3,), (4,))], dtypes=FLOATS)
record("kron", jg.kron, np.kron, [((2, 3), (3, 2))], dtypes=FLOATS)
record("tril", jg.tril, np.tril, [((3, 4),)], dtypes=FLOATS)
record("flip", jg.flip, lambda x, dims: np.flip(x, dims), R2, dtypes=FLOATS,
       kwargs={"dims": (0,)})
record("roll", jg.roll, lambda x, shifts, dims: np.roll(x, shifts, dims), R2, dtypes=FLOATS,
       kwargs={"shifts": 1, "dims": -1})
