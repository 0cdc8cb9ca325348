"""Tensor methods that a lazily loaded namespace installs, there before it loads: `import jitgrad`
leaves jitgrad.nn and the torch API unloaded, yet x.relu(), x.view(2, 3) and
hasattr(jg.Tensor, "add_") work as if they were installed. The package registers each such
module with the names it installs on each class (`install_lazy_methods`); the first read of one of
them, on a class or an instance, puts back what the classes held before and imports the module,
whose import installs the real methods (array_base.register_methods), then reads the name again."""
from __future__ import annotations

import importlib

_MISSING = object()


class _Pending:
    """One name's stand-in until its module is imported (a non-data descriptor: instance
    attributes and every other name are looked up as before)."""
    __slots__ = ("name", "group")

    def __init__(self, name, group):
        self.name, self.group = name, group

    def __get__(self, obj, cls=None):
        self.group.load()
        return getattr(cls if obj is None else obj, self.name)


class _PendingModule:
    """The names one module installs: (class, name, what the class held before)."""

    def __init__(self, module: str, table: dict):
        self.module, self.saved = module, []
        for cls, names in table.items():
            for name in names:
                self.saved.append((cls, name, cls.__dict__.get(name, _MISSING)))
                setattr(cls, name, _Pending(name, self))

    def load(self):
        saved, self.saved = self.saved, []
        for cls, name, old in saved:
            now = cls.__dict__.get(name)
            if isinstance(now, _Pending) and now.group is self:
                if old is _MISSING:
                    delattr(cls, name)
                else:
                    setattr(cls, name, old)
        importlib.import_module(self.module)


def install_lazy_methods(module: str, table: dict) -> None:
    """`table`: class -> names that importing `module` installs on it."""
    _PendingModule(module, table)
