"""Fusion legality (`analyze` / `can_fuse`) and profitability (`score`), kept apart.

`analyze(nodes, outputs)` decides whether a set of nodes can run as ONE kernel and of which kind
(ir/kernel.py documents the kinds). It computes the kernel's iteration domain D (a shape), its
reduced axes R (axes of D) and an *index map* for every value: for each axis of the value, the
axis of D it is indexed by, or None for a size-1 axis (read at index 0). Maps flow backwards from
the outputs: NumPy broadcasting right-aligns an input's axes with its result's; a reshape that only
inserts or removes size-1 axes keeps the non-unit axes in order; a reduction's input gets R at its
reduced axes. A value reached by two paths with different maps (e.g. f32[4] broadcast both as a
row and, via a reshape, as a column) cannot be computed once per point, so such a set is illegal.

`score` estimates the memory traffic a fusion saves (a value no longer written and read back),
plus a bonus per kernel launch saved, minus the cost of recomputing an expensive op once per
element of a larger domain (exp of an f32[4096,1] column inside an f32[4096,4096] elementwise
kernel would be computed 4096 times per value).
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from .. import lowp
from ..ops import Op
from ..primitives import ELEMENTWISE, REDUCE
from ..registry import COST, OP_COST     # per element, in bytes-equivalent (the records' cost)
from .matmul_views import VIEW_OPS, View, gemm_layout

LAUNCH_BYTES = 4096                     # what one kernel launch / pass over memory costs, in bytes
DEFAULT_OP_COST = COST["cheap"]


@functools.lru_cache(maxsize=4096)
def nonunit(shape) -> tuple:
    return tuple(d for d in shape if d != 1)


def is_unit_reshape(node) -> bool:
    return node.op == Op.reshape and nonunit(node.inputs[0].type.shape) == nonunit(
        node.output.type.shape)


def is_elementwise_like(node) -> bool:
    """Ops computed pointwise from the kernel's index: elementwise ops, constants, broadcasts and
    reshapes that only add or drop size-1 axes."""
    return (node.op in ELEMENTWISE or node.op in (Op.constant, Op.broadcast_to)
            or is_unit_reshape(node))


def is_matmul_prologue(node) -> bool:
    """A node a matmul kernel reads its operand through, in place: a slice, transpose or
    reshape (of a kernel input, chained: the input's buffer read at an offset with strides,
    matmul_views) or an im2col (a convolution's columns, read in place from the image: row
    t*rows + r of the columns is a run of the image's row r_t + r from column c_t,
    `im2col_rows`). matmul_operand says whether a chain of them is one the GEMM can read."""
    return node.op == Op.im2col or node.op in VIEW_OPS


def is_last_two_transpose(node) -> bool:
    """A transpose of the last two axes (BLAS reads it as a transposed operand)."""
    if node.op != Op.transpose:
        return False
    n = len(node.params["perm"])
    return n >= 2 and node.params["perm"] == tuple(range(n - 2)) + (n - 1, n - 2)


def is_product_store(node, product) -> bool:
    """A transpose of a matmul's product that keeps its last axis last: the GEMM stores the
    product through it, its rows and batch at the transposed layout's strides (attention's
    `(att @ v).transpose(0, 2, 1, 3)`; codegen/kernel/nest.MatmulNest.store)."""
    if node.op != Op.transpose or node.inputs[0] is not product:
        return False
    perm = node.params["perm"]
    return perm[-1] == len(perm) - 1 and perm != tuple(range(len(perm)))


def product_stores(nodes, product) -> set:
    """The outputs of the product stores of `product` among `nodes`."""
    return {n.output for n in nodes if is_product_store(n, product)}


class OperandForm(NamedTuple):
    """How a matmul kernel reads one operand in place: `src`, the body input whose buffer is read
    (an im2col's image); `shape`, the matrices as stored ((..., k, m) for a transposed A, (..., n,
    k) for B); `trans`, stored with the last two axes swapped; `cols`, the im2col's params when
    the columns are read from the image; `offset`, `strides` and `ld`: element (b..., i, j) of
    the stored matrices at offset + sum(b * strides) + i * ld + j (an im2col: its batch of
    images, rows by the table)."""
    src: object
    shape: tuple
    trans: bool
    cols: dict | None
    offset: int
    strides: tuple
    ld: int


def matmul_operand(producers, v) -> OperandForm | None:
    """The OperandForm of a matmul operand in a kernel body: a body input, a chain of slices,
    transposes and reshapes of one that is a GEMM operand in place (matmul_views.gemm_layout),
    or an im2col of one, possibly with its last two axes swapped; None for anything else.
    `producers`: the body's value -> node map."""
    chain, node = [], producers.get(v)
    while node is not None and node.op in VIEW_OPS:
        chain.append(node)
        v = node.inputs[0]
        node = producers.get(v)
    if node is not None:
        if node.op != Op.im2col or producers.get(node.inputs[0]) is not None or not (
                chain == [] or (len(chain) == 1 and is_last_two_transpose(chain[0]))):
            return None
        img = node.inputs[0].type.shape
        shape = node.output.type.shape
        per = math.prod(img[-2:])
        batch = tuple(0 if d == 1 else s * per for d, s in
                      zip(shape[:-2], View.of(shape[:-2]).strides))
        return OperandForm(node.inputs[0], tuple(shape), bool(chain), node.params, 0, batch,
                           shape[-1])
    return view_form(v, chain)


