"""jitgrad.nn.functional's records: torch.nn.functional owns the names (torch's dim semantics,
int64 one_hot); the reference is NumPy / SciPy, and torch's own function when torch is installed."""
import math

import numpy as np
import scipy.special

import jitgrad.nn.functional as F
from .core import F32, F64, FLOATS, I64, ND, NUMERIC, R2, UNARY, Ints, err, table

RECORDS, record = table("torch", "torch.nn.functional.")



def _np_sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _np_softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _np_log_softmax(x, axis=-1):
    return x - scipy.special.logsumexp(x, axis=axis, keepdims=True)


def _np_gelu(x, approximate=False):
    if approximate:
        return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))
    return 0.5 * x * (1 + scipy.special.erf(x / math.sqrt(2)))


def _np_one_hot(x, num_classes):
    return (x[..., None] == np.arange(num_classes)).astype(np.int64)     # torch's int64


record("relu", F.relu, lambda x: np.maximum(x, 0), UNARY, dtypes=NUMERIC)
record("sigmoid", F.sigmoid, _np_sigmoid, UNARY, dtypes=FLOATS)
record("softplus", F.softplus, lambda x: np.logaddexp(0, x), UNARY, dtypes=FLOATS)
record("silu", F.silu, lambda x: x * _np_sigmoid(x), UNARY, dtypes=FLOATS)
record("gelu", F.gelu, _np_gelu, UNARY, dtypes=FLOATS)
record("gelu", F.gelu, _np_gelu, UNARY, dtypes=FLOATS, kwargs={"approximate": True},
       owner_kwargs={"approximate": "tanh"})
# torch's softmax without dim= picks one from the rank (deprecated): the records name it
for _n, _ref in (("softmax", _np_softmax), ("log_softmax", _np_log_softmax)):
    record(_n, getattr(F, _n), lambda x, dim, _r=_ref: _r(x, dim), ND[1:], dtypes=FLOATS,
           kwargs={"dim": -1}, errors=(err([(3, 4)], IndexError, "out of range|dim",
                                           kwargs={"dim": 2}),))
    record(_n, getattr(F, _n), lambda x, axis, _r=_ref: _r(x, axis), R2, dtypes=FLOATS,
           kwargs={"axis": 0}, owner_kwargs={"dim": 0})
# jax.nn's logsumexp (axis=, keepdims=): SciPy's meaning
record("logsumexp", F.logsumexp, scipy.special.logsumexp, ND, dtypes=FLOATS, owner="scipy",
       owner_path=None)
record("logsumexp", F.logsumexp, scipy.special.logsumexp, R2, dtypes=FLOATS,
       kwargs={"axis": -1, "keepdims": True}, owner="scipy", owner_path=None)
record("one_hot", F.one_hot, _np_one_hot, [(Ints((5,), 0, 4),), (Ints((2, 3), 0, 4),)],
       dtypes=(I64,), kwargs={"num_classes": 4}, differentiable=False)


LEGACY_COUNT = len(RECORDS)
