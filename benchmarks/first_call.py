"""First-call time (import, trace, compile, run) of one workload, each in a fresh process.

cold: a new process with empty cache directories for every framework that has one;
warm: a second new process with the same directories, so compiled code comes from disk.

The child is started as a script by path, not with `-m jitgrad.benchmarks...`: -m would import
the jitgrad package before the framework import that is being timed.
"""
from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass

# what "importing the framework" means for each impl, timed on its own
FRAMEWORK_MODULES = {
    "jitgrad": ("jitgrad", "jitgrad.numpy"),
    "numpy": ("numpy",),
    "numba": ("numba",),
    "torch": ("torch",),
    "torch.compile": ("torch",),
    "jax": ("jax", "jax.numpy"),
}


def cache_env(root: str) -> dict[str, str]:
    """Point every framework's on-disk compilation cache into `root`. Python's bytecode is
    written where it belongs, as pip writes it at install for every framework: an environment
    with PYTHONDONTWRITEBYTECODE set (this VM's) would otherwise make each child of a source
    checkout compile jitgrad's modules again, ~60 ms of its lazily imported compiler in every
    first call, where the peers' wheels come with their bytecode."""
    return {
        "PYTHONDONTWRITEBYTECODE": "",      # empty: unset, for Python
        "JITGRAD_CACHE_DIR": os.path.join(root, "jitgrad"),
        "NUMBA_CACHE_DIR": os.path.join(root, "numba"),
        "TORCHINDUCTOR_CACHE_DIR": os.path.join(root, "torchinductor"),
        "JAX_COMPILATION_CACHE_DIR": os.path.join(root, "jax"),
        # jax skips caching programs that compile fast or are small unless told otherwise
        "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "0",
        "JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES": "0",
    }


@dataclass
class FirstCall:
    impl: str
    import_s: float | None = None  # from the warm run: OS file cache warm, so not disk reads
    cold_s: float | None = None
    warm_s: float | None = None
    error: str | None = None


def _child(impl_name: str, workload: str, quick: bool) -> dict:
    t0 = time.perf_counter()
    for module in FRAMEWORK_MODULES[impl_name]:
        importlib.import_module(module)
    import_s = time.perf_counter() - t0

    import numpy as np

    from jitgrad.benchmarks.impl import load
    from jitgrad.benchmarks.workloads import BY_NAME

    w = BY_NAME[workload]
    impl = load(impl_name)
    if impl.error:
        return {"error": impl.error}
    args = impl.prepare(w.make_inputs(np.random.default_rng(0), w.sizes[quick]))
    t0 = time.perf_counter()
    impl.call(workload, args)
    return {"import_s": import_s, "first_s": time.perf_counter() - t0}


def _run_child(impl_name: str, workload: str, quick: bool, env: dict, timeout_s: float) -> dict:
    cmd = [sys.executable, __file__, impl_name, workload] + (["--quick"] if quick else [])
    try:
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout_s:.0f} s"}
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        tail = (proc.stderr.strip().splitlines() or [f"exit code {proc.returncode}"])[-1]
        return {"error": tail[:120]}
    return json.loads(lines[-1])


def measure(impl_names: list[str], workload: str, quick: bool, timeout_s: float = 300) -> list[FirstCall]:
    out = []
    for name in impl_names:
        with tempfile.TemporaryDirectory(prefix="jitgrad-firstcall-") as root:
            env = {**os.environ, **cache_env(root)}
            cold = _run_child(name, workload, quick, env, timeout_s)
            warm = _run_child(name, workload, quick, env, timeout_s)
        error = cold.get("error") or warm.get("error")
        out.append(FirstCall(name, warm.get("import_s"), cold.get("first_s"), warm.get("first_s"), error))
    return out


if __name__ == "__main__":
    # sys.path[0] is this folder; its modules (cli, report, ...) must not shadow anyone's imports
    sys.path.pop(0)
    try:
        result = _child(sys.argv[1], sys.argv[2], "--quick" in sys.argv[3:])
    except Exception as e:  # noqa: BLE001 - reported in the parent's table
        result = {"error": f"{type(e).__name__}: {e}".splitlines()[0][:120]}
    print(json.dumps(result))
