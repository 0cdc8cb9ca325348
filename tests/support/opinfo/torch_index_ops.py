"""torch's indexing and matrix functions as jitgrad.* functions and jg.Tensor methods: gather /
scatter / index_* along dim (torch's argument order: input, dim, index, ...), masks, take,
searchsorted, stacking, matrix products and decompositions; NumPy references written to torch's
meaning. The dim-first functions take dim as a keyword here (cases hold arrays only), so their
records compare with torch by the method spelled the same way (x.gather(dim=, index=))."""
import numpy as np

import jitgrad as jg
from .core import ALL, FLOATS, INTS, NUMERIC, Bools, Ints, err
from .torch_records import clone_then, function_record, method_record, op

_I = Ints((3, 2), 0, 4)


def _by_keyword(name, params, method=False, in_place=False):
    """torch.name(x, **dict(zip(params, args))) or x.name(...): the dim-first functions, called
    by keyword; `in_place` runs x.name_(...) on a clone and checks it returns that clone."""
    def fn(x, *args, **kwargs):
        kw = {**dict(zip(params, args)), **kwargs}
        if in_place:
            y = x.clone()
            assert getattr(y, name + "_")(**kw) is y, f"{name}_ returned a new tensor"
            return y
        return getattr(x, name)(**kw) if method else getattr(jg, name)(x, **kw)
    return fn


def _np_scatter(x, index, src, dim, reduce=None):
    out = x.copy()
    src = np.broadcast_to(src, index.shape) if np.ndim(src) == 0 else src  # torch reads src[pos]
    for pos in np.ndindex(*index.shape):
        target = list(pos)
        target[dim] = index[pos]
        target = tuple(target)
        if reduce == "sum":
            out[target] += src[pos]
        else:
            out[target] = src[pos]
    return out


def _np_index_add(x, index, source, dim, alpha=1):
    out = np.moveaxis(x.copy(), dim, 0)
    np.add.at(out, index, alpha * np.moveaxis(source, dim, 0))
    return np.moveaxis(out, 0, dim)


def _np_index_copy(x, index, source, dim):
    out = np.moveaxis(x.copy(), dim, 0)
    out[index] = np.moveaxis(source, dim, 0)
    return np.moveaxis(out, 0, dim)


def _np_index_fill(x, index, dim, value):
    out = np.moveaxis(x.copy(), dim, 0)
    out[index] = value
    return np.moveaxis(out, 0, dim)


# name -> (positional parameter names after input, reference, cases, kwargs, extra)
_DIM_FIRST = {
    "gather": (("index",), lambda x, index, dim: np.take_along_axis(x, index, dim),
               [((3, 4), _I)], {"dim": 1}, {}),
    "scatter": (("index", "src"), lambda x, index, src, dim: _np_scatter(x, index, src, dim),
                [((3, 4), Ints((3, 2), 0, 1), (3, 2))], {"dim": 1}, {}),
    "scatter_add": (("index", "src"), lambda x, index, src, dim: _np_scatter(
        x, index, src, dim, "sum"), [((3, 4), _I, (3, 2)), ((3, 4), _I, (3, 3))], {"dim": 1},
        {}),
    "index_select": (("index",), lambda x, index, dim: np.take(x, index, dim),
                     [((3, 4), Ints((5,), 0, 3)), ((3, 4), Ints((0,), 0, 3))], {"dim": 0}, {}),
    "index_add": (("index", "source"), _np_index_add,
                  [((3, 4), Ints((5,), 0, 4), (3, 5))], {"dim": 1}, {}),
    "index_copy": (("index", "source"), _np_index_copy,
                   [((4, 3), Ints((1,), 0, 4), (1, 3))], {"dim": 0}, {}),
    "index_fill": (("index",), _np_index_fill, [((3, 4), Ints((2,), 0, 4))],
                   {"dim": 1, "value": -1.5}, {}),
}
# torch's own function is not compared: its dim comes before the index arguments
for _n, (_params, _ref, _cases, _kw, _extra) in _DIM_FIRST.items():
    function_record(_n, _by_keyword(_n, _params), _ref, _cases, dtypes=FLOATS, kwargs=_kw,
                    owner_path=None, **_extra)
    method_record(_n, _ref, _cases, fn=_by_keyword(_n, _params, method=True), dtypes=FLOATS,
                  kwargs=_kw, owner_path=None, **_extra)
    if hasattr(jg.Tensor, _n + "_"):
        method_record(_n + "_", _ref, _cases, fn=_by_keyword(_n, _params, in_place=True),
                      dtypes=FLOATS, kwargs=_kw, owner_path=None, differentiable=False,
                      traceable=False, batchable=False, **_extra)


def _np_scatter_reduce(x, index, src, dim, reduce, include_self=True):
    out = x.copy()
    ufunc = {"sum": np.add, "prod": np.multiply, "amax": np.maximum, "amin": np.minimum}[reduce]
    for pos in np.ndindex(*index.shape):
        target = list(pos)
        target[dim] = index[pos]
        out[tuple(target)] = ufunc(out[tuple(target)], src[pos])
    return out


for _r in ("sum", "amax"):
    function_record("scatter_reduce", _by_keyword("scatter_reduce", ("index", "src")),
                    _np_scatter_reduce, [((3, 4), _I, (3, 2))], dtypes=FLOATS,
                    kwargs={"dim": 1, "reduce": _r}, owner_path=None)
    method_record("scatter_reduce", _np_scatter_reduce, [((3, 4), _I, (3, 2))],
                  fn=_by_keyword("scatter_reduce", ("index", "src"), method=True),
                  dtypes=FLOATS, kwargs={"dim": 1, "reduce": _r}, owner_path=None)
    method_record("scatter_reduce_", _np_scatter_reduce, [((3, 4), _I, (3, 2))],
                  fn=_by_keyword("scatter_reduce", ("index", "src"), in_place=True),
                  dtypes=FLOATS, kwargs={"dim": 1, "reduce": _r}, owner_path=None,
                  differentiable=False, traceable=False, batchable=False)

