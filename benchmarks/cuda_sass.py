"""Reading NVIDIA's assembler output without a GPU: ptxas resource lines, SASS opcodes, PTX vector
accesses, and a static time estimate against an H100's bounds (benchmarks/cuda_static.py).

Tools come from NVIDIA's compiler wheels (the `cuda` extra): `nvidia-cuda-nvcc` (ptxas 13.5),
`nvidia-cuda-cuobjdump` and `nvidia-cuda-nvdisasm` (cuobjdump -sass runs nvdisasm), installed
under site-packages/nvidia/cu13/bin. A machine's own /usr/local/cuda ptxas is used only when the
wheels are missing: an older ptxas rejects the PTX ISA that NVVM 13.5 emits.

The estimate is a model, not a measurement:
  memory-bound  the larger of two times:
                bytes / (3.0 TB/s x e): e = bytes in flight / bytes needed in flight (Little's
                law: 3.0 TB/s x HBM_LATENCY_S), bytes in flight = threads resident on the busy SMs
                x loads issued back to back per thread x access width (16 B for 128-bit access);
                instruction issue: the SASS instructions inside the kernel's loops (found from
                backward branches, each counted once) per global byte those loops move, times
                the kernel's bytes, over 4 warp-instructions per clock per busy SM at 1.755 GHz
                (a MUFU, as in exp/tanh/divide, counts 8: its unit takes 16 lanes per clock)
  GEMM          FLOPs / (67 TFLOPS x SMs busy / 132 x FFMA share of the SASS instructions), or
                the tensor-core rate when HMMA/WGMMA is present (TF32 peak x MMA_SYNC_SHARE /
                passes: 3 for 3xTF32) or, when slower, issuing the inner loop's instructions
                per HMMA at 4 per clock per SM; never below its bytes' time
Launch overhead is not included (numba's dispatcher costs 15-30 us per launch: issue 30).
"""
from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import tempfile
from collections import Counter
from dataclasses import dataclass

HBM_BYTES_PER_S = 3.0e12      # what well-written streaming kernels reach on an H100 SXM
FP32_FLOPS = 67e12            # H100 SXM FP32 (SIMT FFMA)
TF32_FLOPS = 495e12           # H100 SXM dense TF32 tensor cores (wgmma)
MMA_SYNC_SHARE = 0.5          # assumed share of that peak mma.sync (HMMA) reaches on Hopper
MMA_FLOPS = 16 * 8 * 8 * 2    # FLOPs of one warp's HMMA.1688 (m16n8k8)
CLOCK_HZ = 1.755e9            # H100 SXM sustained SM clock under load
SMS = 132                     # H100 SXM streaming multiprocessors
HBM_LATENCY_S = 500e-9        # assumed loaded HBM latency (Little's law above)

# per-SM limits by arch: registers, threads, blocks, shared memory per SM (bytes)
SM_LIMITS = {"sm_80": (65536, 2048, 32, 164 * 1024), "sm_90": (65536, 2048, 32, 228 * 1024)}
TENSOR_OPS = ("HMMA", "WGMMA", "IMMA", "HGMMA")
VECTOR_LOAD, VECTOR_STORE = "LDG.E.128", "STG.E.128"
# what ends a run of loads issued back to back: a store, a branch, a barrier, a call
_RUN_BREAKS = ("STG", "BRA", "BAR", "EXIT", "CALL", "RET", "BSYNC", "WARPSYNC")


class ToolMissing(RuntimeError):
    """ptxas or cuobjdump is not installed."""


def _wheel_bin() -> str | None:
    spec = importlib.util.find_spec("nvidia")
    for root in (spec.submodule_search_locations or []) if spec else []:
        path = os.path.join(root, "cu13", "bin")
        if os.path.isdir(path):
            return path
    return None


