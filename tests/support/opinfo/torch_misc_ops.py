"""torch's conversions, constructors, copies and the remaining math as jitgrad.* functions and
jg.Tensor methods: x.double() / x.to(dtype) / x.type(dtype), x.new_zeros(...), zeros / arange /
linspace / eye / full / *_like (float32 by default, int64 arange), the *_copy and *_scatter
forms, windows, norms; NumPy references written to torch's meaning; torch's own function
compared when it is installed."""
import numpy as np
import scipy.linalg
import scipy.signal

import jitgrad as jg
from jitgrad.dtypes import canonical_dtype
from .core import ALL, F32, F64, FLOATS, I32, I64, NUMERIC, R2, UNARY, Ints
from .torch_records import (call_method, clone_then, function_record, method_record, op,
                            positional)

_EAGER = {"traceable": False, "batchable": False, "differentiable": False}

# x.double() etc.: torch's dtype names (non-negative values: x.byte() of a negative is not
# defined the same way everywhere)
for _n, _dt in (("float", "float32"), ("double", "float64"), ("half", "float16"),
                ("bfloat16", "bfloat16"), ("int", "int32"), ("long", "int64"),
                ("short", "int16"), ("char", "int8"), ("byte", "uint8"), ("bool", "bool")):
    method_record(_n, lambda x, dtype: x.astype(dtype), UNARY, fn=lambda x, dtype, _n=_n:
                  getattr(x, _n)(), kwargs={"dtype": canonical_dtype(_dt)}, owner_kwargs={},
                  dtypes=ALL if _n not in ("char", "byte") else NUMERIC,
                  domain="nonneg_small", differentiable=_dt.startswith("float"), lowp=(),
                  owner_path=None if _n == "bfloat16" else "torch.Tensor." + _n)
for _n in ("to", "type", "astype"):
    method_record(_n, lambda x, dtype: x.astype(dtype), UNARY, dtypes=NUMERIC,
                  kwargs={"dtype": F64}, differentiable=False, lowp=(), owner_path=None)
method_record("type_as", lambda x, y: x.astype(y.dtype), [((3,), (2,))], dtypes=NUMERIC,
              differentiable=False)

# x.new_zeros(...): the tensor's dtype
for _n, _ref in (("new_zeros", np.zeros), ("new_ones", np.ones)):
    method_record(_n, lambda x, size, _r=_ref: _r(size, x.dtype), UNARY[:2], dtypes=NUMERIC,
                  kwargs={"size": (2, 3)}, differentiable=False)
method_record("new_full", lambda x, size, fill_value: np.full(size, fill_value, x.dtype),
              UNARY[:2], dtypes=NUMERIC, kwargs={"size": (2,), "fill_value": 3},
              differentiable=False)
method_record("new_tensor", lambda x, data: np.asarray(data, x.dtype), UNARY[:2],
              dtypes=NUMERIC, kwargs={"data": [1, 2]}, differentiable=False)
method_record("new_empty", lambda x, size: np.zeros(size, x.dtype).shape, UNARY[:2],
              fn=lambda x, size: x.new_empty(size).shape, dtypes=NUMERIC, kwargs={"size": (2,)},
              owner_path=None, **_EAGER)
for _n, _ref in (("dim", np.ndim), ("ndimension", np.ndim), ("nelement", np.size),
                 ("numel", np.size), ("element_size", lambda x: x.itemsize)):
    method_record(_n, lambda x, _r=_ref: np.asarray(_r(x)), UNARY, dtypes=ALL,
                  owner_path=None if _n == "numel" else "torch.Tensor." + _n, **_EAGER)
method_record("item", lambda x: x.reshape(()), [((),), ((1, 1),)], dtypes=NUMERIC,
              fn=lambda x: np.asarray(x.item(), x.dtype), owner_path=None, **_EAGER)
method_record("tolist", lambda x: x, [((3, 2),), ((),)], dtypes=NUMERIC,
              fn=lambda x: np.asarray(x.tolist(), x.dtype), owner_path=None, **_EAGER)
method_record("numpy", np.asarray, UNARY, dtypes=ALL, owner_path=None, **_EAGER)
for _n in ("copy", "conjugate"):
    method_record(_n, np.array, UNARY, dtypes=ALL, owner_path=None)
method_record("adjoint", lambda x: np.swapaxes(x, -1, -2), R2, dtypes=FLOATS)
function_record("adjoint", jg.adjoint, lambda x: np.swapaxes(x, -1, -2), R2, dtypes=FLOATS)
method_record("ptp", np.ptp, R2, dtypes=FLOATS, owner_path=None)   # jitgrad's (NumPy's) extra
method_record("copy_", lambda x, src: np.broadcast_to(src, x.shape).astype(x.dtype),
              [((3, 4), (4,)), ((3, 4), (3, 4))], dtypes=FLOATS,
              fn=lambda x, src: clone_then(x, lambda y: y.copy_(src)), owner_path=None,
              **_EAGER)
