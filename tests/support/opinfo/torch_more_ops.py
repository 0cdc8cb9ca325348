"""The rest of torch's tensor functions as jitgrad.* functions and jg.Tensor methods: the
*_scatter forms, mode / histogram / frexp / isin / equal / allclose, renorm, index_reduce,
complex views, integration and vander, norms, softmax methods; NumPy references written to
torch's meaning; torch's own function compared when it is installed."""
import numpy as np
import scipy.integrate
import scipy.special as sps

import jitgrad as jg
from .core import F64, FLOATS, NUMERIC, R2, Ints
from .torch_records import clone_then, function_record, method_record, op

_EAGER = {"traceable": False, "batchable": False, "differentiable": False}


def _np_select_scatter(x, src, dim, index):
    out = np.moveaxis(x.copy(), dim, 0)
    out[index] = src
    return np.moveaxis(out, 0, dim)


def _np_slice_scatter(x, src, dim, start, end, step=1):
    out = np.moveaxis(x.copy(), dim, 0)
    out[start:end:step] = np.moveaxis(src, dim, 0)
    return np.moveaxis(out, 0, dim)


def _np_diagonal_scatter(x, src, offset=0):
    out = x.copy()
    i = np.arange(src.shape[-1])
    out[i - min(offset, 0), i + max(offset, 0)] = src
    return out


op("select_scatter", _np_select_scatter, [((3, 4), (4,))], dtypes=FLOATS,
   kwargs={"dim": 0, "index": 1}, inplace=False)
op("slice_scatter", _np_slice_scatter, [((3, 4), (3, 2))], dtypes=FLOATS,
   kwargs={"dim": 1, "start": 0, "end": 4, "step": 2}, inplace=False)
op("diagonal_scatter", _np_diagonal_scatter, [((3, 4), (3,))], dtypes=FLOATS,
   kwargs={"offset": 1}, inplace=False)


def _np_mode(x, dim):
    """torch.mode on distinct-valued rows: every value occurs once, so the smallest."""
    return [np.min(x, dim), np.argmin(x, dim)]


op("mode", _np_mode, R2, dtypes=FLOATS, kwargs={"dim": 1}, inplace=False,
   differentiable=False)
op("histogram", lambda x, bins: [h.astype(x.dtype) for h in np.histogram(x, bins)],
   [((20,),)], dtypes=FLOATS, kwargs={"bins": 4}, inplace=False, **_EAGER)
op("frexp", lambda x: [np.frexp(x)[0], np.frexp(x)[1].astype(np.int32)], R2, dtypes=FLOATS,
   inplace=False, differentiable=False)
op("isin", lambda x, test_elements: np.isin(x, test_elements), [((3, 4), (5,))],
   dtypes=NUMERIC, domain="nonneg_small", inplace=False, differentiable=False)
# Python bools (torch's), compared as 0-d arrays
for _n, _ref in (("equal", lambda a, b: np.asarray(a.shape == b.shape and (a == b).all())),
                 ("allclose", lambda a, b: np.asarray(np.allclose(a, b)))):
    function_record(_n, lambda a, b, _f=getattr(jg, _n): np.asarray(bool(_f(a, b))), _ref,
                    [((3, 4), (3, 4))], dtypes=NUMERIC, domain="nonneg_small",
                    owner_path=None, **_EAGER)
    method_record(_n, _ref, [((3, 4), (3, 4))], fn=lambda a, b, _n=_n: np.asarray(bool(
        getattr(a, _n)(b))), dtypes=NUMERIC, domain="nonneg_small", owner_path=None, **_EAGER)


def _np_renorm(x, p, dim, maxnorm):
    axes = tuple(a for a in range(x.ndim) if a != dim % x.ndim)
    norms = np.sum(np.abs(x) ** p, axis=axes, keepdims=True) ** (1 / p)
    return x * np.where(norms > maxnorm, maxnorm / (norms + 1e-7), 1.0)


op("renorm", _np_renorm, R2[:2], dtypes=FLOATS, kwargs={"p": 2, "dim": 0, "maxnorm": 1.0},
   tol=1e-4)


