"""jg.nn.utils: gradient clipping (clip_grad_norm_, get_total_norm, clip_grads_with_norm_,
clip_grad_value_) and parameters_to_vector / vector_to_parameters, against NumPy."""
import math

import numpy as np
import pytest

import jitgrad as jg
import jitgrad.nn.utils
from jitgrad import nn

GRADS = [np.array([[3.0, -4.0], [1.0, 0.0]], np.float32), np.array([2.0, -1.0], np.float32),
         np.array(-12.0, np.float32)]


def _params(grads=GRADS):
    params = [nn.Parameter(np.zeros(g.shape, g.dtype)) for g in grads]
    for p, g in zip(params, grads):
        p.grad = jg.tensor(g)
    return params


def _vector_norm(x, norm_type):
    x = np.abs(np.asarray(x, np.float64).reshape(-1))
    if norm_type == 0:
        return float(np.count_nonzero(x))
    if math.isinf(norm_type):
        return x.max() if norm_type > 0 else x.min()
    return (x ** norm_type).sum() ** (1 / norm_type)


def _norm(norm_type):
    """torch's total norm: the norm of the per-tensor norms (for ord 0: tensors not all 0)."""
    return _vector_norm([_vector_norm(g, norm_type) for g in GRADS], norm_type)


@pytest.mark.parametrize("norm_type", [2.0, 1, 3.0, np.inf, "inf", 0.0, -np.inf])
@pytest.mark.parametrize("max_norm", [1.0, 1e3])
def test_clip_grad_norm_matches_numpy(norm_type, max_norm):
    params = _params()
    before = [p.grad for p in params]
    total = jg.nn.utils.clip_grad_norm_(params, max_norm, norm_type=norm_type)
    want = _norm(float(norm_type))
    assert isinstance(total, jg.Tensor) and total.shape == () and total.dtype == np.float32
    np.testing.assert_allclose(float(total), want, rtol=1e-6)
    coef = min(1.0, max_norm / (want + 1e-6))
    for p, g, old in zip(params, GRADS, before):
        assert p.grad is old                                  # changed in place
        np.testing.assert_allclose(np.asarray(p.grad), g * coef, rtol=1e-6)


def test_total_norm_and_clip_with_norm_compose():
    params = _params()
    total = jg.nn.utils.get_total_norm([p.grad for p in params])
    np.testing.assert_allclose(float(total), np.sqrt(175.0), rtol=1e-6)   # 9+16+1+4+1+144
    jg.nn.utils.clip_grads_with_norm_(params, 6.8, total)
    np.testing.assert_allclose(np.asarray(params[2].grad), -12.0 * 6.8 / (np.sqrt(175.0) + 1e-6),
                               rtol=1e-6)
    assert float(jg.nn.utils.get_total_norm([])) == 0.0


def test_clip_skips_missing_grads_and_accepts_one_tensor():
    p, q = nn.Parameter(np.zeros(2, np.float32)), nn.Parameter(np.zeros(2, np.float32))
    p.grad = jg.tensor(np.array([6.0, 8.0], np.float32))
    total = jg.nn.utils.clip_grad_norm_(iter([p, q]), 5.0)
    np.testing.assert_allclose(float(total), 10.0)
    np.testing.assert_allclose(np.asarray(p.grad), [3.0, 4.0], rtol=1e-6)
    assert q.grad is None
    total = jg.nn.utils.clip_grad_norm_(p, 100.0)
    np.testing.assert_allclose(float(total), 5.0, rtol=1e-6)


def test_nonfinite_norm_and_deprecated_name():
    params = _params([np.array([np.inf, 1.0], np.float32)])
    with pytest.raises(RuntimeError, match="order 2.0 .* is non-finite"):
        jg.nn.utils.clip_grad_norm_(params, 1.0, error_if_nonfinite=True)
    total = jg.nn.utils.clip_grad_norm_(params, 1.0)
    assert np.isinf(float(total))
    with pytest.warns(FutureWarning, match="deprecated in favor of"):
        jg.nn.utils.clip_grad_norm(_params(), 1.0)
    with pytest.warns(UserWarning, match="empty generator"):
        jg.nn.utils.clip_grad_norm_(iter([]), 1.0)
    with pytest.raises(ValueError, match="foreach must be None, True or False"):
        jg.nn.utils.clip_grad_value_(_params(), 1.0, foreach="yes")


def test_clip_grad_value():
    params = _params()
    jg.nn.utils.clip_grad_value_(params, 2.5)
    for p, g in zip(params, GRADS):
        np.testing.assert_array_equal(np.asarray(p.grad), np.clip(g, -2.5, 2.5))


def test_parameters_vector_round_trip():
    model = nn.Linear(3, 2)
    vec = jg.nn.utils.parameters_to_vector(model.parameters())
    want = np.concatenate([np.asarray(p.detach()).reshape(-1) for p in model.parameters()])
    np.testing.assert_array_equal(np.asarray(vec.detach()), want)
    (vec * vec).sum().backward()                      # differentiable, as torch's
    np.testing.assert_allclose(np.asarray(model.weight.grad), 2 * np.asarray(model.weight.detach()))
    new = jg.tensor(np.arange(8, dtype=np.float32))
    jg.nn.utils.vector_to_parameters(new, model.parameters())
    np.testing.assert_array_equal(np.asarray(model.weight.detach()), np.arange(6).reshape(2, 3))
    np.testing.assert_array_equal(np.asarray(model.bias.detach()), [6, 7])
    with pytest.raises(TypeError, match="expected a jitgrad Tensor"):
        jg.nn.utils.vector_to_parameters(np.zeros(8), model.parameters())
    with pytest.raises(ValueError, match="expected a vector of 8 elements"):
        jg.nn.utils.vector_to_parameters(jg.tensor(np.zeros(7)), model.parameters())


def test_clip_inside_a_training_step():
    """The usual loop: backward, clip, step; the clipped update is what SGD applies."""
    w = nn.Parameter(np.array([3.0, 4.0], np.float32))
    opt = jg.optim.SGD([w], lr=1.0)
    (w * w).sum().backward()                          # grad (6, 8), norm 10
    jg.nn.utils.clip_grad_norm_([w], 1.0)
    opt.step()
    np.testing.assert_allclose(np.asarray(w.detach()), [3.0 - 0.6, 4.0 - 0.8], rtol=1e-5)
