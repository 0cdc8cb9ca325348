"""jitgrad.numpy's records: NumPy owns each name (jax.numpy means the same); the reference is
NumPy's function. LEGACY_COUNT records are the ones the older consumers run (tests/support/op_records.py)."""
import numpy as np

import jitgrad.numpy as jnp
from . import numpy_creation_ops, numpy_extra_ops, numpy_fft_ops, numpy_unrecorded  # noqa: F401
from .core import (ALL, B, BINARY, DOMAINS, F32, F64, FLOATS, I32, I64, INTS, ND, NUMERIC, R2, R3,
                   TERNARY, UNARY, Bools, Ints, err, table)

RECORDS, record = table("numpy")


def _rsqrt(x):
    return 1 / np.sqrt(x)


# ----------------------------------------------------------------------------- elementwise binary

for _n, _dt, _dom, _d in [
        ("add", ALL, "any", True), ("subtract", NUMERIC, "any", True),
        ("multiply", ALL, "any", True), ("maximum", ALL, "any", True),
        ("minimum", ALL, "any", True)]:
    record(_n, getattr(jnp, _n), getattr(np, _n), BINARY, dtypes=_dt, domain=_dom,
           differentiable=_d, fuzz="binary")

for _n in ("divide", "true_divide"):
    record(_n, getattr(jnp, _n), getattr(np, _n), BINARY, dtypes=NUMERIC, domain=("any", "nonzero"),
           float_result=True, fuzz="binary")
record("floor_divide", jnp.floor_divide, np.floor_divide, BINARY, dtypes=NUMERIC,
       domain=("any", "nonzero"), differentiable=False, fuzz="binary")
record("mod", jnp.mod, np.mod, BINARY, dtypes=NUMERIC, domain=("any", "nonzero"),
       differentiable=False)
record("power", jnp.power, np.power, BINARY, dtypes=NUMERIC, domain=("positive", "nonneg_small"),
       fuzz="binary")
record("hypot", jnp.hypot, np.hypot, BINARY, dtypes=NUMERIC, domain="nonzero", float_result=True,
       fuzz="binary")
record("arctan2", jnp.arctan2, np.arctan2, BINARY, dtypes=NUMERIC, domain="nonzero",
       float_result=True, fuzz="binary")
record("logaddexp", jnp.logaddexp, np.logaddexp, BINARY, dtypes=NUMERIC, float_result=True,
       fuzz="binary")
for _n in ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal"):
    record(_n, getattr(jnp, _n), getattr(np, _n), BINARY, dtypes=ALL, differentiable=False)
for _n in ("logical_and", "logical_or", "logical_xor"):
    record(_n, getattr(jnp, _n), getattr(np, _n), BINARY, dtypes=(B, F32, I64),
           differentiable=False)

# ----------------------------------------------------------------------------- elementwise unary

for _n, _ref, _dom in [
        ("exp", np.exp, "any"), ("exp2", np.exp2, "any"), ("expm1", np.expm1, "any"),
        ("log", np.log, "positive"), ("log2", np.log2, "positive"), ("log10", np.log10, "positive"),
        ("log1p", np.log1p, "positive"), ("sqrt", np.sqrt, "positive"),
        ("rsqrt", _rsqrt, "positive"), ("sin", np.sin, "any"), ("cos", np.cos, "any"),
        ("tan", np.tan, "unit"), ("tanh", np.tanh, "any"), ("arcsin", np.arcsin, "unit"),
        ("arccos", np.arccos, "unit"), ("arctan", np.arctan, "any"), ("sinh", np.sinh, "any"),
        ("cosh", np.cosh, "any"), ("arcsinh", np.arcsinh, "any"), ("arccosh", np.arccosh, "ge1"),
        ("arctanh", np.arctanh, "unit")]:
    record(_n, getattr(jnp, _n), _ref, UNARY, dtypes=NUMERIC + ((B,) if _dom == "any" else ()),
           domain=_dom, float_result=True, fuzz="unary")
record("reciprocal", jnp.reciprocal, np.reciprocal, UNARY, dtypes=FLOATS, domain="nonzero",
       fuzz="unary")
record("negative", jnp.negative, np.negative, UNARY, dtypes=NUMERIC, fuzz="unary")
record("abs", jnp.abs, np.abs, UNARY, dtypes=ALL, domain="nonzero", fuzz="unary")
record("sign", jnp.sign, np.sign, UNARY, dtypes=NUMERIC, differentiable=False, fuzz="unary")
record("square", jnp.square, np.square, UNARY, dtypes=ALL, fuzz="unary")
for _n in ("floor", "ceil"):
    record(_n, getattr(jnp, _n), getattr(np, _n), UNARY, dtypes=ALL, differentiable=False)
record("round", jnp.round, np.round, UNARY, dtypes=NUMERIC, differentiable=False)
record("round", jnp.round, np.round, UNARY, dtypes=FLOATS, kwargs={"decimals": 1},
       differentiable=False, tol=1e-6)
record("logical_not", jnp.logical_not, np.logical_not, UNARY, dtypes=(B, F32, I32),
       differentiable=False)
for _n in ("isnan", "isfinite", "isinf"):
    record(_n, getattr(jnp, _n), getattr(np, _n), UNARY, dtypes=ALL, differentiable=False)
record("clip", jnp.clip, np.clip, UNARY, dtypes=NUMERIC, kwargs={"a_min": -1, "a_max": 1},
       fuzz="unary")
record("clip", jnp.clip, np.clip, TERNARY[1:4], dtypes=NUMERIC)
record("clip", lambda x: jnp.clip(x, 0.5), lambda x: np.clip(x, 0.5, None), UNARY, dtypes=FLOATS)
record("where", jnp.where, np.where,
       [(Bools(c), a, b) for c, a, b in TERNARY], dtypes=ALL, fuzz="binary")
record("astype", jnp.astype, lambda x, dtype: np.asarray(x).astype(dtype), UNARY, dtypes=ALL,
       kwargs={"dtype": "float32"})
record("astype", jnp.astype, lambda x, dtype: np.asarray(x).astype(dtype), UNARY, dtypes=ALL,
       kwargs={"dtype": "int32"}, differentiable=False)
record("astype", jnp.astype, lambda x, dtype: np.asarray(x).astype(dtype), UNARY, dtypes=ALL,
       kwargs={"dtype": "bool"}, differentiable=False)

# ----------------------------------------------------------------------------- reductions

