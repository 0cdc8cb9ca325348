"""The layer rule (README, Layout), read from the source with `ast` (imports at module level and
inside functions alike): ir/ imports only numpy, runtime/ only ir, codegen/ only ir and runtime;
the front end has no import cycle at import time; `import jitgrad` leaves the lazy parts
(cuda, data, aot, the CLI, codegen) unloaded."""
import subprocess
import sys

import pytest

from tests.support import import_graph

# layer -> (the package's layers it may import, third-party packages it may import)
LAYERS = {
    "jitgrad.ir": ({"jitgrad.ir"}, {"numpy", "ml_dtypes"}),      # ml_dtypes: NumPy's bfloat16
    "jitgrad.runtime": ({"jitgrad.ir", "jitgrad.runtime"}, {"numpy", "numba", "llvmlite"}),
    "jitgrad.codegen": ({"jitgrad.ir", "jitgrad.runtime", "jitgrad.codegen"},
                        {"numpy", "numba", "llvmlite", "scipy"}),
}
# (file, import) allowed beyond the table, each with its reason
EXCEPTIONS = {
    ("ir/reference.py", "scipy.special"): "erf for the reference interpreter, imported on first "
                                          "use with a NumPy fallback",
}


def _layer(module):
    return next((layer for layer in LAYERS if module == layer or module.startswith(layer + ".")),
                None)


def violations(modules, root=import_graph.REPO):
    """'file:line imports X (layer may import ...)' for every import that breaks the rule (files
    named relative to `root`)."""
    found = []
    for name, path in modules.items():
        layer = _layer(name)
        if layer is None:
            continue
        internal, third_party = LAYERS[layer]
        rel = path.relative_to(root).as_posix()
        for target, line in import_graph.imported_names(name, path, False, modules):
            top = target.split(".")[0]
            if top in sys.stdlib_module_names or (rel, target) in EXCEPTIONS:
                continue
            ok = (any(target == p or target.startswith(p + ".") for p in internal)
                  if top == "jitgrad" else top in third_party)
            if not ok:
                found.append(f"{rel}:{line} imports {target} ({layer} may import "
                             f"{', '.join(sorted(internal | third_party))} and the stdlib)")
    return found


def test_ir_runtime_codegen_import_only_the_layers_below():
    found = violations(import_graph.modules())
    assert not found, "layer rule broken:\n" + "\n".join(found)


# The front end (jitgrad/), bottom to top: layer -> its folders and top-level modules. A layer
# imports itself and the layers above it in this list (and ir/runtime/codegen), never one below,
# not even inside a function: an upper layer that a lower one needs registers itself into a
# table of the lower one when it is imported (Tensor methods, vmap for jnp.vectorize, ...).
FRONT_END = {
    "base": ("errors", "dtypes", "promotion_lattice", "config", "tree_util", "lazy_import",
             "cuda", "accelerator", "backends"),        # dtypes, errors, pytrees, device queries
    "compilation": ("compilation",),                    # a traced graph -> an executable
    "core": ("eager", "trace"),                         # Tensor, dispatch, autograd, tracing
    "numpy": ("numpy",),                                # jnp: the array functions
    "transforms": ("transforms", "profiler"),           # jit, grad, vmap, control flow
    "lax": ("lax",),                                    # written on jnp and the transforms
    "scipy": ("scipy",),
    "random": ("random",),
    "distributed": ("distributed",),                    # collectives over MPI, on any pytree
    "nn": ("nn",),                                      # nn.parallel runs on the collectives
    "optim": ("optim", "example_libraries"),
    "torch_api": ("torch_api", "test_util", "autograd", "linalg"),  # torch's Tensor methods,
    #                                              functions, torch.autograd and torch.linalg
    "package": ("__init__", "lazy_names"),              # `import jitgrad`: what it loads is below
    "entry_points": ("data", "utils", "aot", "cli",     # loaded on first use, or run on their own
                     "serialization", "distributions"),
}
FRONT_ORDER = list(FRONT_END)
# (file, import) of a lower front-end layer allowed to load an upper one, each with its reason
FRONT_EXCEPTIONS = {
    ("jitgrad/transforms/staged.py", "jitgrad.aot.save_load"):
        "Compiled.save (as jax's compiled.serialize) writes an AOT artifact: the AOT layer, kept "
        "out of `import jitgrad`, loads on the first save",
    ("jitgrad/cuda.py", "jitgrad.eager.global_rng"):
        "torch.cuda.manual_seed(_all) seeds the one default generator every device draws from "
        "(a NumPy stream; jg.cuda loads on first use)",
}
# layer -> the front-end layers it may import
MAY_IMPORT = {layer: set(FRONT_ORDER[:i + 1]) for i, layer in enumerate(FRONT_ORDER)}


