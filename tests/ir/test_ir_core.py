"""The IR core: printer/parser round trip for every primitive, the verifier's rejections, and the
reference interpreter."""
import numpy as np
import pytest

from jitgrad import ir
from jitgrad.ir import Builder, Graph, Literal, Node, Op, TensorType, Value
from jitgrad.ir.primitives import select
from jitgrad.ir.registry import REFERENCE

FLOAT_UNARY, NUMERIC_UNARY = select(group="float_unary"), select(group="numeric_unary")
INTEGER_BINARY, ARITH_BINARY = select(group="integer_binary"), select(group="arith")
COMPARE, LOGICAL_BINARY = select(group="compare"), select(group="logical", arity=2)
# the ops holding graphs (kernel, control flow, custom_vjp_call) have tests of their own
PRIMITIVES = sorted(set(Op) - select(kind="kernel") - select(kind="control") - select(kind="custom"),
                    key=str)

F32, F64, I64, B = (np.dtype(d) for d in ("float32", "float64", "int64", "bool"))
C64, C128 = np.dtype("complex64"), np.dtype("complex128")


def T(shape, dtype=F32):
    return TensorType(tuple(shape), np.dtype(dtype))


# op -> (input types, params): one well-typed node per primitive
SPECS = {
    **{op: ([T((2, 3))], {}) for op in FLOAT_UNARY | NUMERIC_UNARY},
    Op.isnan: ([T((2, 3))], {}), Op.isinf: ([T((2, 3), F64)], {}),
    Op.logical_not: ([T((4,), B)], {}),
    Op.signbit: ([T((2, 3))], {}), Op.bitwise_not: ([T((2, 3), I64)], {}),
    **{op: ([T((2, 3), I64), T((3,), I64)], {}) for op in INTEGER_BINARY},
    Op.convert: ([T((2, 3))], {"dtype": I64}),
    Op.stop_gradient: ([T((2,))], {}),
    **{op: ([T((2, 3)), T((3,))], {}) for op in ARITH_BINARY | COMPARE},
    **{op: ([T((2, 1), B), T((1, 3), B)], {}) for op in LOGICAL_BINARY},
    Op.select: ([T((2, 3), B), T((2, 3)), T((3,))], {}),
    Op.reduce_sum: ([T((2, 3, 4))], {"axes": (0, 2)}),
    Op.reduce_max: ([T((2, 3))], {"axes": (1,)}),
    Op.reduce_min: ([T((2, 3), I64)], {"axes": (0, 1)}),
    Op.reduce_prod: ([T((2, 3))], {"axes": ()}),
    Op.argmax: ([T((2, 3))], {"axes": (1,)}), Op.argmin: ([T((2, 3))], {"axes": (0,)}),
    Op.cumsum: ([T((2, 3))], {"axis": 1}), Op.sort: ([T((5,))], {"axis": 0}),
    Op.argsort: ([T((2, 3))], {"axis": 0}),
    Op.reshape: ([T((2, 3))], {"shape": (3, 1, 2)}),
    Op.transpose: ([T((2, 3, 4))], {"perm": (2, 0, 1)}),
    Op.broadcast_to: ([T((3, 1))], {"shape": (2, 3, 4)}),
    Op.slice: ([T((5, 6))], {"start": (1, 0), "stop": (4, 6), "step": (2, 3)}),
    Op.rev: ([T((2, 3))], {"axes": (0, 1)}),
    Op.pad: ([T((2, 3))], {"lo": (1, 0), "hi": (0, 2), "value": -1.5}),
    Op.concatenate: ([T((2, 3)), T((1, 3)), T((4, 3))], {"axis": 0}),
    Op.take: ([T((4, 5)), T((2, 3), I64)], {"axis": 1}),
    Op.scatter_add: ([T((3,), I64), T((2, 3))], {"shape": (2, 5), "axis": 1}),
    Op.matmul: ([T((2, 2, 3)), T((3, 4))], {}),
    Op.im2col: ([T((2, 4, 9))], {"starts": ((0, 0), (2, 3)), "rows": 2, "length": 5}),
    Op.col2im: ([T((2, 4, 5))], {"starts": ((0, 0), (2, 3)), "rows": 2, "length": 5,
                                 "size": (4, 9)}),
    **{op: ([T((2, 3, 3), F64)], {}) for op in (Op.cholesky, Op.eigh, Op.slogdet)},
    Op.svd: ([T((2, 4, 3), F64)], {"full_matrices": False}),
    Op.qr: ([T((4, 3), F64)], {"mode": "complete"}),
    Op.solve: ([T((3, 3), F64), T((3, 2), F64)], {}),
    Op.real: ([T((2, 3), C64)], {}), Op.imag: ([T((2,), C128)], {}),
    Op.conj: ([T((2, 3), C64)], {}), Op.complex: ([T((2, 3), F64), T((3,), F64)], {}),
    Op.fft: ([T((2, 4, 6), C64)], {"fft_type": "ifft", "lengths": (4, 6)}),
    Op.constant: ([], {"value": Literal(np.array([[1.5, -2.0], [np.inf, 0.25]], np.float32))}),
}


