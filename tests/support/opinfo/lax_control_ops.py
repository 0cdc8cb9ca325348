"""jitgrad.lax's products, convolutions, array makers and control flow (JAX owns the names;
NumPy references, jax.lax's own function where jax is installed). lax_ops.py gathers them."""
import numpy as np

import jitgrad.lax as lax
from .core import FLOATS, I64, INTS, Bools, Ints, err, table

RECORDS, record = table("jax", "jax.lax.")
NO_ARGS = dict(dtypes=(I64,), differentiable=False, batchable=False, owner_path=None)

record("dot_general", lax.dot_general, lambda a, b, dimension_numbers: np.einsum(
    "bij,bjk->bik", a, b), [((2, 3, 4), (2, 4, 5))], dtypes=FLOATS, tol=1e-4,
    kwargs={"dimension_numbers": (((2,), (1,)), ((0,), (0,)))})
record("dot_general", lax.dot_general, lambda a, b, dimension_numbers: np.tensordot(a, b, (
    [0], [1])), [((3, 4), (2, 3))], dtypes=FLOATS, tol=1e-4,
    kwargs={"dimension_numbers": (((0,), (1,)), ((), ()))},
    errors=(err([(3, 4), (2, 5)], (TypeError, ValueError), "dot_general|contract|shape|size"),))
record("batch_matmul", lax.batch_matmul, np.matmul, [((2, 3, 4), (2, 4, 5))], dtypes=FLOATS,
       tol=1e-4)

# array makers
for _n, _call in (
        ("iota", lambda lib: lib.iota(np.int32, 5)),
        ("iota", lambda lib: lib.iota(np.float32, 3)),
        ("broadcasted_iota", lambda lib: lib.broadcasted_iota(np.int32, (2, 3), 1)),
        ("full", lambda lib: lib.full((2, 3), 1.5)),
        ("full", lambda lib: lib.full((3,), 2, np.int32))):
    record(_n, lambda _c=_call: _c(lax), lambda _c=_call: _c(_NP_LAX), [()], **NO_ARGS)
record("full_like", lambda x: lax.full_like(x, 2.0), lambda x: np.full_like(x, 2.0),
       [((3, 4),), ((),)], dtypes=FLOATS + INTS, differentiable=False, owner_path=None)
record("full_like", lambda x: lax.full_like(x, 1, np.int32, (2,)),
       lambda x: np.full((2,), 1, np.int32), [((3, 4),)], dtypes=FLOATS, differentiable=False,
       owner_path=None)


class _NP_LAX:
    """NumPy spellings of lax's array makers (the references above)."""
    iota = staticmethod(lambda dtype, size: np.arange(size, dtype=dtype))
    broadcasted_iota = staticmethod(lambda dtype, shape, dimension: np.broadcast_to(
        np.arange(shape[dimension], dtype=dtype).reshape(
            [-1 if i == dimension else 1 for i in range(len(shape))]), shape))
    full = staticmethod(lambda shape, fill_value, dtype=None: np.full(
        shape, fill_value, dtype or np.float32))


# convolutions: NCH / OIH layouts, NumPy's correlation as the reference
def _corr1d(x, w, stride=1, pad=(0, 0), rhs_dilation=1):
    x = np.pad(x, ((0, 0), (0, 0), pad))
    k = (w.shape[-1] - 1) * rhs_dilation + 1
    n = (x.shape[-1] - k) // stride + 1
    return np.stack([np.einsum("nck,ock->no", x[..., i * stride:i * stride + k:rhs_dilation], w)
                     for i in range(n)], -1)


_CONV = [((2, 3, 7), (4, 3, 3))]
record("conv", lambda x, w: lax.conv(x, w, (1,), "VALID"), lambda x, w: _corr1d(x, w), _CONV,
       tol=1e-4, owner_path=None)
record("conv_general_dilated", lambda x, w: lax.conv_general_dilated(
    x, w, (2,), [(1, 1)], rhs_dilation=(2,)), lambda x, w: _corr1d(x, w, 2, (1, 1), 2), _CONV,
    tol=1e-4, owner_path=None,
    errors=(err([(2, 3, 7), (4, 2, 3)], (TypeError, ValueError), "feature|channel|shape"),))
