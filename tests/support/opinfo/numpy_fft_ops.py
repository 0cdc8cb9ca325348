"""jitgrad.numpy.fft's records: NumPy owns the names (numpy.fft is the reference). A complex
result is compared through its real and imaginary parts (real outputs: finite differences and
the 16-bit check apply); fftshift / ifftshift are recorded in numpy_ops.py as 'fft.fftshift'."""
import numpy as np

import jitgrad.numpy as jnp
from .core import INTS, NUMERIC, err, table

RECORDS, record = table("numpy")


def _parts(z):
    """[real, imag] of a complex result, [x] of a real one."""
    lib = jnp if not isinstance(z, np.ndarray) else np
    if lib.iscomplexobj(z):
        return [lib.real(z), lib.imag(z)]
    return [z]


def _both(name, **kw):
    """(jitgrad's, NumPy's) functions of the transform `name`, results as _parts."""
    return (lambda x: _parts(getattr(jnp.fft, name)(x, **kw)),
            lambda x: _parts(getattr(np.fft, name)(x, **kw)))


_ONE_AXIS = [((5,),), ((3, 4),), ((2, 3, 4),), ((0, 4),)]
_TWO_AXES = [((3, 4),), ((2, 3, 4),)]
_BAD_AXIS = err([(3, 4)], ValueError, "axis|out of (range|bounds)", kwargs={"axis": 2})
# name -> (cases, extra kwargs variants)
for _n, _cases, _variants in (
        ("fft", _ONE_AXIS, ({}, {"n": 6}, {"axis": 0, "norm": "ortho"})),
        ("ifft", _ONE_AXIS, ({}, {"n": 3, "norm": "forward"})),
        ("rfft", _ONE_AXIS, ({}, {"n": 7}, {"axis": 0, "norm": "ortho"})),
        ("irfft", _ONE_AXIS[:3], ({}, {"n": 5}, {"norm": "forward"})),
        ("hfft", _ONE_AXIS[:3], ({}, {"n": 6})),
        ("ihfft", _ONE_AXIS[:3], ({}, {"norm": "ortho"})),
        ("fft2", _TWO_AXES, ({}, {"s": (2, 5)})),
        ("ifft2", _TWO_AXES, ({}, {"axes": (0, -1)})),
        ("rfft2", _TWO_AXES, ({}, {"norm": "ortho"})),
        ("irfft2", _TWO_AXES, ({}, {"s": (3, 4)})),
        ("fftn", _TWO_AXES + [((5,),)], ({}, {"axes": (0,)})),
        ("ifftn", _TWO_AXES, ({}, {"s": (4, 2), "axes": (0, 1)})),
        ("rfftn", _TWO_AXES, ({}, {"norm": "forward"})),
        ("irfftn", _TWO_AXES, ({}, {"s": (3, 6), "axes": (-2, -1)}))):
    for _kw in _variants:
        _jg, _np = _both(_n, **_kw)
        _lab = ",".join(f"{k}={v!r}" for k, v in _kw.items())
        record(f"fft.{_n}" + (f"({_lab})" if _lab else ""), _jg, _np,
               _cases[1:3] if _kw.get("axis") == 0 else _cases, tol=1e-4,
               dtypes=NUMERIC if not _kw else (np.dtype("float32"), np.dtype("float64")),
               float_result=True, lowp=())
record("fft.fft", jnp.fft.fft, np.fft.fft, [((5,),)], lowp=(), differentiable=False,
       errors=(_BAD_AXIS, err([()], ValueError, "0-d|at least one dimension"),
               err([(4,)], ValueError, "norm", kwargs={"norm": "half"})))
record("fft.rfft", jnp.fft.rfft, np.fft.rfft, [((5,),)], lowp=(), differentiable=False,
       errors=(err([(4,)], ValueError, "n|positive|invalid|length", kwargs={"n": 0}),))
for _n in ("fftfreq", "rfftfreq"):
    for _nn, _d in ((5, 1.0), (6, 0.1), (1, 2.0)):
        record(f"fft.{_n}({_nn},{_d})", lambda _n=_n, _nn=_nn, _d=_d: getattr(jnp.fft, _n)(_nn, _d),
               lambda _n=_n, _nn=_nn, _d=_d: getattr(np.fft, _n)(_nn, _d),
               [()], dtypes=INTS[:1], differentiable=False, batchable=False)

UNRECORDED = {"jitgrad.numpy.fft": {}}
