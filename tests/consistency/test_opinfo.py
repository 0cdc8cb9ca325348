"""Tests generated from the op database (tests/support/opinfo): per record, eager vs its reference, jit
compiled vs eager, the jit graph interpreted vs eager, gradients by finite differences (float64),
vmap vs a loop, float16 / bfloat16 inputs, bad inputs raising the same error on every path, and
the owner's own function (torch / jax, when importable). Records of the older table
(op_records.RECORDS) get eager / jit / grad / vmap from test_numpy_ops.py,
test_autodiff_records.py and test_vmap_records.py; here only the newer kinds.

A deterministic sample runs by default (SHARE: a sixth of the cheap kinds, a thirtieth of those
that compile a kernel per test); the rest are marked slow (-m slow, or JITGRAD_OPINFO_ALL=1
runs all of them unmarked)."""
import importlib.util

import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad import tree_util
from jitgrad.test_util import check_grads
from tests.support.opinfo import (ALL_RECORDS, F32, F64, NAMESPACES, RECORDS, as_lowp, call_owner,
                          case_id, expected_dtype, iter_cases, lowp_dtypes, lowp_tolerance,
                          make_args, public_name, reference, run_traced, selected, tolerance)

LEGACY = {id(r) for r in RECORDS}


def _has_f64(rec):
    return F64 in rec.dtypes


KINDS = {   # kind -> which records get it
    "eager": lambda r: id(r) not in LEGACY,
    "jit": lambda r: id(r) not in LEGACY and r.traceable,
    "interpreter": lambda r: id(r) not in LEGACY and r.traceable,
    "grad": lambda r: id(r) not in LEGACY and r.differentiable and _has_f64(r)
    and F64 in r.grad_ok_dtypes,
    "vmap": lambda r: id(r) not in LEGACY and r.batchable and r.traceable,
    "lowp": lambda r: bool(lowp_dtypes(r)),
    "errors": lambda r: bool(r.errors),
    "owner": lambda r: r.owner_path is not None,
}


# generated tests that fail today: test id -> the bug or deviation (issue 49's op database report)
KNOWN = {
    "lowp-kl_div": "jss.kl_div of float16 inputs returns float32 (16-bit inputs should round once)",
    "lowp-loggamma": "jss.loggamma in float16/bfloat16 is off by more than a few 16-bit ulps",
    **dict.fromkeys(("lowp-lgamma", "lowp-lgamma[Tensor]", "lowp-mvlgamma(p=1)",
                     "lowp-mvlgamma[Tensor](p=1)"), "torch.lgamma / mvlgamma (jss.gammaln) in "
                    "float16/bfloat16 are off by more than a few 16-bit ulps"),
    **dict.fromkeys(("lowp-digamma", "lowp-digamma[Tensor]", "lowp-digamma-1"),  # -1: jss's record
                    "torch.digamma (jss.digamma) of "
                    "float16 inputs returns float32 (16-bit inputs should round once)"),
    **dict.fromkeys(("jit-as_tensor", "interpreter-as_tensor", "vmap-as_tensor"),
                    "jg.as_tensor of a traced value raises as jg.tensor does (torch.as_tensor "
                    "returns a tensor argument itself, so it should trace)"),
    "eager-erfc[float64]": "lax.erfc is a float32-grade fit (Numerical Recipes' erfcc, relative "
                           "error ~1e-7) in float64 too; jss.erfc is the accurate one",
}


# kind -> 1 / the share of its tests in the default run (the others compile kernels per test;
# CI's default run stays under 15 minutes with the whole database in it)
SHARE = {"eager": 6, "errors": 6, "owner": 6}
COMPILED_SHARE = 30


def _params(kind):
    out, seen = [], {}
    for r in ALL_RECORDS:
        if not KINDS[kind](r):
            continue
        n = seen[r.id] = seen.get(r.id, -1) + 1
        tid = f"{kind}-{r.id}" + (f"-{n}" if n else "")
        marks = () if selected(tid, SHARE.get(kind, COMPILED_SHARE)) else (pytest.mark.slow,)
        if tid in KNOWN:
            marks += (pytest.mark.xfail(reason=KNOWN[tid], strict=True),)
        out.append(pytest.param(r, id=tid, marks=marks))
    return out