method_record("fill_", lambda x, value: np.full_like(x, value), UNARY, dtypes=NUMERIC,
              kwargs={"value": 2}, fn=lambda x, value: clone_then(x, lambda y: y.fill_(value)),
              **_EAGER)
function_record("fill_", lambda x, value: clone_then(x, lambda y: jg.fill_(y, value)),
                lambda x, value: np.full_like(x, value), UNARY, dtypes=NUMERIC,
                kwargs={"value": 2}, **_EAGER)
function_record("fill", jg.fill, lambda x, value: np.full_like(x, value), UNARY,
                dtypes=NUMERIC, kwargs={"value": 2}, differentiable=False)
method_record("zero_", np.zeros_like, UNARY, dtypes=NUMERIC,
              fn=lambda x: clone_then(x, lambda y: y.zero_()), **_EAGER)
function_record("zero_", lambda x: clone_then(x, jg.zero_), np.zeros_like, UNARY,
                dtypes=NUMERIC, **_EAGER)


def _np_fill_diagonal(x, fill_value):
    out = x.copy()
    np.fill_diagonal(out, fill_value)
    return out


method_record("fill_diagonal_", _np_fill_diagonal, [((3, 4),), ((4, 3),)], dtypes=FLOATS,
              kwargs={"fill_value": 2.0}, fn=lambda x, fill_value: clone_then(
                  x, lambda y: y.fill_diagonal_(fill_value)), **_EAGER)
for _n in ("detach_",):
    method_record(_n, np.array, UNARY, dtypes=FLOATS, fn=lambda x: clone_then(
        x, lambda y: y.detach_()), **_EAGER)
    function_record(_n, lambda x: clone_then(x, jg.detach_), np.array, UNARY, dtypes=FLOATS,
                    **_EAGER)


def _np_unfold(x, dimension, size, step):
    dimension %= x.ndim
    n = (x.shape[dimension] - size) // step + 1
    win = [np.take(x, range(i * step, i * step + size), dimension) for i in range(n)]
    return np.moveaxis(np.stack(win, dimension), dimension + 1, -1)


# the *_copy functions: their view op's values, in a new tensor
_COPIES = {
    "alias_copy": (np.array, UNARY, {}), "detach_copy": (np.array, UNARY, {}),
    "diagonal_copy": (lambda x: np.diagonal(x).copy(), R2, {}),
    "expand_copy": (lambda x, size: np.broadcast_to(x, size).copy(), [((3, 1),)],
                    {"size": (2, 3, 4)}),
    "permute_copy": (lambda x, dims: np.transpose(x, dims), R2[:1], {"dims": (1, 0)}),
    "select_copy": (lambda x, dim, index: np.take(x, index, dim), R2, {"dim": 0, "index": 0}),
    "slice_copy": (lambda x, dim, start, end, step: np.take(x, range(start, min(
        end, x.shape[dim]), step), dim), R2, {"dim": 1, "start": 1, "end": 4, "step": 2}),
    "squeeze_copy": (np.squeeze, [((1, 3, 1),)], {}),
    "t_copy": (lambda x: x.T.copy(), [((3, 4),)], {}),
    "transpose_copy": (lambda x, dim0, dim1: np.swapaxes(x, dim0, dim1), R2,
                       {"dim0": 0, "dim1": -1}),
    "unsqueeze_copy": (lambda x, dim: np.expand_dims(x, dim), R2, {"dim": 1}),
    "view_copy": (lambda x, size: x.reshape(size), R2, {"size": (-1,)}),
    "unfold_copy": (_np_unfold, [((3, 5),)], {"dimension": 1, "size": 2, "step": 2}),
}
for _n, (_ref, _cases, _kw) in _COPIES.items():
    function_record(_n, positional(getattr(jg, _n), tuple(_kw) if _n == "unfold_copy" else (
        "size",) if "size" in _kw else ()), _ref, _cases, dtypes=FLOATS, kwargs=_kw)
for _n, _ref in (("split_copy", lambda x, split_size, dim: np.split(x, [2], dim)),
                 ("split_with_sizes_copy", lambda x, split_sizes, dim: np.split(x, [2], dim)),
                 ("unsafe_split", lambda x, split_size, dim: np.split(x, [2], dim)),
                 ("unsafe_split_with_sizes", lambda x, split_sizes, dim: np.split(x, [2], dim))):
    _kw = {"split_size" if "sizes" not in _n else "split_sizes": 2 if "sizes" not in _n
           else [2, 1], "dim": 0}
    _by = ("split_size" if "sizes" not in _n else "split_sizes",)
    function_record(_n, positional(getattr(jg, _n), _by), _ref, [((3, 4),)], dtypes=FLOATS,
                    kwargs=_kw)
    if hasattr(jg.Tensor, _n):
        method_record(_n, _ref, [((3, 4),)], dtypes=FLOATS, kwargs=_kw,
                      fn=positional(call_method(_n), _by))
op("unsafe_chunk", lambda x, chunks, dim: np.split(x, [2], dim), [((4, 3),)], dtypes=FLOATS,
   kwargs={"chunks": 2, "dim": 0}, inplace=False)