def view_form(src, chain) -> OperandForm | None:
    """The OperandForm of `src`'s buffer read through `chain` (slices, transposes and reshapes,
    the one nearest the product first), or None where that is not one GEMM operand."""
    view = View.of(src.type.shape)
    for n in reversed(chain):
        view = view.apply(n)
        if view is None:
            return None
    layout = gemm_layout(view, bool(chain) and is_last_two_transpose(chain[0]))
    if layout is None:
        return None
    shape, trans, ld, strides = layout
    return OperandForm(src, shape, trans, None, view.offset, strides, ld)


def im2col_rows(params, image_shape) -> list[int]:
    """Where each row of an im2col's columns starts in its image (flat offsets within one image
    of shape (..., R, L)): row t*rows + r is the run from (r_t + r, c_t)."""
    L = image_shape[-1]
    return [(r0 + r) * L + c0 for r0, c0 in params["starts"] for r in range(params["rows"])]


# The dtypes whose matmul kernels read an im2col operand in place (codegen's unpacked GEMMs).
IM2COL_DTYPES = ("float32", "float64")


def im2col_operand_ok(mm, forms) -> bool:
    """Whether a matmul with operands `forms` (matmul_operand's results) can read its im2col
    operands in place: only the right operand, float32/float64, and, when it is transposed
    (`x @ cols^T`, a convolution's weight gradient), a plain left operand. The CPU's unpacked
    GEMMs (codegen/cpu/llvm_small_gemm.py) read the columns by a table of row starts; the CUDA
    matmul loads them through the same table."""
    a, b = forms
    if a[3] is not None:
        return False
    if b[3] is None:
        return True
    return np.dtype(mm.output.type.dtype).name in IM2COL_DTYPES and not (b[2] and a[2])


def _category(node) -> str:
    if is_elementwise_like(node):
        return "elementwise"
    if node.op in REDUCE:
        return "reduce"
    if node.op == Op.matmul:
        return "matmul"
    if is_matmul_prologue(node):
        return "transpose"
    return "other"


@dataclass
class KernelInfo:
    kind: str
    domain: tuple                       # D: the iteration shape
    reduce_axes: tuple = ()             # R: axes of D reduced (reduce, rowwise)
    maps: dict = field(default_factory=dict)    # Value -> tuple (D axis or None per axis)


def _axes_map(shape, axes):
    """Map the non-unit axes of `shape` onto `axes` in order (None if the counts differ)."""
    if len(nonunit(shape)) != len(axes):
        return None
    it = iter(axes)
    return tuple(None if d == 1 else next(it) for d in shape)


def _seed(v, D, R):
    """The map of a kernel output: it covers all of D, or all of D but R (a reduced value)."""
    return _seed_of_shape(v.type.shape, D, R)


@functools.lru_cache(maxsize=4096)
def _seed_of_shape(shape, D, R):
    # (fusion asks again for every candidate merge: 9.4k times, ~600 distinct, for the
    # depth-200 residual MLP's value_and_grad)
    full = [k for k, d in enumerate(D) if d != 1]
    for axes in (full, [k for k in full if k not in R]):
        if nonunit(shape) == tuple(D[k] for k in axes):
            return _axes_map(shape, axes)
    return None


def _input_maps(node, m, R):
    """Maps of node's inputs given its output's map `m` (None where illegal)."""
    if node.op == Op.reshape:
        return [_axes_map(node.inputs[0].type.shape, [a for a in m if a is not None])]
    if node.op in REDUCE:
        x = node.inputs[0]
        axes = node.params["axes"]
        reduced = [k for k in axes if x.type.shape[k] != 1]
        if len(reduced) != len(R):
            return [None]
        # a kept axis takes the output axis it becomes (unit ones included, to stay in step);
        # a reduced axis of extent > 1 takes the next axis of R
        it_out, it_r = iter(m), iter(R)
        out = []
        for k, d in enumerate(x.type.shape):
            a = next(it_out) if k not in axes else next(it_r) if d != 1 else None
            out.append(None if d == 1 else a)
        return [tuple(out)]
    # elementwise and broadcast_to: NumPy broadcasting right-aligns the input's axes
    return [tuple(None if d == 1 else m[len(m) - x.type.ndim + k]
                  for k, d in enumerate(x.type.shape)) for x in node.inputs]


