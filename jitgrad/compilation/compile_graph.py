"""From a traced graph to something that runs: the pass pipeline, then a backend.

`compile_graph` is the seam between the front end and the compiler: passes live in ir/passes,
backends in codegen/. Until a backend can take a graph, the reference interpreter runs it.
"""
from __future__ import annotations

from ..ir import Graph, config
from ..ir.interpreter import interpret
from ..ir.types import kind_of
from ..runtime import profiling
from ..runtime.executable import Executable  # noqa: F401 - the record backends return


def optimize(graph: Graph, donated=(), device=None):
    """Run the default pass pipeline; returns (optimized graph, schedule, memory plan), from the
    disk cache when this graph was optimized before (codegen/pipeline_cache.py, which also
    optimizes the CPU's loop bodies). `donated`: graph input indices whose storage the caller
    gives up (jit donate_argnums). `device`: the plan comes laid out as that device's backend
    runs it (the CPU pool's concurrent waves), and is cached so."""
    from ..codegen import pipeline_cache    # lazy: codegen loads on the first compile
    return pipeline_cache.optimize(graph, donated, device)


def _complex_reason(graph: Graph):
    """Why the CUDA backend cannot take this graph (complex values: its kernels do not implement
    complex arithmetic), else None. (On the CPU such kernels are LLVM units or run on the host:
    codegen/cpu/host.py.)"""
    for n in graph.nodes:
        for v in list(n.inputs) + list(n.outputs):
            if kind_of(v.type.dtype) == "c":
                return f"{n.op} has complex values ({v.type})"
        for sub in n.params.values():       # fused kernels' and control flow's bodies
            if isinstance(sub, Graph) and _complex_reason(sub) is not None:
                return _complex_reason(sub)
    return next((f"input {v.type} is complex" for v in graph.inputs if kind_of(v.type.dtype) == "c"),
                None)


def compile_graph(graph: Graph, device="cpu", donated=()) -> Executable:
    if profiling.active:        # jg.profiler is recording: the compile is an event of its own
        with profiling.active[-1].span(f"compile {graph.name}", "compile"):
            return _compile_graph(graph, device, donated)
    return _compile_graph(graph, device, donated)


def _compile_graph(graph: Graph, device, donated) -> Executable:
    backend = _backend(device)
    if str(device).startswith("cpu") and config.interpreter_only():
        backend = None
    optimized, schedule, plan = optimize(graph, donated, device if backend is not None else None)
    reason = None if str(device).startswith("cpu") else _complex_reason(graph)
    if reason is not None:
        raise NotImplementedError(f"jit on {device}: {reason}; complex numbers and the fft "
                                  "run on the CPU only (move the arrays with .to('cpu'))")
    if backend is not None:
        exe = backend(graph, optimized, schedule, plan)
        if exe is not None:
            return exe
    config.log(1, f"compile {graph.name}: reference interpreter ({len(schedule)} kernels)")
    return Executable(graph, optimized, lambda arrays: interpret(optimized, arrays), schedule, plan)


def _backend(device):
    """codegen backends register in codegen.BACKENDS: device type -> fn(graph, optimized, schedule, plan)."""
    from ..codegen import BACKENDS  # lazy: codegen (numba, LLVM) loads on the first compile
    return BACKENDS.get(str(device).split(":")[0])


def backend_for(name: str):
    """The backend registered as `name` ('cpu', 'cuda'); None for the interpreter."""
    return None if name == "interpreter" else _backend(name)
