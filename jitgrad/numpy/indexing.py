"""Indexing with NumPy's rules. Eager CPU tensors index their NumPy storage directly (basic
indices give views sharing storage, as in NumPy and PyTorch). Traced or autograd-recorded
indexing is decomposed into primitives: slice/rev/reshape for basic indices, and one `take` on
the flattened advanced axes for integer-array indices, so it differentiates like any op."""
from __future__ import annotations

import numbers

import numpy as np

from ..errors import ConcretizationError
from ..trace.tracer import Tracer
from ..eager.dispatch import apply, computed, direct_ok
from ..eager.grad_mode import STATE, grad_enabled
from ..trace.source_info import user_source_info
from ..ir import Op
from ..ir.reference import slice_op
from ..eager.tensor import Tensor
from ._convert import (asarray, astype, device_of, holds_array, host_array, is_array,
                       normalize_axis)
from .elementwise import clip, true_divide, where
from .host_values import concrete, nonzero
from .shape import broadcast_to, moveaxis, ravel, reshape, stack, transpose
from .scatter_groups import combine
from .ufuncs import add, greater_equal, less, logical_and, maximum, minimum, multiply, power
from ..ir.types import kind_of


def _is_basic(k) -> bool:
    return k is None or k is Ellipsis or isinstance(k, (slice, numbers.Integral)) and not isinstance(k, bool)


def _np_key(key):
    """The key with tensors replaced by NumPy arrays (for eager NumPy indexing)."""
    conv = (lambda k: k._data if isinstance(k, Tensor) else
            np.asarray(k) if isinstance(k, list) else k)
    return tuple(conv(k) for k in key) if isinstance(key, tuple) else conv(key)


def getitem(x, key, mode=None, fill_value=None):
    """x[key]. Out-of-bounds integer indices raise IndexError on every path; `mode` (as in
    JAX's `x.at[key].get(mode=...)`) opts out: "clip", "fill" (fill_value; NaN, the type's
    minimum or True by default) or "promise_in_bounds" (clipped, as JAX does)."""
    if mode is None and isinstance(x, Tensor) and x.requires_grad and STATE.grad_enabled \
            and direct_ok(x):
        out = _recorded_view(x, key)
        if out is not None:
            return out
    mode = _check_mode(mode)
    if mode != "raise":
        return decomposed_index(asarray(x), _arrays_for_ints(key), mode, fill_value)
    if isinstance(x, Tensor) and x.device.type == "cpu" and not (x.requires_grad and grad_enabled()):
        k = _np_key(key)
        if not any(isinstance(e, Tracer) for e in (key if isinstance(key, tuple) else (key,))):
            try:
                out = x._data[k]
            except IndexError as e:
                raise IndexError(f"{e} (at {user_source_info()})") from None
            if isinstance(out, np.generic):   # x[0, 0]: a 0-d view, as torch (not a NumPy scalar)
                out = x._data[(k if isinstance(k, tuple) else (k,)) + (Ellipsis,)]
            if _all_basic(k):     # a view: shares storage and the version counter
                return Tensor._wrap(out, x.device, x._version)._track_view(x, key)
            return Tensor._wrap(np.asarray(out), x.device)
    out = decomposed_index(asarray(x), key)
    if isinstance(x, Tensor) and isinstance(out, Tensor) and _all_basic(key):
        out._track_view(x, key)     # recorded: its own storage, kept in step with x's
    return out