for _n in ("sum", "prod", "max", "min", "mean"):
    _dts = NUMERIC + ((B,) if _n in ("sum", "max", "min") else ())
    _dom = "near1" if _n == "prod" else "any"
    _fr = _n == "mean"
    _nozero = _n in ("max", "min")      # NumPy: a zero-size max has no identity
    record(_n, getattr(jnp, _n), getattr(np, _n), ND if _nozero else UNARY, dtypes=_dts,
           domain=_dom, float_result=_fr, fuzz="reduce")
    record(_n, getattr(jnp, _n), getattr(np, _n), R2 + (() if _nozero else (((0, 3),),)),
           dtypes=_dts, domain=_dom, kwargs={"axis": 0}, float_result=_fr)
    record(_n, getattr(jnp, _n), getattr(np, _n), R2, dtypes=FLOATS, domain=_dom,
           kwargs={"axis": -1, "keepdims": True})
    record(_n, getattr(jnp, _n), getattr(np, _n), R3, dtypes=FLOATS, domain=_dom,
           kwargs={"axis": (0, 2)})
record("sum", jnp.sum, np.sum, R2, dtypes=(I32, B, F32), kwargs={"axis": 1, "dtype": "float64"})
for _n in ("var", "std"):
    record(_n, getattr(jnp, _n), getattr(np, _n), ND, dtypes=NUMERIC, float_result=True,
           fuzz="reduce" if _n == "var" else None)   # std: sqrt's infinite slope at 0
    record(_n, getattr(jnp, _n), getattr(np, _n), R2, dtypes=FLOATS, kwargs={"axis": 1, "ddof": 1})
    record(_n, getattr(jnp, _n), getattr(np, _n), R3, dtypes=FLOATS,
           kwargs={"axis": (0, 1), "keepdims": True})
for _n in ("argmax", "argmin"):
    record(_n, getattr(jnp, _n), getattr(np, _n), ND, dtypes=ALL, differentiable=False)
    record(_n, getattr(jnp, _n), getattr(np, _n), R2, dtypes=ALL, kwargs={"axis": -1},
           differentiable=False)
    record(_n, getattr(jnp, _n), getattr(np, _n), R2, dtypes=FLOATS,
           kwargs={"axis": 0, "keepdims": True}, differentiable=False)
for _n in ("any", "all"):
    record(_n, getattr(jnp, _n), getattr(np, _n), UNARY, dtypes=(B, F32, I32), differentiable=False)
    record(_n, getattr(jnp, _n), getattr(np, _n), R2, dtypes=(B,), kwargs={"axis": 1},
           differentiable=False)
record("cumsum", jnp.cumsum, np.cumsum, UNARY, dtypes=ALL)
record("cumsum", jnp.cumsum, np.cumsum, R2 + (((0, 3),),), dtypes=NUMERIC, kwargs={"axis": 1},
       fuzz="shape")
record("cumsum", jnp.cumsum, np.cumsum, R2, dtypes=(I32,), kwargs={"axis": 0, "dtype": "float32"})
record("sort", jnp.sort, np.sort, UNARY[1:] + R3, dtypes=NUMERIC)
record("sort", jnp.sort, np.sort, R2, dtypes=NUMERIC + (B,), kwargs={"axis": 0}, fuzz="shape")
record("argsort", jnp.argsort, lambda x, **k: np.argsort(x, kind="stable", **k), UNARY[1:] + R3,
       dtypes=NUMERIC, differentiable=False)

# ----------------------------------------------------------------------------- products

MATMUL = (((3, 4), (4, 5)), ((4,), (4,)), ((4,), (4, 3)), ((3, 4), (4,)), ((2, 3, 4), (4, 5)),
          ((2, 1, 3, 4), (3, 4, 2)), ((0, 4), (4, 3)), ((3, 0), (0, 2)))
record("matmul", jnp.matmul, np.matmul, MATMUL, dtypes=ALL)
record("dot", jnp.dot, np.dot, MATMUL[:4] + (((), (3,)), ((2, 3), ()), ((2, 3, 4), (5, 4, 2))),
       dtypes=NUMERIC)
record("outer", jnp.outer, np.outer, [((3,), (4,)), ((2, 2), (3,)), ((), (2,))], dtypes=NUMERIC)
record("inner", jnp.inner, np.inner, [((4,), (4,)), ((2, 4), (3, 4)), ((), (3,))], dtypes=NUMERIC)
record("vdot", jnp.vdot, np.vdot, [((4,), (4,)), ((2, 3), (6,))], dtypes=NUMERIC)
record("tensordot", jnp.tensordot, np.tensordot, [((2, 3, 4), (3, 4, 5)), ((3, 4), (3, 4))],
       dtypes=NUMERIC)
record("tensordot", jnp.tensordot, np.tensordot, [((2, 3, 4), (4, 3))], dtypes=FLOATS,
       kwargs={"axes": ([1, 2], [1, 0])})
record("tensordot", jnp.tensordot, np.tensordot, [((3,), (4,))], dtypes=FLOATS, kwargs={"axes": 0})
for _spec, _cases in [
        ("ij,jk->ik", [((3, 4), (4, 5))]), ("bij,bjk->bik", [((2, 3, 4), (2, 4, 5))]),
        ("ij,kj->ik", [((3, 4), (5, 4))]), ("i,i->", [((4,), (4,))]), ("i,j->ij", [((3,), (4,))]),
        ("bi,bi->b", [((3, 4), (3, 4))]), ("ij,j", [((3, 4), (4,))]), ("ij->ji", [((3, 4),)]),
        ("ij->", [((3, 4),)]), ("ii->i", [((3, 3),)]), ("ij->j", [((3, 4),)]),
        ("ijk,ikl->jl", [((2, 3, 4), (2, 4, 5))])]:
    record(f"einsum[{_spec}]", lambda *xs, _s=_spec: jnp.einsum(_s, *xs),
           lambda *xs, _s=_spec: np.einsum(_s, *xs), _cases, dtypes=NUMERIC)
record("kron", jnp.kron, np.kron, [((2, 3), (3, 2)), ((3,), (2,)), ((2, 2), (3,))], dtypes=NUMERIC)
record("trace", jnp.trace, np.trace, [((3, 3),), ((3, 4),), ((2, 3, 4),)], dtypes=NUMERIC)
record("trace", jnp.trace, np.trace, [((3, 4),)], dtypes=FLOATS, kwargs={"offset": 1})
record("diag", jnp.diag, np.diag, [((3,),), ((3, 4),), ((0,),)], dtypes=NUMERIC)
record("diag", jnp.diag, np.diag, [((3,),), ((3, 4),)], dtypes=FLOATS, kwargs={"k": -1})
record("diagonal", jnp.diagonal, np.diagonal, [((3, 4),), ((2, 3, 4),)], dtypes=FLOATS)
record("cross", jnp.cross, np.cross, [((3,), (3,)), ((4, 3), (3,)), ((2, 4, 3), (2, 4, 3))],
       dtypes=NUMERIC)

# ----------------------------------------------------------------------------- shapes

record("reshape", jnp.reshape, np.reshape, [((3, 4),), ((2, 3, 2),)], dtypes=ALL,
       kwargs={"shape": (-1,)}, fuzz="shape")
