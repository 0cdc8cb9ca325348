"""plan_memory's views: a kernel that only reshapes copies nothing when its input is an arena
buffer or a graph input (its output is a view of that storage; backends skip the kernel). The
group of a buffer and its views lives until the last read of any member and is never written
over in place while another member is read. Values against NumPy, the plans checked, the
skipped kernels counted (structural), inputs left untouched."""
import ctypes

import numpy as np

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad.codegen.native import export as native_export
from jitgrad.ir.passes.manager import run_pipeline


def _reshape_units(fn, *args):
    return [u for u in jg.jit(fn).lower(*args).compile().units if u.ops == ("reshape",)]


def _plan(fn, *args):
    _, _, plan = run_pipeline(jg.make_graph(fn)(*args))
    return plan.check()


def pool(x):        # a 2x2 max-pool: the input reshaped to (N, C, H/2, 2, W/2, 2), one reduction
    n, c, h, w = x.shape
    return jnp.max(jnp.reshape(x, (n, c, h // 2, 2, w // 2, 2)), axis=(3, 5))


def test_a_reshaped_graph_input_is_read_in_place(rng):
    x = rng.standard_normal((2, 3, 8, 8)).astype(np.float32)
    keep = x.copy()
    got = jg.jit(pool)(x)
    np.testing.assert_array_equal(np.asarray(got), x.reshape(2, 3, 4, 2, 4, 2).max(axis=(3, 5)))
    np.testing.assert_array_equal(x, keep)
    assert _reshape_units(pool, x) == []
    plan = _plan(pool, x)
    assert list(plan.views.values()) == [0] and len(plan.free) == 1


def test_views_of_intermediates_share_storage_and_live_long_enough(rng):
    x = rng.standard_normal((6, 8)).astype(np.float32)

    def f(x):
        a = jnp.exp(x)                        # an arena buffer
        b = jnp.reshape(a, (4, 12))           # a view of it
        c = a + 1.0                           # a's last direct read: may not take a's storage
        d = jnp.reshape(b, (2, 2, 12)) * 2.0  # a view of a view
        return jnp.sum(c) + jnp.sum(d * jnp.reshape(c, (2, 2, 12)))
    a = np.exp(x)
    c = a + 1
    want = c.sum() + np.sum(a.reshape(2, 2, 12) * 2 * c.reshape(2, 2, 12))
    np.testing.assert_allclose(float(jg.jit(f)(x)), want, rtol=1e-5)
    np.testing.assert_allclose(float(jg.jit(jg.grad(f))(x).sum()),
                               float(jg.grad(f)(x).sum()), rtol=1e-5)
    assert _reshape_units(f, x) == []
    plan = _plan(f, x)
    views = [b for b in plan.buffers if b.view_of]
    assert len(views) >= 2
    for v in views:                           # each at its root's offset, the root outliving it
        root = next(b for b in plan.buffers if b.name == v.view_of or v.view_of.endswith(b.name))
        if root.place == "arena":
            assert v.offset == root.offset and root.end >= v.end


def test_outputs_and_donated_inputs_keep_their_copies(rng):
    x = rng.standard_normal((4, 6)).astype(np.float32)
    out = jg.jit(lambda x: (jnp.reshape(jnp.exp(x), (24,)), jnp.reshape(x, (6, 4))))(x)
    np.testing.assert_allclose(np.asarray(out[0]), np.exp(x).reshape(24), rtol=1e-6)
    np.testing.assert_array_equal(np.asarray(out[1]), x.reshape(6, 4))
    y = jnp.asarray(x)
    got = jg.jit(lambda y: jnp.reshape(y, (6, 4)) * 2.0, donate_argnums=0)(y)
    np.testing.assert_array_equal(np.asarray(got), x.reshape(6, 4) * 2)


def test_a_view_inside_a_loop_body(rng):
    xs = rng.standard_normal((5, 4, 6)).astype(np.float32)

    def f(xs):
        def body(h, x):
            h = jnp.tanh(jnp.reshape(jnp.reshape(x, (24,)) + jnp.reshape(h, (24,)), (4, 6)))
            return h, jnp.reshape(h, (6, 4))
        return jg.scan(body, jnp.zeros((4, 6)), xs)
    h, ys = jg.jit(f)(xs)
    want_h, want = np.zeros((4, 6), np.float32), []
    for x in xs:
        want_h = np.tanh(x + want_h)
        want.append(want_h.reshape(6, 4))
    np.testing.assert_allclose(np.asarray(h), want_h, rtol=1e-5)
    np.testing.assert_allclose(np.asarray(ys), np.stack(want), rtol=1e-5)


def test_a_native_library_reads_a_reshaped_input_in_place(rng, tmp_path):
    x = rng.standard_normal((2, 3, 8, 8)).astype(np.float32)
    lib = native_export.export(jg.jit(pool).lower(x).graph, tmp_path / "lib", "pool")
    so = ctypes.CDLL(str(lib.so_path))
    out = np.zeros((2, 3, 4, 4), np.float32)
    ws = np.zeros(lib.workspace_bytes + 64, np.uint8)
    ws_at = ctypes.c_void_p((ws.ctypes.data + 63) // 64 * 64)
    keep = x.copy()
    assert so.pool(ctypes.c_void_p(x.ctypes.data), ctypes.c_void_p(out.ctypes.data), ws_at) == 0
    np.testing.assert_array_equal(out, x.reshape(2, 3, 4, 2, 4, 2).max(axis=(3, 5)))
    np.testing.assert_array_equal(x, keep)
