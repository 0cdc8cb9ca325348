"""One walk per kernel while a schedule compiles: codegen/cpu/backend.compile_cpu computes each
kernel's unit key once (the prefetch and the build share it) and asks codegen/cpu/units.py for
each unit once (the sequence and the wave check share it)."""
import numpy as np

import jitgrad as jg
from jitgrad.codegen.cpu import backend, units


def test_each_kernel_key_and_unit_is_asked_for_once(monkeypatch, tmp_path):
    monkeypatch.setenv("JITGRAD_CACHE_DIR", str(tmp_path))
    keys, asked = [], []
    real_key, real_unit = units.unit_key, units.kernel_unit

    def counting_key(node, hint=None):
        keys.append(id(node))
        return real_key(node, hint)

    def counting_unit(node, hint=None, key=None):
        asked.append(id(node))
        return real_unit(node, hint, key)
    # counting calls is the subject: backend.py calls the units' functions by these names
    monkeypatch.setattr(backend, "unit_key", counting_key)
    monkeypatch.setattr(units, "unit_key", counting_key)
    monkeypatch.setattr(backend, "kernel_unit", counting_unit)
    x = np.linspace(-1, 1, 24, dtype=np.float32).reshape(4, 6)
    w = np.linspace(0, 1, 18, dtype=np.float32).reshape(6, 3)
    f = jg.jit(lambda x, w: (jg.tanh(x @ w) + x.sum(1, keepdim=True)).softmax(-1) * 0.5 + 0.1375)
    got = np.asarray(f(x, w))
    z = np.tanh(x @ w) + x.sum(1, keepdims=True)
    e = np.exp(z - z.max(1, keepdims=True))
    np.testing.assert_allclose(got, e / e.sum(1, keepdims=True) * 0.5 + 0.1375, rtol=1e-5)
    assert len(asked) >= 2, asked
    assert sorted(keys) == sorted(set(keys)) and sorted(asked) == sorted(set(asked))
    assert set(asked) <= set(keys)
