"""jitgrad.numpy's array-making functions (NumPy owns the names): ranges, filled arrays,
windows, grids and index helpers. Arguments that are data (a range's ends, a fill value, a
window's beta) are drawn; sizes are fixed. jitgrad makes float32 where NumPy makes float64
(core.expected_dtype)."""
import numpy as np

import jitgrad.numpy as jnp
from .core import ALL, F32, FLOATS, I64, NUMERIC, UNARY, err, table

RECORDS, record = table("numpy")
_A3, _A2 = np.arange(3, dtype=np.float32), np.array([-1.0, 0.5], np.float32)
NO_ARGS = dict(dtypes=(I64,), differentiable=False, batchable=False)


def _no_args(name, call, **kw):
    """A record of `call(lib)` with fixed arguments (no data arguments)."""
    record(name, lambda: call(jnp), lambda: call(np), [()], **{**NO_ARGS, **kw})


# ranges: the ends are data (0-d or broadcast arrays), the count is static
for _n, _kw in (("linspace", {"num": 5}), ("linspace", {"num": 4, "endpoint": False}),
                ("linspace", {"num": 1}), ("linspace", {"num": 0}),
                ("logspace", {"num": 5}), ("logspace", {"num": 4, "base": 2.0}),
                ("geomspace", {"num": 5}), ("geomspace", {"num": 3, "endpoint": False})):
    record(_n, getattr(jnp, _n), getattr(np, _n),
           [((), ())] + ([((3,), ()), ((2, 1), (3,))] if _kw["num"] > 1 else []),
           dtypes=FLOATS, domain="positive" if _n == "geomspace" else "any", kwargs=_kw,
           tol=1e-4, lowp=(), differentiable=_kw["num"] > 1)
record("linspace", lambda a, b, **k: jnp.linspace(a, b, **{"num": 4, **k}, axis=-1),
       lambda a, b, **k: np.linspace(a, b, **{"num": 4, **k}, axis=-1), [((3,), (3,))],
       dtypes=FLOATS, lowp=(),
       errors=(err([(), ()], ValueError, "num|negative", kwargs={"num": -1}),))
record("geomspace", lambda a, b: jnp.geomspace(a, b, 3), lambda a, b: np.geomspace(a, b, 3),
       [((), ())], dtypes=FLOATS, domain="positive", lowp=(), tol=1e-4)
for _args in ((5,), (2, 7), (1.0, 2.0, 0.25), (5, 0, -2), (3, 3)):
    _no_args(f"arange{_args}", lambda lib, _a=_args: lib.arange(*_a))
_no_args("arange(dtype)", lambda lib: lib.arange(4, dtype=np.float32))
record("arange", lambda **k: jnp.arange(1, 7, **k), lambda **k: np.arange(1, 7, **k), [()],
       **NO_ARGS, kwargs={"step": 2},
       errors=(err([], ZeroDivisionError, "step must not be zero", kwargs={"step": 0}),))

for _n, _call in (
        ("zeros", lambda lib: lib.zeros((2, 3))), ("zeros", lambda lib: lib.zeros(0, np.int32)),
        ("ones", lambda lib: lib.ones((3,), np.int64)), ("ones", lambda lib: lib.ones(())),
        ("full", lambda lib: lib.full((2, 2), 7, np.int32)),
        ("empty", lambda lib: lib.empty((2, 3)).shape),
        ("eye", lambda lib: lib.eye(3)), ("eye", lambda lib: lib.eye(3, 4, k=1)),
        ("eye", lambda lib: lib.eye(4, 2, k=-1, dtype=np.int32)),
        ("identity", lambda lib: lib.identity(3)),
        ("identity", lambda lib: lib.identity(2, dtype=bool)),
        ("tri", lambda lib: lib.tri(3)), ("tri", lambda lib: lib.tri(3, 5, k=1, dtype=np.int32)),
        ("tri", lambda lib: lib.tri(4, 2, k=-1)),
        ("bartlett", lambda lib: lib.bartlett(5)), ("blackman", lambda lib: lib.blackman(6)),
        ("hamming", lambda lib: lib.hamming(5)), ("hanning", lambda lib: lib.hanning(1)),
        ("hanning", lambda lib: lib.hanning(0)),
        ("meshgrid", lambda lib: list(lib.meshgrid(_A3, _A2))),
        ("meshgrid", lambda lib: list(lib.meshgrid(_A3, _A2,
                                                   indexing="ij"))),
        ("meshgrid", lambda lib: list(lib.meshgrid(_A3, _A2, _A2, sparse=True))),
        ("ix_", lambda lib: list(lib.ix_(np.arange(3), np.array([0, 2])))),
        ("mask_indices", lambda lib: list(lib.mask_indices(3, lib.triu, 1))),
        ("tril_indices_from", lambda lib: list(lib.tril_indices_from(np.ones((3, 4)), k=-1))),
        ("triu_indices_from", lambda lib: list(lib.triu_indices_from(np.ones((4, 3))))),
        ("diag_indices_from", lambda lib: list(lib.diag_indices_from(np.ones((3, 3))))),
        ("fromfunction", lambda lib: lib.fromfunction(lambda i, j: i * 3 + j, (2, 3))),
        ("fromfunction", lambda lib: lib.fromfunction(lambda i: i * i, (4,), dtype=int))):
    _no_args(_n, _call)
record("empty_like", lambda x: jnp.empty_like(x).shape, lambda x: np.empty_like(x).shape,
       UNARY, dtypes=ALL, differentiable=False, batchable=False)
record("kaiser", lambda beta: jnp.kaiser(6, beta), lambda beta: np.kaiser(6, beta), [((),)],
       dtypes=(F32,), domain="positive", batchable=False, lowp=(), tol=1e-4)
record("full", lambda v: jnp.full((2, 3), v), lambda v: np.full((2, 3), v), [((),), ((3,),)],
       dtypes=ALL)
record("eye", jnp.eye, np.eye, [()], **NO_ARGS, kwargs={"N": 2},
       errors=(err([], ValueError, "negative|N", kwargs={"N": -1}),))

# arrays from data: array / asarray / copy keep values and dtype, `dtype=` converts
for _n in ("array", "asarray", "copy"):
    record(_n, getattr(jnp, _n), getattr(np, _n), UNARY, dtypes=ALL)
for _n in ("array", "asarray"):
    record(_n, getattr(jnp, _n), getattr(np, _n), UNARY, dtypes=NUMERIC,
           kwargs={"dtype": "float32"}, differentiable=False)
    _no_args(f"{_n}(list)", lambda lib, _n=_n: getattr(lib, _n)([[1, 2], [3, 4]]))
    _no_args(f"{_n}(nested floats)", lambda lib, _n=_n: getattr(lib, _n)([[1.5], [2.0]]))