record("reshape", jnp.reshape, np.reshape, [((3, 4),), ((12,),)], dtypes=FLOATS,
       kwargs={"shape": (2, -1, 3)})
record("reshape", jnp.reshape, np.reshape, [((),)], dtypes=FLOATS, kwargs={"shape": (1, 1)})
record("ravel", jnp.ravel, np.ravel, ND + (((2, 0),),), dtypes=ALL)
record("transpose", jnp.transpose, np.transpose, ND + (((2, 0),),), dtypes=ALL)
record("transpose", jnp.transpose, np.transpose, R3, dtypes=FLOATS, kwargs={"axes": (1, 2, 0)},
       fuzz="shape")
record("swapaxes", jnp.swapaxes, np.swapaxes, R2, dtypes=ALL, kwargs={"axis1": 0, "axis2": -1},
       fuzz="shape")
record("moveaxis", jnp.moveaxis, np.moveaxis, R3, dtypes=FLOATS,
       kwargs={"source": 0, "destination": -1}, fuzz="shape")
record("moveaxis", jnp.moveaxis, np.moveaxis, R3, dtypes=FLOATS,
       kwargs={"source": (0, 1), "destination": (2, 0)})
record("broadcast_to", jnp.broadcast_to, np.broadcast_to, [((),), ((4,),), ((1, 4),), ((3, 1),)],
       dtypes=ALL, kwargs={"shape": (3, 4)}, fuzz="shape")
record("expand_dims", jnp.expand_dims, np.expand_dims, ND, dtypes=ALL, kwargs={"axis": 0})
record("expand_dims", jnp.expand_dims, np.expand_dims, R2, dtypes=FLOATS, kwargs={"axis": (-1, 1)},
       fuzz="shape")
record("squeeze", jnp.squeeze, np.squeeze, [((1,),), ((3, 1),), ((1, 3, 1),), ((),)], dtypes=ALL,
       fuzz="shape")
record("squeeze", jnp.squeeze, np.squeeze, [((1, 3, 1),)], dtypes=FLOATS, kwargs={"axis": -1})
record("concatenate", lambda *xs, **k: jnp.concatenate(xs, **k),
       lambda *xs, **k: np.concatenate(xs, **k),
       [((2, 3), (4, 3)), ((3,), (2,), (1,)), ((0, 3), (2, 3))], dtypes=ALL)
record("concatenate", lambda *xs, **k: jnp.concatenate(xs, **k),
       lambda *xs, **k: np.concatenate(xs, **k), [((2, 3), (2, 1))], dtypes=FLOATS,
       kwargs={"axis": -1})
record("concatenate", lambda *xs, **k: jnp.concatenate(xs, **k),
       lambda *xs, **k: np.concatenate(xs, **k), [((2, 3), (5,))], dtypes=FLOATS,
       kwargs={"axis": None})
record("stack", lambda *xs, **k: jnp.stack(xs, **k), lambda *xs, **k: np.stack(xs, **k),
       [((2, 3), (2, 3)), ((), ()), ((4,), (4,), (4,))], dtypes=ALL)
record("stack", lambda *xs, **k: jnp.stack(xs, **k), lambda *xs, **k: np.stack(xs, **k),
       [((2, 3), (2, 3))], dtypes=FLOATS, kwargs={"axis": -1})
record("vstack", lambda *xs: jnp.vstack(xs), lambda *xs: np.vstack(xs),
       [((3,), (3,)), ((2, 3), (1, 3)), ((2, 3), (3,))], dtypes=NUMERIC)
record("hstack", lambda *xs: jnp.hstack(xs), lambda *xs: np.hstack(xs),
       [((3,), (2,)), ((2, 3), (2, 1)), ((), (2,))], dtypes=NUMERIC)
record("split", jnp.split, np.split, [((6, 2),), ((3,),)], dtypes=ALL,
       kwargs={"indices_or_sections": 3})
record("split", jnp.split, np.split, [((2, 6),)], dtypes=FLOATS,
       kwargs={"indices_or_sections": [1, 4], "axis": 1})
record("array_split", jnp.array_split, np.array_split, [((7,),)], dtypes=FLOATS,
       kwargs={"indices_or_sections": 3})
record("take", jnp.take, np.take, [((5,), Ints((3,), -5, 5)), ((3, 4), Ints((2, 2), 0, 12)),
                                   ((3, 4), Ints((), -12, 12))], dtypes=ALL)
record("take", jnp.take, np.take, [((3, 4), Ints((5,), -4, 4)), ((2, 4, 3), Ints((2, 3), 0, 4))],
       dtypes=FLOATS, kwargs={"axis": 1})
record("take_along_axis", jnp.take_along_axis, np.take_along_axis,
       [((3, 4), Ints((3, 2), -4, 4)), ((3, 4), Ints((1, 5), 0, 4))], dtypes=ALL,
       kwargs={"axis": 1})
record("take_along_axis", jnp.take_along_axis, np.take_along_axis,
       [((3, 4), Ints((2, 4), 0, 3))], dtypes=FLOATS, kwargs={"axis": 0})
record("pad", jnp.pad, np.pad, [((3,),), ((2, 3),)], dtypes=ALL, kwargs={"pad_width": 1})
record("pad", jnp.pad, np.pad, [((2, 3),)], dtypes=NUMERIC,
       kwargs={"pad_width": ((1, 0), (2, 3)), "constant_values": 7})
for _mode in ("edge", "reflect", "symmetric", "wrap"):
    record("pad", jnp.pad, np.pad, [((4,),), ((3, 4),)], dtypes=FLOATS,
           kwargs={"pad_width": 2, "mode": _mode}, fuzz="shape")
    # wider than the axis: NumPy reflects / wraps again (the fuzzer found reflect failing)
    record("pad", jnp.pad, np.pad, [((2,),), ((1, 3),)], dtypes=FLOATS,
           kwargs={"pad_width": ((3, 5),) if _mode != "edge" else 4, "mode": _mode})
for _n in ("tril", "triu"):
    record(_n, getattr(jnp, _n), getattr(np, _n), [((3, 4),), ((4, 3),), ((2, 3, 3),)], dtypes=ALL)
    record(_n, getattr(jnp, _n), getattr(np, _n), [((4, 4),)], dtypes=FLOATS, kwargs={"k": -1},
           fuzz="shape")
    record(_n, getattr(jnp, _n), getattr(np, _n), [((3, 4),)], dtypes=FLOATS, kwargs={"k": 2})