def _recorded_view(x, key):
    """x[key] recorded for autograd, for a key of slices with positive steps, ints, Nones and
    one Ellipsis (the GPT's qkv[..., a:b]): NumPy's view and the ops `decomposed_index`
    records (a slice unless all of x is taken, then a reshape where ints drop axes or Nones
    add them), made here without its general walk; None for any other key (or an
    out-of-bounds int, or a key that is x itself), which then takes that walk (and errors)."""
    entries = key if key.__class__ is tuple else (key,)
    da = x._data
    shape = da.shape
    nd = len(shape)
    start, stop, step, out_shape = [], [], [], []
    dim, reshaped, ellipsis = 0, False, False
    for k in entries:
        c = k.__class__
        if c is slice and dim < nd:
            a, b, s = k.indices(shape[dim])
            if s < 0:
                return None
            cnt = len(range(a, b, s))
            start.append(a); stop.append(a + (cnt - 1) * s + 1 if cnt else a); step.append(s)
            out_shape.append(cnt)
            dim += 1
        elif c is int and dim < nd and -shape[dim] <= k < shape[dim]:
            i = k % shape[dim]
            start.append(i); stop.append(i + 1); step.append(1)
            dim, reshaped = dim + 1, True
        elif k is None:
            out_shape.append(1)
            reshaped = True
        elif k is Ellipsis and not ellipsis:
            # the axes the other entries leave (a slice or an int takes one, None none)
            fill = nd - sum(1 for e in entries if e is not None and e is not Ellipsis)
            if fill < 0:
                return None
            start += [0] * fill; stop += shape[dim:dim + fill]; step += [1] * fill
            out_shape += shape[dim:dim + fill]
            dim, ellipsis = dim + fill, True
        else:
            return None
    start += [0] * (nd - dim); stop += shape[dim:]; step += [1] * (nd - dim)
    out_shape += shape[dim:]
    whole = stop == list(shape) and not any(start) and step.count(1) == nd
    if whole and not reshaped:
        return None                     # x itself: decomposed_index's own case
    if whole:
        y = x
    else:                               # the slice record's own reference computes the view
        params = {"start": tuple(start), "stop": tuple(stop), "step": tuple(step)}
        y = computed(Op.slice, [x], params, slice_op(da, **params))
        if not reshaped:
            return y._track_view(x, key)
    out_shape = tuple(out_shape)
    if out_shape == y._data.shape:
        return None if y is x else y._track_view(x, key)
    return computed(Op.reshape, [y], {"shape": out_shape},
                    y._data.reshape(out_shape))._track_view(x, key)


def _all_basic(key) -> bool:
    return all(_is_basic(e) for e in (key if isinstance(key, tuple) else (key,)))


# ----------------------------------------------------------------------------- decomposition

def _expand_key(x, key):
    key = key if isinstance(key, tuple) else (key,)
    entries = []
    for k in key:
        if _is_basic(k):
            entries.append(k)
            continue
        if isinstance(k, bool) or isinstance(k, np.bool_):
            k = np.asarray(k)
        if not is_array(k):
            k = np.asarray(k)
            if kind_of(k.dtype) not in "biu":
                raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and integer "
                                 f"or boolean arrays are valid indices, got {k.dtype} array")
        if kind_of(k.dtype) == "b":
            c = concrete(k)
            if c is None:
                raise ConcretizationError(
                    "boolean mask indexing gives a result whose shape depends on the data, which a "
                    "traced function can't have" + (f" (at {user_source_info()})" if user_source_info() else "")
                    + "; use jnp.where(mask, x, other) instead")
            entries.extend(np.nonzero(c) if c.ndim else [np.zeros(int(c), np.int64)])
            continue
        if kind_of(k.dtype) not in "iu":
            raise IndexError(f"arrays used as indices must be of integer or boolean type, got {k.dtype}")
        entries.append(k)
    n_used = sum(1 for e in entries if e is not None and e is not Ellipsis)
    if n_used > x.ndim:
        raise IndexError(f"too many indices for array: array is {x.ndim}-dimensional, but "
                         f"{n_used} were indexed")
    if sum(e is Ellipsis for e in entries) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if Ellipsis in [e for e in entries if not is_array(e) and not isinstance(e, np.ndarray)]:
        i = next(i for i, e in enumerate(entries) if e is Ellipsis and not isinstance(e, np.ndarray))
        entries[i:i + 1] = [slice(None)] * (x.ndim - n_used)
    else:
        entries += [slice(None)] * (x.ndim - n_used)
    return entries


_MODES = ("raise", "clip", "fill", "drop", "promise_in_bounds")


