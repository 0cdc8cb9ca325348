"""Opaque (one-op) kernels as LLVM IR: copies with affine offsets (reshape, transpose, slice,
flip, pad, concatenate, im2col), col2im's sums and gathers/scatters (take, scatter_add) with
NumPy's index rules.

An index outside [-m, m)
(or [0, m) for an assertion such as class labels) is never read or written; the first one is
recorded in the status pair [1, index] and the kernel returns non-zero, so the caller raises the
error eager mode raises (ir.errors.check_error). cumsum (codegen/cpu/kernels/cumulative.py),
sort/argsort (codegen/cpu/kernels/sort.py) and the LAPACK decompositions
(codegen/cpu/kernels/lapack.py: several outputs, read from fn.outs) are entries of the same
table.
"""
from __future__ import annotations

import math

import numpy as np
from llvmlite import ir

from ....ir.ops import Op
from ...kernel.space import c_strides
from ..llvm_exprs import I64, const
from . import cumulative, lapack, sort


def _affine(fn, base, coefs, idx):
    """base + sum(coef * index) as an i64 (coefficients may be negative: flips)."""
    b = fn.b
    acc = ir.Constant(I64, base)
    for c, i in zip(coefs, idx):
        if c:
            acc = b.add(acc, i if c == 1 else b.mul(i, ir.Constant(I64, c)))
    return acc


MEMCPY_MIN = 16     # elements: a contiguous run at least this long is one memcpy call


def _collapse(shape, dst_coefs, src_coefs):
    """The copy's loops with extent-1 axes dropped and adjacent axes merged where both sides
    are contiguous across them: (shape, dst coefficients, src coefficients)."""
    dims = [(e, d, s) for e, d, s in zip(shape, dst_coefs, src_coefs) if e != 1]
    out = []
    for e, d, s in dims:
        if out and out[-1][1] == e * d and out[-1][2] == e * s:
            pe, _, _ = out.pop()
            e = pe * e
        out.append((e, d, s))
    return ([e for e, _, _ in out], [d for _, d, _ in out], [s for _, _, s in out])


