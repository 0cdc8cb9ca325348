"""The eager fast path (jitgrad/eager/fast_path.py, dispatch.apply_fast, the operator fast path) and the
eager backward's structure cache: same values, dtypes, errors, warnings and gradients as the
generic path, and repeated calls that skip the type rule and the graph building."""
import threading
import warnings

import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad.eager import backward as autograd_backward, fast_path as eager_fast
from jitgrad.eager import dispatch
from jitgrad.ir import Op
from jitgrad.ir.errors import ShapeError

RNG = np.random.default_rng(0)


def _arr(shape, dtype="float32"):
    a = RNG.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * RNG.standard_normal(shape)
    return a.astype(dtype)


@pytest.fixture
def type_rule_calls(monkeypatch):
    """Counts the type-rule runs of the eager path (dispatch.infer_types)."""
    calls = []
    real = dispatch.infer_types

    def counting(op, in_types, params):
        calls.append(op)
        return real(op, in_types, params)
    # counting calls is the subject: dispatch.py runs the type rules by this name
    monkeypatch.setattr(dispatch, "infer_types", counting)
    return calls


CASES = [
    ("add", lambda a, b: a + b, np.add),
    ("sub", lambda a, b: a - b, np.subtract),
    ("mul", lambda a, b: a * b, np.multiply),
    ("div", lambda a, b: a / b, np.true_divide),
    ("matmul", lambda a, b: a @ b, np.matmul),
    ("tanh", lambda a, b: jnp.tanh(a), lambda a, b: np.tanh(a)),
    ("exp method", lambda a, b: a.exp(), lambda a, b: np.exp(a)),
    ("neg", lambda a, b: -a, lambda a, b: -a),
    ("abs", lambda a, b: abs(a), lambda a, b: np.abs(a)),
    ("maximum", lambda a, b: jnp.maximum(a, b), np.maximum),
    ("jnp.add", lambda a, b: jnp.add(a, b), np.add),
    ("less", lambda a, b: jnp.less(a, b), np.less),
    ("scalar mul", lambda a, b: a * 2.5, lambda a, b: a * np.asarray(2.5, a.dtype)),
    ("scalar rsub", lambda a, b: 1 - a, lambda a, b: np.asarray(1, a.dtype) - a),
    ("scalar rpow", lambda a, b: 2.0 ** a, lambda a, b: np.asarray(2.0, a.dtype) ** a),
    ("sum axis", lambda a, b: jnp.sum(a, axis=0), lambda a, b: np.sum(a, axis=0)),
]


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64"])
@pytest.mark.parametrize("name,fn,ref", CASES, ids=[c[0] for c in CASES])
def test_repeated_calls_skip_the_type_rule_and_match_numpy(name, fn, ref, dtype,
                                                           type_rule_calls):
    if dtype == "complex64" and name in ("maximum", "less"):
        pytest.skip(f"{name} is not defined on complex numbers")
    a, b = _arr((4, 4), dtype), _arr((4, 4), dtype)
    ta, tb = jg.tensor(a), jg.tensor(b)
    first = fn(ta, tb)
    n = len(type_rule_calls)
    for _ in range(3):
        out = fn(ta, tb)
        assert out.dtype == first.dtype == ref(a, b).dtype
        np.testing.assert_allclose(out.numpy(), ref(a, b), rtol=1e-5, atol=1e-6)
    assert len(type_rule_calls) == n, "the repeated calls ran the type rule again"


def test_cache_counts_one_miss_per_signature():
    eager_fast.cache_clear()
    a, b = jg.tensor(_arr((3, 5))), jg.tensor(_arr((3, 5)))
    for _ in range(5):
        a + b
        jnp.tanh(a)
    assert eager_fast.cache_info() == {"size": 2, "misses": 2}
    a + jg.tensor(_arr((1, 5)))                     # a new signature: broadcasting
    assert eager_fast.cache_info() == {"size": 3, "misses": 3}


def test_zero_dim_results_are_arrays_of_the_promised_dtype():
    # NumPy gives a scalar (np.float32) for 0-d operands; the tensor still holds a 0-d array
    a, b = jg.tensor(np.float32(1.5)), jg.tensor(np.float32(2.0))
    for _ in range(2):
        out = a * b
        assert type(out._data) is np.ndarray and out.shape == () and out.dtype == np.float32
        assert out.item() == 3.0


def test_promotion_and_mixed_dtypes_still_take_the_general_path():
    a32, a64 = jg.tensor(np.ones(3, np.float32)), jg.tensor(np.ones(3, np.float64))
    for _ in range(2):
        assert (a32 + a64).dtype == np.float64
        assert (a32 * 2.5).dtype == np.float32 and (a32 * 2.5).tolist() == [2.5] * 3
        assert (jg.tensor([1, 2]) / jg.tensor([2, 4])).dtype == np.float32    # ints: true divide
        assert (jg.tensor([True, False]) + jg.tensor([True, True])).tolist() == [True, True]
    with pytest.raises(ValueError, match="negative"):
        jg.tensor([2, 3]) ** jg.tensor([1, -1])


