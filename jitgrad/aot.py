"""Saving a compiled function as an artifact and loading it elsewhere: `compiled.save(path)`,
`jg.load(path)`. The loaded function parses the carried optimized IR and hands it to the same
backend; with the carried kernel source and numba cache files installed in the cache directory,
the backend finds everything compiled already (same CPU and versions), else it recompiles from
the carried IR and says so once.

Trust: the SHA-256 of every member catches a damaged or edited artifact, not someone who also
rewrites the manifest. The IR and constants are parsed as data; the carried numba cache files
are machine code plus numba's own pickles, so `jg.load(path, trusted=False)` ignores them and
compiles from the IR (only jitgrad's generated source runs) for an artifact of unknown origin.

Argument structures: an artifact stores tuples, lists, dicts and None, not registered classes.
A model's parameters go in as a dict (`model.state_dict()`, or any dict of arrays), matched by
key at call time, so a plain dict loaded from an .npz file fits too."""
from __future__ import annotations

import os
import platform
import sys
from collections import OrderedDict

import numpy as np

from . import artifact, tree_util
from .artifact import ArtifactError
from .ir import parse
from .runtime import config


def _versions() -> dict:
    import llvmlite
    import llvmlite.binding as llvm
    import numba

    import jitgrad
    return {"jitgrad": jitgrad.__version__, "numba": numba.__version__,
            "llvmlite": llvmlite.__version__, "cpu": llvm.get_host_cpu_name(),
            "machine": platform.machine()}


def _spec_json(spec):
    t, dev, weak = spec
    return {"type": str(t), "device": str(dev), "weak": bool(weak)}


def workspace_bytes(exe) -> int:
    """Bytes of scratch (the arena) one call of a compiled executable uses."""
    arena = getattr(getattr(exe, "run", None), "arena_bytes", None)
    plan = exe.memory_plan
    return int(arena if arena is not None else getattr(plan, "peak_bytes", 0) if plan else 0)


def save(compiled, path) -> None:
    """Write `compiled` (from jg.jit(f).lower(...).compile()) to the zip artifact at `path`."""
    exe = compiled.exe
    members = {"graph.ir": str(exe.graph).encode(), "optimized.ir": str(exe.optimized).encode()}
    for g in (exe.graph, exe.optimized):
        for digest, arr in g.constants.items():
            members[f"constants/{digest}.npy"] = artifact.array_bytes(arr)
    code = {}
    root = config.cache_dir()
    for p in getattr(exe, "cache_files", lambda: [])():
        rel = os.path.relpath(p, root)
        with open(p, "rb") as f:
            members["code/" + rel] = f.read()
        code[rel] = os.stat(p).st_mtime_ns
    manifest = {
        **_versions(), "backend": exe.backend, "name": compiled.name,
        "inputs": [_spec_json(s) for s in compiled.sig.leaves],
        "input_tree": artifact.treedef_to_json(compiled.sig.tree),
        "output_tree": artifact.treedef_to_json(compiled.out_tree),
        "outputs": [str(v.type) for v in exe.graph.outputs],
        "donated": sorted(set(getattr(exe.memory_plan, "donated", {}).values())),
        "workspace_bytes": workspace_bytes(exe),
        "code_mtimes": code,
    }
    artifact.write(path, manifest, members)


def load(path, trusted=True):
    """jg.load(path) -> a callable running the saved compiled function. trusted=False ignores
    the machine code the artifact carries and compiles from its IR (see the module doc)."""
    manifest, members = artifact.read(path)
    return LoadedFunction(manifest, members, str(path), trusted)