record("flip", jnp.flip, np.flip, ND, dtypes=ALL)
record("flip", jnp.flip, np.flip, R2, dtypes=FLOATS, kwargs={"axis": -1}, fuzz="shape")
record("fliplr", jnp.fliplr, np.fliplr, R2, dtypes=FLOATS)
record("flipud", jnp.flipud, np.flipud, R2, dtypes=FLOATS)
record("roll", jnp.roll, np.roll, [((5,),), ((3, 4),)], dtypes=ALL, kwargs={"shift": 2})
record("roll", jnp.roll, np.roll, [((3, 4),)], dtypes=FLOATS, kwargs={"shift": -1, "axis": 1},
       fuzz="shape")
record("roll", jnp.roll, np.roll, [((3, 4),)], dtypes=FLOATS,
       kwargs={"shift": (1, 2), "axis": (0, 1)})
record("tile", jnp.tile, np.tile, [((3,),), ((2, 3),), ((),)], dtypes=ALL, kwargs={"reps": 2})
record("tile", jnp.tile, np.tile, [((3,),), ((2, 3),)], dtypes=FLOATS, kwargs={"reps": (2, 1, 2)},
       fuzz="shape")
record("repeat", jnp.repeat, np.repeat, [((3,),), ((2, 3),), ((),)], dtypes=ALL,
       kwargs={"repeats": 2})
record("repeat", jnp.repeat, np.repeat, [((2, 3),)], dtypes=FLOATS,
       kwargs={"repeats": 3, "axis": 1})
record("repeat", jnp.repeat, np.repeat, [((2, 3),)], dtypes=FLOATS,
       kwargs={"repeats": [1, 0, 2], "axis": 1}, fuzz="shape")
record("full_like", jnp.full_like, np.full_like, UNARY, dtypes=ALL, kwargs={"fill_value": 3},
       differentiable=False)
record("zeros_like", jnp.zeros_like, np.zeros_like, UNARY, dtypes=ALL, differentiable=False)
record("ones_like", jnp.ones_like, np.ones_like, UNARY, dtypes=ALL, differentiable=False)
record("diff", jnp.diff, np.diff, [((5,),), ((3, 4),)], dtypes=NUMERIC, fuzz="shape")
record("cumprod", jnp.cumprod, np.cumprod, [((5,),), ((3, 4),)], dtypes=FLOATS, domain="near1",
       kwargs={"axis": -1}, fuzz="shape")

# ----------------------------------------------------------------------------- more NumPy

record("signbit", jnp.signbit, np.signbit, UNARY, dtypes=NUMERIC, differentiable=False)
record("trunc", jnp.trunc, np.trunc, UNARY, dtypes=FLOATS, differentiable=False)
record("cbrt", jnp.cbrt, np.cbrt, UNARY, dtypes=FLOATS, domain="nonzero", fuzz="unary")
record("sinc", jnp.sinc, np.sinc, UNARY, dtypes=FLOATS, fuzz="unary")
record("deg2rad", jnp.deg2rad, np.deg2rad, UNARY, dtypes=FLOATS, fuzz="unary")
record("copysign", jnp.copysign, np.copysign, BINARY, dtypes=FLOATS, domain="nonzero",
       fuzz="binary")
record("logaddexp2", jnp.logaddexp2, np.logaddexp2, BINARY, dtypes=FLOATS, fuzz="binary")
record("median", jnp.median, np.median, ND[1:], dtypes=FLOATS, differentiable=False)
record("median", jnp.median, np.median, R2, dtypes=FLOATS, kwargs={"axis": -1},
       differentiable=False)
record("ptp", jnp.ptp, np.ptp, R2, dtypes=NUMERIC, kwargs={"axis": 1})
record("count_nonzero", jnp.count_nonzero, np.count_nonzero, UNARY, dtypes=(I32, B),
       differentiable=False)
record("average", lambda x, w, **k: jnp.average(x, weights=w, **k),
       lambda x, w, **k: np.average(x, weights=w, **k), [((3, 4), (4,))], dtypes=FLOATS,
       domain=("any", "positive"), kwargs={"axis": 1})
record("nan_to_num", jnp.nan_to_num, np.nan_to_num, UNARY, dtypes=FLOATS, fuzz="unary")

# ----------------------------------------------------------------------------- indexing

for _label, _key in [("[1]", 1), ("[-1]", -1), ("[1:3]", slice(1, 3)),
                     ("[::-2]", slice(None, None, -2)),
                     ("[None, :, 1]", (None, slice(None), 1)), ("[..., 2]", (Ellipsis, 2)),
                     ("[[0, 0, 2]]", [0, 0, 2]), ("[1:, [3, -4]]", (slice(1, None), [3, -4])),
                     ("[-2::-1, 1::2]", (slice(-2, None, -1), slice(1, None, 2)))]:
    record(f"getitem{_label}", lambda x, _k=_key: x[_k], lambda x, _k=_key: x[_k],
           (((3, 4),),), dtypes=ALL, takes_numpy=False)
record("getitem[rows, labels]", lambda x, i, j: x[i, j], lambda x, i, j: x[i, j],
       (((4, 5), Ints((4,), 0, 4), Ints((4,), -5, 5)),
        ((3, 5), Ints((2, 1), 0, 3), Ints((3,), 0, 5))), dtypes=ALL, takes_numpy=False)
record("getitem[:, idx]", lambda x, i: x[:, i], lambda x, i: x[:, i],
       (((3, 5), Ints((2, 2), -5, 5)),), dtypes=FLOATS, takes_numpy=False)

# ----------------------------------------------------------------------------- conformance (issue 16)
# integer bit operations, the standard's names and the correctness fixes the Array API suite found

DOMAINS["shift"] = ((0.0, 1.0), (0, 70))        # counts beyond 32 and 64 bits: NumPy gives 0 / -1

for _n in ("bitwise_and", "bitwise_or", "bitwise_xor"):
    record(_n, getattr(jnp, _n), getattr(np, _n), BINARY, dtypes=INTS + (B,), differentiable=False,
           fuzz="binary")
for _n, _ref in (("left_shift", np.left_shift), ("right_shift", np.right_shift),
                 ("bitwise_left_shift", np.left_shift), ("bitwise_right_shift", np.right_shift)):
    record(_n, getattr(jnp, _n), _ref, BINARY, dtypes=INTS, domain=("any", "shift"),
           differentiable=False, fuzz="binary")
record("invert", jnp.invert, np.invert, UNARY, dtypes=INTS + (B,), differentiable=False,
       fuzz="unary")
record("bitwise_invert", jnp.bitwise_invert, np.invert, UNARY, dtypes=INTS, differentiable=False)
for _label, _op in (("<<", lambda x, y: x << y), (">>", lambda x, y: x >> y),
                    ("&", lambda x, y: x & y), ("|", lambda x, y: x | y),
                    ("^", lambda x, y: x ^ y)):
    record(f"operator{_label}", _op, _op, [((3, 4), (4,)), ((5,), ())], dtypes=INTS,
           domain=("any", "shift"), differentiable=False, takes_numpy=False)
