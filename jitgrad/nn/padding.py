"""torch.nn.functional.pad (constant, reflect, replicate, circular; negative pads crop) and the
padding modules ZeroPad/ConstantPad/ReflectionPad/ReplicationPad/CircularPad 1d/2d/3d."""
from __future__ import annotations

from .. import numpy as jnp
from ..numpy._convert import asarray
from .module import Module

_NUMPY_MODE = {"constant": "constant", "reflect": "reflect", "replicate": "edge",
               "circular": "wrap"}


def pad(input, pad, mode="constant", value=None):
    """torch.nn.functional.pad: `pad` lists (before, after) pairs from the LAST dimension
    backwards; negative amounts crop. mode 'constant' (fill `value`, default 0), 'reflect'
    (mirror without the edge), 'replicate' (repeat the edge) or 'circular' (wrap around)."""
    return _padded(asarray(input), pad, mode, value)    # jnp.pad of 0 is a copy too


def _padded(x, pad, mode, value):
    pad = tuple(int(p) for p in pad)
    if len(pad) % 2 or len(pad) // 2 > x.ndim:
        raise ValueError(f"pad: expected an even number of pad values, at most 2 per dimension "
                         f"of the {x.ndim}-d input, got {pad}")
    if mode not in _NUMPY_MODE:
        raise ValueError(f"pad: mode must be one of {', '.join(_NUMPY_MODE)}, got {mode!r}")
    if mode != "constant" and value not in (None, 0):
        raise ValueError(f"pad: value is only for mode='constant', got value={value} with "
                         f"mode={mode!r}")
    widths = [(0, 0)] * x.ndim
    for i in range(len(pad) // 2):
        widths[x.ndim - 1 - i] = (pad[2 * i], pad[2 * i + 1])
    crop = tuple(slice(max(-lo, 0), x.shape[d] - max(-hi, 0)) for d, (lo, hi) in enumerate(widths))
    x = x[crop]
    widths = [(max(lo, 0), max(hi, 0)) for lo, hi in widths]
    for d, (lo, hi) in enumerate(widths):
        limit = x.shape[d] - (mode == "reflect")
        if mode != "constant" and max(lo, hi) > limit:
            raise ValueError(f"pad: {mode} padding of {max(lo, hi)} on dimension {d} needs at "
                             f"most {limit} (the dimension has size {x.shape[d]})")
    if mode == "constant":
        return jnp.pad(x, widths, constant_values=0 if value is None else value)
    return jnp.pad(x, widths, mode=_NUMPY_MODE[mode])


class _Pad(Module):
    """A padding module over the last `dims` dimensions; padding is an int or 2*dims ints."""
    dims, mode = 1, "constant"

    def __init__(self, padding, value=0.0):
        super().__init__()
        n = 2 * self.dims
        padding = (padding,) * n if isinstance(padding, int) else tuple(padding)
        if len(padding) != n:
            raise ValueError(f"{type(self).__name__}: padding must be an int or {n} ints, got "
                             f"{padding!r}")
        self.padding, self.value = padding, value

    def forward(self, x):
        return pad(x, self.padding, self.mode, self.value if self.mode == "constant" else None)

    def extra_repr(self):
        return f"{self.padding}" + (f", value={self.value}" if self.mode == "constant" else "")


class _ZeroPad(_Pad):
    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


def _pad_class(name, base, dims, mode):
    doc = f"torch.nn.{name}: F.pad(x, padding, {mode!r}) over the last {dims} dimension(s)."
    return type(name, (base,), {"dims": dims, "mode": mode, "__doc__": doc,
                                "__module__": __name__})


ConstantPad1d = _pad_class("ConstantPad1d", _Pad, 1, "constant")
ConstantPad2d = _pad_class("ConstantPad2d", _Pad, 2, "constant")
ConstantPad3d = _pad_class("ConstantPad3d", _Pad, 3, "constant")
ZeroPad1d = _pad_class("ZeroPad1d", _ZeroPad, 1, "constant")
ZeroPad2d = _pad_class("ZeroPad2d", _ZeroPad, 2, "constant")
ZeroPad3d = _pad_class("ZeroPad3d", _ZeroPad, 3, "constant")
ReflectionPad1d = _pad_class("ReflectionPad1d", _ZeroPad, 1, "reflect")
ReflectionPad2d = _pad_class("ReflectionPad2d", _ZeroPad, 2, "reflect")
ReflectionPad3d = _pad_class("ReflectionPad3d", _ZeroPad, 3, "reflect")
ReplicationPad1d = _pad_class("ReplicationPad1d", _ZeroPad, 1, "replicate")
ReplicationPad2d = _pad_class("ReplicationPad2d", _ZeroPad, 2, "replicate")
ReplicationPad3d = _pad_class("ReplicationPad3d", _ZeroPad, 3, "replicate")
CircularPad1d = _pad_class("CircularPad1d", _ZeroPad, 1, "circular")
CircularPad2d = _pad_class("CircularPad2d", _ZeroPad, 2, "circular")
CircularPad3d = _pad_class("CircularPad3d", _ZeroPad, 3, "circular")

__all__ = ["pad", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "ZeroPad1d", "ZeroPad2d",
           "ZeroPad3d", "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d",
           "ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d", "CircularPad1d",
           "CircularPad2d", "CircularPad3d"]
