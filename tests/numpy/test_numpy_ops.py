"""Every op record, eager and under jg.jit, against NumPy; Python scalars, lists and NumPy arrays
as arguments; jitgrad's documented dtype deviations from NumPy."""
import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
from tests.support.opinfo.core import selected
from tests.support.op_records import (BINARY, F32, F64, RECORDS, Bools, Ints, case_id, expected_dtype,
                        iter_cases, reference, run_traced, tolerance)

IDS = [r.id for r in RECORDS]


def _as_list(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


def check(rec, args, got):
    """`got` matches NumPy on `args`: values, shape and (deviation-aware) dtype."""
    want = reference(rec, args)
    where = case_id(rec, args)
    gs, ws = _as_list(got), _as_list(want)
    assert len(gs) == len(ws), f"{where}: {len(gs)} results, NumPy gives {len(ws)}"
    for g, w in zip(gs, ws):
        w = np.asarray(w)
        assert isinstance(g, jg.Tensor), f"{where}: got a {type(g).__name__}"
        assert g.dtype == expected_dtype(rec, args, w), f"{where}: dtype {g.dtype}, NumPy {w.dtype}"
        assert g.shape == w.shape, f"{where}: shape {g.shape}, NumPy {w.shape}"
        np.testing.assert_allclose(np.asarray(g), w, err_msg=where, **tolerance(rec, g.dtype))


def _tensors(args):
    return tuple(jnp.asarray(a) for a in args)


@pytest.mark.parametrize("rec", RECORDS, ids=IDS)
def test_eager(rec):
    for _, args in iter_cases([rec]):
        check(rec, args, rec.jg(*_tensors(args)))   # jitgrad tensors
        if rec.takes_numpy:
            check(rec, args, rec.jg(*args))         # NumPy arrays, as a NumPy user passes them


# Each test_jit compiles one graph of all its record's cases; the op database's jit kinds
# (tests/consistency/test_opinfo.py) compile every record too, so half of these run by default,
# all with -m slow or JITGRAD_OPINFO_ALL=1.
JIT_PARAMS = [pytest.param(r, id=r.id, marks=() if selected(f"numpy-ops-jit-{r.id}", 2)
                           else (pytest.mark.slow,)) for r in RECORDS]


@pytest.mark.parametrize("rec", JIT_PARAMS)
def test_jit(rec):
    """All of a record's cases traced into one graph (one signature per record), run twice: the
    printed graph read back and interpreted as traced, and through jg.jit (optimized by the pass
    pipeline; the backend conftest.py picks)."""
    cases = [args for _, args in iter_cases([rec])]
    runs = []

    def all_cases(batch):
        runs.append(1)
        return [rec.jg(*a) for a in batch]
    f = jg.jit(all_cases)
    for outs in (run_traced(all_cases, cases), f(cases), f(cases)):
        for args, out in zip(cases, outs):
            check(rec, args, out)
    assert len(runs) == 2          # once for run_traced, once for f: the second f call is cached


def _data_only(rec):
    return rec.takes_numpy and all(
        not isinstance(s, (Ints, Bools)) for case in rec.cases for s in case)


LIST_RECORDS = [r for r in RECORDS if _data_only(r) and (F32 in r.dtypes or np.int64 in r.dtypes)]


@pytest.mark.parametrize("rec", LIST_RECORDS, ids=[r.id for r in LIST_RECORDS])
def test_python_lists_and_scalars(rec):
    """Nested lists and Python scalars work wherever NumPy takes them. Lists of Python floats
    are float32 (NumPy: float64), lists of ints int64."""
    dtypes = [d for d in (F32, np.dtype("int64")) if d in rec.dtypes]
    for _, args in iter_cases([rec], dtypes=dtypes):
        if any(a.size == 0 for a in args):         # [] can't say which dimension is empty
            continue
        py = tuple(a.tolist() for a in args)       # 0-d arrays become Python scalars
        check(rec, py, rec.jg(*py))


WEAK_BINARY = [r for r in RECORDS if r.cases == BINARY]


@pytest.mark.parametrize("rec", WEAK_BINARY, ids=[r.id for r in WEAK_BINARY])
def test_weak_python_scalars(rec):
    """A Python scalar takes the array's dtype unless it is of a higher kind (NumPy 2's rule);
    an int/bool array meeting a Python float gives float32 (NumPy: float64)."""
    for _, (a, _b) in iter_cases([rec], dtypes=rec.dtypes):
        if a.ndim != 2:
            continue
        for s in (2, 1.5, True):
            if rec.name in ("floor_divide", "mod", "divide", "true_divide") and s is True:
                s = 3
            for args in ((a, s), (s, a)):
                with np.errstate(all="ignore"):
                    np_ok = _numpy_accepts(rec, args)
                if np_ok:
                    check(rec, args, rec.jg(*args))


def _numpy_accepts(rec, args):
    try:
        rec.np(*args)
        return True
    except (TypeError, ValueError):
        return False


# ----------------------------------------------------------------------------- deviations

def test_int_inputs_to_float_math_give_float32():
    i = np.array([1, 2, 3], np.int32)
    for fn in (jnp.exp, jnp.log, jnp.sqrt, jnp.sin, jnp.tanh, jnp.mean, jnp.var, jnp.std):
        assert np.dtype(getattr(np, fn.__name__)(i).dtype) == F64
        assert fn(i).dtype == F32, fn.__name__
    assert jnp.true_divide(i, i).dtype == F32
    assert (jnp.asarray(i) / 2).dtype == F32
    np.testing.assert_allclose(jnp.exp(i).numpy(), np.exp(i).astype(F32), rtol=1e-6)
    # float64 data stays float64
    assert jnp.exp(i.astype(F64)).dtype == F64
    assert jnp.mean(np.ones(3)).dtype == F64


def test_python_floats_are_float32():
    assert jnp.asarray(1.5).dtype == F32
    assert jg.tensor([1.0, 2.0]).dtype == F32
    assert jnp.array([[1.0], [2.0]]).dtype == F32
    assert jnp.exp(1.0).dtype == F32
    assert jnp.add(1.0, 2).dtype == F32
    assert jnp.add(np.arange(3, dtype=np.int32), 1.5).dtype == F32      # NumPy: float64
    assert jnp.add(np.arange(3.0), 1.5).dtype == F64                    # float64 arrays stay
    assert jnp.add(np.float64(1.5), 1).dtype == F64                     # NumPy scalars alone
    assert jnp.add(jnp.ones(2), np.float64(1.5)).dtype == F32           # weak next to an array
    assert jg.tensor(np.arange(3.0)).dtype == F64
    assert jnp.asarray(2).dtype == np.int64 and jnp.asarray(True).dtype == np.bool_


def test_reciprocal_of_ints_is_float():
    """NumPy's integer reciprocal truncates (1/2 -> 0); jitgrad computes in float32 (PyTorch)."""
    out = jnp.reciprocal(np.array([1, 2, 4], np.int32))
    assert out.dtype == F32
    np.testing.assert_allclose(out.numpy(), [1.0, 0.5, 0.25])


def test_bool_arithmetic_follows_numpy():
    t, f = np.array([True, False, True]), np.array([True, True, False])
    assert jnp.add(t, f).dtype == np.bool_ and jnp.add(t, f).tolist() == np.add(t, f).tolist()
    assert jnp.multiply(t, f).tolist() == np.multiply(t, f).tolist()
    assert jnp.power(t, f).dtype == np.int32        # NumPy: int8 (int32 on every path, CUDA too)
    assert jnp.square(t).dtype == np.int32
    for fn, args in ((jnp.subtract, (t, f)), (jnp.negative, (t,)), (jnp.sign, (t,))):
        with pytest.raises(TypeError, match="boolean"):
            fn(*args)
    assert jnp.matmul(t, f).dtype == np.bool_ and bool(jnp.matmul(t, f)) == bool(np.matmul(t, f))


def test_numpy_dtypes_are_kept_and_unsupported_ones_refused():
    assert jnp.asarray(np.arange(3, dtype=np.int8)).dtype == np.int8
    assert jnp.asarray(np.arange(3, dtype=np.float16)).dtype == np.float16
    assert jnp.asarray(np.arange(3, dtype=np.uint32)).dtype == np.uint32
    with pytest.raises(TypeError, match="complex256 is not supported; jitgrad's dtypes are "
                                        "float32, float64, int32, int64, bool, complex64, "
                                        "complex128, float16, bfloat16"):
        jnp.asarray(np.ones(2, np.clongdouble))


def test_numpy_style_keywords():
    x = np.arange(12.0).reshape(3, 4)
    np.testing.assert_allclose(jnp.sum(x, axis=(0, 1), keepdims=True).numpy(),
                               np.sum(x, axis=(0, 1), keepdims=True))
    np.testing.assert_allclose(jnp.var(x, axis=0, ddof=1).numpy(), np.var(x, axis=0, ddof=1))
    np.testing.assert_allclose(jnp.std(x, correction=1).numpy(), np.std(x, ddof=1))
    assert jnp.sum(np.ones(3, np.int32), dtype=jnp.float64).dtype == F64
    np.testing.assert_allclose(jnp.clip(x, min=2, max=5).numpy(), np.clip(x, 2, 5))
    assert jnp.where(x > 5)[0].tolist() == np.where(x > 5)[0].tolist()
    np.testing.assert_allclose(jnp.concatenate([x, x], axis=None).numpy(),
                               np.concatenate([x, x], axis=None))
    np.testing.assert_allclose(jnp.pad(x, 1, constant_values=-1).numpy(),
                               np.pad(x, 1, constant_values=-1))


def test_import_as_np_runs_numpy_code():
    """A NumPy user's code runs unchanged with `import jitgrad.numpy as np`."""
    def program(np):
        x = np.linspace(0.0, 1.0, 5, dtype=np.float64)
        w = np.ones((5, 3), dtype=np.float64) * np.arange(3)
        h = np.tanh(x @ w) + np.maximum(x.sum(), 0.5)
        y = np.concatenate([h, np.zeros(2)]).reshape(1, -1)
        return np.log(np.exp(y).sum(axis=1)) - np.mean(y ** 2), np.argmax(y, axis=-1)
    (a, b), (c, d) = program(jnp), program(np)
    np.testing.assert_allclose(a.numpy(), c)
    assert b.tolist() == d.tolist()
    assert a.dtype == F64


ISSUE_FUNCTIONS = """add subtract multiply divide true_divide floor_divide power negative abs sign
exp exp2 log log2 log1p expm1 sqrt rsqrt square reciprocal sin cos tan tanh arcsin arccos arctan
sinh cosh maximum minimum clip where equal not_equal less less_equal greater greater_equal logical_and
logical_or logical_not isnan isfinite floor ceil round sum mean max min prod var std argmax argmin
cumsum matmul dot outer einsum reshape transpose swapaxes moveaxis broadcast_to expand_dims squeeze
concatenate stack split take take_along_axis pad tril triu astype hypot arctan2 logaddexp log10
arcsinh tensordot kron trace diag ravel flip roll tile repeat vstack hstack inner cross sort
full_like relu sigmoid softplus gelu silu softmax log_softmax logsumexp one_hot""".split()


def test_every_listed_function_has_a_record():
    names = {r.name.split("[")[0] for r in RECORDS}
    assert [n for n in ISSUE_FUNCTIONS if n not in names] == []