def _np_index_reduce(x, dim, index, source, reduce, include_self=True):
    out = np.moveaxis(x.copy(), dim, 0)
    src = np.moveaxis(source, dim, 0)
    for i, j in enumerate(index):
        out[j] = {"prod": np.multiply, "amax": np.maximum, "amin": np.minimum}[reduce](
            out[j], src[i])
    return np.moveaxis(out, 0, dim)


for _r in ("prod", "amax"):
    function_record("index_reduce", lambda x, index, source, dim, reduce: jg.index_reduce(
        x, dim, index, source, reduce), lambda x, index, source, dim, reduce:
        _np_index_reduce(x, dim, index, source, reduce), [((3, 4), Ints((5,), 0, 3), (5, 4))],
        dtypes=FLOATS, kwargs={"dim": 0, "reduce": _r}, owner_path=None)
    method_record("index_reduce", lambda x, index, source, dim, reduce: _np_index_reduce(
        x, dim, index, source, reduce), [((3, 4), Ints((5,), 0, 3), (5, 4))],
        fn=lambda x, index, source, dim, reduce: x.index_reduce(dim, index, source, reduce),
        dtypes=FLOATS, kwargs={"dim": 0, "reduce": _r}, owner_path=None)
    method_record("index_reduce_", lambda x, index, source, dim, reduce: _np_index_reduce(
        x, dim, index, source, reduce), [((3, 4), Ints((5,), 0, 3), (5, 4))],
        fn=lambda x, index, source, dim, reduce: clone_then(x, lambda y: y.index_reduce_(
            dim, index, source, reduce)), dtypes=FLOATS, kwargs={"dim": 0, "reduce": _r},
        owner_path=None, **_EAGER)


def _spd(a):
    return a @ a.T + a.shape[-1] * np.eye(a.shape[-1], dtype=a.dtype)


# cholesky_solve(b, L): the solution of (L L^T) x = b, L from a symmetric positive-definite one
function_record("cholesky_solve", lambda b, a: jg.cholesky_solve(b, jg.cholesky(
    a @ a.T + 3 * jg.eye(3, dtype=a.dtype))), lambda b, a: np.linalg.solve(_spd(a), b),
    [((3, 2), (3, 3))], dtypes=FLOATS, tol=1e-4, owner_path=None)
method_record("cholesky_solve", lambda b, a: np.linalg.solve(_spd(a), b), [((3, 2), (3, 3))],
              fn=lambda b, a: b.cholesky_solve(jg.cholesky(a @ a.T + 3 * jg.eye(
                  3, dtype=a.dtype))), dtypes=FLOATS, tol=1e-4, owner_path=None)
function_record("matrix_rank", jg.matrix_rank, lambda a: np.linalg.matrix_rank(a),
                [((3, 4),), ((4, 2),)], dtypes=FLOATS, differentiable=False, owner_path=None)
function_record("nuclear_norm", jg.nuclear_norm, lambda a: np.linalg.norm(a, "nuc"),
                [((3, 4),)], dtypes=FLOATS, tol=1e-4)
function_record("frobenius_norm", jg.frobenius_norm, lambda a, dim: np.linalg.norm(a, "fro"),
                [((3, 4),)], dtypes=FLOATS, domain="nonzero", kwargs={"dim": (0, 1)})
for _n in ("trapezoid", "trapz"):
    function_record(_n, getattr(jg, _n), lambda y, dim=-1: scipy.integrate.trapezoid(
        y, axis=dim), R2, dtypes=FLOATS)
    function_record(_n, getattr(jg, _n), lambda y, x, dim=-1: scipy.integrate.trapezoid(
        y, x, axis=dim), [((3, 4), (4,))], dtypes=FLOATS)
function_record("cumulative_trapezoid", jg.cumulative_trapezoid,
                lambda y, dim: scipy.integrate.cumulative_trapezoid(y, axis=dim), R2,
                dtypes=FLOATS, kwargs={"dim": 1})
function_record("gradient", jg.gradient, lambda x, dim: [np.gradient(x, axis=dim)], R2[:2],
                dtypes=FLOATS, kwargs={"dim": 1})
function_record("vander", jg.vander, lambda x, N: np.vander(x, N), [((4,),)], dtypes=FLOATS,
                kwargs={"N": 3})
