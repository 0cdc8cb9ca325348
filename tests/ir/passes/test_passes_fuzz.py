"""Optimized equals unoptimized: the full pipeline (canonicalize, fold, cse, dce, fuse) must give
bit-identical results to the reference interpreter on the unoptimized graph — every rewrite is
exact and fusion only regroups ops — over random well-typed graphs, every op record of the older
table and every record the differential fuzzers draw from (tests/support/opinfo/fuzz.py).

The random graphs' elementwise, reduction and shape steps are the op database's float records
marked `fuzz=` whose function traces to one IR primitive or a small composite (at most SMALL
ops): each step traces the record's fuzz line and copies its nodes in, so a new record with a
fuzz kind is drawn here too. Reshapes, transposes, products with a weight input and broadcasts
are emitted as primitives."""
import functools

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

import jitgrad as jg
from jitgrad import ir
from jitgrad.ir import Op
from jitgrad.ir.passes.fusion_rules import analyze_kernel
from jitgrad.ir.passes.manager import run_pipeline
from tests.support.op_records import RECORDS, fuzz_ops, iter_cases, make_args
from tests.support.opinfo.fuzz import FAMILIES, KINDS, SCOPE

INPUT_SHAPES = [(3, 4), (4,), (1, 4), (3, 1), (), (2, 3, 4)]
SCALARS = [0.0, -0.0, 1.0, 2.0, -1.5, 0.5]
SMALL = 10          # ops (constants aside) a record's function may trace to


def _size(op) -> int:
    """The ops, constants aside, the record's function traces to on its last case."""
    rec = op.record
    graph = jg.make_graph(rec.jg)(*make_args(rec, rec.cases[-1], np.float32))
    return sum(n.op != Op.constant for n in graph.nodes)


@functools.cache
def small_ops(kind) -> list:
    """The float FuzzOps of `kind` whose record is one primitive or a small composite."""
    return [op for op in fuzz_ops(kind) if _size(op) <= SMALL]


@functools.lru_cache(maxsize=None)
def _traced(text, types):
    """The graph of a fuzz line over inputs a, b of `types` ((shape, dtype name) pairs)."""
    names = "ab"[:len(types)]
    fn = eval(f"lambda {', '.join(names)}: {text}", dict(SCOPE))   # noqa: S307 - database text
    return jg.make_graph(fn)(*[np.zeros(s, d) for s, d in types])


def emit_record(b, op, inputs, **params):
    """Emit FuzzOp `op` on `inputs` (Values) into builder `b`: its traced nodes, copied in."""
    graph = _traced(op.line(*"ab"[:len(inputs)], **params),
                    tuple((v.type.shape, v.type.dtype.name) for v in inputs))
    env = dict(zip(graph.inputs, inputs))
    for n in graph.nodes:
        env.update(zip(n.outputs, b.emit(n.op, [env[v] for v in n.inputs], n.params)))
    return env[graph.outputs[0]]


def _broadcastable(a, b):
    try:
        np.broadcast_shapes(a.type.shape, b.type.shape)
        return True
    except ValueError:
        return False


@st.composite
def random_graphs(draw):
    dtype = draw(st.sampled_from([np.float32, np.float64]))
    b = ir.Builder(ir.Graph(name="fuzz"))
    n_inputs = draw(st.integers(1, 3))
    vals = [b.add_input(ir.TensorType(draw(st.sampled_from(INPUT_SHAPES)), np.dtype(dtype)))
            for _ in range(n_inputs)]
    pick = lambda pool: pool[draw(st.integers(0, len(pool) - 1))]   # noqa: E731
    draw_op = lambda kind: draw(st.sampled_from(small_ops(kind)))   # noqa: E731

    def const():
        return b.constant(np.asarray(draw(st.sampled_from(SCALARS)), dtype))

    def unary(x):
        return emit_record(b, draw_op("unary"), (x,))

    def binary(x):
        other = [v for v in vals if _broadcastable(x, v)] + [const()]
        y = pick(other)
        args = (x, y) if draw(st.booleans()) else (y, x)
        return emit_record(b, draw_op("binary"), args)

    def reduce(x):
        if x.type.ndim == 0:
            return None
        axes = tuple(sorted(draw(st.sets(st.integers(0, x.type.ndim - 1), min_size=1))))
        keep = draw(st.booleans())
        r = emit_record(b, draw_op("reduce"), (x,), axis=axes, keepdims=keep)
        if not keep:
            return r
        return emit_record(b, draw_op("binary"), (x, r))    # softmax-like: broadcast back

    def shape_op(x):
        op = draw_op("shape")
        if op.shape(x.type.shape) is None:        # the reference rejects the shape
            return None
        return emit_record(b, op, (x,))

    def reshape(x):
        shape = draw(st.sampled_from([(x.type.size,), (1,) + x.type.shape, x.type.shape + (1,)]))
        return b.emit1(Op.reshape, (x,), {"shape": shape})

    def transpose(x):
        if x.type.ndim < 2:
            return None
        return b.emit1(Op.transpose, (x,), {"perm": tuple(reversed(range(x.type.ndim)))})

    def matmul(x):
        if x.type.ndim != 2:
            return None
        w = b.add_input(ir.TensorType((x.type.shape[1], 5), np.dtype(dtype)))
        vals.append(w)
        return b.emit1(Op.matmul, (x, w))

    def broadcast(x):
        return b.emit1(Op.broadcast_to, (x,), {"shape": (2,) + x.type.shape})

    makers = [unary, unary, binary, binary, reduce, reduce, shape_op, reshape, transpose, matmul,
              broadcast]
    for _ in range(draw(st.integers(1, 7))):
        x = pick(vals)
        if x.type.size > 4096:
            continue
        out = draw(st.sampled_from(makers))(x)
        if out is not None:
            vals.append(out)
    produced = vals[n_inputs:] or vals
    outs = [produced[-1]] + draw(st.lists(st.sampled_from(produced), max_size=2))
    b.graph.outputs = outs
    return b.graph