record("operator~", lambda x: ~x, lambda x: ~x, [((3, 4),)], dtypes=INTS + (B,),
       differentiable=False, takes_numpy=False)
record("signbit", jnp.signbit, np.signbit, UNARY, dtypes=FLOATS, domain="nonzero",
       differentiable=False)
record("copysign", jnp.copysign, np.copysign, BINARY, dtypes=FLOATS, domain=("any", "nonzero"))
record("cross", jnp.cross, np.cross, [((3, 4), (3, 4)), ((2, 3, 5), (2, 3, 5)), ((3, 1), (3, 4))],
       dtypes=FLOATS, kwargs={"axis": -2})
record("cross", jnp.cross, np.cross, [((3, 4), (3, 2, 4))], dtypes=FLOATS, kwargs={"axis": 0})
record("cumprod", jnp.cumprod, np.cumprod, [((5,),), ((3, 4),), ((0,),)], dtypes=INTS + (B,),
       domain="near1", differentiable=False)
record("cumprod", jnp.cumprod, np.cumprod, [((3, 0),), ((2, 3),)], dtypes=FLOATS, domain="near1",
       kwargs={"axis": 1})

# the standard's and NumPy's names added for the conformance suite
record("searchsorted", lambda a, v: jnp.searchsorted(jnp.sort(a), v),
       lambda a, v: np.searchsorted(np.sort(a), v), [((6,), (4,)), ((5,), (2, 3)), ((4,), ())],
       dtypes=NUMERIC, differentiable=False)
record("searchsorted", lambda a, v: jnp.searchsorted(jnp.sort(a), v, side="right"),
       lambda a, v: np.searchsorted(np.sort(a), v, side="right"), [((6,), (4,)), ((0,), (3,))],
       dtypes=NUMERIC, differentiable=False)
record("unstack", jnp.unstack, lambda x, axis=0: list(np.unstack(x, axis=axis)), ND[1:], dtypes=ALL)
record("unstack", jnp.unstack, lambda x, axis=0: list(np.unstack(x, axis=axis)), R3,
       kwargs={"axis": -1})
record("vecdot", jnp.vecdot, np.vecdot, [((3,), (3,)), ((2, 3), (3,)), ((4, 1, 3), (2, 3))],
       dtypes=NUMERIC)
record("vecdot", jnp.vecdot, np.vecdot, [((3, 2), (3, 2)), ((3, 4), (3, 1))], kwargs={"axis": 0})
record("matrix_transpose", jnp.matrix_transpose, np.matrix_transpose, R2, dtypes=ALL)
record("real", jnp.real, np.real, UNARY, dtypes=ALL)
record("conj", jnp.conj, np.conj, UNARY, dtypes=NUMERIC)
record("imag", jnp.imag, np.imag, UNARY, dtypes=NUMERIC, differentiable=False)
record("fabs", jnp.fabs, np.fabs, UNARY, dtypes=NUMERIC, domain="nonzero", float_result=True,
       fuzz="unary")
record("append", jnp.append, np.append, [((3,), (2,)), ((2, 3), (2,)), ((2, 3), ())], dtypes=ALL)
record("append", jnp.append, np.append, [((2, 3), (1, 3))], kwargs={"axis": 0})
for _k in (1, 2, 3, -1):
    record("rot90", jnp.rot90, np.rot90, [((3, 4),), ((2, 3, 4),)], kwargs={"k": _k},
           fuzz="shape" if _k == 1 else None)
record("rot90", jnp.rot90, np.rot90, [((2, 3, 4),)], kwargs={"k": 1, "axes": (2, 0)})
record("rollaxis", jnp.rollaxis, np.rollaxis, [((2, 3, 4, 5),)], kwargs={"axis": 3, "start": 1})
record("rollaxis", jnp.rollaxis, np.rollaxis, [((2, 3, 4, 5),)], kwargs={"axis": 0, "start": 4})
record("dsplit", jnp.dsplit, np.dsplit, [((2, 3, 4),)], kwargs={"indices_or_sections": 2})
record("dsplit", jnp.dsplit, np.dsplit, [((2, 3, 5),)], kwargs={"indices_or_sections": [1, 3]})
record("atleast_3d", jnp.atleast_3d, np.atleast_3d, ND + (((2, 3, 4, 5),),), dtypes=ALL)
record("select", lambda c1, c2, a, b: jnp.select([c1, c2], [a, b], 0.5),
       lambda c1, c2, a, b: np.select([c1, c2], [a, b], 0.5),
       [(Bools((3, 4)), Bools((4,)), (3, 4), (3, 4)), (Bools(()), Bools((2,)), (2,), ())])
record("gradient", jnp.gradient, np.gradient, [((5,),), ((2,),)])
record("gradient", jnp.gradient, np.gradient, [((3, 4),)], kwargs={"axis": 1, "edge_order": 2})
record("gradient", lambda f: jnp.gradient(f, 0.5, [0.0, 1.0, 1.5, 3.0]),
       lambda f: np.gradient(f, 0.5, [0.0, 1.0, 1.5, 3.0]), [((3, 4),)])
for _spec, _cases in (("...ij,...jk->...ik", [((2, 3, 4), (4, 5)), ((3, 4), (2, 1, 4, 2))]),
                      ("ij,jk,kl->il", [((2, 3), (3, 4), (4, 5))]),
                      ("ijk,jl,lk", [((2, 3, 4), (3, 5), (5, 4))]),
                      ("...i,...i", [((2, 1, 3), (4, 3))]), ("i...->...", [((3, 2),)]),
                      ("a,b,c->abc", [((2,), (3,), (4,))])):
    record(f"einsum[{_spec}]", lambda *xs, _s=_spec: jnp.einsum(_s, *xs),
           lambda *xs, _s=_spec: np.einsum(_s, *xs), _cases)
record("cumulative_sum", jnp.cumulative_sum, np.cumulative_sum, [((5,),), ((0,),)], dtypes=ALL)
record("cumulative_sum", jnp.cumulative_sum, np.cumulative_sum, [((3, 4),), ((2, 0),)],
       dtypes=NUMERIC, kwargs={"axis": 1, "include_initial": True})
record("sort", jnp.sort, lambda x, descending: np.flip(np.sort(x), -1), ND[1:], dtypes=NUMERIC,
       kwargs={"descending": True})
record("argsort", jnp.argsort, lambda x, descending: np.argsort(-x, kind="stable"),
       [((6,),), ((3, 4),)], dtypes=(F64, I64), domain="nonneg_small",
       kwargs={"descending": True}, differentiable=False)

# jnp.linalg: inputs shaped so each function is smooth there (symmetric positive-definite,
# well-conditioned); vectors defined up to sign are compared through their squares

def _spd(x, lib):
    x = lib.asarray(x)
    return lib.matmul(x, lib.swapaxes(x, -1, -2)) + 3.0 * np.eye(x.shape[-1], dtype=x.dtype)


