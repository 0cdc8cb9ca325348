"""One semantics on every path: every op record (one case per record and dtype kind) and every
error input give the same values (to the record's tolerance) or the same exception type when run
eagerly, jitted on the reference interpreter (JITGRAD_BACKEND=interpreter), jitted through the
CPU code generator, and -- in a process of its own, as tests/codegen/cuda/test_cuda_sim_runner.py does --
eagerly and jitted on the CUDA simulator.

`python tests/consistency/test_consistency.py OUT` is the simulator leg: it writes its results to OUT."""
from __future__ import annotations

import importlib.util
import pathlib
import pickle
import sys

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import jitgrad as jg  # noqa: E402
import jitgrad.nn.functional as F  # noqa: E402
import jitgrad.numpy as jnp  # noqa: E402
from jitgrad import tree_util  # noqa: E402
from tests.support import early_children  # noqa: E402
from tests.support.op_records import RECORDS, iter_cases, tolerance  # noqa: E402

BATCH = 40
F32, I64 = np.float32, np.int64


def _f32(*v):
    return np.array(v, F32)


def _i64(*v):
    return np.array(v, I64)


def _scan_changing_carry(c, xs):
    return jg.scan(lambda c, x: (c.astype("float64") + x, x), c, xs)


# (id, fn, NumPy args, rtol): the semantics of issue 13, each of them on every path
SEMANTICS = [
    ("take_oob", lambda a, i: jnp.take(a, i), (_f32(10, 20, 30), _i64(1, 7)), 0),
    ("take_negative_oob", lambda a, i: jnp.take(a, i), (_f32(10, 20, 30), _i64(-4)), 0),
    ("take_negative", lambda a, i: jnp.take(a, i), (_f32(10, 20, 30), _i64(-1, 0)), 0),
    ("take_clip", lambda a, i: jnp.take(a, i, mode="clip"), (_f32(10, 20, 30), _i64(7, -5, 1)), 0),
    ("take_fill", lambda a, i: jnp.take(a, i, mode="fill", fill_value=-1.0),
     (_f32(10, 20, 30), _i64(7, -5, 1)), 0),
    ("at_set_oob", lambda a, i: jnp.asarray(a).at[i].set(99.0), (_f32(10, 20, 30), _i64(7)), 0),
    ("at_add_oob", lambda a, i: jnp.asarray(a).at[i].add(1.0), (_f32(10, 20, 30), _i64(-4)), 0),
    ("at_set_drop", lambda a, i: jnp.asarray(a).at[i].set(99.0, mode="drop"), (_f32(10, 20, 30), _i64(7, 1)), 0),
    ("at_set_clip", lambda a, i: jnp.asarray(a).at[i].set(99.0, mode="clip"), (_f32(10, 20, 30), _i64(7)), 0),
    ("fancy_2d_oob", lambda x, i, j: x[i, j],
     (np.arange(9, dtype=F32).reshape(3, 3), _i64(0), _i64(5)), 0),
    ("take_along_axis_oob", lambda x, i: jnp.take_along_axis(x, i, axis=1),
     (np.ones((2, 3), F32), np.array([[0], [3]], I64)), 0),
    ("embedding_oob", lambda i, w: F.embedding(i, w), (_i64(1, 4), np.ones((4, 2), F32)), 0),
    ("cross_entropy_label_200", F.cross_entropy, (np.ones((3, 10), F32), _i64(1, 200, 3)), 0),
    ("cross_entropy_label_-1", F.cross_entropy, (np.ones((3, 10), F32), _i64(1, -1, 3)), 0),
    ("cross_entropy_label_C", F.cross_entropy, (np.ones((3, 10), F32), _i64(10, 0, 0)), 0),
    ("cross_entropy_ignore_index", F.cross_entropy,
     (np.arange(30, dtype=F32).reshape(3, 10) / 7, _i64(1, -100, 3)), 1e-6),
    ("nll_loss_label_C", lambda lp, t: F.nll_loss(lp, t), (np.ones((2, 4), F32), _i64(4, 0)), 0),
    ("int_pow_negative", lambda a, b: a ** b, (_i64(2, 3), _i64(1, -2)), 0),
    ("int_pow_negative_scalar", lambda a: a ** -1, (_i64(2, 3),), 0),
    ("int_pow", lambda a, b: a ** b, (_i64(2, 3), _i64(3, 2)), 0),
    ("relu_nan", F.relu, (_f32(np.nan, -1, 0, 2),), 0),
    ("log_softmax_1e4", F.log_softmax, ((1e4 + np.arange(10, dtype=F32)).reshape(1, 10),), 1e-6),
    ("scan_carry_changes_type", _scan_changing_carry, (np.zeros((), F32), np.ones(3, F32)), 0),
    # issue 24: arrays built from traced values, weak NumPy scalars, a Python-scalar scan carry
    ("array_of_traced_values", lambda x: jnp.array([[x, x * 1.0, x / 2.0], [x, x, x]]),
     (np.array(1.5, F32),), 1e-6),
    ("grad_array_of_traced_values", jg.grad(lambda x: jnp.array([[x, x / 2.0], [x, 1.0]]).sum()),
     (np.array(1.5, F32),), 1e-6),
    ("linspace_traced_endpoints", lambda a: jnp.linspace(a[0], a[1], 4), (_f32(1, 2),), 1e-6),
    ("grad_linspace", jg.grad(lambda x: jnp.linspace(x, 3 * x, 5).sum()),
     (np.array(0.7, F32),), 1e-6),
    ("weak_numpy_scalars", lambda x: jnp.asarray(x) * np.float64(0.5) + jnp.sin(x) * (
        1.0 / np.sqrt(32)),
     (_f32(1, 2),), 1e-6),
    ("scan_python_int_carry", lambda xs: jg.scan(lambda c, x: (c + x, x), 0, xs)[0],
     (_f32(1, 2, 3),), 1e-6),
    ("grad_std_equal_values", jg.grad(lambda x: jnp.std(x)), (_f32(1, 1, 1),), 0),
]


