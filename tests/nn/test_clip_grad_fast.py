"""clip_grad_norm_ on CPU float32/float64 gradients of one dtype: the total 2-norm on their
NumPy arrays (no eager op per gradient, as torch's _foreach_norm), the same value as the
generic path; the gradients scaled in place."""
import numpy as np

import jitgrad as jg
from jitgrad.nn.utils import clip_grad_norm_, get_total_norm

RNG = np.random.default_rng(5)


def _params(dtypes):
    ps = []
    for shape, dt in zip([(3, 4), (5,), (2, 2, 2)], dtypes):
        p = jg.tensor(np.zeros(shape, dt), requires_grad=True)
        p.grad = jg.tensor(RNG.standard_normal(shape).astype(dt))
        ps.append(p)
    return ps


def test_clip_grad_norm_on_one_dtype_runs_no_eager_op_per_gradient():
    ps = _params([np.float32] * 3)
    before = [p.grad.numpy().copy() for p in ps]
    want = np.sqrt(sum(np.sum(np.square(g.astype(np.float64))) for g in before))
    with jg.profiler.profile() as prof:
        total = get_total_norm([p.grad for p in ps])
    assert not [e for e in prof.events if e.cat == "eager"]
    assert total.dtype == jg.float32 and total.shape == ()
    np.testing.assert_allclose(float(total), want, rtol=1e-6)
    grads = [p.grad for p in ps]
    total = clip_grad_norm_(ps, 0.5)
    coef = np.float32(min(0.5 / (float(total) + 1e-6), 1.0))
    for p, g, b in zip(ps, grads, before):
        assert p.grad is g                                  # scaled in place
        np.testing.assert_allclose(p.grad.numpy(), b * coef, rtol=1e-6)


def test_mixed_dtypes_take_the_generic_path_with_the_same_norm():
    ps = _params([np.float32, np.float64, np.float32])
    want = np.sqrt(sum(np.sum(np.square(p.grad.numpy().astype(np.float64))) for p in ps))
    total = get_total_norm([p.grad for p in ps])
    assert total.dtype == jg.float64
    np.testing.assert_allclose(float(total), want, rtol=1e-6)


def test_norm_of_a_large_float32_gradient_is_accurate_to_float32_rounding():
    # 1M float32 elements: one BLAS dot over all of them drifts ~1e-6 relative; the chunked
    # dots summed in float64 stay at float32 rounding of the float64 norm
    g = (RNG.standard_normal(1 << 20) * 1e-3).astype(np.float32)
    p = jg.tensor(np.zeros_like(g), requires_grad=True)
    p.grad = jg.tensor(g)
    want = np.sqrt(np.sum(np.square(g.astype(np.float64))))
    np.testing.assert_allclose(float(get_total_norm([p.grad])), want, rtol=2e-7)


def test_scaling_runs_no_eager_op_per_gradient_and_moves_versions_and_views():
    ps = _params([np.float32] * 3)
    before = [p.grad.numpy().copy() for p in ps]
    view = ps[0].grad[1]                                    # a view of a gradient follows
    versions = [p.grad._version[0] for p in ps]
    with jg.profiler.profile() as prof:
        total = clip_grad_norm_(ps, 0.5)
    muls = [e for e in prof.events if e.cat == "eager" and e.name.startswith("mul")]
    assert not muls, [e.name for e in muls]
    coef = np.float32(min(0.5 / (float(total) + 1e-6), 1.0))
    for p, b, v in zip(ps, before, versions):
        np.testing.assert_array_equal(p.grad.numpy(), b * coef)     # mul_'s product, bit for bit
        assert p.grad._version[0] == v + 1
    np.testing.assert_array_equal(view.numpy(), before[0][1] * coef)


def test_scaling_matches_the_per_gradient_mul_bit_for_bit():
    ps = _params([np.float32] * 3)
    grads = [p.grad.numpy().copy() for p in ps]
    total = clip_grad_norm_(ps, 0.25)
    coef = jg.tensor(np.minimum(np.float32(0.25) / (total.numpy() + np.float32(1e-6)),
                                np.float32(1.0)))
    for p, g in zip(ps, grads):
        np.testing.assert_array_equal(p.grad.numpy(), (jg.tensor(g) * coef).numpy())
