"""@jit on cuda under the simulator: a fused kernel the generators do not cover
(codegen/cuda/kernel_coverage.why_not) runs op by op through the eager kernels, logged at
JITGRAD_DEBUG=1, and
matches NumPy; an op no CUDA kernel implements is an UnsupportedOpError naming the op, the
backend and the user's line when the function compiles. Run by tests/codegen/cuda/test_cuda_sim_runner.py."""
import importlib.util

import numpy as np
import pytest

from jitgrad.codegen.cuda.toolchain import cuda_simulator_enabled

if not cuda_simulator_enabled() or importlib.util.find_spec("numba_cuda") is None:
    pytest.skip("needs numba-cuda and NUMBA_ENABLE_CUDASIM=1 (tests/codegen/cuda/test_cuda_sim_runner.py)",
                allow_module_level=True)

import jitgrad as jg  # noqa: E402
import jitgrad.numpy as jnp  # noqa: E402
from jitgrad.ir.errors import UnsupportedOpError  # noqa: E402


@pytest.mark.parametrize("fn, arrays, want, reason", [
    (lambda x: jnp.argmax(x * 2.0, axis=1), [np.arange(12.0, dtype=np.float32).reshape(3, 4) % 5],
     lambda x: np.argmax(x * 2, axis=1), "argmax runs as an eager kernel"),
    (lambda a, b: a @ b + 1, [np.arange(6, dtype=np.int32).reshape(2, 3),
                              np.arange(6, dtype=np.int32).reshape(3, 2)],
     lambda a, b: a @ b + 1, "int32 matmul runs as an eager kernel"),
])
def test_a_kernel_the_generators_do_not_cover_runs_op_by_op(fn, arrays, want, reason,
                                                           monkeypatch, capsys):
    monkeypatch.setenv("JITGRAD_DEBUG", "1")
    got = jg.jit(fn)(*[jg.tensor(a, device="cuda") for a in arrays])
    assert got.device == jg.device("cuda")
    np.testing.assert_array_equal(got.numpy(), want(*arrays))
    assert f"{reason}; running it op by op" in capsys.readouterr().err


def test_an_op_without_a_cuda_kernel_is_named_with_the_users_line(monkeypatch):
    # every op has a CUDA kernel or a host path now (loops: codegen/cuda/loops.py; the fft is
    # refused earlier, as complex): take sort's away to see the error an uncovered op gets
    from jitgrad.codegen.cuda import backend as cuda_backend
    from jitgrad.ir.ops import Op
    real = cuda_backend.op_why_not
    monkeypatch.setattr(cuda_backend, "op_why_not",
                        lambda op: "no CUDA kernel implements it" if op == Op.sort else real(op))
    x = jg.tensor(np.ones(4, np.float32), device="cuda")
    with pytest.raises(UnsupportedOpError, match=r"sort is not supported by the cuda "
                                                 r"backend: no CUDA kernel implements it \(at "
                                                 r".*test_cuda_fallbacks\.py:\d+\)"):
        jg.jit(lambda x: jnp.sort(x * 2.0))(x)
