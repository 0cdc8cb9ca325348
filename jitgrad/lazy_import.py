"""A package's attributes loaded on first use (PEP 562), so `import jitgrad` stays light while
jg.cuda, jg.scipy, jg.optim.lr_scheduler, ... still read as attributes. The package keeps a table,
name -> (module, attribute of it, or None for the module itself), and installs the pair:

    __getattr__, __dir__ = lazy_attributes(__name__, globals(), _LAZY)

The first access imports the module and keeps the value in the package, so later ones are plain
attribute reads."""
import importlib


def lazy_attributes(package: str, namespace: dict, table: dict):
    """The module-level __getattr__ and __dir__ of `package` (whose globals are `namespace`)."""

    def __getattr__(name):
        if name not in table:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module, attr = table[name]
        value = importlib.import_module(module)
        value = value if attr is None else getattr(value, attr)
        namespace[name] = value
        return value

    def __dir__():
        return sorted(set(namespace) | set(table))

    return __getattr__, __dir__
