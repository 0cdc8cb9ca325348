"""Issue 49: PyTorch's rule for 0-d tensors in jg.Tensor's operators and the torch-named
functions (torch.result_type): a 0-d tensor meeting dimensioned tensors ranks below them unless
its kind (bool < int < float < complex) is higher, so `float32 [3] + float64 []` is float32 and
`int8 [3] + int64 []` int8, while `int32 [3] + float64 []` is float64. The same dtype and values
on eager, jit (compiled and interpreter), grad and vmap (per example); jitgrad.numpy keeps JAX's
lattice, where a 0-d array is an array like any other.

Expected dtypes: PyTorch's table in tests/support/promotion_table.py (TORCH_ZERO_DIM, produced
with torch 2.13), JAX's for jitgrad.numpy."""
from __future__ import annotations

import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad.ir.types import dtype_from_short
from tests.support.promotion_table import ZERO_DIM_ORDER as ORDER, expected, torch_zero_dim_table

TABLE = torch_zero_dim_table()
PAIRS = [(a, b) for a in ORDER for b in ORDER]
# one pair per pair of kinds where the rule differs from JAX's lattice, plus two where it
# agrees (a higher kind in the 0-d tensor), compiled (each dtype pair is its own kernel)
COMPILED = [("f32", "f64"), ("i8", "i64"), ("u8", "i8"), ("f16", "f32"), ("bf16", "f64"),
            ("f16", "c128"), ("f32", "c128"), ("c64", "f64"), ("i32", "f64"), ("bool", "i64")]


def _dims(name):
    return np.array([1, 0, 3]).astype(dtype_from_short(name))


def _zero(name):
    return np.array(2).astype(dtype_from_short(name))


def _check(got, pairs, op=np.add):
    wrong = []
    for (a, b), r in zip(pairs, got):
        r = np.asarray(r)
        want = TABLE[a, b]
        value = op(_dims(a).astype(want), _zero(b).astype(want))
        if r.dtype != want or not np.array_equal(r, value):
            wrong.append(f"{a}[3] + {b}[]: {r.dtype} {r.tolist()}, want {want} {value.tolist()}")
    assert not wrong, wrong


def _sums(pairs):
    return lambda xs, zs: [xs[a] + zs[b] for a, b in pairs]


def _args(pairs):
    return ({a: jnp.asarray(_dims(a)) for a, _ in pairs},
            {b: jnp.asarray(_zero(b)) for _, b in pairs})


def test_every_pair_of_kinds_eager():
    _check(_sums(PAIRS)(*_args(PAIRS)), PAIRS)


def test_reflected_operators_and_products_eager():
    xs, zs = _args(PAIRS)
    _check([zs[b] + xs[a] for a, b in PAIRS], PAIRS)
    _check([xs[a] * zs[b] for a, b in PAIRS], PAIRS, np.multiply)


@pytest.mark.interpreter
def test_every_pair_of_kinds_jit_interpreter():
    _check(jg.jit(_sums(PAIRS))(*_args(PAIRS)), PAIRS)


def test_pairs_compiled():
    _check(jg.jit(_sums(COMPILED))(*_args(COMPILED)), COMPILED)


def test_every_pair_traces_to_torchs_dtype():
    graph = jg.make_graph(_sums(PAIRS))(*_args(PAIRS))
    assert [np.dtype(v.type.dtype) for v in graph.outputs] == \
        [TABLE[p] for p in PAIRS]


def test_jnp_keeps_jaxs_lattice_on_the_same_inputs():
    xs, zs = _args(PAIRS)
    got = [jnp.add(xs[a], zs[b]).dtype for a, b in PAIRS]
    assert got == [expected(a, b, np.dtype("float32")) for a, b in PAIRS]
    assert jnp.result_type(xs["f32"], zs["f64"]) == np.float64
    assert jnp.multiply(xs["i8"], zs["i64"]).dtype == np.int64


