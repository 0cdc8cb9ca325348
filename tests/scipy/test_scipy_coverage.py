"""Every public name of jax.scipy.{special,linalg,stats} and jax.example_libraries.{optimizers,
stax} (checked-in lists, jax 0.10) is in jitgrad or excluded with a reason."""
import types

import pytest

import jitgrad.scipy.linalg as L
import jitgrad.scipy.special as S
import jitgrad.scipy.stats as ST
from jitgrad.example_libraries import optimizers, stax

SPECIAL = ['bernoulli', 'bessel_jn', 'beta', 'betainc', 'betaln', 'boxcox', 'boxcox1p', 'comb',
           'dawsn', 'digamma', 'entr', 'erf', 'erfc', 'erfcx', 'erfinv', 'exp1', 'expi', 'expit',
           'expn', 'factorial', 'fresnel', 'gamma', 'gammainc', 'gammaincc', 'gammaln',
           'gammasgn', 'hyp1f1', 'hyp2f1', 'i0', 'i0e', 'i1', 'i1e', 'kl_div', 'log_ndtr',
           'log_softmax', 'loggamma', 'logit', 'logsumexp', 'multigammaln', 'ndtr', 'ndtri',
           'owens_t', 'poch', 'polygamma', 'rel_entr', 'sici', 'softmax', 'spence',
           'sph_harm_y', 'wofz', 'xlog1py', 'xlogy', 'zeta']
LINALG = ['block_diag', 'cho_factor', 'cho_solve', 'cholesky', 'circulant', 'companion',
          'convolution_matrix', 'det', 'dft', 'eigh', 'eigh_tridiagonal', 'expm', 'expm_frechet',
          'fiedler', 'fiedler_companion', 'funm', 'hadamard', 'hankel', 'helmert', 'hessenberg',
          'hilbert', 'inv', 'invhilbert', 'invpascal', 'leslie', 'lu', 'lu_factor', 'lu_solve',
          'pascal', 'polar', 'qr', 'qr_multiply', 'rsf2csf', 'schur', 'solve', 'solve_sylvester',
          'solve_triangular', 'sqrtm', 'svd', 'toeplitz']
_DISTS = {
    "bernoulli": "cdf logpmf pmf ppf", "beta": "cdf logcdf logpdf logsf pdf sf",
    "betabinom": "logpmf pmf", "binom": "logpmf pmf",
    "cauchy": "cdf isf logcdf logpdf logsf pdf ppf sf", "chi2": "cdf logcdf logpdf logsf pdf sf",
    "dirichlet": "logpdf pdf", "expon": "cdf logcdf logpdf logsf pdf ppf sf",
    "gamma": "cdf logcdf logpdf logsf pdf sf", "gennorm": "cdf logpdf pdf",
    "geom": "logpmf pmf", "gumbel_l": "cdf logcdf logpdf logsf pdf ppf sf",
    "gumbel_r": "cdf logcdf logpdf logsf pdf ppf sf", "laplace": "cdf logpdf pdf",
    "logistic": "cdf isf logpdf pdf ppf sf", "multinomial": "logpmf pmf",
    "multivariate_normal": "logpdf pdf", "nbinom": "logpmf pmf",
    "norm": "cdf isf logcdf logpdf logsf pdf ppf sf",
    "pareto": "cdf logcdf logpdf logsf pdf ppf sf", "poisson": "cdf entropy logpmf pmf",
    "t": "logpdf pdf", "truncnorm": "cdf logcdf logpdf logsf pdf sf",
    "uniform": "cdf logpdf pdf ppf", "vonmises": "logpdf pdf", "wrapcauchy": "logpdf pdf"}
STATS = sorted([f"{d}.{f}" for d, fs in _DISTS.items() for f in fs.split()] +
               ["gaussian_kde", "mode", "rankdata", "sem"])
