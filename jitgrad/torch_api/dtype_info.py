"""torch.finfo / torch.iinfo: the machine limits of a dtype (jitgrad's dtypes are NumPy's, so
torch's `x.dtype.is_floating_point` has no home there: x.is_floating_point() answers it)."""
from .. import numpy as jnp
from ..dtypes import get_default_dtype


def finfo(type=None):  # noqa: A002 - torch's name
    """torch.finfo: eps, max, min, tiny, smallest_normal, resolution, bits of a float dtype (or
    of a tensor's); with no argument, of the default dtype (jg.get_default_dtype())."""
    return jnp.finfo(get_default_dtype() if type is None else type)


def iinfo(type):  # noqa: A002 - torch's name
    """torch.iinfo: max, min, bits of an integer dtype (or of a tensor's)."""
    return jnp.iinfo(type)