op("unbind_copy", lambda x, dim: list(np.moveaxis(x, dim, 0)), R2[:1], dtypes=FLOATS,
   kwargs={"dim": 1}, method=False, inplace=False)
op("narrow_copy", lambda x, dim, start, length: np.take(x, range(start, start + length), dim),
   R2, dtypes=FLOATS, kwargs={"dim": 1, "start": 1, "length": 2}, inplace=False)
method_record("unfold", _np_unfold, [((3, 5),), ((7,),)], dtypes=FLOATS,
              kwargs={"dimension": -1, "size": 3, "step": 2})
method_record("sum_to_size", lambda x, size: x.sum(0, keepdims=True), [((3, 4),)],
              dtypes=FLOATS, kwargs={"size": (1, 4)}, fn=lambda x, size: x.sum_to_size(*size),
              owner_path=None)

# constructors: no data arguments (one case, the record's kwargs); torch's float32 default,
# int64 for integer ranges
_MADE = {"dtypes": (F32,), "differentiable": False, "batchable": False}
for _n, _ref, _kw in (
        ("zeros", lambda size: np.zeros(size, F32), {"size": (2, 3)}),
        ("ones", lambda size: np.ones(size, F32), {"size": (0, 3)}),
        ("full", lambda size, fill_value: np.full(size, fill_value, F32),
         {"size": (2,), "fill_value": 1.5}),
        ("arange", lambda start, end, step: np.arange(start, end, step),
         {"start": 1, "end": 9, "step": 3}),
        ("arange", lambda start, end, step: np.arange(start, end, step, F32),
         {"start": 0.5, "end": 2, "step": 0.25}),
        ("range", lambda start, end: np.arange(start, end + 1, dtype=F32),
         {"start": 1, "end": 4}),
        ("linspace", lambda start, end, steps: np.linspace(start, end, steps, dtype=F32),
         {"start": -1, "end": 2, "steps": 7}),
        ("logspace", lambda start, end, steps: np.logspace(start, end, steps, dtype=F32),
         {"start": 0, "end": 2, "steps": 5}),
        ("eye", lambda n, m: np.eye(n, m, dtype=F32), {"n": 3, "m": 4}),
        ("scalar_tensor", lambda s: np.asarray(s, F32), {"s": 2}),
        ("tensor", lambda data: np.asarray(data, F32), {"data": [[1.0, 2.0], [3.0, 4.5]]}),
        ("tensor", lambda data: np.asarray(data, I64), {"data": [1, 2, 3]}),
        ("tril_indices", lambda row, col, offset: np.stack(np.tril_indices(row, offset, col)),
         {"row": 3, "col": 4, "offset": 1}),
        ("triu_indices", lambda row, col, offset: np.stack(np.triu_indices(row, offset, col)),
         {"row": 4, "col": 3, "offset": -1}),
        ("hann_window", lambda window_length: np.hanning(window_length + 1)[:-1].astype(F32),
         {"window_length": 6}),
        ("hamming_window", lambda window_length: np.hamming(window_length + 1)[:-1].astype(F32),
         {"window_length": 6}),
        ("blackman_window", lambda window_length: np.blackman(window_length + 1)[:-1].astype(
            F32), {"window_length": 6}),
        ("bartlett_window", lambda window_length: np.bartlett(window_length + 1)[:-1].astype(
            F32), {"window_length": 6}),
        ("kaiser_window", lambda window_length: np.kaiser(window_length + 1, 12.0)[:-1].astype(
            F32), {"window_length": 6})):
    function_record(_n, positional(getattr(jg, _n), ("size",) if _n in ("zeros", "ones")
                                   else ()), _ref, [()], kwargs=_kw, **_MADE)
# torch.empty's values are unspecified: its shape and dtype
for _n, _fn in (("empty", lambda size: jg.empty(size)), ("empty_like", lambda x: jg.empty_like(
        jg.zeros(x)))):
    function_record(_n, lambda size, _f=_fn: np.asarray(_f(size).shape),
                    lambda size: np.asarray(size), [()], kwargs={"size": (2, 3)},
                    owner_path=None, traceable=False, **_MADE)
for _n, _ref in (("zeros_like", np.zeros_like), ("ones_like", np.ones_like)):
    function_record(_n, getattr(jg, _n), _ref, UNARY, dtypes=NUMERIC, differentiable=False)
function_record("full_like", jg.full_like, lambda x, fill_value: np.full_like(x, fill_value),
                UNARY, dtypes=NUMERIC, kwargs={"fill_value": 3}, differentiable=False)
for _n in ("as_tensor", "asarray"):
    function_record(_n, getattr(jg, _n), np.array, UNARY, dtypes=ALL, differentiable=False)
# jg.tensor copies into a new leaf: traced values raise (tests/torch_api)
function_record("tensor", jg.tensor, np.array, UNARY, dtypes=ALL, **_EAGER)
function_record("from_numpy", lambda x: jg.from_numpy(np.asarray(x)), np.array, UNARY,
                dtypes=ALL, owner_path=None, **_EAGER)