def one_node_graph(op):
    types, params = SPECS[op]
    b = Builder()
    ins = [b.add_input(t) for t in types]
    outs = b.emit(op, ins, params, source_info="model.py:12")
    b.graph.outputs = list(outs)
    b.graph.name = f"g_{op}"
    return b.graph


def _inputs(graph, rng):
    out = []
    for v in graph.inputs:
        t = v.type
        if t.dtype == I64:
            hi = 2 if t.shape == (3,) else 4           # valid take / scatter indices
            out.append(rng.integers(0, hi, t.shape).astype(I64))
        elif t.dtype == B:
            out.append(rng.random(t.shape) < 0.5)
        else:
            out.append(rng.uniform(0.1, 0.9, t.shape).astype(t.dtype))
    return out


def test_every_primitive_has_a_spec():
    assert set(PRIMITIVES) == set(SPECS), f"add a SPECS entry for {set(PRIMITIVES) - set(SPECS)}"


@pytest.mark.parametrize("op", PRIMITIVES, ids=str)
def test_round_trip_every_primitive(op):
    g = one_node_graph(op)
    ir.verify(g)
    text = str(g)
    assert f" = {op}" in text and "# model.py:12" in text
    back = ir.parse(text)
    assert str(back) == text
    ir.verify(back)
    (node,) = back.nodes
    assert node.op == op and node.source_info == "model.py:12"
    assert node.params == g.nodes[0].params


@pytest.mark.parametrize("op", PRIMITIVES, ids=str)
def test_interpreter_runs_every_primitive(op):
    g = one_node_graph(op)
    args = _inputs(g, np.random.default_rng(0))
    outs = ir.interpret(g, args)
    (node,) = g.nodes
    assert [(o.shape, o.dtype) for o in outs] == [(v.type.shape, v.type.dtype) for v in node.outputs]
    want = REFERENCE[op](*args, **node.params)
    want = want if isinstance(want, tuple) else (want,)        # several outputs (eigh, svd)
    for out, w in zip(outs, want):
        np.testing.assert_array_equal(out, np.asarray(w).astype(out.dtype))
    for again, out in zip(ir.interpret(ir.parse(str(g)), args), outs):
        np.testing.assert_array_equal(again, out)


def test_printed_form():
    b = Builder()
    x, w = b.add_input(T((256, 784))), b.add_input(T((784, 10)))
    h = b.emit1(Op.matmul, [x, w], source_info="model.py:12")
    t = b.emit1(Op.tanh, [h])
    s = b.emit1(Op.reduce_sum, [t], {"axes": (0, 1)})
    b.graph.outputs, b.graph.name, b.graph.arg_names = [s], "loss", ["x", "w"]
    text = str(b.graph)
    assert text == (
        "graph loss(%x: f32[256,784], %w: f32[784,10]) -> f32[] {\n"
        + "  %0 = matmul %x, %w : f32[256,10]".ljust(48) + "# model.py:12\n"
        + "  %1 = tanh %0 : f32[256,10]\n"
        + "  %2 = reduce_sum %1 axes=(0,1) : f32[]\n"
        + "  return %2\n}")
    assert str(ir.parse(text)) == text


def test_multiple_outputs_and_large_constants_round_trip():
    b = Builder()
    x = b.add_input(T((4, 5), F64))
    big = b.constant(np.arange(20.0).reshape(4, 5))
    y = b.emit1(Op.add, [x, big])
    b.graph.outputs = [y, x]
    text = str(b.graph)
    assert "@" in text and "-> (f64[4,5], f64[4,5])" in text
    with pytest.raises(ir.ParseError, match="not among the given constants"):
        ir.parse(text)
    back = ir.parse(text, constants=b.graph.constants)
    assert str(back) == text
    a = np.ones((4, 5))
    np.testing.assert_array_equal(ir.interpret(back, [a])[0], a + np.arange(20.0).reshape(4, 5))


def test_constant_scalars_round_trip_exactly():
    for v in (np.float32(0.1), np.float64(1 / 3), np.float32(-np.inf), np.nan, 7, True, 1e-30):
        b = Builder()
        b.graph.outputs = [b.constant(np.asarray(v))]
        back = ir.parse(str(b.graph))
        np.testing.assert_array_equal(back.nodes[0].params["value"].array,
                                      b.graph.nodes[0].params["value"].array)


def test_parse_errors_name_the_line():
    with pytest.raises(ir.ParseError, match="line 2: %9 is used before it is defined"):
        ir.parse("graph f(%a: f32[2]) -> f32[2] {\n  %0 = exp %9 : f32[2]\n  return %0\n}")
    with pytest.raises(ir.ParseError, match="expected a dtype"):
        ir.parse("graph f(%a: q32[2]) -> f32[2] {\n  return %a\n}")