def tool(name: str) -> str:
    """Path of ptxas / cuobjdump / nvdisasm: the wheel's first, then PATH."""
    wheel = _wheel_bin()
    if wheel and os.path.exists(os.path.join(wheel, name)):
        return os.path.join(wheel, name)
    found = shutil.which(name)
    if found is None:
        raise ToolMissing(f"{name} not found: pip install 'jitgrad[cuda]' (nvidia-cuda-nvcc, "
                          "nvidia-cuda-cuobjdump, nvidia-cuda-nvdisasm)")
    return found


def tools_available() -> str | None:
    """None when ptxas and cuobjdump are installed, else why not."""
    try:
        for name in ("ptxas", "cuobjdump"):
            tool(name)
    except ToolMissing as e:
        return str(e)
    return None


# ----------------------------------------------------------------------------- ptxas -v

@dataclass(frozen=True)
class Resources:
    registers: int
    spill_stores: int       # bytes
    spill_loads: int        # bytes
    stack: int              # bytes of stack frame
    shared: int             # bytes of static shared memory

    @property
    def spills(self) -> int:
        return self.spill_stores + self.spill_loads


def parse_ptxas(text: str) -> Resources:
    """The resource lines of `ptxas -v` for one entry function."""
    def grab(pattern):
        m = re.search(pattern, text)
        return int(m.group(1)) if m else 0
    if not re.search(r"Used \d+ registers", text):
        raise ValueError(f"no 'Used N registers' line in ptxas output:\n{text}")
    return Resources(grab(r"Used (\d+) registers"), grab(r"(\d+) bytes spill stores"),
                     grab(r"(\d+) bytes spill loads"), grab(r"(\d+) bytes stack frame"),
                     grab(r"(\d+) bytes smem"))


# ----------------------------------------------------------------------------- SASS

_SASS_LINE = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)([^;]*);")
_BRANCH_TARGET = re.compile(r"0x([0-9a-f]+)")


@dataclass(frozen=True)
class Sass:
    opcodes: Counter          # full opcode with modifiers ("LDG.E.128") -> count
    loads_in_flight: int      # most global loads in one run without a store/branch/barrier
    loop_instructions: int = 0   # instructions inside the hot loops (backward branches), once
    loop_mufu: int = 0           # of which MUFU (exp2, rcp, ...: 16 lanes per clock per SM)
    loop_bytes: int = 0          # global bytes loaded + stored per thread by those instructions
    fma_loop: tuple = (0, 0)     # (FFMA, instructions) of the loop with the most FFMA
    mma_loop: tuple = (0, 0)     # (HMMA/..., instructions) of the loop with the most of them

    def issue_cycles_per_byte(self) -> float | None:
        """Warp-instruction issue cycles of one SM sub-partition per global byte a thread moves
        in the kernel's loops (a MUFU occupies its unit 8 cycles per warp); None without loops."""
        if not self.loop_bytes:
            return None
        return max(self.loop_instructions, 8 * self.loop_mufu) / self.loop_bytes

    @property
    def total(self) -> int:
        return sum(n for op, n in self.opcodes.items() if op != "NOP")

    def count(self, prefix: str) -> int:
        return sum(n for op, n in self.opcodes.items() if op == prefix or op.startswith(prefix + "."))

    @property
    def vector_loads(self) -> int:
        return self.opcodes[VECTOR_LOAD] + sum(n for op, n in self.opcodes.items()
                                               if op.startswith("LDG.E.128."))

    @property
    def vector_stores(self) -> int:
        return self.opcodes[VECTOR_STORE]

    @property
    def tensor_ops(self) -> int:
        return sum(self.count(op) for op in TENSOR_OPS)

    def ffma_share(self) -> float:
        """FFMA / instructions in a GEMM's inner loop (its steady state); the whole kernel's
        static share when no loop holds an FFMA."""
        ffma, total = self.fma_loop
        return ffma / total if total else self.count("FFMA") / max(1, self.total)


