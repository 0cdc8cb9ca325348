"""The differential fuzzer's op list, drawn from the op database (DESIGN.md section 14): every
record marked `fuzz=` becomes a FuzzOp, a line of program text calling the record's public name
with its kwargs, each input mapped into the record's domain, its result shape from the NumPy
reference, and the record's tolerance. Kinds:

    unary   one array in, same shape out ("jnp.log((jnp.abs({a}) + 0.5))")
    binary  two broadcasting arrays in ("jnp.divide({a}, jnp.where(...{b}...))")
    reduce  one array, the fuzzer draws axis= and keepdims= ("jnp.sum({a}, axis=.., keepdims=..)")
    shape   one array in, the record's kwargs fixed, any shape out ("jnp.roll({a}, shift=2)")

Only records the fuzzer can run in every float dtype it draws (float32, float64 and both 16-bit
types) are fuzzable.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from .core import F32, F64, Bools, OpRecord, lowp_dtypes

KINDS = ("unary", "binary", "reduce", "shape")

# how the program text spells each namespace (tests/support/fuzz_programs.py's scope holds these names)
SPELLING = {"jitgrad.numpy": "jnp.{}", "jitgrad.nn.functional": "F.{}", "jitgrad": "jg.{}",
            "jitgrad.scipy.special": "jss.{}", "jitgrad.lax": "lax.{}"}

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


@dataclass(frozen=True)
class FuzzOp:
    record: OpRecord
    kind: str
    text: str           # format with a=, b= (the input names) and, for reduce, axis=, keepdims=

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
        args = [np.zeros(shapes[0], bool) if isinstance(spec, Bools) else np.zeros(next(data))
                for spec in rec.cases[0]]
        try:
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out = rec.ref(*args, **rec.kwargs, **params)
        except (ValueError, IndexError, TypeError):
            return None
        return tuple(np.shape(out)) if not isinstance(out, (list, tuple)) else None


def _fuzz_dtypes_ok(rec) -> bool:
    return F32 in rec.dtypes and F64 in rec.dtypes and len(lowp_dtypes(rec)) == 2


def _text(rec, kind, spelled) -> str:
    doms = rec.domain if isinstance(rec.domain, tuple) else (rec.domain,) * len(rec.cases[0])
    names, args = iter("ab"), []
    for spec, dom in zip(rec.cases[0], doms):
        if isinstance(spec, Bools):
            args.append(BOOL_ARG.format("{a}"))
            continue
        pattern = SQUASH if dom == "any" and rec.name in SQUASHED else INTO_DOMAIN[dom]
        args.append(pattern.replace("{}", "{" + next(names) + "}"))
    kw = [f"{k}={v!r}" for k, v in rec.kwargs.items()]
    if kind == "reduce":
        kw += ["axis={axis}", "keepdims={keepdims}"]
    return f"{spelled}({', '.join(args + kw)})"


def fuzz_ops(records, namespace_of, public_name, kind) -> list:
    """The FuzzOps of `kind` among `records` (namespace_of: id(record) -> namespace), sorted by
    text (deterministic for a seeded fuzzer)."""
    assert kind in KINDS, kind
    out = {}
    for rec in records:
        if rec.fuzz != kind or not _fuzz_dtypes_ok(rec):
            continue
        text = _text(rec, kind, SPELLING[namespace_of[id(rec)]].format(public_name(rec)))
        out.setdefault(text, FuzzOp(rec, kind, text))
    return [out[t] for t in sorted(out)]
