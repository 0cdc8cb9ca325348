"""What jitgrad.numpy's one-primitive functions (the generated jitgrad/numpy/ufuncs.py) do
around their primitive: NumPy's dtype rules for each kind of function. `numpy_kind` in a
primitive's record names the rule here."""
from __future__ import annotations

import functools

import numpy as np

from ..trace.tracer import Tracer
from ..eager.dispatch import apply, apply_fast, fast_binary, fast_unary
from ..eager.own_storage import own_storage
from ..trace.source_info import user_source_info
from ..ir import Op
from ..ir.errors import negative_power
from ..eager.tensor import Tensor
from ..errors import trimmed
from ._convert import FAST_ANY, FAST_FLOAT, asarray, astype, operands
from ._out import accepts_out
from .checks import checked
from ..ir.types import kind_of


def _flat_unary(op, dtypes, fn):
    """`fn` (a generated one-array def whose body is a rule below) as one flat frame
    (dispatch.fast_unary) for a tensor of a dtype in `dtypes`, where the rule is apply(op, [x]),
    whose signature ran before; everything else (other dtypes, out=, traced values, the first
    call) runs the body, with NumPy's `out=` (_out.accepts_out). Errors are trimmed in that
    frame, so the public namespace does not wrap it again; Tensor methods and operators of the
    function's name are the function itself (numpy/methods.py: `__eager_flat__`)."""
    return _flat(fast_unary(op, accepts_out(fn), dtypes), fn)


def _flat(flat, fn):
    """`flat` named and documented as the generated def `fn` (inspect.signature and getsource
    follow __wrapped__ to it), marked as trimming its own errors and as a flat function."""
    functools.update_wrapper(flat, fn, assigned=("__module__", "__name__", "__qualname__",
                                                 "__doc__"), updated=())
    flat.__wrapped_by_api_boundary__ = flat.__eager_flat__ = True
    return flat


def float_unary_function(op):
    """The decorator of the generated float functions (jnp.tanh, jnp.exp, ...; body
    `float_unary(op, x)`, which is apply(op, [x]) on float and complex tensors)."""
    return lambda fn: _flat_unary(op, FAST_FLOAT, fn)


def numeric_unary_function(op):
    """The decorator of the generated numeric functions (jnp.negative, jnp.abs, ...; body
    `numeric_unary(op, x)`, which is apply(op, [x]) on any tensor but a bool one)."""
    return lambda fn: _flat_unary(op, FAST_ANY, fn)


def rounding_function(op):
    """The decorator of the generated rounding functions (jnp.floor, ...; body
    `rounding(op, x)`, which is apply(op, [x]) on real float tensors)."""
    return lambda fn: _flat_unary(op, _REAL_FLOAT, fn)


_REAL_FLOAT = frozenset(dt for dt in FAST_FLOAT if dt.kind == "f")


def _flat_binary(op, fn):
    """`fn` (a generated two-array def whose body is `binary` or `compare`) as one frame that
    calls the direct call of two float tensors of one dtype whose signature ran before
    (`_fast_pair`'s dispatch.fast_binary, which trims its own errors) and else runs the body,
    with NumPy's `out=`; its errors are trimmed here, so the public namespace does not wrap it
    again."""
    general = accepts_out(fn)
    pair = _pair(op)

    def fast(x1, x2, /, *, out=None):
        try:
            if out is None:
                res = pair(x1, x2)
                if res is not None:
                    return res
            return general(x1, x2, out=out)
        except Exception as e:      # an api boundary: errors leave with jitgrad's frames trimmed
            raise trimmed(e) from e.__cause__
    return _flat(fast, fn)


def binary_function(op):
    """The decorator of the generated arithmetic functions (jnp.add, jnp.maximum, ...)."""
    return lambda fn: _flat_binary(op, fn)


def compare_function(op):
    """The decorator of the generated comparisons (jnp.less, ...)."""
    return lambda fn: _flat_binary(op, fn)


def float_unary(op, x):
    """Computed in floating point: ints and bools promote to the default float dtype."""
    if isinstance(x, Tensor) and type(x._data) is np.ndarray and x._data.dtype in FAST_FLOAT:
        out = apply_fast(op, x)        # a float tensor whose signature ran before
        if out is not None:
            return out
    (x,) = operands(x, float_only=True)
    return apply(op, [x])