def _cases():
    """(id, fn, args, tolerance kwargs): one case per record and dtype kind, then SEMANTICS."""
    chosen = {}
    for rec, args in iter_cases(RECORDS):
        kind = next((a.dtype.kind for a in tree_util.tree_leaves(list(args))
                     if isinstance(a, np.ndarray)), None)
        chosen.setdefault((rec.id, kind), (rec, args))
    out = [(f"{rec.id}[{kind}]", rec.jg, args, rec) for (_, kind), (rec, args) in chosen.items()]
    return out + [(name, fn, args, tol) for name, fn, args, tol in SEMANTICS]


def _tol(rec_or_tol, dtype):
    if isinstance(rec_or_tol, (int, float)):
        return {"rtol": rec_or_tol, "atol": rec_or_tol}
    return tolerance(rec_or_tol, dtype)


def _error_kind(e: BaseException) -> str:
    """The builtin exception class e is (ShapeError is a TypeError): what paths must agree on."""
    return next(c.__name__ for c in type(e).__mro__ if c.__module__ == "builtins")


def _host(out):
    return [np.asarray(x.to("cpu") if isinstance(x, jg.Tensor) else x)
            for x in tree_util.tree_leaves(out)]


def _outcome(fn, args):
    """("ok", [arrays]) or ("raise", builtin exception class name)."""
    try:
        return "ok", _host(fn(*args))
    except Exception as e:  # noqa: BLE001 - comparing which exception each path raises
        return "raise", _error_kind(e)


def _batched_jit(cases, on):
    """Jitted outcomes, many cases per compiled function (one compile per batch); a case that
    raises, or a batch holding one, runs alone."""
    results = {}
    for s in range(0, len(cases), BATCH):
        batch = cases[s:s + BATCH]

        def many(*argsets):
            return [fn(*a) for (_, fn, _, _), a in zip(batch, argsets)]
        try:
            outs = jg.jit(many)(*[on(args) for _, _, args, _ in batch])
            results.update((cid, ("ok", _host(o))) for (cid, _, _, _), o in zip(batch, outs))
        except Exception:  # noqa: BLE001 - some case raises: find out which, one by one
            for cid, fn, args, _ in batch:
                results[cid] = _outcome(jg.jit(fn), on(args))
    return results


def _on_cpu(args):
    return args


def run_paths(cases, on=_on_cpu):
    """{path: {case id: outcome}} for eager and jit on the current backend."""
    return {"eager": {cid: _outcome(fn, on(args)) for cid, fn, args, _ in cases},
            "jit": _batched_jit(cases, on)}


