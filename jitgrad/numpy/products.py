"""matmul and the products built on it: dot, tensordot, einsum, outer, inner, kron, trace,
diag, cross, vecdot. jnp.linalg (decompositions, norms) lives in linalg.py."""
from __future__ import annotations

import numpy as np

from ..eager.dispatch import apply
from ..ir import Op
from ._convert import asarray, astype, normalize_axis, operands
from .dot_precision import accepts_precision
from ._out import accepts_out
from .complex_parts import conj
from .half_compute import narrowed, widened
from .indexing import decomposed_index
from .reductions import sum  # noqa: A004
from .shape import broadcast_to, moveaxis, pad, ravel, reshape, stack, transpose
from .ufuncs import greater, multiply, subtract
from ..ir.types import kind_of


@accepts_precision
@accepts_out
def matmul(x1, x2, /):
    """numpy.matmul: matrix product of two arrays."""
    a, b = operands(x1, x2)
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError("matmul: input operand does not have enough dimensions (a scalar was "
                         f"given: shapes {a.shape} and {b.shape}); use * for scaling")
    if kind_of(a.dtype) == "b":       # NumPy: a logical OR of ANDs
        return greater(matmul(astype(a, "int32"), astype(b, "int32")), 0)
    va, vb = a.ndim == 1, b.ndim == 1
    if va:
        a = reshape(a, (1, a.shape[0]))
    if vb:
        b = reshape(b, (b.shape[0], 1))
    out = apply(Op.matmul, [a, b])
    if va or vb:
        shape = out.shape[:-2] + (() if va else out.shape[-2:-1]) + (() if vb else out.shape[-1:])
        out = reshape(out, shape)
    return out


@accepts_precision
def tensordot(a, b, axes=2):
    """numpy.tensordot: compute tensor dot product along specified axes."""
    x, y = operands(a, b)
    if isinstance(axes, (int, np.integer)):
        ax_a = list(range(x.ndim - axes, x.ndim))
        ax_b = list(range(axes))
    else:
        ax_a, ax_b = axes
        ax_a = [ax_a] if isinstance(ax_a, (int, np.integer)) else list(ax_a)
        ax_b = [ax_b] if isinstance(ax_b, (int, np.integer)) else list(ax_b)
    ax_a = [normalize_axis(i, x.ndim) for i in ax_a]
    ax_b = [normalize_axis(i, y.ndim) for i in ax_b]
    for i, j in zip(ax_a, ax_b):
        if x.shape[i] != y.shape[j]:
            raise ValueError(f"tensordot: shape mismatch for sum: {x.shape} axis {i} vs "
                             f"{y.shape} axis {j}")
    free_a = [i for i in range(x.ndim) if i not in ax_a]
    free_b = [i for i in range(y.ndim) if i not in ax_b]
    k = int(np.prod([x.shape[i] for i in ax_a], dtype=np.int64))
    m = int(np.prod([x.shape[i] for i in free_a], dtype=np.int64))
    n = int(np.prod([y.shape[i] for i in free_b], dtype=np.int64))
    xa = reshape(transpose(x, free_a + ax_a), (m, k))
    yb = reshape(transpose(y, ax_b + free_b), (k, n))
    return reshape(matmul(xa, yb), tuple(x.shape[i] for i in free_a) + tuple(y.shape[i] for i in free_b))


@accepts_precision
def dot(a, b):
    """numpy.dot: dot product of two arrays."""
    x, y = asarray(a), asarray(b)
    if x.ndim == 0 or y.ndim == 0:
        return multiply(x, y)
    if y.ndim <= 2:
        return matmul(x, y)
    return tensordot(x, y, axes=([x.ndim - 1], [y.ndim - 2]))


@accepts_precision
def vdot(a, b):
    """numpy.vdot: return the dot product of two vectors."""
    return dot(ravel(a), ravel(b))


@accepts_precision
def inner(a, b):
    """numpy.inner: inner product of two arrays."""
    x, y = asarray(a), asarray(b)
    if x.ndim == 0 or y.ndim == 0:
        return multiply(x, y)
    return tensordot(x, y, axes=([x.ndim - 1], [y.ndim - 1]))