# Bool arithmetic as in NumPy: add/multiply/maximum/minimum are logical; the rest compute in
# int32 (NumPy: int8, which the CUDA kernels do not compute, so every path gives int32);
# negative, sign and subtract are errors.
_BOOL_LOGICAL = {Op.add: Op.logical_or, Op.max: Op.logical_or, Op.mul: Op.logical_and,
                 Op.min: Op.logical_and, Op.bitwise_and: Op.logical_and,
                 Op.bitwise_or: Op.logical_or, Op.bitwise_xor: Op.logical_xor}
_BOOL_ERRORS = {Op.neg: "negative, the `-` operator, is not supported, use the `~` operator or "
                        "the logical_not function instead",
                Op.sign: "sign is not supported; cast to an integer or float dtype first",
                Op.sub: "subtract, the `-` operator, is not supported, use the bitwise_xor, the "
                        "`^` operator, or the logical_xor function instead"}


def _bool_error(op):
    return TypeError(f"numpy boolean {_BOOL_ERRORS[op]}")


def numeric_unary(op, x):
    """Keeps integer dtypes; bools as NumPy (abs is the identity, square is int, the rest raise)."""
    x = asarray(x)
    if kind_of(x.dtype) == "b":
        if op in _BOOL_ERRORS:
            raise _bool_error(op)
        if op is Op.abs:
            return own_storage(x)
        x = astype(x, "int32")
    return apply(op, [x])


def rounding(op, x):
    """Integers are already integral (returned as a copy, as NumPy's); complex rint rounds both
    parts."""
    x = asarray(x)
    if kind_of(x.dtype) == "c" and op is Op.round:    # the real and imaginary parts, as NumPy
        parts = [apply(op, [apply(part, [x])]) for part in (Op.real, Op.imag)]
        return apply(Op.complex, parts)
    return apply(op, [x]) if kind_of(x.dtype) in "fc" else own_storage(x)  # complex floor: an error


_PAIRS: dict = {}


def _pair(op):
    """fn(x1, x2): two eager float/complex tensors of one dtype (nothing to promote) whose
    signature ran before, computed at once (dispatch.fast_binary); else None."""
    f = _PAIRS.get(op)
    if f is None:
        f = _PAIRS[op] = fast_binary(op, _none, FAST_FLOAT, scalars=False)
    return f


def _fast_pair(op, x1, x2):
    return _pair(op)(x1, x2)


def _none(a, b):
    return None


def binary(op, x1, x2):
    """JAX's promotion of both operands, and NumPy's bool arithmetic."""
    out = _fast_pair(op, x1, x2)        # float tensors of one dtype whose signature ran before
    if out is not None:
        return out
    a, b = operands(x1, x2)
    if kind_of(a.dtype) == "b":
        if op in _BOOL_ERRORS:
            raise _bool_error(op)
        if op in _BOOL_LOGICAL:
            return apply(_BOOL_LOGICAL[op], [a, b])
        a, b = operands(a, b, dtype="int32")
    if op is Op.pow and kind_of(a.dtype) in "iu":
        b = _nonnegative_exponent(b)
    return apply(op, [a, b])


def _nonnegative_exponent(b):
    """An integer exponent, asserted >= 0 on every path as NumPy raises eagerly: checked now
    when its value is known, else by a checked take in the compiled code (checks.checked)."""
    if isinstance(b, Tensor) and b.device.type != "meta":
        if (b._data < 0).any():
            raise negative_power("power", b._data[b._data < 0].flat[0], user_source_info())
        return b
    if not isinstance(b, Tracer):
        return b
    negative = apply(Op.lt, [b, astype(0, b.dtype)])
    zero = checked(apply(Op.select, [negative, b, astype(0, b.dtype)]), 1, "power:power")
    return apply(Op.add, [b, zero])


def compare(op, x1, x2):
    """JAX's promotion of both operands; a bool result."""
    out = _fast_pair(op, x1, x2)
    return apply(op, operands(x1, x2)) if out is None else out


def logical(op, x1, x2):
    """Both operands as bools."""
    return apply(op, [astype(x1, "bool"), astype(x2, "bool")])


def not_integer(name, *xs):
    return TypeError(f"{name} is supported on integer and bool tensors, got "
                     + " and ".join(x.dtype.name for x in xs))


def integer_binary(op, name, x1, x2):
    """Integers only (floats raise TypeError, as NumPy); bools are logical for and/or/xor and
    int32 (NumPy: int8) for the shifts."""
    a, b = operands(x1, x2)
    if kind_of(a.dtype) in "fc":
        raise not_integer(name, a, b)
    if kind_of(a.dtype) == "b":
        if op in _BOOL_LOGICAL:
            return apply(_BOOL_LOGICAL[op], [a, b])
        a, b = operands(a, b, dtype="int32")
    return apply(op, [a, b])
