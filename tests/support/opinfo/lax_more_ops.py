"""More of jitgrad.lax's records (JAX owns the names: no implicit promotion or broadcasting;
NumPy references, jax.lax's own function where jax is installed): elementwise math and
comparisons, reductions, scans, indexing, convolutions and control flow. lax_ops.py gathers
them."""
import numpy as np
import scipy.special

import jitgrad.lax as lax
from .core import F32, F64, FLOATS, I32, I64, INTS, R2, Bools, Ints, err, table

RECORDS, record = table("jax", "jax.lax.")
SAME = [((),), ((5,),), ((3, 4),), ((2, 0, 3),)]
PAIRS = [((), ()), ((5,), (5,)), ((3, 4), (3, 4)), ((0, 3), (0, 3))]
_MISMATCH = err([(3, 4), (4,)], (TypeError, ValueError), "shape|broadcast|rank")

for _n, _ref, _dom, _d in (
        ("acos", np.arccos, "unit", True), ("asin", np.arcsin, "unit", True),
        ("atan", np.arctan, "any", True), ("acosh", np.arccosh, "ge1", True),
        ("asinh", np.arcsinh, "any", True), ("atanh", np.arctanh, "unit", True),
        ("sinh", np.sinh, "any", True), ("cosh", np.cosh, "any", True),
        ("tan", np.tan, "unit", True), ("cbrt", np.cbrt, "nonzero", True),
        ("sqrt", np.sqrt, "positive", True), ("exp2", np.exp2, "any", True),
        ("expm1", np.expm1, "any", True), ("log1p", np.log1p, "positive", True),
        ("floor", np.floor, "any", False),
        ("ceil", np.ceil, "any", False), ("sign", np.sign, "nonzero", False),
        ("is_finite", np.isfinite, "any", False), ("real", np.real, "any", True),
        ("imag", np.imag, "any", False), ("conj", np.conj, "any", True)):
    record(_n, getattr(lax, _n), _ref, SAME, dtypes=FLOATS, domain=_dom, differentiable=_d,
           **({"owner_path": None, "note": "jax.lax.real / imag take complex inputs only"}
              if _n in ("real", "imag") else {}))
record("round", lax.round, lambda x: np.where(np.abs(x - np.trunc(x)) == 0.5, np.trunc(
    x + np.sign(x) * 0.5), np.round(x)), SAME, dtypes=FLOATS, differentiable=False,
    note="rounding_method=0: halves away from zero (NumPy's round: to even)")
record("round", lax.round, lambda x, rounding_method: np.round(x), SAME[1:3], dtypes=FLOATS,
       kwargs={"rounding_method": 1},
       differentiable=False)
for _n, _ref in (("eq", np.equal), ("ne", np.not_equal), ("lt", np.less), ("le", np.less_equal),
                 ("gt", np.greater), ("ge", np.greater_equal)):
    record(_n, getattr(lax, _n), _ref, PAIRS, dtypes=FLOATS + INTS, differentiable=False,
           errors=(_MISMATCH,))
record("rem", lax.rem, np.fmod, PAIRS, dtypes=FLOATS + INTS, domain=("any", "nonzero"),
       differentiable=False, errors=(_MISMATCH,))
for _n, _ref in (("bitwise_and", np.bitwise_and), ("bitwise_or", np.bitwise_or),
                 ("bitwise_xor", np.bitwise_xor)):
    record(_n, getattr(lax, _n), _ref, PAIRS, dtypes=INTS, differentiable=False)
record("bitwise_not", lax.bitwise_not, np.invert, SAME, dtypes=INTS, differentiable=False)
record("shift_left", lax.shift_left, lambda x, y: np.left_shift(x, y), PAIRS[:3],
       dtypes=(I32,), domain=("any", "nonneg_small"), differentiable=False)
record("shift_right_arithmetic", lax.shift_right_arithmetic, np.right_shift, PAIRS[:3],
       dtypes=INTS, domain=("any", "nonneg_small"), differentiable=False)
record("select", lax.select, np.where, [(Bools(()), (), ()), (Bools((3, 4)), (3, 4), (3, 4))],
       dtypes=FLOATS, errors=(err([Bools((3,)), (3,), (4,)], (TypeError, ValueError),
                                  "shape|select"),))
