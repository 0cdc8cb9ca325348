"""What a jitted function compiled to, as read-only records: `compiled.units`.

    compiled = jg.jit(f).lower(*args).compile()     # after f(*args): the executable calls use
    compiled.units                                  # a table when printed
    compiled.units[0].name, .kind, .target, .ops, .shapes, .where, .source, .assembly()

One `CompiledUnit` per step of the schedule, in the order a call runs them: each compiled kernel
(a unit: a CPU LLVM unit or a CUDA kernel), each control-flow kernel (its sub-graphs' units
under `.units`), and each step that runs on the host instead (random numbers, complex values;
`target="host"`, no source). The backends build these objects (codegen/cpu/backend.py,
codegen/cuda/backend.py); this module only reads what they already keep for the profiler and the
artifacts.
"""
from __future__ import annotations

from ..profiler import kernel_info

__all__ = ["CompiledUnit", "CompiledUnits", "units_of"]

# the control-flow ops a loop / branch kernel wraps (ir/control_flow.py), by name
_LOOP_OPS = {"scan": "loop", "while_loop": "loop", "cond": "branch", "switch": "branch"}


class CompiledUnit:
    """One compiled unit of a schedule (read-only).

    name     canonical name: the hash of its code ("jg_llvm_<24 hex>" an LLVM unit,
             "k_<16 hex>" a CUDA kernel; identical kernels of any function share it); "jg_loop" / "jg_branch" a CPU control-flow kernel; a host
             step's is its label
    label    the name jg.profiler's table gives its row (its ops, "exp+mul")
    kind     elementwise | rowwise | reduce | matmul | opaque | ... (the fusion kind), or
             loop (scan, while_loop) | branch (cond, switch)
    target   cpu-llvm | cuda | cuda-eager (op by op) | host (NumPy reference)
    ops      the ops of its body, in order, each once (constants left out)
    shapes   its input shapes, as the profiler prints them ("[8,16]x[16]")
    where    the user's source line(s) it comes from
    units    a control-flow kernel's sub-graphs' units (body, then condition / each branch)
    files    its cache files on disk (what an artifact carries)
    source   the generated code: LLVM IR (cpu-llvm), Python source (numba.cuda, for cuda), the
             sub-graphs' code (loops); None on the host. Built on first read for a
             unit loaded from the disk cache.
    """
    __slots__ = ("name", "label", "kind", "target", "ops", "shapes", "where", "units", "files",
                 "_source", "_assembly")

    def __init__(self, name, label, kind, target, ops, shapes, where, units=(), files=(),
                 source=None, assembly=None):
        for k, v in (("name", name), ("label", label), ("kind", kind), ("target", target),
                     ("ops", tuple(ops)), ("shapes", shapes), ("where", where),
                     ("units", CompiledUnits(units)), ("files", tuple(files)),
                     ("_source", source), ("_assembly", assembly)):
            object.__setattr__(self, k, v)

    def __setattr__(self, name, value):
        raise AttributeError(f"CompiledUnit is read-only (cannot set {name!r})")

    @property
    def source(self) -> str | None:
        s = self._source
        return s() if callable(s) else s

    def assembly(self) -> str | None:
        """Its machine code as text, where the backend can give it (compiled on demand for an
        LLVM unit): x86/ARM assembly on the CPU, PTX on a real GPU; else None."""
        try:
            return self._assembly() if self._assembly is not None else None
        except Exception:       # the simulator has no PTX; a dropped numba module no code
            return None

    def __repr__(self):
        sub = f", units={len(self.units)}" if self.units else ""
        return (f"CompiledUnit(name={self.name!r}, kind={self.kind!r}, target={self.target!r}, "
                f"ops={'+'.join(self.ops)!r}, shapes={self.shapes!r}{sub})")


class CompiledUnits(tuple):
    """A tuple of CompiledUnit that prints as a table (a loop's sub-units indented under it)."""

    def __repr__(self):
        rows = [("#", "name", "kind", "target", "ops", "shapes", "where")]

        def add(units, prefix, depth):
            for i, u in enumerate(units):
                ops = "+".join(u.ops)
                rows.append((f"{prefix}{i}", "  " * depth + u.name, u.kind, u.target,
                             ops if len(ops) <= 28 else ops[:27] + "…", u.shapes
                             if len(u.shapes) <= 28 else u.shapes[:27] + "…", u.where))
                add(u.units, f"{prefix}{i}.", depth + 1)
        add(self, "", 0)
        widths = [max(len(r[c]) for r in rows) for c in range(len(rows[0]))]
        return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows)

    __str__ = __repr__


def _described(node, name, target, units=(), files=(), source=None, assembly=None, kind=None):
    info = kernel_info(node)
    body = node.params.get("body")
    nodes = body.nodes if body is not None else ()
    ops = tuple(dict.fromkeys(n.op.value for n in nodes if n.op.value != "constant"))
    control = _LOOP_OPS.get(ops[0]) if len(ops) == 1 else None
    return CompiledUnit(name, info.name, kind or control or info.kind, target, ops, info.shapes,
                        info.source, units, files, source, assembly)


def _host(node):
    return _described(node, kernel_info(node).name, "host")


def units_of(exe) -> CompiledUnits:
    """The CompiledUnits of an Executable (runtime/executable.py), from any backend."""
    if exe.backend == "cpu":
        return CompiledUnits(_cpu(exe.run))
    if exe.backend == "cuda":
        return CompiledUnits(_cuda_step(s) for s in exe.run.steps)
    return CompiledUnits(_host(n) for n in exe.schedule)      # the reference interpreter


def _cpu(run):
    """A SequencedRun's steps in order: stretches of units, host steps between them."""
    out = []
    for step in run.steps:
        if step[0] == "host":
            out.append(_host(step[1].node))
            continue
        for k in range(step[1], step[2]):
            out.append(_cpu_unit(run.units[k], run.kernel_nodes[k]))
    return out


def _cpu_unit(unit, node):
    subs = getattr(unit, "subs", None)
    if subs is not None:        # a loop / branch kernel (codegen/cpu/loops.py LoopPlan)
        units = [u for s in subs for u in units_of(s.exe)]
        loop = _LOOP_OPS.get(unit.op.value, "loop")
        return _described(node, "jg_" + loop, "cpu-llvm", units, unit.files,
                          lambda: unit.source)
    return _described(node, unit.name, "cpu-llvm", (), unit.files, lambda: unit.source,
                      unit.assembly)


def _cuda_step(step):
    subs = getattr(step, "subs", None)
    if subs is not None:        # a control-flow node: a host loop (codegen/cuda/loops.py)
        units = [u for exe in subs for u in units_of(exe)]
        return _described(step.node, f"host_{step.op.value}", "host", units,
                          source=step.source)
    if hasattr(step, "kernel"):  # one generated numba.cuda kernel
        kernel = step.kernel
        return _described(step.node, step.name, "cuda", source=step.source,
                          assembly=lambda: _ptx(kernel))
    return _described(step.node, step.name, "cuda-eager", source=step.source)


def _ptx(kernel) -> str | None:
    asm = kernel.inspect_asm()
    if isinstance(asm, dict):       # one entry per compiled signature
        asm = "\n".join(asm.values())
    return asm or None
