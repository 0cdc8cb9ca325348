"""torch.cuda's seeding functions (jg.cuda.manual_seed, manual_seed_all, seed, seed_all,
initial_seed): one default generator serves every device, so they seed it, and torch's
reproducibility recipe gives the same draws twice. No cuda device is needed."""
import numpy as np

import jitgrad as jg


def test_manual_seed_all_restarts_the_stream():
    jg.cuda.manual_seed_all(3407)
    a = jg.randn(4).numpy()
    jg.cuda.manual_seed(3407)
    b = jg.randn(4).numpy()
    np.testing.assert_array_equal(a, b)
    assert jg.cuda.initial_seed() == 3407 == jg.initial_seed()


def test_torch_recipe_matches_manual_seed_alone():
    jg.manual_seed(7)
    jg.cuda.manual_seed_all(7)
    a = jg.rand(3).numpy()
    jg.manual_seed(7)
    np.testing.assert_array_equal(a, jg.rand(3).numpy())


def test_seed_all_draws_a_fresh_seed():
    jg.cuda.manual_seed(1)
    jg.cuda.seed_all()
    first = jg.cuda.initial_seed()
    jg.cuda.seed()
    assert first != 1 and jg.cuda.initial_seed() != first