record("select_n", lambda w, a, b, c: lax.select_n(w, a, b, c),
       lambda w, a, b, c: np.choose(w, [a, b, c]), [(Ints((3, 4), 0, 3), (3, 4), (3, 4),
                                                      (3, 4))], dtypes=FLOATS, owner_path=None)
record("convert_element_type", lax.convert_element_type, lambda x, new_dtype: x.astype(
    new_dtype), SAME, dtypes=FLOATS + INTS, kwargs={"new_dtype": np.int32}, differentiable=False)
record("convert_element_type", lax.convert_element_type, lambda x, new_dtype: x.astype(
    new_dtype), SAME, dtypes=(F64,), kwargs={"new_dtype": np.float32})
# lax.erfc is a float32-grade fit (relative error ~1e-7): float64 apart (KNOWN in test_opinfo.py)
record("erfc", lax.erfc, scipy.special.erfc, SAME, dtypes=(F32,))
record("erfc[float64]", lax.erfc, scipy.special.erfc, SAME, dtypes=(F64,))
record("stop_gradient", lax.stop_gradient, lambda x: x, SAME, dtypes=FLOATS,
       differentiable=False)

# reductions and scans
for _n, _ref, _dts in (("reduce_sum", np.sum, FLOATS + INTS), ("reduce_prod", np.prod, FLOATS),
                       ("reduce_max", np.max, FLOATS + INTS), ("reduce_min", np.min, FLOATS)):
    record(_n, getattr(lax, _n), lambda x, axes, _r=_ref: _r(x, axis=axes), R2, dtypes=_dts,
           kwargs={"axes": (0,)}, domain="near1" if _n == "reduce_prod" else "any")
    record(_n, getattr(lax, _n), lambda x, axes, _r=_ref: _r(x, axis=axes), [((2, 3, 4),)],
           dtypes=FLOATS, kwargs={"axes": (0, 2)})
for _n, _ref in (("reduce_and", np.all), ("reduce_or", np.any)):
    record(_n, getattr(lax, _n), lambda x, axes, _r=_ref: _r(x, axis=axes),
           [(Bools((3, 4)),), (Bools((2, 0)),)], dtypes=(I64,), kwargs={"axes": (1,)},
           differentiable=False)
for _n, _ref in (("argmax", np.argmax), ("argmin", np.argmin)):
    record(_n, getattr(lax, _n), lambda x, axis, index_dtype, _r=_ref: _r(x, axis).astype(
        index_dtype), R2, dtypes=FLOATS + INTS, kwargs={"axis": 1, "index_dtype": np.int32},
        differentiable=False)
record("cumprod", lax.cumprod, lambda x, axis: np.cumprod(x, axis), R2, dtypes=FLOATS,
       domain="near1", kwargs={"axis": 1})
record("cumprod", lax.cumprod, lambda x, axis, reverse: np.flip(np.cumprod(np.flip(
    x, axis), axis), axis), R2, dtypes=FLOATS, domain="near1", kwargs={"axis": 0,
                                                                       "reverse": True})
record("cummin", lax.cummin, lambda x, axis: np.minimum.accumulate(x, axis), R2, dtypes=FLOATS,
       kwargs={"axis": 1}, differentiable=False)
record("cumlogsumexp", lax.cumlogsumexp, lambda x, axis: np.logaddexp.accumulate(x, axis), R2,
       dtypes=FLOATS, kwargs={"axis": 1}, tol=1e-4)
record("reduce_window", lambda x: lax.reduce_window(x, -np.inf, lax.max, (2, 2), (1, 2),
                                                    "VALID"),
       lambda x: np.max(np.lib.stride_tricks.sliding_window_view(x, (2, 2))[:, ::2], (-2, -1)),
       [((4, 6),)], dtypes=FLOATS, owner_path=None, differentiable=False)
record("reduce_window", lambda x: lax.reduce_window(x, 0.0, lax.add, (3,), (1,), "SAME"),
       lambda x: np.convolve(x, np.ones(3), "same"), [((6,),)], dtypes=FLOATS, owner_path=None)
record("sort", lax.sort, lambda x, dimension: np.sort(x, dimension), R2, dtypes=FLOATS + INTS,
       kwargs={"dimension": 0})
