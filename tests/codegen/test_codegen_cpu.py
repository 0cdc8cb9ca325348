"""CPU code generation against the reference interpreter: op records, hand-built kernels of every
kind, random graphs, broadcasting, non-contiguous / 0-d / empty inputs, int and bool kernels.
Every kernel is an LLVM unit (codegen/cpu/llvm_kernels.py; numba builds no CPU kernels since
issue 26).

Cases are batched: many independent computations traced into
one jitted function compile as one module."""
import os

import numpy as np
import pytest
from hypothesis import given, settings

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad import ir, tree_util
from jitgrad.codegen.cpu.backend import compile_cpu
from jitgrad.compilation.compile_graph import compile_graph
from jitgrad.transforms.compiled_units import units_of
from jitgrad.ir import Op
from jitgrad.ir.kernel import make_kernel
from tests.support.op_records import RECORDS, case_id, iter_cases, reference, tolerance
from tests.ir.passes.test_passes_fuzz import _args, random_graphs

BATCH = 40


@pytest.fixture(autouse=True)
def kernels():
    from jitgrad.codegen.cpu import units as cpu_units
    cpu_units.forget()
    yield "llvm"
    cpu_units.forget()


def _one_case_per_record():
    """The last (largest) case of every record in its first dtype; with JITGRAD_TEST_ALL_DTYPES=1
    also in every other dtype kind (int, bool), which multiplies the compile time."""
    every_kind = os.environ.get("JITGRAD_TEST_ALL_DTYPES") == "1"
    chosen = {}
    for rec, args in iter_cases(RECORDS):
        dt = next((a.dtype for a in tree_util.tree_leaves(list(args)) if isinstance(a, np.ndarray)), None)
        kind = dt.kind if dt is not None else None
        first = chosen.setdefault(rec.id, {})
        if kind in first or not first or every_kind:
            first[kind] = (rec, args)
    return [case for kinds in chosen.values() for case in kinds.values()]


def _covering(cases):
    """Cases that together use every (primitive, dtypes) pair any case uses, so every scalar
    expression and kernel path is compiled at least once (JITGRAD_TEST_ALL_RECORDS=1: all)."""
    if os.environ.get("JITGRAD_TEST_ALL_RECORDS") == "1":
        return cases
    seen, out = set(), []
    for rec, args in cases:
        try:
            graph = jg.make_graph(rec.jg)(*args)
        except Exception:  # noqa: BLE001 - not traceable with these arguments
            continue
        uses = {(str(n.op), tuple(str(v.type.dtype) for v in n.inputs + n.outputs))
                for n in graph.walk_nodes()}
        if not uses <= seen:
            seen |= uses
            out.append((rec, args))
    return out


def _eager_ok(rec, args):
    try:
        rec.jg(*args)
        return True
    except Exception:  # noqa: BLE001 - cases the front end rejects are tested elsewhere
        return False


def _check(rec, args, got):
    want = reference(rec, args)
    wants = want if isinstance(want, (tuple, list)) else [want]
    for g, w in zip(tree_util.tree_leaves(got), wants):
        g = np.asarray(g)
        np.testing.assert_allclose(g, w, **tolerance(rec, g.dtype), err_msg=case_id(rec, args))


def test_op_records_through_cpu_codegen():
    cases = _covering([(r, a) for r, a in _one_case_per_record() if _eager_ok(r, a)])
    assert len(cases) > 40
    for s in range(0, len(cases), BATCH):
        batch = cases[s:s + BATCH]

        def many(*argsets):
            return [rec.jg(*a) for (rec, _), a in zip(batch, argsets)]
        jitted = jg.jit(many)
        outs = jitted(*[a for _, a in batch])
        assert jitted.lower(*[a for _, a in batch]).compile().exe.backend == "cpu"
        for (rec, args), got in zip(batch, outs):
            _check(rec, args, got)


@settings(max_examples=6, deadline=None)
@given(random_graphs())
def test_random_graphs_match_the_interpreter(graph):
    args = _args(graph)
    want = ir.interpret(graph, args)
    exe = compile_graph(graph)
    assert exe.backend == "cpu"
    for w, g in zip(want, exe.run(args)):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


# ----------------------------------------------------------------------------- hand-built kernels