def _nbytes(t):
    if isinstance(t, ir.LiteralStructType):     # a complex value: {re, im}
        return sum(_nbytes(e) for e in t.elements)
    return {"float": 4, "double": 8, "half": 2}.get(str(t), getattr(t, "width", 8) // 8)


def _memcpy(fn, dst, src, nbytes):
    b = fn.b
    i8p = ir.PointerType(ir.IntType(8))
    f = b.module.declare_intrinsic("llvm.memcpy", [i8p, i8p, I64])
    b.call(f, [b.bitcast(dst, i8p), b.bitcast(src, i8p), ir.Constant(I64, nbytes),
               ir.Constant(ir.IntType(1), 0)])


def _affine_copy(fn, shape, dst, dst_at, src, src_at):
    """dst[dst_at] = src[src_at] over every index of `shape`; *_at = (base, coefficients).
    Contiguous runs on both sides (after merging axes) are llvm.memcpy calls: a copy kernel
    then has no loop for LLVM's vectorizer to version and unroll, which made a 9-way
    concatenate cost ~1 s of O3 compile time (issue 25) and a slice or pad ~0.1 s."""
    if math.prod(shape) == 0:
        return
    b = fn.b
    shape, dcoef, scoef = _collapse(shape, dst_at[1], src_at[1])
    if shape and dcoef[-1] == 1 and scoef[-1] == 1 and shape[-1] >= MEMCPY_MIN:
        run = shape[-1] * _nbytes(dst.type.pointee)

        def rows(idx):
            _memcpy(fn, b.gep(dst, [_affine(fn, dst_at[0], dcoef[:-1], idx)]),
                    b.gep(src, [_affine(fn, src_at[0], scoef[:-1], idx)]), run)
        fn.nest(shape[:-1], rows)
        return

    def emit(idx):
        value = b.load(b.gep(src, [_affine(fn, src_at[0], scoef, idx)]))
        b.store(value, b.gep(dst, [_affine(fn, dst_at[0], dcoef, idx)]))
    k = _tile_axis(shape, dcoef, scoef, dst.type.pointee)
    if k is None:
        fn.nest(shape, emit)
        return
    _tiled(fn, shape, k, (dst, dst_at[0], dcoef), (src, src_at[0], scoef), emit)


TILE = 8
# after the three shuffle stages of _transpose_tile, vector j holds source column COLUMN[j]
COLUMN = (0, 2, 1, 3, 4, 6, 5, 7)
_STAGES = (((0, 8, 1, 9, 4, 12, 5, 13), (2, 10, 3, 11, 6, 14, 7, 15), ((0, 1), (2, 3), (4, 5), (6, 7))),
           ((0, 1, 8, 9, 4, 5, 12, 13), (2, 3, 10, 11, 6, 7, 14, 15), ((0, 2), (1, 3), (4, 6), (5, 7))),
           ((0, 1, 2, 3, 8, 9, 10, 11), (4, 5, 6, 7, 12, 13, 14, 15), ((0, 4), (1, 5), (2, 6), (3, 7))))


def _tile_axis(shape, dcoef, scoef, elt):
    """For a copy that moves the last axis (the destination contiguous along it, the source
    not): the axis along which the source is contiguous, when both it and the last axis hold
    a whole tile and the elements are numbers; else None. Such a copy then moves 8x8 tiles:
    8 vector loads along that axis, transposed in registers, 8 vector stores along the last
    (an element loop reads a cache line per element: a [8,64,4,32] -> [8,4,32,64] head
    transpose took 31 us a call where one keeping the last axis took 6)."""
    if len(shape) < 2 or dcoef[-1] != 1 or scoef[-1] == 1 or shape[-1] < TILE or \
            not isinstance(elt, (ir.FloatType, ir.DoubleType, ir.IntType)):
        return None
    return next((a for a in range(len(shape) - 1) if scoef[a] == 1 and shape[a] >= TILE), None)


def _transpose_tile(b, rows):
    """8 vectors (rows) -> 8 vectors, vector j the column COLUMN[j] of the rows."""
    for lo, hi, pairs in _STAGES:
        out = [None] * TILE
        for i, j in pairs:
            for at, mask in ((i, lo), (j, hi)):
                out[at] = b.shuffle_vector(rows[i], rows[j], ir.Constant(
                    ir.VectorType(ir.IntType(32), TILE), list(mask)))
        rows = out
    return rows


def _tiled(fn, shape, k, dst, src, emit):
    """The copy in TILE x TILE tiles of axes k (the source's contiguous one) and the last (the
    destination's), element loops for the edges; dst/src: (pointer, base, coefficients)."""
    b, last = fn.b, len(shape) - 1
    other = [a for a in range(last) if a != k]
    vty = ir.VectorType(dst[0].type.pointee, TILE)
    align = _nbytes(dst[0].type.pointee)
    c64 = lambda v: ir.Constant(I64, v)      # noqa: E731

    def index(head, kv, lv):
        at = dict(zip(other, head))
        at[k], at[last] = kv, lv
        return [at[a] for a in range(len(shape))]

    def vector(side, idx):
        ptr, base, coef = side
        return b.bitcast(b.gep(ptr, [_affine(fn, base, coef, idx)]), ir.PointerType(vty))

    def tile(idx):
        *head, kb, lb = idx
        k0, l0 = b.mul(kb, c64(TILE)), b.mul(lb, c64(TILE))
        rows = []
        for r in range(TILE):
            v = b.load(vector(src, index(head, k0, b.add(l0, c64(r)))))
            v.align = align
            rows.append(v)
        for j, col in enumerate(_transpose_tile(b, rows)):
            st = b.store(col, vector(dst, index(head, b.add(k0, c64(COLUMN[j])), l0)))
            st.align = align
    nk, nl = shape[k] // TILE * TILE, shape[last] // TILE * TILE
    fn.nest([shape[a] for a in other] + [nk // TILE, nl // TILE], tile)
    for k_from, l_from, k_to in ((nk, 0, shape[k]), (0, nl, nk)):     # the edges
        if k_from < k_to and l_from < shape[last]:
            def edge(head, k_from=k_from, l_from=l_from, k_to=k_to):
                with fn.loop(k_to, k_from) as kv, fn.loop(shape[last], l_from) as lv:
                    emit(index(head, kv, lv))
            fn.nest([shape[a] for a in other], edge)


def _copy(fn, n, x, out):
    _affine_copy(fn, (n.output.type.size,), out, (0, (1,)), x[0], (0, (1,)))


def _transpose(fn, n, x, out):
    xs = c_strides(n.inputs[0].type.shape)
    perm = n.params["perm"]
    _affine_copy(fn, n.output.type.shape, out, (0, c_strides(n.output.type.shape)),
                 x[0], (0, [xs[p] for p in perm]))


def shifts(node):
    """The byte offsets a shifted unit of opaque kernel `node` takes in its argv slots instead
    of its code, {role: bytes}: a slice's start (added to its input's slot) and a pad's low
    padding (the ("at", 0) slot: its output where the input lands). Kernels that differ only in
    them (the k*k taps of a convolution and their gradients) then share one compiled unit."""
    (n,) = node.params["body"].nodes
    item = np.dtype(n.inputs[0].type.dtype).itemsize
    if n.op == Op.slice:
        xs = c_strides(n.inputs[0].type.shape)
        return {("in", 0): item * sum(a * s for a, s in zip(n.params["start"], xs))}
    if n.op == Op.pad:
        os_ = c_strides(n.output.type.shape)
        return {("at", 0): item * sum(lo * s for lo, s in zip(n.params["lo"], os_))}
    return None


def shifted_key(node):
    """What a shifted unit's code depends on (not the offsets), or None: not an opaque slice
    or pad with non-negative low padding."""
    if node.params["kind"] != "opaque" or len(node.params["body"].nodes) != 1:
        return None
    (n,) = node.params["body"].nodes
    if n.op == Op.slice and n.inputs[0] in node.params["body"].inputs:    # not a constant
        return f"shifted slice {n.inputs[0].type} -> {n.output.type} step={tuple(n.params['step'])}"
    if n.op == Op.pad and min(n.params["lo"]) >= 0 and min(n.params["hi"]) >= 0 and \
            n.output.type.size:
        return f"shifted pad {n.inputs[0].type} -> {n.output.type} value={n.params.get('value', 0)!r}"
    return None


def _slice(fn, n, x, out):
    p, xs = n.params, c_strides(n.inputs[0].type.shape)
    base = 0 if fn.shifted else sum(a * s for a, s in zip(p["start"], xs))
    _affine_copy(fn, n.output.type.shape, out, (0, c_strides(n.output.type.shape)),
                 x[0], (base, [st * s for st, s in zip(p["step"], xs)]))


def _rev(fn, n, x, out):
    shape, axes = n.inputs[0].type.shape, n.params["axes"]
    xs = c_strides(shape)
    base = sum((shape[d] - 1) * xs[d] for d in axes)
    _affine_copy(fn, shape, out, (0, xs), x[0], (base, [-s if d in axes else s
                                                      for d, s in enumerate(xs)]))


def _fill(fn, ptr, size, value):
    if isinstance(value, ir.Constant) and value.constant in (0, False) and \
            str(value.constant) != "-0.0":      # all-zero bits: one memset
        i8p = ir.PointerType(ir.IntType(8))
        f = fn.b.module.declare_intrinsic("llvm.memset", [i8p, I64])
        fn.b.call(f, [fn.b.bitcast(ptr, i8p), ir.Constant(ir.IntType(8), 0),
                      ir.Constant(I64, size * _nbytes(ptr.type.pointee)), ir.Constant(ir.IntType(1), 0)])
        return
    with fn.loop(size) as i:
        fn.b.store(value, fn.b.gep(ptr, [i]))


def _pad(fn, n, x, out):
    xt, p = n.inputs[0].type, n.params
    value = const(xt.dtype, p.get("value", 0))
    if np.dtype(xt.dtype).kind == "b":
        value = fn.b.zext(value, out.type.pointee)
    _fill(fn, out, n.output.type.size, value)
    os_ = c_strides(n.output.type.shape)
    if fn.shifted:      # the input lands at the ("at", 0) slot: the output shifted by its offset
        _affine_copy(fn, xt.shape, fn.at(n.output.type.dtype), (0, os_), x[0],
                     (0, c_strides(xt.shape)))
        return
    _affine_copy(fn, xt.shape, out, (sum(lo * s for lo, s in zip(p["lo"], os_)), os_),
                 x[0], (0, c_strides(xt.shape)))


def _concatenate(fn, n, x, out):
    axis, start = n.params["axis"], 0
    os_ = c_strides(n.output.type.shape)
    for xi, v in zip(x, n.inputs):
        _affine_copy(fn, v.type.shape, out, (start * os_[axis], os_), xi, (0, c_strides(v.type.shape)))
        start += v.type.shape[axis]


def _per_image(fn, lead, strides, ptrs, emit):
    """emit(pointers) once per index of the leading axes, each pointer advanced by its stride
    per image: a convolution's blocks are copied or summed image by image, while the image is
    in cache."""
    b = fn.b

    def image(idx):
        (i,) = idx
        emit([b.gep(p, [b.mul(i, ir.Constant(I64, s))]) for p, s in zip(ptrs, strides)])
    fn.outer_nest((math.prod(lead),), image)       # in a range body: the images split


PER_IMAGE = {Op.im2col: lambda n: n.inputs[0].type.shape[:-2],
             Op.col2im: lambda n: n.output.type.shape[:-2]}


def images(node) -> int:
    """How many images an opaque kernel works on one by one (its range on the pool), or 0."""
    (n,) = node.params["body"].nodes
    lead = PER_IMAGE.get(n.op)
    return 0 if lead is None else math.prod(lead(n))


def _im2col(fn, n, x, out):
    p, shape = n.params, n.inputs[0].type.shape
    R, L = shape[-2:]
    rows, length, k = p["rows"], p["length"], len(p["starts"])

    def blocks(ptr):
        dst, src = ptr
        for t, (r, c) in enumerate(p["starts"]):
            _affine_copy(fn, (rows, length), dst, (t * rows * length, (length, 1)),
                         src, (r * L + c, (L, 1)))
    _per_image(fn, shape[:-2], (k * rows * length, R * L), (out, x[0]), blocks)


def _select(fn, t, values):
    """values[t] for an i64 index t, as a chain of selects (no table in the unit's module)."""
    b = fn.b
    out = ir.Constant(I64, values[-1])
    for j in range(len(values) - 2, -1, -1):
        out = b.select(b.icmp_signed("==", t, ir.Constant(I64, j)), ir.Constant(I64, values[j]), out)
    return out


def _col2im(fn, n, x, out):
    """Per image: zeros, then block t of the input added at its start, taps in order (the
    reference's sums). The taps are a loop (the starts selected by index), not k copies of the
    add loop: O3 vectorized each copy, and a 3x3 conv's col2im took 1.3 s to compile."""
    p, dt = n.params, n.output.type.dtype
    R, L = p["size"]
    rows, length, k = p["rows"], p["length"], len(p["starts"])
    b = fn.b
    add = b.fadd if np.dtype(dt).kind == "f" else b.add
    starts = [r * L + c for r, c in p["starts"]]

    def blocks(ptr):
        dst, src = ptr
        _fill(fn, dst, R * L, const(dt, 0))
        with fn.loop(k) as t:
            d0 = b.gep(dst, [_select(fn, t, starts)])
            s0 = b.gep(src, [b.mul(t, ir.Constant(I64, rows * length))])

            def emit(ij):
                i, j = ij
                d = b.gep(d0, [b.add(_affine(fn, 0, (L,), (i,)), j)])
                s = b.gep(s0, [b.add(_affine(fn, 0, (length,), (i,)), j)])
                b.store(add(b.load(d), b.load(s)), d)
            fn.nest((rows, length), emit)
    _per_image(fn, n.output.type.shape[:-2], (R * L, k * rows * length), (out, x[0]), blocks)


def _pnq(shape, axis):
    return math.prod(shape[:axis]), shape[axis], math.prod(shape[axis + 1:])


def _gather_scatter(fn, n, idx, m, I, body):
    """for i in range(I): j = idx[i] (negatives from the end unless an assertion); out of range:
    record the first [1, index] in the status pair and skip; else body(i, j)."""
    b = fn.b
    status = fn.status()
    with fn.loop(I) as i:
        raw = b.load(b.gep(idx, [i]))
        raw = b.sext(raw, I64) if raw.type.width < 64 else raw
        j = raw
        zero, mm = ir.Constant(I64, 0), ir.Constant(I64, m)
        if not n.params.get("check"):
            j = b.select(b.icmp_signed("<", j, zero), b.add(j, mm), j)
        bad = b.or_(b.icmp_signed("<", j, zero), b.icmp_signed(">=", j, mm))
        with b.if_else(bad) as (then, otherwise):
            with then:
                first = b.icmp_signed("==", b.load(status), zero)
                with b.if_then(first):
                    b.store(ir.Constant(I64, 1), status)
                    b.store(raw, b.gep(status, [ir.Constant(I64, 1)]))
            with otherwise:
                body(i, j)


def _take(fn, n, x, out):
    xv, iv = n.inputs
    P, m, Q = _pnq(xv.type.shape, n.params["axis"])
    I = iv.type.size
    if P * I * Q == 0:
        return
    b = fn.b

    def body(i, j):
        def emit(pq):
            p, q = pq
            src = b.add(b.mul(b.add(b.mul(p, ir.Constant(I64, m)), j), ir.Constant(I64, Q)), q)
            dst = b.add(b.mul(b.add(b.mul(p, ir.Constant(I64, I)), i), ir.Constant(I64, Q)), q)
            b.store(b.load(b.gep(x[0], [src])), b.gep(out, [dst]))
        fn.nest((P, Q), emit)
    _gather_scatter(fn, n, x[1], m, I, body)


def _scatter_add(fn, n, x, out):
    iv, uv = n.inputs
    P, m, Q = _pnq(n.params["shape"], n.params["axis"])
    I = iv.type.size
    dt = n.output.type.dtype
    _fill(fn, out, n.output.type.size, const(dt, 0))
    if P * I * Q == 0:
        return
    b = fn.b
    add = cumulative.adder(b, dt)

    def body(i, j):
        def emit(pq):
            p, q = pq
            src = b.add(b.mul(b.add(b.mul(p, ir.Constant(I64, I)), i), ir.Constant(I64, Q)), q)
            dst = b.gep(out, [b.add(b.mul(b.add(b.mul(p, ir.Constant(I64, m)), j),
                                          ir.Constant(I64, Q)), q)])
            b.store(add(b.load(dst), b.load(b.gep(x[1], [src]))), dst)
        fn.nest((P, Q), emit)
    _gather_scatter(fn, n, x[0], m, I, body)


OPAQUE = {Op.reshape: _copy, Op.transpose: _transpose, Op.slice: _slice, Op.rev: _rev,
          Op.pad: _pad, Op.concatenate: _concatenate, Op.take: _take,
          Op.scatter_add: _scatter_add, Op.im2col: _im2col, Op.col2im: _col2im,
          **cumulative.OPAQUE, **sort.OPAQUE, **lapack.OPAQUE}


# the kernels that take complex values: those that move elements, and the sums (the others
# compare, or factor real matrices)
COMPLEX_OK = frozenset({Op.reshape, Op.transpose, Op.slice, Op.rev, Op.pad, Op.concatenate,
                        Op.take, Op.im2col, Op.cumsum, Op.scatter_add})


def why_not(node):
    nodes = node.params["body"].nodes
    if len(nodes) != 1 or nodes[0].op not in OPAQUE:
        return f"op {nodes[0].op.name}" if len(nodes) == 1 else "a multi-op opaque kernel"
    n = nodes[0]
    if n.op == Op.scatter_add and np.dtype(n.output.type.dtype).kind == "b":
        return "scatter_add on bool"
    if n.op not in COMPLEX_OK and any(np.dtype(v.type.dtype).kind == "c"
                                      for v in (*n.inputs, *n.outputs)):
        return f"{n.op.name} of complex values"
    return None


CHECKED = {Op.take: lambda n: n.inputs[0].type.shape[n.params["axis"]],
           Op.scatter_add: lambda n: n.params["shape"][n.params["axis"]]}


def check_of(node):
    """(op, check kind, axis size, source line) of an opaque kernel's index check, or None."""
    (n,) = node.params["body"].nodes
    size = CHECKED.get(n.op)
    return None if size is None else (str(n.op), n.params.get("check"), size(n), node.source_info)


def gen_opaque(fn):
    (n,) = fn.body.nodes
    if n.op in CHECKED:             # the status slot always, so the argv layout is fixed
        fn.status()
    if not any(v.type.size for v in n.outputs):
        return
    x = [fn.arrays[v] for v in n.inputs]
    OPAQUE[n.op](fn, n, x, fn.outs[n.output][0] if len(n.outputs) == 1 else None)
