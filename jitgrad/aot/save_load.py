"""Saving a compiled function as an artifact and loading it elsewhere: `compiled.save(path,
key=None)`, `jg.load(path, key=None)`. The loaded function parses the carried optimized IR with
jitgrad's parser, checks it with the verifier and hands it to the same backend, which generates
its own kernel source from it.

Trust: the SHA-256 of every member catches a damaged artifact, not someone who also rewrites
the manifest. The IR and constants are read as data (no pickle), so a hostile IR can at worst
compute wrong numbers. The carried kernel objects (the LLVM units' machine code) are installed
into the kernel cache only when the artifact is signed (HMAC-SHA256 of the manifest) with the
loader's key (`key=` or $JITGRAD_ARTIFACT_KEY) and built for this machine's CPU and the versions
its backend's code depends on (`_versions`). Otherwise the loader says once why and compiles
from the IR (or finds the kernels in this machine's cache).

Argument structures: an artifact stores tuples, lists, dicts and None, not registered classes.
A model's parameters go in as a dict (`model.state_dict()`, or any dict of arrays), matched by
key at call time, so a plain dict loaded from an .npz file fits too."""
from __future__ import annotations

import os
import platform
import sys
from collections import OrderedDict
from importlib import metadata

import numpy as np

from .. import __version__, tree_util
from ..eager.jit_in_autograd import needs_record, record_call
from ..eager.tensor import Tensor
from ..ir import config, parse
from ..ir.errors import VerifyError
from ..ir.interpreter import interpret
from ..ir.passes.plan_memory import plan_memory
from ..ir.types import parse_type
from ..ir.verifier import verify
from ..runtime import cache
from ..trace.tracing import leaf_array, leaf_spec
from ..transforms import donation
from ..compilation.compile_graph import Executable, backend_for
from . import artifact
from .artifact import ArtifactError


# the distributions whose versions a backend's carried code depends on, beyond jitgrad's and
# the CPU's: the LLVM units' objects on llvmlite; CUDA kernels are compiled by numba-cuda
_CODE_DEPENDS = {"cpu": ("llvmlite",), "cuda": ("llvmlite", "numba", "numba-cuda")}


def _dist_version(name: str):
    try:
        return metadata.version(name)      # read from the installed metadata: nothing is imported
    except metadata.PackageNotFoundError:
        return None


def _versions(backend: str = "cpu") -> dict:
    """What must match for an artifact's carried code to run here. A CPU artifact's check
    imports llvmlite (which the LLVM units load anyway), never numba."""
    import llvmlite.binding as llvm  # lazy: LLVM loads with the first compile, not with jg.load

    return {"jitgrad": __version__, "cpu": llvm.get_host_cpu_name(),
            "machine": platform.machine(),
            **{d: _dist_version(d) for d in _CODE_DEPENDS.get(backend, ())}}


def _spec_json(spec):
    t, dev, weak = spec
    return {"type": str(t), "device": str(dev), "weak": bool(weak)}


def workspace_bytes(exe) -> int:
    """Bytes of scratch (the arena) one call of a compiled executable uses."""
    arena = getattr(getattr(exe, "run", None), "arena_bytes", None)
    plan = exe.memory_plan
    return int(arena if arena is not None else getattr(plan, "peak_bytes", 0) if plan else 0)


def save(compiled, path, key=None) -> None:
    """Write `compiled` (from jg.jit(f).lower(...).compile()) to the zip artifact at `path`,
    signed with `key` (or $JITGRAD_ARTIFACT_KEY) when there is one."""
    exe = compiled.exe
    members = {"graph.ir": str(exe.graph).encode(), "optimized.ir": str(exe.optimized).encode()}
    for g in (exe.graph, exe.optimized):
        for digest, arr in g.constants.items():
            members[f"constants/{digest}.npy"] = artifact.array_bytes(arr)
    code = {}
    root = cache.root()
    for p in getattr(exe, "cache_files", lambda: [])():
        rel = os.path.relpath(p, root)
        try:
            with open(p, "rb") as f:
                members["code/" + rel] = f.read()
            code[rel] = os.stat(p).st_mtime_ns
        except FileNotFoundError:
            continue        # compiled in memory (no usable cache): the artifact carries only IR
    manifest = {
        **_versions(exe.backend), "backend": exe.backend, "name": compiled.name,
        "inputs": [_spec_json(s) for s in compiled.sig.leaves],
        "input_tree": artifact.treedef_to_json(compiled.sig.tree),
        "output_tree": artifact.treedef_to_json(compiled.out_tree),
        "outputs": [str(v.type) for v in exe.graph.outputs],
        "donated": sorted(set(getattr(exe.memory_plan, "donated", {}).values())),
        "workspace_bytes": workspace_bytes(exe),
        "code_mtimes": code,
    }
    artifact.write(path, manifest, members, key)


