"""Issue 13, one test per reproducer: the same program gives the same answer, or the same error,
however it runs (eager, jit on the interpreter, jit through the CPU code generator; the CUDA
simulator is covered by tests/consistency/test_consistency.py)."""
import re
import warnings

import numpy as np
import pytest

import jitgrad as jg
import jitgrad.nn.functional as F
import jitgrad.numpy as jnp
from jitgrad import nn


@pytest.fixture(params=["cpu", "interpreter"])
def backend(request, monkeypatch):
    if request.param == "interpreter":
        monkeypatch.setenv("JITGRAD_BACKEND", "interpreter")
    return request.param


# ----------------------------------------------------------------------------- 1. jit in autograd

def test_jitted_call_inside_eager_autograd_gets_the_eager_gradients(backend):
    x = jnp.asarray(np.arange(6, dtype=np.float32).reshape(2, 3))
    m = nn.Linear(3, 1)
    loss = jnp.sum(m(x)) + jg.jit(lambda m: jnp.sum(m.weight ** 2))(m)
    loss.backward()
    mixed = m.weight.grad.numpy().copy()
    m.weight.grad = m.bias.grad = None
    (jnp.sum(m(x)) + jnp.sum(m.weight ** 2)).backward()
    np.testing.assert_allclose(mixed, m.weight.grad.numpy(), rtol=1e-6)


def test_jitted_module_call_backward_is_compiled_and_repeatable():
    x = jnp.asarray(np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4))
    m = nn.Linear(4, 3)
    f = jg.jit(lambda m, x: jnp.sum(jnp.tanh(m(x)) ** 2))
    for _ in range(4):          # the backward graph is compiled from the third run on
        m.zero_grad()
        out = f(m, x)
        assert out.requires_grad and out.grad_fn is not None
        out.backward()
        got = (m.weight.grad.numpy().copy(), m.bias.grad.numpy().copy())
    m.zero_grad()
    jnp.sum(jnp.tanh(m(x)) ** 2).backward()
    np.testing.assert_allclose(got[0], m.weight.grad.numpy(), rtol=1e-5)
    np.testing.assert_allclose(got[1], m.bias.grad.numpy(), rtol=1e-5)


def test_compiled_lowered_call_records_too_and_no_grad_records_nothing():
    w = jg.tensor([1.0, 2.0], requires_grad=True)
    c = jg.jit(lambda w: jnp.sum(w * w)).lower(w).compile()
    c(w).backward()
    np.testing.assert_allclose(w.grad.numpy(), [2.0, 4.0])
    with jg.no_grad():
        assert not jg.jit(lambda w: w * 2)(w).requires_grad


def test_a_jitted_training_step_that_takes_gradients_is_not_recorded():
    # JAX style: grads inside jit, updated parameters out; recording it would chain every step
    m = nn.Linear(3, 2)
    opt = jg.optim.sgd(0.1)
    state = opt.init(m)
    x, y = jnp.ones((4, 3)), np.array([0, 1, 0, 1])

    def step(m, state):
        loss, g = jg.value_and_grad(lambda m: F.cross_entropy(m(x), y))(m)
        m, state = opt.update(g, state, m)
        return m, state, loss
    new, state, loss = jg.jit(step)(m, state)
    assert new.weight.grad_fn is None and loss.grad_fn is None


# ----------------------------------------------------------------------------- 2. indices

def test_out_of_bounds_scatter_raises_on_every_path(backend):
    f = jg.jit(lambda a, i: a.at[i].set(99.0))
    a = jnp.asarray([10.0, 20.0, 30.0])
    with pytest.raises(IndexError, match=r"index 7 is out of bounds .*\(at test_semantics\.py:\d+\)"):
        f(a, np.array([7]))
    with pytest.raises(IndexError, match="index 7 is out of bounds"):
        a.at[np.array([7])].set(99.0)
    assert f(a, np.array([-1])).tolist() == [10, 20, 99]