def _check_mode(mode):
    if mode is None:
        return "raise"
    if mode not in _MODES:
        raise ValueError(f"mode must be one of {', '.join(map(repr, _MODES))} or None, got "
                         f"{mode!r}" + (f" (at {user_source_info()})" if user_source_info() else ""))
    return mode


def _arrays_for_ints(key):
    """Integer indices as 0-d index arrays: under an opt-out mode they are clipped or filled
    like array indices rather than raising on the host."""
    conv = (lambda k: np.asarray(k, np.int64) if isinstance(k, numbers.Integral)
            and not isinstance(k, (bool, np.bool_)) else k)
    return tuple(conv(k) for k in key) if isinstance(key, tuple) else conv(key)


def decomposed_index(x, key, mode="raise", fill_value=None):
    """x[key] as primitives (rev/slice/reshape, one take for the advanced indices), whatever
    the path: what traced and recorded indexing run."""
    entries = _expand_key(x, key)
    has_adv = any(not _is_basic(e) for e in entries)
    start, stop, step, rev_axes = [], [], [], []
    squeeze, out_shape, adv = set(), [], []       # adv: (position in out, index array)
    dim = 0
    for e in entries:
        if e is None:
            out_shape.append(1)
            continue
        n = x.shape[dim]
        if isinstance(e, numbers.Integral) and not has_adv:
            i = int(e)
            if not -n <= i < n:
                raise IndexError(f"index {i} is out of bounds for axis {dim} with size {n}"
                                 + (f" (at {user_source_info()})" if user_source_info() else ""))
            i %= n
            start.append(i); stop.append(i + 1); step.append(1)
            squeeze.add(dim)
        elif isinstance(e, slice):
            a, b, s = e.indices(n)
            if s < 0:
                # x[a:b:s] with s < 0 is rev(x)[n-1-a : n-1-b : -s]
                rev_axes.append(dim)
                a, b, s = n - 1 - a, n - 1 - b, -s
            cnt = max(0, -(-(b - a) // s))
            start.append(a); stop.append(a + (cnt - 1) * s + 1 if cnt else a); step.append(s)
            out_shape.append(cnt)
        else:
            start.append(0); stop.append(n); step.append(1)
            adv.append((len(out_shape), dim, e))
            out_shape.append(n)
        dim += 1
    y = x
    if rev_axes:
        y = apply(Op.rev, [y], {"axes": tuple(rev_axes)})
    if (tuple(start), tuple(stop), tuple(step)) != ((0,) * x.ndim, x.shape, (1,) * x.ndim):
        y = apply(Op.slice, [y], {"start": tuple(start), "stop": tuple(stop), "step": tuple(step)})
    y = reshape(y, tuple(out_shape))
    return _gather(y, adv, mode, fill_value) if adv else y


def _normalized_index(idx, n, axis, device, mode="raise", raw_ok=False):
    """(index array on `device` in [0, n), valid mask or None). mode "raise": an index outside
    [-n, n) raises IndexError, on the host when its value is known, else in the `take` kernel
    (raw_ok: the caller's take reads idx directly; otherwise a take from arange(n) wraps and
    checks it). "clip" / "promise_in_bounds": clipped into range. "fill" / "drop": out-of-range
    entries become 0 and the mask says which were valid."""
    c = concrete(idx)
    if c is not None:
        c = np.asarray(c)
        if kind_of(c.dtype) not in "iu":
            raise IndexError(f"arrays used as indices must be of integer type, got {c.dtype}")
        c = c.astype(np.int64)
        bad = (c < -n) | (c >= n)
        if mode == "raise" and bad.any():
            raise IndexError(f"index {int(c[bad].flat[0])} is out of bounds for axis {axis} "
                             f"with size {n}" + (f" (at {user_source_info()})" if user_source_info() else ""))
        if not isinstance(idx, Tracer):
            w = np.where(c < 0, c + n, c)
            if mode in ("raise", "clip", "promise_in_bounds"):
                return host_array(np.clip(w, 0, max(n - 1, 0)), device), None
            return host_array(np.where(bad, 0, w), device), host_array(~bad, device)
    idx = astype(idx, "int64") if is_array(idx) else host_array(idx, device, "int64")
    if mode == "raise":
        if raw_ok:
            return idx, None
        iota = host_array(np.arange(n, dtype=np.int64), device)
        return apply(Op.take, [iota, idx], {"axis": 0}), None
    w = where(less(idx, 0), add(idx, n), idx)
    if mode in ("clip", "promise_in_bounds"):
        return clip(w, 0, max(n - 1, 0)), None
    valid = logical_and(greater_equal(w, 0), less(w, n))
    return where(valid, w, 0), valid


def _fill_value(dtype, fill_value):
    """JAX's default fill for mode="fill": NaN, the integer type's minimum (maximum when
    unsigned), True for bool."""
    if fill_value is not None:
        return fill_value
    dtype = np.dtype(dtype)
    if kind_of(dtype) == "f":
        return np.nan
    if kind_of(dtype) == "b":
        return True
    return np.iinfo(dtype).max if kind_of(dtype) == "u" else np.iinfo(dtype).min


def _masked(out, valid, dtype, fill_value, shape):
    """out where valid (broadcast from its leading axes), else the fill value."""
    v = reshape(valid, tuple(valid.shape) + (1,) * (len(shape) - valid.ndim))
    return where(v, out, host_array(np.asarray(_fill_value(dtype, fill_value), dtype),
                                    device_of(out), dtype))


def _gather(y, adv, mode="raise", fill_value=None):
    positions = [p for p, _, _ in adv]
    direct = len(adv) == 1 and mode == "raise"      # the one take checks the raw index
    pairs = [_normalized_index(e, y.shape[p], d, device_of(y), mode, direct) for p, d, e in adv]
    idxs = [i for i, _ in pairs]
    masks = [m for _, m in pairs if m is not None]
    bshape = np.broadcast_shapes(*(i.shape for i in idxs))
    rest = [i for i in range(y.ndim) if i not in positions]
    yt = transpose(y, positions + rest)
    adv_dims = [y.shape[p] for p in positions]
    flat = reshape(yt, (int(np.prod(adv_dims, dtype=np.int64)),) + tuple(y.shape[i] for i in rest))
    stride, lin = 1, None
    for i, d in zip(reversed(idxs), reversed(adv_dims)):
        term = multiply(broadcast_to(i, bshape), stride) if stride != 1 else broadcast_to(i, bshape)
        lin = term if lin is None else add(lin, term)
        stride *= d
    out = apply(Op.take, [flat, _to_device_of(lin, flat)], {"axis": 0})
    if masks:
        valid = masks[0]
        for m in masks[1:]:
            valid = logical_and(valid, m)
        out = _masked(out, _to_device_of(broadcast_to(valid, bshape), out), y.dtype, fill_value,
                      out.shape)
    contiguous = positions == list(range(positions[0], positions[0] + len(positions)))
    if contiguous and positions[0] > 0:
        nb, p0 = len(bshape), positions[0]
        order = list(range(nb, nb + p0)) + list(range(nb)) + list(range(nb + p0, out.ndim))
        out = transpose(out, order)
    return out


# ----------------------------------------------------------------------------- take & friends

def take(a, indices, axis=None, mode=None, fill_value=None):
    """jnp.take: out-of-bounds indices raise IndexError (mode=None / "raise"); mode="clip",
    "fill" (with fill_value) or "promise_in_bounds" opt out, as in JAX."""
    mode = _check_mode(mode)
    x = asarray(a)
    if axis is None:
        x, axis = ravel(x), 0
    ax = normalize_axis(axis, x.ndim)
    idx, valid = _normalized_index(indices, x.shape[ax], ax, device_of(x), mode, raw_ok=True)
    out = apply(Op.take, [x, _to_device_of(idx, x)], {"axis": ax})
    if valid is None:
        return out
    lead = moveaxis(out, list(range(ax, ax + idx.ndim)), list(range(idx.ndim)))
    filled = _masked(lead, _to_device_of(valid, x), x.dtype, fill_value, lead.shape)
    return moveaxis(filled, list(range(idx.ndim)), list(range(ax, ax + idx.ndim)))


def take_along_axis(arr, indices, axis, mode=None, fill_value=None):
    """numpy.take_along_axis: take values from the input array by matching 1d index and data slices."""
    x = asarray(arr)
    if axis is None:
        x, axis = ravel(x), 0
    ax = normalize_axis(axis, x.ndim)
    mode = _check_mode(mode)
    idx, valid = _normalized_index(indices, x.shape[ax], ax, device_of(x), mode)
    if idx.ndim != x.ndim:
        raise ValueError(f"take_along_axis: indices of dimension {idx.ndim} don't match an array "
                         f"of dimension {x.ndim}")
    shape = tuple(i if d == ax else np.broadcast_shapes((x.shape[d],), (idx.shape[d],))[0]
                  for d, i in enumerate(idx.shape))
    lin, stride = None, 1
    for d in reversed(range(x.ndim)):
        if d == ax:
            term = broadcast_to(idx, shape)
        else:
            iota = np.arange(shape[d]).reshape([-1 if k == d else 1 for k in range(x.ndim)])
            term = host_array(np.broadcast_to(iota, shape), device_of(x))
        term = multiply(term, stride) if stride != 1 else term
        lin = term if lin is None else add(lin, term)
        stride *= x.shape[d]
    out = reshape(apply(Op.take, [ravel(x), ravel(lin)], {"axis": 0}), shape)
    return out if valid is None else _masked(out, broadcast_to(valid, shape), x.dtype,
                                             fill_value, shape)


def argwhere(a):
    """numpy.argwhere: find the indices of array elements that are non-zero, grouped by element."""
    nz = nonzero(a)
    return stack(nz, axis=1) if nz else Tensor._wrap(np.zeros((0, 0), np.int64))


def flatnonzero(a):
    """numpy.flatnonzero: return indices that are non-zero in the flattened version of a."""
    return nonzero(ravel(a))[0]


# ----------------------------------------------------------------------------- updates

def _to_device_of(t, like):
    """Index helpers (positions, normalized indices, fill values) are built on the host; a cuda
    tensor's indexing moves them to its device, as PyTorch accepts CPU indices for CUDA data."""
    if isinstance(t, Tensor) and isinstance(like, Tensor) and like.device.type == "cuda" \
            and t.device != like.device:
        return t.to(like.device)
    return t


def _positions(x, key, mode="raise"):
    """Flat element positions x[key] selects (an int array shaped like x[key]); under "fill" /
    "drop" / "promise_in_bounds" an out-of-bounds index selects position -1 (dropped)."""
    iota = host_array(np.arange(x.size, dtype=np.int64).reshape(x.shape), device_of(x))
    if mode == "raise":
        return getitem(iota, key)
    if mode == "clip":
        return getitem(iota, key, "clip")
    return getitem(iota, key, "fill", -1)


def _flat_updates(x, key, values, mode):
    """(flat positions, flat values, slots, drop slot or None): the updates x.at[key] receives,
    one per position; under "drop" / "fill" / "promise_in_bounds" an out-of-bounds update goes
    to one extra slot (x.size), discarded afterwards. Other out-of-bounds indices raise, or are
    clipped (mode)."""
    mode = _check_mode(mode)
    pos = _to_device_of(_positions(x, key, mode), x)
    # a list holding traced values or tensors that require grad is stacked (derivatives flow)
    v = astype(values, x.dtype) if holds_array(values) else \
        host_array(values, device_of(x), x.dtype)
    p, v = ravel(pos), ravel(broadcast_to(v, pos.shape))
    if mode in ("raise", "clip"):
        return p, v, x.size, None
    return where(greater_equal(p, 0), p, x.size), v, x.size + 1, x.size


def _in_shape(x, flat):
    return reshape(flat[:x.size] if flat.shape[0] != x.size else flat, x.shape)


# mode -> (how repeated updates combine, the result from x, the combined updates c and the
# mask of the positions hit); a product-like update multiplies unhit positions by one so no
# gradient passes through a masked-out product
_UPDATES = {
    "set": ("set", lambda x, c, hit: where(hit, c, x)),
    "multiply": ("multiply", lambda x, c, hit: multiply(x, where(hit, c, 1))),
    "divide": ("multiply", lambda x, c, hit: true_divide(x, where(hit, c, 1))),
    "power": ("multiply", lambda x, c, hit: power(x, where(hit, c, 1))),
    "min": ("min", lambda x, c, hit: where(hit, minimum(x, c), x)),
    "max": ("max", lambda x, c, hit: where(hit, maximum(x, c), x)),
}


class _AtRef:
    """x.at[key]: out-of-bounds indices raise IndexError unless `mode` opts out, as in JAX:
    "clip" clamps, "drop" / "fill" / "promise_in_bounds" skip the update (a get fills).
    Repeated indices combine as JAX's CPU scatter does (jitgrad/numpy/scatter_groups.py): set
    keeps the last write, add sums, multiply / divide / power compose every update (x * v1 *
    v2, x / (v1 * v2), x ** (v1 * v2)), min / max keep the extreme. indices_are_sorted is
    accepted for JAX's signature; unique_indices=True promises no repeats (skips the sort)."""

    def __init__(self, x, key):
        self.x, self.key = x, key

    def get(self, *, indices_are_sorted=False, unique_indices=False, mode=None, fill_value=None):
        return getitem(self.x, self.key, mode, fill_value)

    def add(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None):
        p, v, slots, _ = _flat_updates(self.x, self.key, values, mode)
        sums = apply(Op.scatter_add, [p, v], {"shape": (slots,), "axis": 0})
        return add(self.x, _in_shape(self.x, sums))

    def _update(self, kind, values, mode, unique_indices):
        how, finish = _UPDATES[kind]
        p, v, slots, _ = _flat_updates(self.x, self.key, values, mode)
        c, hit = combine(p, v, slots, how, unique_indices)
        return finish(self.x, _in_shape(self.x, c), _in_shape(self.x, hit))

    def set(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None):
        return self._update("set", values, mode, unique_indices)

    def multiply(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None):
        return self._update("multiply", values, mode, unique_indices)

    mul = multiply

    def divide(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None):
        return self._update("divide", values, mode, unique_indices)

    def power(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None):
        return self._update("power", values, mode, unique_indices)

    def min(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None):
        return self._update("min", values, mode, unique_indices)

    def max(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None):
        return self._update("max", values, mode, unique_indices)


class AtIndexer:
    """JAX's functional updates: y = x.at[idx].set(v) / .add / .multiply (.mul) / .divide /
    .power / .min / .max / .get()."""

    def __init__(self, x):
        self.x = x

    def __getitem__(self, key):
        return _AtRef(asarray(self.x), key)


def setitem(x, key, value):
    if isinstance(x, Tracer):
        raise TypeError("traced arrays are immutable inside jit/grad: use `x = x.at[idx].set(v)` "
                        "instead of `x[idx] = v`" + (f" (at {user_source_info()})" if user_source_info() else ""))
    # a list holding tensors or traced values is stacked by the update (derivatives flow)
    listed = isinstance(value, (list, tuple)) and holds_array(value)
    recorded = grad_enabled() and (x.requires_grad or getattr(value, "requires_grad", False)
                                   or listed)
    if recorded or isinstance(value, Tracer) or listed:
        x._assign(_AtRef(x, key).set(value), "x[idx] = v")
        return
    x._check_mutable("x[idx] = v")
    v = value._data if isinstance(value, Tensor) else value
    if isinstance(value, Tensor) and value.device != x.device:
        raise RuntimeError(f"x[idx] = v: expected v on {x.device}, got {value.device}")
    x._data[_np_key(key)] = v
    x._version[0] += 1
    x._write_through()
