"""The naming rule, as data (the docs render it; tests/torch_api/test_tensor_torch_semantics.py checks it).

`jg.Tensor` methods and `jitgrad.*` top-level functions mean what PyTorch means; `jitgrad.numpy`
functions mean what NumPy / jax.numpy mean. Where a method call is spelled as only NumPy spells
it (axis=, ddof=, keepdims=, a tuple or full permutation to transpose), it keeps NumPy's
meaning, so JAX-style code that calls methods keeps working. No name silently follows the other
convention: each name both libraries use with two meanings is listed here with how a call is
read."""
from __future__ import annotations

# name -> (PyTorch's meaning, NumPy's meaning, how jitgrad resolves a method call)
SHARED_NAMES = {
    "size": ("x.size() -> torch.Size, x.size(d) -> len of dim d",
             "x.size -> number of elements",
             "x.size is an int (the element count) that is callable: x.size() / x.size(d)"),
    "transpose": ("x.transpose(d0, d1) swaps two dims",
                  "x.transpose(*axes) permutes all dims (reverses them by default)",
                  "two ints: torch's swap (on 2-d the same result); none, a tuple or a full "
                  "permutation of n != 2 dims: NumPy's"),
    "repeat": ("x.repeat(*sizes) tiles the tensor", "x.repeat(repeats, axis) repeats elements",
               "torch's tiling; with axis= NumPy's repeat (x.repeat_interleave is torch's)"),
    "std": ("unbiased (correction=1) over dim", "ddof=0 over axis",
            "torch's unless called with ddof=, axis= or keepdims= (then NumPy's, ddof=0)"),
    "var": ("unbiased (correction=1) over dim", "ddof=0 over axis",
            "torch's unless called with ddof=, axis= or keepdims= (then NumPy's, ddof=0)"),
    "max": ("x.max(dim) -> (values, indices); x.max(other) elementwise", "x.max(axis) -> values",
            "x.max() a value; a dim: the named tuple; a tensor: elementwise; axis=: NumPy's"),
    "min": ("x.min(dim) -> (values, indices); x.min(other) elementwise", "x.min(axis) -> values",
            "x.min() a value; a dim: the named tuple; a tensor: elementwise; axis=: NumPy's"),
    "sort": ("x.sort(dim=-1, descending) -> (values, indices)", "x.sort(axis) -> sorted values",
             "torch's named tuple; with axis= NumPy's values"),
    "median": ("the lower middle value; x.median(dim) -> (values, indices)",
               "the mean of the two middle values",
               "torch's; with axis= or keepdims= NumPy's"),
    "nonzero": ("x.nonzero() -> (n, ndim) indices", "x.nonzero() -> tuple of index arrays",
                "torch's; as_tuple=True (or jitgrad.numpy.nonzero) gives the tuple"),
    "flip": ("x.flip(dims)", "x.flip(axis=None) reverses all dims",
             "torch's dims (positional); axis= NumPy's (no dims reverses all, as NumPy)"),
    "squeeze": ("x.squeeze(d) keeps d when its length is not 1",
                "x.squeeze(axis) raises when that axis is not 1",
                "torch's; axis= NumPy's"),
    "cumsum": ("x.cumsum(dim)", "x.cumsum(axis=None) flattens",
               "the same positional meaning; no dim flattens, as NumPy's"),
    "softmax": ("x.softmax(dim)", "jax.nn.softmax(x, axis=-1)", "dim= or axis=, -1 by default"),
    "view": ("x.view(*shape) reshapes (x.view(dtype) bitcasts)",
             "ndarray.view(dtype) reinterprets memory",
             "torch's: a shape reshapes; a dtype reads an eager tensor's storage as that dtype"),
    "take": ("x.take(index) indexes the flattened tensor",
             "x.take(indices, axis=None) (flattened by default)",
             "the same meaning; axis= NumPy's"),
    "sum": ("x.sum(dim, keepdim, dtype)", "x.sum(axis, dtype, out, keepdims)",
            "positional dims mean the same; a second positional argument is torch's keepdim; "
            "an empty dim reduces every dim (torch's; not in any/all); axis=/keepdims= NumPy's, "
            "where axis=() reduces none (likewise mean, prod, any, all, argmax, argmin, amax, "
            "amin, std, var)"),
    "clip": ("x.clip(min, max)", "x.clip(min, max)", "the same meaning"),
}

# the Tensor operators (and the torch-named functions of two tensors, jg.result_type among
# them) rank a 0-d tensor below dimensioned ones, as torch.result_type; jitgrad.numpy does not
SHARED_NAMES.update(dict.fromkeys(
    ("__add__", "__sub__", "__mul__", "__truediv__", "__floordiv__", "__mod__", "__pow__",
     "__and__", "__or__", "__xor__", "__lshift__", "__rshift__", "__eq__", "__ne__", "__lt__",
     "__le__", "__gt__", "__ge__"),
    ("x + s, s a 0-d tensor: s ranks below dimensioned tensors unless its kind (bool < int < "
     "float < complex) is higher (float32 [3] + float64 [] is float32, int8 [3] + int64 [] "
     "int8, int32 [3] + float64 [] float64)",
     "jnp.add(x, s): a 0-d array promotes as any array (float32 [3] + float64 [] is float64)",
     "torch's for every operator and for jitgrad.* functions and methods of two tensors "
     "(jg.add, jg.mul, jg.where, jg.maximum, x.mul(s), jg.result_type, ...); JAX's for "
     "jitgrad.numpy's functions (jnp.add, jnp.result_type)")))
