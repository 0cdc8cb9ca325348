"""Tracing and @jit: the signature cache (counting how often the Python body runs), static
arguments, pytrees in and out, lower / make_graph, captured constants, recompile explanations."""
from collections import namedtuple

import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad import ir, tree_util


def counted(fn):
    """fn wrapped so that `calls` counts how many times its Python body ran."""
    calls = []

    def body(*args, **kwargs):
        calls.append(1)
        return fn(*args, **kwargs)
    body.__name__ = fn.__name__
    return body, calls


def test_same_signature_never_reruns_the_body():
    body, calls = counted(lambda x, y: x * 2 + y)
    f = jg.jit(body)
    x, y = jg.tensor([1.0, 2.0]), jg.tensor([3.0, 4.0])
    assert f(x, y).tolist() == [5.0, 8.0]
    assert f(y, x).tolist() == [7.0, 10.0]                  # new values, same signature
    assert f(np.array([0.0, 1.0], np.float32), y).tolist() == [3.0, 6.0]   # NumPy arrays too
    assert len(calls) == 1 and f.trace_count == 1


@pytest.mark.parametrize("change", ["shape", "dtype", "rank", "scalar kind"])
def test_new_shape_or_dtype_retraces(change):
    body, calls = counted(lambda x: x + 1)
    f = jg.jit(body)
    first, other = {
        "shape": (jg.zeros(2), jg.zeros(3)),
        "dtype": (jg.zeros(2), jg.zeros(2, dtype=jg.float64)),
        "rank": (jg.zeros(2), jg.zeros(2, 1)),
        "scalar kind": (1.5, 2),
    }[change]
    f(first)
    f(first)
    assert len(calls) == 1
    f(other)
    assert len(calls) == 2
    f(first)
    f(other)
    assert len(calls) == 2          # both signatures stay cached


def test_python_scalar_values_do_not_retrace():
    body, calls = counted(lambda x, s: x * s)
    f = jg.jit(body)
    assert f(jg.ones(2), 2.0).tolist() == [2.0, 2.0]
    assert f(jg.ones(2), 3.0).tolist() == [3.0, 3.0]
    assert len(calls) == 1
    assert f(jg.ones(2), 3.0).dtype == jg.float32         # a Python float stays weak


def test_static_argnums():
    body, calls = counted(lambda x, n, mode: x * n if mode == "mul" else x + n)
    f = jg.jit(body, static_argnums=(1, 2))
    x = jg.tensor([1.0, 2.0])
    assert f(x, 3, "mul").tolist() == [3.0, 6.0]
    assert f(x, 3, "mul").tolist() == [3.0, 6.0]
    assert len(calls) == 1
    assert f(x, 4, "mul").tolist() == [4.0, 8.0]          # a new static value retraces
    assert f(x, 4, "add").tolist() == [5.0, 6.0]
    assert len(calls) == 3
    g = jg.jit(lambda x, shape: jnp.reshape(x, shape), static_argnums=1)
    assert g(jg.zeros(6), (2, 3)).shape == (2, 3)
    with pytest.raises(TypeError, match="static argument 1 of type list is not hashable"):
        g(jg.zeros(6), [2, 3])


def test_decorator_forms():
    @jg.jit
    def a(x):
        return x + 1

    @jg.jit(static_argnums=1)
    def b(x, k):
        return x * k
    assert a(jg.ones(1)).tolist() == [2.0] and b(jg.ones(1), 3).tolist() == [3.0]
    assert a.__name__ == "a"


Pair = namedtuple("Pair", ["left", "right"])


@tree_util.register_pytree_node_class
class Box:
    def __init__(self, value, label):
        self.value, self.label = value, label

    def tree_flatten(self):
        return [self.value], self.label

    @classmethod
    def tree_unflatten(cls, label, children):
        return cls(children[0], label)


