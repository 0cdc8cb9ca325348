"""torch.serialization's allow-list for load(weights_only=True) (add_safe_globals, safe_globals,
get_safe_globals, clear_safe_globals) and whole models through save / load: a model holding
F.relu pickles (jitgrad.nn.functional's functions pickle by their own module and name), and it
loads back under `jg.serialization.safe_globals([...])` listing torch's file paths, as
pytorch/examples word_language_model does (issue 49)."""
import io
import pickle

import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad import nn
from jitgrad.nn import functional as F

X = np.linspace(-1, 1, 2 * 3 * 8, dtype=np.float32).reshape(3, 2, 8)


def _saved(model):
    buf = io.BytesIO()
    jg.save(model, buf)
    buf.seek(0)
    return buf


def _encoder():
    jg.manual_seed(0)
    return nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0), 2).eval()


# what word_language_model lists for its Transformer (torch.nn.modules.<file>.<Class>)
WLM_SAFE = [F.relu, nn.modules.activation.MultiheadAttention, nn.modules.container.ModuleList,
            nn.modules.dropout.Dropout, nn.modules.linear.Linear,
            nn.modules.linear.NonDynamicallyQuantizableLinear,
            nn.modules.normalization.LayerNorm, nn.modules.transformer.TransformerEncoder,
            nn.modules.transformer.TransformerEncoderLayer]


def test_public_functions_pickle_by_their_namespace():
    for fn in (F.relu, F.gelu, jnp.sum, jnp.concatenate):
        assert pickle.loads(pickle.dumps(fn)) is fn
    assert (F.relu.__module__, F.relu.__qualname__) == ("jitgrad.nn.functional", "relu")


def test_weights_only_refuses_a_model_unless_its_classes_are_allowed():
    model = _encoder()
    with pytest.raises(pickle.UnpicklingError,
                       match=r"refusing to rebuild jitgrad\.nn\.transformer\.TransformerEncoder "
                             r".*add_safe_globals"):
        jg.load(_saved(model))
    with jg.serialization.safe_globals(WLM_SAFE):
        loaded = jg.load(_saved(model))
    assert jg.serialization.get_safe_globals() == []
    assert type(loaded) is nn.TransformerEncoder and loaded is not model
    with jg.no_grad():
        # the same weights (eager layer_norm may switch to its compiled form between calls)
        np.testing.assert_allclose(loaded(jg.tensor(X)).numpy(), model(jg.tensor(X)).numpy(),
                                   rtol=1e-5, atol=1e-6)
    for (name, a), (_, b) in zip(loaded.state_dict().items(), model.state_dict().items()):
        np.testing.assert_array_equal(a.numpy(), b.numpy(), err_msg=name)


def test_a_partial_list_names_the_first_class_left_out():
    with jg.serialization.safe_globals(WLM_SAFE[1:]):
        with pytest.raises(pickle.UnpicklingError, match=r"jitgrad\.nn\.functional\.relu"):
            jg.load(_saved(_encoder()))


def test_add_get_clear_and_name_pairs():
    try:
        jg.serialization.add_safe_globals([nn.Linear,
                                           (nn.Sequential, "jitgrad.nn.layers.Sequential")])
        assert jg.serialization.get_safe_globals() == [nn.Linear, nn.Sequential]
        model = nn.Sequential(nn.Linear(2, 3))
        loaded = jg.load(_saved(model))
        np.testing.assert_array_equal(loaded[0].weight.detach(), model[0].weight.detach())
    finally:
        jg.serialization.clear_safe_globals()
    assert jg.serialization.get_safe_globals() == []
    with pytest.raises(pickle.UnpicklingError, match="refusing to rebuild"):
        jg.load(_saved(nn.Linear(2, 3)))
