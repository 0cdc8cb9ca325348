"""torch's shape and layout functions as jitgrad.* functions and jg.Tensor methods: view /
reshape, permute, transpose(d0, d1) swapping two dims, repeat tiling, expand, flatten
(start_dim, end_dim), squeeze(dim), split by size, chunk, narrow, stack / cat, diagonal, tril;
NumPy references written to torch's meaning; torch's own function compared when it is
installed."""
import numpy as np

import jitgrad as jg
from .core import ALL, FLOATS, NUMERIC, R2, R3, UNARY, err
from .torch_records import clone_then, function_record, method_record, op

_SHAPE_ERROR = (ValueError, RuntimeError, TypeError)


def _np_flatten(x, start_dim=0, end_dim=-1):
    if x.ndim == 0:
        return x.reshape(1)
    s, e = start_dim % x.ndim, end_dim % x.ndim
    return x.reshape(x.shape[:s] + (-1,) + x.shape[e + 1:])


def _np_split(x, split_size_or_sections, dim=0):
    """torch.split: pieces of a given size (the last smaller), or of the listed sizes."""
    n = x.shape[dim]
    sizes = split_size_or_sections
    if isinstance(sizes, int):
        sizes = [min(sizes, n - i) for i in range(0, n, sizes)]
    return np.split(x, np.cumsum(sizes)[:-1], axis=dim)