def test_a_shared_kernel_names_each_callers_line(backend):
    """Two functions whose kernels compile to one unit (same canonical text, other lines):
    each failed bounds check names its own function's line, not the first compile's."""
    f = jg.jit(lambda a, i: a.at[i].set(99.0))
    g = jg.jit(lambda a, i: a.at[i].set(99.0))
    a = jnp.asarray([10.0, 20.0, 30.0])
    seen = []
    for h in (f, g):
        with pytest.raises(IndexError) as e:
            h(a, np.array([7]))
        seen.append(re.search(r"\(at test_semantics\.py:(\d+)\)", str(e.value)).group(1))
    assert int(seen[1]) == int(seen[0]) + 1, seen


@pytest.mark.parametrize("fn", [lambda a, i: jnp.take(a, i), lambda a, i: a[i],
                                lambda a, i: F.embedding(i, a.reshape(3, 1))])
def test_out_of_bounds_gathers_raise_on_every_path(backend, fn):
    a = jnp.asarray([10.0, 20.0, 30.0])
    for bad in (3, -4):
        with pytest.raises(IndexError, match=f"index {bad} is out of bounds"):
            jg.jit(fn)(a, np.array([0, bad]))
        with pytest.raises(IndexError, match=f"index {bad} is out of bounds"):
            fn(a, np.array([0, bad]))


def test_each_axis_of_a_multi_axis_index_is_checked(backend):
    # x[0, 5] of a 3x3 array is flat position 5, in range: it must still raise
    x = jnp.asarray(np.arange(9.0, dtype=np.float32).reshape(3, 3))
    with pytest.raises(IndexError, match="index 5 is out of bounds"):
        jg.jit(lambda x, i, j: x[i, j])(x, np.array([0]), np.array([5]))


def test_index_modes_opt_out_as_in_jax(backend):
    a = jnp.asarray([10.0, 20.0, 30.0])
    i = np.array([7, -5, 1])
    for run in (lambda f, *xs: f(*xs), lambda f, *xs: jg.jit(f)(*xs)):
        assert run(lambda a, i: jnp.take(a, i, mode="clip"), a, i).tolist() == [30, 10, 20]
        assert run(lambda a, i: jnp.take(a, i, mode="fill", fill_value=-1.0), a, i).tolist() == [-1, -1, 20]
        assert np.isnan(run(lambda a, i: jnp.take(a, i, mode="fill"), a, i).numpy()[0])
        assert run(lambda a, i: a.at[i].set(0.0, mode="drop"), a, i).tolist() == [10, 0, 30]
        assert run(lambda a, i: a.at[i].add(1.0, mode="clip"), a, i).tolist() == [11, 21, 31]
        assert run(lambda a, i: a.at[i].get(mode="promise_in_bounds"), a, i).tolist() == [30, 10, 20]
    with pytest.raises(ValueError, match="mode must be one of 'raise', 'clip', 'fill', 'drop', "
                                         "'promise_in_bounds' or None, got 'wrap'"):
        jnp.take(a, i, mode="wrap")


# ----------------------------------------------------------------------------- 3. labels

@pytest.mark.parametrize("labels,bad", [([1, 200, 3], 200), ([1, -1, 2], -1), ([10, 0, 0], 10)])
def test_invalid_class_labels_raise_on_every_path(backend, labels, bad):
    logits = jnp.asarray(np.zeros((3, 10), np.float32))
    t = np.array(labels)
    msg = re.escape(f"cross_entropy: target label {bad} is out of bounds: expected class labels "
                    "in [0, 10)")
    with pytest.raises(IndexError, match=msg):
        F.cross_entropy(logits, t)
    with pytest.raises(IndexError, match=msg):
        jg.jit(F.cross_entropy)(logits, t)
    with pytest.raises(IndexError, match="nll_loss: target label"):
        jg.jit(lambda lp, t: F.nll_loss(lp, t))(logits, t)


