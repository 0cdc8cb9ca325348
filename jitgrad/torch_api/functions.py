"""torch's top-level tensor functions at jitgrad.* (torch.sum(x, dim), torch.cat, torch.max,
torch.where, ...): each means what torch's does. Most are the Tensor method of the same name
with the tensor first (`jitgrad.sum(x, 1)` is `x.sum(1)`); the rest are written here."""
from __future__ import annotations

import numpy as np

from .. import numpy as jnp
from . import creation, dtype_info, shape_methods
from ..eager.array_base import ArrayOps
from ..eager.tensor import Tensor, as_tensor
from ..eager.zero_dim_promotion import result_type, torch_operands
from ..nn.module import Module
from ..transforms.jit import jit
from .spelling import varargs_shape

# jitgrad.<name>(input, *args) is input.<name>(*args)
FROM_METHODS = tuple("""
abs absolute acos acosh add addbmm addcdiv addcmul addmm addmv addr adjoint all allclose amax
amin aminmax angle any arccos arccosh arcsin arcsinh arctan arctan2 arctanh argmax argmin
argsort asin asinh atan atan2 atanh baddbmm bitwise_and bitwise_left_shift bitwise_not
bitwise_or bitwise_right_shift bitwise_xor bmm ceil chunk clamp clamp_max clamp_min clip clone
conj conj_physical copysign cos cosh count_nonzero cross cummax cummin cumprod cumsum deg2rad
diag diag_embed diagflat diagonal digamma div divide dot eq equal erf erfc erfinv exp exp2
expm1 fix flatten flip float_power floor floor_divide fmax fmin fmod frac ge ger greater
greater_equal gt heaviside hypot i0 index_add index_copy index_fill index_put index_select
inner isclose isfinite isinf isnan isneginf isposinf isreal kron kthvalue ldexp le lerp less
less_equal lgamma log log10 log1p log2 logaddexp logaddexp2 logcumsumexp logical_and
logical_not logical_or logical_xor logit logsumexp lt masked_fill masked_scatter masked_select
matmul max maximum mean median min minimum mm mode moveaxis movedim msort mul multiply mv
mvlgamma nan_to_num nanmean nansum narrow ne neg negative nonzero norm not_equal numel outer
permute positive pow prod put rad2deg reciprocal remainder repeat_interleave resolve_conj
resolve_neg roll rot90 round rsqrt scatter scatter_add scatter_reduce select sgn sigmoid
sign signbit sin sinc sinh softmax log_softmax sort split sqrt square squeeze std sub subtract sum
swapaxes swapdims t take take_along_dim tan tanh tensor_split topk trace transpose tril triu
true_divide trunc unbind unflatten unsqueeze var vdot xlogy relu is_nonzero is_same_size
is_floating_point is_complex is_signed narrow_copy argwhere bincount cholesky cholesky_inverse
cholesky_solve corrcoef cov det diagonal_scatter diff dist frexp gcd hardshrink histc igamma
igammac index_reduce inverse isin lcm logdet matrix_exp matrix_power nanmedian nanquantile
nextafter nonzero_static pinverse qr quantile renorm select_scatter slice_scatter slogdet
split_with_sizes svd unique unique_consecutive unsafe_chunk unsafe_split unsafe_split_with_sizes
detach gather is_conj is_neg is_inference is_distributed rsub
""".split())


def _from_method(name):
    def fn(input, *args, **kwargs):  # noqa: A002
        return getattr(jnp.asarray(input), name)(*args, **kwargs)
    fn.__name__ = name
    fn.__doc__ = f"torch.{name}(input, ...): input.{name}(...)."
    return fn


def cat(tensors, dim=0, *, axis=None, out=None):
    """torch.cat(tensors, dim=0) (also concat, concatenate)."""
    return jnp.concatenate(list(tensors), axis=dim if axis is None else axis)


def stack(tensors, dim=0):
    """torch.stack(tensors, dim=0)."""
    return jnp.stack(list(tensors), axis=dim)


def where(condition, input=None, other=None):  # noqa: A002
    """torch.where(condition, input, other); where(condition) is nonzero(as_tuple=True)."""
    if input is None and other is None:
        return jnp.nonzero(condition)
    return jnp.where(condition, *torch_operands("where", input, other))


def polygamma(n, input):  # noqa: A002
    """torch.polygamma(n, input)."""
    return jnp.asarray(input).polygamma(n)


def tensordot(a, b, dims=2, *, axes=None):
    """torch.tensordot(a, b, dims=2): dims an int or two lists of dims; NumPy's axes= too."""
    return jnp.tensordot(a, b, axes=dims if axes is None else axes)


