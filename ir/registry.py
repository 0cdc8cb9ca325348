"""The primitive record and the registry of all records.

A `Primitive` record is the one description of an op: its kind and group, type rule, NumPy
reference, derivative, batching rule, how backends compute one element of it, its cost class,
and its jitgrad.numpy and Tensor-method names. `register` files records (ir/primitives/__init__.py
registers every record file, explicitly) and fills the per-concern tables below, which the
interpreter, autodiff, vmap, the passes and the backends read. This module imports nothing that
registers records, so rule modules can read the tables at call time without an import cycle.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Callable, Optional

from .errors import MissingRuleError, ShapeError
from .ops import Op

# kind: what the op is to the passes and the backends' kernel generators
KINDS = ("elementwise", "reduce", "cumulative", "shape", "index", "matmul", "linalg", "fft",
         "constant", "kernel", "control", "custom")
# accepts: the element types an elementwise (or reduce / cumulative) op takes
ACCEPTS = ("any", "numeric", "real", "ordered", "float", "inexact", "integer", "bool", "complex")
# result: an elementwise op's result dtype from its inputs' (param: params["dtype"])
RESULTS = ("same", "bool", "real", "complex", "param")
# cost: per element, in bytes-equivalent (fusion weighs recomputation against memory traffic);
# "transcendental" ops are also what makes a kernel worth running on two threads sooner
# (codegen/kernel/costs.element_cost)
COST = {"cheap": 0.25, "divide": 2, "heavy": 8, "transcendental": 8}
# scalar: how a backend computes one element of an elementwise op:
#   ("math", name)  the C math function `name` (libm, libdevice, llvm_math when the
#                   record names a vector_math function); ("infix", sym) a Python/C operator;
#   ("rule",)       a rule of the backend's own, keyed by op (codegen/*_exprs.py)
BACKENDS = ("llvm", "cuda")


@dataclass(frozen=True)
class Primitive:
    op: Op
    kind: str
    type_rule: Callable                  # (op, in_types, params) -> [TensorType]
    reference: Optional[Callable]        # NumPy: (*arrays, **params) -> array(s)
    arity: Optional[int] = 1             # None: any number of inputs
    group: str = ""                      # finer class, for docs and tests ("float_unary", ...)
    accepts: str = "any"
    result: str = "same"
    # derivative: `linearized` (elementwise: fn(e, inputs, output, g, i) = g * d out / d in_i,
    # which gives both modes), or explicit vjp / jvp rules; `nondiff` says why there is none
    linearized: Optional[Callable] = None
    vjp: Optional[Callable] = None       # fn(e, node, cts) -> one cotangent per input
    jvp: Optional[Callable] = None       # fn(e, node, tangents) -> one tangent per output
    nondiff: str = ""
    batch: Optional[Callable] = None     # fn(e, node, args, batched) -> [(value, batched)]
    unbatchable: str = ""
    scalar: tuple = ()                   # elementwise: ("math", name) | ("infix", sym) | ("rule",)
    cost: str = "cheap"
    vector_math: str = ""                # the llvm_math function, if it has one
    gaps: dict = field(default_factory=dict)    # backend -> why it does not compile it (fallback)
    numpy: tuple = ()                    # jitgrad.numpy names (first: the def, then aliases)
    numpy_kind: str = ""                 # the jitgrad.numpy wrapper ("float_unary", "binary", ...)
    method: tuple = ()                   # Tensor method names
    doc: str = ""                        # one line: what it computes

    def __post_init__(self):
        assert self.kind in KINDS, (self.op, self.kind)
        assert self.accepts in ACCEPTS and self.result in RESULTS, self.op
        assert self.cost in COST, (self.op, self.cost)
        assert set(self.gaps) <= set(BACKENDS), (self.op, self.gaps)
        assert self.vjp or self.nondiff or self.kind in ("kernel", "control"), (
            f"{self.op}: a derivative rule or the reason it has none")


RECORDS: dict = {}            # Op -> Primitive
# the per-concern tables, filled by register()
KIND: dict = {}               # op -> its record's kind
OP_COST: dict = {}            # op -> cost per element (COST of its record's cost class)
TRANSCENDENTAL: set = set()   # ops of cost class "transcendental"
TYPE_RULES: dict = {}
REFERENCE: dict = {}
VJP_RULES: dict = {}
JVP_RULES: dict = {}
BATCH_RULES: dict = {}
UNBATCHABLE: dict = {}        # op -> why it needs no batching rule
NON_DIFFERENTIABLE: set = set()


def register(*records: Primitive) -> None:
    for r in records:
        if r.op in RECORDS:
            raise ValueError(f"primitive {r.op} is registered twice")
        RECORDS[r.op] = r
        KIND[r.op] = r.kind
        OP_COST[r.op] = COST[r.cost]
        if r.cost == "transcendental":
            TRANSCENDENTAL.add(r.op)
        TYPE_RULES[r.op] = r.type_rule
        for table, rule in ((REFERENCE, r.reference), (VJP_RULES, r.vjp), (JVP_RULES, r.jvp),
                            (BATCH_RULES, r.batch)):
            if rule is not None:
                table[r.op] = rule
        if r.unbatchable:
            UNBATCHABLE[r.op] = r.unbatchable
        if r.nondiff:
            NON_DIFFERENTIABLE.add(r.op)
    select.cache_clear()


def record(op) -> Primitive:
    try:
        return RECORDS[op]
    except KeyError:
        raise MissingRuleError(op, "primitive record") from None


@functools.lru_cache(maxsize=None)
def select(**fields) -> frozenset:
    """The ops whose records have all the given field values, e.g. select(kind="reduce")."""
    return frozenset(op for op, r in RECORDS.items()
                     if all(getattr(r, k) == v for k, v in fields.items()))


def infer_types(op, in_types, params) -> list:
    """Result types of `op` applied to `in_types`; ShapeError names the op and the inputs."""
    r = RECORDS.get(op)
    if r is None:
        raise MissingRuleError(op, "type")
    if r.arity is not None and len(in_types) != r.arity:
        raise ShapeError(f"{op}: expected {r.arity} inputs, got {len(in_types)}")
    return r.type_rule(op, list(in_types), params)
