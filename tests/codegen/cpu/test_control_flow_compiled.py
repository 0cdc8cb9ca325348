"""Control flow compiled on the CPU (codegen/cpu/loops.py, runtime/loop_runner.py): scan,
while_loop, fori_loop, cond and switch run their compiled sub-graphs from one native kernel.

Every case runs compiled and on the reference interpreter (JITGRAD_BACKEND=interpreter) against a
NumPy loop; derivatives against finite differences (check_grads, float64); vmap against a loop
over examples; structure: no host step, no reference interpreter call, one compile per body."""
import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad.ir import control_flow
from jitgrad.test_util import check_grads


def _f64(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def _compiled(f, *args):
    """The compiled callable and what it compiled to (its units, in call order)."""
    c = jg.jit(f).lower(*args).compile()
    return c, c.units


def _targets(units):
    return [u.target for u in units]


def _scan(units):
    """The scan kernel among the units."""
    (loop,) = [u for u in units if u.ops == ("scan",)]
    return loop


def _both(f, args, monkeypatch):
    """(compiled result, interpreter result) of jit(f)(*args), as lists of arrays."""
    c, units = _compiled(f, *args)
    assert "host" not in _targets(units), "a loop ran as a host step"
    got = jg.tree_util.tree_leaves(c(*args))
    with monkeypatch.context() as m:
        m.setenv("JITGRAD_BACKEND", "interpreter")
        ref = jg.tree_util.tree_leaves(jg.jit(f)(*args))
    return [np.asarray(x) for x in got], [np.asarray(x) for x in ref]


def _close(got, want, rtol=1e-6, atol=1e-9):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)


# ---- forward: compiled == interpreter == NumPy -------------------------------------------------

def _rnn_numpy(w, h, xs, reverse=False):
    hs = [None] * len(xs)
    for i in (range(len(xs) - 1, -1, -1) if reverse else range(len(xs))):
        h = np.tanh(xs[i] + h @ w)
        hs[i] = h
    return h, np.stack(hs)


@pytest.mark.parametrize("reverse", [False, True])
def test_scan_rnn_forward(reverse, monkeypatch):
    w, xs = _f64(5, 5, seed=1) * 0.3, _f64(7, 3, 5, seed=2)
    h0 = np.zeros((3, 5))

    def f(w, h, xs):
        def cell(h, x):
            h = jnp.tanh(x + h @ w)
            return h, h                       # the same value as carry and y: a copy
        return jg.scan(cell, h, xs, reverse=reverse)
    got, ref = _both(f, (w, h0, xs), monkeypatch)
    _close(got, ref)
    _close(got, list(_rnn_numpy(w, h0, xs, reverse)))


def test_scan_pytree_carry_passthrough_constants_and_no_ys(monkeypatch):
    xs = _f64(6, 4, seed=3)

    def f(a, xs):
        def body(c, x):
            s, n, keep = c["s"], c["n"], c["keep"]
            return {"s": s + x * 2.0, "n": n + 1, "keep": keep}, (x, 1.5 * jnp.ones(2))
        return jg.scan(body, {"s": a, "n": jnp.asarray(0), "keep": a}, xs)
    a = _f64(4, seed=4)
    got, ref = _both(f, (a, xs), monkeypatch)
    _close(got, ref)
    carry, (ys_x, ys_c) = f(a, xs)            # eager: a Python loop
    _close(got, [np.asarray(v) for v in jg.tree_util.tree_leaves((carry, (ys_x, ys_c)))])
    assert got[-2].shape == (6, 4) and np.array_equal(got[-2], xs)

    def g(a):
        return jg.scan(lambda c, _: (c * 0.5, None), a, None, length=5)[0]
    got, ref = _both(g, (a,), monkeypatch)
    _close(got, ref)
    _close(got, [a * 0.5 ** 5])


@pytest.mark.parametrize("length", [0, 1, 2, 3])
def test_scan_short_lengths_land_the_carry_in_its_output(length, monkeypatch):
    xs = _f64(length, 3, seed=5)

    def f(c, xs):
        return jg.scan(lambda c, x: (c * 0.9 + x, c - x), c, xs)
    c0 = _f64(3, seed=6)
    got, ref = _both(f, (c0, xs), monkeypatch)
    _close(got, ref)
    c, ys = c0.copy(), []
    for x in xs:
        c, y = c * 0.9 + x, c - x
        ys.append(y)
    _close(got[:1], [c])