record("sort_key_val", lambda k, v: list(lax.sort_key_val(k, v)),
       lambda k, v: [np.sort(k, -1, kind="stable"), np.take_along_axis(
           v, np.argsort(k, -1, kind="stable"), -1)], [((3, 5), (3, 5)), ((6,), (6,))],
       dtypes=FLOATS, differentiable=False, owner_path=None)
record("top_k", lambda x, k: list(lax.top_k(x, k)), lambda x, k: [
    -np.sort(-x, -1)[..., :k], np.argsort(-x, -1, kind="stable")[..., :k].astype(np.int32)],
    [((6,),), ((3, 5),)], dtypes=FLOATS, kwargs={"k": 2}, differentiable=False, owner_path=None)

# shapes, slices and dynamic indexing
record("broadcast", lax.broadcast, lambda x, sizes: np.broadcast_to(x, sizes + x.shape),
       [((),), ((3,),)], dtypes=FLOATS, kwargs={"sizes": (2,)})
record("expand_dims", lax.expand_dims, lambda x, dimensions: np.expand_dims(x, dimensions),
       [((3, 4),)], kwargs={"dimensions": (0, 2)})
record("squeeze", lax.squeeze, lambda x, dimensions: np.squeeze(x, dimensions),
       [((1, 3, 1),)], kwargs={"dimensions": (0, 2)},
       errors=(err([(2, 3)], (TypeError, ValueError), "squeeze|size|dimension",
                   kwargs={"dimensions": (0,)}),))
record("concatenate", lambda a, b, dimension: lax.concatenate([a, b], dimension),
       lambda a, b, dimension: np.concatenate([a, b], dimension), [((2, 3), (2, 1))],
       kwargs={"dimension": 1}, owner_path=None)
record("slice_in_dim", lax.slice_in_dim, lambda x, start_index, limit_index, stride, axis:
       np.swapaxes(np.swapaxes(x, 0, axis)[start_index:limit_index:stride], 0, axis),
       [((3, 6),)], kwargs={"start_index": 1, "limit_index": 6, "stride": 2, "axis": 1})
record("index_in_dim", lax.index_in_dim, lambda x, index, axis, keepdims: np.take(
    x, [index], axis) if keepdims else np.take(x, index, axis), [((3, 4),)],
    kwargs={"index": 2, "axis": 1, "keepdims": False})
record("dynamic_slice", lambda x, i: lax.dynamic_slice(x, (i, 1), (2, 2)),
       lambda x, i: x[min(max(int(i), 0), 1):][:2, 1:3], [((3, 4), Ints((), 0, 3))],
       owner_path=None, note="start indices are clamped so the slice fits, as in JAX")
record("dynamic_slice_in_dim", lambda x, i: lax.dynamic_slice_in_dim(x, i, 2, axis=1),
       lambda x, i: x[:, min(int(i), 2):min(int(i), 2) + 2], [((3, 4), Ints((), 0, 4))],
       owner_path=None)
record("dynamic_index_in_dim", lambda x, i: lax.dynamic_index_in_dim(x, i, 0, False),
       lambda x, i: x[int(i)], [((3, 4), Ints((), 0, 3))], owner_path=None)
record("dynamic_update_slice", lambda x, u, i: lax.dynamic_update_slice(x, u, (i, 0)),
       lambda x, u, i: _put(x, u, (min(int(i), 2), 0)), [((4, 3), (2, 3), Ints((), 0, 4))],
       owner_path=None)
record("dynamic_update_slice_in_dim", lambda x, u, i: lax.dynamic_update_slice_in_dim(
    x, u, i, 1), lambda x, u, i: _put(x, u, (0, min(int(i), 2))), [((3, 4), (3, 2),
                                                                   Ints((), 0, 3))],
    owner_path=None)
record("dynamic_update_index_in_dim", lambda x, u, i: lax.dynamic_update_index_in_dim(
    x, u, i, 0), lambda x, u, i: _put(x, u[None], (int(i), 0)), [((3, 4), (4,),
                                                                  Ints((), 0, 3))],
    owner_path=None)


def _put(x, u, start):
    x = np.array(x)
    x[tuple(slice(s, s + n) for s, n in zip(start, u.shape))] = u
    return x
