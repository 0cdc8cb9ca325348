"""torch's linear algebra, statistics, splits, scatters into slices, windows and index helpers
as jg.Tensor methods and jitgrad.* functions (jitgrad/torch_api), against NumPy."""
import numpy as np
import pytest

import jitgrad as jg

M = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]])
V = np.array([3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0])


def close(got, want, atol=1e-8):
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6, atol=atol)


def test_linear_algebra():
    m = jg.tensor(M)
    close(m.det(), np.linalg.det(M))
    close(jg.logdet(m), np.log(np.linalg.det(M)))
    sign, logabs = m.slogdet()
    close(sign, 1.0)
    close(logabs, np.log(np.linalg.det(M)))
    close(m.inverse(), np.linalg.inv(M))
    close(m.pinverse(), np.linalg.pinv(M))
    close(m.matrix_power(3), M @ M @ M)
    low = m.cholesky()
    close(low @ low.T, M)
    close(m.cholesky(upper=True), np.linalg.cholesky(M).T)
    close(low.cholesky_inverse(), np.linalg.inv(M))
    close(jg.tensor(np.eye(3)).cholesky_solve(low), np.linalg.inv(M))
    q, r = m.qr()
    close(q @ r, M)
    u, s, v = m.svd()
    close((u * s) @ v.T, M)
    close(s, np.linalg.svd(M)[1])
    close(m.dist(m * 0), np.linalg.norm(M))
    close(jg.chain_matmul(m, m, m), M @ M @ M)
    close(jg.matrix_exp(m * 0), np.eye(3))


def test_statistics():
    x = jg.tensor(V)
    close(jg.tensor(M).cov(), np.cov(M))
    close(jg.tensor(M).corrcoef(), np.corrcoef(M))
    close(x.quantile(0.3), np.quantile(V, 0.3))
    close(x.reshape(2, 4).quantile(jg.tensor([0.25, 0.75]), dim=1),
          np.quantile(V.reshape(2, 4), [0.25, 0.75], axis=1))
    assert jg.tensor([1, 1, 3]).bincount().tolist() == [0, 2, 0, 1]
    close(x.histc(bins=4, min=0, max=8), np.histogram(V, 4, (0, 8))[0])
    hist, edges = x.histogram(4)
    close(hist, np.histogram(V, 4)[0])
    close(edges, np.histogram(V, 4)[1])
    close(x.diff(), np.diff(V))
    with_nan = jg.tensor([1.0, np.nan, 3.0, 2.0])
    assert with_nan.nanmedian().item() == 2.0
    rows = V.reshape(2, 4)
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    close(x.reshape(2, 4).renorm(2, 0, 8.0), rows * np.minimum(1.0, 8.0 / norms))
    assert jg.tensor([1, 1, 2, 2, 2, 1]).unique_consecutive(return_counts=True)[1].tolist() == [2, 3, 1]
    assert jg.unique(jg.tensor([3, 1, 3])).tolist() == [1, 3]
    assert x.isin(jg.tensor([1.0, 9.0])).tolist() == [v in (1.0, 9.0) for v in V]


def test_splits_and_scatters_into_slices():
    x = jg.tensor(np.arange(12.0).reshape(3, 4))
    a = np.arange(12.0).reshape(3, 4)
    assert [t.shape for t in x.split_with_sizes([1, 3], 1)] == [(3, 1), (3, 3)]
    assert [t.shape for t in x.hsplit(2)] == [(3, 2), (3, 2)]
    close(x.sum_to_size(1, 4), a.sum(0, keepdims=True))
    close(x.select_scatter(jg.zeros(4, dtype=jg.float64), 0, 1), np.where(np.arange(3)[:, None] == 1, 0, a))
    want = a.copy()
    want[:, ::2] = -1
    close(x.slice_scatter(-jg.ones(3, 2, dtype=jg.float64), 1, 0, None, 2), want)
    want = a.copy()
    want[[0, 1, 2], [1, 2, 3]] = 7
    close(x.diagonal_scatter(jg.full((3,), 7.0, dtype=jg.float64), 1), want)
    close(x.nonzero_static(size=13), np.concatenate([np.argwhere(a), [[-1, -1], [-1, -1]]]))
    close(x.index_reduce(0, jg.tensor([0, 0, 2]), x, "amax", include_self=False),
          np.stack([np.maximum(a[0], a[1]), a[1], a[2]]))
    close(x.tile(2), np.tile(a, 2))


