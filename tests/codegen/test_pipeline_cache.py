"""The pass pipeline's results on disk (codegen/pipeline_cache.py): a graph optimized
before is loaded, not optimized again, with the same optimized IR and memory plan; the key tells
apart source lines, donated inputs and switched-off passes; a damaged entry is recomputed;
`jitgrad cache clear` removes the entries; a second process gets the hit."""
import os
import subprocess
import sys

import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad.ir.passes.manager import run_pipeline
from jitgrad.runtime import cache
from jitgrad.codegen import pipeline_cache


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("JITGRAD_CACHE_DIR", str(tmp_path / "c"))
    return tmp_path / "c"


def _graph(scale=2.0):
    x = np.linspace(-1, 1, 32, dtype=np.float32).reshape(4, 8)
    return jg.make_graph(lambda x: jnp.sum(jnp.tanh(x * scale) + 1.0, axis=1))(x)


class Counting:
    def __init__(self):
        self.calls = 0

    def __call__(self, g, donated):
        self.calls += 1
        return run_pipeline(g, donated=donated)


def _entries(cache_dir):
    return sorted((cache_dir / cache.SUBDIR / "pipeline").glob("*.pkl"))


def test_second_optimization_loads_the_same_result(cache_dir):
    run = Counting()
    first = pipeline_cache.cached(_graph(), (), run)
    second = pipeline_cache.cached(_graph(), (), run)
    assert run.calls == 1 and len(_entries(cache_dir)) == 1
    assert str(second[0]) == str(first[0]) and str(second[2]) == str(first[2])
    # the schedule is the loaded graph's own nodes (one pickle: identities kept)
    assert len(second[1]) == len(first[1])
    assert all(a is b for a, b in zip(second[1], second[0].nodes))


def test_a_loaded_schedule_carries_its_kernels_canonical_text(cache_dir, monkeypatch):
    """The entry carries each kernel's canonical text, so loading a schedule's units from disk
    prints no body again; it is the text printing would give."""
    from jitgrad.codegen.kernel import canonical
    from jitgrad.ir.graph import Graph
    run = Counting()
    pipeline_cache.cached(_graph(), (), run)
    printed, real = [], Graph.__str__
    monkeypatch.setattr(Graph, "__str__", lambda g: printed.append(g) or real(g))   # the printer
    loaded = pipeline_cache.cached(_graph(), (), run)
    kernels = [n for n in loaded[1] if n.op.name == "kernel"]
    assert run.calls == 1 and kernels
    lines = [canonical.body_lines(n) for n in kernels]
    assert not [g for g in printed if any(g is n.params["body"] for n in kernels)]
    monkeypatch.undo()
    for n, got in zip(kernels, lines):
        del canonical._LINES[n.params["body"]]
        assert canonical.body_lines(n) == got


def test_key_tells_apart_graphs_lines_donation_and_passes(cache_dir, monkeypatch):
    g = _graph()
    base = pipeline_cache.key(g, ())
    assert pipeline_cache.key(_graph(), ()) == base
    assert pipeline_cache.key(_graph(3.0), ()) != base            # another constant
    assert pipeline_cache.key(g, (0,)) != base                    # a donated input
    x = np.ones((4, 8), np.float32)
    f1 = jg.make_graph(lambda x: jnp.sum(jnp.tanh(x * 2.0) + 1.0, axis=1))(x)
    f2 = jg.make_graph(
        lambda x: jnp.sum(jnp.tanh(x * 2.0) + 1.0, axis=1))(x)    # same ops, another line
    assert str(f1).split("#")[0] == str(f2).split("#")[0]
    assert pipeline_cache.key(f1, ()) != pipeline_cache.key(f2, ())
    monkeypatch.setenv("JITGRAD_DISABLE", "fuse")
    assert pipeline_cache.key(g, ()) != base


def test_damaged_entry_is_recomputed(cache_dir, monkeypatch, capsys):
    monkeypatch.setenv("JITGRAD_DEBUG", "1")
    run = Counting()
    good = pipeline_cache.cached(_graph(), (), run)
    (path,) = _entries(cache_dir)
    data = path.read_bytes()
    path.write_bytes(data[:-10] + b"garbage!!!")
    again = pipeline_cache.cached(_graph(), (), run)
    assert run.calls == 2 and str(again[0]) == str(good[0])
    assert "fails its checksum" in capsys.readouterr().err
    path.write_bytes(data[:20])                                   # truncated
    pipeline_cache.cached(_graph(), (), run)
    assert run.calls == 3
    assert path.read_bytes() == data                              # rewritten whole


def test_print_after_runs_the_passes(cache_dir, monkeypatch, capsys):
    run = Counting()
    pipeline_cache.cached(_graph(), (), run)
    monkeypatch.setenv("JITGRAD_PRINT_AFTER", "fuse")
    pipeline_cache.cached(_graph(), (), run)
    assert run.calls == 2


def test_cache_clear_removes_the_entries(cache_dir):
    pipeline_cache.cached(_graph(), (), Counting())
    assert len(_entries(cache_dir)) == 1
    info = cache.cache_clear()
    assert info["files"] >= 1 and info["foreign"] == 0 and _entries(cache_dir) == []


def test_jit_results_from_a_cached_pipeline(cache_dir, rng):
    """A jitted function compiled twice (its in-memory executables dropped between) gives the same
    values; the second compile loads the pipeline's result."""
    x = rng.standard_normal((8, 16)).astype(np.float32)
    w = rng.standard_normal((16, 4)).astype(np.float32)

    def loss(w, x):
        return jnp.mean(jnp.tanh(x @ w) ** 2)
    first = [np.asarray(v) for v in jg.jit(jg.value_and_grad(loss))(w, x)]
    assert len(_entries(cache_dir)) >= 1
    second = [np.asarray(v) for v in jg.jit(jg.value_and_grad(loss))(w, x)]
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a, b)


PROGRAM = """
import numpy as np, jitgrad as jg, jitgrad.numpy as jnp
w = np.linspace(-1, 1, 32, dtype=np.float32).reshape(8, 4)
x = np.linspace(0, 1, 24, dtype=np.float32).reshape(3, 8)
step = jg.jit(jg.value_and_grad(lambda w, x: jnp.sum(jax_like(x @ w))))
print(repr(np.asarray(step(w, x)[1]).tolist()))
""".replace("jax_like", "jnp.tanh")


def test_second_process_hits_the_pipeline_cache(tmp_path):
    env = {**os.environ, "JITGRAD_CACHE_DIR": str(tmp_path / "c"), "JITGRAD_DEBUG": "1"}
    outs = []
    for _ in range(2):
        p = subprocess.run([sys.executable, "-c", PROGRAM], env=env, capture_output=True,
                           text=True, timeout=300)
        assert p.returncode == 0, p.stderr
        outs.append(p)
    assert "pipeline cache hit" not in outs[0].stderr
    assert "pipeline cache hit" in outs[1].stderr
    assert outs[0].stdout == outs[1].stdout
