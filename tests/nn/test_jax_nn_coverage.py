"""Every public name of jax.nn and jax.nn.initializers (checked-in lists, jax 0.10.2) is in
jitgrad.nn / jitgrad.nn.initializers or excluded with a reason; with jax installed, the lists
equal the installed jax's."""
import pytest

import jitgrad.nn as nn

JAX_NN = (
    'celu', 'dot_product_attention', 'elu', 'gelu', 'get_scaled_dot_general_config', 'glu',
    'hard_sigmoid', 'hard_silu', 'hard_swish', 'hard_tanh', 'identity', 'initializers',
    'leaky_relu', 'log1mexp', 'log_sigmoid', 'log_softmax', 'logmeanexp', 'logsumexp', 'mish',
    'one_hot', 'relu', 'relu6', 'scaled_dot_general', 'scaled_matmul', 'selu', 'sigmoid',
    'silu', 'soft_sign', 'softmax', 'softplus', 'sparse_plus', 'sparse_sigmoid', 'squareplus',
    'standardize', 'swish', 'tanh',
)
JAX_NN_INITIALIZERS = (
    'Initializer', 'constant', 'delta_orthogonal', 'glorot_normal', 'glorot_uniform',
    'he_normal', 'he_uniform', 'kaiming_normal', 'kaiming_uniform', 'lecun_normal',
    'lecun_uniform', 'normal', 'ones', 'orthogonal', 'truncated_normal', 'uniform',
    'variance_scaling', 'xavier_normal', 'xavier_uniform', 'zeros',
)

# name -> why jitgrad.nn leaves it out
EXCLUDED = {
    "scaled_matmul": "block-scaled matmul of fp8/fp4 operands with e8m0 scales (cuDNN): jitgrad "
                     "arrays hold no fp8/fp4/e8m0 dtypes",
    "scaled_dot_general": "the dot_general form of scaled_matmul (nvfp4/mxfp8 block scaling): same "
                          "reason",
    "get_scaled_dot_general_config": "builds the nvfp4/mxfp8 BlockScaleConfig for "
                                     "scaled_dot_general: same reason",
}
# jax.nn.initializers' type alias for an init function, not a function
INITIALIZERS_EXCLUDED = {"Initializer": "a typing Protocol (init(key, shape, dtype) -> Array), "
                                        "not a function"}


def test_every_jax_nn_name_is_present_or_excluded():
    missing = [n for n in JAX_NN if n not in EXCLUDED and not hasattr(nn, n)]
    assert not missing, f"jax.nn names missing from jitgrad.nn: {missing}"
    present = [n for n in EXCLUDED if hasattr(nn, n)]
    assert not present, f"present now, drop them from EXCLUDED: {present}"


def test_every_initializer_is_present_or_excluded():
    missing = [n for n in JAX_NN_INITIALIZERS
               if n not in INITIALIZERS_EXCLUDED and not hasattr(nn.initializers, n)]
    assert not missing, f"jax.nn.initializers names missing: {missing}"


def test_the_lists_are_the_installed_jaxs():
    jax_nn = pytest.importorskip("jax.nn")
    assert sorted(JAX_NN) == sorted(n for n in dir(jax_nn) if not n.startswith("_"))
    assert sorted(JAX_NN_INITIALIZERS) == sorted(
        n for n in dir(jax_nn.initializers) if not n.startswith("_"))


def test_torch_classes_and_functional_keep_torchs_meanings():
    import numpy as np
    import jitgrad.nn.functional as F
    assert nn.ReLU is not nn.relu and callable(nn.Linear)
    x = np.array([-1.0, 0.5, 2.0])
    # jax.nn.gelu approximates by default, torch's F.gelu is exact by default
    assert not np.allclose(nn.gelu(x).numpy(), F.gelu(x).numpy(), rtol=1e-7, atol=0)
    np.testing.assert_allclose(nn.gelu(x, approximate=False).numpy(), F.gelu(x).numpy())