def test_ignore_index_excludes_labels_as_pytorch(backend):
    logits = jnp.asarray(np.arange(12, dtype=np.float32).reshape(3, 4) / 5)
    full = F.cross_entropy(logits[np.array([0, 2])], np.array([1, 3]))
    for run in (F.cross_entropy, jg.jit(F.cross_entropy)):
        np.testing.assert_allclose(run(logits, np.array([1, -100, 3])).item(), full.item(), rtol=1e-6)


# ----------------------------------------------------------------------------- 4. views

def test_view_of_a_recorded_tensor_aliases_its_base_both_ways():
    x = jg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 1.0
    v = y[0:2]
    v[0] = 100.0
    assert y.tolist() == [100.0, 2.0, 3.0]
    y[1] = 7.0
    assert v.tolist() == [100.0, 7.0]
    jnp.sum(y * jnp.asarray([1.0, 2.0, 3.0])).backward()
    assert x.grad.tolist() == [0.0, 0.0, 3.0]     # y[0], y[1] were overwritten by constants


def test_recorded_write_into_a_view_of_a_plain_tensor_reaches_it():
    w = jg.tensor(3.0, requires_grad=True)
    a = jg.tensor([1.0, 2.0, 3.0])
    b = a[0:2]
    b[0] = w * 2
    assert a.tolist() == [6.0, 2.0, 3.0]
    jnp.sum(a).backward()
    assert w.grad.item() == 2.0


def test_unrecorded_write_into_a_recorded_view_reaches_its_base():
    x = jg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 2
    v = y[1:]
    with jg.no_grad():
        v[0] = 50.0
    assert y.tolist() == [2.0, 50.0, 6.0]


# ----------------------------------------------------------------------------- 5-7. math

def test_integer_to_a_negative_integer_power_raises_on_every_path(backend):
    a = jnp.asarray(np.array([2, 3]))
    msg = r"Integers to negative integer powers are not allowed \(power: exponent -1\)"
    with pytest.raises(ValueError, match=msg):
        a ** -1
    with pytest.raises(ValueError, match=msg):
        jg.jit(lambda a: a ** -1)(a)
    with pytest.raises(ValueError, match=r"exponent -2\) \(at test_semantics\.py"):
        jg.jit(lambda a, b: a ** b)(a, np.array([1, -2]))
    assert jg.jit(lambda a, b: a ** b)(a, np.array([3, 2])).tolist() == [8, 9]


def test_relu_keeps_nan_like_the_other_activations(backend):
    x = jnp.asarray([np.nan, -1.0, 0.0, 2.0])
    for f in (F.relu, jg.jit(F.relu), F.relu6, F.leaky_relu, F.elu, F.gelu):
        assert np.isnan(f(x).numpy()[0])
    assert F.relu(x).numpy()[1:].tolist() == [0.0, 0.0, 2.0]


def test_log_softmax_shifts_first():
    logits = (1e4 + np.random.default_rng(0).standard_normal((4, 10))).astype(np.float32)
    ref = logits.astype(np.float64) - logits.max(1, keepdims=True)
    ref = ref - np.log(np.exp(ref).sum(1, keepdims=True))
    for f in (F.log_softmax, jg.jit(F.log_softmax)):
        assert np.abs(f(jnp.asarray(logits)).numpy() - ref).max() < 1e-6


# ----------------------------------------------------------------------------- 8. conversions

@pytest.mark.parametrize("make,err,msg", [
    (lambda: jg.zeros((2.5, 3)), TypeError, "each size entry must be an integer, got float 2.5"),
    (lambda: jnp.zeros((2.5, 3)), TypeError, "each shape entry must be an integer, got float 2.5"),
    (lambda: jnp.sum(jnp.ones((2, 3)), axis="1"), TypeError, "axis must be an integer, got str '1'"),
    (lambda: jnp.sum(jnp.ones((2, 3)), axis=True), TypeError, "axis must be an integer, got bool True"),
    (lambda: jnp.ones(3) < 1j, TypeError, r"lt: expected real inputs \(complex numbers have no "
     r"ordering\), got c64\[3\] and c64\[\]"),
    (lambda: jg.tensor(2 ** 70), OverflowError,
     "Python integer 1180591620717411303424 does not fit in int64, the dtype of Python ints"),
    (lambda: jg.jit(lambda x: x, static_argnums=(3,))(jnp.ones(2)), ValueError,
     r"static_argnums=\(3,\) names argument 3, but it was called with 1 positional argument"),
])
def test_silent_conversions_are_errors(make, err, msg):
    with pytest.raises(err, match=msg):
        make()


