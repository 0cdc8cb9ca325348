"""Errors raised by the IR layer. They subclass the builtin that a NumPy user would expect."""


class ShapeError(TypeError, ValueError):
    """An op got inputs of shapes or dtypes its type rule does not accept. A TypeError (JAX's
    type rules raise one) and a ValueError (NumPy's and JAX's broadcasting errors), so programs
    catching either keep working."""


class VerifyError(Exception):
    """A graph broke an IR invariant (SSA, types, topological order)."""


class ParseError(ValueError):
    """IR text could not be read back."""


class MissingRuleError(NotImplementedError):
    """An op has no entry in one of the per-op rule tables."""

    def __init__(self, op, concern: str):
        super().__init__(f"op '{op}' has no {concern} rule")


class UnsupportedOpError(NotImplementedError):
    """A backend met an op (or an op at some dtypes/shapes) it does not implement and whose
    record documents no fallback: names the op, the backend, why, and the user's line."""

    def __init__(self, op, backend: str, reason: str, source_info=None):
        at = f" (at {source_info})" if source_info else ""
        super().__init__(f"{op} is not supported by the {backend} backend: {reason}{at}")
        self.op, self.backend, self.reason = op, backend, reason


def out_of_bounds(op, index, size, source_info=None) -> IndexError:
    """The one out-of-bounds message of every path (eager, interpreter, CPU and CUDA kernels)."""
    at = f" (at {source_info})" if source_info else ""
    return IndexError(f"{op}: index {int(index)} is out of bounds for an axis of size {int(size)}"
                      f"{at}; pass mode='clip', 'fill' or 'drop' (jnp.take, x.at[...]) to "
                      "opt out of the check")


def bad_label(loss, label, n_classes, source_info=None) -> IndexError:
    """A class label outside [0, n_classes) (the losses; PyTorch raises too)."""
    at = f" (at {source_info})" if source_info else ""
    return IndexError(f"{loss}: target label {int(label)} is out of bounds: expected class "
                      f"labels in [0, {int(n_classes)}){at}")


def bad_embedding_index(index, n_rows, source_info=None) -> IndexError:
    """An embedding index outside [0, n_rows): negative ones too (PyTorch: "index out of range
    in self"), unlike take's NumPy rule."""
    at = f" (at {source_info})" if source_info else ""
    return IndexError(f"embedding: index {int(index)} is out of bounds for {int(n_rows)} "
                      f"embeddings: expected indices in [0, {int(n_rows)}), negative ones "
                      f"included (PyTorch's rule){at}")


def negative_power(what, exponent, source_info=None) -> ValueError:
    """NumPy's error for an integer to a negative integer power, on every path."""
    at = f" (at {source_info})" if source_info else ""
    return ValueError(f"Integers to negative integer powers are not allowed ({what}: exponent "
                      f"{int(exponent)}){at}")


# A `take` with params check="kind:what" is an assertion on data: its indices must lie in
# [0, n) (no wrapping) and a failed one raises the kind's error instead of out_of_bounds.
_CHECKS = {"labels": lambda what, index, size, at: bad_label(what, index, size, at),
           "embedding": lambda what, index, size, at: bad_embedding_index(index, size, at),
           "power": lambda what, index, size, at: negative_power(what, index, at)}


def check_error(op, check, index, size, source_info=None) -> Exception:
    """The error of a failed bounds check of a `take` (check: its params' "check" or None)."""
    if check:
        kind, _, what = check.partition(":")
        return _CHECKS[kind](what, index, size, source_info)
    return out_of_bounds(op, index, size, source_info)


def with_source(e: Exception, source_info) -> Exception:
    """e with ' (at file:line)' appended, once."""
    if source_info and "(at " not in str(e):
        return type(e)(f"{e} (at {source_info})")
    return e
