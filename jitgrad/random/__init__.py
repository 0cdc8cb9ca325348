"""jax.random: explicit PRNG keys and samplers. key = jg.random.key(0); k1, k2 =
jg.random.split(key); jg.random.normal(k1, (3, 4)).

A key is JAX's raw key data, uint32[2]; draws hash (key, index) with Threefry-2x32 written in
uint32 elementwise ops (threefry.py), so they fuse into kernels, run under jit with traced keys,
and batch under vmap over keys as one kernel. The bits, split and fold_in equal JAX's.

Files by concept: keys.py (key, split, fold_in, bits, key data), continuous.py (uniform,
normal and transforms of them), discrete.py (bernoulli, randint, categorical, choice,
permutation, ...), gamma.py (the gamma family), counts.py (poisson, binomial, multinomial),
multivariate.py (multivariate_normal, orthogonal, ball)."""
from .continuous import (cauchy, double_sided_maxwell, exponential, gumbel, laplace,  # noqa: F401
                         logistic, lognormal, maxwell, normal, pareto, rayleigh, triangular,
                         truncated_normal, uniform, wald, weibull_min)
from .counts import binomial, multinomial, poisson  # noqa: F401
from .discrete import (bernoulli, categorical, choice, geometric, permutation,  # noqa: F401
                       rademacher, randint, shuffle)
from .gamma import beta, chisquare, dirichlet, f, gamma, generalized_normal, loggamma, t  # noqa: F401
from .keys import (PRNGKey, bits, clone, fold_in, key, key_data, key_impl, split,  # noqa: F401
                   wrap_key_data)
from .multivariate import ball, multivariate_normal, orthogonal  # noqa: F401

# jax.random's public names that have no meaning here, with the reason
EXCLUDED = {
    "key_dtype": "typed key arrays (dtype key<impl>) do not exist here: a key is its uint32 "
                 "data, so there is no key dtype to return",
    "random_gamma_p": "a JAX primitive object (an implementation internal); gamma here is a "
                      "composite of jitgrad primitives",
}
