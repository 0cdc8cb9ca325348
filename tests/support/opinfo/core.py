"""The op database's machinery (PyTorch's OpInfo idea, DESIGN.md section 14): the record type,
argument domains, case drawing, tolerances, 16-bit and error samples, the default selection.

A record names one public function (`fn`), the reference that owns its meaning (`owner`:
'numpy' | 'torch' | 'jax' | 'scipy'), a reference callable `ref` that uses NumPy / SciPy only (CI
has neither torch nor jax), and, where torch or jax owns the name, `owner_path`: the owner's own
function ("torch.nn.functional.softmax"), compared when that library is importable.

A case's `args` are NumPy arrays. Shapes name the data arguments (drawn in the case's dtype from
the record's domain); `Ints`/`Bools` name index and mask arguments of a fixed dtype. A record's
kwargs (axis=, keepdims=, ...) are applied by rec.jg / rec.np; `run_traced` runs a function the
way jg.jit traces it, through the reference interpreter.
"""
from __future__ import annotations

import math
import warnings
import zlib
from dataclasses import dataclass, field

import numpy as np
import scipy.special

import jitgrad.numpy as jnp

F32, F64, I32, I64, B = (np.dtype(d) for d in ("float32", "float64", "int32", "int64", "bool"))
FLOATS = (F32, F64)
INTS = (I32, I64)
NUMERIC = FLOATS + INTS
ALL = NUMERIC + (B,)


@dataclass(frozen=True)
class Ints:
    """An int64 argument (indices) of `shape` drawn from [low, high)."""
    shape: tuple
    low: int
    high: int


@dataclass(frozen=True)
class Bools:
    """A bool argument (mask / condition) of `shape`."""
    shape: tuple


# domain name -> (float interval, int interval [lo, hi)) the data arguments are drawn from
DOMAINS = {
    "any": ((-2.0, 2.0), (-5, 6)),
    "positive": ((0.5, 2.5), (1, 6)),
    "nonneg_small": ((0.0, 1.5), (0, 4)),
    "unit": ((-0.9, 0.9), (0, 1)),          # open interval (-1, 1): arcsin, arccos, tan
    "ge1": ((1.1, 3.0), (2, 6)),
    "nonzero": ((0.5, 2.0), (1, 5)),        # magnitude; a random sign is applied
    "near1": ((0.6, 1.4), (1, 3)),          # products stay moderate
    "prob": ((0.1, 0.9), (0, 2)),           # probabilities away from 0 and 1
}


@dataclass(frozen=True)
class OpRecord:
    name: str                   # the function's public name (several records may share it)
    fn: object                  # jitgrad callable, called fn(*args, **kwargs)
    ref: object                 # NumPy reference, called ref(*args, **kwargs)
    cases: tuple                # each case: a tuple of shapes / Ints / Bools, one per argument
    dtypes: tuple = FLOATS      # dtypes of the data arguments
    kwargs: dict = field(default_factory=dict)
    tol: float = 1e-5           # float32 rtol and atol; float64 uses FLOAT64_TOL
    differentiable: bool = True
    domain: object = "any"      # a DOMAINS name, or a tuple of names (one per argument)
    grad_ok_dtypes: tuple = (F64,)
    float_result: bool = False  # computes in floating point: int/bool inputs give float32
    takes_numpy: bool = True    # fn accepts raw NumPy arrays (False: a Tensor method/operator)
    owner: str = "numpy"        # whose meaning the name has: numpy | torch | jax | scipy
    owner_path: object = None   # the owner's function ("torch.nn.functional.softmax"), if not ref
    owner_kwargs: object = None  # kwargs for the owner's function, when they differ from kwargs
    batchable: bool = True      # jg.vmap of fn equals a loop over examples
    traceable: bool = True      # runs under jg.jit (False: data-dependent output shapes)
    lowp: object = None         # 16-bit dtypes accepted (None: float16 and bfloat16 for float math)
    tol16: float = 0.0          # extra 16-bit tolerance (relative), beyond the dtype's rounding
    errors: tuple = ()          # ErrorSample: bad inputs and the error every path raises
    fuzz: object = None         # the fuzzer's use: "unary" | "binary" | "reduce" | "shape"
    note: str = ""              # why a flag is off (a known bug, a documented deviation)

    @property
    def id(self) -> str:
        kw = ",".join(f"{k}={v!r}" for k, v in self.kwargs.items())
        return f"{self.name}({kw})" if kw else self.name

    def jg(self, *args):
        return self.fn(*args, **self.kwargs)

    def np(self, *args):
        return self.ref(*args, **self.kwargs)

    def __repr__(self):
        return f"OpRecord({self.id})"


FLOAT64_TOL = 1e-11


def tolerance(rec: OpRecord, dtype) -> dict:
    """assert_allclose keywords for a result of `dtype`."""
    t = rec.tol if np.dtype(dtype) != F64 else max(FLOAT64_TOL, rec.tol * 1e-7)
    return {"rtol": t, "atol": t}