def test_pytrees_in_and_out():
    body, calls = counted(lambda tup, lst, d, none, pair, box: {
        "sum": tup[0] + lst[1] + d["w"] + pair.right + box.value,
        "tuple": (tup[1] * 2, None),
        "list": [d["b"]],
        "pair": Pair(pair.left, pair.right * 3),
        "box": Box(box.value + 1, box.label),
    })
    f = jg.jit(body)
    one = jg.ones(2)
    args = ((one, one * 2), [one, one * 3], {"w": one, "b": one * 5}, None, Pair(one, one * 4),
            Box(one * 6, "tag"))
    for _ in range(2):
        out = f(*args)
        assert out["sum"].tolist() == [15.0, 15.0]
        assert out["tuple"][0].tolist() == [4.0, 4.0] and out["tuple"][1] is None
        assert isinstance(out["list"], list) and out["list"][0].tolist() == [5.0, 5.0]
        assert isinstance(out["pair"], Pair) and out["pair"].right.tolist() == [12.0, 12.0]
        assert isinstance(out["box"], Box) and out["box"].label == "tag"
        assert out["box"].value.tolist() == [7.0, 7.0]
    assert len(calls) == 1


def test_new_pytree_structure_retraces():
    body, calls = counted(lambda p: sum(tree_util.tree_leaves(p)))
    f = jg.jit(body)
    one = jg.ones(2)
    f((one, one))
    f((one, one))
    f([one, one])
    f({"a": one, "b": one})
    f({"a": one, "c": one})
    f((one, one, one))
    assert len(calls) == 5


def test_keyword_arguments():
    body, calls = counted(lambda x, scale=1.0: x * scale)
    f = jg.jit(body)
    assert "%scale: f32[]" in jg.jit(body).lower(jg.ones(2), scale=jg.tensor(3.0)).ir
    assert f(jg.ones(2), scale=jg.tensor(3.0)).tolist() == [3.0, 3.0]
    assert f(jg.ones(2), scale=jg.tensor(4.0)).tolist() == [4.0, 4.0]
    assert len(calls) == 2          # once for lower, once for the cached call


def test_jit_inside_jit_and_grad():
    inner = jg.jit(lambda x: jnp.sin(x) * 2)
    outer = jg.jit(lambda x: inner(x) + 1)
    x = jg.tensor([0.5, 1.0])
    np.testing.assert_allclose(outer(x).numpy(), np.sin([0.5, 1.0]) * 2 + 1, rtol=1e-6)
    g = jg.grad(lambda x: inner(x).sum())(x)
    np.testing.assert_allclose(g.numpy(), 2 * np.cos([0.5, 1.0]), rtol=1e-6)


# ----------------------------------------------------------------------------- lower / make_graph

def _mlp(x, w):
    return jnp.tanh(x @ w).sum()


@pytest.mark.parametrize("args", [
    (jg.zeros(8, 4), jg.zeros(4, 3)),
    (np.zeros((8, 4), np.float32), np.zeros((4, 3), np.float32)),
    (jg.ShapeDtype((8, 4), jg.float32), jg.ShapeDtype((4, 3), "float32")),
], ids=["tensors", "numpy", "ShapeDtype"])
def test_lower_accepts_tensors_numpy_and_shapedtype(args):
    lowered = jg.jit(_mlp).lower(*args)
    text = lowered.ir
    assert text.startswith("graph _mlp(%x: f32[8,4], %w: f32[4,3]) -> f32[] {")
    assert "matmul %x, %w : f32[8,3]" in text and "tanh" in text and "reduce_sum" in text
    assert "test_jit_tracing.py:" in text                  # nodes record the user's line
    assert str(ir.parse(text)) == text
    ir.verify(lowered.graph)


def test_lower_does_not_populate_the_call_cache_but_compiles():
    body, calls = counted(lambda x: x * 2)
    f = jg.jit(body)
    compiled = f.lower(jg.ShapeDtype((3,), "float32")).compile()
    assert compiled(jg.ones(3)).tolist() == [2.0, 2.0, 2.0]
    assert len(calls) == 1


def test_make_graph_returns_the_graph():
    g = jg.make_graph(_mlp)(jg.zeros(2, 4), jg.zeros(4, 3))
    assert isinstance(g, ir.Graph) and [n.op for n in g.nodes] == ["matmul", "tanh", "reduce_sum"]
    assert [v.type for v in g.inputs] == [ir.TensorType((2, 4), np.dtype("float32")),
                                          ir.TensorType((4, 3), np.dtype("float32"))]
    assert all(n.source_info.startswith("test_jit_tracing.py:") for n in g.nodes)
    x, w = np.ones((2, 4), np.float32), np.full((4, 3), 0.1, np.float32)
    np.testing.assert_allclose(ir.interpret(g, [x, w])[0], np.tanh(x @ w).sum(), rtol=1e-6)


