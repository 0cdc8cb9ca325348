"""jnp.ufunc and jnp.frompyfunc: a Python function of scalars (or arrays, elementwise) lifted to
a NumPy-style ufunc with broadcasting __call__, outer, reduce, accumulate and at, as jax.numpy's
ufunc class (reduce and accumulate fold the function along the axis)."""
from __future__ import annotations

import functools

from ._convert import asarray, normalize_axes, normalize_axis
from .shape import expand_dims, moveaxis, ravel, reshape, stack
from .vectorizing import vectorize


class ufunc:  # noqa: N801  (jax.numpy's class name)
    """ufunc(func, /, nin, nout, *, name=None, nargs=None, identity=None, call=None,
    reduce=None, accumulate=None, at=None, reduceat=None) (jax.numpy.ufunc)."""

    def __init__(self, func, /, nin, nout, *, name=None, nargs=None, identity=None, call=None,
                 reduce=None, accumulate=None, at=None, reduceat=None):
        self._func, self.nin, self.nout = func, int(nin), int(nout)
        self.nargs = nin if nargs is None else nargs
        self.identity = identity
        self.__name__ = name or getattr(func, "__name__", "ufunc")
        self._call = call or vectorize(func)
        self._reduce, self._accumulate, self._at = reduce, accumulate, at

    def __repr__(self):
        return f"<jnp.ufunc '{self.__name__}'>"

    def __call__(self, *args, out=None, where=None):
        if len(args) != self.nin:
            raise TypeError(f"{self.__name__}() takes {self.nin} positional argument(s) but "
                            f"{len(args)} were given")
        if out is not None or where is not None:
            raise NotImplementedError(f"{self.__name__}: out= and where= are not supported")
        return self._call(*args)

    def _binary(self, what):
        if self.nin != 2 or self.nout != 1:
            raise ValueError(f"{what} only supported for binary ufuncs with one output "
                             f"({self.__name__} has nin={self.nin}, nout={self.nout})")

    def outer(self, A, B, /):
        """f(a, b) for every pair: the result has A's dimensions, then B's."""
        self._binary("outer")
        a, b = asarray(A), asarray(B)
        return self(reshape(a, tuple(a.shape) + (1,) * b.ndim), b)

    def reduce(self, a, axis=0, dtype=None, out=None, keepdims=False, initial=None,
               where=None):
        """f folded over axis (a tuple folds each in turn; None: all of them)."""
        self._binary("reduce")
        if self._reduce is not None:
            return self._reduce(a, axis=axis, dtype=dtype, keepdims=keepdims, initial=initial)
        x = asarray(a)
        axes = normalize_axes(axis, x.ndim)
        flat = moveaxis(x, axes, tuple(range(len(axes)))) if axes else x
        flat = reshape(flat, (-1,) + tuple(flat.shape[len(axes):]))
        items = [flat[i] for i in range(flat.shape[0])]
        if initial is not None:
            items.insert(0, asarray(initial))
        elif self.identity is not None and not items:
            items = [asarray(self.identity)]
        if not items:
            raise ValueError(f"zero-size array to reduction operation {self.__name__} which "
                             "has no identity")
        out_ = functools.reduce(self, items)
        for ax in sorted(axes) if keepdims else ():
            out_ = expand_dims(out_, ax)
        return out_

    def accumulate(self, a, axis=0, dtype=None, out=None):
        """The running fold of f along axis."""
        self._binary("accumulate")
        if self._accumulate is not None:
            return self._accumulate(a, axis=axis, dtype=dtype)
        x = asarray(a)
        ax = normalize_axis(axis, x.ndim)
        items = [moveaxis(x, ax, 0)[i] for i in range(x.shape[ax])]
        acc = [items[0]] if items else []
        for v in items[1:]:
            acc.append(self(acc[-1], v))
        return moveaxis(stack(acc), 0, ax) if acc else x

    def at(self, a, indices, b=None, /, *, inplace=True):
        """jnp's ufunc.at(..., inplace=False): a with f(a[indices], b) written at indices."""
        if inplace:
            raise ValueError(f"{self.__name__}.at: jitgrad arrays are immutable: pass "
                             "inplace=False and use the result")
        if self._at is not None:
            return self._at(a, indices, b)
        x = asarray(a)
        current = x[indices]
        new = self(current) if b is None else self(current, b)
        return x.at[indices].set(new)

    def reduceat(self, a, indices, axis=0, dtype=None, out=None):
        """f folded over the slices [indices[i], indices[i + 1]) along axis (NumPy's rule: a
        single element where indices[i] >= indices[i + 1])."""
        self._binary("reduceat")
        x = asarray(a)
        ax = normalize_axis(axis, x.ndim)
        idx = [int(i) for i in ravel(asarray(indices)).tolist()]
        n = x.shape[ax]
        parts = []
        for k, start in enumerate(idx):
            stop = idx[k + 1] if k + 1 < len(idx) else n
            seg = moveaxis(x, ax, 0)[start:stop] if stop > start else \
                moveaxis(x, ax, 0)[start:start + 1]
            parts.append(self.reduce(seg, axis=0))
        return moveaxis(stack(parts), 0, ax)


def frompyfunc(func, /, nin, nout, *, identity=None):
    """jnp.frompyfunc: func as a jnp.ufunc (vectorized with vmap, not over object arrays)."""
    return ufunc(func, nin, nout, identity=identity)