def _internal_users(nodes):
    users = {}
    for n in nodes:
        for v in n.inputs:
            users.setdefault(v, []).append(n)
    return users


def _matmul_ok(nodes, mm, outputs, cat):
    """Only prologues feeding the matmul (matmul_operand's forms) may precede it, each read by
    that chain alone; nothing else in the group does. A product store (is_product_store) is
    the product's only reader and the kernel's only output."""
    produced = {v: n for n in nodes for v in n.outputs}
    users = _internal_users(nodes)
    chain = set()
    forms = [matmul_operand(produced, x) for x in mm.inputs]
    if None in forms or not im2col_operand_ok(mm, forms):
        return False
    for x in mm.inputs:
        while x in produced:
            chain.add(produced[x])
            x = produced[x].inputs[0]
    stores = [n for n in nodes if is_product_store(n, mm.output)]
    if stores and (len(stores) > 1 or set(outputs) != {stores[0].output}
                   or len(users.get(mm.output, [])) != 1):
        return False
    for n in nodes:
        if n in stores:
            continue
        if cat[n] == "transpose" and (n not in chain or n.output in outputs
                                      or len(users.get(n.output, [])) != 1):
            return False
    return True


def _reduced(red, D) -> tuple:
    """The non-unit axes of D a reduction reduces, in order."""
    return tuple(sorted(k for k in red.params["axes"] if D[k] != 1))


def _monotonic(m) -> bool:
    axes = [a for a in m if a is not None]
    return all(a < b for a, b in zip(axes, axes[1:]))


def analyze(nodes, outputs, categories=None) -> KernelInfo | None:
    """The kernel that runs `nodes` (in topological order) producing `outputs`, or None when
    they cannot form one kernel. `categories`: node -> _category(node), when precomputed."""
    cat = categories if categories is not None else {n: _category(n) for n in nodes}
    cats = [cat[n] for n in nodes]
    if len(nodes) == 1 and cats[0] in ("other", "transpose"):
        return KernelInfo("opaque", nodes[0].outputs[0].type.shape if nodes[0].outputs else ())
    if "other" in cats:
        return None
    mms = [n for n, c in zip(nodes, cats) if c == "matmul"]
    reds = [n for n, c in zip(nodes, cats) if c == "reduce"]
    R = ()
    stored = set()          # outputs a product store writes (no index map: strides of their own)
    if mms:
        if len(mms) > 1 or reds or not _matmul_ok(nodes, mms[0], set(outputs), cat):
            return None
        D = mms[0].output.type.shape
        stored = product_stores(nodes, mms[0].output)
    elif "transpose" in cats:
        return None
    elif reds:
        D = reds[0].inputs[0].type.shape
        R = _reduced(reds[0], D)
        if any(r.inputs[0].type.shape != D or _reduced(r, D) != R for r in reds):
            return None         # one loop nest: every reduction runs over the same axes of D
    else:
        D = max((v.type.shape for v in outputs), key=lambda s: (math.prod(s), len(s)))
    maps = {}

    def put(v, m):
        return m is not None and maps.setdefault(v, m) == m

    if not all(put(o, _seed(o, D, R)) for o in outputs if o not in stored):
        return None
    if stored:
        put(mms[0].output, _seed(mms[0].output, D, ()))
    for n in reversed(nodes):
        if n.op == Op.matmul:
            if maps.get(n.output) != _seed(n.output, D, ()):
                return None
            continue
        if cat[n] == "transpose":
            continue
        m = maps.get(n.output)
        if m is None or not all(put(x, im) for x, im in zip(n.inputs, _input_maps(n, m, R))):
            return None
    if not all(_monotonic(m) for m in maps.values()):
        return None             # a value read with its axes permuted is not one flat offset
    if mms:
        return KernelInfo("matmul", D, (), maps)
    if not reds:
        return KernelInfo("elementwise", D, (), maps)
    post = set()
    for n in nodes:
        if n in reds or any(x in post for x in n.inputs):
            post.update(n.outputs)
    if not any(a in R for v in post for a in maps[v]):
        return KernelInfo("reduce", D, R, maps)
    if R != (len(D) - 1,):
        return None          # broadcasting a reduction back is one pass per row only on rows
    return KernelInfo("rowwise", D, R, maps)