class LoadedFunction:
    def __init__(self, manifest, members, path, trusted=True):
        from .compiler import Executable, backend_for
        from .ir.interpreter import interpret
        from .ir.types import parse_type
        self.manifest, self.path, self.name = manifest, path, manifest.get("name", "fn")
        try:
            consts = {n[len("constants/"):-len(".npy")]: artifact.load_array(d)
                      for n, d in members.items() if n.startswith("constants/")}
            graph = parse(members["graph.ir"].decode(), consts)
            optimized = parse(members["optimized.ir"].decode(), consts)
            declared = [parse_type(s["type"]) for s in manifest["inputs"]]
            self.in_tree = artifact.treedef_from_json(manifest["input_tree"])
            self.out_tree = artifact.treedef_from_json(manifest["output_tree"])
            donated = tuple(int(i) for i in manifest.get("donated", []))
        except ArtifactError:
            raise
        except (KeyError, ValueError, TypeError) as e:
            raise ArtifactError(f"{path}: the artifact's IR or manifest is invalid ({e})") from None
        # the compiled code trusts these types: they come from the IR, the manifest must agree
        self.in_types = [v.type for v in optimized.inputs]
        if (declared != self.in_types or [v.type for v in graph.inputs] != self.in_types
                or self.in_tree.num_leaves != len(self.in_types)
                or self.out_tree.num_leaves != len(optimized.outputs)):
            raise ArtifactError(f"{path}: the manifest's argument or result structure does not "
                                "match the carried IR")
        ours = _versions()
        theirs = {k: manifest.get(k) for k in ours}
        if theirs != ours:
            print(f"[jitgrad] {path} was built for {theirs}; this machine has {ours}: "
                  "recompiling from the carried IR", file=sys.stderr, flush=True)
        elif trusted:
            self._install_code(members, manifest.get("code_mtimes", {}))
        config.log(1, f"load {path}: {self.name} from carried IR (no trace)")
        backend = backend_for(manifest.get("backend", "interpreter"))
        self.exe = None
        if backend is not None:
            from .ir.passes.plan_memory import plan_memory
            self.exe = backend(graph, optimized, list(optimized.nodes),
                               plan_memory(optimized, donated=donated))
        if self.exe is None:
            self.exe = Executable(graph, optimized, lambda arrays: interpret(optimized, arrays),
                                  list(optimized.nodes))

    def _install_code(self, members, mtimes):
        root = config.cache_dir()
        for name, data in members.items():
            if not name.startswith("code/"):
                continue
            rel = name[len("code/"):]
            dest = os.path.normpath(os.path.join(root, rel))
            if not dest.startswith(os.path.normpath(root) + os.sep):
                raise ArtifactError(f"{self.path}: member {name} points outside the cache directory")
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            if not os.path.exists(dest) or open(dest, "rb").read() != data:
                tmp = dest + ".tmp-load"
                with open(tmp, "wb") as f:
                    f.write(data)
                os.replace(tmp, dest)
            if rel in mtimes:      # numba's cache index checks the source file's timestamp
                os.utime(dest, ns=(mtimes[rel], mtimes[rel]))

    def __call__(self, *args):
        from .tensor import Tensor
        from .tracing import leaf_array, leaf_spec
        leaves = _leaves_like((args, {}), self.in_tree)
        if leaves is None:
            raise TypeError(f"{self.name} (loaded from {self.path}) takes arguments structured as "
                            f"{_describe(self.in_tree.children[0])}, got "
                            f"{_describe(tree_util.tree_structure(args))}")
        got = [leaf_spec(x)[0] for x in leaves]
        if got != self.in_types:
            lines = [f"{self.name} (loaded from {self.path}) takes other arguments:"]
            names = self.exe.graph.arg_names or []
            for i in range(max(len(got), len(self.in_types))):
                e = str(self.in_types[i]) if i < len(self.in_types) else "(none)"
                g = str(got[i]) if i < len(got) else "(missing)"
                label = f"argument {i}" + (f" ({names[i]})" if i < len(names) else "")
                lines.append(f"  {label}: expected {e}, got {g}" + ("" if e == g else "   <-- differs"))
            raise TypeError("\n".join(lines))
        outs = self.exe.run([leaf_array(x, t) for x, t in zip(leaves, self.in_types)])
        return tree_util.tree_unflatten(self.out_tree, [Tensor._wrap(np.asarray(o)) for o in outs])

    def signature(self) -> str:
        names = self.exe.graph.arg_names or [f"in{i}" for i in range(len(self.in_types))]
        ins = ", ".join(f"{n}: {t}" for n, t in zip(names, self.in_types))
        return f"{self.name}({ins}) -> ({', '.join(self.manifest['outputs'])})"

    def __repr__(self):
        return f"<jitgrad compiled {self.signature()} from {self.path}>"


def _leaves_like(tree, td):
    """tree's leaves in the order of structure td, dicts matched by key (a dict and an
    OrderedDict with the same keys fit each other); None when the structure differs."""
    if td.kind is None:
        return [tree]
    if td.kind in (dict, OrderedDict):
        if not isinstance(tree, dict) or set(tree) != set(td.aux):
            return None
        parts = [_leaves_like(tree[k], c) for k, c in zip(td.aux, td.children)]
    elif td.kind in (tuple, list):
        if type(tree) not in (tuple, list) or len(tree) != len(td.children):
            return None
        parts = [_leaves_like(x, c) for x, c in zip(tree, td.children)]
    else:
        return [] if tree is None else None
    return None if any(p is None for p in parts) else [x for p in parts for x in p]


def _describe(td) -> str:
    if td.kind is None:
        return "an array"
    if td.kind in (dict, OrderedDict):
        return "{" + ", ".join(f"{k!r}: {_describe(c)}" for k, c in zip(td.aux, td.children)) + "}"
    if td.kind in (tuple, list):
        return "(" + ", ".join(_describe(c) for c in td.children) + ")"
    return "None" if td.kind is type(None) else td.kind.__name__
