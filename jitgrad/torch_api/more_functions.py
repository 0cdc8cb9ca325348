"""More of torch's top-level functions: the in-place forms (torch.exp_(x) is x.exp_()), the
*_copy forms of view functions (torch.t_copy(x) is a copy of x.t()), nn.functional's forms
torch also has at the top (torch.conv2d, torch.layer_norm, ...), and the rest written here:
windows, index helpers (tril_indices, searchsorted, bucketize), products (block_diag,
cartesian_prod, cdist), complex helpers, draws and the generator's state."""
from __future__ import annotations

import itertools

import numpy as np

from .. import numpy as jnp
from . import creation
from ..nn import functional as F

# torch.<name>_(input, ...) is input.<name>_(...)
IN_PLACE = tuple("""
abs_ acos_ acosh_ addmv_ arccos_ arccosh_ arcsin_ arcsinh_ arctan_ arctanh_ asin_ asinh_ atan_
atanh_ ceil_ clamp_ clamp_max_ clamp_min_ clip_ conj_physical_ cos_ cosh_ deg2rad_ detach_ erf_
erfc_ exp2_ exp_ expm1_ fill_ fix_ floor_ frac_ gcd_ i0_ index_put_ lcm_ ldexp_ log10_ log1p_
log2_ log_ logit_ nan_to_num_ neg_ negative_ rad2deg_ reciprocal_ relu_ round_ rsqrt_ sigmoid_
sin_ sinc_ sinh_ sqrt_ square_ tan_ tanh_ trunc_ xlogy_ zero_
""".split())
# torch.<name>_copy(input, ...) is a copy of input.<name>(...)
COPIES = ("alias", "detach", "diagonal", "expand", "permute", "select", "split",
          "split_with_sizes", "squeeze", "t", "transpose", "unbind", "unfold", "unsqueeze",
          "view")
# torch.<name> is nn.functional.<name> (the same signature)
FROM_FUNCTIONAL = ("avg_pool1d", "bilinear", "celu", "celu_", "channel_shuffle", "conv1d",
                   "conv2d", "conv3d", "conv_tbc", "conv_transpose1d", "conv_transpose2d",
                   "conv_transpose3d", "cosine_similarity", "dropout", "alpha_dropout",
                   "feature_alpha_dropout", "group_norm", "layer_norm", "max_pool1d",
                   "max_pool1d_with_indices", "max_pool2d", "max_pool3d",
                   "native_channel_shuffle", "pairwise_distance", "pdist", "pixel_shuffle",
                   "pixel_unshuffle", "prelu", "rms_norm", "rrelu", "rrelu_", "selu", "selu_",
                   "threshold", "threshold_")


def _in_place(name):
    def fn(input, *args, **kwargs):  # noqa: A002
        return getattr(input, name)(*args, **kwargs)
    fn.__name__ = name
    fn.__doc__ = f"torch.{name}(input, ...): input.{name}(...)."
    return fn


def _copy(base):
    def fn(input, *args, **kwargs):  # noqa: A002
        out = input if base in ("alias", "detach") else getattr(input, base)(*args, **kwargs)
        return tuple(jnp.copy(o) for o in out) if isinstance(out, tuple) else jnp.copy(out)
    fn.__name__ = f"{base}_copy"
    fn.__doc__ = f"torch.{base}_copy(input, ...): a copy of input.{base}(...)."
    return fn


def slice_copy(input, dim=0, start=None, end=None, step=1):  # noqa: A002
    """torch.slice_copy: a copy of input[start:end:step] along dim."""
    return jnp.copy(input[(slice(None),) * (dim % input.ndim) + (slice(start, end, step),)])


def _window(name, numpy_name):
    def fn(window_length, periodic=True, *, dtype=None, **window_kw):
        n = window_length + 1 if periodic else window_length
        w = getattr(jnp, numpy_name)(n, **window_kw)[:window_length]
        return jnp.asarray(w, dtype=dtype or "float32")
    fn.__name__ = name
    fn.__doc__ = (f"torch.{name}(window_length, periodic=True): NumPy's {numpy_name} (one "
                  f"longer, its last value dropped, when periodic).")
    return fn


def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None, **_):
    """torch.kaiser_window(window_length, periodic=True, beta=12.0)."""
    n = window_length + 1 if periodic else window_length
    return jnp.asarray(jnp.kaiser(n, beta)[:window_length], dtype=dtype or "float32")


def _indices(lower):
    def fn(row, col, offset=0, *, dtype="int64", **_):
        r, c = np.tril_indices(row, offset, col) if lower else np.triu_indices(row, offset, col)
        return jnp.asarray(np.stack([r, c]), dtype=dtype)
    fn.__name__ = "tril_indices" if lower else "triu_indices"
    fn.__doc__ = f"torch.{fn.__name__}(row, col, offset=0): a (2, n) tensor of indices."
    return fn