def _spread(x, lib):    # singular values near 3, 2, 1: well apart
    m, n = x.shape[-2:]
    k = min(m, n)
    return 0.2 * x + (np.eye(m, n) * np.pad(np.arange(k + 1, 1, -1), (0, n - k))).astype(x.dtype)


SQUARE = [((3, 3),), ((2, 3, 3),)]
MATRICES = [((3, 3),), ((4, 2),), ((2, 2, 4),)]
for _n, _f in [("cholesky", lambda lib, x: lib.linalg.cholesky(_spd(x, lib))),
               ("cholesky(upper=True)", lambda lib, x: lib.linalg.cholesky(_spd(x, lib), upper=True)),
               ("det", lambda lib, x: lib.linalg.det(_spd(x, lib))),
               ("slogdet", lambda lib, x: list(lib.linalg.slogdet(x + 3.0 * np.eye(3, dtype=x.dtype)))),
               ("inv", lambda lib, x: lib.linalg.inv(_spd(x, lib))),
               ("eigvalsh", lambda lib, x: lib.linalg.eigvalsh(_spd(x, lib))),
               ("eigh", lambda lib, x: list(v * v for v in lib.linalg.eigh(_spread(x + lib.swapaxes(
                   x, -1, -2), lib)))),
               ("matrix_power(3)", lambda lib, x: lib.linalg.matrix_power(x, 3)),
               ("matrix_power(-2)", lambda lib, x: lib.linalg.matrix_power(_spd(x, lib), -2)),
               ("matrix_power(0)", lambda lib, x: lib.linalg.matrix_power(x, 0)),
               ("trace", lambda lib, x: lib.linalg.trace(x, offset=1)),
               ("diagonal", lambda lib, x: lib.linalg.diagonal(x, offset=-1))]:
    record(f"linalg.{_n}", lambda x, _f=_f: _f(jnp, jnp.asarray(x)),
           lambda x, _f=_f: _f(np, np.asarray(x)),
           SQUARE, tol=1e-4)
for _n, _f in [("svdvals", lambda lib, x: lib.linalg.svdvals(_spread(x, lib))),
               ("svd", lambda lib, x: list(v * v for v in lib.linalg.svd(_spread(x, lib),
                                                                 full_matrices=False))),
               ("pinv", lambda lib, x: lib.linalg.pinv(_spread(x, lib))),
               ("matrix_norm(fro)", lambda lib, x: lib.linalg.matrix_norm(x)),
               ("matrix_norm(nuc)", lambda lib, x: lib.linalg.matrix_norm(_spread(x, lib), ord="nuc")),
               ("matrix_norm(2)", lambda lib, x: lib.linalg.matrix_norm(_spread(x, lib), ord=2)),
               ("matrix_norm(-1)", lambda lib, x: lib.linalg.matrix_norm(x, ord=-1)),
               ("matrix_norm(inf)", lambda lib, x: lib.linalg.matrix_norm(x, ord=np.inf, keepdims=True)),
               ("vector_norm", lambda lib, x: lib.linalg.vector_norm(x, axis=-1)),
               ("vector_norm(3)", lambda lib, x: lib.linalg.vector_norm(x, ord=3, axis=(0, -1))),
               ("norm", lambda lib, x: lib.linalg.norm(x[..., 0, :], 1)),
               ("matrix_transpose", lambda lib, x: lib.linalg.matrix_transpose(x))]:
    record(f"linalg.{_n}", lambda x, _f=_f: _f(jnp, jnp.asarray(x)),
           lambda x, _f=_f: _f(np, np.asarray(x)),
           MATRICES, tol=1e-4)
for _cases, _d in (([((3, 3),), ((4, 2),)], True), ([((2, 2, 4),)], False)):   # wide: no derivative
    record("linalg.qr", lambda x: [jnp.abs(v) for v in jnp.linalg.qr(_spread(jnp.asarray(x), jnp))],
           lambda x: [np.abs(v) for v in np.linalg.qr(_spread(x, np))], _cases, tol=1e-4,
           differentiable=_d)
record("linalg.matrix_rank", lambda x: jnp.linalg.matrix_rank(x), np.linalg.matrix_rank,
       MATRICES, differentiable=False)
record("linalg.solve", lambda a, b: jnp.linalg.solve(_spd(a, jnp), b),
       lambda a, b: np.linalg.solve(_spd(a, np), b),
       [((3, 3), (3, 2)), ((2, 3, 3), (3,)), ((2, 3, 3), (1, 3, 4))], tol=1e-4)
record("linalg.multi_dot", lambda a, b, c: jnp.linalg.multi_dot([a, b, c]),
       lambda a, b, c: np.linalg.multi_dot([a, b, c]), [((3, 4), (4, 2), (2,)), ((4,), (4, 3), (3, 5))])

record("fft.fftshift", jnp.fft.fftshift, np.fft.fftshift, ND[1:], dtypes=ALL)
record("fft.fftshift", jnp.fft.fftshift, np.fft.fftshift, R3, kwargs={"axes": (0, 2)})
record("fft.ifftshift", jnp.fft.ifftshift, np.fft.ifftshift, ND[1:] + (((5, 3),),), dtypes=ALL)


LEGACY_COUNT = len(RECORDS)

# ----------------------------------------------------------------------------- added in issue 49
# (run by tests/consistency/test_opinfo.py on every path; not part of the older consumers' table)


def _nans(lib, x):
    """x with every third element nan (a fixed pattern, so a slice is never all nan)."""
    x = lib.asarray(x)
    m = (np.arange(int(np.prod(x.shape))) % 3 == 1).reshape(x.shape)
    return lib.where(m, np.nan, x)


def _nan_record(n, cases, diff=True, **kw):
    record(n, lambda x, _n=n, **k: getattr(jnp, _n)(_nans(jnp, x), **k),
           lambda x, _n=n, **k: getattr(np, _n)(_nans(np, x), **k), cases, differentiable=diff,
           **kw)


for _n in ("nansum", "nanmean", "nanvar", "nanstd", "nanmax", "nanmin", "nanprod"):
    _nan_record(_n, [((5,),), ((3, 4),)], domain="near1" if _n == "nanprod" else "any")
    _nan_record(_n, [((3, 4),), ((2, 3, 4),)], kwargs={"axis": -1},
                domain="near1" if _n == "nanprod" else "any")
for _n in ("nanmedian", "nanargmax", "nanargmin"):
    _nan_record(_n, [((5,),), ((3, 4),)], diff=False)
    _nan_record(_n, [((3, 4),)], diff=False, kwargs={"axis": 0})
for _n in ("nancumsum", "nancumprod"):
    _nan_record(_n, [((5,),), ((3, 4),)], domain="near1", kwargs={"axis": -1})
