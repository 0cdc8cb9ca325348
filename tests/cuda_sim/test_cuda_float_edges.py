"""The float edge-value matrix of the shared scalar rules (tests/support/float_edges.py) on the cuda device
under the simulator, eagerly and jitted, against NumPy: the same rules as the CPU's, rendered as
numba.cuda source. Run by tests/codegen/cuda/test_cuda_sim_runner.py (own process)."""
import importlib.util
import warnings

import numpy as np
import pytest

from jitgrad.codegen.cuda.toolchain import cuda_simulator_enabled

if not cuda_simulator_enabled() or importlib.util.find_spec("numba_cuda") is None:
    pytest.skip("needs numba-cuda and NUMBA_ENABLE_CUDASIM=1 (tests/codegen/cuda/test_cuda_sim_runner.py)",
                allow_module_level=True)

import jitgrad as jg  # noqa: E402
import jitgrad.numpy as jnp  # noqa: E402
from jitgrad.ir.ops import Op  # noqa: E402
from tests.support import float_edges  # noqa: E402

# under the simulator floor and round call Python's math.floor / math.remainder, which raise at
# inf and NaN (libdevice's floorf / remainderf return them), and math.floor returns an int, so
# floor(-0.0) loses its sign there (not on a GPU): round is checked at the finite edges
FINITE = {Op.floor, Op.round}


@pytest.mark.parametrize("path", ["eager", "jit"])
def test_float_ops_match_numpy_at_the_edges_on_cuda(path):
    def run(fn, *arrays):
        xs = [jg.tensor(a, device="cuda") for a in arrays]
        return (fn(*xs) if path == "eager" else jg.jit(fn)(*xs)).numpy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        assert float_edges.mismatched(run, set(float_edges.CASES) - FINITE) == [], path


def test_round_at_the_finite_edges_on_cuda():
    """Half to even, and a zero result keeps x's sign: np.rint(-0.4) is -0.0."""
    x = float_edges.EDGES[np.isfinite(float_edges.EDGES)]
    for run in (jnp.round, jg.jit(jnp.round)):
        assert float_edges.same(run(jg.tensor(x, device="cuda")).numpy(), np.rint(x))