def _compare(reference, results, cases, path):
    problems = []
    for cid, _, _, tol in cases:
        want, got = reference[cid], results[cid]
        if want[0] != got[0] or (want[0] == "raise" and want[1] != got[1]):
            problems.append(f"{cid}: eager gives {want}, {path} gives {got[0]} {got[1] if got[0] == 'raise' else ''}")
            continue
        if want[0] == "ok":
            for w, g in zip(want[1], got[1]):
                try:
                    np.testing.assert_allclose(g, w, **_tol(tol, w.dtype), equal_nan=True)
                    assert g.dtype == w.dtype, f"dtype {g.dtype} != {w.dtype}"
                except AssertionError as e:
                    problems.append(f"{cid} on {path}: {str(e).strip().splitlines()[-1]}")
    return problems


@pytest.fixture(scope="module")
def cases():
    return _cases()


@pytest.fixture(scope="module")
def eager(cases):
    return {cid: _outcome(fn, args) for cid, fn, args, _ in cases}


def test_semantics_cases_raise_where_expected(eager):
    """The error inputs do raise (so the matrix below compares errors, not two wrong answers)."""
    raising = {"take_oob": "IndexError", "take_negative_oob": "IndexError",
               "at_set_oob": "IndexError", "at_add_oob": "IndexError",
               "fancy_2d_oob": "IndexError", "take_along_axis_oob": "IndexError",
               "embedding_oob": "IndexError", "cross_entropy_label_200": "IndexError",
               "cross_entropy_label_-1": "IndexError", "cross_entropy_label_C": "IndexError",
               "nll_loss_label_C": "IndexError", "int_pow_negative": "ValueError",
               "int_pow_negative_scalar": "ValueError", "scan_carry_changes_type": "TypeError"}
    for name, kind in raising.items():
        assert eager[name] == ("raise", kind), (name, eager[name])
    assert np.isnan(eager["relu_nan"][1][0][0])
    assert eager["at_set_drop"][1][0].tolist() == [10, 99, 30]
    assert eager["take_fill"][1][0].tolist() == [-1, -1, 20]
    assert float(eager["grad_array_of_traced_values"][1][0]) == 2.5
    assert float(eager["grad_linspace"][1][0]) == np.float32(10.0)
    assert eager["weak_numpy_scalars"][1][0].dtype == F32
    assert eager["scan_python_int_carry"][1][0].dtype == F32
    assert eager["grad_std_equal_values"][1][0].tolist() == [0, 0, 0]


def test_jit_on_the_interpreter_matches_eager(cases, eager, monkeypatch):
    monkeypatch.setenv("JITGRAD_BACKEND", "interpreter")
    results = _batched_jit(cases, _on_cpu)
    assert not _compare(eager, results, cases, "jit (interpreter)")


def test_jit_through_cpu_codegen_matches_eager(cases, eager):
    results = _batched_jit(cases, _on_cpu)
    assert not _compare(eager, results, cases, "jit (CPU codegen)")


# in the directory every worker of the run shares: the child may be another worker's
_CUDA_OUT = early_children.session_dir() / "consistency-cuda.pkl"
# the simulator leg runs as this file's own child, started early (tests/support/early_children.py)
CHILDREN = {"test_cuda_simulator_matches_eager": [__file__, str(_CUDA_OUT)]} \
    if importlib.util.find_spec("numba_cuda") is not None else {}


@pytest.fixture(scope="module")
def cuda_results():
    if not CHILDREN:
        pytest.skip("numba-cuda not installed")
    code, out = early_children.result(sys.modules[__name__], "test_cuda_simulator_matches_eager")
    assert code == 0, out
    with open(_CUDA_OUT, "rb") as f:
        return pickle.load(f)           # written by this file's own child process


def test_cuda_simulator_matches_eager(cases, eager, cuda_results):
    problems = _compare(eager, cuda_results["eager"], cases, "eager CUDA (simulator)")
    problems += _compare(eager, cuda_results["jit"], cases, "jit CUDA (simulator)")
    assert not problems, "\n".join(problems)


def _on_cuda(args):
    return tuple(jg.tensor(a, device="cuda") if isinstance(a, np.ndarray) else a for a in args)


if __name__ == "__main__":      # the simulator leg (NUMBA_ENABLE_CUDASIM=1, own process)
    import warnings
    warnings.simplefilter("ignore", RuntimeWarning)   # simulated scalar math warns on inf/nan
    sys.setswitchinterval(5e-4)     # the simulator's threads hand the GIL over faster (see
    #                                 tests/cuda_sim/conftest.py)
    with open(sys.argv[1], "wb") as f:
        pickle.dump(run_paths(_cases(), _on_cuda), f)