def test_errors_are_the_same_on_repeated_calls():
    a, b = jg.tensor(np.ones((2, 3), np.float32)), jg.tensor(np.ones((4,), np.float32))
    for _ in range(2):
        with pytest.raises(ShapeError, match=r"\(at test_eager_fast\.py:\d+\)"):
            a + b
    m = jg.tensor(np.ones((2, 3), np.float32), device="meta")
    for _ in range(2):
        with pytest.raises(jg.DeviceMismatchError, match="cpu and meta"):
            a + m
        assert (m + m).shape == (2, 3)


def test_floating_point_warnings_stay_silent_and_the_callers_errstate_is_untouched():
    big = jg.tensor(np.full(4, 3e38, np.float32))
    before = np.geterr()
    with warnings.catch_warnings():
        warnings.simplefilter("error")            # a RuntimeWarning would raise here
        for _ in range(3):
            assert np.isinf((big * big).numpy()).all()
            assert np.isnan((jg.tensor(np.zeros(4, np.float32)) / jg.tensor(
                np.zeros(4, np.float32))).numpy()).all()
    assert np.geterr() == before
    with np.errstate(over="raise"):               # NumPy's own state still applies to NumPy
        with pytest.raises(FloatingPointError):
            np.float32(3e38) * np.float32(3e38)


def test_fast_path_records_autograd_and_respects_no_grad():
    x = jg.tensor(_arr((3, 3), "float64"), requires_grad=True)
    w = jg.nn.Parameter(_arr((3, 3), "float64"))
    for _ in range(4):                            # past the compile tier of the backward
        x.grad = w.grad = None
        y = jnp.tanh(x @ w) * x
        y.sum().backward()
        xv, wv = x.detach().numpy(), w.detach().numpy()
        t = np.tanh(xv @ wv)
        dy = np.ones((3, 3))
        g_pre = dy * xv * (1 - t ** 2)
        np.testing.assert_allclose(x.grad.numpy(), dy * t + g_pre @ wv.T, rtol=1e-10)
        np.testing.assert_allclose(w.grad.numpy(), xv.T @ g_pre, rtol=1e-10)
    with jg.no_grad():
        z = x * w
    assert not z.requires_grad and z.grad_fn is None
    assert (x.detach() + 1.0).grad_fn is None


def test_in_place_change_after_a_fast_path_op_is_still_detected():
    x = jg.tensor(_arr((3,)), requires_grad=True)
    b = jg.tensor(_arr((3,)))
    for _ in range(2):
        y = x * b
    b += 1.0
    with pytest.raises(RuntimeError, match="modified by an in-place operation"):
        y.sum().backward()


def test_backward_reuses_the_graph_of_a_repeated_structure_with_new_values():
    w = jg.tensor(np.array([1.0, 2.0, 3.0]), requires_grad=True)
    kept = {id(g) for g in autograd_backward.graphs()}

    def added():        # new graphs kept (counted by identity: a full cache drops its oldest)
        return sum(id(g) not in kept for g in autograd_backward.graphs())

    for step in range(5):
        w.grad = None
        x = jg.tensor(np.array([1.0, -1.0, 0.5]) * (step + 1))
        (jnp.tanh(w * x) * 0.5).sum().backward()
        want = 0.5 * x.numpy() * (1 - np.tanh(w.detach().numpy() * x.numpy()) ** 2)
        np.testing.assert_allclose(w.grad.numpy(), want, rtol=1e-7, atol=1e-14)
    assert added() == 1
    # a different structure (another scalar) is another entry with its own graph
    w.grad = None
    (jnp.tanh(w * x) * -0.0 + w * w).sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), 2 * w.detach().numpy())
    assert added() == 2


def test_retained_grads_and_reused_leaves_with_the_structure_cache():
    for _ in range(4):
        a = jg.tensor(np.array([1.0, 2.0]), requires_grad=True)
        h = a * a
        h.retain_grad()
        (h * a + a).sum().backward()
        np.testing.assert_allclose(a.grad.numpy(), 3 * a.detach().numpy() ** 2 + 1)
        np.testing.assert_allclose(h.grad.numpy(), a.detach().numpy())