for _n, _q in (("quantile", 0.3), ("percentile", 30.0)):
    record(_n, getattr(jnp, _n), getattr(np, _n), [((7,),), ((3, 5),)], kwargs={"q": _q},
           errors=(err([(5,)], ValueError, "[qQ]uantile|[pP]ercentile|range",
                       kwargs={"q": 1.5 if _n == "quantile" else 150.0}),))
    record(_n, getattr(jnp, _n), getattr(np, _n), [((3, 5),)],
           kwargs={"q": [0.25, 0.75] if _n == "quantile" else [25.0, 75.0], "axis": 1})
    _nan_record("nan" + _n, [((6,),), ((3, 5),)], kwargs={"q": _q})
for _n in ("cov", "corrcoef"):
    record(_n, getattr(jnp, _n), getattr(np, _n), [((3, 6),), ((2, 5),)])
    record(_n, getattr(jnp, _n), getattr(np, _n), [((6, 3),)], kwargs={"rowvar": False})
record("cov", jnp.cov, np.cov, [((3, 6),)], kwargs={"ddof": 0})

# polynomials (coefficients highest power first)
record("polyval", jnp.polyval, np.polyval, [((4,), (5,)), ((3,), (2, 3)), ((1,), ())],
       dtypes=NUMERIC)
for _n in ("polyadd", "polysub", "polymul"):
    record(_n, getattr(jnp, _n), getattr(np, _n), [((3,), (3,)), ((4,), (2,))])
record("polyder", jnp.polyder, np.polyder, [((5,),)])
record("polyder", jnp.polyder, np.polyder, [((5,),)], kwargs={"m": 2})
record("polyint", jnp.polyint, np.polyint, [((4,),)])

# float functions
record("fmod", jnp.fmod, np.fmod, BINARY, dtypes=NUMERIC, domain=("any", "nonzero"),
       differentiable=False)
record("remainder", jnp.remainder, np.remainder, BINARY, dtypes=NUMERIC,
       domain=("any", "nonzero"), differentiable=False, fuzz="binary")
for _n in ("fmax", "fmin"):
    record(_n, getattr(jnp, _n), getattr(np, _n), BINARY, dtypes=NUMERIC, fuzz="binary")
record("float_power", jnp.float_power, np.float_power, BINARY[:4], dtypes=FLOATS,
       domain=("positive", "nonneg_small"), fuzz="binary")
record("heaviside", jnp.heaviside, np.heaviside, BINARY, dtypes=FLOATS, differentiable=False)
for _n in ("gcd", "lcm"):
    record(_n, getattr(jnp, _n), getattr(np, _n), BINARY, dtypes=INTS, differentiable=False)
record("ldexp", jnp.ldexp, np.ldexp, [((5,), Ints((5,), -3, 4)), ((3, 4), Ints((4,), 0, 3))],
       dtypes=FLOATS)
record("frexp", lambda x: list(jnp.frexp(x)), lambda x: list(np.frexp(x)), UNARY,
       dtypes=FLOATS, domain="nonzero", differentiable=False)
record("modf", lambda x: list(jnp.modf(x)), lambda x: list(np.modf(x)), UNARY, dtypes=FLOATS,
       differentiable=False)
record("divmod", lambda x, y: list(jnp.divmod(x, y)), lambda x, y: list(np.divmod(x, y)),
       BINARY, dtypes=NUMERIC, domain=("any", "nonzero"), differentiable=False)
record("i0", jnp.i0, np.i0, UNARY[1:], dtypes=FLOATS)
record("degrees", jnp.degrees, np.degrees, UNARY, dtypes=FLOATS, fuzz="unary")
record("radians", jnp.radians, np.radians, UNARY, dtypes=FLOATS, fuzz="unary")
record("rad2deg", jnp.rad2deg, np.rad2deg, UNARY, dtypes=FLOATS, fuzz="unary")
record("positive", jnp.positive, np.positive, UNARY, dtypes=NUMERIC, fuzz="unary")
record("exp2", jnp.exp2, np.exp2, UNARY, dtypes=FLOATS)

# sequences and signals
record("interp", lambda x, fp: jnp.interp(x, np.array([-2.0, -0.5, 0.3, 2.0]), fp),
       lambda x, fp: np.interp(x, np.array([-2.0, -0.5, 0.3, 2.0]), fp),
       [((7,), (4,)), ((), (4,))], dtypes=FLOATS)
for _mode in ("full", "same", "valid"):
    record("convolve", jnp.convolve, np.convolve, [((6,), (3,)), ((4,), (4,))],
           kwargs={"mode": _mode})
    record("correlate", jnp.correlate, np.correlate, [((6,), (3,))], kwargs={"mode": _mode})
record("trapezoid", jnp.trapezoid, np.trapezoid, [((5,),), ((3, 4),)])
record("trapezoid", jnp.trapezoid, np.trapezoid, [((3, 4),)], kwargs={"dx": 0.5, "axis": 0})
record("ediff1d", jnp.ediff1d, np.ediff1d, [((5,),), ((2, 3),)], dtypes=NUMERIC)
record("digitize", lambda x: jnp.digitize(x, np.array([-1.0, 0.0, 0.5])),
       lambda x: np.digitize(x, np.array([-1.0, 0.0, 0.5])), UNARY, differentiable=False)
record("bincount", lambda x: jnp.bincount(x, length=6), lambda x: np.bincount(x, minlength=6),
       [(Ints((8,), 0, 6),)], dtypes=(I64,), differentiable=False)

# sets (static shapes: isin; data-dependent ones run eagerly)
record("isin", jnp.isin, np.isin, [((3, 4), (5,)), ((), (3,))], dtypes=(I32, I64),
       differentiable=False)
for _n in ("union1d", "intersect1d", "setdiff1d", "setxor1d"):
    record(_n, getattr(jnp, _n), getattr(np, _n), [((6,), (5,))], dtypes=INTS,
           differentiable=False, traceable=False, batchable=False)
record("unique", jnp.unique, np.unique, [((8,),), ((3, 4),)], dtypes=INTS,
       differentiable=False, traceable=False, batchable=False)

# index helpers (no array arguments, or index arrays only)
for _n, _f in (("tril_indices", lambda lib: list(lib.tril_indices(4, k=1))),
               ("triu_indices", lambda lib: list(lib.triu_indices(3, m=5))),
               ("diag_indices", lambda lib: list(lib.diag_indices(3, ndim=2))),
               ("indices", lambda lib: lib.indices((2, 3))),
               ("unravel_index", lambda lib: list(lib.unravel_index(np.array([0, 5, 11]),
                                                                     (3, 4)))),
               ("ravel_multi_index", lambda lib: lib.ravel_multi_index(
                   (np.array([0, 2, 1]), np.array([3, 0, 1])), (3, 4)))):
    record(_n, lambda _f=_f: _f(jnp), lambda _f=_f: _f(np), [()], dtypes=(I64,),
           differentiable=False, batchable=False)