def front_layer(module):
    """The front-end layer of a jitgrad module (None for ir/runtime/codegen)."""
    parts = module.split(".")
    if parts[0] != "jitgrad" or _layer(module) is not None:
        return None
    name = parts[1] if len(parts) > 1 else "__init__"
    return next(layer for layer, members in FRONT_END.items() if name in members)


def front_violations(modules, root=import_graph.REPO):
    """'file:line imports X (a <layer> module)' for every front-end import of a higher layer
    (files named relative to `root`)."""
    found = []
    for name, path in modules.items():
        layer = front_layer(name)
        if layer is None:
            continue
        for target, line in import_graph.imported_names(name, path, False, modules):
            other = front_layer(target) if target in modules else None
            rel = path.relative_to(root).as_posix()
            if other is not None and other not in MAY_IMPORT[layer] and \
                    (rel, target) not in FRONT_EXCEPTIONS:
                found.append(f"{rel}:{line} imports {target} (the {layer} layer imports "
                             f"{', '.join(FRONT_ORDER[:FRONT_ORDER.index(layer) + 1])}; "
                             f"{target} is {other})")
    return found


def test_front_end_layers_import_only_the_layers_below():
    found = front_violations(import_graph.modules())
    assert not found, "front-end layer rule broken:\n" + "\n".join(found)


def test_every_front_end_exception_is_still_needed():
    modules = import_graph.modules()
    for rel, target in FRONT_EXCEPTIONS:
        path = import_graph.REPO / rel
        name = next(n for n, p in modules.items() if p == path)
        assert target in [t for t, _ in import_graph.imported_names(name, path, False, modules)], \
            f"{rel} no longer imports {target}: drop it from FRONT_EXCEPTIONS"


def test_the_front_end_checker_reports_an_upward_import(tmp_path):
    (tmp_path / "numpy").mkdir()
    (tmp_path / "numpy" / "bad.py").write_text(
        "from ..eager import tensor\n\n\ndef f():\n    from ..nn import functional\n")
    (tmp_path / "e.py").write_text("")
    (tmp_path / "f.py").write_text("")
    known = {"jitgrad.numpy.bad": tmp_path / "numpy" / "bad.py",
             "jitgrad.eager.tensor": tmp_path / "e.py", "jitgrad.nn.functional": tmp_path / "f.py"}
    assert front_violations(known, tmp_path) == [
        "numpy/bad.py:5 imports jitgrad.nn.functional (the numpy layer imports base, "
        "compilation, core, numpy; jitgrad.nn.functional is nn)"]


def test_every_front_end_module_has_a_layer():
    for name in import_graph.modules():
        assert name.startswith(("jitgrad.ir", "jitgrad.runtime", "jitgrad.codegen")) or \
            front_layer(name) in FRONT_END, name


def test_every_exception_is_still_needed():
    modules = import_graph.modules()
    by_file = {p.relative_to(import_graph.REPO).as_posix(): (n, p) for n, p in modules.items()}
    for rel, target in EXCEPTIONS:
        name, path = by_file[rel]
        assert target in [t for t, _ in import_graph.imported_names(name, path, False, modules)], \
            f"{rel} no longer imports {target}: drop it from EXCEPTIONS"


def test_the_checker_reports_a_lazy_import_of_the_front_end(tmp_path):
    (tmp_path / "ir").mkdir()
    (tmp_path / "ir" / "bad.py").write_text(
        "import numpy\n\n\ndef f():\n    from ..runtime import config\n    import scipy\n")
    found = violations({"jitgrad.ir.bad": tmp_path / "ir" / "bad.py"}, tmp_path)
    assert found == [
        "ir/bad.py:5 imports jitgrad.runtime (jitgrad.ir may import jitgrad.ir, ml_dtypes, numpy "
        "and the stdlib)",
        "ir/bad.py:6 imports scipy (jitgrad.ir may import jitgrad.ir, ml_dtypes, numpy and the "
        "stdlib)"]


def test_no_import_cycle_at_import_time():
    found = import_graph.cycles(import_graph.graph(module_level=True))
    assert not found, "modules importing each other at import time:\n" + "\n".join(
        " <-> ".join(c) for c in found)


def test_the_cycle_finder_finds_cycles():
    g = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a", "e"}, "e": {"d"}, "f": set()}
    assert sorted(import_graph.cycles(g)) == [["a", "b", "c"], ["d", "e"]]


