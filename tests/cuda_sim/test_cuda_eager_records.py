"""Every op record (tests/support/op_records.py), in every dtype it lists, runs eagerly on the cuda device
under the simulator and matches NumPy. Run by tests/codegen/cuda/test_cuda_sim_runner.py (own process)."""
import importlib.util

import numpy as np
import pytest

from jitgrad.codegen.cuda.toolchain import cuda_simulator_enabled

if not cuda_simulator_enabled() or importlib.util.find_spec("numba_cuda") is None:
    pytest.skip("needs numba-cuda and NUMBA_ENABLE_CUDASIM=1 (tests/codegen/cuda/test_cuda_sim_runner.py)",
                allow_module_level=True)

import jitgrad as jg  # noqa: E402
from tests.support.op_records import (RECORDS, case_id, expected_dtype, iter_cases, reference,  # noqa: E402
                               tolerance)
from tests.support.opinfo.core import selected  # noqa: E402

CUDA = jg.device("cuda")
# simulated kernels run as Python: NumPy scalar math warns where a GPU silently gives inf/nan
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")


def _on_cuda(a):
    return jg.tensor(a, device="cuda") if isinstance(a, np.ndarray) else a


# Records that reduce along an axis run the rows / column kernels, a block of up to 256 threads
# per output: 15-20 s each on the simulator (every simulated thread is a Python thread). A
# deterministic quarter of them runs by default, all with -m slow (or JITGRAD_OPINFO_ALL=1).
def _param(rec):
    slow = "axis" in rec.id and not selected(f"cuda-sim-{rec.id}", 4)
    return pytest.param(rec, id=rec.id, marks=(pytest.mark.slow,) if slow else ())


# one test per record (its cases and dtypes inside): ~300 tests instead of ~2,700
@pytest.mark.parametrize("rec", [_param(r) for r in RECORDS])
def test_record_matches_numpy_on_cuda(rec):
    for _, args in iter_cases([rec]):
        want = reference(rec, args)
        got = rec.jg(*[_on_cuda(a) for a in args])
        pairs = zip(got, want) if isinstance(want, (list, tuple)) else [(got, want)]
        for g, w in pairs:
            assert g.device == CUDA, f"{case_id(rec, args)}: result on {g.device}"
            g = g.numpy()
            assert g.dtype == expected_dtype(rec, args, w), case_id(rec, args)
            np.testing.assert_allclose(g, w, **tolerance(rec, g.dtype), err_msg=case_id(rec, args))
            assert g.shape == np.shape(w), case_id(rec, args)