def test_while_loop_forward(monkeypatch):
    def f(x):
        def body(c):
            i, x = c
            return i + 1, x * 0.999 + 0.001
        return jg.while_loop(lambda c: c[0] < 1000, body, (jnp.asarray(0), x))
    x = np.linspace(0.0, 3.0, 16).astype(np.float32)
    got, ref = _both(f, (x,), monkeypatch)
    _close(got, ref, rtol=1e-5)
    want = x.astype(np.float64)
    for _ in range(1000):
        want = want * 0.999 + 0.001
    assert int(got[0]) == 1000
    np.testing.assert_allclose(got[1], want, rtol=1e-4)


def test_while_loop_data_dependent_trip_count(monkeypatch):
    def f(x):           # halve until below 1: the trip count depends on the value
        return jg.while_loop(lambda c: jnp.max(c[1]) >= 1.0,
                             lambda c: (c[0] + 1, c[1] / 2.0), (jnp.asarray(0), x))
    for x in (np.array([0.5, 0.25]), np.array([3.0, 100.0]), np.array([1024.0, 1.0])):
        got, ref = _both(f, (x,), monkeypatch)
        _close(got, ref)
        n = 0
        while x.max() >= 1.0:
            x, n = x / 2.0, n + 1
        assert int(got[0]) == n
        _close(got[1:], [x])


def test_fori_loop_static_and_dynamic_bounds(monkeypatch):
    def f(x, n):
        a = jg.fori_loop(0, 5, lambda i, v: v * 1.5 + i, x)          # a scan
        b = jg.fori_loop(0, n, lambda i, v: v - jnp.sin(v) * i, x)   # a while_loop
        return a, b
    x = _f64(3, seed=7)
    got, ref = _both(f, (x, np.int64(4)), monkeypatch)
    _close(got, ref)
    a, b = x.copy(), x.copy()
    for i in range(5):
        a = a * 1.5 + i
    for i in range(4):
        b = b - np.sin(b) * i
    _close(got, [a, b])


def test_cond_and_switch_forward_each_branch(monkeypatch):
    def f(x, k):
        a = jg.cond(jnp.sum(x) > 0, lambda v: v * 2.0, lambda v: jnp.cos(v), x)
        b = jg.switch(k, [lambda v: v + 1.0, lambda v: v * v, lambda v: v], x)
        return a, b
    for sign in (1.0, -1.0):
        x = np.abs(_f64(4, seed=8)) * sign
        for k in (-3, 0, 1, 2, 7):             # the index is clamped into range
            got, ref = _both(f, (x, np.int32(k)), monkeypatch)
            _close(got, ref)
            a = x * 2.0 if x.sum() > 0 else np.cos(x)
            b = [x + 1.0, x * x, x][min(max(k, 0), 2)]
            _close(got, [a, b])


def test_nested_loops_and_branches(monkeypatch):
    def f(w, xs):
        def outer(c, x):
            inner = jg.fori_loop(0, 3, lambda i, v: jnp.tanh(v @ w + x), c)
            c2 = jg.cond(jnp.sum(inner) > 0, lambda v: v * 0.5, lambda v: v + 1.0, inner)
            m = jg.while_loop(lambda s: s[0] < 2, lambda s: (s[0] + 1, s[1] * 1.1),
                              (jnp.asarray(0), c2))[1]
            return m, jnp.sum(m)
        return jg.scan(outer, jnp.zeros(4, dtype=jnp.float64), xs)
    w, xs = _f64(4, 4, seed=9) * 0.5, _f64(5, 4, seed=10)
    got, ref = _both(f, (w, xs), monkeypatch)
    _close(got, ref)
    c, ys = np.zeros(4), []
    for x in xs:
        v = c
        for _ in range(3):
            v = np.tanh(v @ w + x)
        v = v * 0.5 if v.sum() > 0 else v + 1.0
        c = v * 1.1 * 1.1
        ys.append(c.sum())
    _close(got, [c, np.array(ys)])


# ---- derivatives: finite differences, both modes, compiled ---------------------------------------