@pytest.mark.parametrize("module", ["jitgrad.cuda", "jitgrad.data", "jitgrad.aot", "jitgrad.cli",
                                    "jitgrad.cli.aot_command", "jitgrad.codegen", "numba",
                                    "jitgrad.optim", "jitgrad.scipy", "jitgrad.example_libraries",
                                    "jitgrad.utils", "jitgrad.accelerator", "jitgrad.test_util",
                                    "scipy", "ml_dtypes", "jitgrad.nn", "jitgrad.torch_api",
                                    "jitgrad.lax", "jitgrad.random", "jitgrad.distributed",
                                    "jitgrad.ir.passes.manager"])
def test_import_jitgrad_leaves_lazy_parts_unloaded(module, lazy_check):
    assert module not in lazy_check, f"`import jitgrad` imported {module}"


@pytest.fixture(scope="module")
def lazy_check():
    out = subprocess.run([sys.executable, "-c", "import sys, jitgrad; print(*sys.modules)"],
                         capture_output=True, text=True, check=True)
    return set(out.stdout.split())


def test_lazy_attributes_load_on_first_use():
    code = ("import sys, jitgrad as jg; assert 'jitgrad.aot' not in sys.modules; "
            "print(jg.load.__module__, jg.data.__name__, jg.cuda.__name__, "
            "jg.test_util.check_grads.__module__, 'test_util' in dir(jg))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.split() == ["jitgrad.serialization", "jitgrad.data", "jitgrad.cuda",
                                  "jitgrad.test_util", "True"], out.stderr
    out = subprocess.run([sys.executable, "-c", "import jitgrad as jg; jg.lod"],
                         capture_output=True, text=True)
    assert "AttributeError: module 'jitgrad' has no attribute 'lod'" in out.stderr


def test_lazy_namespaces_and_methods_work_from_a_fresh_import():
    """jg.nn, the torch API's functions and Tensor methods, lax, random: loaded on first use, as
    if `import jitgrad` had loaded them (jitgrad/__init__.py, eager/lazy_methods.py)."""
    code = (
        "import sys, jitgrad as jg\n"
        "def loaded(): return 'jitgrad.nn' in sys.modules, 'jitgrad.torch_api' in sys.modules\n"
        "x = jg.tensor([1.0, -2.0])\n"
        "print(hasattr(jg.Tensor, 'relu'), 'cat' in dir(jg), 'nn' in dir(jg), *loaded())\n"
        "print(x.relu().tolist(), *loaded())\n"
        "print(x.view(2, 1).shape, x.softmax(0).argmax().item(), *loaded())\n"
        "y = jg.zeros(2); y.add_(1); print(y.tolist(), jg.cat([x, x]).shape, jg.Size([2]))\n"
        "from jitgrad import nn; import jitgrad.lax as lax\n"
        "print(nn.Linear(2, 3)(x).shape, float(lax.logistic(0.0)), jg.random.PRNGKey(0).shape)\n"
        "print(jg.jit(lambda a: a.relu().view(1, 2).sum())(x).item())\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.split("\n")[:6] == [
        "True True True True False", "[1.0, 0.0] True False", "(2, 1) 0 True True",
        "[1.0, 1.0] (4,) jitgrad.Size([2])", "(3,) 0.5 (2,)", "1.0"], out.stdout + out.stderr