def test_make_graph_with_static_argnums():
    g = jg.make_graph(lambda x, k: x * k, static_argnums=1)(jg.zeros(3), 5)
    assert len(g.inputs) == 1 and "constant" in str(g) and "5" in str(g)


def test_captured_constants_become_ir_constants():
    table = np.array([1.5, 2.5, 3.5], np.float32)
    scale = 4.0

    def f(x):
        return x * scale + table + jnp.asarray([7.0, 8.0, 9.0])
    g = jg.make_graph(f)(jg.zeros(3))
    consts = [n.params["value"].array for n in g.nodes if n.op == "constant"]
    assert len(g.inputs) == 1
    assert any(c.shape == () and c == 4.0 for c in consts)                 # Python scalar
    assert any(np.array_equal(c, table) for c in consts)                  # NumPy array
    assert any(np.array_equal(c, [7.0, 8.0, 9.0]) for c in consts)        # eager tensor
    assert "constant value=4.0 : f32[]" in str(g)
    out = jg.jit(f)(jg.ones(3))
    np.testing.assert_allclose(out.numpy(), [4 + 1.5 + 7, 4 + 2.5 + 8, 4 + 3.5 + 9])


def test_numpy_scalars_are_weak_constants():
    """A NumPy scalar meeting a traced array is weak, like a Python scalar (PyTorch's rule)."""
    g = jg.make_graph(lambda x: x * np.float64(2.0))(jg.zeros(3))
    assert "constant value=2.0 : f32[]" in str(g) and g.outputs[0].type.dtype == np.float32
    g = jg.make_graph(lambda x: x * (1.0 / np.sqrt(32)))(jg.zeros(3))
    assert g.outputs[0].type.dtype == np.float32


def test_outputs_may_be_constants_or_inputs():
    f = jg.jit(lambda x: (x, 3.0, np.arange(2)))
    x, c, a = f(jg.tensor([1.0]))
    assert x.tolist() == [1.0] and c.item() == 3.0 and a.tolist() == [0, 1]


def test_explain_recompiles(monkeypatch, capsys):
    monkeypatch.setenv("JITGRAD_EXPLAIN_RECOMPILES", "1")

    def step(params, batch, lr):
        return tree_util.tree_leaves(params)[0] * lr + batch.sum()
    f = jg.jit(step, static_argnums=2)
    p, b = jg.zeros(3), jg.zeros(2, 3)
    f(p, b, 0.1)
    assert "retracing" not in capsys.readouterr().err
    f(p, jg.zeros(4, 3), 0.1)
    err = capsys.readouterr().err
    assert "retracing step" in err and "argument 'batch': f32[2,3] -> f32[4,3]" in err
    assert "params" not in err
    f(p, jg.zeros(4, 3), 0.2)
    assert "static argument 2: 0.1 -> 0.2" in capsys.readouterr().err
    f(p.astype("float64"), jg.zeros(4, 3), 0.2)
    assert "argument 'params': f32[3] -> f64[3]" in capsys.readouterr().err
    f((p,), jg.zeros(4, 3), 0.2)
    assert "structure changed" in capsys.readouterr().err


def test_no_explanation_without_the_flag(monkeypatch, capsys):
    monkeypatch.delenv("JITGRAD_EXPLAIN_RECOMPILES", raising=False)
    f = jg.jit(lambda x: x)
    f(jg.zeros(1))
    f(jg.zeros(2))
    assert "retracing" not in capsys.readouterr().err


def test_jit_on_meta_tensors_runs_type_rules_only():
    f = jg.jit(lambda a, b: jnp.tanh(a @ b))
    out = f(jg.ones(10**6, 2 * 10**6, device="meta"), jg.ones(2 * 10**6, 3, device="meta"))
    assert out.device == "meta" and out.shape == (10**6, 3)


def test_trace_and_compile_pause_the_garbage_collector():
    """The collector is off while a function is traced and compiled (jitgrad/transforms/
    gc_pause.py), on again after, and left off when the caller had switched it off."""
    import gc

    seen = []

    def f(x):
        seen.append(gc.isenabled())
        return x * 2

    jf = jg.jit(f)
    assert gc.isenabled()
    np.testing.assert_array_equal(np.asarray(jf(np.ones(3, np.float32))), 2)
    assert seen == [False] and gc.isenabled()
    gc.disable()
    try:
        jg.jit(f)(np.ones(4, np.float32))
        assert not gc.isenabled()
    finally:
        gc.enable()
