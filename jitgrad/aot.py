"""Saving a compiled function as an artifact and loading it elsewhere: `compiled.save(path)`,
`jg.load(path)`. The loaded function parses the carried optimized IR and hands it to the same
backend; with the carried kernel source and numba cache files installed in the cache directory,
the backend finds everything compiled already (same CPU and versions), else it recompiles from
the carried IR and says so once."""
from __future__ import annotations

import os
import platform

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
        "code_mtimes": code,
    }
    artifact.write(path, manifest, members)


def load(path):
    """jg.load(path) -> a callable running the saved compiled function."""
    manifest, members = artifact.read(path)
    return LoadedFunction(manifest, members, str(path))


class LoadedFunction:
    def __init__(self, manifest, members, path):
        from .compiler import Executable, backend_for
        from .ir.interpreter import interpret
        from .ir.types import parse_type
        self.manifest, self.path, self.name = manifest, path, manifest.get("name", "fn")
        try:
            consts = {n[len("constants/"):-len(".npy")]: artifact.load_array(d)
                      for n, d in members.items() if n.startswith("constants/")}
            graph = parse(members["graph.ir"].decode(), consts)
            optimized = parse(members["optimized.ir"].decode(), consts)
            self.in_types = [parse_type(s["type"]) for s in manifest["inputs"]]
            self.in_tree = artifact.treedef_from_json(manifest["input_tree"])
            self.out_tree = artifact.treedef_from_json(manifest["output_tree"])
        except ArtifactError:
            raise
        except (KeyError, ValueError, TypeError) as e:
            raise ArtifactError(f"{path}: the artifact's IR or manifest is invalid ({e})") from None
        same = all(manifest.get(k) == v for k, v in _versions().items())
        if not same:
            theirs = {k: manifest.get(k) for k in _versions()}
            print(f"[jitgrad] {path} was built for {theirs}; this machine has {_versions()}: "
                  "recompiling from the carried IR", flush=True)
        else:
            self._install_code(members, manifest.get("code_mtimes", {}))
        config.log(1, f"load {path}: {self.name} from carried IR (no trace)")
        backend = backend_for(manifest.get("backend", "interpreter"))
        self.exe = None
        if backend is not None:
            from .ir.passes.plan_memory import plan_memory
            self.exe = backend(graph, optimized, list(optimized.nodes), plan_memory(optimized))
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
        leaves, tree = tree_util.tree_flatten((args, {}))
        got = [leaf_spec(x)[0] for x in leaves]
        if tree != self.in_tree or got != self.in_types:
            lines = [f"{self.name} (loaded from {self.path}) takes other arguments:"]
            for i in range(max(len(got), len(self.in_types))):
                e = str(self.in_types[i]) if i < len(self.in_types) else "(none)"
                g = str(got[i]) if i < len(got) else "(missing)"
                lines.append(f"  argument {i}: expected {e}, got {g}" + ("" if e == g else "   <-- differs"))
            raise TypeError("\n".join(lines))
        outs = self.exe.run([leaf_array(x, t) for x, t in zip(leaves, self.in_types)])
        return tree_util.tree_unflatten(self.out_tree, [Tensor._wrap(np.asarray(o)) for o in outs])

    def __repr__(self):
        ins = ", ".join(s["type"] for s in self.manifest["inputs"])
        return f"<jitgrad compiled {self.name}({ins}) -> {', '.join(self.manifest['outputs'])}>"
