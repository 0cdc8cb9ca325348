"""jit's closure check (trace/closure_check.py) counts the arrays a function closes over: arrays,
and the arrays inside any registered pytree class (a Module's parameters and buffers), without
knowing jitgrad.nn."""
import warnings

import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad import nn, tree_util
from jitgrad.trace.closure_check import closed_over


@tree_util.register_pytree_node_class
class Pair:
    def __init__(self, a, b):
        self.a, self.b = a, b

    def tree_flatten(self):
        return (self.a, self.b), None

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(*children)


def test_a_module_counts_its_parameters_and_buffers():
    model = nn.BatchNorm1d(4)          # weight, bias (4 each); running mean, var (4 each), count
    elements = sum(int(np.prod(t.shape)) for t in tree_util.tree_leaves(model)
                   if hasattr(t, "shape"))
    f = lambda x: model(x)             # noqa: E731
    assert closed_over(f) == [("model", elements)] and elements >= 16


def test_a_registered_pytree_counts_its_arrays_and_a_plain_list_does_not():
    pair = Pair(jnp.ones((3, 4)), np.zeros(5))
    table = [jnp.ones(100)]
    f = lambda x: x + pair.a.sum() + table[0].sum()     # noqa: E731
    assert closed_over(f) == [("pair", 17)]


def test_the_warning_names_a_closed_over_module(monkeypatch):
    lin = nn.Linear(4, 3)
    f = jg.jit(lambda x: lin(x))
    monkeypatch.setenv("JITGRAD_DEBUG", "1")
    with pytest.warns(UserWarning, match=r"'lin' \(15 elements\) is closed over and baked"):
        f(jnp.zeros((1, 4)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # once per function
        f(jnp.zeros((1, 4)))