def test_importing_a_lazy_namespace_directly_settles_its_methods():
    code = ("import jitgrad.torch_api, jitgrad as jg\n"
            "from jitgrad.trace.tracer import Tracer\n"
            "x = jg.tensor([-1.0, 2.0]); x.abs_()\n"
            "print(x.tolist(), type(jg.Tensor.__dict__['abs_']).__name__, Tracer.abs_.__name__)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.split() == ["[1.0,", "2.0]", "function", "abs_"], out.stdout + out.stderr


def test_the_lazy_names_are_current():
    """jitgrad/lazy_names.py lists what nn.functional and the torch API install (regenerate with
    `python -m jitgrad.lazy_names`)."""
    import jitgrad.lazy_names as names
    for table, value in names.current().items():
        assert getattr(names, table) == value, f"{table} is stale: python -m jitgrad.lazy_names"


# the base of eager Tensors and traced values: jitgrad.numpy and nn install their operators and
# methods on it (array_base.register_methods), so it imports neither, not even inside a function
ARRAY_BASE = ("jitgrad.eager.array_base", "jitgrad.eager.dispatch", "jitgrad.eager.tensor",
              "jitgrad.trace.tracer", "jitgrad.trace.trace_stack", "jitgrad.trace.tracing",
              "jitgrad.eager.autograd_record", "jitgrad.eager.backward", "jitgrad.eager.device_memory",
              "jitgrad.eager.from_dlpack")


def test_the_array_base_imports_neither_jnp_nor_nn():
    modules = import_graph.modules()
    found = [f"{name}:{line} imports {target}" for name in ARRAY_BASE
             for target, line in import_graph.imported_names(name, modules[name], False, modules)
             if target.startswith(("jitgrad.numpy", "jitgrad.nn"))]
    assert not found, "\n".join(found)


def test_methods_are_installed_on_tensors_and_traced_values():
    import jitgrad as jg
    import jitgrad.numpy as jnp
    from jitgrad.trace.tracer import Tracer
    for cls in (jg.Tensor, Tracer):
        for name in ("__add__", "__rmatmul__", "__getitem__", "sum", "reshape", "T", "exp",
                     "maximum", "relu", "softmax", "astype", "at", "__array_namespace__"):
            assert hasattr(cls, name), (cls.__name__, name)
    assert hasattr(jg.Tensor, "__iadd__") and not hasattr(Tracer, "__iadd__")
    assert "numpy.exp" in jg.Tensor.exp.__doc__
    x = jnp.arange(6.0).reshape(2, 3)
    assert float(jg.jit(lambda a: (a.T @ a).relu().sum())(x)) == float(((x.T @ x).relu()).sum())


# ----------------------------------------------------------------------------- issue 29's rules

def test_no_import_cycle_counting_function_level_imports():
    """The modules form a DAG even when imports inside functions are counted: no module needs a
    function-level import to break a circle."""
    found = import_graph.cycles(import_graph.graph(module_level=False))
    assert not found, "modules importing each other (function-level imports counted):\n" + \
        "\n".join(" <-> ".join(c) for c in found)


def test_no_private_name_crosses_a_module_boundary():
    """What another module needs is public in its owner: no `from m import _x`, no `m._x`."""
    modules = import_graph.modules()
    found = [f"{name}:{line} takes {what}" for name, path in modules.items()
             for line, what in import_graph.private_imports(name, path, modules)]
    assert not found, "\n".join(found)


def _says_why(lines, line):
    """A function-level import is allowed when it loads something lazily on purpose and says so:
    `# lazy: <reason>` on its line or on the first line of the run of imports it belongs to."""
    i = line - 1
    while True:
        if "lazy:" in lines[i]:
            return True
        prev = lines[i - 1].strip() if i > 0 else ""
        if not prev.startswith(("import ", "from ")):
            return False
        i -= 1


def test_every_function_level_import_says_why_it_is_lazy():
    found = []
    for name, path in import_graph.modules().items():
        lines = path.read_text().split("\n")
        found += [f"{path.relative_to(import_graph.REPO)}:{line}: {text.strip()}"
                  for line, text in import_graph.function_level_imports(name, path)
                  if not _says_why(lines, line)]
    assert not found, "imports inside functions without a `# lazy: <reason>`:\n" + "\n".join(found)


def test_the_private_import_finder_finds_both_spellings(tmp_path):
    (tmp_path / "jitgrad").mkdir()
    (tmp_path / "jitgrad" / "a.py").write_text("_x = 1\n")
    (tmp_path / "jitgrad" / "b.py").write_text(
        "from .a import _x\nfrom . import a\nfrom . import a as aa\n\n\ndef f():\n"
        "    return a._x + aa._x + a.__name__\n")
    known = {"jitgrad.a": tmp_path / "jitgrad" / "a.py", "jitgrad.b": tmp_path / "jitgrad" / "b.py"}
    assert import_graph.private_imports("jitgrad.b", known["jitgrad.b"], known) == [
        (1, "jitgrad.a._x"), (7, "jitgrad.a._x")]



def test_only_the_option_store_reads_jitgrad_environment_variables():
    """Every JITGRAD_* setting is read through ir/config.py (jg.config's store), nowhere else."""
    found = []
    for name, path in import_graph.modules().items():
        if name == "jitgrad.ir.config":
            continue
        for k, line in enumerate(path.read_text().split("\n"), 1):
            if ("os.environ" in line or "getenv" in line) and "JITGRAD_" in line:
                found.append(f"{path.relative_to(import_graph.REPO)}:{k}: {line.strip()}")
    assert not found, "JITGRAD_* read outside ir/config.py:\n" + "\n".join(found)
