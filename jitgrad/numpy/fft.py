"""jnp.fft: NumPy's and the standard's fft extension.

The transforms (fft, ifft, fft2, ifft2, fftn, ifftn, rfft, irfft, rfft2, irfft2, rfftn,
irfftn, hfft, ihfft) are one primitive, `fft` (JAX's lax.fft: an unnormalized transform of
kind fft / ifft / rfft / irfft over the trailing axes, with VJP and JVP rules in
ir/autodiff/complex_rules.py). Here the axes are moved to the end, each is cut or
zero-padded to its length (`n=` / `s=`), and the result is scaled for `norm=`. Under jit the
transform runs in numpy.fft (jitgrad/compilation/compile_graph.py: graphs with complex values run in the
NumPy reference interpreter). Plus the real-valued helpers fftfreq, rfftfreq, fftshift,
ifftshift."""
from __future__ import annotations

import math

import numpy as np

from ..eager.dispatch import apply
from ..trace.source_info import user_source_info
from ..dtypes import canonical_dtype, default_float
from ..ir import Op
from ..ir.types import complex_dtype
from ._convert import asarray, normalize_axes, normalize_axis
# under private aliases, so that jnp.fft holds only the transforms and their helpers
from ._convert import as_int as _as_int
from .complex_parts import conj as _conj
from .creation import asarray as _standard_asarray
from .shape import roll as _roll
from ..ir.types import kind_of

_NORMS = ("backward", "ortho", "forward")
# the scale of a forward transform (fft, rfft) for each norm, given N; inverses use 1 / it
_FORWARD_SCALE = {"backward": lambda n: 1.0, "ortho": lambda n: 1 / math.sqrt(n),
                  "forward": lambda n: 1.0 / n}
_SWAP = {"backward": "forward", "ortho": "ortho", "forward": "backward"}


def _fail(exc, msg):
    where = user_source_info()
    raise exc(msg + (f" (at {where})" if where else ""))


def _norm(name, norm):
    norm = "backward" if norm is None else norm
    if norm not in _NORMS:
        _fail(ValueError, f"{name}: norm must be one of None, 'backward', 'ortho', 'forward', "
                          f"got {norm!r}")
    return norm


def _input(name, kind, a):
    """a as the transform's input dtype: complex for fft/ifft/irfft (reals promote), real for
    rfft (a complex input is an error, as in JAX: NumPy drops the imaginary part)."""
    a = asarray(a)
    if a.ndim == 0:
        _fail(ValueError, f"{name}: expected an array of at least one dimension, got a 0-d array")
    dt = a.dtype
    if kind == "rfft":
        if kind_of(dt) == "c":
            _fail(TypeError, f"{name}: expected a real input, got {dt.name} (take jnp.real first)")
        return a.astype(dt if kind_of(dt) == "f" else default_float())
    want = complex_dtype(dt if kind_of(dt) == "f" else default_float()) if kind_of(dt) != "c" else dt
    return a.astype(want)


def _resize(x, axis, n):
    """x cut or zero-padded to n along axis."""
    have = x.shape[axis]
    if have == n:
        return x
    nd = x.ndim
    if have > n:
        stop = tuple(n if i == axis else d for i, d in enumerate(x.shape))
        return apply(Op.slice, [x], {"start": (0,) * nd, "stop": stop, "step": (1,) * nd})
    hi = tuple(n - have if i == axis else 0 for i in range(nd))
    return apply(Op.pad, [x], {"lo": (0,) * nd, "hi": hi, "value": 0.0})


def _lengths(name, kind, a, s, axes):
    """(axes, lengths) with NumPy's defaults: the last len(s) axes, the input's extents
    (2 (m - 1) for irfft's last axis)."""
    if s is not None:
        s = tuple(_as_int(n, f"{name}: n / s")
                  for n in (s if isinstance(s, (tuple, list)) else (s,)))
    if axes is None:
        axes = tuple(range(a.ndim - len(s), a.ndim)) if s is not None else tuple(range(a.ndim))
        if s is not None and len(s) > a.ndim:
            _fail(ValueError, f"{name}: s {s} has more entries than the input has axes ({a.ndim})")
    else:
        axes = tuple(normalize_axis(ax, a.ndim) for ax in
                     (axes if isinstance(axes, (tuple, list)) else (axes,)))
    if not axes:
        _fail(ValueError, f"{name}: expected at least one axis")
    if len(set(axes)) != len(axes):
        _fail(ValueError, f"{name}: repeated axis in {axes}")
    if s is None:
        s = tuple(a.shape[ax] for ax in axes)
        if kind == "irfft":
            s = s[:-1] + (2 * (s[-1] - 1),)
    if len(s) != len(axes):
        _fail(ValueError, f"{name}: s {s} and axes {axes} differ in length")
    for n in s:
        if n < 1:
            _fail(ValueError, f"{name}: invalid number of FFT data points ({n}) specified")
    return axes, s