def parse_sass(text: str) -> Sass:
    """Opcodes of `cuobjdump -sass` (or nvdisasm) output."""
    ops, run, best, insts, loops = [], 0, 0, [], []
    for m in _SASS_LINE.finditer(text):
        addr, op, rest = int(m.group(1), 16), m.group(2), m.group(3)
        ops.append(op)
        insts.append((addr, op))
        if op.startswith("LDG"):
            run += 1
            best = max(best, run)
        elif op.split(".")[0] in _RUN_BREAKS:
            run = 0
        target = _BRANCH_TARGET.search(rest) if op.startswith("BRA") else None
        if target and int(target.group(1), 16) < addr:
            loops.append((int(target.group(1), 16), addr))
    return Sass(Counter(ops), best, *_hot_loops(insts, loops),
                _densest_loop(insts, loops, ("FFMA",)), _densest_loop(insts, loops, TENSOR_OPS))


def _densest_loop(insts, loops, names) -> tuple[int, int]:
    """(instructions named `names`, all instructions) of the loop holding most of them."""
    best = (0, 0)
    for a, b in loops:
        body = [op for addr, op in insts if a <= addr <= b and op != "NOP"]
        hits = sum(op.split(".")[0] in names for op in body)
        if hits > best[0]:
            best = (hits, len(body))
    return best


def _hot_loops(insts, loops) -> tuple[int, int, int]:
    """(instructions, MUFU, bytes per thread) of the loops a launch runs: each instruction counts
    in its innermost loop; when some loop makes 128-bit accesses (the aligned path), loops whose
    global accesses are all scalar (the fallback for unaligned pointers) are left out and only
    128-bit accesses count as bytes moved. ptxas peels and rotates loops, so loops that mix both
    paths count whole: the instruction count errs high."""
    per_loop = {}
    for addr, op in insts:
        spans = [(b - a, (a, b)) for a, b in loops if a <= addr <= b]
        if op != "NOP" and spans:
            per_loop.setdefault(min(spans)[1], []).append(op)
    widths = {lp: [access_bytes(op) for op in ops if access_bytes(op)] for lp, ops in per_loop.items()}
    vector = any(16 in w for w in widths.values())
    keep = [lp for lp in per_loop if not (vector and widths[lp] and 16 not in widths[lp])]
    ops = [op for lp in keep for op in per_loop[lp]]
    moved = [access_bytes(op) for op in ops]
    return (len(ops), sum(op.startswith("MUFU") for op in ops),
            sum(w for w in moved if w == 16 or not vector))


def access_bytes(op: str) -> int:
    """Bytes one thread moves with a global load/store opcode (0 for anything else)."""
    if not op.startswith(("LDG", "STG")):
        return 0
    mods = op.split(".")[1:]
    for mod, width in (("128", 16), ("64", 8), ("U16", 2), ("S16", 2), ("U8", 1), ("S8", 1)):
        if mod in mods:
            return width
    return 4


def ptx_vector_accesses(ptx: str) -> tuple[int, int]:
    """(ld.global.v4, st.global.v4) instructions in PTX: the fallback without cuobjdump."""
    return (len(re.findall(r"\bld\.global(?:\.\w+)*\.v4\.", ptx)),
            len(re.findall(r"\bst\.global(?:\.\w+)*\.v4\.", ptx)))


def ptx_tensor_ops(ptx: str) -> int:
    return len(re.findall(r"\b(?:mma\.sync|wgmma\.mma_async)\b", ptx))


# ----------------------------------------------------------------------------- assembling

def assemble(ptx: str, arch: str, want_sass: bool = True) -> tuple[Resources, Sass | None]:
    """ptxas -v for `arch`, then cuobjdump -sass of the cubin."""
    with tempfile.TemporaryDirectory(prefix="jitgrad-ptxas-") as d:
        src, cubin = os.path.join(d, "k.ptx"), os.path.join(d, "k.cubin")
        with open(src, "w") as f:
            f.write(ptx)
        r = subprocess.run([tool("ptxas"), f"-arch={arch}", "-v", "-o", cubin, src],
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"ptxas -arch={arch} failed:\n{r.stderr.strip()}")
        res = parse_ptxas(r.stdout + r.stderr)
        if not want_sass:
            return res, None
        r = subprocess.run([tool("cuobjdump"), "-sass", cubin], capture_output=True, text=True,
                           env={**os.environ, "PATH": os.path.dirname(tool("cuobjdump")) +
                                os.pathsep + os.environ.get("PATH", "")})
        if r.returncode != 0:
            raise RuntimeError(f"cuobjdump -sass failed:\n{r.stderr.strip()}")
        return res, parse_sass(r.stdout)


