"""Functions that lift other functions over arrays: vectorize (NumPy's broadcasting and
generalized-ufunc signatures, by vmap as jax.numpy), apply_along_axis, apply_over_axes,
piecewise and fromfunction. vmap is a transform, a layer above jitgrad.numpy that builds on it:
transforms/vmap.py installs itself here when it loads (install_vmap), which `import jitgrad`
does before any of these can be called."""
from __future__ import annotations

import functools
import re

from ._convert import asarray, normalize_axis
from .creation import zeros_like
from .elementwise import logical_not, where
from .index_helpers import indices
from .reductions import any  # noqa: A004
from .shape import broadcast_shapes, broadcast_to, expand_dims, stack

_DIMS = r"\((?:\w+(?:,\s*\w+)*)?\)"
_SIGNATURE = re.compile(rf"^\s*{_DIMS}(?:\s*,\s*{_DIMS})*\s*->\s*{_DIMS}(?:\s*,\s*{_DIMS})*\s*$")


# jitgrad.vmap, installed by transforms/vmap.py
_TRANSFORMS = {}


def install_vmap(vmap) -> None:
    """The vmap these functions vectorize with (transforms/vmap.py calls this once)."""
    _TRANSFORMS["vmap"] = vmap


def vmap(fn, in_axes=0, out_axes=0):
    """jitgrad.vmap, as installed."""
    return _TRANSFORMS["vmap"](fn, in_axes=in_axes, out_axes=out_axes)


def _parse_signature(signature):
    """'(m,n),(n)->(m)' -> ([('m', 'n'), ('n',)], [('m',)])."""
    if not _SIGNATURE.match(signature):
        raise ValueError(f"vectorize: not a valid gufunc signature: {signature!r}")
    ins, outs = signature.split("->")
    parse = lambda s: [tuple(d.strip() for d in g.split(",") if d.strip())  # noqa: E731
                       for g in re.findall(r"\(([^)]*)\)", s)]
    return parse(ins), parse(outs)


class vectorize:  # noqa: N801  (NumPy's and jax.numpy's class name)
    """jnp.vectorize: pyfunc applied over broadcast leading dimensions by vmap; `signature`
    ('(n),(n)->()') gives each argument's core dimensions; `excluded` (positions or keyword
    names) pass through unbatched."""

    def __init__(self, pyfunc, *, excluded=frozenset(), signature=None):
        self.pyfunc, self.excluded, self.signature = pyfunc, frozenset(excluded), signature
        self.core = _parse_signature(signature)[0] if signature is not None else None
        functools.update_wrapper(self, pyfunc)

    def __call__(self, *args, **kwargs):
        names = [i for i in range(len(args)) if i not in self.excluded] + \
            [k for k in kwargs if k not in self.excluded]
        values = [asarray(args[n] if isinstance(n, int) else kwargs[n]) for n in names]
        core = self.core or [()] * len(values)
        if len(core) != len(values):
            raise TypeError(f"vectorize: the signature {self.signature!r} takes {len(core)} "
                            f"arguments, got {len(values)}")
        for v, dims in zip(values, core):
            if v.ndim < len(dims):
                raise ValueError(f"vectorize: an input with shape {tuple(v.shape)} has fewer "
                                 f"dimensions than its core dimensions {dims}")
        loops = [tuple(v.shape[:v.ndim - len(d)]) for v, d in zip(values, core)]
        loop = broadcast_shapes(*loops) if loops else ()
        values = [broadcast_to(v, loop + tuple(v.shape[v.ndim - len(d):]))
                  for v, d in zip(values, core)]

        def call(*vals):
            a, kw = list(args), dict(kwargs)
            for n, v in zip(names, vals):
                if isinstance(n, int):
                    a[n] = v
                else:
                    kw[n] = v
            return self.pyfunc(*a, **kw)

        f = call
        for _ in loop:
            f = vmap(f)
        return f(*values)


def apply_along_axis(func1d, axis, arr, *args, **kwargs):
    """numpy.apply_along_axis: func1d on every 1-d slice along axis; its output's dimensions
    take that axis' place."""
    x = asarray(arr)
    ax = normalize_axis(axis, x.ndim)

    def f(v):
        return func1d(v, *args, **kwargs)

    for i in range(1, x.ndim - ax):
        f = vmap(f, in_axes=i, out_axes=-1)
    for _ in range(ax):
        f = vmap(f, in_axes=0, out_axes=0)
    return f(x)


def apply_over_axes(func, a, axes):
    """numpy.apply_over_axes: func(a, axis) for each axis in turn, keeping the dimension count
    (a result with one fewer dimension gets it back)."""
    x = asarray(a)
    for axis in ([axes] if isinstance(axes, int) else axes):
        b = asarray(func(x, axis))
        if b.ndim == x.ndim - 1:
            b = expand_dims(b, axis)
        elif b.ndim != x.ndim:
            raise ValueError(f"apply_over_axes: function is not returning an array of the "
                             f"correct shape ({b.ndim} dimensions for an input of {x.ndim})")
        x = b
    return x


def piecewise(x, condlist, funclist, *args, **kw):
    """numpy.piecewise: funclist[i] (a function of x or a value) where condlist[i] holds, later
    conditions winning; one extra function is the default where none holds."""
    x = asarray(x)
    conds = [asarray(c) for c in (condlist if isinstance(condlist, (list, tuple)) and
                                  condlist and not isinstance(condlist[0], bool) or
                                  asarray(condlist).ndim > x.ndim else [condlist])]
    if len(funclist) not in (len(conds), len(conds) + 1):
        raise ValueError(f"piecewise: with {len(conds)} condition(s), either {len(conds)} or "
                         f"{len(conds) + 1} functions are expected, got {len(funclist)}")
    if len(funclist) == len(conds) + 1:
        others = logical_not(any(stack([broadcast_to(c, x.shape) for c in conds]), axis=0)) \
            if conds else broadcast_to(asarray(True), x.shape)
        conds = conds + [others]
    out = zeros_like(x)
    for c, f in zip(conds, funclist):
        value = f(x, *args, **kw) if callable(f) else f
        out = where(c, value, out)
    return out


def fromfunction(function, shape, *, dtype=float, **kwargs):
    """numpy.fromfunction: function called with the index grid of `shape`, one array per axis
    (in `dtype`, float by default as NumPy)."""
    dt = "float32" if dtype is float else dtype
    return function(*indices(shape, dtype=dt), **kwargs)