def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None,  # noqa: A002
                 sorter=None):
    """torch.searchsorted: per row of sorted_sequence (1-d: one sequence for all values)."""
    side = side or ("right" if right else "left")
    seq, values = jnp.asarray(sorted_sequence), jnp.asarray(input)
    dtype = "int32" if out_int32 else "int64"
    if seq.ndim <= 1:
        return jnp.asarray(jnp.searchsorted(seq, values, side=side, sorter=sorter), dtype=dtype)
    rows = [jnp.searchsorted(s, v, side=side) for s, v in
            zip(jnp.reshape(seq, (-1, seq.shape[-1])), jnp.reshape(values, (-1, values.shape[-1])))]
    return jnp.asarray(jnp.reshape(jnp.stack(rows), values.shape), dtype=dtype)


def bucketize(input, boundaries, *, out_int32=False, right=False):  # noqa: A002
    """torch.bucketize: the bucket of each value in the 1-d boundaries."""
    return searchsorted(boundaries, input, out_int32=out_int32,
                        side="left" if not right else "right")


def block_diag(*tensors):
    """torch.block_diag: the tensors (as 2-d) on the diagonal of one matrix."""
    mats = [jnp.reshape(t, (1, -1)) if jnp.ndim(t) < 2 else jnp.asarray(t) for t in tensors]
    cols = sum(m.shape[1] for m in mats)
    dtype = jnp.result_type(*mats)
    rows, at = [], 0
    for m in mats:
        rows.append(jnp.pad(jnp.asarray(m, dtype=dtype), ((0, 0), (at, cols - at - m.shape[1]))))
        at += m.shape[1]
    return jnp.concatenate(rows, axis=0)


def cartesian_prod(*tensors):
    """torch.cartesian_prod: the rows of every combination (one tensor: itself)."""
    if len(tensors) == 1:
        return tensors[0]
    grids = jnp.meshgrid(*tensors, indexing="ij")
    return jnp.stack([jnp.ravel(g) for g in grids], axis=1)


def combinations(input, r=2, with_replacement=False):  # noqa: A002
    """torch.combinations: the length-r combinations of a 1-d tensor's elements, as rows."""
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    idx = np.array(list(pick(range(input.shape[0]), r)), dtype=np.int64).reshape(-1, r)
    return jnp.take(input, jnp.asarray(idx), axis=0)


def cdist(x1, x2, p=2.0, compute_mode=None):
    """torch.cdist: the p-norm distances between the rows of x1 and x2 (batched)."""
    diff = jnp.subtract(jnp.expand_dims(x1, -2), jnp.expand_dims(x2, -3))
    return jnp.linalg.vector_norm(diff, ord=p, axis=-1)


def complex(real, imag):  # noqa: A001
    """torch.complex(real, imag)."""
    kind = "complex128" if jnp.result_type(real, imag) == np.float64 else "complex64"
    return jnp.asarray(jnp.add(real, jnp.multiply(imag, 1j)), dtype=kind)


def polar(abs, angle):  # noqa: A002
    """torch.polar(abs, angle): abs * exp(i angle)."""
    return complex(jnp.multiply(abs, jnp.cos(angle)), jnp.multiply(abs, jnp.sin(angle)))


def view_as_real(input):  # noqa: A002
    """torch.view_as_real: a complex tensor as (..., 2) reals."""
    return jnp.stack([jnp.real(input), jnp.imag(input)], axis=-1)


def view_as_complex(input):  # noqa: A002
    """torch.view_as_complex: (..., 2) reals as a complex tensor."""
    return complex(input[..., 0], input[..., 1])


def trapezoid(y, x=None, *, dx=None, dim=-1):
    """torch.trapezoid (also trapz)."""
    return jnp.trapezoid(y, x, dx=1.0 if dx is None else dx, axis=dim)


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """torch.cumulative_trapezoid."""
    y = jnp.asarray(y)
    n = y.shape[dim]
    lo = jnp.take(y, jnp.arange(n - 1), axis=dim)
    hi = jnp.take(y, jnp.arange(1, n), axis=dim)
    step = (1.0 if dx is None else dx) if x is None else jnp.diff(x, axis=dim)
    return jnp.cumsum(jnp.multiply(jnp.add(lo, hi), step) / 2, axis=dim)


def gradient(input, *, spacing=1, dim=None, edge_order=1):  # noqa: A002
    """torch.gradient -> a tuple of tensors, one per dim."""
    spacing = spacing if isinstance(spacing, (list, tuple)) else (spacing,)
    out = jnp.gradient(input, *spacing, axis=dim, edge_order=edge_order)
    return tuple(out) if isinstance(out, (list, tuple)) else (out,)


def vander(x, N=None, increasing=False):  # noqa: N803
    """torch.vander."""
    return jnp.vander(x, N, increasing)


