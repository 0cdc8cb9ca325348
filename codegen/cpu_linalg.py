"""CPU kernels of the LAPACK decompositions (records of kind "linalg"): one numba np.linalg call per matrix
of the batch, inside the compiled entry (numba reaches LAPACK through scipy's cython_lapack).
They are opaque kernels; codegen/cpu_kernels.py lists them in its OPAQUE table."""
from __future__ import annotations

import math

from ..ir.ops import Op


def _view(name, shape):
    dims = "".join(f"{d}, " for d in shape)
    return f"{name}.reshape(({dims}))"


def _call(n, mats):
    """The numba expression computing op n on the matrices `mats` (tuple-valued for several
    outputs). Complete QR of a tall matrix pads it with zero columns: LAPACK
    then makes the same reflectors NumPy's complete mode does."""
    op, p = n.op, n.params
    if op is Op.qr and p["mode"] == "complete":
        m, k = n.inputs[0].type.shape[-2:]
        if m > k:
            dt = n.inputs[0].type.dtype.name
            return f"np.linalg.qr(np.hstack(({mats[0]}, np.zeros(({m}, {m - k}), np.{dt}))))"
    if op is Op.svd:
        return f"np.linalg.svd({mats[0]}, full_matrices={bool(p['full_matrices'])})"
    name = {Op.cholesky: "cholesky", Op.eigh: "eigh", Op.qr: "qr", Op.solve: "solve",
            Op.slogdet: "slogdet"}[op]
    return f"np.linalg.{name}({', '.join(mats)})"


def emit(k, n):
    batch = n.inputs[0].type.shape[:-2]
    B = math.prod(batch)
    ins = []
    for j, v in enumerate(n.inputs):
        k.buf.writeline(f"x{j} = {_view(k.arrays[v], (B,) + v.type.shape[len(batch):])}")
        ins.append(f"x{j}[p]")
    outs = []
    for j, v in enumerate(n.outputs):
        names = k.stores(v)
        for name in names:
            k.buf.writeline(f"o{j}_{name} = {_view(name, (B,) + v.type.shape[len(batch):])}")
        outs.append([f"o{j}_{name}" for name in names])   # views of the flat outputs
    m, cols = n.inputs[0].type.shape[-2:]
    padded = n.op is Op.qr and n.params["mode"] == "complete" and m > cols
    # a matrix LAPACK cannot factor (not positive definite, singular, no convergence) gives
    # NaNs, as in JAX and in ir/reference.py: an exception can't leave a compiled kernel
    with k.buf.indent(f"for p in range({B}):"):
        with k.buf.indent("try:"):
            k.buf.writeline(f"r = {_call(n, ins)}")
            single = len(n.outputs) == 1
            for j, names in enumerate(outs):
                value = "r" if single else f"r[{j}]"
                if padded and j == 1:
                    value = f"r[1][:, :{cols}]"
                for name in names:
                    k.buf.writeline(f"{name}[p] = {value}")
        with k.buf.indent("except Exception:"):
            for names in outs:
                for name in names:
                    k.buf.writeline(f"{name}[p] = np.nan")
            if not any(outs):
                k.buf.writeline("pass")


LINALG_KERNELS = {op: emit for op in (Op.cholesky, Op.eigh, Op.svd, Op.qr, Op.solve, Op.slogdet)}