record("conv_with_general_padding", lambda x, w: lax.conv_with_general_padding(
    x, w, (1,), [(2, 0)], None, None), lambda x, w: _corr1d(x, w, 1, (2, 0)), _CONV, tol=1e-4,
    owner_path=None)
record("conv_transpose", lambda x, w: lax.conv_transpose(x, w, (1,), "VALID",
                                                        dimension_numbers=("NCH", "OIH", "NCH")),
       lambda x, w: _corr1d(x, w, 1, (2, 2)), [((2, 4, 5), (3, 4, 3))],
       tol=1e-4, owner_path=None)
_DN = lax.ConvDimensionNumbers((0, 1, 2, 3), (0, 1, 2, 3), (0, 1, 2, 3))
for _n, _call, _want in (
        ("conv_dimension_numbers", lambda: lax.conv_dimension_numbers(
            (1, 2, 3, 4), (5, 2, 3, 3), ("NHWC", "HWIO", "NHWC")),
         ((0, 3, 1, 2), (3, 2, 0, 1), (0, 3, 1, 2))),
        ("conv_general_permutations", lambda: lax.conv_general_permutations(
            ("NHWC", "HWIO", "NHWC")), ((0, 3, 1, 2), (3, 2, 0, 1), (0, 3, 1, 2))),
        ("ConvDimensionNumbers", lambda: _DN, ((0, 1, 2, 3),) * 3),
        ("padtype_to_pads", lambda: lax.padtype_to_pads((7, 6), (3, 2), (2, 2), "SAME"),
         [(1, 1), (0, 0)])):
    record(_n, lambda _c=_call: np.asarray(_c()), lambda _w=_want: np.asarray(_w), [()],
           **NO_ARGS, traceable=False, note="static shape logic (tuples), no traced values")

# control flow: the loops' results against Python loops
record("fori_loop", lambda x: lax.fori_loop(0, 4, lambda i, c: c * 0.5 + i, x),
       lambda x: _loop(x, 4, lambda i, c: c * 0.5 + i), [((),), ((3,),)], dtypes=FLOATS,
       owner_path=None)
record("while_loop", lambda x: lax.while_loop(
    lambda c: c[0] < 5, lambda c: (c[0] + 1, c[1] * 0.9), (0, x))[1],
       lambda x: x * 0.9 ** 5, [((),), ((2, 3),)], dtypes=FLOATS, owner_path=None,
       differentiable=False, note="reverse-mode through while_loop is undefined (as in JAX)")
record("scan", lambda x: list(lax.scan(lambda c, v: (c + v, c * v), 0.0 * x[0], x)),
       lambda x: [x.sum(0), np.concatenate([np.zeros_like(x[:1]), np.cumsum(x, 0)[:-1]]) * x],
       [((5,),), ((4, 3),)], dtypes=FLOATS, owner_path=None, tol=1e-4)
record("scan", lambda x: list(lax.scan(lambda c, v: (c + v, c), 0.0 * x[0], x, reverse=True)),
       lambda x: [x.sum(0), np.flip(np.concatenate([np.zeros_like(x[:1]), np.cumsum(
           np.flip(x, 0), 0)[:-1]]), 0)], [((5,),)], dtypes=FLOATS, owner_path=None)
record("map", lambda x: lax.map(lambda r: r * r.sum(), x), lambda x: x * x.sum(-1, keepdims=True),
       [((3, 4),)], dtypes=FLOATS, owner_path=None)
record("cond", lambda p, x: lax.cond(p, lambda v: v * 2.0, lambda v: v - 1.0, x),
       lambda p, x: x * 2.0 if p else x - 1.0, [(Bools(()), ()), (Bools(()), (3,))],
       dtypes=FLOATS, owner_path=None)
record("switch", lambda i, x: lax.switch(i, [lambda v: v * 2.0, lambda v: -v, lambda v: v * v],
                                         x),
       lambda i, x: [x * 2.0, -x, x * x][min(max(int(i), 0), 2)],
       [(Ints((), -1, 4), ()), (Ints((), 0, 3), (3,))], dtypes=FLOATS, owner_path=None,
       note="an out-of-range index is clamped, as in JAX")


def _loop(x, n, body):
    for i in range(n):
        x = body(i, x)
    return x
