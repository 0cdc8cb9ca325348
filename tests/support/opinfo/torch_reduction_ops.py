"""torch's reductions, scans and sorts as jitgrad.* functions and jg.Tensor methods: dim= and
keepdim=, unbiased std / var (correction=), (values, indices) pairs from max(dim), median(dim),
sort, topk, kthvalue, cummax; NumPy references of torch's definitions (the lower median, sort
ascending, topk descending); torch's own function compared when it is installed."""
import numpy as np
import scipy.special as sps

import jitgrad as jg
from .core import ALL, F64, FLOATS, INTS, NUMERIC, R2, err
from .torch_records import function_record, method_record, op

_DIM_ERROR = (err([(3, 4)], IndexError, "out of range|bounds", kwargs={"dim": 2}),)


def _np_dim(f):
    """A NumPy reduction as torch's f(x, dim, keepdim=False)."""
    return lambda x, dim=None, keepdim=False: f(x, axis=dim, keepdims=keepdim)


def _with_index(value_of, index_of):
    """torch's (values, indices) of a reduction along dim."""
    def ref(x, dim, keepdim=False):
        v, i = value_of(x, axis=dim), index_of(x, axis=dim)
        if keepdim:
            v, i = np.expand_dims(v, dim), np.expand_dims(i, dim)
        return [v, i.astype(np.int64)]
    return ref