def expected_dtype(rec: OpRecord, args, numpy_result) -> np.dtype:
    """jitgrad's result dtype: NumPy's, mapped to jitgrad's dtypes, except the documented deviation
    that math on int/bool inputs (no float64 among them) computes in float32, not float64."""
    from jitgrad.dtypes import canonical_dtype
    want = canonical_dtype(np.asarray(numpy_result).dtype)
    # Python scalars and lists are weak / float32 in jitgrad: only float64 arrays count
    has_f64 = any(isinstance(a, np.ndarray) and a.dtype == F64 for a in _leaves(args))
    if (want == F64 or rec.float_result) and not has_f64 and "dtype" not in rec.kwargs:
        return F32
    arrays = [a for a in _leaves(args) if isinstance(a, np.ndarray)]
    if want == np.int8 and arrays and all(a.dtype == np.bool_ for a in arrays):
        return np.dtype(np.int32)     # bool arithmetic is int32 on every path (NumPy: int8)
    return want


def reference(rec: OpRecord, args):
    """NumPy's result. Float math on bool inputs runs on float32 copies: NumPy would compute it
    in float16, whose rounding is not what jitgrad's float32 result should be held to."""
    args = tuple(np.asarray(a) if isinstance(a, list) else a for a in args)
    if rec.float_result:
        args = tuple(a.astype(F32) if isinstance(a, np.ndarray) and a.dtype == B else a
                     for a in args)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)     # NumPy's "mean of empty slice"
        return rec.np(*args)


def _leaves(args):
    for a in args:
        if isinstance(a, (list, tuple)):
            yield from _leaves(a)
        else:
            yield a


# ----------------------------------------------------------------------------- case generation

def _draw(rng, spec, dtype, domain):
    return np.asarray(_draw_values(rng, spec, dtype, domain))   # 0-d arrays, never NumPy scalars


def _draw_values(rng, spec, dtype, domain):
    if isinstance(spec, Ints):
        return rng.integers(spec.low, spec.high, spec.shape, dtype=np.int64)
    if isinstance(spec, Bools):
        return rng.random(spec.shape) < 0.5
    if dtype == B:
        return rng.random(spec) < 0.5
    (flo, fhi), (ilo, ihi) = DOMAINS[domain]
    if dtype.kind == "f":
        a = rng.uniform(flo, fhi, spec)
    else:
        a = rng.integers(ilo, ihi, spec)
    if domain == "nonzero":
        a = a * rng.choice([-1, 1], spec)
    return np.asarray(a, dtype=dtype)


def make_args(rec: OpRecord, case, dtype, seed=0):
    rng = np.random.default_rng(zlib.crc32(f"{rec.id}|{case}|{dtype}|{seed}".encode()))
    doms = rec.domain if isinstance(rec.domain, tuple) else (rec.domain,) * len(case)
    return tuple(_draw(rng, spec, np.dtype(dtype), d) for spec, d in zip(case, doms))


def iter_cases(records, dtypes=None, seed=0):
    """Yield (record, args) for every shape case of every record, in each of its dtypes
    (intersected with `dtypes` when given)."""
    for rec in records:
        for dt in rec.dtypes:
            if dtypes is not None and np.dtype(dt) not in [np.dtype(d) for d in dtypes]:
                continue
            for case in rec.cases:
                yield rec, make_args(rec, case, dt, seed)


def run_traced(fn, *args):
    """What jg.jit runs, executed by the reference interpreter: trace with `lower`, read the
    printed IR back, interpret it. Cheap (no backend compile), so tables can run traced."""
    import jitgrad as jg
    from jitgrad import ir, tree_util
    lowered = jg.jit(fn).lower(*args)
    graph = ir.parse(lowered.ir, constants=lowered.graph.constants)
    outs = ir.interpret(graph, [np.asarray(x) for x in tree_util.tree_leaves(args)])
    return tree_util.tree_unflatten(lowered.out_tree, [jnp.asarray(o) for o in outs])


def case_id(rec, args) -> str:
    return rec.id + "[" + ",".join(f"{a.dtype.name}{list(a.shape)}" if isinstance(a, np.ndarray)
                                   else repr(a) for a in _leaves(args)) + "]"


# ----------------------------------------------------------------------------- shapes

UNARY = (((),), ((5,),), ((3, 4),), ((2, 0, 3),))
BINARY = (((), ()), ((5,), (5,)), ((3, 4), (4,)), ((3, 1), (1, 4)), ((2, 3, 4), (3, 1)),
          ((0, 3), (3,)), ((3, 4), ()))
TERNARY = (((), (), ()), ((3, 4), (3, 4), (3, 4)), ((3, 1), (4,), ()), ((2, 3, 4), (3, 1), (4,)),
           ((0, 2), (2,), ()))
