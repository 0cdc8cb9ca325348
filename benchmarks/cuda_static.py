"""`python -m jitgrad.benchmarks --device cuda --static [WORKLOAD ...]`: GPU readiness without a GPU.

Every kernel the CUDA backend generates for the GPU benchmark cases (cuda_workloads.CASES, at
their full sizes) is compiled to PTX by numba-cuda for sm_80 and sm_90, assembled by ptxas -v and
disassembled by cuobjdump -sass (NVIDIA's compiler wheels, the `cuda` extra), and reported in one
markdown table: registers, spills, shared memory, launch shape and whether it fills an H100's 132
SMs, 128-bit global loads/stores (LDG.E.128 / STG.E.128), tensor-core instructions in GEMMs
(HMMA/WGMMA), SASS instruction count, and a static time estimate against the bound
(benchmarks/cuda_sass.py says how; an estimate, not a measurement). Exit status 1 when a kernel
spills or fails to compile; the other goals of issue 30 are reported as met/missed.

No inputs are allocated: the cases' make_inputs draw from a shape-only generator (zero-stride
arrays), and the functions are lowered from jg.ShapeDtype. The schedule is the pass pipeline's,
which is the same for every device; the kernel generators are the CUDA backend's own
(codegen/cuda/fused/), so what is assembled here is what a GPU would run.
"""
from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from dataclasses import dataclass, field

import numpy as np

from . import cuda_sass as S
from .cuda_workloads import CASES, bytes_moved
from .workloads import BY_NAME

ARCHS = ("sm_80", "sm_90")
TINY_S = 2e-6       # below this bound a kernel is launch-bound (numba launches take 15-30 us)


class ShapeOnlyRng:
    """Stands in for np.random.Generator in make_inputs: arrays of the right shape and dtype that
    take no memory (np.broadcast_to of one zero), so 100M-element cases cost nothing."""

    def standard_normal(self, shape, dtype=np.float64):
        return np.broadcast_to(np.zeros((), dtype), (shape,) if np.isscalar(shape) else shape)

    random = standard_normal

    def integers(self, low, high, size):
        return np.zeros(size, np.int64)


@dataclass
class Kernel:
    case: str                 # "softmax (4096, 1024)"
    name: str
    kind: str                 # the generator's layout, e.g. "rowwise: row cached in shared memory"
    grid: tuple = ()
    block: tuple = ()
    nbytes: int = 0           # inputs read once + outputs written once
    flops: int = 0
    source: object = None     # CudaKernelSource; None when the kernel runs op by op
    why: str | None = None    # why it runs op by op
    arch: dict = field(default_factory=dict)   # arch -> {"res": Resources, "sass": Sass}
    ptx_vectors: tuple = (0, 0)
    error: str | None = None

    @property
    def blocks(self) -> int:
        return math.prod(self.grid)

    @property
    def threads(self) -> int:
        return math.prod(self.block)


def _layout(text: str) -> str:
    first = text.splitlines()[0]           # "# kernel NAME (LAYOUT)"
    return first[first.index("(") + 1:first.rindex(")")] if "(" in first else "?"


def _flops(node) -> int:
    from ..ir.ops import Op
    mms = [n for n in node.params["body"].nodes if n.op == Op.matmul]
    return sum(2 * math.prod(n.output.type.shape) * n.inputs[0].type.shape[-1] for n in mms)


def case_kernels(case) -> list[Kernel]:
    """The kernels the CUDA backend generates for one GpuCase at its full size."""
    import jitgrad as jg
    from ..codegen import coverage
    from ..codegen.cuda.fused import GENERATORS
    from ..codegen.kernel import canonical
    from ..ir.kernel import kernel_nodes
    from ..ir.passes.manager import run_pipeline
    from . import impl_jitgrad
    inputs = BY_NAME[case.workload].make_inputs(ShapeOnlyRng(), case.size)
    args = jg.tree_util.tree_map(lambda a: jg.ShapeDtype(a.shape, a.dtype), inputs)
    graph = impl_jitgrad.IMPLS[0].fns[case.workload].lower(*args).graph
    optimized, schedule, _ = run_pipeline(graph)
    label = f"{case.workload} {case.size}"
    out = []
    for node in kernel_nodes(optimized, schedule):
        kind = node.params["kind"]
        name = f"k_{canonical.digest(node)[:16]}"
        k = Kernel(label, name, kind, nbytes=sum(v.type.nbytes for v in
                                                 list(node.inputs) + list(node.outputs)),
                   flops=_flops(node) if kind == "matmul" else 0)
        k.why = coverage.why_not(node, "cuda")
        if k.why is None:
            fused = GENERATORS[kind](name, node)
            k.source, k.grid, k.block, k.kind = fused.source, fused.grid, fused.block, \
                _layout(fused.source.text)
            # partials (split reductions, split-K products) are written once and read once
            k.nbytes += 2 * sum(np.dtype(dt).itemsize * n for dt, n in fused.workspace)
        out.append(k)
    return out