def test_top_level_helpers():
    close(jg.hann_window(5), np.hanning(6)[:5], atol=1e-7)
    close(jg.hamming_window(4, periodic=False), np.hamming(4), atol=1e-7)
    close(jg.tril_indices(3, 3), np.stack(np.tril_indices(3)))
    close(jg.triu_indices(3, 4, 1), np.stack(np.triu_indices(3, 1, 4)))
    assert jg.searchsorted(jg.tensor([1, 3, 5]), jg.tensor([3, 6]), right=True).tolist() == [2, 3]
    assert jg.bucketize(jg.tensor([0.5, 3.0]), jg.tensor([1.0, 3.0])).tolist() == [0, 1]
    close(jg.block_diag(jg.ones(1, 2), jg.tensor([[2.0]])), [[1, 1, 0], [0, 0, 2]])
    assert jg.cartesian_prod(jg.arange(2), jg.arange(3)).shape == (6, 2)
    assert jg.combinations(jg.arange(4), 2).tolist()[:2] == [[0, 1], [0, 2]]
    p = np.arange(6.0).reshape(3, 2)
    close(jg.cdist(jg.tensor(p), jg.tensor(p)), np.linalg.norm(p[:, None] - p[None], axis=-1))
    z = jg.complex(jg.tensor([1.0]), jg.tensor([2.0]))
    assert z.dtype == np.complex64 and jg.view_as_real(z).tolist() == [[1.0, 2.0]]
    close(jg.polar(jg.tensor([2.0]), jg.tensor([0.0])).real, [2.0])
    close(jg.trapezoid(jg.tensor(V)), np.trapezoid(V) if hasattr(np, "trapezoid") else np.trapz(V))
    close(jg.cumulative_trapezoid(jg.tensor(V)), np.cumsum((V[1:] + V[:-1]) / 2))
    assert jg.range(0, 2, 0.5).tolist() == [0.0, 0.5, 1.0, 1.5, 2.0]
    assert jg.scalar_tensor(3).dtype == np.float32 and jg.fill(jg.ones(2), 5).tolist() == [5, 5]
    assert jg.frombuffer(bytes([1, 2]), dtype=jg.uint8).tolist() == [1, 2]
    jg.manual_seed(7)
    assert jg.initial_seed() == 7
    state = jg.get_rng_state()
    a = jg.rand(3)
    jg.set_rng_state(state)
    close(jg.rand(3), np.asarray(a))


def test_in_place_and_copy_functions():
    x = jg.tensor([[1.0, 4.0], [9.0, 16.0]])
    assert jg.sqrt_(x) is x and x.tolist() == [[1, 2], [3, 4]]
    y = jg.t_copy(x)
    y[0, 0] = 100.0
    assert x[0, 0].item() == 1.0 and y.tolist() == [[100, 3], [2, 4]]
    x.t_()
    assert x.tolist() == [[1, 3], [2, 4]]
    x.unsqueeze_(0)
    assert x.shape == (1, 2, 2) and x.squeeze_().shape == (2, 2)
    with pytest.raises(TypeError, match=r"x.t_\(...\): a traced value"):
        jg.jit(lambda v: v.t_())(x)


def test_under_jit_and_grad():
    m = jg.tensor(M)
    f = jg.jit(lambda a: (a.det(), a.inverse(), a.cholesky(), a.diff(dim=0),
                          a.select_scatter(a[0] * 0, 0, 2)))
    det, inv, low, d, sel = f(m)
    close(det, np.linalg.det(M))
    close(inv, np.linalg.inv(M))
    close(low, np.linalg.cholesky(M))
    close(d, np.diff(M, axis=0))
    close(sel, np.concatenate([M[:2], 0 * M[:1]]))
    close(jg.grad(lambda a: a.det())(m), np.linalg.det(M) * np.linalg.inv(M).T)
    close(jg.grad(lambda a: a.logdet())(m), np.linalg.inv(M).T)


def test_fixed_answers_and_errors():
    x = jg.tensor([1.0])
    assert not x.is_sparse and not x.is_quantized and not x.is_conj() and not x.is_nested
    assert x.pin_memory() is x
    values, indices = x.nanmedian(0)            # torch's (values, indices), no longer refused
    assert float(values) == 1.0 and int(indices) == 0
    with pytest.raises(ValueError, match="unique: return_inverse and dim are not supported"):
        x.unique(return_inverse=True)
    with pytest.raises(ValueError, match="split: sizes \\[1, 1\\] sum to 2, but dim 0 has length 1"):
        x.split([1, 1])
