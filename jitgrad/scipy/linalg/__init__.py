"""jitgrad.scipy.linalg: scipy.linalg's (and jax.scipy.linalg's) functions with scipy's
signatures and defaults, built on jnp.linalg's primitives, so they trace, vmap and
differentiate. The overwrite_*/check_finite arguments are accepted and have no effect (arrays
are immutable; nothing is checked for finiteness, as in jax.scipy).

Names of jax.scipy.linalg not here are in EXCLUDED with the reason."""
from .decompositions import (cholesky, eigh, eigh_tridiagonal, polar, qr, qr_multiply,  # noqa: F401
                             svd)
from .lu import lu, lu_factor, lu_solve  # noqa: F401
from .matrix_functions import expm, expm_frechet  # noqa: F401
from .special_matrices import (block_diag, circulant, companion, convolution_matrix, dft,  # noqa: F401
                               fiedler, hadamard, hankel, helmert, hilbert, invhilbert,
                               invpascal, leslie, pascal, toeplitz)
from .triangular import (cho_factor, cho_solve, det, inv, solve, solve_sylvester,  # noqa: F401
                         solve_triangular)

_NEEDS_SCHUR = "needs a (complex) Schur or Hessenberg decomposition, which is no primitive yet"
EXCLUDED = {
    "schur": _NEEDS_SCHUR, "hessenberg": _NEEDS_SCHUR, "rsf2csf": _NEEDS_SCHUR,
    "sqrtm": _NEEDS_SCHUR, "funm": _NEEDS_SCHUR,
    "fiedler_companion": "not yet written",
}

from ...errors import wrap_public_functions as _wrap  # noqa: E402

_wrap(globals(), "jitgrad")   # errors show the user's call, not jitgrad's frames