def einsum(equation, *operands):
    """torch.einsum(equation, *operands) (or one list of operands)."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    return jnp.einsum(equation, *operands)


def meshgrid(*tensors, indexing="ij"):
    """torch.meshgrid: 'ij' indexing by default (NumPy's default is 'xy')."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    return tuple(jnp.meshgrid(*tensors, indexing=indexing))


def broadcast_tensors(*tensors):
    """torch.broadcast_tensors."""
    return tuple(jnp.broadcast_arrays(*tensors))


def _like(name, make):
    def fn(input, *, dtype=None, device=None, requires_grad=False, memory_format=None,  # noqa: A002
           **kwargs):
        x = jnp.asarray(input)
        out = make(x, dtype or x.dtype, **kwargs)
        return out.requires_grad_(True) if requires_grad else out
    fn.__name__ = name
    fn.__doc__ = f"torch.{name}(input, ...): a new tensor of input's shape (and dtype)."
    return fn


def full_like(input, fill_value, *, dtype=None, device=None, requires_grad=False,  # noqa: A002
              memory_format=None):
    """torch.full_like(input, fill_value)."""
    x = jnp.asarray(input)
    out = jnp.full(x.shape, fill_value, dtype=dtype or x.dtype)
    return out.requires_grad_(True) if requires_grad else out


def randint_like(input, low=0, high=None, *, dtype=None, device=None, requires_grad=False,  # noqa: A002
                 memory_format=None):
    """torch.randint_like(input, low=0, high): integers in [low, high)."""
    if high is None:
        low, high = 0, low
    x = jnp.asarray(input)
    return creation.randint(low, high, tuple(x.shape), dtype=dtype or x.dtype)


def eye(n, m=None, *, dtype=None, device=None, requires_grad=False):
    """torch.eye(n, m=None)."""
    out = jnp.eye(n, m, dtype=dtype or "float32")
    return out.requires_grad_(True) if requires_grad else out


def linspace(start, end, steps, *, dtype=None, device=None, requires_grad=False):
    """torch.linspace(start, end, steps)."""
    out = jnp.linspace(start, end, steps, dtype=dtype)
    return out.requires_grad_(True) if requires_grad else out


def logspace(start, end, steps, base=10.0, *, dtype=None, device=None, requires_grad=False):
    """torch.logspace(start, end, steps, base=10.0)."""
    out = jnp.logspace(start, end, steps, base=base, dtype=dtype)
    return out.requires_grad_(True) if requires_grad else out


def from_numpy(ndarray):
    """torch.from_numpy: a tensor sharing the array's memory."""
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"from_numpy: expected a numpy.ndarray, got {type(ndarray).__name__}")
    return as_tensor(ndarray)


def is_tensor(obj) -> bool:
    """torch.is_tensor: an eager Tensor or a traced value."""
    return isinstance(obj, ArrayOps)


def multinomial(input, num_samples, replacement=False, *, generator=None):  # noqa: A002
    """torch.multinomial: num_samples category indices per row of weights, drawn from the
    global generator jg.manual_seed seeds (without replacement by default)."""
    w = np.asarray(input, dtype=np.float64)
    rows = w.reshape(-1, w.shape[-1])
    if (rows < 0).any() or not np.isfinite(rows).all() or (rows.sum(-1) <= 0).any():
        raise ValueError("multinomial: weights must be finite, non-negative, with a positive sum")
    if not replacement and num_samples > rows.shape[-1]:
        raise ValueError(f"multinomial: cannot draw {num_samples} samples without replacement "
                         f"from {rows.shape[-1]} categories")
    rng = creation.rng_of(generator)
    out = np.stack([rng.choice(len(p), num_samples, replace=replacement, p=p / p.sum())
                    for p in rows])
    return Tensor._wrap(out.reshape(w.shape[:-1] + (num_samples,)).astype(np.int64))


def bernoulli(input, p=None, *, generator=None):  # noqa: A002
    """torch.bernoulli: 1 with probability input (or p), from the global generator."""
    x = jnp.asarray(input)
    prob = np.asarray(x if p is None else p, dtype=np.float64)
    draws = creation.rng_of(generator).random(tuple(x.shape)) < prob
    return jnp.asarray(draws, dtype=x.dtype)


def normal(mean, std=1.0, size=None, *, generator=None, dtype=None):
    """torch.normal(mean, std, size=None): normal draws from the global generator."""
    mean_a, std_a = np.asarray(mean, np.float64), np.asarray(std, np.float64)
    shape = tuple(size) if size is not None else np.broadcast_shapes(mean_a.shape, std_a.shape)
    out = creation.rng_of(generator).normal(mean_a, std_a, shape)
    return jnp.asarray(out, dtype=dtype or (mean.dtype if isinstance(mean, ArrayOps)
                                            else "float32"))