def _list(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _same(got, want, tol, where, dtype=None):
    gs, ws = _list(got), _list(want)
    assert len(gs) == len(ws), f"{where}: {len(gs)} results, want {len(ws)}"
    for g, w in zip(gs, ws):
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape, f"{where}: shape {g.shape}, want {w.shape}"
        if dtype is not None:
            assert g.dtype == dtype(w), f"{where}: dtype {g.dtype}, want {dtype(w)}"
        np.testing.assert_allclose(g.astype(np.float64) if g.dtype.kind in "fb" and g.dtype !=
                                   np.bool_ else g, w.astype(g.dtype) if g.dtype.kind == "f"
                                   and w.dtype.kind == "f" else w, err_msg=where, **tol)


def _eager(rec, args):
    return rec.jg(*[jnp.asarray(a) for a in args])


def _cases(rec):
    return [args for _, args in iter_cases([rec])]


@pytest.mark.parametrize("rec", _params("eager"))
def test_eager_vs_reference(rec):
    for args in _cases(rec):
        got, want = _eager(rec, args), reference(rec, args)
        _same(got, want, tolerance(rec, F32 if all(
            getattr(a, "dtype", F64) != F64 for a in args) else F64), case_id(rec, args),
            dtype=lambda w, a=args: expected_dtype(rec, a, w))


@pytest.mark.parametrize("rec", _params("jit"))
def test_jit_vs_eager(rec):
    """All of a record's cases in one jitted function (one signature per record)."""
    cases = _cases(rec)
    outs = jg.jit(lambda batch: [rec.jg(*a) for a in batch])(cases)
    for args, out in zip(cases, outs):
        _same(out, _eager(rec, args), tolerance(rec, F32), case_id(rec, args))


@pytest.mark.parametrize("rec", _params("interpreter"))
def test_interpreter_vs_eager(rec):
    cases = _cases(rec)
    outs = run_traced(lambda batch: [rec.jg(*a) for a in batch], cases)
    for args, out in zip(cases, outs):
        _same(out, _eager(rec, args), tolerance(rec, F32), case_id(rec, args))


@pytest.mark.parametrize("rec", _params("grad"))
def test_grad_finite_differences(rec):
    for case in rec.cases:
        args = make_args(rec, case, F64)
        with np.errstate(all="ignore"):
            value = rec.np(*args)
        if any(np.isnan(np.asarray(v)).any() for v in _list(value)):
            continue
        is_f = [isinstance(a, np.ndarray) and a.dtype == F64 for a in args]
        if not any(is_f):
            continue

        def fn(*fl, args=args, is_f=is_f):
            it = iter(fl)
            return rec.jg(*[next(it) if f else a for a, f in zip(args, is_f)])
        check_grads(fn, tuple(a for a, f in zip(args, is_f) if f), order=1,
                    modes=("fwd", "rev"))


@pytest.mark.parametrize("rec", _params("vmap"))
def test_vmap_vs_loop(rec):
    dt = F64 if _has_f64(rec) else rec.dtypes[0]
    for case in rec.cases:
        exs = [make_args(rec, case, dt, seed=s) for s in range(3)]
        got = tree_util.tree_leaves(jg.vmap(rec.jg)(*[np.stack(a) for a in zip(*exs)]))
        outs = [tree_util.tree_leaves(rec.jg(*[jnp.asarray(a) for a in ex])) for ex in exs]
        want = [np.stack([np.asarray(o[k]) for o in outs]) for k in range(len(outs[0]))]
        _same(got, want, {"rtol": 1e-9, "atol": 1e-9} if dt == F64 else tolerance(rec, F32),
              case_id(rec, exs[0]))


@pytest.mark.parametrize("rec", _params("lowp"))
def test_16bit_inputs(rec):
    """float16 / bfloat16 arguments: the 16-bit result of the float32 computation, rounded once."""
    for dt in lowp_dtypes(rec):
        for args in _cases(rec) if F32 in rec.dtypes else []:
            if args and all(getattr(a, "dtype", None) != F32 for a in args):
                continue
            args = tuple(a for a in args)
            if not any(getattr(a, "dtype", None) == F32 for a in args):
                continue
            low = as_lowp(args, dt)
            up = tuple(a.astype(F32) if getattr(a, "dtype", F32).kind == "V" or str(
                getattr(a, "dtype", "")) in ("float16", "bfloat16") else a for a in low)
            want = [np.asarray(w) for w in _list(reference(rec, up))]
            got = _list(_eager(rec, low))
            where = case_id(rec, low)
            for g, w in zip(got, want):
                g = np.asarray(g)
                if w.dtype == F32 and "dtype" not in rec.kwargs:
                    assert str(g.dtype) == dt, f"{where}: dtype {g.dtype}, want {dt}"
                    w = w.astype(g.dtype)
                np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64),
                                           err_msg=where, **lowp_tolerance(rec, dt))


