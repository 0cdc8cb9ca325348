"""torch.distributions.Categorical (jitgrad.distributions): log_prob / entropy / probs against
NumPy, sampling frequencies, torch's validation errors, and the REINFORCE gradient."""
import numpy as np
import pytest

import jitgrad as jg
from jitgrad.distributions import Categorical

PROBS = np.array([[0.2, 0.3, 0.5], [1.0, 0.0, 0.0]], np.float32)


def test_probs_are_normalized_and_logits_log_softmaxed():
    m = Categorical(jg.tensor(PROBS * 4.0))
    np.testing.assert_allclose(m.probs.numpy(), PROBS, rtol=1e-6)
    eps = np.finfo(np.float32).eps       # torch clamps probs to [eps, 1 - eps] before the log
    np.testing.assert_allclose(m.logits.numpy(), np.log(np.clip(PROBS, eps, 1 - eps)), rtol=1e-6)
    logits = np.array([1.0, 2.0, 3.0], np.float32)
    m = Categorical(logits=jg.tensor(logits))
    ref = logits - np.log(np.exp(logits).sum())
    np.testing.assert_allclose(m.logits.numpy(), ref, rtol=1e-6)
    np.testing.assert_allclose(m.probs.numpy(), np.exp(ref), rtol=1e-6)
    assert m.batch_shape == () and m.event_shape == () and m.param_shape == (3,)


@pytest.mark.parametrize("path", ["eager", "jit",
                                  pytest.param("jit_interpreter", marks=pytest.mark.interpreter)])
def test_log_prob_and_entropy(path):
    def f(p, a):
        m = Categorical(p)
        return m.log_prob(a), m.entropy()
    run = f if path == "eager" else jg.jit(f)
    lp, ent = run(jg.tensor(PROBS), jg.tensor([2, 1]))
    eps = np.finfo(np.float32).eps
    np.testing.assert_allclose(np.asarray(lp), [np.log(0.5), np.log(eps)], rtol=1e-6)
    p = PROBS[0]
    np.testing.assert_allclose(np.asarray(ent)[0], -(p * np.log(p)).sum(), rtol=1e-6)
    assert abs(float(np.asarray(ent)[1])) < 1e-5      # 0 log 0 counts as 0


def test_log_prob_broadcasts_a_sample_shape():
    m = Categorical(jg.tensor(PROBS))
    lp = m.log_prob(jg.tensor([[0, 0], [2, 0]]))
    np.testing.assert_allclose(lp.numpy(), np.log([[0.2, 1 - np.finfo(np.float32).eps],
                                                   [0.5, 1 - np.finfo(np.float32).eps]]),
                               rtol=1e-6)


def test_sample_shapes_and_frequencies():
    jg.manual_seed(0)
    m = Categorical(jg.tensor(PROBS))
    assert m.sample().shape == (2,) and m.sample().dtype == np.int64
    draws = m.sample((4000,)).numpy()
    assert draws.shape == (4000, 2) and np.all(draws[:, 1] == 0)
    np.testing.assert_allclose(np.bincount(draws[:, 0], minlength=3) / 4000, PROBS[0], atol=0.03)
    np.testing.assert_array_equal(m.enumerate_support().numpy(), [[0, 0], [1, 1], [2, 2]])


def test_reinforce_gradient():
    # d/dlogits [-log_softmax(l)[a] * R] = -(onehot(a) - softmax(l)) * R
    logits = jg.tensor([0.5, -1.0, 2.0], requires_grad=True)
    m = Categorical(logits=logits)
    (-m.log_prob(jg.tensor(1)) * 3.0).backward()
    p = np.exp([0.5, -1.0, 2.0]) / np.exp([0.5, -1.0, 2.0]).sum()
    np.testing.assert_allclose(logits.grad.numpy(), -(np.eye(3)[1] - p) * 3.0, rtol=1e-5)


def test_validation_errors():
    with pytest.raises(ValueError, match="Either `probs` or `logits` must be specified"):
        Categorical()
    with pytest.raises(ValueError, match=r"constraint Simplex\(\), but found invalid values"):
        Categorical(jg.tensor([-0.1, 1.1]))
    with pytest.raises(ValueError, match=r"within the support \(IntegerInterval\(lower_bound=0, "
                                         r"upper_bound=2\)\)"):
        Categorical(jg.tensor(PROBS)).log_prob(jg.tensor([3, 0]))
    Categorical(jg.tensor(PROBS), validate_args=False).log_prob(jg.tensor([0, 0]))


def test_matches_torch():
    torch = pytest.importorskip("torch")
    logits = np.array([[0.3, -1.2, 2.0], [0.0, 0.0, 5.0]], np.float32)
    t = torch.distributions.Categorical(logits=torch.tensor(logits))
    m = Categorical(logits=jg.tensor(logits))
    a = np.array([2, 0])
    np.testing.assert_allclose(m.log_prob(jg.tensor(a)).numpy(),
                               t.log_prob(torch.tensor(a)).numpy(), rtol=1e-6)
    np.testing.assert_allclose(m.entropy().numpy(), t.entropy().numpy(), rtol=1e-6)