def _kernel_graph(kind, in_types, build):
    """A graph running one kernel of `kind` whose body `build(builder, *inputs)` returns outputs."""
    body = ir.Builder(ir.Graph(name="body"))
    ins = [body.add_input(t) for t in in_types]
    body.graph.outputs = list(build(body, *ins))
    outer = ir.Graph(name=f"{kind}_test")
    xs = [ir.Value(t) for t in in_types]
    outer.inputs = xs
    k = make_kernel(kind, body.graph, xs)
    outer.nodes = [k]
    outer.outputs = list(k.outputs)
    return outer, body.graph


def _run_kernel(kind, in_types, build, args):
    g, body = _kernel_graph(kind, in_types, build)
    exe = compile_cpu(g, g, g.nodes, None)
    assert len(units_of(exe)) == 1
    assert exe.kernels.count("def kernel(argv)") + exe.kernels.count("\ndefine i64 @") == 1
    got = exe.run(args)
    want = ir.interpret(body, args)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    return exe


T = ir.TensorType
F32 = np.dtype("float32")


def test_elementwise_broadcasting_multi_output():
    types = [T((3, 1), F32), T((4,), F32), T((2, 3, 4), F32)]

    def build(b, x, y, z):
        s = b.emit1(Op.add, (x, y))
        m = b.emit1(Op.mul, (s, z))
        return m, b.emit1(Op.gt, (m, b.constant(np.float32(0.5))))
    rng = np.random.default_rng(0)
    _run_kernel("elementwise", types, build, [rng.standard_normal(t.shape).astype(F32) for t in types])


def test_reduce_kernels_inner_outer_and_arg():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((5, 6, 7)).astype(F32)

    def build(b, a):
        sq = b.emit1(Op.mul, (a, a))
        s = b.emit1(Op.reduce_sum, (sq,), {"axes": (0, 2)})
        m = b.emit1(Op.reduce_max, (a,), {"axes": (0, 2)})
        return b.emit1(Op.sqrt, (s,)), m
    _run_kernel("reduce", [T(x.shape, F32)], build, [x])           # last axis reduced
    _run_kernel("reduce", [T(x.shape, F32)], lambda b, a: [b.emit1(Op.reduce_sum, (a,), {"axes": (0,)}),
                                                           b.emit1(Op.reduce_min, (a,), {"axes": (0,)})], [x])
    for axes in [(1,), (2,)]:
        _run_kernel("reduce", [T(x.shape, F32)], lambda b, a: [b.emit1(Op.argmax, (a,), {"axes": axes})], [x])


def test_long_sums_are_blocked_and_large_ones_parallel(kernels):
    x = np.random.default_rng(2).standard_normal(300_001).astype(F32)
    exe = _run_kernel("reduce", [T(x.shape, F32)],
                      lambda b, a: [b.emit1(Op.reduce_sum, (b.emit1(Op.mul, (a, a)),), {"axes": (0,)})], [x])
    # blocks of SUM_BLOCK: 74 blocks, an inner loop bounded by min(hi, n)
    assert units_of(exe)[0].target == "cpu-llvm"
    assert ", 74\n" in exe.kernels and "mul i64" in exe.kernels and ", 4096\n" in exe.kernels
    x = np.random.default_rng(2).standard_normal(1_200_001).astype(F32)
    exe = _run_kernel("reduce", [T(x.shape, F32)],
                      lambda b, a: [b.emit1(Op.reduce_sum, (b.emit1(Op.mul, (a, a)),), {"axes": (0,)}),
                                    b.emit1(Op.argmin, (a,), {"axes": (0,)})], [x])
    # on the runtime's thread pool (runtime/thread_pool.py)
    assert units_of(exe)[0].target == "cpu-llvm" and "jg_parallel_for" in exe.kernels


def test_rowwise_layernorm_with_affine_row_input():
    rng = np.random.default_rng(3)
    x, g = rng.standard_normal((6, 10)).astype(F32), rng.standard_normal(10).astype(F32)

    def build(b, a, gamma):
        n = b.constant(np.float32(10))
        mean = b.emit1(Op.div, (b.emit1(Op.reshape, (b.emit1(Op.reduce_sum, (a,), {"axes": (1,)}),),
                                         {"shape": (6, 1)}), n))
        d = b.emit1(Op.sub, (a, mean))
        var = b.emit1(Op.reduce_sum, (b.emit1(Op.mul, (d, d)),), {"axes": (1,)})
        inv = b.emit1(Op.rsqrt, (b.emit1(Op.reshape, (var,), {"shape": (6, 1)}),))
        return b.emit1(Op.mul, (b.emit1(Op.mul, (d, inv)), gamma)), var
    _run_kernel("rowwise", [T(x.shape, F32), T(g.shape, F32)], build, [x, g])