def randperm(n, *, generator=None, dtype="int64", device=None, requires_grad=False):
    """torch.randperm(n): a random permutation of 0..n-1."""
    return jnp.asarray(creation.rng_of(generator).permutation(n), dtype=dtype)


def numel(input) -> int:  # noqa: A002
    """torch.numel."""
    return int(jnp.asarray(input).size)


def tile(input, dims):  # noqa: A002
    """torch.tile(input, dims)."""
    return jnp.tile(input, varargs_shape("tile", (dims,)))


def reshape(input, shape):  # noqa: A002
    """torch.reshape(input, shape)."""
    return jnp.reshape(input, varargs_shape("reshape", (shape,)))


class OptimizedModule:
    """What jitgrad.compile(module) returns, as torch's: calls run the module jitted, with the
    module passed in (its parameters are inputs, so autograd reaches them and optimizers see
    their updates); every other attribute is the module's."""

    def __init__(self, module):
        self._orig_mod = module
        self._jitted = jit(_call_module)

    def __call__(self, *args, **kwargs):
        return self._jitted(self._orig_mod, *args, **kwargs)

    def __getattr__(self, name):
        return getattr(self._orig_mod, name)


def _call_module(module, *args, **kwargs):
    return module(*args, **kwargs)


def compile(model=None, *, fullgraph=False, dynamic=None, backend="inductor",  # noqa: A001
            mode=None, options=None, disable=False):
    """torch.compile: the function jitted with jg.jit (a module: an OptimizedModule). torch's
    options (fullgraph, dynamic, backend, mode, options) are accepted and have no effect:
    jitgrad always compiles the whole graph, once per input signature. Used as
    @jitgrad.compile or @jitgrad.compile(mode=...) too; disable=True returns model itself."""
    if model is None:
        return lambda fn: compile(fn, fullgraph=fullgraph, dynamic=dynamic, backend=backend,
                                  mode=mode, options=options, disable=disable)
    if disable:
        return model
    if not callable(model):
        raise TypeError(f"compile: expected a function or nn.Module, got {type(model).__name__}")
    return OptimizedModule(model) if isinstance(model, Module) else jit(model)


def manual_seed(seed):
    """torch.manual_seed: seed the default generator (jg.randn, jg.rand, x.normal_(), ...);
    returns it."""
    return creation.manual_seed(seed)


FUNCTIONS = {name: _from_method(name) for name in FROM_METHODS}
FUNCTIONS.update({
    "cat": cat, "concat": cat, "concatenate": cat, "stack": stack, "where": where,
    "hstack": jnp.hstack, "vstack": jnp.vstack, "dstack": jnp.dstack,
    "column_stack": jnp.column_stack, "row_stack": jnp.vstack, "polygamma": polygamma,
    "einsum": einsum, "meshgrid": meshgrid, "broadcast_tensors": broadcast_tensors,
    "broadcast_shapes": jnp.broadcast_shapes, "broadcast_to": jnp.broadcast_to,
    "zeros_like": _like("zeros_like", lambda x, dt: jnp.zeros(x.shape, dt)),
    "ones_like": _like("ones_like", lambda x, dt: jnp.ones(x.shape, dt)),
    "empty_like": _like("empty_like", lambda x, dt: jnp.zeros(x.shape, dt)),
    "rand_like": _like("rand_like", lambda x, dt: creation.rand(*x.shape, dtype=dt)),
    "randn_like": _like("randn_like", lambda x, dt: creation.randn(*x.shape, dtype=dt)),
    "full_like": full_like, "randint_like": randint_like, "eye": eye, "linspace": linspace,
    "logspace": logspace, "from_numpy": from_numpy, "is_tensor": is_tensor,
    "multinomial": multinomial, "bernoulli": bernoulli, "normal": normal, "randperm": randperm,
    "numel": numel, "tile": tile, "reshape": reshape, "compile": compile,
    "manual_seed": manual_seed, "tensordot": tensordot, "atleast_1d": jnp.atleast_1d,
    "atleast_2d": jnp.atleast_2d, "atleast_3d": jnp.atleast_3d, "ravel": jnp.ravel,
    "hsplit": jnp.hsplit, "vsplit": jnp.vsplit, "dsplit": jnp.dsplit,
    "fliplr": shape_methods.fliplr, "flipud": shape_methods.flipud, "real": jnp.real,
    "imag": jnp.imag,
    "result_type": result_type, "can_cast": jnp.can_cast, "promote_types": jnp.promote_types,
    "finfo": dtype_info.finfo, "iinfo": dtype_info.iinfo, "asarray": jnp.asarray,
})
