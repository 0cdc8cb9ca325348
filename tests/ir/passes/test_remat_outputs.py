"""remat_outputs (ir/passes/remat_outputs.py): a kernel writes one root instead of several
cheap elementwise functions of it, and their readers compute them again. Checked on the
schedule (what is written, where the exp went), on values (the pass on and off: the same bits
under jit, finite differences for the gradient), and on what must stay (graph outputs, matmul
operands, copied transcendentals)."""
import numpy as np

import jitgrad as jg
import jitgrad.nn.functional as F
import jitgrad.numpy as jnp
from jitgrad import ir
from jitgrad.ir import Op
from jitgrad.ir.passes.dce import dce
from jitgrad.ir.passes.fuse import fuse
from jitgrad.ir.passes.manager import run_pipeline
from jitgrad.ir.passes.remat_outputs import remat_outputs
from jitgrad.test_util import check_grads


def _mlp_gelu_loss(w1, b1, w2, x):
    return jnp.sum(jnp.square(F.gelu(x @ w1.T + b1) @ w2.T))


def _args(rng):
    return (rng.standard_normal((64, 32)).astype(np.float32) * 0.3,
            rng.standard_normal(64).astype(np.float32) * 0.1,
            rng.standard_normal((16, 64)).astype(np.float32) * 0.3,
            rng.standard_normal((24, 32)).astype(np.float32))


def _schedule(fn, *args):
    return run_pipeline(jg.make_graph(fn)(*args))[1]


class _PassOff:
    """remat_outputs switched off inside the block; after it the store is as it was (an option
    that was not set stays unset, so JITGRAD_DISABLE counts again)."""

    def __enter__(self):
        self.saved = ir.config.chosen()
        jg.config.update("disable", jg.config.read("disable") | {"remat_outputs"})

    def __exit__(self, *exc):
        ir.config.restore(self.saved)


def _ops(kernel):
    return [n.op for n in kernel.params["body"].nodes]


def test_gelu_forward_writes_fewer_values_and_the_exp_moves_to_the_backward(rng):
    args = _args(rng)
    grad = jg.grad(_mlp_gelu_loss, argnums=(0, 1, 2))
    on = _schedule(grad, *args)
    with _PassOff():
        off = _schedule(grad, *args)
    fwd_on, fwd_off = ([k for k in s if Op.erf in _ops(k) and Op.matmul in _ops(k)][0]
                       for s in (on, off))
    assert len(fwd_off.outputs) == 4 and Op.exp in _ops(fwd_off)
    # GELU, 1 + erf (which the backward would compute a second time) and the pre-activation
    assert len(fwd_on.outputs) == 3 and Op.exp not in _ops(fwd_on)
    (bwd,) = [k for k in on if Op.exp in _ops(k)]
    assert bwd.params["kind"] == "matmul"           # the backward product's epilogue
    assert sum(len(k.outputs) for k in on) < sum(len(k.outputs) for k in off)


def test_same_bits_with_the_pass_off_and_finite_differences(rng):
    args = [jg.tensor(a) for a in _args(rng)]
    f = jg.jit(jg.value_and_grad(_mlp_gelu_loss, argnums=(0, 1, 2)))
    on = f(*args)
    with _PassOff():
        off = jg.jit(jg.value_and_grad(_mlp_gelu_loss, argnums=(0, 1, 2)))(*args)
    for a, b in zip(jg.tree_util.tree_leaves(on), jg.tree_util.tree_leaves(off)):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    a64 = [np.asarray(a, np.float64) for a in _args(rng)]
    check_grads(jg.jit(_mlp_gelu_loss), a64, order=1, modes=("rev",))


def test_graph_outputs_and_matmul_operands_stay_written(rng):
    x = rng.standard_normal((32, 32)).astype(np.float32)
    w = rng.standard_normal((32, 32)).astype(np.float32)

    def f(x, w):
        y = x @ w
        a, b = y * 0.5, y * 2.0          # cheap functions of one root, both read as operands
        return a @ w, b @ w, y * 3.0     # and one a graph output
    graph = jg.make_graph(f)(x, w)
    fused = fuse(dce(graph))
    assert remat_outputs(fused) is fused                 # nothing to do: the same graph
    want = ir.interpret(graph, [x, w])
    for got, ref in zip(jg.jit(f)(x, w), want):     # float32 sums of 32 products: an entry
        # near 0 is the difference of terms ~30 (BLAS kernels differ by CPU in their order)
        np.testing.assert_allclose(np.asarray(got), ref, rtol=1e-5, atol=1e-5 * np.abs(ref).max())


def test_the_pass_is_pure(rng):
    args = _args(rng)
    graph = jg.make_graph(jg.grad(_mlp_gelu_loss, argnums=(0, 1, 2)))(*args)
    with _PassOff():
        fused = run_pipeline(graph)[0]
    before = str(fused)
    out = remat_outputs(fused)
    assert str(fused) == before and out is not fused
    for a, b in zip(ir.interpret(out, list(args)), ir.interpret(fused, list(args))):
        np.testing.assert_allclose(a, b, rtol=1e-6)
