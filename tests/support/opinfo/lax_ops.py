"""jitgrad.lax's records: JAX owns the names (no implicit promotion or broadcasting); the
reference is NumPy, and jax.lax's own function when jax is installed."""
import numpy as np
import scipy.special

import jitgrad.lax as lax
from . import lax_control_ops, lax_more_ops
from .core import FLOATS, NUMERIC, R2, err, table

RECORDS, record = table("jax", "jax.lax.")

SAME = [((),), ((5,),), ((3, 4),), ((2, 0, 3),)]
PAIRS = [((), ()), ((5,), (5,)), ((3, 4), (3, 4)), ((0, 3), (0, 3))]
for _n, _ref, _dom in (("add", np.add, "any"), ("sub", np.subtract, "any"),
                       ("mul", np.multiply, "any"), ("max", np.maximum, "any"),
                       ("min", np.minimum, "any"), ("div", np.divide, ("any", "nonzero")),
                       ("atan2", np.arctan2, "nonzero"), ("pow", np.power,
                                                          ("positive", "nonneg_small"))):
    record(_n, getattr(lax, _n), _ref, PAIRS, dtypes=FLOATS, domain=_dom,
           errors=(err([(3, 4), (4,)], (TypeError, ValueError), "shape|broadcast|rank"),))
for _n, _ref, _dom in (("exp", np.exp, "any"), ("log", np.log, "positive"),
                       ("tanh", np.tanh, "any"), ("logistic", scipy.special.expit, "any"),
                       ("rsqrt", lambda x: 1 / np.sqrt(x), "positive"), ("neg", np.negative,
                                                                         "any"),
                       ("sin", np.sin, "any"), ("cos", np.cos, "any"),
                       ("square", np.square, "any"), ("erf", scipy.special.erf, "any"),
                       ("erf_inv", scipy.special.erfinv, "unit"), ("abs", np.abs, "nonzero")):
    record(_n, getattr(lax, _n), _ref, SAME, dtypes=FLOATS, domain=_dom)
record("integer_pow", lax.integer_pow, lambda x, y: x ** y, SAME, dtypes=FLOATS,
       kwargs={"y": 3})
record("clamp", lambda x: lax.clamp(-0.5, x, 0.5), lambda x: np.clip(x, -0.5, 0.5), SAME,
       dtypes=FLOATS, owner_path=None)
record("cumsum", lax.cumsum, lambda x, axis: np.cumsum(x, axis), R2, dtypes=NUMERIC,
       kwargs={"axis": 1})
record("cummax", lax.cummax, lambda x, axis: np.maximum.accumulate(x, axis), R2, dtypes=FLOATS,
       kwargs={"axis": 0}, differentiable=False)
record("transpose", lax.transpose, lambda x, permutation: np.transpose(x, permutation),
       [((2, 3, 4),)], kwargs={"permutation": (2, 0, 1)})
record("reshape", lax.reshape, lambda x, new_sizes: np.reshape(x, new_sizes), [((3, 4),)],
       kwargs={"new_sizes": (2, 6)},
       errors=(err([(3, 4)], (TypeError, ValueError), "reshape|size|shape",
                   kwargs={"new_sizes": (5, 2)}),))
record("rev", lax.rev, lambda x, dimensions: np.flip(x, dimensions), [((3, 4),)],
       kwargs={"dimensions": (0,)})
record("slice", lax.slice, lambda x, start_indices, limit_indices: x[1:3, 0:2], [((3, 4),)],
       kwargs={"start_indices": (1, 0), "limit_indices": (3, 2)})
record("pad", lax.pad, lambda x, padding_value, padding_config: np.pad(
    x, [(lo, hi) for lo, hi, _ in padding_config], constant_values=padding_value),
    [((3, 4),)], kwargs={"padding_value": 0.0, "padding_config": ((1, 0, 0), (0, 2, 0))},
    owner_path=None)
record("broadcast_in_dim", lax.broadcast_in_dim, lambda x, shape, broadcast_dimensions:
       np.broadcast_to(x[:, None], shape), [((3,),)],
       kwargs={"shape": (3, 4), "broadcast_dimensions": (0,)})
record("dot", lax.dot, np.dot, [((3, 4), (4, 5)), ((4,), (4,))], dtypes=FLOATS, tol=1e-4)
RECORDS += lax_more_ops.RECORDS + lax_control_ops.RECORDS
UNRECORDED = {"jitgrad.lax": {
    "Precision": "the enum of precision= settings of dot / conv (a class), not an op"}}
