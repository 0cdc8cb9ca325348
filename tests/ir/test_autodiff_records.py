"""check_grads (order 2, forward and reverse, float64) for every differentiable function in the op
record table, over the same shapes as the forward tests (broadcasting included). Index and mask
arguments stay fixed; the float arguments are differentiated."""
import numpy as np
import pytest

from jitgrad.test_util import check_grads
from tests.support.op_records import F64, RECORDS, case_id, make_args

# a float32 round trip makes central differences accurate to ~1e-3 only
TOLERANCE = {"astype(dtype='float32')": 2e-3}
# sqrt at 0: the std of one element has no derivative (nan, as in JAX and PyTorch)
NO_DERIVATIVE = {"std[float64[]]"}

CASES = [(rec, case) for rec in RECORDS if rec.differentiable and F64 in rec.dtypes
         and F64 in rec.grad_ok_dtypes for case in rec.cases]


def _split(rec, args):
    """(function of the float arguments only, those arguments)."""
    is_float = [isinstance(a, np.ndarray) and a.dtype == F64 for a in args]

    def fn(*floats):
        it = iter(floats)
        return rec.jg(*[next(it) if f else a for a, f in zip(args, is_float)])
    return fn, tuple(a for a, f in zip(args, is_float) if f)


@pytest.mark.parametrize("rec,case", CASES,
                         ids=[case_id(r, make_args(r, c, F64)) for r, c in CASES])
def test_check_grads(rec, case):
    args = make_args(rec, case, F64)
    if case_id(rec, args) in NO_DERIVATIVE:
        pytest.skip("not differentiable at this point")
    with np.errstate(all="ignore"):
        value = rec.np(*args)
    if any(np.isnan(v).any() for v in (value if isinstance(value, list) else [value])):
        pytest.skip("a nan value (e.g. the mean of nothing) has no numerical derivative")
    fn, floats = _split(rec, args)
    tol = TOLERANCE.get(rec.id)
    check_grads(fn, floats, order=2, modes=("fwd", "rev"), atol=tol, rtol=tol)
