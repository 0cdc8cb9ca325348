"""A registered pytree node whose static data is unhashable (a dict), as in the JAX docs' Common
Gotchas notebook (CustomClass._tree_flatten returns aux_data={'mul': self.mul}): JAX accepts it,
comparing the static data with ==."""
import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad import tree_util


class Scaled:
    def __init__(self, x, mul):
        self.x, self.mul = x, mul


tree_util.register_pytree_node(Scaled, lambda s: ((s.x,), {"mul": s.mul}),
                               lambda aux, children: Scaled(*children, **aux))


def test_structures_with_dict_aux_hash_and_compare_by_value():
    a, b = (tree_util.tree_structure(Scaled(1.0, m)) for m in (True, True))
    c = tree_util.tree_structure(Scaled(1.0, False))
    assert a == b and hash(a) == hash(b) and a != c


@pytest.mark.parametrize("backend", ["compiled", pytest.param("interpreter", marks=pytest.mark.interpreter)])
def test_jit_retraces_when_the_dict_aux_changes(backend):
    traces = []

    @jg.jit
    def calc(s, y):
        traces.append(s.mul)
        return s.x * y if s.mul else y
    assert float(calc(Scaled(2.0, True), 3.0)) == 6.0
    assert float(calc(Scaled(5.0, True), 3.0)) == 15.0       # same structure: no new trace
    assert float(calc(Scaled(2.0, False), 3.0)) == 3.0
    assert traces == [True, False]


def test_grad_and_vmap_through_a_dict_aux_node():
    s = Scaled(np.array([1.0, 2.0], np.float32), True)
    g = jg.grad(lambda s: jnp.sum(s.x ** 2) if s.mul else 0.0)(s)
    assert isinstance(g, Scaled) and g.mul is True
    np.testing.assert_allclose(np.asarray(g.x), [2.0, 4.0])
    out = jg.vmap(lambda s: s.x * 2)(Scaled(np.arange(3.0, dtype=np.float32), True))
    np.testing.assert_allclose(np.asarray(out), [0.0, 2.0, 4.0])