@pytest.mark.parametrize("L", [10, 20000])
def test_rowwise_softmax_keeps_its_exp_row_between_passes(L):
    """softmax's exp(x - max) is summed in one pass and divided in the next: it is computed
    once and kept in a stack row (kernels/rowwise._kept_rows), the same values as computing it
    again; a row too long for the stack (20000 floats) computes it again."""
    rng = np.random.default_rng(4)
    x = (rng.standard_normal((3, L)) * 4).astype(F32)

    def build(b, a):
        m = b.emit1(Op.reshape, (b.emit1(Op.reduce_max, (a,), {"axes": (1,)}),), {"shape": (3, 1)})
        e = b.emit1(Op.exp, (b.emit1(Op.sub, (a, m)),))
        s = b.emit1(Op.reshape, (b.emit1(Op.reduce_sum, (e,), {"axes": (1,)}),), {"shape": (3, 1)})
        return (b.emit1(Op.div, (e, s)),)
    exe = _run_kernel("rowwise", [T(x.shape, F32)], build, [x])
    assert ("alloca float, i64 %d" % L in exe.kernels) == (L == 10)


def test_matmul_transposed_operand_batched_and_epilogue():
    rng = np.random.default_rng(4)
    a, w, bias = (rng.standard_normal(s).astype(F32) for s in [(5, 3), (5, 4), (4,)])

    def build(b, x, y, c):
        xt = b.emit1(Op.transpose, (x,), {"perm": (1, 0)})
        p = b.emit1(Op.matmul, (xt, y))     # an output too: without a memory plan (plan=None)
        # an LLVM unit has no scratch for a product that is not one
        return [b.emit1(Op.max, (b.emit1(Op.add, (p, c)), b.constant(np.float32(0)))), p]
    _run_kernel("matmul", [T(a.shape, F32), T(w.shape, F32), T(bias.shape, F32)], build, [a, w, bias])
    x3, y3 = rng.standard_normal((2, 3, 4)).astype(F32), rng.standard_normal((4, 5)).astype(F32)
    _run_kernel("matmul", [T(x3.shape, F32), T(y3.shape, F32)],
                lambda b, x, y: [b.emit1(Op.matmul, (x, y))], [x3, y3])
    i1, i2 = rng.integers(-3, 3, (3, 4)), rng.integers(-3, 3, (4, 2))
    _run_kernel("matmul", [T(i1.shape, i1.dtype), T(i2.shape, i2.dtype)],
                lambda b, x, y: [b.emit1(Op.matmul, (x, y))], [i1, i2])


# ----------------------------------------------------------------------------- inputs

def test_noncontiguous_zero_d_empty_int_and_bool_inputs():
    rng = np.random.default_rng(5)
    base = rng.standard_normal((6, 8)).astype(F32)

    @jg.jit
    def f(x, y, s, e, i, m):
        return (jnp.exp(x) + y, x * s, jnp.sum(e, axis=0), i * 3 - (i // 2),
                jnp.where(m, x, -x), jnp.sum(i, axis=1), jnp.logical_not(m))
    args = (base.T, rng.standard_normal((16, 12)).astype(F32)[::2, ::2], np.array(2.5, F32),
            np.zeros((0, 3), F32), rng.integers(-9, 9, (8, 6)).astype(np.int32),
            rng.random((8, 6)) < 0.5)
    x, y, s, e, i, m = args
    want = (np.exp(x) + y, x * s, e.sum(0), i * 3 - i // 2, np.where(m, x, -x), i.sum(1),
            ~m)
    for g, w in zip(f(*args), want):
        g = np.asarray(g)
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=1e-6)


def test_shape_ops_gather_scatter_scan():
    rng = np.random.default_rng(6)
    x = rng.standard_normal((4, 5)).astype(F32)
    idx = np.array([3, 0, 0, -1])

    @jg.jit
    def f(x, idx):
        return (jnp.transpose(x)[1:4:2], jnp.concatenate([x, x[:, :2]], axis=1),
                jnp.take(x, idx, axis=0), jnp.cumsum(x, axis=1), jnp.sort(x, axis=0),
                jnp.argsort(x, axis=1), jnp.flip(x, axis=1), jnp.pad(x, ((1, 0), (0, 2))),
                jnp.reshape(x, (5, 4)) * 2)
    want = (x.T[1:4:2], np.concatenate([x, x[:, :2]], 1), np.take(x, idx, 0),
            np.cumsum(x, 1), np.sort(x, 0), np.argsort(x, 1, kind="stable"), x[:, ::-1],
            np.pad(x, ((1, 0), (0, 2))), x.reshape(5, 4) * 2)
    for g, w in zip(f(x, idx), want):
        np.testing.assert_allclose(np.asarray(g), w, rtol=1e-6)