def _np_chunk(x, chunks, dim=0):
    return _np_split(x, -(-x.shape[dim] // chunks), dim)


function_record("reshape", jg.reshape, lambda x, shape: x.reshape(shape), R2[:2], dtypes=ALL,
                kwargs={"shape": (-1, 2)},
                errors=(err([(3, 4)], _SHAPE_ERROR, "shape|size", kwargs={"shape": (5, -1)}),))
method_record("reshape", lambda x, a, b: x.reshape(a, b), R2[:2], dtypes=ALL,
              kwargs={"a": -1, "b": 2}, fn=lambda x, a, b: x.reshape(a, b), owner_path=None)
method_record("view", lambda x, a, b: x.reshape(a, b), R2[:2], dtypes=ALL,
              kwargs={"a": 2, "b": -1}, fn=lambda x, a, b: x.view(a, b), owner_path=None)
method_record("view", lambda x, size: x.reshape(size), R2, dtypes=ALL, kwargs={"size": (-1,)},
              fn=lambda x, size: x.view(size), owner_path=None)
for _n in ("reshape_as", "view_as", "expand_as", "type_as"):
    _ref = {"reshape_as": lambda x, y: x.reshape(y.shape), "view_as": lambda x, y: x.reshape(
        y.shape), "expand_as": lambda x, y: np.broadcast_to(x, y.shape),
        "type_as": lambda x, y: x.astype(y.dtype)}[_n]
    method_record(_n, _ref, [((3, 4), (4, 3)) if "expand" not in _n else ((3, 1), (2, 3, 4))],
                  dtypes=FLOATS)
op("flatten", _np_flatten, UNARY, dtypes=ALL, inplace=False)
op("flatten", _np_flatten, R3, dtypes=FLOATS, kwargs={"start_dim": 1}, inplace=False)
op("flatten", _np_flatten, R3, dtypes=FLOATS, kwargs={"start_dim": 0, "end_dim": 1},
   inplace=False)
op("unflatten", lambda x, dim, sizes: x.reshape(x.shape[:dim] + tuple(sizes) + x.shape[
    dim + 1:]), R2[:2], dtypes=FLOATS, kwargs={"dim": 0, "sizes": (-1, 1)}, inplace=False)
op("ravel", lambda x: x.reshape(-1), UNARY, dtypes=ALL, inplace=False)
op("squeeze", np.squeeze, [((1, 3, 1),), ((),), ((2, 3),)], dtypes=ALL)
op("squeeze", lambda x, dim: np.squeeze(x, dim) if x.shape[dim] == 1 else x,
   [((1, 3, 1),), ((2, 3),)], dtypes=FLOATS, kwargs={"dim": 0})
op("unsqueeze", lambda x, dim: np.expand_dims(x, dim), UNARY, dtypes=ALL, kwargs={"dim": 0})
op("unsqueeze", lambda x, dim: np.expand_dims(x, dim), R2, dtypes=FLOATS, kwargs={"dim": -1},
   errors=(err([(3, 4)], IndexError, "out of range|bounds", kwargs={"dim": 4}),))
op("permute", lambda x, dims: np.transpose(x, dims), R3, dtypes=ALL,
   kwargs={"dims": (2, 0, 1)}, inplace=False,
   errors=(err([(3, 4)], _SHAPE_ERROR + (IndexError,), "repeated|dim|permut|axes",
               kwargs={"dims": (0, 0)}),))
method_record("permute", lambda x, a, b, c: np.transpose(x, (a, b, c)), R3, dtypes=FLOATS,
              kwargs={"a": 1, "b": 2, "c": 0}, fn=lambda x, a, b, c: x.permute(a, b, c),
              owner_path=None)
# torch's keywords: transpose(dim0, dim1), swapdims(dim0, dim1), swapaxes(axis0, axis1);
# swapaxes / swapdims are called positionally (NumPy's keywords are axis1, axis2)
_SWAP_KW = {"transpose": ("dim0", "dim1"), "swapdims": ("dim0", "dim1"),
            "swapaxes": ("axis0", "axis1")}
for _n, (_k0, _k1) in _SWAP_KW.items():
    _owner_kw = {_k0: 0, _k1: -1}
    function_record(_n, lambda x, d0, d1, _f=getattr(jg, _n): _f(x, d0, d1),
                    lambda x, d0, d1: np.swapaxes(x, d0, d1), R2, dtypes=ALL,
                    kwargs={"d0": 0, "d1": -1}, owner_kwargs=_owner_kw)
    method_record(_n, lambda x, d0, d1: np.swapaxes(x, d0, d1), R2, dtypes=ALL,
                  kwargs={"d0": 0, "d1": -1}, owner_kwargs=_owner_kw,
                  fn=lambda x, d0, d1, _n=_n: getattr(x, _n)(d0, d1))
    method_record(_n + "_", lambda x, d0, d1: np.swapaxes(x, d0, d1), R2, dtypes=ALL,
                  kwargs={"d0": 0, "d1": -1}, owner_kwargs=_owner_kw,
                  fn=lambda x, d0, d1, _n=_n: clone_then(x, lambda y: getattr(y, _n + "_")(
                      d0, d1)), traceable=False, batchable=False, differentiable=False)
method_record("transpose", lambda x, dim0, dim1: np.swapaxes(x, dim0, dim1), R2, dtypes=ALL,
              kwargs={"dim0": 1, "dim1": 0})
op("t", lambda x: x.T, [((3, 4),), ((5,),), ((),)], dtypes=ALL)
for _n in ("movedim", "moveaxis"):
    op(_n, lambda x, source, destination: np.moveaxis(x, source, destination), R3,
       dtypes=FLOATS, kwargs={"source": 0, "destination": -1}, inplace=False)
op("broadcast_to", lambda x, size: np.broadcast_to(x, size), [((3, 1),), ((4,),), ((),)],
   dtypes=ALL, kwargs={"size": (2, 3, 4)}, inplace=False, by_position=("size",),
   errors=(err([(3, 2)], _SHAPE_ERROR, "broadcast|shape|size", kwargs={"size": (3, 4)}),))
method_record("expand", lambda x, a, b, c: np.broadcast_to(x, (a, b, c)), [((3, 1),), ((4,),)],
              dtypes=ALL, kwargs={"a": 2, "b": 3, "c": 4},
              fn=lambda x, a, b, c: x.expand(a, b, c), owner_path=None)
method_record("expand", lambda x, size: np.broadcast_to(x, (3, 4)), [((3, 1),)], dtypes=ALL,
              kwargs={"size": (-1, 4)}, fn=lambda x, size: x.expand(size), owner_path=None)
# x.repeat tiles (torch); NumPy's repeat is jitgrad.numpy.repeat and x.repeat(n, axis=)
method_record("repeat", lambda x, a, b: np.tile(x, (a, b)), [((3,),), ((2, 3),)], dtypes=ALL,
              kwargs={"a": 2, "b": 3}, fn=lambda x, a, b: x.repeat(a, b), owner_path=None)
method_record("repeat", lambda x, repeats: np.tile(x, repeats), [((3,),), ((2, 3),)],
              dtypes=FLOATS, kwargs={"repeats": (1, 2, 2)},
              fn=lambda x, repeats: x.repeat(repeats), owner_path=None)
op("tile", lambda x, dims: np.tile(x, dims), [((3,),), ((2, 3),), ((),)], dtypes=ALL,
   kwargs={"dims": (2, 2)}, inplace=False, by_position=("dims",))
op("repeat_interleave", lambda x, repeats, dim=None: np.repeat(x, repeats, axis=dim), R2,
   dtypes=FLOATS, kwargs={"repeats": 2, "dim": 1}, inplace=False)
op("repeat_interleave", lambda x, repeats: np.repeat(x, repeats), [((3, 4),), ((),)],
   dtypes=FLOATS, kwargs={"repeats": 3}, inplace=False)
op("flip", lambda x, dims: np.flip(x, dims), R3, dtypes=ALL, kwargs={"dims": (0, 2)},
   function=False, inplace=False)
op("fliplr", np.fliplr, R2, dtypes=ALL, inplace=False)
op("flipud", np.flipud, R2, dtypes=ALL, inplace=False)
op("rot90", lambda x, k, dims: np.rot90(x, k, dims), R2, dtypes=FLOATS,
   kwargs={"k": 1, "dims": (0, 1)}, inplace=False)
op("roll", lambda x, shifts, dims: np.roll(x, shifts, dims), R2, dtypes=ALL,
   kwargs={"shifts": (1, -2), "dims": (0, 1)}, inplace=False, function=False)
op("roll", lambda x, shifts: np.roll(x, shifts), UNARY, dtypes=FLOATS, kwargs={"shifts": 2},
   inplace=False)
op("narrow", lambda x, dim, start, length: np.take(x, range(start, start + length), dim), R2,
   dtypes=FLOATS, kwargs={"dim": 1, "start": 1, "length": 2}, inplace=False,
   errors=(err([(3, 4)], IndexError, "exceeds dimension size",
               kwargs={"dim": 1, "start": 3, "length": 2}),))
op("select", lambda x, dim, index: np.take(x, index, dim), R2, dtypes=FLOATS,
   kwargs={"dim": 1, "index": -1}, inplace=False)
op("split", _np_split, [((5, 3),), ((7,),)], dtypes=FLOATS,
   kwargs={"split_size_or_sections": 2}, inplace=False, by_position=("split_size_or_sections",),
   method=False)
op("split", _np_split, [((6, 3),)], dtypes=FLOATS,
   kwargs={"split_size_or_sections": [1, 2, 3], "dim": 0}, inplace=False, method=False)
op("split", lambda x, split_size, dim=0: _np_split(x, split_size, dim), [((5, 3),), ((7,),)],
   dtypes=FLOATS, kwargs={"split_size": 2}, inplace=False, by_position=("split_size",),
   function=False)
op("split_with_sizes", lambda x, split_sizes, dim=0: _np_split(x, split_sizes, dim),
   [((3, 6),)], dtypes=FLOATS, kwargs={"split_sizes": [4, 2], "dim": 1}, inplace=False)
op("chunk", _np_chunk, [((5, 3),), ((6,),)], dtypes=FLOATS, kwargs={"chunks": 3},
   inplace=False)
op("tensor_split", lambda x, sections, dim=0: np.array_split(x, sections, dim),
   [((5, 3),), ((7,),)], dtypes=FLOATS, kwargs={"sections": 3}, inplace=False,
   by_position=("sections",))
for _n, _ref, _cases in (("hsplit", np.hsplit, [((3, 4),), ((4,),)]),
                         ("vsplit", np.vsplit, [((4, 3),)]),
                         ("dsplit", np.dsplit, [((2, 3, 4),)])):
    op(_n, lambda x, sections, _r=_ref: _r(x, sections), _cases, dtypes=FLOATS,
       kwargs={"sections": 2}, inplace=False, by_position=("sections",))
op("unbind", lambda x, dim=0: [np.take(x, i, dim) for i in range(x.shape[dim])], R2[:2],
   dtypes=FLOATS, inplace=False)
op("unbind", lambda x, dim: [np.take(x, i, dim) for i in range(x.shape[dim])], R2[:2],
   dtypes=FLOATS, kwargs={"dim": 1}, inplace=False)
for _n in ("diagonal",):
    op(_n, lambda x, offset=0, dim1=0, dim2=1: np.diagonal(x, offset, dim1, dim2), R2,
       dtypes=FLOATS, inplace=False)
    op(_n, lambda x, offset, dim1, dim2: np.diagonal(x, offset, dim1, dim2), R3,
       dtypes=FLOATS, kwargs={"offset": 1, "dim1": -1, "dim2": 0}, inplace=False)
op("diag", np.diag, [((4,),), ((3, 4),)], dtypes=FLOATS, inplace=False)
op("diag", lambda x, diagonal: np.diag(x, diagonal), [((3,),), ((3, 4),)], dtypes=FLOATS,
   kwargs={"diagonal": -1}, inplace=False)
op("diagflat", np.diagflat, [((3,),), ((2, 2),)], dtypes=FLOATS, inplace=False)
op("diag_embed", lambda x: np.einsum("...i,ij->...ij", x, np.eye(x.shape[-1], dtype=x.dtype)),
   [((3,),), ((2, 3),)], dtypes=FLOATS, inplace=False)
# jitgrad.trace is the tracing package (jitgrad/trace/): torch.trace has no top-level name
op("trace", np.trace, [((3, 4),), ((3, 3),)], dtypes=FLOATS, inplace=False, function=False)
op("tril", lambda x, diagonal=0: np.tril(x, diagonal), [((3, 4),), ((2, 3, 3),)],
   dtypes=FLOATS, function=False)
op("tril", lambda x, diagonal: np.tril(x, diagonal), [((3, 4),)], dtypes=FLOATS,
   kwargs={"diagonal": 1})
op("triu", lambda x, diagonal=0: np.triu(x, diagonal), [((3, 4),), ((2, 3, 3),)],
   dtypes=FLOATS)
op("triu", lambda x, diagonal: np.triu(x, diagonal), [((3, 4),)], dtypes=FLOATS,
   kwargs={"diagonal": -1})
for _n in ("clone", "contiguous", "detach"):
    op(_n, np.array, UNARY, dtypes=ALL, function=_n != "contiguous", inplace=False,
       differentiable=_n != "detach")
op("atleast_1d", np.atleast_1d, UNARY, dtypes=FLOATS, method=False, inplace=False)
op("atleast_2d", np.atleast_2d, UNARY, dtypes=FLOATS, method=False, inplace=False)
op("atleast_3d", np.atleast_3d, UNARY,
   dtypes=FLOATS, method=False, inplace=False)
op("numel", lambda x: np.asarray(x.size), UNARY, dtypes=ALL, inplace=False,
   differentiable=False, traceable=False, batchable=False)
