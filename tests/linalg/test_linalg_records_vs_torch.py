"""The op database's jitgrad.linalg records whose inputs are prepared (well-conditioned,
complex, factor magnitudes), run with torch.linalg in jitgrad's place: the same call, torch's
values (where torch is installed; CI holds them to the NumPy reference instead). The direct
records are compared with torch by tests/consistency/test_opinfo.py's owner tests."""
import numpy as np
import pytest

import jitgrad.numpy as jnp
from tests.support.opinfo import iter_cases, tolerance
from tests.support.opinfo.torch_linalg_ops import CALLS

torch = pytest.importorskip("torch")


class _Torch:
    la = torch.linalg

    @staticmethod
    def eye(x):
        return torch.eye(x.shape[-1], dtype=x.dtype)

    @staticmethod
    def mH(x):  # noqa: N802 - torch's name
        return x.mH

    @staticmethod
    def like(x, values):
        return torch.tensor(values, dtype=x.dtype)

    abs = staticmethod(torch.abs)


def _numpy(out):
    if isinstance(out, (list, tuple)):
        return [_numpy(o) for o in out]
    return out.resolve_conj().numpy() if isinstance(out, torch.Tensor) else np.asarray(out)


def _flat(out):
    return [np.asarray(o) for o in out] if isinstance(out, (list, tuple)) else [np.asarray(out)]


@pytest.mark.parametrize("rec, call", CALLS, ids=[r.id for r, _ in CALLS])
def test_prepared_record_matches_torch(rec, call):
    for _, args in iter_cases([rec]):
        mine = _flat(rec.jg(*[jnp.asarray(a) for a in args]))
        theirs = _flat(_numpy(call(_Torch, *[torch.from_numpy(a.copy()) for a in args])))
        assert len(mine) == len(theirs), rec.id
        for g, w in zip(mine, theirs):
            assert g.shape == w.shape, f"{rec.id}: shape {g.shape}, torch {w.shape}"
            real = g.dtype if g.dtype.kind == "f" else np.dtype("float32")
            np.testing.assert_allclose(g, w, err_msg=rec.id, **tolerance(rec, real))