# errors on the older names (shape, axis and dtype mistakes)
record("matmul", jnp.matmul, np.matmul, [((2, 3), (3, 2))],
       errors=(err([(3, 4), (3, 4)], ValueError, "matmul|shape|dimension"),
               err([(3,), ()], ValueError, "matmul|0-d|scalar|dimension")))
record("add", jnp.add, np.add, [((3, 1), (4,))],
       errors=(err([(3, 4), (5,)], ValueError, "broadcast"),))
record("sum", jnp.sum, np.sum, [((3, 4),)], kwargs={"axis": 1},
       errors=(err([(3, 4)], ValueError, "axis|out of (range|bounds)", kwargs={"axis": 2}),))
record("reshape", jnp.reshape, np.reshape, [((3, 4),)], kwargs={"shape": (4, 3)},
       errors=(err([(3, 4)], ValueError, "reshape|size", kwargs={"shape": (5, 3)}),))
record("concatenate", lambda *xs, **k: jnp.concatenate(xs, **k),
       lambda *xs, **k: np.concatenate(xs, **k), [((2, 3), (1, 3))],
       errors=(err([(2, 3), (2, 4)], ValueError, "concatenat|shape|dimension"),))
record("transpose", jnp.transpose, np.transpose, [((2, 3, 4),)], kwargs={"axes": (2, 0, 1)},
       errors=(err([(2, 3, 4)], ValueError, "axes|permutation|transpose",
                   kwargs={"axes": (0, 0, 1)}),))
record("take_along_axis", jnp.take_along_axis, np.take_along_axis,
       [((3, 4), Ints((3, 2), 0, 4))], kwargs={"axis": 1},
       errors=(err([(3, 4), Ints((3,), 0, 4)], ValueError, "dimension|ndim|rank|same number"),))
# the identity in the operand's dtype: a float64 NumPy array is strong, f32 + it is float64
record("linalg.cholesky",
       lambda x: jnp.linalg.cholesky(x @ jnp.swapaxes(x, -1, -2) + 3 * np.eye(x.shape[-1], dtype=x.dtype)),
       lambda x: np.linalg.cholesky(x @ np.swapaxes(x, -1, -2) + 3 * np.eye(x.shape[-1], dtype=x.dtype)),
       [((3, 3),)], tol=1e-4, lowp=(),
       errors=(err([(3, 4)], ValueError, "square|shape|dimension"),))
record("einsum", lambda a, b: jnp.einsum("ij,jk->ik", a, b),
       lambda a, b: np.einsum("ij,jk->ik", a, b), [((2, 3), (3, 4))],
       errors=(err([(2, 3), (4, 4)], ValueError, "einsum|size|dimension|shape"),))

# the standard's and NumPy's other spellings of recorded functions (aliases: same meaning)
for _n, _np_n, _cases, _dom in (
        ("absolute", "absolute", UNARY, "nonzero"), ("acos", "arccos", UNARY, "unit"),
        ("asin", "arcsin", UNARY, "unit"), ("atan", "arctan", UNARY, "any"),
        ("acosh", "arccosh", UNARY, "ge1"), ("asinh", "arcsinh", UNARY, "any"),
        ("atanh", "arctanh", UNARY, "unit"), ("conjugate", "conjugate", UNARY, "any"),
        ("atan2", "arctan2", BINARY, "nonzero"), ("pow", "power", BINARY,
                                                  ("positive", "nonneg_small"))):
    record(_n, getattr(jnp, _n), getattr(np, _np_n), _cases, domain=_dom)
for _n in ("rint", "fix", "around"):
    record(_n, getattr(jnp, _n), getattr(np, _n), UNARY, differentiable=False)
record("bitwise_not", jnp.bitwise_not, np.bitwise_not, UNARY, dtypes=INTS + (B,),
       differentiable=False)
for _n in ("amax", "amin"):
    record(_n, getattr(jnp, _n), getattr(np, _n), R2, kwargs={"axis": -1})
for _n in ("isneginf", "isposinf"):
    record(_n, lambda x, _n=_n: getattr(jnp, _n)(x / (x > 0)), lambda x, _n=_n: getattr(np, _n)(
        x / (x > 0)), UNARY, domain="nonzero", differentiable=False)
record("isclose", lambda a, b: jnp.isclose(a, a + b * 1e-6), lambda a, b: np.isclose(
    a, a + b * 1e-6), BINARY, differentiable=False)
record("cumulative_prod", jnp.cumulative_prod, np.cumulative_prod, [((5,),)], domain="near1")
record("cumulative_prod", jnp.cumulative_prod, np.cumulative_prod, [((3, 4),)], domain="near1",
       kwargs={"axis": 1, "include_initial": True})
record("vander", jnp.vander, np.vander, [((4,),)], kwargs={"N": 3})
record("diagflat", jnp.diagflat, np.diagflat, [((3,),), ((2, 2),)])
record("diagflat", jnp.diagflat, np.diagflat, [((3,),)], kwargs={"k": -1})
for _n in ("dstack", "column_stack"):
    record(_n, lambda *xs, _n=_n: getattr(jnp, _n)(xs), lambda *xs, _n=_n: getattr(np, _n)(xs),
           [((3,), (3,)), ((2, 3), (2, 3))])
for _n in ("vsplit", "hsplit"):
    record(_n, getattr(jnp, _n), getattr(np, _n), [((4, 4),)], kwargs={"indices_or_sections": 2})
for _n in ("atleast_1d", "atleast_2d"):
    record(_n, getattr(jnp, _n), getattr(np, _n), ND)
record("permute_dims", jnp.permute_dims, np.permute_dims, R3, kwargs={"axes": (2, 0, 1)})
for _n in ("matvec", "vecmat"):
    record(_n, getattr(jnp, _n), getattr(np, _n), [((3, 4), (4,)), ((2, 3, 4), (1, 4))]
           if _n == "matvec" else [((3,), (3, 4)), ((2, 3), (3, 4))])
record("unwrap", jnp.unwrap, np.unwrap, [((6,),), ((3, 5),)], domain="any")
record("resize", jnp.resize, np.resize, [((5,),), ((2, 3),)], kwargs={"new_shape": (3, 4)})
record("delete", jnp.delete, np.delete, [((5,),), ((3, 4),)], kwargs={"obj": 1, "axis": 0})
record("insert", jnp.insert, np.insert, [((5,),), ((3, 4),)],
       kwargs={"obj": 2, "values": 0.5, "axis": 0})

# ----------------------------------------------------------------------------- the other files
# (records named 'fft.rfft', ... : jitgrad.numpy's sub-namespaces and the rest of its names)
RECORDS += numpy_fft_ops.RECORDS + numpy_creation_ops.RECORDS + numpy_extra_ops.RECORDS