def test_the_zero_dim_operand_is_cast_before_the_op():
    # int8 [3] + int64 [] 300: 300 becomes int8's 44 (torch: [45, 46, 47]); a true division
    # computes in the default float, dividing by 300 itself (torch: 1/300 in float32)
    i8, big = jg.tensor([1, 2, 3], dtype=jg.int8), jg.tensor(300)
    assert (i8 + big).tolist() == [45, 46, 47] and (i8 + big).dtype == jg.int8
    q = i8 / big
    assert q.dtype == jg.float32
    np.testing.assert_array_equal(q.numpy(), np.float32([1, 2, 3]) / np.float32(300))
    # 2**24 + 1 compares as float32 (torch: True): the 0-d float64 is rounded first
    assert (jg.tensor([16777216.0]) == jg.tensor(16777217.0, dtype=jg.float64)).tolist() == [True]
    assert jg.jit(lambda a, b: a / b)(i8, big).dtype == jg.float32


def test_grad_flows_through_the_cast():
    x = jg.tensor([0.5, 1.5, -2.0])
    s = jg.tensor(3.0, dtype=jg.float64)
    gs, gx = jg.grad(lambda s, x: (x * s).sum(), argnums=(0, 1))(s, x)
    assert gs.dtype == jg.float64 and float(gs) == 0.0
    assert gx.dtype == jg.float32 and gx.tolist() == [3.0, 3.0, 3.0]
    assert jg.grad(lambda s, x: (x * s * s).sum())(s, x).dtype == jg.float64
    # eager autograd: the 0-d leaf's gradient keeps its dtype
    s.requires_grad = True
    out = x * s
    assert out.dtype == jg.float32
    out.sum().backward()
    assert s.grad.dtype == jg.float64 and float(s.grad) == 0.0


def test_vmap_applies_the_rule_per_example():
    x = jg.tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    s = jg.tensor([1.0, 2.0], dtype=jg.float64)
    got = jg.vmap(lambda x, s: x + s)(x, s)          # per example: float32 [3] + float64 []
    assert got.dtype == jg.float32
    np.testing.assert_array_equal(got.numpy(), x.numpy() + np.float32([[1], [2]]))
    assert jg.vmap(lambda x, s: x + s, in_axes=(0, None))(x, s[0]).dtype == jg.float32
    # per example both 0-d: the lattice
    assert jg.vmap(lambda x, s: x + s)(x[:, 0], s).dtype == jg.float64
    assert jg.vmap(lambda x, s: x + s)(x[:, 0], s).tolist() == [1.0, 5.0]


def test_torch_named_functions_and_methods():
    x, s = jg.tensor([1.0, 0.0, 3.0]), jg.tensor(2.0, dtype=jg.float64)
    i8, n = jg.tensor([1, 0, 3], dtype=jg.int8), jg.tensor(2)
    cond = jg.tensor([True, False, True])
    for fn in (jg.add, jg.sub, jg.mul, jg.div, jg.true_divide, jg.maximum, jg.minimum, jg.pow,
               jg.atan2, jg.hypot, jg.remainder, jg.fmod, jg.fmax, jg.copysign, jg.logaddexp,
               jg.rsub, lambda a, b: a.mul(b), lambda a, b: a.maximum(b),
               lambda a, b: a.pow(b), lambda a, b: jg.where(cond, a, b),
               lambda a, b: jg.where(cond, b, a), lambda a, b: a.add(b, alpha=2),
               lambda a, b: a.max(b), lambda a, b: a.min(b), jg.nextafter,
               lambda a, b: jg.lerp(a, a, b), lambda a, b: a.addcmul(a, b),
               lambda a, b: a.addcdiv(a, b, value=2)):
        assert fn(x, s).dtype == jg.float32, fn
    for fn in (jg.add, jg.mul, jg.floor_divide, jg.remainder, jg.bitwise_and, jg.maximum,
               lambda a, b: a.div(b, rounding_mode="floor"), jg.fmod):
        assert fn(i8, n).dtype == jg.int8, fn
    for fn in (jg.eq, jg.lt, jg.ge, jg.logical_and):
        assert fn(x, s).dtype == jg.bool_, fn
    assert jg.div(i8, n).dtype == jg.float32 and jg.atan2(i8, n).dtype == jg.float32
    assert jg.add(i8, jg.tensor(1.5, dtype=jg.float64)).dtype == jg.float64