OPTIMIZERS = ['JoinPoint', 'Optimizer', 'OptimizerState', 'adagrad', 'adam', 'adamax',
              'clip_grads', 'constant', 'exponential_decay', 'inverse_time_decay', 'l2_norm',
              'make_schedule', 'momentum', 'nesterov', 'optimizer', 'pack_optimizer_state',
              'piecewise_constant', 'polynomial_decay', 'rmsprop', 'rmsprop_momentum', 'sgd', 'sm3',
              'unpack_optimizer_state']
# jax's optimizers module also exposes its imports and type aliases, which are not API
OPTIMIZERS_NOT_API = {'Callable', 'InitFn', 'ParamsFn', 'Schedule', 'Step', 'UpdateFn',
                      'annotations', 'map', 'namedtuple', 'partial', 'safe_map', 'safe_zip',
                      'unzip2', 'zip', 'Any', 'Array', 'NamedTuple', 'Params', 'State', 'Updates',
                      'functools', 'jax', 'jnp'}
STAX = ['AvgPool', 'BatchNorm', 'Conv', 'Conv1DTranspose', 'ConvTranspose', 'Dense', 'Dropout',
        'Elu', 'Exp', 'FanInConcat', 'FanInSum', 'FanOut', 'Flatten', 'Gelu', 'GeneralConv',
        'GeneralConvTranspose', 'Identity', 'LeakyRelu', 'LogSoftmax', 'MaxPool', 'Relu', 'Selu',
        'Sigmoid', 'Softmax', 'Softplus', 'SumPool', 'Tanh', 'elementwise', 'elu', 'gelu',
        'glorot', 'glorot_normal', 'leaky_relu', 'log_softmax', 'logsoftmax', 'normal', 'ones',
        'parallel', 'randn', 'relu', 'selu', 'serial', 'shape_dependent', 'sigmoid', 'softmax',
        'softplus', 'standardize', 'zeros']


def _has(module, dotted):
    obj = module
    for part in dotted.split("."):
        if not hasattr(obj, part):
            return False
        obj = getattr(obj, part)
    layer = isinstance(obj, tuple) and len(obj) == 2 and all(map(callable, obj))   # stax.Relu
    return callable(obj) or layer


@pytest.mark.parametrize("module,names,excluded", [
    (S, SPECIAL, S.EXCLUDED), (L, LINALG, L.EXCLUDED), (ST, STATS, ST.EXCLUDED),
    (optimizers, OPTIMIZERS, {}), (stax, STAX, {})], ids=["special", "linalg", "stats",
                                                         "optimizers", "stax"])
def test_every_name_is_present_or_excluded_with_a_reason(module, names, excluded):
    missing = [n for n in names if not _has(module, n) and n not in excluded]
    assert not missing, f"neither present nor excluded: {missing}"
    stale = [n for n in excluded if _has(module, n) or n not in names]
    assert not stale, f"excluded but present, or not a jax name: {stale}"
    assert all(isinstance(r, str) and r for r in excluded.values())


def _public(module):
    return sorted(n for n in dir(module) if not n.startswith("_")
                  and not isinstance(getattr(module, n), types.ModuleType))


def test_checked_in_lists_equal_the_installed_jax():
    pytest.importorskip("jax")
    import jax.scipy.linalg as jl
    import jax.scipy.special as js
    import jax.scipy.stats as jst
    from jax.example_libraries import optimizers as jopt, stax as jstax
    assert _public(js) == SPECIAL
    assert _public(jl) == LINALG
    stats = [n for n in _public(jst)] + [
        f"{n}.{f}" for n in dir(jst) if isinstance(getattr(jst, n), types.ModuleType)
        and not n.startswith("_") for f in _public(getattr(jst, n))]
    assert sorted(stats) == STATS
    assert sorted(set(_public(jopt)) - OPTIMIZERS_NOT_API) == OPTIMIZERS
    assert [n for n in _public(jstax) if n not in ("functools", "jnp", "lax", "math",
                                                   "random")] == STAX