def scalar_tensor(s, *, dtype=None, **_):
    """torch.scalar_tensor: a 0-d tensor (float32 by default)."""
    return jnp.asarray(s, dtype=dtype or "float32")


def inclusive_range(start=0, end=None, step=1, *, dtype=None, **_):
    """torch.range (deprecated there): start..end inclusive, float32 by default."""
    if end is None:
        start, end = 0, start
    n = int(np.floor((end - start) / step)) + 1
    return jnp.asarray(start + step * np.arange(n), dtype=dtype or "float32")


def fill(input, value):  # noqa: A002
    """torch.fill: a tensor like input, all value."""
    return jnp.full(input.shape, value, dtype=input.dtype)


def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
    """torch.frombuffer: a 1-d tensor over a bytes-like object."""
    out = jnp.asarray(np.frombuffer(buffer, dtype=dtype, count=count, offset=offset))
    return out.requires_grad_(True) if requires_grad else out


def binomial(count, prob, generator=None):
    """torch.binomial: draws from the global generator jg.manual_seed seeds."""
    c = np.asarray(count)
    draws = creation.rng_of(generator).binomial(c.astype(np.int64), np.asarray(prob))
    return jnp.asarray(draws, dtype=c.dtype)


def poisson(input, generator=None):  # noqa: A002
    """torch.poisson: Poisson draws with rates input."""
    rates = np.asarray(input)
    return jnp.asarray(creation.rng_of(generator).poisson(rates), dtype=rates.dtype)


def matrix_rank(input, tol=None, symmetric=False):  # noqa: A002
    """torch.matrix_rank (deprecated there): jitgrad.numpy.linalg.matrix_rank."""
    return jnp.linalg.matrix_rank(input, tol)


def chain_matmul(*matrices):
    """torch.chain_matmul: the product of the matrices (jitgrad.numpy.linalg.multi_dot)."""
    return jnp.linalg.multi_dot(list(matrices))


def frobenius_norm(input, dim=(-2, -1), keepdim=False):  # noqa: A002
    """torch.frobenius_norm."""
    return jnp.sqrt(jnp.sum(jnp.square(jnp.abs(input)), axis=tuple(dim), keepdims=keepdim))


def nuclear_norm(input, keepdim=False):  # noqa: A002
    """torch.nuclear_norm: the sum of singular values."""
    return jnp.linalg.matrix_norm(input, ord="nuc", keepdims=keepdim)


FUNCTIONS = {name: _in_place(name) for name in IN_PLACE}
FUNCTIONS.update({f"{base}_copy": _copy(base) for base in COPIES})
FUNCTIONS.update({name: getattr(F, name) for name in FROM_FUNCTIONAL if hasattr(F, name)})
FUNCTIONS.update({
    "slice_copy": slice_copy, "hann_window": _window("hann_window", "hanning"),
    "hamming_window": _window("hamming_window", "hamming"),
    "blackman_window": _window("blackman_window", "blackman"),
    "bartlett_window": _window("bartlett_window", "bartlett"), "kaiser_window": kaiser_window,
    "tril_indices": _indices(True), "triu_indices": _indices(False),
    "searchsorted": searchsorted, "bucketize": bucketize, "block_diag": block_diag,
    "cartesian_prod": cartesian_prod, "combinations": combinations, "cdist": cdist,
    "complex": complex, "polar": polar, "view_as_real": view_as_real,
    "view_as_complex": view_as_complex, "trapezoid": trapezoid, "trapz": trapezoid,
    "cumulative_trapezoid": cumulative_trapezoid, "gradient": gradient, "vander": vander,
    "scalar_tensor": scalar_tensor, "range": inclusive_range, "fill": fill, "frombuffer": frombuffer,
    "binomial": binomial, "poisson": poisson, "matrix_rank": matrix_rank,
    "chain_matmul": chain_matmul, "frobenius_norm": frobenius_norm,
    "nuclear_norm": nuclear_norm, "unravel_index": jnp.unravel_index,
    "is_storage": lambda obj: False,
    "view_as_real_copy": view_as_real, "view_as_complex_copy": view_as_complex,
    "get_device": lambda input: input.get_device(), "initial_seed": creation.initial_seed,
    "seed": creation.seed, "histogram": lambda input, *a, **k: input.histogram(*a, **k),
    "get_rng_state": lambda: creation.default_generator.get_state(),
    "set_rng_state": lambda new_state: creation.default_generator.set_state(new_state) and None,
})
for _name, _doc in {"is_storage": "torch.is_storage: False (jitgrad has no storage objects).",
                    "get_device": "torch.get_device: input.get_device() (-1 on the CPU).",
                    "histogram": "torch.histogram: input.histogram(bins, range=, weight=, density=).",
                    "get_rng_state": "torch.get_rng_state: the global generator's state.",
                    "set_rng_state": "torch.set_rng_state: restore the global generator's state."
                    }.items():
    FUNCTIONS[_name].__doc__ = _doc     # the lambdas above
