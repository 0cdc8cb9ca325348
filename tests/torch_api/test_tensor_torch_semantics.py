"""jg.Tensor methods mean what PyTorch means (jitgrad/torch_api): x.size(), x.transpose(0, 1),
x.repeat(*sizes), unbiased std/var, (values, indices) from max/min/sort with a dim; NumPy's
spellings (axis=, ddof=, keepdims=) keep NumPy's meaning. Expected values come from NumPy;
each case runs eagerly, under jit (compiled and on the interpreter) and, where differentiable,
under grad."""
import json
import pickle

import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad.torch_api import SHARED_NAMES, return_types

A = np.array([[3.0, 1.0, 4.0, 1.0], [5.0, 9.0, 2.0, 6.0], [5.0, 3.0, 5.0, 8.0]], np.float32)
B3 = np.arange(24, dtype=np.float32).reshape(2, 3, 4)


def _np_median_lower(a, axis):
    return np.take_along_axis(np.sort(a, axis, kind="stable"),
                              np.full([1 if d == axis else n for d, n in enumerate(a.shape)],
                                      (a.shape[axis] - 1) // 2), axis).squeeze(axis)


# name -> (jitgrad function of a tensor, NumPy reference of the array, input)
CASES = {
    "transpose_swap_2d": (lambda x: x.transpose(0, 1), lambda a: a.T, A),
    "transpose_swap_3d": (lambda x: x.transpose(0, 2), lambda a: np.swapaxes(a, 0, 2), B3),
    "transpose_numpy_perm": (lambda x: x.transpose(1, 2, 0), lambda a: a.transpose(1, 2, 0), B3),
    "transpose_numpy_tuple": (lambda x: x.transpose((2, 0, 1)), lambda a: a.transpose(2, 0, 1), B3),
    "transpose_numpy_reverse": (lambda x: x.transpose(), lambda a: a.transpose(), B3),
    "permute": (lambda x: x.permute(2, 0, 1), lambda a: a.transpose(2, 0, 1), B3),
    "t": (lambda x: x.t(), lambda a: a.T, A),
    "mT": (lambda x: x.mT, lambda a: np.swapaxes(a, -1, -2), B3),
    "swapdims": (lambda x: x.swapdims(0, 1), lambda a: np.swapaxes(a, 0, 1), B3),
    "movedim": (lambda x: x.movedim(0, -1), lambda a: np.moveaxis(a, 0, -1), B3),
    "repeat_tiles": (lambda x: x.repeat(2, 1), lambda a: np.tile(a, (2, 1)), A),
    "repeat_new_dims": (lambda x: x.repeat((2, 1, 1)), lambda a: np.tile(a, (2, 1, 1)), A),
    "repeat_numpy_axis": (lambda x: x.repeat(2, axis=0), lambda a: np.repeat(a, 2, 0), A),
    "repeat_interleave": (lambda x: x.repeat_interleave(2, dim=1), lambda a: np.repeat(a, 2, 1), A),
    "std_unbiased": (lambda x: x.std(), lambda a: a.std(ddof=1), A),
    "std_dim": (lambda x: x.std(1, keepdim=True), lambda a: a.std(1, ddof=1, keepdims=True), A),
    "std_biased": (lambda x: x.std(unbiased=False), lambda a: a.std(), A),
    "std_correction": (lambda x: x.std(dim=0, correction=0), lambda a: a.std(0), A),
    "std_numpy_ddof": (lambda x: x.std(ddof=0), lambda a: a.std(), A),
    "std_numpy_axis": (lambda x: x.std(axis=1), lambda a: a.std(1), A),
    "var_unbiased": (lambda x: x.var(0), lambda a: a.var(0, ddof=1), A),
    "var_numpy_keepdims": (lambda x: x.var(-1, keepdims=True), lambda a: a.var(-1, keepdims=True), A),
    "var_bool_unbiased": (lambda x: x.var(False), lambda a: a.var(), A),
    "max_all": (lambda x: x.max(), lambda a: a.max(), A),
    "max_dim": (lambda x: tuple(x.max(1)), lambda a: (a.max(1), a.argmax(1)), A),
    "max_dim_keepdim": (lambda x: tuple(x.max(dim=0, keepdim=True)),
                        lambda a: (a.max(0, keepdims=True), a.argmax(0)[None]), A),
    "max_other": (lambda x: x.max(x.T.mT * 0 + 4.0), lambda a: np.maximum(a, 4.0), A),
    "max_numpy_axis": (lambda x: x.max(axis=1), lambda a: a.max(1), A),
    "max_numpy_positional_keepdims": (lambda x: x.max(-1, keepdims=True),
                                      lambda a: a.max(-1, keepdims=True), A),
    "min_dim": (lambda x: tuple(x.min(0)), lambda a: (a.min(0), a.argmin(0)), A),
    "sort": (lambda x: tuple(x.sort()), lambda a: (np.sort(a, -1), np.argsort(a, -1, kind="stable")), A),
    "sort_descending": (lambda x: tuple(x.sort(dim=0, descending=True)),
                        lambda a: (-np.sort(-a, 0), np.argsort(-a, 0, kind="stable")), A),
    "sort_numpy_axis": (lambda x: x.sort(axis=0), lambda a: np.sort(a, 0), A),
    "argsort_descending": (lambda x: x.argsort(1, descending=True),
                           lambda a: np.argsort(-a, 1, kind="stable"), A),
    "median_lower": (lambda x: x.median(), lambda a: np.sort(a.ravel())[(a.size - 1) // 2], A),
    "median_dim": (lambda x: x.median(1).values, lambda a: _np_median_lower(a, 1), A),
    "median_numpy_axis": (lambda x: x.median(axis=1), lambda a: np.median(a, 1), A),
    "kthvalue": (lambda x: tuple(x.kthvalue(2, 1)),
                 lambda a: (np.sort(a, 1)[:, 1], np.argsort(a, 1, kind="stable")[:, 1]), A),
    "topk": (lambda x: tuple(x.topk(2)),
             lambda a: (-np.sort(-a, 1)[:, :2], np.argsort(-a, 1, kind="stable")[:, :2]), A),
    "topk_smallest": (lambda x: x.topk(2, dim=0, largest=False).values, lambda a: np.sort(a, 0)[:2], A),
    "mode": (lambda x: tuple(x.mode(1)),
             lambda a: (np.array([1.0, 2.0, 5.0]), np.array([3, 2, 2])), A),
    "cummax": (lambda x: tuple(x.cummax(1)), lambda a: (np.maximum.accumulate(a, 1),
               np.array([[0, 0, 2, 2], [0, 1, 1, 1], [0, 0, 2, 3]])), A),
    "cummin": (lambda x: x.cummin(0).values, lambda a: np.minimum.accumulate(a, 0), A),
    "sum_dim_keepdim": (lambda x: x.sum(dim=1, keepdim=True), lambda a: a.sum(1, keepdims=True), A),
    "sum_dims_tuple": (lambda x: x.sum((0, 2)), lambda a: a.sum((0, 2)), B3),
    "mean_numpy": (lambda x: x.mean(axis=0, keepdims=True), lambda a: a.mean(0, keepdims=True), A),
    "prod_dtype": (lambda x: x.prod(1, dtype=jg.float64), lambda a: a.prod(1, dtype=np.float64), A),
    "amax": (lambda x: x.amax(dim=(0, 1)), lambda a: a.max((0, 1)), B3),
    "argmax_keepdim": (lambda x: x.argmax(1, keepdim=True), lambda a: a.argmax(1)[:, None], A),
    "logsumexp": (lambda x: x.logsumexp(1), lambda a: np.log(np.exp(a).sum(1)), A),
    "norm": (lambda x: x.norm(dim=1), lambda a: np.sqrt((a * a).sum(1)), A),
    "softmax_dim": (lambda x: x.softmax(dim=0), lambda a: np.exp(a) / np.exp(a).sum(0), A),
    "log_softmax_dim": (lambda x: x.log_softmax(1), lambda a: a - np.log(np.exp(a).sum(1, keepdims=True)), A),
    "cumsum_dim": (lambda x: x.cumsum(dim=1), lambda a: a.cumsum(1), A),
    "flatten_range": (lambda x: x.flatten(1), lambda a: a.reshape(2, 12), B3),
    "unflatten": (lambda x: x.unflatten(1, (2, 2)), lambda a: a.reshape(3, 2, 2), A),
    "view": (lambda x: x.view(-1, 2), lambda a: a.reshape(-1, 2), A),
    "narrow": (lambda x: x.narrow(1, 1, 2), lambda a: a[:, 1:3], A),
    "unfold": (lambda x: x.unfold(1, 2, 1), lambda a: np.stack([a[:, i:i + 2] for i in range(3)], 1), A),
    "chunk": (lambda x: x.chunk(2, 1), lambda a: (a[:, :2], a[:, 2:]), A),
    "split_sizes": (lambda x: x.split([1, 3], dim=1), lambda a: (a[:, :1], a[:, 1:]), A),
    "split_size": (lambda x: x.split(2), lambda a: (a[:2], a[2:]), A),
    "unbind": (lambda x: x.unbind(1), lambda a: tuple(a[:, i] for i in range(4)), A),
    "squeeze_kept": (lambda x: x[None].squeeze(1), lambda a: a[None], A),
    "flip_dims": (lambda x: x.flip(0), lambda a: a[::-1], A),
    "roll": (lambda x: x.roll(1, 1), lambda a: np.roll(a, 1, 1), A),
    "diag_embed": (lambda x: x.diag_embed(), lambda a: np.stack([np.diag(r) for r in a]), A),
    "gather": (lambda x: x.gather(1, jnp.array([[0, 0], [3, 1], [2, 2]])),
               lambda a: np.take_along_axis(a, np.array([[0, 0], [3, 1], [2, 2]]), 1), A),
    "scatter": (lambda x: x.scatter(0, jnp.array([[2, 0, 1, 0]]), 7.0),
                lambda a: _set(a, ([2, 0, 1, 0], [0, 1, 2, 3]), 7.0), A),
    "scatter_add": (lambda x: x.scatter_add(1, jnp.array([[0, 0], [1, 1], [3, 3]]), x[:, :2]),
                    lambda a: a + np.array([[4, 0, 0, 0], [0, 14, 0, 0], [0, 0, 0, 8]], np.float32), A),
    "scatter_reduce_amax": (lambda x: x.scatter_reduce(1, jnp.array([[0, 0]] * 3), x[:, 2:], "amax",
                                                       include_self=False),
                            lambda a: _set(a, (np.arange(3), 0), a[:, 2:].max(1)), A),
    "index_select": (lambda x: x.index_select(1, jnp.array([3, 0])), lambda a: a[:, [3, 0]], A),
    "index_add": (lambda x: x.index_add(0, jnp.array([0, 0]), x[1:], alpha=2),
                  lambda a: a + np.stack([2 * (a[1] + a[2]), 0 * a[0], 0 * a[0]]), A),
    "index_fill": (lambda x: x.index_fill(1, jnp.array([1]), -1.0), lambda a: _set(a, (slice(None), 1), -1), A),
    "masked_fill": (lambda x: x.masked_fill(x > 4, 0.0), lambda a: np.where(a > 4, 0, a), A),
    "masked_scatter": (lambda x: x.masked_scatter(x > 4, -x),
                       lambda a: _set(a, a > 4, -a.ravel()[:int((a > 4).sum())]), A),
    "where_method": (lambda x: x.where(x > 2, -1.0), lambda a: np.where(a > 2, a, -1), A),
    "add_alpha": (lambda x: x.add(x, alpha=2), lambda a: 3 * a, A),
    "sub_alpha": (lambda x: x.sub(1, alpha=2), lambda a: a - 2, A),
    "div_trunc": (lambda x: (-x).div(2, rounding_mode="trunc"), lambda a: np.trunc(-a / 2), A),
    "div_floor": (lambda x: (-x).div(2, rounding_mode="floor"), lambda a: np.floor(-a / 2), A),
    "fmod": (lambda x: (x - 5).fmod(3), lambda a: np.fmod(a - 5, 3), A),
    "clamp": (lambda x: x.clamp(2, 5), lambda a: np.clip(a, 2, 5), A),
    "clamp_min": (lambda x: x.clamp(min=4), lambda a: np.maximum(a, 4), A),
    "lerp": (lambda x: x.lerp(x * 0, 0.25), lambda a: 0.75 * a, A),
    "addcmul": (lambda x: x.addcmul(x, x, value=0.5), lambda a: a + 0.5 * a * a, A),
    "addmm": (lambda x: x[:, :3].addmm(x, x.T, beta=0.5, alpha=2),
              lambda a: 0.5 * a[:, :3] + 2 * a @ a.T, A),
    "mm": (lambda x: x.mm(x.T), lambda a: a @ a.T, A),
    "eq": (lambda x: x.eq(1.0), lambda a: a == 1, A),
    "frac": (lambda x: (x / 3).frac(), lambda a: a / 3 - np.trunc(a / 3), A),
    "tril": (lambda x: x.tril(-1), lambda a: np.tril(a, -1), A),
    "new_ones": (lambda x: x.new_ones(2, 3), lambda a: np.ones((2, 3), np.float32), A),
    "expand_as": (lambda x: x[:1].expand_as(x), lambda a: np.broadcast_to(a[:1], a.shape), A),
    "to_dtype": (lambda x: x.to(jg.float64), lambda a: a.astype(np.float64), A),
    "long": (lambda x: x.long(), lambda a: a.astype(np.int64), A),
}


def _set(a, key, value):
    out = a.copy()
    out[key] = value
    return out


def _check(got, want):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want), (type(got), len(want))
        for g, w in zip(got, want):
            _check(g, w)
        return
    want = np.asarray(want)
    got = np.asarray(got)
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", CASES)
def test_eager(name):
    fn, ref, a = CASES[name]
    _check(fn(jg.tensor(a)), ref(a))


JIT_CASES = [n for n in CASES if n not in ("to_dtype",)]


@pytest.mark.interpreter
@pytest.mark.parametrize("name", JIT_CASES)
def test_jit_interpreter(name):
    fn, ref, a = CASES[name]
    _check(jg.jit(fn)(jg.tensor(a)), ref(a))


def test_jit_compiled():
    """The resolutions in one compiled function (one compile): size() is static there too."""
    def f(x):
        values, indices = x.max(1)
        return (x.transpose(0, 1) * x.size(1), x.repeat(1, 2), x.std(0), values, indices,
                x.sort(descending=True).values, x.var(ddof=0), x.softmax(dim=1))
    a = A
    got = jg.jit(f)(jg.tensor(a))
    want = (a.T * 4, np.tile(a, (1, 2)), a.std(0, ddof=1), a.max(1), a.argmax(1),
            -np.sort(-a, 1), a.var(), np.exp(a) / np.exp(a).sum(1, keepdims=True))
    _check(tuple(got), want)


def test_named_tuples_come_back_from_jit():
    out = jg.jit(lambda x: x.max(dim=1))(jg.tensor(A))
    assert type(out) is return_types.max and out._fields == ("values", "indices")
    np.testing.assert_array_equal(out.indices, A.argmax(1))


GRADS = {
    "std": (lambda x: x.std(), lambda a: (a - a.mean()) / (a.std(ddof=1) * (a.size - 1))),
    "var_dim": (lambda x: x.var(1).sum(),
                lambda a: 2 * (a - a.mean(1, keepdims=True)) / (a.shape[1] - 1)),
    "max_dim_values": (lambda x: x.max(1).values.sum(),
                       lambda a: (np.arange(4) == a.argmax(1)[:, None]).astype(np.float32)),
    "sort_values": (lambda x: (x.sort(1).values * jnp.arange(4.0)).sum(),
                    lambda a: np.argsort(np.argsort(a, 1, kind="stable"), 1).astype(np.float32)),
    "transpose": (lambda x: (x.transpose(0, 1) * jnp.arange(3.0)).sum(),
                  lambda a: np.broadcast_to(np.arange(3.0)[:, None], a.shape)),
    "repeat": (lambda x: x.repeat(2, 3).sum(), lambda a: np.full(a.shape, 6.0)),
    "gather": (lambda x: x.gather(1, jnp.array([[0, 0]] * 3)).sum(),
               lambda a: np.where(np.arange(4) == 0, 2.0, 0.0) * np.ones((3, 1))),
}


@pytest.mark.parametrize("name", GRADS)
def test_grad_eager_and_jit(name):
    fn, ref = GRADS[name]
    a = A.astype(np.float64) + np.arange(12).reshape(3, 4) * 1e-3    # no ties
    want = ref(a)
    np.testing.assert_allclose(jg.grad(fn)(jg.tensor(a)), want, rtol=1e-6, atol=1e-9)
    x = jg.tensor(a, requires_grad=True)
    fn(x).backward()
    np.testing.assert_allclose(x.grad, want, rtol=1e-6, atol=1e-9)


def test_vmap_of_dim_methods():
    out = jg.vmap(lambda r: r.max(0).values + r.std() + r.transpose(0, 0).sum(0))(jg.tensor(A))
    np.testing.assert_allclose(out, A.max(1) + A.std(1, ddof=1) + A.sum(1), rtol=1e-5)


def test_size_is_an_int_and_callable():
    x = jg.tensor(B3)
    assert x.size == 24 and isinstance(x.size, int) and x.size + 1 == 25
    assert list(range(x.size))[-1] == 23 and json.dumps({"n": x.size}) == '{"n": 24}'
    assert x.size() == (2, 3, 4) and isinstance(x.size(), jg.Size)
    assert x.size(1) == 3 and x.size(-1) == 4 and x.size()[1:] == jg.Size([3, 4])
    assert x.size().numel() == 24 and repr(x.size()) == "jitgrad.Size([2, 3, 4])"
    assert pickle.loads(pickle.dumps(x.size)) == 24
    assert pickle.loads(pickle.dumps(x.size))() == (2, 3, 4)
    assert x.numel() == x.nelement() == 24 and x.dim() == x.ndimension() == 3
    assert jg.numel(x) == 24 and x.element_size() == 4
    with pytest.raises(IndexError, match=r"size\(3\): dimension out of range for a 3-d tensor"):
        x.size(3)
    with pytest.raises(TypeError, match="expected an int dim, got str"):
        x.size("a")


def test_size_of_traced_values():
    def f(x):
        assert x.size == 12 and x.size() == (3, 4) and x.size(-2) == 3
        return x.reshape(x.size(1), x.size(0))
    assert jg.jit(f)(jg.tensor(A)).shape == (4, 3)


def test_resolution_errors():
    x = jg.tensor(B3)
    with pytest.raises(TypeError, match=r"expected two dims to swap .* permutation of all 3 dims"):
        x.transpose(0)
    with pytest.raises(ValueError, match=r"number of repeat dims \(2\) can not be smaller .* \(3\)"):
        x.repeat(2, 2)
    with pytest.raises(ValueError, match="t\\(\\) expects a tensor with <= 2 dimensions"):
        x.t()
    with pytest.raises(TypeError, match="pass the dims once"):
        x.max(0, axis=1)
    with pytest.raises(TypeError, match="pass unbiased= or correction=, not both"):
        x.std(0, True, correction=1)
    with pytest.raises(ValueError, match="rounding_mode must be None, 'trunc' or 'floor'"):
        x.div(2, rounding_mode="round")
    with pytest.raises(IndexError, match="kthvalue: k=5 is out of range"):
        x.kthvalue(5)
    with pytest.raises(ValueError, match=r"gather: index shape \(3, 1, 1\) exceeds"):
        x.gather(2, jnp.zeros((3, 1, 1), "int64"))


def test_in_place_methods_write_storage_and_views():
    x = jg.tensor(A.copy())
    view = x[0]
    assert x.add_(1, alpha=2) is x
    np.testing.assert_allclose(view, A[0] + 2)
    x.mul_(x).clamp_(max=30.0).sub_(1)
    np.testing.assert_allclose(x, np.minimum((A + 2) ** 2, 30) - 1)
    x.masked_fill_(x > 20, 0.0).index_fill_(1, jnp.array([0]), 5.0)
    assert x[0, 0].item() == 5.0
    y = jg.tensor([1.0, 2.0, 3.0])
    y.eq_(jg.tensor([1.0, 0.0, 3.0]))                 # bool result cast to the tensor's dtype
    np.testing.assert_array_equal(y, [1.0, 0.0, 1.0])
    i = jg.tensor([1, 2])
    with pytest.raises(TypeError, match="can't be cast to int64"):
        i.div_(2)
    z = jg.tensor(A.copy())
    z.scatter_(1, jnp.array([[0]] * 3), 0.0).copy_(z.exp())
    np.testing.assert_allclose(z, np.exp(np.where(np.arange(4) == 0, 0, A)), rtol=1e-6)


def test_in_place_methods_under_autograd():
    w = jg.tensor(A, requires_grad=True)
    h = w * 1.0
    h.mul_(2).add_(w)                                  # h = 3 w, recorded
    h.sum().backward()
    np.testing.assert_allclose(w.grad, np.full(A.shape, 3.0))
    with pytest.raises(RuntimeError, match="leaf tensor that requires grad"):
        w.add_(1)


def test_in_place_on_traced_values_points_to_the_out_of_place_form():
    with pytest.raises(TypeError, match=r"x.add_\(...\): a traced value .* is immutable; use the "
                                        r"out-of-place x.add\(...\)"):
        jg.jit(lambda x: x.add_(1))(jg.tensor(A))


def test_random_in_place_draws_follow_manual_seed():
    jg.manual_seed(3)
    a = jg.zeros(1000).normal_(2.0, 0.5)
    jg.manual_seed(3)
    b = jg.zeros(1000).normal_(2.0, 0.5)
    np.testing.assert_array_equal(a, b)
    assert abs(a.mean().item() - 2.0) < 0.1 and abs(a.std().item() - 0.5) < 0.1
    u = jg.empty(500).uniform_(-1, 1)
    assert u.min().item() >= -1 and u.max().item() < 1
    bern = jg.zeros(2000).bernoulli_(0.25)
    assert set(np.unique(bern.numpy())) <= {0.0, 1.0} and abs(bern.mean().item() - 0.25) < 0.05
    assert jg.zeros(3, dtype="int64").random_(5, 7).min().item() >= 5
    assert jg.zeros(4).fill_(2.5).sum().item() == 10.0


def test_view_as_a_dtype_shares_storage():
    x = jg.tensor([1.0, -2.0], dtype=jg.float32)
    bits = x.view(jg.int32)
    np.testing.assert_array_equal(bits, np.array([1.0, -2.0], np.float32).view(np.int32))
    bits[0] = 0                                    # the same storage, as torch's
    assert x[0].item() == 0.0 and x.view("uint8").shape == (8,)
    with pytest.raises(ValueError, match="do not divide into 8-byte elements"):
        jg.tensor([1.0, 2.0, 3.0]).view(jg.float64)
    with pytest.raises(TypeError, match=r"only an eager CPU tensor's storage .* x.to\(int32\)"):
        jg.jit(lambda v: v.view(jg.int32))(x)


def test_conversions_and_metadata():
    x = jg.tensor(A)
    assert x.type() == "torch.FloatTensor" and x.type(jg.float64).dtype == np.float64
    assert x.type(jg.LongTensor).dtype == np.int64 and x.type("torch.DoubleTensor").dtype == np.float64
    assert isinstance(x, jg.FloatTensor) and not isinstance(x, jg.LongTensor)
    assert jg.FloatTensor([1, 2]).dtype == np.float32 and jg.LongTensor(2, 3).shape == (2, 3)
    assert isinstance(x.dtype, jg.dtype) and x.to(memory_format=jg.channels_last).shape == x.shape
    assert x.type("torch.LongTensor").dtype == np.int64
    assert x.to("cpu", jg.float64).dtype == np.float64 and x.to(jg.tensor([1])).dtype == np.int64
    assert x.double().dtype == np.float64 and x.half().dtype == np.float16
    assert x.int().dtype == np.int32 and x.bool().dtype == np.bool_ and x.byte().dtype == np.uint8
    assert x.is_floating_point() and not x.is_complex() and x.is_contiguous()
    assert x.stride() == (4, 1) and not x.is_cuda and x.is_cpu and x.get_device() == -1
    assert x.new_full((2,), 3).tolist() == [3.0, 3.0] and x.new_tensor([1, 2]).dtype == np.float32
    w = jg.tensor(A, requires_grad=True)
    d = w.data
    assert not d.requires_grad and np.shares_memory(np.asarray(d), np.asarray(w.detach()))
    assert jg.long == np.int64 and jg.float == np.float32 and jg.double == np.float64
    assert jg.is_tensor(x) and not jg.is_tensor(A)


def test_top_level_functions_mean_torch():
    x = jg.tensor(A)
    np.testing.assert_allclose(jg.std(x, 1), A.std(1, ddof=1), rtol=1e-6)
    assert jg.max(x, 1).indices.tolist() == A.argmax(1).tolist()
    np.testing.assert_allclose(jg.max(x, x * 0 + 4), np.maximum(A, 4))
    assert jg.sort(x, descending=True).values[0].tolist() == sorted(A[0], reverse=True)
    np.testing.assert_allclose(jg.sum(x, dim=0), A.sum(0))
    assert jg.cat([x, x], dim=1).shape == (3, 8) and jg.stack([x, x], 2).shape == (3, 4, 2)
    assert [t.shape for t in jg.meshgrid(jg.arange(2), jg.arange(3))] == [(2, 3), (2, 3)]
    assert jg.where(x > 4)[0].tolist() == np.nonzero(A > 4)[0].tolist()
    np.testing.assert_allclose(jg.clamp(x, max=2), np.minimum(A, 2))
    assert jg.zeros_like(x).dtype == np.float32 and jg.full_like(x, 7).sum().item() == 84
    assert jg.from_numpy(A).shape == (3, 4) and jg.eye(2, 3).shape == (2, 3)
    assert jg.topk(x, 1).values.shape == (3, 1) and jg.allclose(x, x) and jg.equal(x, x)
    assert jg.linspace(0, 1, 5).shape == (5,) and jg.logspace(0, 2, 3).tolist() == [1, 10, 100]
    np.testing.assert_allclose(jg.einsum("ij,kj->ik", x, x), A @ A.T, rtol=1e-6)
    jg.manual_seed(0)
    draws = jg.multinomial(jg.tensor([0.0, 1.0, 0.0, 3.0]), 2)
    assert sorted(draws.tolist()) == [1, 3]
    assert jg.randperm(5).sort().values.tolist() == [0, 1, 2, 3, 4]


def test_compile_accepts_torch_options():
    f = jg.compile(lambda x: x.max(1).values * 2, mode="max-autotune", fullgraph=True,
                   dynamic=False, backend="inductor")
    np.testing.assert_allclose(f(jg.tensor(A)), A.max(1) * 2)
    g = jg.compile(mode="reduce-overhead")(lambda x: x + 1)
    assert g(jg.tensor(1.0)).item() == 2.0
    model = jg.nn.Linear(4, 2)
    compiled = jg.compile(model, fullgraph=True)
    x = jg.tensor(A)
    np.testing.assert_allclose(compiled(x), model(x), rtol=1e-6)
    compiled(x).sum().backward()                   # a compiled call records one op for autograd
    np.testing.assert_allclose(model.weight.grad, np.broadcast_to(A.sum(0), (2, 4)), rtol=1e-5)
    assert jg.compile(model, disable=True) is model
    assert compiled.weight is model.weight and compiled._orig_mod is model
    with pytest.raises(TypeError, match="compile: expected a function or nn.Module, got int"):
        jg.compile(3)


def test_the_naming_table():
    for name, row in SHARED_NAMES.items():
        assert len(row) == 3 and all(isinstance(s, str) and s for s in row), name
        assert hasattr(jg.Tensor, name), name
    must = {"size", "transpose", "repeat", "std", "var", "max", "min", "sort", "median",
            "nonzero", "softmax"}
    assert must <= set(SHARED_NAMES)
    x = jg.tensor([[0, 2], [3, 0]])
    assert x.nonzero().tolist() == [[0, 1], [1, 0]]
    assert [i.tolist() for i in x.nonzero(as_tuple=True)] == [[0, 1], [1, 0]]


def test_format_of_a_0d_tensor_is_its_items():
    """torch.Tensor.__format__: f"{loss:.3f}" formats a 0-d tensor's item; other shapes take
    only the empty spec."""
    x = jg.tensor(0.123456)
    assert f"{x:+.2f}" == "+0.12" and "{:.3e}".format(x) == "1.235e-01"
    assert f"{jg.tensor(7):04d}" == "0007"
    assert f"{jg.tensor([1.0, 2.0])}" == repr(jg.tensor([1.0, 2.0]))
    with pytest.raises(TypeError, match="unsupported format string"):
        f"{jg.tensor([1.0, 2.0]):.2f}"