# ----------------------------------------------------------------------------- estimate

def blocks_per_sm(arch: str, threads: int, res: Resources) -> int:
    """Resident blocks per SM, from registers (allocated per warp in units of 256), threads,
    the block limit and shared memory."""
    regs, max_threads, max_blocks, smem = SM_LIMITS[arch]
    warps = -(-threads // 32)
    per_warp = -(-max(res.registers, 1) * 32 // 256) * 256
    by_regs = regs // (warps * per_warp)
    by_smem = smem // res.shared if res.shared else max_blocks
    return max(0, min(max_blocks, max_threads // max(threads, 1), by_regs, by_smem))


@dataclass(frozen=True)
class Estimate:
    bound_s: float          # bytes / 3.0 TB/s or FLOPs / 67 TFLOPS, whichever is larger
    estimate_s: float
    limiter: str            # what the estimate says limits the kernel


def estimate(nbytes: int, flops: int, blocks: int, threads: int, res: Resources, sass: Sass,
             width: int, arch: str = "sm_90", passes: int = 1) -> Estimate:
    """Static time estimate of one launch on an H100 (see the module docstring); `passes`:
    tensor-core products per multiply-add (3 for 3xTF32)."""
    bound = max(nbytes / HBM_BYTES_PER_S, flops / FP32_FLOPS)
    resident = max(1, blocks_per_sm(arch, threads, res))
    busy_sms = min(SMS, blocks)
    threads_per_sm = min(resident, -(-blocks // SMS)) * threads
    in_flight = busy_sms * threads_per_sm * max(1, sass.loads_in_flight) * width
    efficiency = min(1.0, in_flight / (HBM_BYTES_PER_S * HBM_LATENCY_S))
    mem_s = nbytes / (HBM_BYTES_PER_S * efficiency)
    mem_why = "HBM" if efficiency >= 1 else f"latency ({efficiency:.0%} of bytes in flight)"
    if not flops:
        why = mem_why
        cpb = sass.issue_cycles_per_byte()
        # every thread-byte of the kernel costs cpb cycles of one of 4 sub-partitions per SM,
        # shared by the 32 threads of a warp
        issue_s = nbytes * cpb / (32 * 4 * busy_sms * CLOCK_HZ) if cpb else 0.0
        if issue_s > mem_s:
            return Estimate(bound, issue_s, f"instruction issue: {4 * cpb:.0f} slots per 4 B moved")
        return Estimate(bound, mem_s, why)
    if sass.tensor_ops:
        flop_s = flops / (TF32_FLOPS * MMA_SYNC_SHARE / passes * busy_sms / SMS)
        why = f"tensor cores, {passes} TF32 pass{'es' if passes > 1 else ''}"
        mma, total = sass.mma_loop
        if mma:     # the loop's other instructions (shared loads, converts) issue beside them
            issue_s = flops * passes / MMA_FLOPS * total / mma / (4 * busy_sms * CLOCK_HZ)
            if issue_s > flop_s:
                flop_s, why = issue_s, f"instruction issue ({total / mma:.1f} per HMMA)"
    else:
        flop_s = flops / (FP32_FLOPS * sass.ffma_share() * busy_sms / SMS)
        why = f"FMA issue ({sass.ffma_share():.0%} FFMA)"
    if busy_sms < SMS:
        why += f", {busy_sms} of {SMS} SMs"
    return Estimate(bound, max(mem_s, flop_s), why if flop_s >= mem_s else mem_why)


def fmt_us(seconds: float) -> str:
    us = seconds * 1e6
    return f"{us:.3g}" if us < 100 else f"{us:.0f}"


def fills(blocks: int) -> bool:
    return blocks >= SMS