_MASKED = [((3, 4), Bools((3, 4))), ((3, 4), Bools((4,))), ((), Bools(()))]
op("masked_fill", lambda x, mask, value: np.where(mask, value, x), _MASKED, dtypes=NUMERIC,
   kwargs={"value": 2})
op("masked_select", lambda x, mask: np.broadcast_to(x, np.broadcast_shapes(
    x.shape, mask.shape))[np.broadcast_to(mask, np.broadcast_shapes(x.shape, mask.shape))],
   _MASKED, dtypes=NUMERIC, inplace=False, traceable=False, batchable=False,
   differentiable=False)


def _np_masked_scatter(x, mask, source):
    out = x.copy()
    out[mask] = source.reshape(-1)[:int(mask.sum())]
    return out


op("masked_scatter", _np_masked_scatter, [((3, 4), Bools((3, 4)), (12,))], dtypes=FLOATS,
   traceable=False, batchable=False, differentiable=False)
op("take", lambda x, index: np.take(x.reshape(-1), index), [((3, 4), Ints((5,), -12, 12)),
                                                            ((5,), Ints((2, 2), 0, 5))],
   dtypes=NUMERIC, inplace=False)
op("take_along_dim", lambda x, indices, dim: np.take_along_axis(x, indices, dim),
   [((3, 4), _I)], dtypes=FLOATS, kwargs={"dim": 1}, inplace=False)
op("put", lambda x, index, source: _np_put(x, index, source), [((3, 4), Ints((3,), 0, 12),
                                                               (3,))], dtypes=FLOATS)


def _np_put(x, index, source):
    out = x.copy()
    out.reshape(-1)[index] = source
    return out


function_record("index_put", lambda x, i, v: jg.index_put(x, (i,), v),
                lambda x, i, v: _np_put_rows(x, i, v), [((4, 3), Ints((2,), 0, 4), (3,))],
                dtypes=FLOATS, owner_path=None)
method_record("index_put", lambda x, i, v: _np_put_rows(x, i, v),
              [((4, 3), Ints((2,), 0, 4), (3,))], fn=lambda x, i, v: x.index_put((i,), v),
              dtypes=FLOATS, owner_path=None)
_ROWS = [((4, 3), Ints((2,), 0, 4), (3,))]
_IN_PLACE = {"owner_path": None, "differentiable": False, "traceable": False, "batchable": False}
function_record("index_put_", lambda x, i, v: clone_then(x, lambda y: jg.index_put_(y, (i,), v)),
                lambda x, i, v: _np_put_rows(x, i, v), _ROWS, dtypes=FLOATS, **_IN_PLACE)
method_record("index_put_", lambda x, i, v: _np_put_rows(x, i, v), _ROWS,
              fn=lambda x, i, v: clone_then(x, lambda y: y.index_put_((i,), v)),
              dtypes=FLOATS, **_IN_PLACE)


def _np_put_rows(x, i, v):
    out = x.copy()
    out[i] = v
    return out


# data-dependent shapes: eager only
op("nonzero", lambda x: np.argwhere(x), [((3, 4),), ((5,),)], dtypes=NUMERIC,
   domain="nonneg_small", inplace=False, traceable=False, batchable=False,
   differentiable=False)
op("argwhere", np.argwhere, [((3, 4),), ((5,),)], dtypes=NUMERIC, domain="nonneg_small",
   inplace=False, traceable=False, batchable=False, differentiable=False)
op("bincount", np.bincount, [(Ints((6,), 0, 5),)], dtypes=(np.dtype("int64"),),
   inplace=False, traceable=False, batchable=False, differentiable=False)
op("histc", lambda x, bins, min, max: np.histogram(x, bins, (min, max))[0].astype(x.dtype),
   [((20,),)], dtypes=FLOATS, kwargs={"bins": 4, "min": -2, "max": 2}, inplace=False,
   differentiable=False)
# the sorted sequence: a drawn one, sorted (torch's own function is not called on the draw)
function_record("searchsorted", lambda s, v, **k: jg.searchsorted(jg.sort(s).values, v, **k),
                lambda s, v, right=False: np.searchsorted(np.sort(s), v, "right" if right
                                                          else "left"),
                [((5,), (3, 4)), ((6,), ())], dtypes=FLOATS, differentiable=False,
                owner_path=None)
function_record("searchsorted", lambda s, v, **k: jg.searchsorted(jg.sort(s).values, v, **k),
                lambda s, v, right: np.searchsorted(np.sort(s), v, "right"),
                [((5,), (3, 4))], dtypes=FLOATS, differentiable=False, owner_path=None,
                kwargs={"right": True})
function_record("bucketize", lambda v, b: jg.bucketize(v, jg.sort(b).values),
                lambda v, b: np.searchsorted(np.sort(b), v), [((3, 4), (5,))], dtypes=FLOATS,
                differentiable=False, owner_path=None)
# x.where(condition, y): torch's method takes the condition second
method_record("where", lambda x, c, y: np.where(c, x, y), [((3, 4), Bools((3, 4)), ()),
                                                          ((4,), Bools((3, 1)), (3, 4))],
              dtypes=NUMERIC)