def test_scatter_add_is_the_gradient_of_take():
    x = np.random.default_rng(7).standard_normal((4, 3))
    idx = np.array([0, 2, 2, 1, 0])
    g = jg.jit(jg.grad(lambda x: jnp.sum(jnp.take(x, idx, axis=0) ** 2)))(x)
    want = np.zeros_like(x)
    np.add.at(want, idx, 2 * x[idx])
    np.testing.assert_allclose(np.asarray(g), want, rtol=1e-12)


def test_same_signature_does_not_trace_or_compile_again(kernels):
    f = jg.jit(lambda x: x * 2 + 1)
    x = np.ones((3, 4), F32)
    f(x)
    with jg.profiler.profile() as prof:
        for _ in range(3):
            f(x + 1)
        units = f.lower(x).compile().units      # the calls' executable: no trace, no compile
    assert f.trace_count == 1 and not [e for e in prof.events if e.cat == "compile"]
    assert [e.cat for e in prof.events].count("call") == 3
    assert [u.target for u in units] == ["cpu-" + kernels]


def test_debug_4_prints_kernel_source(monkeypatch, capsys, kernels):
    monkeypatch.setenv("JITGRAD_DEBUG", "4")
    f = jg.jit(lambda x: jnp.tanh(x) * 3)
    f(np.ones(7, F32))
    out = capsys.readouterr().out
    assert "elementwise kernel" in out and "tanh" in out
    assert "define i64 @" in out


def test_a_host_op_runs_and_reentry_gets_a_fresh_arena():
    def f(x):               # an FFT has no kernel: a host step between compiled units
        spectrum = jnp.real(jnp.fft.fft(x))
        return jnp.exp(x) * 2 + spectrum, spectrum
    x = np.arange(12, dtype=F32).reshape(3, 4) / 12
    want = [np.asarray(o) for o in f(jg.tensor(x))]      # eager: the reference
    jf = jg.jit(f)
    got = [np.asarray(o) for o in jf(x)]
    compiled = jf.lower(x).compile()       # the executable the calls ran
    assert [u.target for u in compiled.units].count("host") == 1 and len(compiled.units) >= 2
    with compiled.occupied():                # as if a call were in progress on another thread
        again = [np.asarray(o) for o in jf(x)]
    for g, a, w in zip(got, again, want):
        np.testing.assert_allclose(g, w, rtol=1e-6)
        np.testing.assert_array_equal(a, g)


@pytest.mark.parametrize("shape", [(), (0,), (2, 0, 3)])
def test_zero_d_and_empty_shapes(shape):
    x = np.ones(shape, F32)
    out = jg.jit(lambda x: (jnp.exp(x) + 1, jnp.sum(x)))(x)
    np.testing.assert_allclose(np.asarray(out[0]), np.exp(x) + 1)
    np.testing.assert_allclose(np.asarray(out[1]), np.sum(x))


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.int32, np.int8, np.bool_])
def test_transposes_that_move_the_last_axis_copy_tiles(dt):
    """A transpose whose source is contiguous along another axis moves 8x8 tiles through
    registers (kernels/opaque._tiled; element loops for the edges): every permutation of shapes
    with and without whole tiles, each dtype, against NumPy; the head transpose's unit
    shuffles vectors."""
    import itertools
    rng = np.random.default_rng(3)
    for shape in [(8, 64, 4, 32), (3, 17, 33), (100, 37), (5, 16, 16, 3), (9, 9), (16, 8, 24)]:
        x = (rng.standard_normal(shape) * 50).astype(dt)
        for perm in itertools.permutations(range(len(shape))):
            got = jg.jit(lambda a: jnp.transpose(a, perm))(x)
            np.testing.assert_array_equal(np.asarray(got), np.transpose(x, perm))
    x = np.zeros((8, 64, 4, 32), dt)
    units = jg.jit(lambda a: jnp.transpose(a, (0, 2, 3, 1))).lower(x).compile().units
    assert any("shufflevector" in u.source for u in units)
