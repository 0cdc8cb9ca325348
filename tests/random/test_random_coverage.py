"""Every public name of jax.random is here or excluded with a reason (jitgrad.random.EXCLUDED)."""
import pytest

import jitgrad as jg

# dir(jax.random) without underscores, jax 0.10.2
JAX_RANDOM_NAMES = (
    'PRNGKey', 'ball', 'bernoulli', 'beta', 'binomial', 'bits', 'categorical', 'cauchy',
    'chisquare', 'choice', 'clone', 'dirichlet', 'double_sided_maxwell', 'exponential', 'f',
    'fold_in', 'gamma', 'generalized_normal', 'geometric', 'gumbel', 'key', 'key_data',
    'key_dtype', 'key_impl', 'laplace', 'loggamma', 'logistic', 'lognormal', 'maxwell',
    'multinomial', 'multivariate_normal', 'normal', 'orthogonal', 'pareto', 'permutation',
    'poisson', 'rademacher', 'randint', 'random_gamma_p', 'rayleigh', 'split', 't',
    'triangular', 'truncated_normal', 'uniform', 'wald', 'weibull_min', 'wrap_key_data')


@pytest.mark.parametrize("name", JAX_RANDOM_NAMES)
def test_every_jax_random_name_is_present_or_excluded(name):
    excluded = jg.random.EXCLUDED
    assert callable(getattr(jg.random, name, None)) != (name in excluded), name
    assert name not in excluded or len(excluded[name]) > 20      # a reason, not a placeholder


def test_exclusions_name_real_jax_random_names():
    assert set(jg.random.EXCLUDED) <= set(JAX_RANDOM_NAMES)


def test_the_checked_in_list_is_the_installed_jax_list():
    jax = pytest.importorskip("jax")
    import jax.random
    if jax.__version__ != "0.10.2":
        pytest.skip(f"the list is jax 0.10.2's, installed is {jax.__version__}")
    assert tuple(n for n in dir(jax.random) if not n.startswith("_")) == JAX_RANDOM_NAMES
