"""The differential fuzzer's op list, drawn from the op database (DESIGN.md section 14): every
record marked `fuzz=` becomes a FuzzOp, a line of program text calling the record's public name
with its kwargs, each input mapped into the record's domain, its result shape from the NumPy
reference, and the record's tolerance. Kinds:

    unary   one array in, same shape out ("jnp.log((jnp.abs({a}) + 0.5))")
    binary  two broadcasting arrays in ("jnp.divide({a}, jnp.where(...{b}...))")
    reduce  one array, the fuzzer draws axis= and keepdims= ("jnp.sum({a}, axis=.., keepdims=..)")
    shape   one array in, the record's kwargs fixed, any shape out ("jnp.roll({a}, shift=2)")

Two families, by the dtypes a record runs in:

    float   float32, float64 and both 16-bit types (the float programs and the pass fuzzer's
            graphs draw these)
    int     int32 and int64 with an integer result (the integer programs: x // y, shifts, sum,
            sort; not math that computes in floating point)

The integer family keeps the edge values (min, -1, 0, the bit width) wherever the integer
function is total: x // 0 == 0, min // -1 == min and shifts past the width are NumPy's contract
(tests/support/int_edges.py); only a negative integer power, which NumPy rejects, is mapped away
(INT_INTO_DOMAIN). A record whose domain has no integer mapping is not in the int family.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

import jitgrad as jg
import jitgrad.nn.functional as F
import jitgrad.numpy as jnp
import jitgrad.scipy.special as jss

from .core import F32, F64, I32, I64, Bools, OpRecord, lowp_dtypes

KINDS = ("unary", "binary", "reduce", "shape")
FAMILIES = ("float", "int")

# how the program text spells each namespace (SCOPE holds these names)
SPELLING = {"jitgrad.numpy": "jnp.{}", "jitgrad.nn.functional": "F.{}", "jitgrad": "jg.{}",
            "jitgrad.scipy.special": "jss.{}", "jitgrad.lax": "lax.{}"}
# the names that text reads: evaluate a FuzzOp's line in a copy of this
SCOPE = {"jnp": jnp, "F": F, "jg": jg, "jss": jss, "lax": jg.lax}

# maps any float into each domain's interval, away from its edges ("{}": the value's text);
# "nonzero" keeps the sign and stays 0.5 away from 0 (divisors, abs's kink)
INTO_DOMAIN = {"any": "{}", "positive": "(jnp.abs({}) + 0.5)",
               "nonzero": "({} + jnp.copysign(0.5, {}))",
               "unit": "(jnp.tanh({}) * 0.9)", "ge1": "(jnp.abs({}) + 1.1)",
               "prob": "(F.sigmoid({}) * 0.8 + 0.1)", "near1": "(jnp.tanh({}) * 0.4 + 1.0)",
               "nonneg_small": "jnp.abs({})"}
# functions that grow like exp: inputs from "any" are squashed into the interval the records
# sample, (-2, 2), so chains of them stay finite in float16
SQUASHED = {"exp", "exp2", "expm1", "sinh", "cosh"}
SQUASH = "(jnp.tanh({}) * 2.0)"
BOOL_ARG = "({} > 0)"           # a Bools argument (where's condition): the sign of the first input
# the integer family's domains: edge values stay; a power's exponent is kept non-negative
INT_INTO_DOMAIN = {"any": "{}", "nonzero": "{}", "positive": "{}", "near1": "{}",
                   "shift": "{}", "nonneg_small": "({} & 7)"}


@dataclass(frozen=True)
class FuzzOp:
    record: OpRecord
    kind: str
    text: str           # format with a=, b= (the input names) and, for reduce, axis=, keepdims=
    family: str = "float"

    @property
    def tol_scale(self) -> float:
        """How much looser than the fuzzer's default tolerance the record's tolerance is."""
        return max(1.0, self.record.tol / 1e-5)

    def line(self, *names, **params) -> str:
        return self.text.format(**dict(zip("ab", names)), **{k: repr(v) for k, v in
                                                              params.items()})

    def shape(self, *shapes, **params):
        """The result's shape (the NumPy reference on zeros), or None where the reference rejects
        the shapes or params."""
        rec = self.record
        given = {**rec.kwargs, **params}
        if any(k in given for k in ("axis", "dim", "axes")) and any(len(s) == 0 for s in shapes):
            return None         # NumPy/SciPy references read a 0-d array as 1-d; JAX raises
        data = iter(shapes)     # a Bools argument is the first input's sign: its shape
        dtype = I64 if self.family == "int" else F64
        args = [np.zeros(shapes[0], bool) if isinstance(spec, Bools) else
                np.zeros(next(data), dtype) for spec in rec.cases[0]]
        try:
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out = rec.ref(*args, **rec.kwargs, **params)
        except (ValueError, IndexError, TypeError):
            return None
        return tuple(np.shape(out)) if not isinstance(out, (list, tuple)) else None


def _domains(rec) -> tuple:
    return rec.domain if isinstance(rec.domain, tuple) else (rec.domain,) * len(rec.cases[0])


def _float_ok(rec) -> bool:
    return F32 in rec.dtypes and F64 in rec.dtypes and len(lowp_dtypes(rec)) == 2


def _int_ok(rec) -> bool:
    """int32 and int64, every domain mapped, and an integer result (NumPy's, on ones)."""
    if I32 not in rec.dtypes or I64 not in rec.dtypes or not set(_domains(rec)) <= set(
            INT_INTO_DOMAIN):
        return False
    args = [np.ones(spec.shape if isinstance(spec, Bools) else spec,
                    bool if isinstance(spec, Bools) else I64) for spec in rec.cases[-1]]
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return np.asarray(rec.ref(*args, **rec.kwargs)).dtype.kind == "i"


FAMILY_OK = {"float": _float_ok, "int": _int_ok}


def _pattern(rec, dom, family) -> str:
    if family == "int":
        return INT_INTO_DOMAIN[dom]
    return SQUASH if dom == "any" and rec.name in SQUASHED else INTO_DOMAIN[dom]


def _text(rec, kind, spelled, family) -> str:
    names, args = iter("ab"), []
    for spec, dom in zip(rec.cases[0], _domains(rec)):
        if isinstance(spec, Bools):
            args.append(BOOL_ARG.format("{a}"))
            continue
        args.append(_pattern(rec, dom, family).replace("{}", "{" + next(names) + "}"))
    kw = [f"{k}={v!r}" for k, v in rec.kwargs.items()]
    if kind == "reduce":
        kw += ["axis={axis}", "keepdims={keepdims}"]
    return f"{spelled}({', '.join(args + kw)})"


def fuzz_ops(records, namespace_of, public_name, kind, family="float") -> list:
    """The FuzzOps of `kind` in `family` among `records` (namespace_of: id(record) ->
    namespace), sorted by text (deterministic for a seeded fuzzer)."""
    assert kind in KINDS and family in FAMILIES, (kind, family)
    out = {}
    for rec in records:
        if rec.fuzz != kind or not FAMILY_OK[family](rec):
            continue
        text = _text(rec, kind, SPELLING[namespace_of[id(rec)]].format(public_name(rec)), family)
        out.setdefault(text, FuzzOp(rec, kind, text, family))
    return [out[t] for t in sorted(out)]