def analyse(k: Kernel, archs=ARCHS, cache=None) -> None:
    """PTX for each arch, ptxas -v, cuobjdump -sass; results in k.arch (errors in k.error)."""
    from ..codegen.cuda import toolchain as tc
    if k.source is None:
        return
    cache = {} if cache is None else cache
    try:
        fn = k.source.load()[0]
        for arch in archs:
            key = (k.source.digest, arch)
            if key not in cache:
                cc = (int(arch[3]), int(arch[4:]))
                ptx = tc.compile_ptx(fn, k.source.signature, cc=cc)
                res, sass = S.assemble(ptx, arch)
                cache[key] = (res, sass, S.ptx_vector_accesses(ptx))
            res, sass, vec = cache[key]
            k.arch[arch] = {"res": res, "sass": sass}
            k.ptx_vectors = vec
    except Exception as e:  # noqa: BLE001 - one kernel failing is a row, not a crash
        k.error = f"{type(e).__name__}: {e}".splitlines()[0][:300]


# ----------------------------------------------------------------------------- verdicts

def vectorized(k: Kernel, arch="sm_90") -> bool:
    sass = k.arch[arch]["sass"]
    return bool(sass.vector_loads or sass.vector_stores) if sass else any(k.ptx_vectors)


def kernel_estimate(k: Kernel, arch="sm_90") -> S.Estimate:
    a = k.arch[arch]
    itemsize = 16 if vectorized(k, arch) else 4
    passes = 3 if "mma_tf32x3(" in k.source.text else 1
    return S.estimate(k.nbytes, k.flops, k.blocks, k.threads, a["res"], a["sass"], itemsize, arch,
                      passes)


def _yes(flag: bool) -> str:
    return "yes" if flag else "**no**"


def tiny(k: Kernel) -> bool:
    """A kernel whose bound is under TINY_S: its launch costs more than any grid could save."""
    return max(k.nbytes / S.HBM_BYTES_PER_S, k.flops / S.FP32_FLOPS) < TINY_S


def _scalar(k: Kernel) -> str:
    return "0/0 (tiny)" if tiny(k) else "**0/0**"


def _fill(k: Kernel) -> str:
    return "n/a (tiny)" if tiny(k) and not S.fills(k.blocks) else _yes(S.fills(k.blocks))


def row(k: Kernel) -> str:
    if k.source is None:
        return f"| {k.case} | {k.name} | op by op: {k.why} |" + " - |" * 9
    if k.error or len(k.arch) < len(ARCHS):
        return f"| {k.case} | {k.name} | {k.kind} | error: {k.error} |" + " - |" * 8
    res = {a: k.arch[a]["res"] for a in ARCHS}
    sass = k.arch["sm_90"]["sass"]
    est = kernel_estimate(k)
    spills = max(r.spills for r in res.values())
    ldst = f"{sass.vector_loads}/{sass.vector_stores}"
    tc = ("-" if not k.flops else _yes(sass.tensor_ops > 0))
    work = f"{k.nbytes / 1e6:.3g} MB" + (f", {k.flops / 1e9:.3g} GFLOP" if k.flops else "")
    return (f"| {k.case} | {k.name} | {k.kind} | {res['sm_80'].registers}/{res['sm_90'].registers}"
            f" | {'0' if not spills else f'**{spills} B**'} | {res['sm_90'].shared} | "
            f"{'x'.join(map(str, k.grid))} x {'x'.join(map(str, k.block))} | {_fill(k)} | "
            f"{ldst if sass.vector_loads or sass.vector_stores else _scalar(k)} | {tc} | {sass.total} | "
            f"{work} | {S.fmt_us(est.bound_s)} / {S.fmt_us(est.estimate_s)} ({est.limiter}) |")


HEADER = ("| case | kernel | layout | regs sm_80/sm_90 | spills | smem B | grid x block | "
          "fills 132 SMs | LDG/STG.E.128 | tensor cores | SASS instr | traffic | "
          "bound / est. us (limiter) |\n|---|---|---|---:|---:|---:|---|---|---:|---|---:|---:|---|")


def case_summary(case, kernels) -> str:
    inputs = BY_NAME[case.workload].make_inputs(ShapeOnlyRng(), case.size)
    moved = bytes_moved(case.workload, inputs) or 0
    cost = BY_NAME[case.workload].cost
    flops = cost(inputs).flops if cost else 0
    bound = max(moved / S.HBM_BYTES_PER_S, flops / S.FP32_FLOPS)
    done = [k for k in kernels if k.source is not None and not k.error and k.arch]
    est = sum(kernel_estimate(k).estimate_s for k in done)
    ratio = f"{est / bound:.2f}x" if bound else "-"
    left = len(kernels) - len(done)
    n = len(kernels)    # numba's dispatcher: 15-30 us of host time per launch (issue 30)
    note = f"+ {n} launch{'es' if n > 1 else ''} x 15-30 us host time" + \
        (f"; {left} kernel(s) not estimated" if left else "")
    return (f"| {case.workload} | {case.size} | {len(kernels)} | "
            f"{S.fmt_us(bound) if bound else '-'} | {S.fmt_us(est)} | {ratio} | {note} |")


