"""Records of the LAPACK decompositions (over the last two axes; leading axes are a batch) and
the Fourier transform (lax.fft: over the trailing params['lengths'] axes)."""
from __future__ import annotations

import numpy as np

from .. import reference
from ..autodiff import complex_rules
from ..autodiff import linalg as L
from ..batching import rules as B
from ..ops import Op
from ..registry import Primitive
from . import type_rules as T
from .elementwise import COMPLEX_HOST

NO_CUDA_LAPACK = "no CUDA LAPACK kernels: decompositions of CUDA arrays run on the CPU"


def _decomposition(op, np_fn, arity, doc):
    name = op.value
    return Primitive(op, "linalg", T.linalg_rule, reference.lapack(np_fn), arity, "linalg",
                     vjp=L.real_only(getattr(L, f"{name}_vjp")),
                     jvp=L.real_only(getattr(L, f"{name}_jvp")), batch=B.linalg,
                     doc=doc)


RECORDS = [
    _decomposition(Op.cholesky, np.linalg.cholesky, 1, "the lower Cholesky factor"),
    _decomposition(Op.eigh, np.linalg.eigh, 1, "eigenvalues (ascending) and eigenvectors of a "
                                               "Hermitian matrix"),
    _decomposition(Op.svd, np.linalg.svd, 1, "u, s, vh with a = u @ diag(s) @ vh"),
    _decomposition(Op.qr, np.linalg.qr, 1, "q, r with a = q @ r"),
    _decomposition(Op.solve, np.linalg.solve, 2, "x with a @ x = b"),
    _decomposition(Op.slogdet, np.linalg.slogdet, 1, "the sign and log|det| of a"),
    Primitive(Op.fft, "fft", T.fft_rule, reference.fft, 1, "fft", vjp=complex_rules.fft_vjp,
              jvp=complex_rules.fft_jvp, batch=B.linalg,
              gaps={"llvm": COMPLEX_HOST, "cuda": COMPLEX_HOST},
              doc="the unnormalized DFT (1/n inverse) over the trailing axes (params fft_type, "
                  "lengths)"),
]