def test_scan_grad_jvp_against_finite_differences():
    w, xs = _f64(3, 3, seed=11) * 0.4, _f64(4, 2, 3, seed=12)

    def f(w, xs):
        def cell(h, x):
            h = jnp.tanh(x + h @ w)
            return h, jnp.sum(h * h)
        h, ys = jg.scan(cell, jnp.zeros((2, 3), dtype=jnp.float64), xs)
        return jnp.sum(h) + jnp.sum(ys)
    check_grads(jg.jit(f), (w, xs), order=1, modes=("fwd", "rev"))
    g = jg.jit(jg.grad(f))
    _, units = _compiled(jg.grad(f), w, xs)
    assert "host" not in _targets(units)                     # the reverse scan compiles too
    np.testing.assert_allclose(np.asarray(g(w, xs)), np.asarray(jg.grad(f)(w, xs)), rtol=1e-9)


def test_reverse_scan_and_second_order():
    def f(x):
        c, ys = jg.scan(lambda c, x: (jnp.sin(c) * x, c * x), x[0], x, reverse=True)
        return jnp.sum(c) + jnp.sum(ys)
    check_grads(jg.jit(f), (_f64(3, seed=13),), order=2, modes=("fwd", "rev"))


def test_fori_cond_switch_grads():
    def f(x):
        v = jg.fori_loop(0, 3, lambda i, v: jnp.sin(v) * x + i, x)
        v = jg.cond(jnp.sum(v) > 0, lambda a: a * a, lambda a: jnp.exp(a), v)
        return jg.switch(1, [jnp.sin, lambda a: a * 3.0 + jnp.cos(a)], v)
    check_grads(jg.jit(f), (_f64(3, seed=14),), order=2, modes=("fwd", "rev"))


def test_while_loop_jvp_and_refused_vjp():
    def f(x):
        return jg.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, jnp.sin(c[1]) * x),
                             (0, x))[1]
    check_grads(jg.jit(f), (_f64(2, seed=15),), order=1, modes=("fwd",))
    with pytest.raises(TypeError, match="reverse-mode differentiation .* of jg.while_loop"):
        jg.jit(jg.grad(lambda x: jnp.sum(f(x))))(_f64(2, seed=15))


def test_nested_scan_grad():
    def f(w, xs):
        def outer(c, x):
            c2, _ = jg.scan(lambda h, _: (jnp.tanh(h * w + x), None), c, None, length=3)
            return c2, jnp.sum(c2)
        c, ys = jg.scan(outer, jnp.ones(2, dtype=jnp.float64), xs)
        return jnp.sum(ys) + jnp.sum(c)
    check_grads(jg.jit(f), (_f64(2, seed=16), _f64(4, 2, seed=17)), order=1,
                modes=("fwd", "rev"))


# ---- vmap of compiled loops ---------------------------------------------------------------------

def test_vmap_of_loops_matches_a_loop_over_examples(monkeypatch):
    def f(x):
        c, ys = jg.scan(lambda c, xi: (c * 0.5 + xi, c), 0.0 * x[0], x)
        n = jg.while_loop(lambda s: s[1] < jnp.sum(jnp.abs(x)) * 4.0,
                          lambda s: (s[0] + 1, s[1] * 2.0 + 1.0), (jnp.asarray(0), 1.0 * x[0]))
        k = jg.cond(x[0] > 0, lambda v: v * 2.0, lambda v: -v, x)
        return c, ys, n[0], k
    xb = _f64(5, 4, seed=18)
    vf = jg.vmap(f)
    got, ref = _both(vf, (xb,), monkeypatch)
    _close(got, ref)
    rows = [[np.asarray(v) for v in jg.tree_util.tree_leaves(jg.jit(f)(x))] for x in xb]
    _close(got, [np.stack([r[k] for r in rows]) for k in range(4)])


# ---- structure ----------------------------------------------------------------------------------

def test_compiled_scan_runs_no_reference_per_iteration(monkeypatch):
    """The profiler sees one native kernel for the whole scan: no host step, no interpreted node."""
    w, xs = _f64(4, 4, seed=19) * 0.3, _f64(50, 4, seed=20)

    def f(w, xs):
        return jg.scan(lambda h, x: (jnp.tanh(h @ w + x), h), jnp.zeros(4, dtype=jnp.float64), xs)
    c, units = _compiled(f, w, xs)
    assert "host" not in _targets(units)                  # no host step in the schedule
    loop = _scan(units)
    assert loop.kind == "loop" and loop.target == "cpu-llvm" and len(loop.units) >= 1
    c(w, xs)
    with jg.profiler.profile() as prof:
        out = c(w, xs)
    rows = prof.key_averages()
    assert not {"host", "interpreted"} & {r.kind for r in rows}      # the reference never ran
    assert [r.calls for r in rows if r.name == "scan"] == [1]        # one kernel, 50 steps
    monkeypatch.setenv("JITGRAD_BACKEND", "interpreter")
    _close([np.asarray(v) for v in out], [np.asarray(v) for v in jg.jit(f)(w, xs)])