def goals(kernels) -> list[str]:
    """The static goals of issue 30, each met or missed (kernels counted once by name)."""
    unique = {k.name: k for k in kernels}.values()
    done = [k for k in unique if k.source is not None and not k.error and k.arch]
    spilled = [k.name for k in done if any(a["res"].spills for a in k.arch.values())]
    mem = [k for k in done if not k.flops and not tiny(k)]
    scalar = [k.name for k in mem if not vectorized(k)]
    gemms = [k for k in done if k.flops]
    no_tc = [k.name for k in gemms if not k.arch["sm_90"]["sass"].tensor_ops]
    small = [f"{k.name} ({k.blocks} blocks)" for k in done
             if not S.fills(k.blocks) and not tiny(k)]

    def line(text, bad, total):
        state = "met" if not bad else f"missed by {len(bad)} of {total}"
        return f"- {text}: {state}" + (f" ({', '.join(dict.fromkeys(bad))})" if bad else "")
    return [line("no register spills (sm_80, sm_90)", spilled, len(done)),
            line(f"128-bit global access in every memory-bound kernel (above {TINY_S * 1e6:.0f} "
                 "us of bound)", scalar, len(mem)),
            line("tensor-core instructions (HMMA/WGMMA) in every GEMM", no_tc, len(gemms)),
            line(f"launch shapes fill 132 SMs (kernels above {TINY_S * 1e6:.0f} us of bound)",
                 small, len([k for k in done if not tiny(k)]))]


def report(cases, kernels_of) -> str:
    tc, _ = _versions()
    lines = ["# GPU readiness (static): CUDA benchmark kernels assembled for sm_80 and sm_90", "",
             f"ptxas {tc}; estimates for an H100 SXM (3.0 TB/s, 67 TFLOPS FP32, 132 SMs), "
             "launch overhead not included: estimates, not measurements.", "",
             "| workload | size | kernels | bound us | est. us | est. / bound | notes |",
             "|---|---|---:|---:|---:|---|---|"]
    lines += [case_summary(c, kernels_of[i]) for i, c in enumerate(cases)]
    allk = [k for ks in kernels_of for k in ks]
    lines += ["", *goals(allk), "", HEADER]
    seen = set()
    for k in allk:
        if (k.case, k.name) not in seen:
            seen.add((k.case, k.name))
            lines.append(row(k))
    return "\n".join(lines) + "\n"


def _versions():
    r = subprocess.run([S.tool("ptxas"), "--version"], capture_output=True, text=True)
    last = [line for line in r.stdout.splitlines() if "release" in line]
    return (last[0].split("release")[-1].strip() if last else "?"), r.stdout


def failures(kernels) -> list[str]:
    """What fails the check (exit status 1): compile errors and spills."""
    out = [f"{k.name}: {k.error}" for k in kernels if k.error]
    out += [f"{k.name}: {a['res'].spills} bytes spilled on {arch}" for k in kernels
            for arch, a in k.arch.items() if a["res"].spills]
    return out


def main(args, argv) -> int:
    from ..codegen.cuda import toolchain as tc
    if tc.cuda_simulator_enabled():     # compile_ptx cannot run beside the simulator
        env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
        return subprocess.call([sys.executable, "-m", __package__, *argv], env=env)
    why = S.tools_available() or (None if tc.cuda_toolchain_available() else
                                  f"numba-cuda / NVVM not installed: {tc.INSTALL_HINT}")
    if why:
        print(f"--static: {why}", file=sys.stderr)
        return 2
    cases = [c for c in CASES if not args.workloads or c.workload in args.workloads]
    if not cases:
        print(f"--static: none of {', '.join(args.workloads)} has a GPU case", file=sys.stderr)
        return 2
    cache, kernels_of = {}, []
    for case in cases:
        print(f"{case.workload} {case.size} ...", file=sys.stderr, flush=True)
        ks = case_kernels(case)
        for k in ks:
            analyse(k, cache=cache)
        kernels_of.append(ks)
    text = report(cases, kernels_of)
    print(text)
    if args.json:
        with open(args.json, "w") as f:
            json.dump([{"case": k.case, "name": k.name, "layout": k.kind, "grid": k.grid,
                        "block": k.block, "bytes": k.nbytes, "flops": k.flops, "error": k.error,
                        "why_op_by_op": k.why if k.source is None else None,
                        "arch": {a: {"registers": v["res"].registers, "spill_bytes": v["res"].spills,
                                     "shared": v["res"].shared, "sass_instructions": v["sass"].total,
                                     "vector_loads": v["sass"].vector_loads,
                                     "vector_stores": v["sass"].vector_stores,
                                     "tensor_ops": v["sass"].tensor_ops} for a, v in k.arch.items()}}
                       for ks in kernels_of for k in ks], f, indent=1)
    bad = failures([k for ks in kernels_of for k in ks])
    for line in bad:
        print(f"--static: FAILED {line}", file=sys.stderr)
    return 1 if bad else 0
