"""JAX's staged API: `f.lower(*args)` is a Lowered (the traced graph; on demand the optimized
IR, schedule, memory plan and kernels), `.compile()` a Compiled (callable on exactly that
signature; `.units` says what was compiled, `.save(path)` writes an AOT artifact)."""
from __future__ import annotations

import numpy as np

from .. import tree_util
from ..eager.jit_in_autograd import needs_record, record_call
from ..eager.tensor import Tensor
from ..trace.tracing import leaf_array, leaf_spec
from . import donation, module_state, pytree_roles
from ..compilation.compile_graph import compile_graph
from .compiled_units import CompiledUnits, units_of


def device_of(sig):
    for t, dev, weak in sig.leaves:
        if dev.type != "cpu":
            return dev
    return "cpu"


class Lowered:
    """f.lower(*args): the traced graph and, on demand, the optimized schedule and kernels."""

    def __init__(self, graph, out_tree, sig, name, donated=(), writes=(), exe=None):
        self.graph, self.out_tree, self.sig, self.name = graph, out_tree, sig, name
        self.donated = donated          # graph input indices (donate_argnums, as leaves)
        self.writes = writes            # argument leaves written back after a call (buffers)
        self._exe = exe                 # the jitted function's own, when it ran this signature

    @property
    def ir(self) -> str:
        return str(self.graph)

    def _executable(self):
        if self._exe is None:
            self._exe = compile_graph(self.graph, device_of(self.sig), self.donated)
        return self._exe

    @property
    def optimized_ir(self) -> str:
        return str(self._executable().optimized)

    @property
    def schedule(self):
        return self._executable().schedule

    @property
    def memory_plan(self):
        return self._executable().memory_plan

    @property
    def kernels(self) -> str:
        return self._executable().kernels

    def compile(self):
        return Compiled(self._executable(), self.out_tree, self.sig, self.name, self.writes,
                        self.donated)


class Compiled:
    """lowered.compile(): callable on exactly the lowered signature; `.units` says what was
    compiled."""

    def __init__(self, exe, out_tree, sig, name, writes=(), donated=()):
        self.exe, self.out_tree, self.sig, self.name = exe, out_tree, sig, name
        self.writes = writes
        self.donated = donated      # leaf indices (donate_argnums): see jitgrad/donation.py

    @property
    def units(self) -> CompiledUnits:
        """What was compiled, one read-only record per step of the schedule in call order:
        name (the code's hash), kind, target (cpu-llvm, cuda, host...), ops, shapes,
        source... (jitgrad/transforms/compiled_units.py). Prints as a table."""
        return units_of(self.exe)

    def occupied(self):
        """A context manager holding the executable as a call in progress holds it: a call
        made meanwhile runs on private tables and arena (tests of re-entrant calls). Not for
        a program with loops (`exclusive`): such calls wait, and one on this thread would hang."""
        run = self.exe.run
        if getattr(run, "exclusive", True) or not hasattr(run, "occupied"):
            raise RuntimeError(f"{self.name}: its calls wait for each other (or it has no "
                               "shared state); there is nothing to occupy")
        return run.occupied()

    def __call__(self, *args, **kwargs):
        leaves, tree = tree_util.tree_flatten((args, kwargs))
        specs = [leaf_spec(x) for x in leaves]
        if tree != self.sig.tree or [s[0] for s in specs] != [s[0] for s in self.sig.leaves]:
            raise TypeError(self._mismatch(specs, tree))
        if any(s[1].type == "meta" for s in specs):      # shapes only, as jit does on meta
            return tree_util.tree_unflatten(self.out_tree, [Tensor._meta(v.type)
                                                            for v in self.exe.graph.outputs])
        if not self.donated:
            return self._run(args, kwargs, leaves)
        seen = set()
        run_leaves, consumed = donation.prepare_leaves(leaves, self.donated, self.name, seen)
        donation.check_not_reused([x for k, x in enumerate(leaves) if k not in self.donated],
                                  seen, self.name)
        try:
            return self._run(args, kwargs, run_leaves)
        finally:
            donation.consume(consumed, self.name)

    def _run(self, args, kwargs, leaves):
        arrays = [leaf_array(x, s[0]) for x, s in zip(leaves, self.sig.leaves)]
        if self.donated and needs_record(leaves, self.exe.graph):   # backward reads the inputs
            for k in self.donated:
                arrays[k] = np.array(arrays[k], copy=True)
        outs = self.exe.run(arrays)
        outs = [Tensor._wrap(np.asarray(o)) for o in outs]
        if needs_record(leaves, self.exe.graph):
            record_call(self.exe.graph, leaves, outs)
        n = len(outs) - len(self.writes)
        module_state.write_back((args, kwargs), self.writes, outs[n:])
        return pytree_roles.as_jit_result(tree_util.tree_unflatten(self.out_tree, outs[:n]))

    def save(self, path, key=None) -> None:
        """Write an artifact that jg.load runs in another process without retracing, signed
        with `key` (or $JITGRAD_ARTIFACT_KEY) so that a loader holding it may use its code."""
        from ..aot.save_load import save  # lazy: the AOT layer loads when first used
        save(self, path, key)

    def _mismatch(self, specs, tree):
        lines = [f"{self.name} was compiled for other argument types:"]
        if tree != self.sig.tree:
            lines.append(f"  structure: expected {self.sig.tree}, got {tree}")
        for i in range(max(len(specs), len(self.sig.leaves))):
            exp = str(self.sig.leaves[i][0]) if i < len(self.sig.leaves) else "(none)"
            got = str(specs[i][0]) if i < len(specs) else "(missing)"
            mark = "" if exp == got else "   <-- differs"
            lines.append(f"  argument {i}: expected {exp}, got {got}{mark}")
        return "\n".join(lines)