def test_clamp_gcd_lcm_and_special_pairs():
    """clamp promotes over its bounds as torch 2.13 does (clamp(int, min=0.5) is float; a 0-d
    float64 bound keeps a float32 input float32); gcd/lcm and xlogy/igamma rank a 0-d operand
    below (torch 2.13's dtypes and values, checked with torch)."""
    ints = jg.tensor([0, 1, 2])
    got = jg.clamp(ints, min=0.5)
    assert got.dtype == jg.float32 and got.tolist() == [0.5, 1.0, 2.0]
    assert ints.clamp(max=jg.tensor(1.5)).tolist() == [0.0, 1.0, 1.5]
    x = jg.tensor([-2.0, 0.5, 3.0])
    got = x.clamp(jg.tensor(-1.0, dtype=jg.float64), jg.tensor(1.0, dtype=jg.float64))
    assert got.dtype == jg.float32 and got.tolist() == [-1.0, 0.5, 1.0]
    assert x.clamp(min=jg.tensor([0.0, 1.0, 0.0], dtype=jg.float64)).dtype == jg.float64
    i8 = jg.tensor([4, 6, 9], dtype=jg.int8)
    g = jg.gcd(i8, jg.tensor(6))
    assert g.dtype == jg.int8 and g.tolist() == [2, 6, 3]
    assert i8.lcm(jg.tensor(2)).dtype == jg.int8
    assert jg.xlogy(x, jg.tensor(2.0, dtype=jg.float64)).dtype == jg.float32
    assert jg.xlogy(i8, jg.tensor(300)).dtype == jg.float32     # 300, not 300 wrapped to int8
    np.testing.assert_allclose(jg.xlogy(i8, jg.tensor(300)).numpy(), [4 * np.log(300),
                               6 * np.log(300), 9 * np.log(300)], rtol=1e-6)


def test_torch_result_type():
    x, s = jg.tensor([1.0, 2.0]), jg.tensor(1.0, dtype=jg.float64)
    i8 = jg.tensor([1, 2], dtype=jg.int8)
    assert jg.result_type(x, s) == jg.float32 and jg.result_type(s, x) == jg.float32
    assert jg.result_type(i8, jg.tensor(5)) == jg.int8
    assert jg.result_type(i8, jg.tensor(1.5)) == jg.float32
    assert jg.result_type(i8, 2.5) == jg.float32 and jg.result_type(i8, 2) == jg.int8
    assert jg.result_type(s, s) == jg.float64
    assert jg.promote_types(jg.float32, jg.float64) == jg.float64     # dtypes: the lattice
    with pytest.raises(TypeError, match="result_type: expected a tensor or a number, got str"):
        jg.result_type(x, "float64")


def test_in_place_operators_compute_in_the_tensors_dtype():
    x = jg.tensor([16777216.0, 1.0])
    x += jg.tensor(1.0, dtype=jg.float64)
    assert x.dtype == jg.float32 and x.tolist() == [16777216.0, 2.0]
    n = jg.tensor([1, 2], dtype=jg.int8)
    n *= jg.tensor(3)
    assert n.dtype == jg.int8 and n.tolist() == [3, 6]


def test_weak_complex_scalar_keeps_half_precision_as_complex64():
    for dt in (jg.float16, jnp.bfloat16):
        assert (jg.ones(2, dtype=dt) * 1j).dtype == jg.complex64
        assert jnp.multiply(jg.ones(2, dtype=dt), 1j).dtype == jg.complex64


def test_torch_agrees():
    torch = pytest.importorskip("torch")
    names = {n: dtype_from_short(n).name for n in ORDER}
    for a, b in PAIRS:
        ta, tb = getattr(torch, names[a]), getattr(torch, names[b])
        want = str(torch.result_type(torch.ones(3, dtype=ta), torch.ones((), dtype=tb)))
        want = {"torch.complex32": "torch.complex64"}.get(want, want)
        got = (jg.ones(3, dtype=dtype_from_short(a)) + jg.ones((), dtype=dtype_from_short(b)))
        assert f"torch.{got.dtype.name}" == want, (a, b)
    xt = torch.ones(3) * torch.tensor(2.0, dtype=torch.float64)
    assert xt.dtype == torch.float32
    i8 = torch.tensor([1, 2, 3], dtype=torch.int8)
    assert (i8 + torch.tensor(300)).tolist() == [45, 46, 47]
    assert torch.vmap(lambda x, s: x + s)(torch.ones(2, 3), torch.ones(2, dtype=torch.float64)) \
        .dtype == torch.float32
