"""The on-disk kernel cache, across processes: a second process hits it, a damaged entry is
detected and rebuilt, two processes compiling the same function at once both succeed. Each test
runs for LLVM units (object code in llvm/<name>.obj; numba builds no CPU units since issue 26). (Fault injection: tests/codegen/test_faults.py.)"""
import glob
import os
import subprocess
import sys

import pytest

PROGRAM = """
import numpy as np, jitgrad as jg, jitgrad.numpy as jnp
f = jg.jit(lambda x: jnp.sum(jnp.tanh(x) * 2.0 + 1.0, axis=1))
x = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)
got = np.asarray(f(x))
assert np.allclose(got, np.sum(np.tanh(x) * 2 + 1, axis=1), rtol=1e-5), got
print("ok")
"""


KERNELS = "llvm"


def _run(cache_dir, wait=True):
    env = {**os.environ, "JITGRAD_CACHE_DIR": str(cache_dir), "JITGRAD_DEBUG": "1"}
    p = subprocess.Popen([sys.executable, "-c", PROGRAM], env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    return _finish(p) if wait else p


def _finish(p):
    out, err = p.communicate(timeout=300)
    assert p.returncode == 0 and out.strip() == "ok", err
    return err


@pytest.fixture
def kernels():
    return KERNELS


@pytest.fixture
def cache_dir(tmp_path):
    return tmp_path / "kernels"


def entries(cache_dir, backend="cpu"):
    return cache_dir / "jitgrad-kernels" / backend


def test_second_process_loads_compiled_code_from_disk(cache_dir, kernels):
    first = _run(cache_dir)
    assert "kernel cache miss" in first and f"{kernels} compiled" in first
    second = _run(cache_dir)
    assert "kernel cache hit" in second
    assert "llvm hit" in second and glob.glob(str(entries(cache_dir, "llvm") / "*.obj"))


def test_truncated_and_garbled_llvm_objects_are_rebuilt(cache_dir):
    _run(cache_dir)
    (obj,) = glob.glob(str(entries(cache_dir, "llvm") / "*.obj"))
    with open(obj, "r+b") as f:
        f.truncate(os.path.getsize(obj) // 2)
    err = _run(cache_dir)
    assert "fails its checksum; rebuilding it" in err and "llvm compiled" in err
    with open(obj, "r+b") as f:
        f.seek(40)
        f.write(b"garbage")
    assert "fails its checksum" in _run(cache_dir)
    assert "llvm hit" in _run(cache_dir)


def test_two_processes_compiling_at_once(cache_dir, kernels):
    procs = [_run(cache_dir, wait=False) for _ in range(2)]
    for p in procs:
        _finish(p)
    assert "llvm hit" in _run(cache_dir)


def test_the_runtime_native_code_is_cached_and_a_damaged_object_rebuilt(cache_dir):
    """The sequencer's runner (and the pool, the loop runner: runtime/native_code.py) compile
    once per machine; a later process links their objects from runtime/, and a damaged one is
    compiled again, never linked."""
    env = {**os.environ, "JITGRAD_CACHE_DIR": str(cache_dir), "JITGRAD_DEBUG": "2"}

    def run():
        p = subprocess.run([sys.executable, "-c", PROGRAM], env=env, capture_output=True,
                           text=True, timeout=300)
        assert p.returncode == 0 and p.stdout.strip() == "ok", p.stderr
        return [line for line in p.stderr.splitlines() if "runtime code" in line and "jg_run," in line]
    first = run()
    assert len(first) == 1 and first[0].endswith(": miss"), first
    assert run()[0].endswith(": hit")
    objs = glob.glob(str(entries(cache_dir, "runtime") / "jg_runtime_*.obj"))
    assert objs
    for obj in objs:
        with open(obj, "r+b") as f:
            f.truncate(os.path.getsize(obj) // 2)
    assert run()[0].endswith(": rebuilt")
    assert run()[0].endswith(": hit")


def test_the_unit_names_hash_every_module_the_generator_reads():
    """A unit on disk is named by its kernel's text and the generator's sources; a module the
    generator reads but does not hash (codegen/kernel/nest.py once) lets a changed generator
    load stale units. Every codegen.kernel, llvm_* and ir.passes module llvm_kernels uses is
    hashed."""
    import types

    from jitgrad.codegen.cpu import llvm_kernels
    hashed = set(llvm_kernels.generator_sources())
    used = set()
    for obj in vars(llvm_kernels).values():
        name = obj.__name__ if isinstance(obj, types.ModuleType) else getattr(obj, "__module__", "")
        if name and any(part in name for part in (".codegen.kernel.", ".codegen.cpu.llvm_",
                                                  ".codegen.cpu.kernels.",
                                                  ".ir.passes.")):
            used.add(sys.modules[name].__file__)
    assert used and any(p.endswith(os.path.join("kernel", "nest.py")) for p in used)
    assert used <= hashed, sorted(used - hashed)