def outer(a, b):
    """numpy.outer: compute the outer product of two vectors."""
    return multiply(reshape(ravel(a), (-1, 1)), reshape(ravel(b), (1, -1)))


def kron(a, b):
    """numpy.kron: kronecker product of two arrays."""
    x, y = asarray(a), asarray(b)
    nd = max(x.ndim, y.ndim)
    x = reshape(x, (1,) * (nd - x.ndim) + x.shape)
    y = reshape(y, (1,) * (nd - y.ndim) + y.shape)
    xs = reshape(x, tuple(v for d in x.shape for v in (d, 1)))
    ys = reshape(y, tuple(v for d in y.shape for v in (1, d)))
    return reshape(multiply(xs, ys), tuple(p * q for p, q in zip(x.shape, y.shape)))


def diagonal(a, offset=0, axis1=0, axis2=1):
    """numpy.diagonal: return specified diagonals."""
    x = asarray(a)
    x = moveaxis(x, (normalize_axis(axis1, x.ndim), normalize_axis(axis2, x.ndim)), (-2, -1))
    n, m = x.shape[-2], x.shape[-1]
    i = np.arange(max(0, -offset), max(max(0, -offset), min(n, m - offset)), dtype=np.int64)
    return decomposed_index(x, (Ellipsis, i, i + offset))


def trace(a, offset=0, axis1=0, axis2=1):
    """numpy.trace: return the sum along diagonals of the array."""
    return sum(diagonal(a, offset, axis1, axis2), axis=-1)


def diag(v, k=0):
    """numpy.diag: extract a diagonal or construct a diagonal array."""
    x = asarray(v)
    if x.ndim == 2:
        return diagonal(x, k)
    if x.ndim != 1:
        raise ValueError(f"diag: input must be 1-d or 2-d, got shape {x.shape}")
    n = x.shape[0]
    eye = np.eye(n, dtype=x.dtype)
    d = multiply(reshape(x, (1, n)), eye)
    return pad(d, ((max(0, -k), max(0, k)), (max(0, k), max(0, -k)))) if k else d


@accepts_precision
def vecdot(x1, x2, /, *, axis=-1):
    """The standard's vecdot: the dot product along `axis` of the broadcast operands."""
    a, b = operands(x1, x2)
    nd = max(a.ndim, b.ndim)
    ax = normalize_axis(axis, nd)
    da, db = a.shape[ax - nd] if ax - nd >= -a.ndim else 1, b.shape[ax - nd] if ax - nd >= -b.ndim else 1
    if min(a.ndim, b.ndim) == 0 or da != db:
        raise ValueError(f"vecdot: the operands need equal sizes along axis {axis}, got shapes "
                         f"{a.shape} and {b.shape}")
    (a, b), dtype = widened(a, b)       # float16/bfloat16: products summed in float32
    p = multiply(conj(a), b)    # the standard's vecdot conjugates x1
    return narrowed(sum(p, axis=ax - nd, dtype=p.dtype), dtype)     # the operands' dtype


def cross(a, b, axis=-1, *, axisa=None, axisb=None, axisc=None):
    """The cross product of 3-vectors along `axis` (NumPy's axisa/axisb/axisc override it);
    the other axes broadcast and the result keeps the vectors on `axis`, as NumPy."""
    x, y = operands(a, b)
    if x.ndim == 0 or y.ndim == 0:
        raise ValueError(f"cross: expected arrays of dimension >= 1, got shapes {x.shape} and "
                         f"{y.shape}")
    shapes = f"shapes {x.shape} and {y.shape}"
    ax_a, ax_b = axis if axisa is None else axisa, axis if axisb is None else axisb
    x, y = moveaxis(x, ax_a, -1), moveaxis(y, ax_b, -1)
    if x.shape[-1] != 3 or y.shape[-1] != 3:
        raise ValueError(f"cross: the vectors need 3 components on axis {ax_a} (and {ax_b}), "
                         f"got {shapes}")
    (a0, a1, a2), (b0, b1, b2) = [x[..., i] for i in range(3)], [y[..., i] for i in range(3)]
    out = stack([subtract(multiply(a1, b2), multiply(a2, b1)),
                 subtract(multiply(a2, b0), multiply(a0, b2)),
                 subtract(multiply(a0, b1), multiply(a1, b0))], axis=-1)
    return moveaxis(out, -1, axis if axisc is None else axisc)