def _transform(name, kind, a, s, axes, norm):
    norm = _norm(name, norm)
    x = _input(name, kind, a)
    axes, s = _lengths(name, kind, x, s, axes)
    for ax, n in zip(axes, s):
        want = n // 2 + 1 if kind == "irfft" and ax == axes[-1] else n
        x = _resize(x, ax, want)
    rest = tuple(i for i in range(x.ndim) if i not in axes)
    perm = rest + axes
    moved = perm != tuple(range(x.ndim))
    if moved:
        x = apply(Op.transpose, [x], {"perm": perm})
    y = apply(Op.fft, [x], {"fft_type": kind, "lengths": s})
    if moved:
        y = apply(Op.transpose, [y], {"perm": tuple(np.argsort(perm))})
    n = math.prod(s)
    scale = _FORWARD_SCALE[norm](n)
    scale = scale if kind in ("fft", "rfft") else 1.0 / scale
    return y if scale == 1.0 else y * scale


def _one(n, axis):
    return None if n is None else (n,), (axis,)


def fft(a, n=None, axis=-1, norm=None):
    """The discrete Fourier transform along one axis (n: cut or zero-pad it first)."""
    return _transform("fft", "fft", a, *_one(n, axis), norm)


def ifft(a, n=None, axis=-1, norm=None):
    """numpy.fft.ifft: the 1-d inverse discrete Fourier transform."""
    return _transform("ifft", "ifft", a, *_one(n, axis), norm)


def rfft(a, n=None, axis=-1, norm=None):
    """The fft of a real input: its n // 2 + 1 non-negative frequencies."""
    return _transform("rfft", "rfft", a, *_one(n, axis), norm)


def irfft(a, n=None, axis=-1, norm=None):
    """The inverse of rfft: n real outputs (default 2 (m - 1)) from m Hermitian coefficients."""
    return _transform("irfft", "irfft", a, *_one(n, axis), norm)


def fftn(a, s=None, axes=None, norm=None):
    """numpy.fft.fftn: the n-d discrete Fourier transform over `axes`."""
    return _transform("fftn", "fft", a, s, axes, norm)


def ifftn(a, s=None, axes=None, norm=None):
    """numpy.fft.ifftn: the n-d inverse discrete Fourier transform."""
    return _transform("ifftn", "ifft", a, s, axes, norm)


def rfftn(a, s=None, axes=None, norm=None):
    """numpy.fft.rfftn: the n-d Fourier transform of a real input (half spectrum on the last axis)."""
    return _transform("rfftn", "rfft", a, s, axes, norm)


def irfftn(a, s=None, axes=None, norm=None):
    """numpy.fft.irfftn: the inverse of rfftn (real output)."""
    return _transform("irfftn", "irfft", a, s, axes, norm)


def fft2(a, s=None, axes=(-2, -1), norm=None):
    """numpy.fft.fft2: the 2-d discrete Fourier transform over the last two axes."""
    return _transform("fft2", "fft", a, s, axes, norm)


def ifft2(a, s=None, axes=(-2, -1), norm=None):
    """numpy.fft.ifft2: the 2-d inverse discrete Fourier transform."""
    return _transform("ifft2", "ifft", a, s, axes, norm)


def rfft2(a, s=None, axes=(-2, -1), norm=None):
    """numpy.fft.rfft2: the 2-d Fourier transform of a real input (half spectrum on the last axis)."""
    return _transform("rfft2", "rfft", a, s, axes, norm)


def irfft2(a, s=None, axes=(-2, -1), norm=None):
    """numpy.fft.irfft2: the inverse of rfft2 (real output)."""
    return _transform("irfft2", "irfft", a, s, axes, norm)


def hfft(a, n=None, axis=-1, norm=None):
    """The fft of a Hermitian-symmetric signal given by its first half: n real outputs."""
    return _transform("hfft", "irfft", _conj(asarray(a)), *_one(n, axis),
                      _SWAP[_norm("hfft", norm)])


def ihfft(a, n=None, axis=-1, norm=None):
    """The inverse of hfft: the n // 2 + 1 coefficients of a real signal."""
    return _conj(_transform("ihfft", "rfft", a, *_one(n, axis), _SWAP[_norm("ihfft", norm)]))


def fftfreq(n, /, d=1.0, *, dtype=None, device=None):
    """Sample frequencies [0, 1, ..., n/2-1, -n/2, ..., -1] / (d n), as NumPy."""
    n = _as_int(n, "fftfreq: n")
    dt = canonical_dtype(dtype) if dtype is not None else default_float()
    return _standard_asarray(np.fft.fftfreq(n, d).astype(dt), device=device)


def rfftfreq(n, /, d=1.0, *, dtype=None, device=None):
    """Sample frequencies [0, 1, ..., n//2] / (d n) of an rfft of length n."""
    n = _as_int(n, "rfftfreq: n")
    dt = canonical_dtype(dtype) if dtype is not None else default_float()
    return _standard_asarray(np.fft.rfftfreq(n, d).astype(dt), device=device)


def _shift(x, axes, sign):
    x = asarray(x)
    axes = normalize_axes(axes, x.ndim)
    if not axes:
        return x
    return _roll(x, tuple(sign * (x.shape[a] // 2) for a in axes), axes)


def fftshift(x, /, *, axes=None):
    """The zero frequency moved to the middle: a roll by n // 2 along each axis."""
    return _shift(x, axes, 1)


def ifftshift(x, /, *, axes=None):
    """The inverse of fftshift: a roll by -(n // 2) along each axis."""
    return _shift(x, axes, -1)
