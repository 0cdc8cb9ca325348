"""A fused_in_eager call recorded for autograd saves what its backward reads
(eager/jit_in_autograd.saving_split): a hot recurrent layer's backward runs one reverse scan
over the saved per-step values, never the forward scan again, with the gradients of the
op-by-op tier, compiled at its first run as the forward was."""
import numpy as np
import pytest

import jitgrad as jg
from jitgrad.eager.jit_in_autograd import has_jitted_call, saving_split
from jitgrad.ir import Op
from jitgrad.trace.tracing import ShapeDtype, trace_to_graph
from jitgrad.transforms import fused_eager

RNG = np.random.default_rng(3)


def _scans(graph):
    return [n.params.get("reverse") for n in graph.nodes if n.op == Op.scan]


@pytest.mark.parametrize("mode", ["LSTM", "GRU", "RNN"])
def test_a_hot_layer_backward_is_one_reverse_scan_with_the_op_by_op_gradients(mode):
    model = getattr(jg.nn, mode)(4, 6)
    x0 = RNG.standard_normal((5, 3, 4)).astype(np.float32)
    grads = []
    for _ in range(fused_eager.HOT + 1):        # op by op, then one compiled call
        x = jg.tensor(x0, requires_grad=True)
        out, _ = model(x)
        model.zero_grad()
        (out * out).sum().backward()
        grads.append([x.grad.numpy()] + [p.grad.numpy() for p in model.parameters()])
    assert out._ctx.op == "custom_vjp_call"
    assert _scans(out._ctx.params["bwd"]) == [True]
    assert has_jitted_call([out._ctx])          # its backward compiles at its first run
    for a, b in zip(grads[-1], grads[0]):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


def test_saving_split_saves_the_values_the_backward_reads():
    def f(x, w):
        return jg.numpy.tanh(x @ w), x.sum()
    graph, _, _, _ = trace_to_graph(f, (ShapeDtype((2, 3), np.float32),
                                        ShapeDtype((3, 4), np.float32)))
    fwd, n_out, params = saving_split(graph)
    assert n_out == 2 and len(fwd.inputs) == 2
    # saved: one [2, 4] value of the tanh (not the transposes of x and w, redone from them)
    assert [v.type.shape for v in fwd.outputs[n_out:]] == [(2, 4)]
    bwd = params["bwd"]
    x, w = bwd.inputs[:2]
    assert not [n for n in bwd.nodes if n.op == Op.tanh or n.op == Op.matmul and n.inputs == (x, w)]
