"""Cold compiles on two processes (codegen/cpu/unit_prefetch.py): the units a schedule misses are
built by this process and a forked child at once; values are those of a compile without it; the
child's units land in the disk cache; no fork with one thread, another Python thread, or
no usable cache. Each case runs in a fresh process (a fork depends on the process's threads)."""
import os
import subprocess
import sys

PROGRAM = r"""
import os, sys, threading, time
import numpy as np, jitgrad as jg, jitgrad.numpy as jnp
from jitgrad.codegen.cpu import unit_prefetch
if os.environ.get("SIDE_THREAD"):
    stop = threading.Event()
    threading.Thread(target=stop.wait, daemon=True).start()
rng = np.random.default_rng(0)
ws = [rng.standard_normal((16 + 8 * i, 24 + 8 * i)).astype(np.float32) for i in range(3)]
x = rng.standard_normal((8, 16)).astype(np.float32)

def loss(ws, x):
    h = x
    for w in ws:
        h = jnp.tanh(h @ w)
        h = h - jnp.max(h, axis=1, keepdims=True)
    return jnp.mean(jnp.exp(h) * jnp.sin(h))

val, grads = jg.jit(jg.value_and_grad(loss))(ws, x)
ref_val, ref_grads = jg.value_and_grad(loss)(ws, x)        # eager: no compile
assert np.allclose(np.asarray(val), np.asarray(ref_val), rtol=1e-5), (val, ref_val)
for g, r in zip(grads, ref_grads):
    assert np.allclose(np.asarray(g), np.asarray(r), rtol=1e-4, atol=1e-6)
print("ok")
"""


def _run(tmp_path, **env):
    e = {**os.environ, "JITGRAD_CACHE_DIR": str(tmp_path / "c"), "JITGRAD_DEBUG": "2",
         "JITGRAD_NUM_THREADS": "2", **env}
    p = subprocess.run([sys.executable, "-c", PROGRAM], env=e, capture_output=True, text=True,
                       timeout=300)
    assert p.returncode == 0 and p.stdout.strip() == "ok", p.stderr
    return p.stderr


def _prefetched(err):
    lines = [ln for ln in err.splitlines() if "unit prefetch:" in ln]
    return [int(ln.split("units, ")[1].split()[0]) for ln in lines]


def test_a_child_builds_units_into_the_disk_cache(tmp_path):
    err = _run(tmp_path)
    built = _prefetched(err)
    assert built and sum(built) >= 1, err
    objs = list((tmp_path / "c" / "jitgrad-kernels" / "llvm").glob("*.obj"))
    assert len(objs) >= 4
    again = _run(tmp_path)                       # every unit now on disk: nothing to build
    assert _prefetched(again) == [] and "llvm compiled" not in again, again


def test_no_fork_with_one_thread(tmp_path):
    err = _run(tmp_path, JITGRAD_NUM_THREADS="1")
    assert _prefetched(err) == [] and "llvm compiled" in err


def test_no_fork_beside_another_python_thread(tmp_path):
    err = _run(tmp_path, SIDE_THREAD="1")
    assert _prefetched(err) == [] and "llvm compiled" in err


def test_no_fork_without_a_usable_cache(tmp_path):
    (tmp_path / "file").write_text("not a directory")
    err = _run(tmp_path, JITGRAD_CACHE_DIR=str(tmp_path / "file"))
    assert _prefetched(err) == [] and "CacheWarning" in err


def test_no_fork_in_an_mpi_rank(monkeypatch, tmp_path):
    """Open MPI does not support fork() in its processes: with mpi4py.MPI loaded, no prefetch."""
    import types
    from jitgrad.codegen.cpu import unit_prefetch
    monkeypatch.setenv("JITGRAD_CACHE_DIR", str(tmp_path / "c"))
    monkeypatch.setitem(sys.modules, "mpi4py.MPI", types.ModuleType("mpi4py.MPI"))
    assert not unit_prefetch.forks_allowed()
    assert unit_prefetch.prefetch([])() == 0