def test_the_body_compiles_once_whatever_the_length():
    def f(h, xs):
        return jg.scan(lambda h, x: (jnp.tanh(h * x + 0.5), h), h, xs)
    sizes = []
    for n in (10, 10_000):
        _, units = _compiled(f, np.ones(16, np.float32), np.full((n, 16), 0.5, np.float32))
        sizes.append([u.name for u in _scan(units).units])   # the body's units
    assert sizes[0] == sizes[1] and sizes[0]


def test_a_host_op_in_the_body_keeps_the_host_step(monkeypatch, capsys):
    monkeypatch.setenv("JITGRAD_DEBUG", "1")

    def f(x):           # an FFT has no kernel: it runs on the host, inside the loop too
        return jg.scan(lambda c, _: (c + jnp.real(jnp.fft.fft(c)), None), x, None, length=2)[0]
    x = np.arange(3, dtype=np.float32)
    _, units = _compiled(f, x)
    assert _targets(units).count("host") == 1 and _scan(units).target == "host"
    assert "scan runs on the host (NumPy reference): its" in capsys.readouterr().err


def test_out_of_bounds_index_in_a_body_raises_like_the_interpreter(monkeypatch):
    def f(table, idx):
        return jg.scan(lambda c, i: (c + jnp.take(table, i, axis=0), c),
                       jnp.zeros(3, dtype=jnp.float64), idx)
    table = _f64(4, 3, seed=21)
    c, _ = _compiled(f, table, np.array([0, 1, 2], np.int64))
    _close([np.asarray(c(table, np.array([0, 1, 2], np.int64))[0])], [table[:3].sum(0)])
    with pytest.raises(IndexError) as compiled_err:
        c(table, np.array([0, 9, 1], np.int64))
    monkeypatch.setenv("JITGRAD_BACKEND", "interpreter")
    with pytest.raises(IndexError) as ref_err:
        jg.jit(f)(table, np.array([0, 9, 1], np.int64))
    assert "9" in str(compiled_err.value) and "9" in str(ref_err.value)


def test_value_and_grad_runs_the_forward_loop_once():
    """merge_scans: the primal scan and the VJP's forward scan (which stacks the carries) become
    one scan; a scan whose carry evolves differently is left alone."""
    w, xs = _f64(4, 4, seed=22) * 0.3, _f64(5, 2, 4, seed=23)

    def f(w, xs):
        _, hs = jg.scan(lambda h, x: (jnp.tanh(x + h @ w),) * 2, jnp.zeros((2, 4), dtype=jnp.float64), xs)
        return jnp.sum(hs)

    def scans(fn):
        lowered = jg.jit(fn).lower(w, xs)
        return sum(n.op == control_flow.SCAN for k in lowered.schedule
                   for n in k.params["body"].nodes)
    assert scans(jg.value_and_grad(f)) == 2          # forward (value + residuals), backward
    v, g = jg.jit(jg.value_and_grad(f))(w, xs)
    v0, g0 = jg.value_and_grad(f)(w, xs)
    np.testing.assert_allclose(float(v), float(v0), rtol=1e-12)
    np.testing.assert_allclose(np.asarray(g), np.asarray(g0), rtol=1e-10)

    def two(w, xs):      # same inputs, different carries: two loops
        a = jg.scan(lambda h, x: (h * 0.5 + x, h), xs[0], xs)
        b = jg.scan(lambda h, x: (h * 0.25 + x, h), xs[0], xs)
        return a[1] + b[1]
    assert scans(two) == 2


def test_an_artifact_carries_the_loop_bodies_units(tmp_path):
    def f(w, xs):
        return jg.scan(lambda h, x: (jnp.tanh(h * w + x), h), jnp.zeros(3, dtype=jnp.float64), xs)
    w, xs = _f64(3, seed=24), _f64(4, 3, seed=25)
    c, units = _compiled(f, w, xs)
    body_files = [f for u in _scan(units).units for f in u.files]
    assert body_files and set(body_files) <= {f for u in units for f in u.files}
    c.save(tmp_path / "scan.jgz")
    loaded = jg.load(tmp_path / "scan.jgz")
    _close([np.asarray(v) for v in loaded(w, xs)], [np.asarray(v) for v in c(w, xs)])