# ----------------------------------------------------------------------------- verifier

def _two_node_graph():
    b = Builder()
    x = b.add_input(T((3,)))
    y = b.emit1(Op.exp, [x], source_info="net.py:7")
    z = b.emit1(Op.neg, [y], source_info="net.py:8")
    b.graph.outputs = [z]
    return b.graph


def test_verifier_accepts_a_valid_graph():
    g = _two_node_graph()
    assert ir.verify(g) is g


def test_verifier_rejects_use_before_def():
    g = _two_node_graph()
    stray = Value(T((3,)))
    g.nodes[1] = Node(Op.neg, (stray,), {}, g.nodes[1].outputs, "net.py:8")
    with pytest.raises(ir.VerifyError, match=r"node 1 \(neg, net.py:8\).*use before definition"):
        ir.verify(g)


def test_verifier_rejects_out_of_order_nodes():
    g = _two_node_graph()
    g.nodes.reverse()
    with pytest.raises(ir.VerifyError, match=r"node 0 \(neg, net.py:8\).*out-of-order"):
        ir.verify(g)


def test_verifier_rejects_a_cycle():
    g = _two_node_graph()
    exp_node, neg_node = g.nodes
    g.nodes[0] = Node(Op.add, (g.inputs[0], neg_node.output), {}, exp_node.outputs, "net.py:7")
    with pytest.raises(ir.VerifyError, match=r"node 0 \(add, net.py:7\).*cycle"):
        ir.verify(g)


def test_verifier_rejects_a_wrong_declared_type():
    g = _two_node_graph()
    n = g.nodes[1]
    g.nodes[1] = Node(n.op, n.inputs, {}, (Value(T((3,), F64)),), n.source_info)
    g.outputs = [g.nodes[1].output]
    with pytest.raises(ir.VerifyError, match=r"node 1 \(neg, net.py:8\): declared type f64\[3\] "
                                             r"but the type rule gives f32\[3\]"):
        ir.verify(g)


def test_verifier_rejects_an_ill_typed_node_and_shows_the_ir():
    g = _two_node_graph()
    n = g.nodes[1]
    g.nodes[1] = Node(Op.reduce_sum, n.inputs, {"axes": (3,)}, n.outputs, n.source_info)
    with pytest.raises(ir.VerifyError) as e:
        ir.verify(g)
    msg = str(e.value)
    assert "node 1 (reduce_sum, net.py:8)" in msg and "axis 3 is out of range for f32[3]" in msg
    assert "> " in msg and "%0 = exp %a0" in msg       # the IR around the node, marked


def test_verifier_rejects_non_ssa_and_undefined_outputs():
    g = _two_node_graph()
    n = g.nodes[1]
    g.nodes[1] = Node(n.op, n.inputs, {}, g.nodes[0].outputs, n.source_info)
    with pytest.raises(ir.VerifyError, match="defined twice"):
        ir.verify(g)
    g = _two_node_graph()
    g.outputs = [Value(T((3,)))]
    with pytest.raises(ir.VerifyError, match="returns a value that is never defined"):
        ir.verify(g)


def test_builder_type_errors_name_the_source_line():
    b = Builder()
    x, y = b.add_input(T((2, 3))), b.add_input(T((4,)))
    with pytest.raises(ir.ShapeError, match=r"add: cannot broadcast shapes f32\[2,3\] and "
                                            r"f32\[4\] \(at loss.py:3\)"):
        b.emit(Op.add, [x, y], source_info="loss.py:3")


# ----------------------------------------------------------------------------- interpreter

def test_interpreter_runs_a_graph_and_checks_its_inputs():
    g = ir.parse("graph f(%x: f32[2,3], %y: f32[3]) -> (f32[2,3], f32[]) {\n"
                 "  %0 = mul %x, %y : f32[2,3]\n"
                 "  %1 = reduce_sum %0 axes=(0,1) : f32[]\n"
                 "  return %0, %1\n}")
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    y = np.array([1, 2, 3], np.float32)
    a, s = ir.interpret(g, [x, y])
    np.testing.assert_array_equal(a, x * y)
    assert s == (x * y).sum() and s.dtype == F32
    with pytest.raises(TypeError, match=r"expected an input of type f32\[3\], got float64\[3\]"):
        ir.interpret(g, [x, y.astype(F64)])
    with pytest.raises(TypeError, match="takes 2 inputs, got 1"):
        ir.interpret(g, [x])


def test_interpreter_missing_rule_names_the_op():
    g = Graph()
    x = Value(T((2,)))
    g.inputs, g.outputs = [x], [x]
    g.nodes.append(Node("mystery", (x,), {}, (Value(T((2,))),)))
    with pytest.raises(ir.MissingRuleError, match="op 'mystery' has no NumPy reference rule"):
        ir.interpret(g, [np.zeros(2, np.float32)])
