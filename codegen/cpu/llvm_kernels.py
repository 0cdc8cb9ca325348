"""Kernel units as LLVM IR, built with llvmlite and compiled by codegen/cpu/llvm_jit.py.

The C ABI and argv roles of codegen/cpu/units.py: `i64 kernel(i8 **argv)`, argv holding the
body's inputs, its array constants, its outputs and (matmul) a scratch product, so the sequencer
cannot tell them apart. The loop structure is the kernel's nest (codegen/kernel/nest.py, shared
with the CUDA renderer), with the thresholds of codegen/kernel/costs.py; each kind has its
generator in codegen/cpu/kernels/ (the function they build in: kernels/function.py):

- elementwise (kernels/elementwise.py): the ElementwiseNest's collapsed shape, the unit-stride
  axis innermost;
- reduce (kernels/reduce.py, accumulators in kernels/accumulators.py): scalar accumulators when
  the reduced axes are innermost, else accumulator rows walked in memory order; long float
  sums in blocks of SUM_BLOCK;
- rowwise (kernels/rowwise.py: softmax, layernorm): one walk of each row per dependent
  reduction level;
- matmul (kernels/matmul.py): the MatmulNest's GEMMs through BLAS gemm (NumPy's wheel's BLAS,
  by symbol) or the unpacked kernels of llvm_small_gemm.py into the product, then the epilogue;
- opaque (kernels/opaque.py): sorts, scans, gathers, im2col, LAPACK calls.

`why_not(node, hint)` says why these units do not build a kernel (an op or dtype the
instruction table lacks; since issue 26 every kernel the fusion pass forms is covered, and a
refusal is an internal error in codegen/cpu/units.py); `build` returns the module text and the
argv roles.
"""
from __future__ import annotations

import hashlib
import math
import os

import numpy as np

from ...ir import config
from ...ir.ops import Op
from ...ir.passes import fusion_rules
from ...ir.passes.fusion_rules import analyze_kernel, matmul_operand, product_stores
from ...ir.passes.matmul_views import VIEW_OPS
from ...ir.primitives import REDUCE
from ..kernel.costs import PARALLEL_MIN, element_cost
from ..kernel.evaluator import array_constants
from ..kernel.reducers import REDUCER_KIND
from ..kernel.nest import reduce_nest
from ..kernel.walk import RELABEL
from .kernels import matmul, opaque
from .kernels.elementwise import gen_elementwise
from .kernels.function import GRAIN, Fn
from .kernels.matmul import gen_matmul
from .kernels.reduce import COLUMN_MIN, gen_reduce, gen_reduce_blocks
from .kernels.rowwise import gen_rowwise
from .llvm_exprs import LTYPE, supported

_MATMUL_READS = (Op.matmul, Op.im2col, *VIEW_OPS)   # operands read in place


# ----------------------------------------------------------------------------- what it takes

def why_not(node, product_hint=None):
    """None when this backend builds the kernel, else the reason it does not."""
    kind = node.params["kind"]
    body = node.params["body"]
    for v in (*body.inputs, *body.outputs):
        if np.dtype(v.type.dtype).name not in LTYPE:
            return f"dtype {v.type.dtype}"
    if kind == "opaque":
        return opaque.why_not(node)
    if kind not in GENERATORS:
        return f"{kind} kernels"
    for n in body.nodes:
        if n.op in (Op.constant, *RELABEL) or (kind == "matmul" and n.op in _MATMUL_READS):
            continue
        if n.op in REDUCE:
            if n.op not in REDUCER_KIND:
                return f"op {n.op.name}"
            dt = np.dtype(n.inputs[0].type.dtype).name
            if np.dtype(dt).kind not in "fiu" and \
                    not (dt == "bool" and REDUCER_KIND[n.op][0] in ("max", "min")) and \
                    not (np.dtype(dt).kind == "c" and REDUCER_KIND[n.op][0] in ("sum", "prod")):
                return f"{n.op.name} over {n.inputs[0].type.dtype}"
            continue
        if not supported(n.op, [x.type.dtype for x in n.inputs], n.output.type.dtype):
            return f"op {n.op.name} on {', '.join(str(x.type.dtype) for x in n.inputs)}"
    if kind == "matmul":
        m = next(n for n in body.nodes if n.op == Op.matmul)
        if np.dtype(m.output.type.dtype).kind not in "fiuc":
            return f"a {m.output.type.dtype} matmul"
        producers = body.producers()
        if any(matmul_operand(producers, x) is None for x in m.inputs):
            return "a matmul operand computed in the kernel"
        if product_hint is None and m.output not in body.outputs and not product_stores(
                body.nodes, m.output):
            return "a matmul product without a buffer"
    return None


GENERATORS = {"elementwise": gen_elementwise, "reduce": gen_reduce, "rowwise": gen_rowwise,
              "matmul": gen_matmul, "opaque": opaque.gen_opaque}