def recompute_cost(nodes, info: KernelInfo) -> float:
    """Extra work of computing small-shaped values once per point of a larger domain. Rowwise
    kernels compute per-row values once per row; reduce epilogues run once per output element."""
    if info.kind in ("rowwise", "opaque"):
        return 0.0
    size = math.prod(info.domain)
    cost = 0.0
    for n in nodes:
        if n.op in REDUCE or n.op in (Op.constant, Op.matmul, Op.transpose):
            continue
        if info.kind == "matmul" and is_matmul_prologue(n):     # a relabelled operand
            continue
        if info.kind == "reduce" and all(a not in info.reduce_axes for a in info.maps[n.output]):
            continue
        cost += OP_COST.get(n.op, DEFAULT_OP_COST) * (size - n.output.type.size)
    return cost


def score(a, b, merged: KernelInfo, a_cost, b_cost, facts) -> float:
    """How much better one kernel for node sets a∪b is than two (> 0: fuse), in bytes; a_cost,
    b_cost: recompute_cost of a and of b."""
    both = a | b
    saved = 0.0
    for src, dst in ((a, b), (b, a)):
        for n in src:
            for v in n.outputs:
                if any(u in dst for u in facts.users.get(v, ())):
                    saved += v.type.nbytes * (1 if facts.needed_outside(v, both) else 2)
    extra = recompute_cost(both, merged) - a_cost - b_cost
    return saved + LAUNCH_BYTES - extra


class GraphFacts:
    """What legality needs to know about the whole graph: order, users, graph outputs and each
    node's category."""

    def __init__(self, graph):
        self.position = {n: i for i, n in enumerate(graph.nodes)}
        self.users = graph.consumers()
        self.graph_outputs = set(graph.outputs)
        self.category = {n: _category(n) for n in graph.nodes}

    def needed_outside(self, v, group) -> bool:
        """Whether a kernel running `group` must write v. A value no one reads (dce was switched
        off) is written too: a kernel always has outputs."""
        users = self.users.get(v, ())
        return v in self.graph_outputs or not users or any(u not in group for u in users)

    def outputs(self, nodes) -> list:
        """The values a kernel running `nodes` must write (in node order)."""
        group = set(nodes)
        return [v for n in nodes for v in n.outputs if self.needed_outside(v, group)]


def can_fuse(a, b, facts: GraphFacts) -> KernelInfo | None:
    """Legality of running node sets a and b as one kernel body: the merged kernel's KernelInfo,
    or None (no valid kernel kind). Whether the merge keeps the schedule acyclic is the caller's
    check (fuse.py), which knows the other groups."""
    cat = facts.category
    if any(cat[n] == "matmul" for n in a) and any(cat[n] == "matmul" for n in b):
        return None     # one product a kernel (analyze's rule, before sorting and outputs)
    nodes = sorted(a | b, key=facts.position.__getitem__)
    if lowp.fusion_blocked(nodes):      # a host step cannot hold float16/bfloat16 values
        return None
    return analyze(nodes, facts.outputs(nodes), facts.category)


def analyze_kernel(node) -> KernelInfo:
    """KernelInfo (domain, reduced axes, index maps over body values) of a kernel node: what
    codegen needs to lay out its loops."""
    body = node.params["body"]
    if node.params["kind"] == "opaque":
        return KernelInfo("opaque", body.outputs[0].type.shape if body.outputs else ())
    info = analyze(body.nodes, body.outputs)
    if info is None:
        raise ValueError(f"kernel {body.name}: the body does not form a {node.params['kind']} "
                         "kernel")
    return info


def row_pass_levels(body, reds):
    """For a rowwise kernel body: the pass over the row each value is computed in (a value that
    needs reduction results comes one pass after the reductions' inputs), and the per-row
    values (reduction results and what is computed from them and scalar constants alone).
    Both the CPU and the CUDA generator lay their loops out from this."""
    red_out = {r.output for r in reds}
    level, per_row = {v: 0 for v in body.inputs}, set()
    for n in body.nodes:
        ins = [level.get(x, 0) for x in n.inputs]
        if n.output in red_out:
            level[n.output] = ins[0] + 1
            per_row.add(n.output)
            continue
        for v in n.outputs:
            level[v] = max(ins, default=0)
        scalar_const = n.op == Op.constant and n.params["value"].size == 1
        if scalar_const or (n.inputs and all(x in per_row for x in n.inputs)):
            per_row.update(n.outputs)
    return level, per_row
