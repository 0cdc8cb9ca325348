"""jitgrad.nn.modules: torch.nn.modules' file layout (`torch.nn.modules.activation.
MultiheadAttention`, `.linear.NonDynamicallyQuantizableLinear`, `.loss.MSELoss`, ...), each name
the jitgrad.nn class itself, so programs spelling torch's paths run unchanged (issue 49)."""
import importlib

import numpy as np
import pytest

from jitgrad import nn
from jitgrad.nn.modules import LAYOUT


def test_every_name_is_the_nn_class():
    for file, names in LAYOUT.items():
        mod = importlib.import_module(f"jitgrad.nn.modules.{file}")
        assert mod is getattr(nn.modules, file) and mod.__all__ == list(names)
        for name in names:
            if name != "NonDynamicallyQuantizableLinear":
                assert getattr(mod, name) is getattr(nn, name), (file, name)


def test_from_imports_spelled_as_torch():
    from jitgrad.nn.modules.loss import MSELoss
    from jitgrad.nn.modules.transformer import TransformerEncoderLayer
    assert (MSELoss, TransformerEncoderLayer) == (nn.MSELoss, nn.TransformerEncoderLayer)
    assert nn.modules.activation.MultiheadAttention is nn.MultiheadAttention
    assert nn.modules.module.Module is nn.Module and nn.modules.sparse.Embedding is nn.Embedding


def test_attention_out_proj_is_torchs_linear_subclass():
    mha = nn.MultiheadAttention(4, 2)
    cls = nn.modules.linear.NonDynamicallyQuantizableLinear
    assert type(mha.out_proj) is cls and issubclass(cls, nn.Linear)
    assert list(mha.state_dict()) == ["in_proj_weight", "in_proj_bias", "out_proj.weight",
                                      "out_proj.bias"]
    assert "(out_proj): NonDynamicallyQuantizableLinear(in_features=4, out_features=4" in repr(mha)
    assert mha.out_proj.weight.shape == (4, 4)
    np.testing.assert_array_equal(mha.out_proj.bias.detach().numpy(), np.zeros(4, np.float32))


def test_layout_matches_torch():
    torch_modules = pytest.importorskip("torch.nn.modules")
    for file, names in LAYOUT.items():
        theirs = importlib.import_module(f"torch.nn.modules.{file}")
        for name in names:
            assert hasattr(theirs, name), (file, name)
    for file in dir(torch_modules):
        theirs = getattr(torch_modules, file)
        for name in getattr(theirs, "__all__", ()) if file in LAYOUT else ():
            assert name in LAYOUT[file] or not hasattr(nn, name), (file, name)
