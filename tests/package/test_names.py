"""Names a newcomer can follow: a class name (or one of the module-level function names that
once had two meanings) means one thing in the whole package, and a file name shared by several
modules sits in folders that say what each is for."""
import ast
from collections import defaultdict

from tests.support import import_graph

# module-level functions that were defined in two files with two meanings (issue 15)
ONCE = {"collapse", "copy_into"}
# file names allowed in more than one folder: the folder says what each one is for
# (front end vs runtime/ir/codegen, ir/autodiff vs ir/batching, jitgrad.numpy vs ir/autodiff,
# codegen's targets: cpu/ vs cuda/ vs kernel/ (the shared part), ir/lowp.py vs codegen/cuda/lowp.py)
SHARED_FILE_NAMES = {"__init__.py", "control.py", "rules.py", "emitter.py", "transform.py",
                     "linalg.py", "functional.py", "creation.py", "config.py", "errors.py",
                     "reductions.py", "elementwise.py", "backend.py", "loops.py",
                     "exprs.py", "lowp.py",
                     # one generator per kernel kind: codegen/cpu/kernels/ vs codegen/cuda/fused/
                     "matmul.py", "reduce.py", "rowwise.py",
                     # the public module paths jax.example_libraries.optimizers (next to
                     # jitgrad/optim's torch optimizers); draws (random/) vs densities
                     # (scipy/stats/) of continuous and discrete distributions
                     "optimizers.py", "continuous.py", "discrete.py",
                     # torch.nn.utils.rnn's module path (nn/utils/) next to the nn/ layers
                     "rnn.py"}


def _definitions():
    classes, functions = defaultdict(list), defaultdict(list)
    for name, path in import_graph.modules().items():
        tree = ast.parse(path.read_text(), str(path))
        rel = path.relative_to(import_graph.REPO).as_posix()
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                classes[node.name].append(f"{rel}:{node.lineno}")
        for node in tree.body:
            if isinstance(node, ast.FunctionDef):
                functions[node.name].append(f"{rel}:{node.lineno}")
    return classes, functions


def test_no_two_classes_share_a_name():
    classes, _ = _definitions()
    twice = {name: where for name, where in classes.items() if len(where) > 1}
    assert not twice, "classes with one name in several places (rename the less central one):\n" \
        + "\n".join(f"{name}: {', '.join(where)}" for name, where in sorted(twice.items()))


def test_functions_that_had_two_meanings_have_one():
    _, functions = _definitions()
    twice = {name: functions[name] for name in ONCE if len(functions[name]) > 1}
    assert not twice, twice


def test_a_file_name_in_several_folders_is_a_known_one():
    where = defaultdict(list)
    for path in import_graph.modules().values():
        where[path.name].append(path.relative_to(import_graph.REPO).as_posix())
    shared = {name: paths for name, paths in where.items() if len(paths) > 1}
    unknown = {name: paths for name, paths in shared.items() if name not in SHARED_FILE_NAMES}
    assert not unknown, f"new file names used in several folders: {unknown}; name each file " \
                        "for what it holds, or add it to SHARED_FILE_NAMES if its folder says it"
    assert not SHARED_FILE_NAMES - set(shared), \
        f"{sorted(SHARED_FILE_NAMES - set(shared))} are no longer shared: drop them from the list"
    assert "ir/control.py" not in where["control.py"]