def _errors_in_threads(work, n=4) -> list:
    """Run work() in n threads at once; the exceptions they raised."""
    errors = []

    def run():
        try:
            work()
        except Exception as e:            # noqa: BLE001  (returned to the caller)
            errors.append(e)
    threads = [threading.Thread(target=run) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return errors


def test_threads_run_fast_path_ops_concurrently():
    a, b = jg.tensor(_arr((8,))), jg.tensor(_arr((8,)))
    want = (a + b).numpy()

    def work():
        for _ in range(2000):
            np.testing.assert_array_equal((a + b).numpy(), want)
    assert not _errors_in_threads(work)


def test_apply_fast_declines_what_it_does_not_know():
    a = jg.tensor(_arr((2, 2)))
    eager_fast.cache_clear()
    assert dispatch.apply_fast(Op.tanh, a) is None                 # not seen yet
    jnp.tanh(a)
    assert dispatch.apply_fast(Op.tanh, a) is not None
    m = jg.tensor(np.ones(2, np.float32), device="meta")
    assert dispatch.apply_fast(Op.tanh, m) is None                 # no data


def test_deleted_tensors_still_raise_after_their_signature_was_cached():
    a, b = jg.tensor(_arr((3,))), jg.tensor(_arr((3,)))
    a + b
    jnp.tanh(a)
    a.delete()
    for op in (lambda: a + b, lambda: b * a, lambda: jnp.tanh(a), lambda: jnp.add(a, b)):
        with pytest.raises(RuntimeError, match="deleted"):
            op()


def test_float_functions_are_one_frame_and_keep_out_promotion_tracing_and_gradients():
    # jnp.tanh, jnp.exp, ...: dispatch.fast_unary's flat function on a float tensor seen before;
    # everything else takes the generated def's body (with out=)
    import traceback
    assert jnp.exp.__name__ == "exp" and jnp.exp.__wrapped__ is jnp.ufuncs.exp.__wrapped__
    a = jg.tensor(_arr((3,)))
    for _ in range(3):
        np.testing.assert_allclose(jnp.exp(a).numpy(), np.exp(a.numpy()), rtol=1e-6)
        out = np.zeros(3, np.float32)
        assert jnp.exp(a, out=out) is out
        np.testing.assert_allclose(out, np.exp(a.numpy()), rtol=1e-6)
        assert jnp.exp(jg.tensor([1, 2])).dtype == np.float32          # ints promote
        assert jnp.sqrt(jg.tensor(np.float32(4.0))).item() == 2.0      # 0-d: an array result
        assert type(jnp.sqrt(jg.tensor(np.float32(4.0)))._data) is np.ndarray
        np.testing.assert_allclose(jg.jit(jnp.tanh)(a).numpy(), np.tanh(a.numpy()), rtol=1e-6)
        x = jg.tensor(_arr((3,), "float64"), requires_grad=True)
        jnp.tanh(x).sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), 1 - np.tanh(x.detach().numpy()) ** 2)
    with pytest.raises(TypeError, match=r"^tanh\(\) takes 1 positional argument"):
        jnp.tanh(a, a)
    a.delete()
    try:
        jnp.tanh(a)
    except RuntimeError as e:
        frames, msg = traceback.extract_tb(e.__traceback__), str(e)
    assert frames[0].filename.endswith("test_eager_fast.py") and "deleted" in msg
    assert not [f for f in frames[1:] if "/jitgrad/" in f.filename
                and not f.filename.endswith("errors.py") and f.name != "fast"], frames


def test_threads_inside_the_shared_quiet_context_use_their_own():
    # big arrays: NumPy releases the GIL inside the call, so other threads find the shared
    # context (fast_path.SHARED) entered and run in their own; no warning leaks either way
    big = jg.tensor(np.full(1 << 20, 3e38, np.float32))
    want, want_exp = (big * big).numpy(), jnp.exp(big).numpy()

    def work():
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            for _ in range(20):
                np.testing.assert_array_equal((big * big).numpy(), want)
                np.testing.assert_array_equal(jnp.exp(big).numpy(), want_exp)
    assert not _errors_in_threads(work) and np.isinf(want).all()


def test_arithmetic_functions_keep_out_promotion_and_errors_at_the_users_line():
    # jnp.add, jnp.maximum, jnp.less, ...: one frame around the operators' direct call
    import traceback
    a, b = jg.tensor(_arr((2, 3))), jg.tensor(_arr((2, 3)))
    for _ in range(3):
        np.testing.assert_allclose(jnp.maximum(a, b).numpy(), np.maximum(a.numpy(), b.numpy()))
        assert a.maximum(b).dtype == np.float32 and jnp.less(a, b).dtype == np.bool_
        out = np.zeros((2, 3), np.float32)
        assert jnp.add(a, b, out=out) is out
        np.testing.assert_allclose(out, a.numpy() + b.numpy(), rtol=1e-6)
        assert jnp.add(jg.tensor([1, 2]), 1.5).tolist() == [2.5, 3.5]           # promotion
        with pytest.raises(TypeError, match="boolean subtract"):
            jnp.subtract(jg.tensor([True]), jg.tensor([False]))
    for _ in range(2):
        try:
            jnp.add(a, jg.tensor(_arr((4,))))                   # <- shapes
        except ShapeError as e:
            frames, msg = traceback.extract_tb(e.__traceback__), str(e)
        assert "(at test_eager_fast.py:" in msg
        assert frames[0].filename.endswith("test_eager_fast.py")
        assert not [f for f in frames[1:] if "/jitgrad/" in f.filename
                    and not f.filename.endswith("errors.py") and f.name != "fast"], frames
