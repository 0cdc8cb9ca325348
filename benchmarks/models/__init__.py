"""Whole-model training-step benchmark: `python -m jitgrad.benchmarks models` (runner.py).

Each model (spec.py) is written idiomatically once per framework (fw_jitgrad.py, fw_jax.py,
fw_torch.py: eager and torch.compile), starts from the same NumPy-initialized weights, and runs
alone in a fresh process (child.py). This package imports nothing from jitgrad at import time, so
a peer's process never loads jitgrad (child.py loads it as a plain package by path).
"""