ND = (((),), ((5,),), ((3, 4),), ((2, 3, 4),))
R2 = (((3, 4),), ((2, 3, 4),), ((1, 5),))
R3 = (((2, 3, 4),),)


def table(owner, owner_prefix=None):
    """(records, record): a namespace's record list and the function that appends to it, with
    `owner` the default reference owner and `owner_prefix` + name the owner's function."""
    records = []

    def record(name, fn, ref, cases, **kw):
        kw.setdefault("owner", owner)
        if owner_prefix and "owner_path" not in kw and name.isidentifier():
            kw["owner_path"] = owner_prefix + name
        records.append(OpRecord(name, fn, ref, tuple(cases), **kw))
        return records[-1]
    return records, record

# ----------------------------------------------------------------------------- error samples

@dataclass(frozen=True)
class ErrorSample:
    """Bad inputs: `args` (shapes / Ints / Bools drawn in `dtype`, or literal values), kwargs that
    replace the record's, and the exception every path (eager, jit compiled, jit interpreted)
    raises: its type and a regex its message matches."""
    args: tuple
    exc: object
    match: str
    kwargs: object = None
    dtype: str = "float32"

    def draw(self, rec):
        rng = np.random.default_rng(zlib.crc32(f"{rec.id}|error|{self.args}".encode()))
        return tuple(_draw(rng, a, np.dtype(self.dtype), "any")
                     if isinstance(a, (tuple, Ints, Bools)) else a for a in self.args)

    def call(self, rec, *args):
        kw = dict(rec.kwargs) if self.kwargs is None else self.kwargs
        return rec.fn(*args, **kw)


def err(args, exc, match, kwargs=None, dtype="float32"):
    return ErrorSample(tuple(args), exc, match, kwargs, dtype)


# ----------------------------------------------------------------------------- 16-bit samples

F16 = np.dtype("float16")


def lowp_dtypes(rec) -> tuple:
    """The 16-bit float dtypes a record accepts: its `lowp`, or by default float16 and bfloat16
    for differentiable float math."""
    if rec.lowp is not None:
        return tuple(rec.lowp)
    if F32 in rec.dtypes and rec.differentiable:
        return ("float16", "bfloat16")
    return ()


def as_lowp(args, dtype):
    """float32 arguments rounded to the 16-bit `dtype` (index and mask arguments unchanged)."""
    from jitgrad.dtypes import canonical_dtype
    dt = canonical_dtype(dtype)
    return tuple(a.astype(dt) if isinstance(a, np.ndarray) and a.dtype == F32 else a for a in args)


def lowp_tolerance(rec, dtype) -> dict:
    """16-bit results are computed in float32 and rounded once: a few units of the last place."""
    eps = float(np.finfo(np.float16).eps) if np.dtype(dtype) == F16 else 2.0 ** -7
    t = 4 * eps * max(1.0, rec.tol / 1e-5) ** 0.5 + rec.tol16
    return {"rtol": t, "atol": t}


# ----------------------------------------------------------------------------- the default selection

def selected(test_id: str, share: int = 4) -> bool:
    """A deterministic ~1/share of the generated tests run by default; all of them with
    JITGRAD_OPINFO_ALL=1 or -m slow (the rest are marked slow)."""
    import os
    if os.environ.get("JITGRAD_OPINFO_ALL") == "1":
        return True
    return zlib.crc32(test_id.encode()) % share == 0


# ----------------------------------------------------------------------------- the real owner

def owner_function(rec):
    """The owner's own function (torch / jax imported), or None when that library is absent."""
    import importlib
    parts = rec.owner_path.split(".")
    for i in range(len(parts) - 1, 0, -1):       # "torch.Tensor.add": module torch, then attrs
        if importlib.util.find_spec(".".join(parts[:i])) is not None:
            break
    obj = importlib.import_module(".".join(parts[:i]))
    for attr in parts[i:]:
        obj = getattr(obj, attr)
    return obj


def call_owner(rec, args):
    """The owner's result on NumPy `args`, as NumPy arrays (a list for several results)."""
    kw = rec.kwargs if rec.owner_kwargs is None else rec.owner_kwargs
    fn = owner_function(rec)
    if rec.owner == "torch":
        import torch
        out = fn(*[torch.from_numpy(np.array(a)) if isinstance(a, np.ndarray) else a
                   for a in args], **kw)
        conv = lambda o: o.detach().numpy() if isinstance(o, torch.Tensor) else np.asarray(o)  # noqa
    else:
        import jax
        import jax.numpy as jjnp
        with jax.enable_x64(True) if hasattr(jax, "enable_x64") else _x64():
            out = fn(*[jjnp.asarray(a) if isinstance(a, np.ndarray) else a for a in args], **kw)
            out = jax.tree_util.tree_map(np.asarray, out)
        conv = np.asarray
    if isinstance(out, (list, tuple)):
        return [conv(o) for o in out]
    return conv(out)


def _x64():
    from jax.experimental import enable_x64
    return enable_x64()