def parallel_form(node):
    """How the kernel runs on the runtime's thread pool: "range" (its outermost loop split into
    chunks), "blocks" (a full reduction in REDUCE_BLOCKS partial results), "columns" (a
    reduction keeping its last axis, in blocks of columns), or None (serial: too little work,
    or a kind that stays on one thread)."""
    kind = node.params["kind"]
    if kind not in ("elementwise", "reduce", "rowwise", "opaque"):
        return None
    info = analyze_kernel(node)
    D = info.domain
    if math.prod(D) * element_cost(node.params["body"].nodes) < PARALLEL_MIN:
        return None
    if kind == "opaque":            # im2col / col2im: image by image
        return "range" if opaque.images(node) >= 2 else None
    if kind == "elementwise":
        return "range"
    if kind == "rowwise":
        return "range" if math.prod(D[:-1]) >= 2 else None
    nest = reduce_nest(node.params["body"], info)
    if nest.layout == "columns":
        return "columns" if D[-1] >= 2 * COLUMN_MIN else None
    if nest.layout == "rows":
        return "range" if nest.rows >= 2 else None
    return "blocks" if nest.axes and D[nest.axes[0]] >= 2 else None


def build(node, product_hint=None, blas=None, parallel=False, shifted=False):
    """(module IR text, argv roles, array constants, product type, bounds check) of `node`.
    blas: fn name -> (symbol, integer bits) of the gemm to call (default llvm_jit.blas_symbol).
    parallel: split the work over runtime/thread_pool.py where parallel_form says so (a unit
    then calls jg_parallel_for; a native library builds without it). shifted: an opaque slice
    or pad whose offsets come in its argv slots (kernels/opaque.shifts), not in its code."""
    fn = Fn(node, product_hint)
    fn.blas = blas
    fn.parallel = parallel
    fn.shifted = shifted
    form = fn.form = parallel_form(node) if parallel else None
    if form == "range":
        state, _ = fn.range_body()
        GENERATORS[node.params["kind"]](fn)
        fn.end_range_body(state, GRAIN)
    elif form == "blocks":
        gen_reduce_blocks(fn)
    elif form == "columns":
        gen_reduce(fn)
    else:
        GENERATORS[node.params["kind"]](fn)
    sig = signature(node, product_hint, shifted)
    if fn.roles != sig[0]:
        raise AssertionError(f"llvm codegen: argv {fn.roles} != signature {sig[0]}")
    return (fn.finish(), *sig)


def signature(node, product_hint=None, shifted=False):
    """(argv roles, array constants, product type, bounds check) of the unit of `node`, without
    building it (a unit loaded from the disk cache is not built): inputs, array constants,
    outputs, then a scratch product (matmul) or the status pair (take, scatter_add)."""
    body, kind = node.params["body"], node.params["kind"]
    consts = [n.params["value"] for n in array_constants(body, every=kind == "opaque")]
    roles = ([("in", k) for k in range(len(body.inputs))] +
             [("const", k) for k in range(len(consts))] +
             [("out", k) for k in range(len(body.outputs))])
    product_type = check = None
    if kind == "matmul":
        m = next(n for n in body.nodes if n.op == Op.matmul)
        if m.output not in body.outputs and product_hint[0] != "output":
            roles.append(("prod",))
            product_type = m.output.type
    elif kind == "opaque":
        check = opaque.check_of(node)
        if check is not None:
            roles.append(("status",))
        if shifted and ("at", 0) in opaque.shifts(node):
            roles.append(("at", 0))
    return roles, consts, product_type, check


def code_options(kind) -> str:
    """The options the generated code of a `kind` kernel reads, which its unit is cached under
    too (codegen/cpu/units.py): the vectorizer's width, and a product's packed blocks (which
    follow the thread count: other kinds keep their units when it changes)."""
    width = f"vector width {config.read('cpu_vector_width')}"
    return f"{width}, packed blocks {matmul.packed_blocks()}" if kind == "matmul" else width


_VERSION: list = []


def generator_sources() -> list:
    """The source files the generated code depends on: these modules, the math constants, the
    generators of codegen/cpu/kernels/, every module of the shared kernel description
    codegen/kernel/ (nest.py was once left out, so a changed nest reused stale units), and the
    fusion rules' index maps they read."""
    here = os.path.dirname(__file__)                   # codegen/cpu
    kernel = os.path.join(os.path.dirname(here), "kernel")
    kinds = os.path.join(here, "kernels")
    llvm = sorted(f for f in os.listdir(here) if f.startswith("llvm_") and f.endswith(".py"))
    return [os.path.join(here, f) for f in (*llvm, "math_constants.py")] + \
        [os.path.join(d, f) for d in (kinds, kernel) for f in sorted(os.listdir(d))
         if f.endswith(".py")] + [fusion_rules.__file__]


def generator_version() -> str:
    """A hash of generator_sources(): a unit cached on disk by its kernel's canonical text is
    valid only for the code that built it."""
    if not _VERSION:
        h = hashlib.sha256()
        for path in generator_sources():
            with open(path, "rb") as f:
                h.update(f.read())
        _VERSION.append(h.hexdigest()[:16])
    return _VERSION[0]