def load(path, key=None):
    """jg.load(path) -> a callable running the saved compiled function. The machine code it
    carries is used only when it is signed with `key` (or $JITGRAD_ARTIFACT_KEY); see the
    module doc."""
    manifest, members, distrust = artifact.read(path, key)
    return LoadedFunction(manifest, members, str(path), distrust)


class LoadedFunction:
    def __init__(self, manifest, members, path, distrust=None):
        self.manifest, self.path, self.name = manifest, path, manifest.get("name", "fn")
        try:
            consts = {n[len("constants/"):-len(".npy")]: artifact.load_array(d)
                      for n, d in members.items() if n.startswith("constants/")}
            graph = verify(parse(members["graph.ir"].decode(), consts))
            optimized = verify(parse(members["optimized.ir"].decode(), consts))
            declared = [parse_type(s["type"]) for s in manifest["inputs"]]
            self.in_tree = artifact.treedef_from_json(manifest["input_tree"])
            self.out_tree = artifact.treedef_from_json(manifest["output_tree"])
            donated = tuple(int(i) for i in manifest.get("donated", []))
        except ArtifactError:
            raise
        except (KeyError, ValueError, TypeError, UnicodeDecodeError, VerifyError) as e:
            raise ArtifactError(f"{path}: the artifact's IR or manifest is invalid ({e})") from None
        # the compiled code trusts these types: they come from the IR, the manifest must agree
        self.in_types = [v.type for v in optimized.inputs]
        if (declared != self.in_types or [v.type for v in graph.inputs] != self.in_types
                or self.in_tree.num_leaves != len(self.in_types)
                or self.out_tree.num_leaves != len(optimized.outputs)):
            raise ArtifactError(f"{path}: the manifest's argument or result structure does not "
                                "match the carried IR")
        ours = _versions(manifest.get("backend", "cpu"))
        theirs = {k: manifest.get(k) for k in ours}
        code = {n[len("code/"):]: d for n, d in members.items() if n.startswith("code/")}
        if code and theirs != ours:
            print(f"[jitgrad] {path} was built for {theirs}; this machine has {ours}: "
                  "recompiling from the carried IR", file=sys.stderr, flush=True)
        elif code and distrust:
            print(f"[jitgrad] {path}: its machine code is not used because {distrust}; "
                  "compiling from the carried IR", file=sys.stderr, flush=True)
        elif code:
            self._install_code(code, manifest.get("code_mtimes", {}))
        config.log(1, f"load {path}: {self.name} from carried IR (no trace)")
        backend = backend_for(manifest.get("backend", "interpreter"))
        self.donated = donated      # leaf indices its code may overwrite (jitgrad/donation.py)
        self.exe = None
        if backend is not None:
            self.exe = backend(graph, optimized, list(optimized.nodes),
                               plan_memory(optimized, donated=donated))
        if self.exe is None:
            self.exe = Executable(graph, optimized, lambda arrays: interpret(optimized, arrays),
                                  list(optimized.nodes))

    def _install_code(self, code, mtimes):
        try:
            from ..codegen import disk_cache  # lazy: codegen loads on first compile
            disk_cache.install(code, mtimes if isinstance(mtimes, dict) else {})
        except ValueError as e:
            raise ArtifactError(f"{self.path}: {e}") from None

    def __call__(self, *args):
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
        run_leaves, consumed = leaves, []
        if self.donated:       # as jg.jit's donate_argnums: NumPy copied, tensors consumed
            seen = set()
            run_leaves, consumed = donation.prepare_leaves(leaves, self.donated, self.name, seen)
            donation.check_not_reused([x for k, x in enumerate(leaves) if k not in self.donated],
                                      seen, self.name)
        try:
            arrays = [leaf_array(x, t) for x, t in zip(run_leaves, self.in_types)]
            record = needs_record(leaves, self.exe.graph)
            if record:        # backward reads the inputs as they were
                for k in self.donated:
                    arrays[k] = np.array(arrays[k], copy=True)
            outs = [Tensor._wrap(np.asarray(o)) for o in self.exe.run(arrays)]
            if record:   # eager autograd: backward is the carried graph's VJP, as for jg.jit
                record_call(self.exe.graph, leaves, outs)
        finally:
            donation.consume(consumed, self.name)
        return tree_util.tree_unflatten(self.out_tree, outs)

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