# ----------------------------------------------------------------------------- 9. errors

def test_scan_refuses_a_carry_that_changes_type_eagerly_as_under_jit():
    def f(c, x):
        return c.astype("float64") + x, x
    xs = jnp.ones(3)
    msg = (r"scan: the body function's carry input and carry output must have equal types, "
           r"but they differ: the input carry has type float32\[\] but the corresponding output "
           r"carry component has type float64\[\], so the dtypes do not match")
    with pytest.raises(TypeError, match=msg):
        jg.scan(f, jnp.zeros(()), xs)
    with pytest.raises(TypeError, match=msg):
        jg.jit(lambda c, xs: jg.scan(f, c, xs))(jnp.zeros(()), xs)
    assert jg.scan(lambda c, x: (c + x, c), 0.0, xs)[0].item() == 3.0     # weak scalar carry


def test_fori_loop_refuses_float_bounds_eagerly_and_under_jit():
    msg = r"fori_loop: lower must be an integer \(a Python int or an integer array\), got float 0.0"
    with pytest.raises(TypeError, match=msg):
        jg.fori_loop(0.0, 3.5, lambda i, v: v + 1, 0.0)
    with pytest.raises(TypeError, match=msg):
        jg.jit(lambda: jg.fori_loop(0.0, 3.5, lambda i, v: v + 1, 0.0))()


def test_compiled_function_on_meta_tensors_gives_meta_results():
    c = jg.jit(lambda x: x * 2).lower(jnp.ones(3)).compile()
    out = c(jg.zeros(3, device="meta"))
    assert out.device.type == "meta" and out.shape == (3,)


def test_linear_with_no_inputs_and_conv_with_zero_stride():
    with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
        m = nn.Linear(0, 3)
    assert m(jnp.zeros((2, 0))).shape == (2, 3)
    with pytest.raises(ValueError, match="Conv2d stride: expected a positive int or a pair of "
                                         "them, got 0"):
        nn.Conv2d(1, 1, 3, stride=0)


def test_einsum_names_the_mismatched_label():
    with pytest.raises(ValueError, match=re.escape(
            "einsum: size of label 'j' for operand 1 (4) does not match previous terms (3) in "
            "'ij,jk->ik' with operand shapes (2, 3), (4, 5)")):
        jnp.einsum("ij,jk->ik", jnp.ones((2, 3)), jnp.ones((4, 5)))


# ----------------------------------------------------------------------------- 10. closures

def test_closed_over_array_is_baked_and_warned_about_under_debug(monkeypatch):
    table = jnp.asarray(np.arange(16, dtype=np.float32))
    f = jg.jit(lambda x: x + table[:3])
    monkeypatch.setenv("JITGRAD_DEBUG", "1")
    with pytest.warns(UserWarning, match=r"'table' \(16 elements\) is closed over and baked"):
        first = f(jnp.zeros(3))
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # once per function, not per call
        table[0] = 100.0
        assert f(jnp.zeros(3)).tolist() == first.tolist() == [0.0, 1.0, 2.0]


def test_donating_a_numpy_array_copies_it():
    """As in JAX, a NumPy argument is copied: donating it has no effect (tests/runtime/test_donation.py)."""
    f = jg.jit(lambda x: x * 2, donate_argnums=0)
    a = np.ones(3, np.float32)
    assert f(a).tolist() == [2.0, 2.0, 2.0]
    assert a.tolist() == [1.0, 1.0, 1.0]
