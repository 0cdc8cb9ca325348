"""The info of torch.linalg's _ex forms: LAPACK getrf's from an LU factorization, and the
check_errors=True check (eager: it reads the values)."""
import numpy as np

from .. import numpy as jnp
from ..errors import ConcretizationError
from ..numpy.host_values import concrete
from ..trace.tracer import Tracer


def lu_info(lu_):
    """LAPACK getrf's info, as torch's: the 1-based index of U's first zero pivot, 0 if none."""
    if lu_.shape[-1] == 0:
        return jnp.zeros(tuple(lu_.shape[:-2]), dtype=jnp.int32)
    zero = jnp.diagonal(lu_, 0, -2, -1) == 0
    return jnp.where(jnp.any(zero, axis=-1), jnp.argmax(zero, axis=-1) + 1, 0).astype(jnp.int32)


def checked(name, info, check_errors):
    """The info of an _ex form; check_errors=True raises where it is nonzero (an eager check:
    the values must be known)."""
    if check_errors:
        if isinstance(info, Tracer):
            raise ConcretizationError(f"linalg.{name}(check_errors=True) reads info's values, "
                                      "which a traced function can't: check info yourself")
        bad = np.asarray(concrete(info))
        if bad.any():
            raise np.linalg.LinAlgError(f"linalg.{name}: the factorization failed (info = "
                                        f"{bad.max()}); check_errors=False returns it instead")
    return info
