"""Every public name of torch.linalg (a checked-in list, torch 2.13) is in jitgrad.linalg or in
jitgrad.linalg.EXCLUDED with the reason; the list is checked against torch where installed."""
import pytest

import jitgrad as jg

TORCH_LINALG = """LinAlgError cholesky cholesky_ex cond cross det diagonal eig eigh eigvals eigvalsh
householder_product inv inv_ex ldl_factor ldl_factor_ex ldl_solve lstsq lu lu_factor
lu_factor_ex lu_solve matmul matrix_exp matrix_norm matrix_power matrix_rank multi_dot norm
pinv qr slogdet solve solve_ex solve_triangular svd svdvals tensorinv tensorsolve vander vecdot
vector_norm""".split()
NOT_API = {"common_notes": "a dict of docstring fragments torch.linalg's docs share"}


def test_every_torch_linalg_name_is_here_or_excluded():
    missing = [n for n in TORCH_LINALG if not hasattr(jg.linalg, n) and n not in
               jg.linalg.EXCLUDED]
    assert not missing, f"torch.linalg names neither in jitgrad.linalg nor EXCLUDED: {missing}"
    stale = [n for n in jg.linalg.EXCLUDED if hasattr(jg.linalg, n) or n not in TORCH_LINALG]
    assert not stale, f"EXCLUDED but present, or not a torch.linalg name: {stale}"
    assert all(len(why) > 20 for why in jg.linalg.EXCLUDED.values())


def test_the_list_is_torchs():
    torch = pytest.importorskip("torch")
    theirs = {n for n in dir(torch.linalg) if not n.startswith("_")} - set(NOT_API)
    assert theirs == set(TORCH_LINALG)
