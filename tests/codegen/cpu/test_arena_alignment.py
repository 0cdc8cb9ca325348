"""A compiled call's arena and its array constants start on a 64-byte cache line
(runtime/allocator.aligned_empty), as the memory plan's offsets assume (every buffer at a multiple
of plan_memory.ALIGNMENT), and so do a loop body's sub-program arenas, forward and backward.
(NumPy aligns to 16 bytes: the LSTM step's forward scan ran 7-9% slower with its body's arena at
16, 32 or 48 bytes past a line.)"""
import numpy as np

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad.ir.passes.plan_memory import ALIGNMENT


def _exe(f, *args):
    return jg.jit(f).lower(*args).compile().exe


def _rnn(w, h, xs):
    def cell(h, x):
        g = x + h @ w
        h = jnp.tanh(g[:, :4]) * jnp.tanh(g[:, 4:])
        return h, h
    return jg.scan(cell, h, xs)


def _rnn_numpy(w, h, xs):
    hs = []
    for x in xs:
        g = x + h @ w
        h = np.tanh(g[:, :4]) * np.tanh(g[:, 4:])
        hs.append(h)
    return h, np.stack(hs)


def _args():
    rng = np.random.default_rng(0)
    w = (rng.standard_normal((4, 8)) * 0.5).astype(np.float32)
    h = np.zeros((3, 4), np.float32)
    xs = rng.standard_normal((6, 3, 8)).astype(np.float32)
    return w, h, xs


def _aligned(a) -> bool:
    return a.ctypes.data % ALIGNMENT == 0


def _sub_arenas(exe):
    """The arenas of the loops' compiled sub-graphs, outermost first."""
    return [s.run.arena for u in exe.run.units for s in getattr(u, "subs", ())]


def test_loop_arenas_start_a_cache_line():
    args = _args()
    exe = _exe(_rnn, *args)
    subs = _sub_arenas(exe)
    assert subs and all(map(_aligned, subs)) and _aligned(exe.run.arena)
    for got, want in zip(jg.jit(_rnn)(*args), _rnn_numpy(*args)):
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-6)


def test_backward_loop_arenas_start_a_cache_line():
    args = _args()

    def loss(w, h, xs):
        return jnp.sum(_rnn(w, h, xs)[1] ** 2)
    exe = _exe(jg.grad(loss), *args)
    subs = _sub_arenas(exe)
    assert len(subs) >= 2 and all(map(_aligned, subs)) and _aligned(exe.run.arena)


def test_array_constants_start_a_cache_line():
    c = np.linspace(-1, 1, 1000).astype(np.float32)
    x = np.linspace(0, 1, 1000, dtype=np.float32)

    def f(x):
        return jnp.tanh(x * c) + c
    exe = _exe(f, x)
    consts = [a for a in exe.run.fixed if a.shape == c.shape]
    assert consts and all(map(_aligned, consts))
    np.testing.assert_array_equal(consts[0], c)
    np.testing.assert_allclose(np.asarray(jg.jit(f)(x)), np.tanh(x * c) + c, rtol=1e-6)
