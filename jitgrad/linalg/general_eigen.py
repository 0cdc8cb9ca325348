"""torch.linalg.eig / eigvals: the eigen-decomposition of general (non-Hermitian) square
matrices, complex even for real input, as torch's. LAPACK's geev runs on the host (NumPy), so
these are eager only and have no derivative: in a traced function (jg.jit, jg.grad, jg.vmap) or
on a tensor that requires grad they raise and say so."""
import collections

import numpy as np

from ..errors import ConcretizationError
from ..numpy import asarray
from ..numpy.host_values import concrete
from ..trace.tracer import Tracer

EigResult = collections.namedtuple("EigResult", "eigenvalues eigenvectors")
EigResult.__doc__ = "torch.linalg.eig's result: (eigenvalues, eigenvectors), both complex."


def _host_matrices(A, name):
    """A's NumPy value, checked to be float or complex square matrices and known (not traced)."""
    x = asarray(A)
    if np.dtype(x.dtype).kind not in "fc":
        raise TypeError(f"linalg.{name}: expected a floating point or complex tensor, got "
                        f"{x.dtype}")
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise ValueError(f"linalg.{name}: A must be batches of square matrices, got shape "
                         f"{tuple(x.shape)}")
    if getattr(x, "requires_grad", False):
        raise NotImplementedError(f"linalg.{name} has no derivative in jitgrad (it runs on the "
                                  "host); for a Hermitian A use linalg.eigh, which has one")
    if isinstance(x, Tracer):
        raise ConcretizationError(f"linalg.{name} runs LAPACK's general eigensolver on the host, "
                                  "which a traced function (jg.jit, grad, vmap) can't call: call "
                                  "it eagerly (for a Hermitian A, linalg.eigh traces)")
    return np.asarray(concrete(x))


def _complex(a):
    return asarray(a.astype(np.result_type(a.dtype, np.complex64)))


def eig(A):
    """torch.linalg.eig: (eigenvalues, eigenvectors) of square A, complex, the eigenvectors of
    unit norm, in LAPACK's order (eager only)."""
    w, v = np.linalg.eig(_host_matrices(A, "eig"))
    return EigResult(_complex(w), _complex(v))


def eigvals(A):
    """torch.linalg.eigvals: the (complex) eigenvalues of square A, in LAPACK's order (eager
    only)."""
    return _complex(np.linalg.eigvals(_host_matrices(A, "eigvals")))
