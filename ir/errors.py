"""Errors raised by the IR layer. They subclass the builtin that a NumPy user would expect."""


class ShapeError(TypeError):
    """An op got inputs of shapes or dtypes its type rule does not accept."""


class VerifyError(Exception):
    """A graph broke an IR invariant (SSA, types, topological order)."""


class ParseError(ValueError):
    """IR text could not be read back."""


class MissingRuleError(NotImplementedError):
    """An op has no entry in one of the per-op rule tables."""

    def __init__(self, op, concern: str):
        super().__init__(f"op '{op}' has no {concern} rule")