function_record("unravel_index", jg.unravel_index, lambda i, shape: list(np.unravel_index(
    i, shape)), [(Ints((5,), 0, 12),)], dtypes=(np.dtype("int64"),), kwargs={"shape": (3, 4)},
    differentiable=False)
# complex views: float pairs <-> complex
function_record("view_as_complex", jg.view_as_complex, lambda x: x[..., 0] + 1j * x[..., 1],
                [((3, 2),), ((2, 3, 2),)], dtypes=FLOATS, differentiable=False, lowp=())
function_record("view_as_complex_copy", jg.view_as_complex_copy,
                lambda x: x[..., 0] + 1j * x[..., 1], [((3, 2),)], dtypes=FLOATS,
                differentiable=False, lowp=())
for _n in ("view_as_real", "view_as_real_copy"):
    function_record(_n, lambda x, _f=getattr(jg, _n): _f(jg.view_as_complex(x)), np.array,
                    [((3, 2),)], dtypes=FLOATS, differentiable=False, lowp=(), owner_path=None)
function_record("complex", jg.complex, lambda re, im: re + 1j * im, [((3,), (3,)), ((), ())],
                dtypes=FLOATS, differentiable=False, lowp=())
function_record("polar", jg.polar, lambda r, t: r * np.exp(1j * t), [((3,), (3,))],
                dtypes=FLOATS, domain=("positive", "any"), differentiable=False, lowp=())
function_record("imag", lambda re, im: jg.imag(jg.complex(re, im)), lambda re, im: im,
                [((3,), (3,))], dtypes=FLOATS, differentiable=False, lowp=(), owner_path=None)
function_record("broadcast_tensors", lambda a, b: jg.broadcast_tensors(a, b),
                lambda a, b: [np.array(v) for v in np.broadcast_arrays(a, b)],
                [((3, 1), (4,)), ((), (2,))], dtypes=FLOATS)
# x.softmax(dim) / x.log_softmax(dim): torch's methods
method_record("softmax", lambda x, dim: sps.softmax(x, dim), R2, dtypes=FLOATS,
              kwargs={"dim": -1})
method_record("log_softmax", lambda x, dim: sps.log_softmax(x, dim), R2, dtypes=FLOATS,
              kwargs={"dim": 0})
method_record("prelu", lambda x, w: np.where(x > 0, x, w * x), [((3, 4), (1,))], dtypes=FLOATS,
              domain="nonzero")
method_record("diff", lambda x, n=1, dim=-1: np.diff(x, n, dim), R2, dtypes=FLOATS)
method_record("dist", lambda a, b, p=2: np.sum(np.abs(a - b) ** p) ** (1 / p),
              [((3, 4), (3, 4)), ((3, 4), (4,))], dtypes=FLOATS, domain=("any", "nonzero"))
for _n, _dt in (("cfloat", np.complex64), ("cdouble", np.complex128)):
    method_record(_n, lambda x, _d=_dt: x.astype(_d), R2, dtypes=FLOATS, differentiable=False,
                  lowp=())
op("nonzero_static", lambda x, size: np.argwhere(x)[:size], [((3, 4),)], dtypes=NUMERIC,
   domain="nonneg_small", kwargs={"size": 2}, inplace=False, differentiable=False)
function_record("threshold_", lambda x, threshold, value: clone_then(
    x, lambda y: jg.threshold_(y, threshold, value)), lambda x, threshold, value: np.where(
    x > threshold, x, value), R2, dtypes=FLOATS, kwargs={"threshold": 0.5, "value": -1.0},
    **_EAGER)
# rrelu outside training: leaky_relu with the mean of lower and upper as slope
function_record("rrelu", jg.rrelu, lambda x: np.where(x >= 0, x, x * (1 / 8 + 1 / 3) / 2), R2,
                dtypes=FLOATS, domain="nonzero")
function_record("rrelu_", lambda x: clone_then(x, jg.rrelu_), lambda x: np.where(
    x >= 0, x, x * (1 / 8 + 1 / 3) / 2), R2, dtypes=FLOATS, domain="nonzero", **_EAGER)
