"""static_argnums and static_argnames of jg.jit, as JAX relates them: where the function's
signature is known, each static position also makes its parameter's name static (so `f(x, n=3)`
is static under static_argnums=1) and each static name its position (so `f(x, 3)` is static
under static_argnames="n")."""
from __future__ import annotations

import inspect

_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


class StaticArgs:
    __slots__ = ("nums", "names", "named_nums", "positional")

    def __init__(self, fn, name, static_argnums=(), static_argnames=()):
        self.nums = (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums)
        names = (static_argnames,) if isinstance(static_argnames, str) else tuple(static_argnames)
        bad = [n for n in names if not isinstance(n, str)]
        if bad:
            raise TypeError(f"{name}: static_argnames takes parameter names (str), got "
                            f"{type(bad[0]).__name__} {bad[0]!r}; use static_argnums for positions")
        try:
            params = list(inspect.signature(fn).parameters.values())
        except (TypeError, ValueError):
            params = None
        self.positional = [] if params is None else \
            [p.name for p in params if p.kind in _POSITIONAL]
        if params is not None and names and not any(p.kind == p.VAR_KEYWORD for p in params):
            known = {p.name for p in params if p.kind != p.VAR_POSITIONAL}
            missing = [n for n in names if n not in known]
            if missing:
                raise ValueError(f"{name}: static_argnames names {missing[0]!r}, which is not a "
                                 f"parameter of the function ({', '.join(sorted(known))})")
        by_num = set()
        if params is not None:
            keyword = {p.name for p in params
                       if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
            n_pos = len(self.positional)
            by_num = {self.positional[i % n_pos] for i in self.nums
                      if n_pos and -n_pos <= i < n_pos} & keyword
        self.names = frozenset(names) | by_num
        self.named_nums = frozenset(self.positional.index(n) for n in names if n in self.positional)

    def has_name(self, i) -> bool:
        """Position i is a named parameter (may be passed by keyword instead)."""
        return 0 <= i < len(self.positional)

    def positions(self, n_args) -> frozenset:
        """Static positions among n_args positional arguments (validated by the caller)."""
        own = frozenset(i % n_args for i in self.nums if -n_args <= i < n_args)
        return own | frozenset(i for i in self.named_nums if i < n_args)

    def split_kwargs(self, kwargs, name):
        """(dynamic kwargs, static ((name, value), ...) sorted by name)."""
        if not self.names or not kwargs:
            return kwargs, ()
        static = []
        for k in sorted(kwargs):
            if k in self.names:
                try:
                    hash(kwargs[k])
                except TypeError:
                    raise TypeError(f"{name}: static argument {k!r} of type "
                                    f"{type(kwargs[k]).__name__} is not hashable; static "
                                    "arguments must be hashable (use a tuple, not a list or "
                                    "array)") from None
                static.append((k, kwargs[k]))
        return {k: v for k, v in kwargs.items() if k not in self.names}, tuple(static)
