"""jitgrad.linalg as torch.linalg: torch's argument names and results, against NumPy written to
torch's meaning (torch's own functions compared where torch is installed), eagerly and under
jit and grad."""
import numpy as np
import pytest

import jitgrad as jg

RNG = np.random.default_rng(0)
M = RNG.standard_normal((3, 3))
SPD = M @ M.T + 3 * np.eye(3)
B = RNG.standard_normal((3, 2))
V = RNG.standard_normal(3)
X = RNG.standard_normal((2, 4))

CASES = {   # name -> (jitgrad call, NumPy reference of torch's meaning)
    "norm": (lambda L: L.norm(jg.tensor(M)), lambda: np.linalg.norm(M)),
    "norm dim": (lambda L: L.norm(jg.tensor(X), dim=1), lambda: np.linalg.norm(X, axis=1)),
    "vector_norm": (lambda L: L.vector_norm(jg.tensor(X), ord=3, dim=0, keepdim=True),
                    lambda: (np.abs(X) ** 3).sum(0, keepdims=True) ** (1 / 3)),
    "matrix_norm": (lambda L: L.matrix_norm(jg.tensor(M), ord=1), lambda: np.linalg.norm(M, 1)),
    "cond": (lambda L: L.cond(jg.tensor(SPD)), lambda: np.linalg.cond(SPD)),
    "cholesky upper": (lambda L: L.cholesky(jg.tensor(SPD), upper=True),
                       lambda: np.linalg.cholesky(SPD).T),
    "eigh UPLO=U": (lambda L: L.eigvalsh(jg.tensor(M), UPLO="U"),
                    lambda: np.linalg.eigvalsh(M, UPLO="U")),
    "solve": (lambda L: L.solve(jg.tensor(SPD), jg.tensor(B)), lambda: np.linalg.solve(SPD, B)),
    "solve vector": (lambda L: L.solve(jg.tensor(SPD), jg.tensor(V)),
                     lambda: np.linalg.solve(SPD, V)),
    "solve left=False": (lambda L: L.solve(jg.tensor(SPD), jg.tensor(B.T), left=False),
                         lambda: B.T @ np.linalg.inv(SPD)),
    "solve_triangular": (lambda L: L.solve_triangular(jg.tensor(np.triu(SPD)), jg.tensor(B),
                                                      upper=True),
                         lambda: np.linalg.solve(np.triu(SPD), B)),
    "solve_triangular left=False": (
        lambda L: L.solve_triangular(jg.tensor(np.tril(SPD)), jg.tensor(B.T), upper=False,
                                     left=False),
        lambda: B.T @ np.linalg.inv(np.tril(SPD))),
    "lstsq": (lambda L: L.lstsq(jg.tensor(M[:, :2]), jg.tensor(SPD)).solution,
              lambda: np.linalg.lstsq(M[:, :2], SPD, rcond=None)[0]),
    "lu_factor pivots 1-based": (lambda L: L.lu_factor(jg.tensor(M)).pivots,
                                 lambda: __import__("scipy.linalg").linalg.lu_factor(M)[1] + 1),
    "lu_solve": (lambda L: L.lu_solve(*L.lu_factor(jg.tensor(M)), jg.tensor(B)),
                 lambda: np.linalg.solve(M, B)),
    "vander increasing": (lambda L: L.vander(jg.tensor(V)), lambda: np.vander(V, increasing=True)),
    "diagonal of the last dims": (lambda L: L.diagonal(jg.tensor(X.reshape(2, 2, 2))),
                                  lambda: np.diagonal(X.reshape(2, 2, 2), 0, -2, -1)),
    "matrix_exp": (lambda L: L.matrix_exp(jg.tensor(np.zeros((2, 2)))), lambda: np.eye(2)),
    "cholesky_ex info": (lambda L: L.cholesky_ex(jg.tensor(SPD)).info, lambda: np.int32(0)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_torch_meaning(name):
    call, want = CASES[name]
    got = np.asarray(call(jg.linalg))
    np.testing.assert_allclose(got, want(), rtol=1e-7, atol=1e-10)
    assert got.shape == np.shape(want())


def test_under_jit_and_grad():
    solve = jg.jit(lambda a, b: jg.linalg.solve(a, b))
    np.testing.assert_allclose(np.asarray(solve(jg.tensor(SPD), jg.tensor(V))),
                               np.linalg.solve(SPD, V), rtol=1e-10)
    g = jg.grad(lambda x: jg.linalg.vector_norm(x))(jg.tensor(V))
    np.testing.assert_allclose(np.asarray(g), V / np.linalg.norm(V), rtol=1e-10)


def test_errors_name_what_is_missing():
    with pytest.raises(ValueError, match="UPLO must be 'L' or 'U', got 'X'"):
        jg.linalg.eigh(jg.tensor(SPD), UPLO="X")
    with pytest.raises(NotImplementedError, match="lu_factor\\(pivot=False\\): only partial"):
        jg.linalg.lu_factor(jg.tensor(SPD), pivot=False)
    with pytest.raises(NotImplementedError, match="lu\\(pivot=False\\): only partial"):
        jg.linalg.lu(jg.tensor(SPD), pivot=False)


def test_against_torch():
    torch = pytest.importorskip("torch")
    for name, (call, _) in CASES.items():
        mine = np.asarray(call(jg.linalg))
        theirs = _torch_call(torch, call)
        np.testing.assert_allclose(mine, theirs, rtol=1e-6, atol=1e-9, err_msg=name)


def _torch_call(torch, call):
    """The same call with torch in jitgrad's place (the lambdas name jg.tensor and L)."""
    saved = jg.tensor
    try:
        globals()["jg"] = _TorchAsJg(torch)
        return np.asarray(call(torch.linalg))
    finally:
        globals()["jg"] = __import__("jitgrad")
        assert jg.tensor is saved


class _TorchAsJg:
    def __init__(self, torch):
        self.tensor = torch.tensor
