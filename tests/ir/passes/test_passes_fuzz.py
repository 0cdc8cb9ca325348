"""Optimized equals unoptimized: the full pipeline (canonicalize, fold, cse, dce, fuse) must give
bit-identical results to the reference interpreter on the unoptimized graph — every rewrite is
exact and fusion only regroups ops — over random well-typed graphs, every op record of the older
table and every record the differential fuzzer draws from (tests/support/opinfo/fuzz.py)."""
import numpy as np
from hypothesis import given
from hypothesis import strategies as st

import jitgrad as jg
from jitgrad import ir
from jitgrad.ir import Op
from jitgrad.ir.passes.fusion_rules import analyze_kernel
from jitgrad.ir.passes.manager import run_pipeline
from tests.support.op_records import RECORDS, fuzz_ops, iter_cases
from tests.support.opinfo.fuzz import KINDS

INPUT_SHAPES = [(3, 4), (4,), (1, 4), (3, 1), (), (2, 3, 4)]
UNARY = [Op.exp, Op.tanh, Op.sigmoid, Op.neg, Op.abs, Op.square, Op.sin, Op.log, Op.sqrt]
BINARY = [Op.add, Op.sub, Op.mul, Op.div, Op.max, Op.min]
SCALARS = [0.0, -0.0, 1.0, 2.0, -1.5, 0.5]


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

    def const():
        return b.constant(np.asarray(draw(st.sampled_from(SCALARS)), dtype))

    def unary(x):
        return b.emit1(draw(st.sampled_from(UNARY)), (x,))

    def binary(x):
        other = [v for v in vals if _broadcastable(x, v)] + [const()]
        y = pick(other)
        args = (x, y) if draw(st.booleans()) else (y, x)
        return b.emit1(draw(st.sampled_from(BINARY)), args)

    def reduce(x):
        if x.type.ndim == 0:
            return None
        axes = tuple(sorted(draw(st.sets(st.integers(0, x.type.ndim - 1), min_size=1))))
        r = b.emit1(draw(st.sampled_from([Op.reduce_sum, Op.reduce_max])), (x,), {"axes": axes})
        if not draw(st.booleans()):
            return r
        keep = tuple(1 if i in axes else d for i, d in enumerate(x.type.shape))
        r = b.emit1(Op.reshape, (r,), {"shape": keep})
        return b.emit1(draw(st.sampled_from(BINARY)), (x, r))        # softmax-like: broadcast back

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

    def select(x):
        zero = b.constant(np.zeros((), dtype))
        return b.emit1(Op.select, (b.emit1(Op.gt, (x, zero)), x, pick(
            [v for v in vals if _broadcastable(x, v)])))

    makers = [unary, unary, binary, binary, reduce, reduce, reshape, transpose, matmul, broadcast,
              select]
    for _ in range(draw(st.integers(1, 10))):
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
    fuzzed = {id(op.record): op.record for k in KINDS for op in fuzz_ops(k)}
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
