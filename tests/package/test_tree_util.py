"""jg.tree_util: tuples, lists, dicts, None, namedtuples, OrderedDicts and registered classes."""
from collections import OrderedDict, namedtuple

import numpy as np
import pytest

import jitgrad as jg
from jitgrad import tree_util as tu

Point = namedtuple("Point", ["x", "y"])


class Pair:
    def __init__(self, a, b, tag):
        self.a, self.b, self.tag = a, b, tag


tu.register_pytree_node(Pair, lambda p: ([p.a, p.b], p.tag), lambda tag, ch: Pair(*ch, tag))


@tu.register_pytree_node_class
class Wrapped:
    def __init__(self, inner):
        self.inner = inner

    def tree_flatten(self):
        return [self.inner], None

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(children[0])


class SubPair(Pair):
    """A subclass finds its base's registration through the MRO."""


TREE = {"b": [1, (2, None)], "a": Point(3, 4), "c": OrderedDict([("z", 5), ("y", 6)]),
        "d": Pair(7, Wrapped(8), "t"), "e": ()}


def test_flatten_order_and_round_trip():
    leaves, td = tu.tree_flatten(TREE)
    assert leaves == [3, 4, 1, 2, 5, 6, 7, 8]        # dict keys sorted; OrderedDict in order
    assert td.num_leaves == 8
    back = tu.tree_unflatten(td, leaves)
    assert back["b"] == [1, (2, None)] and isinstance(back["a"], Point) and back["a"] == (3, 4)
    assert isinstance(back["c"], OrderedDict) and list(back["c"]) == ["z", "y"]
    assert isinstance(back["d"], Pair) and back["d"].tag == "t" and back["d"].b.inner == 8
    assert back["e"] == ()


def test_structure_equality_is_the_jit_cache_key():
    assert tu.tree_structure((1, 2)) == tu.tree_structure((3, 4))
    assert hash(tu.tree_structure({"a": 1})) == hash(tu.tree_structure({"a": 9}))
    different = [(1, 2), [1, 2], (1, (2,)), {"a": 1, "b": 2}, {"a": 1, "c": 2}, Point(1, 2),
                 OrderedDict(a=1, b=2), OrderedDict(b=2, a=1), Pair(1, 2, "t"), Pair(1, 2, "u"),
                 (1, None), (1,)]
    structs = [tu.tree_structure(t) for t in different]
    assert len(set(structs)) == len(structs)


def test_leaves_none_and_scalars():
    assert tu.tree_leaves(None) == [] and tu.tree_leaves([None, ()]) == []
    assert tu.tree_leaves(5) == [5] and tu.tree_structure(5).num_leaves == 1
    assert tu.tree_unflatten(tu.tree_structure(None), []) is None


def test_tree_map():
    out = tu.tree_map(lambda v: v * 10, TREE)
    assert tu.tree_leaves(out) == [30, 40, 10, 20, 50, 60, 70, 80]
    assert isinstance(out["d"], Pair) and out["d"].tag == "t"
    assert tu.tree_map(lambda a, b: a + b, (1, [2]), (10, [20])) == (11, [22])
    with pytest.raises(ValueError, match="different structures"):
        tu.tree_map(lambda a, b: a, (1, 2), (1, 2, 3))


def test_is_leaf_and_subclasses():
    leaves, td = tu.tree_flatten([(1, 2), (3,)], is_leaf=lambda x: isinstance(x, tuple))
    assert leaves == [(1, 2), (3,)]
    sub = SubPair(1, 2, "s")
    back = tu.tree_unflatten(tu.tree_structure(sub), ["p", "q"])
    assert tu.tree_leaves(sub) == [1, 2] and back.a == "p" and back.tag == "s"


def test_flattening_leaves_no_reference_cycles():
    """Leaves are freed when the last reference goes (refcounting), not at the next garbage
    collection: flatten/unflatten were self-calling closures (a cycle holding the leaves), so a
    jitted step's new parameters outlived the step and the caching allocator could not reuse
    their storage (fresh pages, ~4 ms of faults, on most MLP steps)."""
    import gc
    import weakref
    gc.collect()
    gc.disable()
    try:
        leaf = np.ones(3)
        ref = weakref.ref(leaf)
        leaves, treedef = tu.tree_flatten({"a": [leaf, (2.0, None)], "b": leaf})
        rebuilt = tu.tree_unflatten(treedef, leaves)
        assert rebuilt["b"] is leaf
        del leaf, leaves, rebuilt
        assert ref() is None
        step = jg.jit(lambda p: {"w": p["w"] * 2.0, "b": [p["b"] + 1.0]})
        out = step({"w": np.ones((64, 64), np.float32), "b": np.zeros(64, np.float32)})
        w = weakref.ref(out["w"])
        del out
        assert w() is None
    finally:
        gc.enable()
