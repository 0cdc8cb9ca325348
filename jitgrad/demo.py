"""`jitgrad demo`: the main job. (Grows into the digits training demo.)"""
from __future__ import annotations

import numpy as np


def main(args=None) -> int:
    import jitgrad as jg
    import jitgrad.numpy as jnp

    @jg.jit
    def predict(w, x):
        return jnp.tanh(x @ w).sum()

    w = np.random.default_rng(0).standard_normal((64, 10)).astype(np.float32)
    x = np.ones((8, 64), np.float32)
    print("@jit traced this IR:\n")
    print(predict.lower(w, x).ir)
    print("\nresult:", predict(w, x))
    return 0
