"""Issue 24 on the cuda device under the simulator: the integer edge-value matrix
(tests/support/int_edges.py), eagerly and jitted, against NumPy; donation, embedding indices, Parameters
through jit.
Run by tests/codegen/cuda/test_cuda_sim_runner.py (own process)."""
import importlib.util
import warnings

import numpy as np
import pytest

from jitgrad.codegen.cuda.toolchain import cuda_simulator_enabled

if not cuda_simulator_enabled() or importlib.util.find_spec("numba_cuda") is None:
    pytest.skip("needs numba-cuda and NUMBA_ENABLE_CUDASIM=1 (tests/codegen/cuda/test_cuda_sim_runner.py)",
                allow_module_level=True)

import jitgrad as jg  # noqa: E402
from tests.support.int_edges import binary_cases, mismatches, unary_cases  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")
CUDA = jg.device("cuda")


def _run(path, fn, *arrays):
    xs = [jg.tensor(a, device="cuda") for a in arrays]
    out = fn(*xs) if path == "eager" else jg.jit(fn)(*xs)
    assert out.device == CUDA
    return out.numpy()


@pytest.mark.parametrize("path", ["eager", "jit"])
def test_integer_ops_match_numpy_at_the_edges_on_cuda(path):
    bad = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for name, dt, fn, a, b, want in binary_cases():
            bad += [f"{name} {dt.__name__} {m}"
                    for m in mismatches(_run(path, fn, a, b), want, (a, b))]
        for name, dt, fn, a, want in unary_cases():
            bad += [f"{name} {dt.__name__} {m}" for m in mismatches(_run(path, fn, a), want, (a,))]
    assert not bad, "\n".join(bad)


def test_donated_cuda_tensor_is_deleted():
    f = jg.jit(lambda v: v * 2 + 1, donate_argnums=0)
    x = jg.tensor(np.arange(3, dtype=np.float32), device="cuda")
    y = f(x)
    assert y.device == CUDA and y.numpy().tolist() == [1.0, 3.0, 5.0]
    assert x.is_deleted()
    with pytest.raises(RuntimeError, match="Array has been deleted.*donated"):
        x.numpy()
    with pytest.raises(RuntimeError, match="Array has been deleted.*donated"):
        f(x)


def test_embedding_negative_index_raises_on_cuda():
    emb = jg.nn.Embedding(5, 3).to("cuda")
    idx = jg.tensor(np.array([0, -1]), device="cuda")
    for call in (lambda: emb(idx), lambda: jg.jit(lambda m, i: m(i))(emb, idx)):
        with pytest.raises(IndexError, match="embedding: index -1 is out of bounds for 5"):
            call()


def test_model_from_a_jitted_step_keeps_requires_grad_on_cuda():
    model = jg.nn.Linear(3, 2).to("cuda")
    opt = jg.optim.sgd(0.1)
    x = jg.tensor(np.ones((4, 3), np.float32), device="cuda")

    def loss(m):
        return (m(x) ** 2).sum()
    model2, _ = jg.jit(lambda m, s: opt.update(jg.grad(loss)(m), s, m))(model, opt.init(model))
    assert all(isinstance(p, jg.nn.Parameter) and p.requires_grad and p.device == CUDA
               for p in model2.parameters())
    loss(model2).backward()
    assert model2.weight.grad is not None and model2.weight.grad.device == CUDA
