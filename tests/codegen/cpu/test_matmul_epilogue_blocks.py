"""A matmul kernel's epilogue runs on each row block of the product right after the block is
computed (codegen/cpu/kernels/matmul.gen_matmul), inside the same pool job: one range body, not a
second pass over the product. Values against NumPy for broadcast, batched, transposed and
column-block products above the pool's threshold (kernels/matmul.GEMM_MIN)."""
import math

import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp

rng = np.random.default_rng(7)


def _f(*shape, dt=np.float32):
    return rng.standard_normal(shape).astype(dt)


def _erf(x):
    return np.vectorize(math.erf)(x.astype(np.float64))


CASES = {
    # x @ W.T + b, then GELU (W transposed first, then the broadcast form)
    "linear_gelu": (lambda x, w, b: jg.nn.functional.gelu(x @ w.T + b),
                    lambda x, w, b: 0.5 * (x @ w.T + b) * (1 + _erf((x @ w.T + b) / np.sqrt(2))),
                    lambda dt: (_f(512, 128, dt=dt), _f(512, 128, dt=dt) * 0.1, _f(512, dt=dt))),
    # a batched product (no merged rows) scaled by a matrix broadcast over the batch
    "batched_broadcast": (lambda a, b, c: (a @ b) * c + 1.0,
                          lambda a, b, c: (a @ b) * c + 1.0,
                          lambda dt: (_f(4, 256, 64, dt=dt), _f(4, 64, 256, dt=dt), _f(256, 256, dt=dt))),
    # the product is an output too, beside its epilogue
    "product_and_epilogue": (lambda x, w, b: (x @ w, jnp.tanh(x @ w) + b),
                             lambda x, w, b: (x @ w, np.tanh(x @ w) + b),
                             lambda dt: (_f(384, 96, dt=dt), _f(96, 320, dt=dt), _f(320, dt=dt))),
    # few rows and many columns: column blocks, the epilogue as its own pass
    "column_blocks": (lambda x, w: jnp.maximum(x @ w, 0.0),
                      lambda x, w: np.maximum(x @ w, 0.0),
                      lambda dt: (_f(16, 32, dt=dt), _f(32, 32768, dt=dt))),
}


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("case", sorted(CASES))
def test_epilogue_per_row_block(case, dt):
    fn, ref, make = CASES[case]
    args = make(dt)
    got = jg.jit(fn)(*args)
    want = ref(*[a.astype(np.float64) for a in args])
    got, want = (got, want) if isinstance(want, tuple) else ((got,), (want,))
    tol = 2e-4 if dt == np.float32 else 1e-9
    for g, w in zip(got, want):
        assert np.asarray(g).dtype == dt
        np.testing.assert_allclose(np.asarray(g), w, rtol=tol, atol=tol * 10)


def test_row_block_epilogue_is_one_pool_job():
    """The linear + GELU kernel has one range body (the row blocks and their epilogue); the
    column-block product keeps a second one for its epilogue."""
    def ranges(fn, *args):
        exe = jg.jit(fn).lower(*args).compile()
        (unit,) = [u for u in exe.units if "matmul" in u.source.splitlines()[0]]
        return unit.source.count("define internal void @\"jg_kernel_range")
    fused_case, col_case = CASES["linear_gelu"], CASES["column_blocks"]
    assert ranges(fused_case[0], *fused_case[2](np.float32)) == 1
    assert ranges(col_case[0], *col_case[2](np.float32)) == 2