def _args(graph, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.uniform(-2, 2, v.type.shape).astype(v.type.dtype) for v in graph.inputs]


def assert_same(graph):
    optimized, schedule, plan = run_pipeline(graph)
    assert all(k.op == "kernel" for k in schedule)
    for k in schedule:
        assert analyze_kernel(k).kind == k.params["kind"]
    args = _args(graph)
    want = ir.interpret(graph, args)
    got = ir.interpret(optimized, args)
    for w, g in zip(want, got):
        np.testing.assert_array_equal(g, w)
    plan.check()


@given(random_graphs())
def test_pipeline_preserves_random_graphs(graph):
    assert_same(graph)


def _records():
    """RECORDS, then the fuzzer's records not among them."""
    seen = {id(r) for r in RECORDS}
    fuzzed = {id(op.record): op.record
              for k in KINDS for fam in FAMILIES for op in fuzz_ops(k, fam)}
    return RECORDS + [r for i, r in fuzzed.items() if i not in seen]


def test_pipeline_preserves_every_op_record():
    n = 0
    for rec, args in iter_cases(_records()):
        if not rec.takes_numpy or not all(isinstance(a, np.ndarray) for a in args):
            continue
        graph = jg.make_graph(rec.jg)(*args)
        optimized, _, _ = run_pipeline(graph)
        for w, g in zip(ir.interpret(graph, list(args)), ir.interpret(optimized, list(args))):
            np.testing.assert_array_equal(g, w, err_msg=rec.id)
        n += 1
    assert n > 100


def test_graph_steps_come_from_the_op_database():
    """The random graphs' steps are the float records marked fuzz= that trace to at most SMALL
    ops (no hand-kept list; a composite like erfc's series is left out), and a step copied into
    a graph computes what the record's fuzz line computes eagerly."""
    x = np.linspace(-1.5, 1.5, 12).reshape(3, 4)
    scope = {**SCOPE, "a": jg.numpy.asarray(x), "b": jg.numpy.asarray(x[0])}
    for kind in KINDS:
        small, every = small_ops(kind), fuzz_ops(kind)
        assert len(small) >= 5 and all(op in every and op.record.fuzz == kind for op in small)
        for op in small:
            params = {"axis": (1,), "keepdims": True} if kind == "reduce" else {}
            names = ("a", "b")[:1 + (kind == "binary")]
            if op.shape(*[np.shape(scope[n]) for n in names], **params) is None:
                continue
            b = ir.Builder(ir.Graph(name="step"))
            ins = [b.add_input(ir.TensorType(np.shape(scope[n]), np.dtype("float64")))
                   for n in names]
            b.graph.outputs = [emit_record(b, op, ins, **params)]
            got = ir.interpret(b.graph, [np.asarray(scope[n]) for n in names])[0]
            want = eval(op.line(*names, **params), scope)   # noqa: S307 - the database's text
            np.testing.assert_allclose(got, np.asarray(want), rtol=1e-12, atol=1e-14,
                                       err_msg=op.text)
    assert "erfc" not in {op.record.name for op in small_ops("unary")}