@accepts_precision
def einsum(subscripts, *operands_, optimize=None):
    """NumPy's einsum: any number of operands, '...' for broadcast dimensions, repeated letters
    for diagonals. More than two operands contract pairwise, cheapest intermediate first."""
    if not isinstance(subscripts, str):       # NumPy's sublist form: einsum(a, [0, 1], b, [1])
        subscripts, operands_ = _sublists_to_subscripts((subscripts,) + operands_)
    ins, out, xs = _einsum_parse(subscripts, operands_)
    xs, dtype = widened(*xs)    # float16/bfloat16: every contraction in float32, rounded once
    if len(xs) == 1:
        return narrowed(_einsum1(ins[0], xs[0], out), dtype)
    terms = list(zip(ins, xs))
    while len(terms) > 2:
        terms = _contract_cheapest_pair(terms, out)
    (sa, a), (sb, b) = terms
    return narrowed(_einsum2(sa, a, sb, b, out), dtype)


_SUBLIST_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _sublist(labels):
    def letter(v):
        if v is Ellipsis:
            return "..."
        if isinstance(v, (int, np.integer)) and not isinstance(v, bool) \
                and 0 <= v < len(_SUBLIST_LETTERS):
            return _SUBLIST_LETTERS[v]
        raise ValueError(f"einsum: a sublist holds integers in [0, 52) and Ellipsis, got {v!r}")
    return "".join(letter(v) for v in labels)


def _sublists_to_subscripts(args):
    """(subscripts string, operands) of NumPy's form einsum(op0, sublist0, op1, sublist1, ...,
    [sublist_out])."""
    args = list(args)
    out = _sublist(args.pop()) if len(args) % 2 else None
    ops, subs = args[0::2], [_sublist(s) for s in args[1::2]]
    return ",".join(subs) + ("" if out is None else "->" + out), tuple(ops)