def test_concurrent_calls_of_a_compiled_loop_wait_for_each_other():
    """A loop kernel's descriptor and sub-programs are shared: calls from several threads take
    turns (SequencedRun.exclusive) and each gets its own right answer."""
    from concurrent.futures import ThreadPoolExecutor

    def f(c, xs):
        return jg.scan(lambda c, x: (jnp.tanh(c + x), c), c, xs)[0]
    g = jg.jit(f)
    inputs = [(_f64(8, seed=s), _f64(200, 8, seed=s + 100)) for s in range(6)]
    want = [np.asarray(g(*a)) for a in inputs]
    with ThreadPoolExecutor(3) as pool:
        got = list(pool.map(lambda a: np.asarray(g(*a)), inputs * 3))
    for k, out in enumerate(got):
        np.testing.assert_array_equal(out, want[k % len(inputs)])


def test_the_body_kernels_run_n_times_from_one_native_call(monkeypatch):
    """Count from inside: a body kernel's entry in the sub-program's table is swapped for a
    counting trampoline; one call into the native program runs it once per step. (The generic
    loop kernel, jg_loop: the specialized loop function calls this body's unit directly,
    tests/codegen/cpu/test_loop_fused.py.)"""
    import ctypes
    monkeypatch.setenv("JITGRAD_CPU_LOOP_FUSION", "0")
    w, xs = _f64(4, 4, seed=26) * 0.3, _f64(37, 4, seed=27)

    def f(w, xs):
        return jg.scan(lambda h, x: (jnp.tanh(h @ w + x), h), jnp.zeros(4, dtype=jnp.float64), xs)
    c, units = _compiled(f, w, xs)
    want = [np.asarray(v) for v in c(w, xs)]
    assert "host" not in _targets(units)    # one native call runs the whole schedule
    # internal on purpose: the body's native function table (codegen/cpu/loops.py LoopPlan)
    run = c.exe.run
    loop = [u for u in run.units if getattr(u, "op", None) is control_flow.SCAN][0]
    table = loop.subs[0].run.program.fns
    kernel_t = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_void_p)
    original, calls = kernel_t(int(table[0])), []

    @kernel_t
    def counting(argv):
        calls.append(argv)
        return original(argv)
    saved = int(table[0])
    table[0] = ctypes.cast(counting, ctypes.c_void_p).value
    try:
        got = [np.asarray(v) for v in c(w, xs)]
    finally:
        table[0] = saved
    assert len(calls) == 37
    _close(got, want, rtol=0, atol=0)


def test_profiled_concurrent_calls_of_a_loop_take_turns_too():
    from concurrent.futures import ThreadPoolExecutor

    def f(c, xs):
        return jg.scan(lambda c, x: (jnp.tanh(c + x), c), c, xs)[0]
    g = jg.jit(f)
    inputs = [(_f64(8, seed=s), _f64(300, 8, seed=s + 50)) for s in range(4)]
    want = [np.asarray(g(*a)) for a in inputs]
    with jg.profiler.profile(), ThreadPoolExecutor(3) as pool:
        got = list(pool.map(lambda a: np.asarray(g(*a)), inputs * 3))
    for k, out in enumerate(got):
        np.testing.assert_array_equal(out, want[k % len(inputs)])


def test_integer_and_bool_carries_and_ys(monkeypatch):
    def f(xs):
        def body(c, x):
            n, seen, m = c
            hit = x > 0.5
            return (n + hit.astype("int32"), seen | hit, jnp.maximum(m, x)), (hit, n)
        init = (jnp.asarray(np.array(0, np.int32)), jnp.asarray(np.array(False)),
                jnp.asarray(np.array(-1.0)))
        return jg.scan(body, init, xs)
    xs = np.array([0.1, 0.9, 0.3, 0.7, 0.2])
    got, ref = _both(f, (xs,), monkeypatch)
    for g, r in zip(got, ref):
        np.testing.assert_array_equal(g, r)
    hits = xs > 0.5
    assert int(got[0]) == 2 and bool(got[1]) and float(got[2]) == 0.9
    np.testing.assert_array_equal(got[3], hits)
    np.testing.assert_array_equal(got[4], np.concatenate([[0], np.cumsum(hits)[:-1]]))
    assert got[4].dtype == np.int32 and got[3].dtype == np.bool_