def _raises(sample, rec, fn, args, where):
    with pytest.raises(sample.exc, match=sample.match) as info:
        fn(*args)
    return f"{where}: {type(info.value).__name__}"


@pytest.mark.parametrize("rec", _params("errors"))
def test_errors_on_every_path(rec):
    """The same exception type and message on eager, jit (compiled) and the interpreted graph."""
    for s in rec.errors:
        args = s.draw(rec)
        msgs = []
        for path, fn in (("eager", lambda *a: s.call(rec, *[jnp.asarray(x) for x in a])),
                         ("jit", jg.jit(lambda *a: s.call(rec, *a))),
                         ("interpreter", lambda *a: run_traced(lambda *b: s.call(rec, *b), *a))):
            with pytest.raises(s.exc, match=s.match) as info:
                fn(*args)
            msgs.append((type(info.value), str(info.value)))
        assert len(set(msgs)) == 1, f"{rec.id}: different errors on the paths: {msgs}"


@pytest.mark.parametrize("rec", _params("owner"))
def test_against_the_owner(rec):
    """The owner's own function (torch / jax), where it is installed: values and shapes."""
    lib = rec.owner_path.split(".")[0]
    if importlib.util.find_spec(lib) is None:
        pytest.skip(f"{lib} is not installed (CI: the NumPy/SciPy reference only)")
    for args in _cases(rec):
        want = call_owner(rec, args)
        _same(_eager(rec, args), want, tolerance(rec, F32), case_id(rec, args) + " vs "
              + rec.owner_path)


# ----------------------------------------------------------------------------- coverage

# public names with at least one record, per namespace: may only grow (raise when adding records)
COVERED_AT_LEAST = {"jitgrad.numpy": 368, "jitgrad.nn.functional": 132}


def _own_function(f, package) -> bool:
    """A function of `package`'s (not a class, nor a helper imported from the IR, the
    dispatcher or a private module: fft.apply, linalg.Op, F.register_methods, ...)."""
    mod = getattr(f, "__module__", "") or ""
    return (callable(f) and not isinstance(f, type) and mod.startswith(package)
            and not any(part.startswith("_") for part in mod.split(".")))


def coverage():
    import jitgrad.nn.functional as F
    out = {}
    for ns, mod, package in (("jitgrad.numpy", jnp, "jitgrad.numpy"),
                             ("jitgrad.nn.functional", F, "jitgrad.nn")):
        public = {n for n in dir(mod) if not n.startswith("_")
                  and _own_function(getattr(mod, n), "jitgrad")}
        for sub in ("linalg", "fft"):
            m = getattr(mod, sub, None)
            if m is not None:
                public.discard(sub)
                public |= {f"{sub}.{n}" for n in dir(m) if not n.startswith("_")
                           and _own_function(getattr(m, n), package)}
        recorded = {public_name(r) for r in NAMESPACES[ns].RECORDS}
        out[ns] = (sorted(public & recorded), sorted(public - recorded))
    return out


def test_coverage_does_not_drop():
    for ns, (have, missing) in coverage().items():
        pct = 100 * len(have) / (len(have) + len(missing))
        print(f"{ns}: {len(have)} of {len(have) + len(missing)} public names recorded ({pct:.0f}%)")
        assert len(have) >= COVERED_AT_LEAST[ns], (ns, len(have))