def _einsum_parse(subscripts, operands_):
    """Subscripts with every '...' replaced by letters of their own (broadcast dimensions
    aligned from the right), the output subscript, and the operands broadcast where an
    ellipsis dimension of size 1 meets a larger one."""
    spec = subscripts.replace(" ", "")
    lhs, arrow, out = spec.partition("->")
    ins = lhs.split(",")
    if len(ins) != len(operands_):
        raise ValueError(f"einsum: {len(ins)} operand subscripts but {len(operands_)} operands")
    xs = [asarray(x) for x in operands_]
    for s in ins + [out]:
        bad = [c for c in s.replace("...", "") if not c.isalpha()]
        if bad or s.count("...") > 1:
            raise ValueError(f"einsum: invalid subscript {bad[0] if bad else '...'!r} in "
                             f"'{subscripts}' (letters and one '...' per operand)")
    spare = [c for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz" if c not in spec]
    n_ell = max((x.ndim - len(s.replace("...", "")) for s, x in zip(ins, xs) if "..." in s),
                default=0)
    ell = "".join(spare[:n_ell])
    expanded = []
    for s, x in zip(ins, xs):
        if "..." in s:
            k = x.ndim - len(s.replace("...", ""))
            if k < 0:
                raise ValueError(f"einsum: subscripts '{s}' don't match an operand of shape "
                                 f"{x.shape}")
            s = s.replace("...", ell[n_ell - k:])
        expanded.append(s)
    if not arrow:
        letters = "".join(expanded)
        out = ell + "".join(sorted(c for c in set(letters) if letters.count(c) == 1
                                   and c not in ell))
    else:
        out = out.replace("...", ell)
    sizes = {}
    for k, (s, x) in enumerate(zip(expanded, xs)):
        if len(s) != x.ndim:
            raise ValueError(f"einsum: subscripts '{s}' don't match an operand of shape {x.shape}")
        for c, d in zip(s, x.shape):
            if sizes.setdefault(c, d) != d and not (c in ell and 1 in (d, sizes[c])):
                raise ValueError(f"einsum: size of label '{c}' for operand {k} ({d}) does not "
                                 f"match previous terms ({sizes[c]}) in '{subscripts}' with "
                                 "operand shapes " + ", ".join(str(tuple(x.shape)) for x in xs))
            sizes[c] = d if sizes[c] == 1 else sizes[c]
    missing = [c for c in out if c not in sizes]
    if missing:
        raise ValueError(f"einsum: output subscript '{missing[0]}' does not appear in the inputs")
    xs = [broadcast_to(x, tuple(sizes[c] for c in s)) for s, x in zip(expanded, xs)]
    return expanded, out, xs


def _contract_cheapest_pair(terms, out):
    """Contract the two operands whose result is smallest (ties: the first pair)."""
    best = None
    for i in range(len(terms)):
        for j in range(i + 1, len(terms)):
            keep = _kept_letters(terms, i, j, out)
            size = dict(zip(terms[i][0], terms[i][1].shape)) | dict(zip(terms[j][0], terms[j][1].shape))
            cost = int(np.prod([size[c] for c in keep], dtype=np.int64))
            if best is None or cost < best[0]:
                best = (cost, i, j, keep)
    _, i, j, keep = best
    (si, xi), (sj, xj) = terms[i], terms[j]
    rest = [t for k, t in enumerate(terms) if k not in (i, j)]
    return rest + [(keep, _einsum2(si, xi, sj, xj, keep))]


def _kept_letters(terms, i, j, out):
    others = "".join(s for k, (s, _) in enumerate(terms) if k not in (i, j)) + out
    seen = []
    for c in terms[i][0] + terms[j][0]:
        if c in others and c not in seen:
            seen.append(c)
    return "".join(seen)


def _einsum1(s, x, out):
    x, s = _einsum_diag(x, s)
    x = sum(x, axis=tuple(i for i, c in enumerate(s) if c not in out), dtype=x.dtype) \
        if set(s) - set(out) else x
    kept = [c for c in s if c in out]
    return transpose(x, [kept.index(c) for c in out])


def _einsum2(sa, a, sb, b, out):
    """Two operands: sum away private letters, then one batched matmul."""
    a, sa = _einsum_diag(a, sa)
    b, sb = _einsum_diag(b, sb)
    # sum away letters only one operand has and the output doesn't need
    only_a = [c for c in sa if c not in sb and c not in out]
    only_b = [c for c in sb if c not in sa and c not in out]
    if only_a:
        a = sum(a, axis=tuple(sa.index(c) for c in only_a), dtype=a.dtype)
        sa = "".join(c for c in sa if c not in only_a)
    if only_b:
        b = sum(b, axis=tuple(sb.index(c) for c in only_b), dtype=b.dtype)
        sb = "".join(c for c in sb if c not in only_b)
    batch = [c for c in sa if c in sb and c in out]
    contract = [c for c in sa if c in sb and c not in out]
    free_a = [c for c in sa if c not in sb]
    free_b = [c for c in sb if c not in sa]
    size = dict(zip(sa, a.shape)) | dict(zip(sb, b.shape))
    prod = lambda cs: int(np.prod([size[c] for c in cs], dtype=np.int64))  # noqa: E731
    at = reshape(transpose(a, [sa.index(c) for c in batch + free_a + contract]),
                 [size[c] for c in batch] + [prod(free_a), prod(contract)])
    bt = reshape(transpose(b, [sb.index(c) for c in batch + contract + free_b]),
                 [size[c] for c in batch] + [prod(contract), prod(free_b)])
    r = reshape(matmul(at, bt), [size[c] for c in batch + free_a + free_b])
    have = batch + free_a + free_b
    return transpose(r, [have.index(c) for c in out])


def _einsum_diag(x, s):
    """Handle a repeated letter within one operand ('ii') by taking the diagonal."""
    while len(set(s)) < len(s):
        c = next(c for c in s if s.count(c) > 1)
        i, j = s.index(c), s.index(c, s.index(c) + 1)
        x = diagonal(x, 0, i, j)
        s = "".join(ch for k, ch in enumerate(s) if k not in (i, j)) + c
    return x, s