def _lower_median(x, axis):
    return np.take_along_axis(np.sort(x, axis), np.full((1,) * x.ndim, (x.shape[axis] - 1) // 2),
                              axis).squeeze(axis)


def _lower_median_index(x, axis):
    return np.take_along_axis(np.argsort(x, axis, kind="stable"), np.full(
        (1,) * x.ndim, (x.shape[axis] - 1) // 2), axis).squeeze(axis)


_RECORDED = {"sum", "mean", "amax", "amin", "logsumexp", "var", "std", "cumsum", "cumprod",
             "logcumsumexp"}     # functions recorded in torch_ops.py
for _n, _ref in (("sum", np.sum), ("mean", np.mean), ("prod", np.prod), ("amax", np.amax),
                 ("amin", np.amin), ("nansum", np.nansum), ("nanmean", np.nanmean),
                 ("logsumexp", sps.logsumexp)):
    op(_n, _np_dim(_ref), R2, dtypes=FLOATS, kwargs={"dim": 1}, errors=_DIM_ERROR,
       function=_n not in _RECORDED, inplace=False, domain="near1" if _n == "prod" else "any")
    if _n != "logsumexp":
        op(_n, _np_dim(_ref), R2[:2], dtypes=FLOATS, function=_n not in ("sum", "mean"),
           inplace=False, domain="near1" if _n == "prod" else "any")
    if _n != "prod":        # torch.prod takes one dim
        op(_n, _np_dim(_ref), R2[:2], dtypes=FLOATS, kwargs={"dim": (0, -1), "keepdim": True},
           function=False, inplace=False)
for _n, _ref in (("all", np.all), ("any", np.any)):
    op(_n, _np_dim(_ref), R2, dtypes=ALL, kwargs={"dim": 1}, inplace=False,
       domain="nonneg_small", differentiable=False)
    op(_n, _np_dim(_ref), (((),),) + R2, dtypes=ALL, inplace=False, domain="nonneg_small",
       differentiable=False)
op("count_nonzero", lambda x, dim=None: np.count_nonzero(x, axis=dim), R2, dtypes=NUMERIC,
   kwargs={"dim": 1}, inplace=False, domain="nonneg_small", differentiable=False)
op("sum", lambda x, dtype: np.sum(x, dtype=np.float64), R2, dtypes=INTS,
   kwargs={"dtype": F64}, inplace=False, differentiable=False, owner_path=None)

# torch's var / std: unbiased (correction=1) unless told; NumPy's ddof= keeps NumPy's meaning
for _n, _ref in (("var", np.var), ("std", np.std)):
    op(_n, lambda x, dim, correction, _r=_ref: _r(x, axis=dim, ddof=correction), R2,
       dtypes=FLOATS, kwargs={"dim": 1, "correction": 0}, inplace=False)
    method_record(_n, lambda x, dim, _r=_ref: _r(x, axis=dim, ddof=1), R2, dtypes=FLOATS,
                  kwargs={"dim": 1})
    method_record(_n, lambda x, _r=_ref: _r(x, ddof=1), R2, dtypes=FLOATS)
    method_record(_n, lambda x, unbiased, _r=_ref: _r(x, ddof=int(unbiased)), R2,
                  dtypes=FLOATS, kwargs={"unbiased": False})
for _n, _ref in (("var_mean", np.var), ("std_mean", np.std)):
    function_record(_n, getattr(jg, _n),
                    lambda x, dim, _r=_ref: [_r(x, axis=dim, ddof=1), np.mean(x, axis=dim)],
                    R2, dtypes=FLOATS, kwargs={"dim": 1})

# (values, indices) along dim
for _n, _v, _i in (("max", np.max, np.argmax), ("min", np.min, np.argmin),
                   ("median", _lower_median, _lower_median_index)):
    op(_n, _with_index(_v, _i), R2, dtypes=FLOATS, kwargs={"dim": 1}, inplace=False,
       errors=_DIM_ERROR)
    op(_n, _with_index(_v, _i), R2, dtypes=FLOATS, kwargs={"dim": 0, "keepdim": True},
       inplace=False)
op("max", np.max, R2, dtypes=NUMERIC, inplace=False)
op("min", np.min, R2, dtypes=NUMERIC, inplace=False)
op("max", np.maximum, [((3, 4), (4,)), ((5,), (5,))], dtypes=NUMERIC, inplace=False)
op("min", np.minimum, [((3, 4), (4,)), ((5,), (5,))], dtypes=NUMERIC, inplace=False)
op("median", lambda x: _lower_median(x.reshape(-1), 0), R2, dtypes=FLOATS, inplace=False)
op("nanmedian", lambda x: _lower_median(x.reshape(-1), 0), R2, dtypes=FLOATS, inplace=False)
op("nanmedian", _with_index(_lower_median, _lower_median_index), R2, dtypes=FLOATS,
   kwargs={"dim": 1}, inplace=False)
op("kthvalue", lambda x, k, dim: _with_index(
    lambda a, axis: np.sort(a, axis).take(k - 1, axis),
    lambda a, axis: np.argsort(a, axis).take(k - 1, axis))(x, dim), R2, dtypes=FLOATS,
   kwargs={"k": 2, "dim": -1}, inplace=False)
op("aminmax", lambda x, dim: [np.min(x, dim), np.max(x, dim)], R2, dtypes=NUMERIC,
   kwargs={"dim": 1}, inplace=False)
for _n, _ref in (("argmax", np.argmax), ("argmin", np.argmin)):
    op(_n, lambda x, dim=None, _r=_ref: _r(x, axis=dim), R2, dtypes=NUMERIC, kwargs={"dim": 1},
       inplace=False, differentiable=False, errors=_DIM_ERROR)
    op(_n, lambda x, _r=_ref: _r(x), R2, dtypes=FLOATS, inplace=False, differentiable=False)
op("quantile", lambda x, q, dim: np.quantile(x, q, axis=dim), R2, dtypes=FLOATS,
   kwargs={"q": 0.3, "dim": 1}, inplace=False)
op("nanquantile", lambda x, q, dim: np.nanquantile(x, q, axis=dim), R2, dtypes=FLOATS,
   kwargs={"q": 0.7, "dim": -1}, inplace=False)
op("norm", lambda x, p, dim: np.sum(np.abs(x) ** p, axis=dim) ** (1 / p), R2, dtypes=FLOATS,
   kwargs={"p": 2, "dim": 1}, inplace=False, domain="nonzero")

# scans
for _n, _ref in (("cumsum", np.cumsum), ("cumprod", np.cumprod),
                 ("logcumsumexp", np.logaddexp.accumulate)):
    op(_n, lambda x, dim, _r=_ref: _r(x, dim), R2, dtypes=FLOATS, kwargs={"dim": 1},
       function=False, domain="near1", errors=_DIM_ERROR)
for _n, _acc, _arg in (("cummax", np.maximum.accumulate, np.greater_equal),
                       ("cummin", np.minimum.accumulate, np.less_equal)):
    def _cum_ref(x, dim, _acc=_acc, _arg=_arg):
        v = _acc(x, dim)
        idx = np.arange(x.shape[dim]).reshape([-1 if a == dim % x.ndim else 1
                                               for a in range(x.ndim)])
        hit = np.where(x == v, idx, 0)                          # the latest index reaching it
        return [v, np.maximum.accumulate(hit, dim).astype(np.int64)]
    op(_n, _cum_ref, R2, dtypes=FLOATS, kwargs={"dim": 1}, inplace=False)

# sorting: ascending sort / argsort, descending topk
op("sort", lambda x, dim=-1, descending=False: [
    np.flip(np.sort(x, dim), dim) if descending else np.sort(x, dim),
    np.flip(np.argsort(x, dim), dim) if descending else np.argsort(x, dim)], R2, dtypes=FLOATS,
   inplace=False, errors=_DIM_ERROR[:0])
op("sort", lambda x, dim, descending: [np.flip(np.sort(x, dim), dim),
                                       np.flip(np.argsort(x, dim), dim)], R2, dtypes=FLOATS,
   kwargs={"dim": 0, "descending": True}, inplace=False)
op("argsort", lambda x, dim=-1, descending=False: np.flip(np.argsort(x, dim), dim)
   if descending else np.argsort(x, dim), R2, dtypes=FLOATS, inplace=False,
   differentiable=False)
op("argsort", lambda x, dim, descending: np.flip(np.argsort(x, dim), dim), R2, dtypes=FLOATS,
   kwargs={"dim": 1, "descending": True}, inplace=False, differentiable=False)
op("msort", lambda x: np.sort(x, 0), R2, dtypes=FLOATS, inplace=False)
op("topk", lambda x, k, dim=-1: [np.flip(np.sort(x, dim), dim).take(range(k), dim),
                                 np.flip(np.argsort(x, dim), dim).take(range(k), dim)], R2,
   dtypes=FLOATS, kwargs={"k": 1}, inplace=False,
   errors=(err([(3, 4)], (ValueError, RuntimeError, IndexError), "range|k|size",
               kwargs={"k": 5}),))
op("topk", lambda x, k, dim: [np.flip(np.sort(x, dim), dim).take(range(k), dim),
                              np.flip(np.argsort(x, dim), dim).take(range(k), dim)], R2[:2],
   dtypes=FLOATS, kwargs={"k": 2, "dim": 0}, inplace=False)
# data-dependent output shapes: eager only
op("unique", np.unique, R2, dtypes=NUMERIC, domain="nonneg_small", inplace=False,
   traceable=False, differentiable=False)
op("unique_consecutive", lambda x: x.reshape(-1)[np.r_[True, x.reshape(-1)[1:]
                                                        != x.reshape(-1)[:-1]]],
   [((12,),), ((3, 4),)], dtypes=INTS, domain="nonneg_small", inplace=False, traceable=False,
   differentiable=False)
