"""Loops and branches in the native library (codegen/native/library.py): a function with scan,
while_loop, cond and switch exported as libNAME.so, called from C, equal to jit in Python."""
import shutil

import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad.codegen.native import export as native_export
from tests.aot.test_aot_native import assert_standalone, run_from_c

pytestmark = [pytest.mark.skipif(shutil.which(t) is None, reason=f"native export needs {t}")
              for t in ("gcc", "nm", "ldd")]


def loops(w, xs, k):
    def cell(h, x):
        h = jnp.tanh(x + h * w)
        h = jg.fori_loop(0, 2, lambda i, v: v * 0.9 + x, h)     # a loop inside the loop
        return h, jnp.sum(h)                     # carry and a stacked y
    h, ys = jg.scan(cell, jnp.zeros(4, dtype=jnp.float32), xs)
    _, back = jg.scan(lambda c, x: (c + x, c), h, xs, reverse=True)
    n = jg.while_loop(lambda c: jnp.max(c[1]) < 3.0,          # a data-dependent trip count
                      lambda c: (c[0] + 1, c[1] * 1.5 + 0.1), (jnp.asarray(0), jnp.abs(h)))
    s = jg.cond(jnp.sum(n[1]) > 5.0, lambda v: v * 2.0, lambda v: -v, n[1])
    t = jg.switch(k, [lambda v: v + 1.0, lambda v: jnp.sin(v), lambda v: v], s)
    return t, ys, back, n[0]


def test_loops_and_branches_from_c(tmp_path):
    rng = np.random.default_rng(0)
    w, xs = rng.random(4).astype(np.float32), rng.random((7, 4)).astype(np.float32)
    lib = native_export.export(jg.jit(loops).lower(w, xs, np.int32(0)).graph, tmp_path / "lib",
                               "loops")
    for k in (-1, 1, 2, 5):
        got = run_from_c(lib, tmp_path, [w, xs, np.int32(k)])
        want = [np.asarray(v) for v in jg.jit(loops)(w, xs, np.int32(k))]
        for g, v in zip(got, want):
            np.testing.assert_allclose(g, v, rtol=1e-5, atol=1e-6)
    assert_standalone(lib.so_path, blas=False)


def test_a_scan_with_a_matmul_body_from_c(tmp_path):
    rng = np.random.default_rng(1)
    w, xs = rng.random((8, 8)).astype(np.float32) * 0.3, rng.random((5, 3, 8)).astype(np.float32)

    def rnn(w, xs):
        return jg.scan(lambda h, x: (jnp.tanh(x + h @ w),) * 2, jnp.zeros((3, 8), jnp.float32), xs)
    lib = native_export.export(jg.jit(rnn).lower(w, xs).graph, tmp_path / "lib", "rnn")
    got = run_from_c(lib, tmp_path, [w, xs])
    for g, v in zip(got, jg.jit(rnn)(w, xs)):
        np.testing.assert_allclose(g, np.asarray(v), rtol=1e-5, atol=1e-6)
    # the body's [3, 8] @ [8, 8] runs the library's own unpacked GEMM (llvm_small_gemm): no BLAS
    assert_standalone(lib.so_path, blas=False)
