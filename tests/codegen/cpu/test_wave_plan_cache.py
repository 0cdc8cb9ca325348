"""The CPU's memory plan laid out for its pool's waves (codegen/cpu/waves.py) is cached with the
pass pipeline's result (codegen/pipeline_cache.py): a warm load runs no wave planner
(waves.layout_info()'s 'laid' count stays), gives the same waves and values; a plan laid out for
another width is laid out again; the layout is part of the cache key."""
import os
import subprocess
import sys

import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad.codegen.cpu import waves
from jitgrad.codegen import pipeline_cache
from jitgrad.ir.passes.manager import run_pipeline
from jitgrad.ir.passes.plan_memory import plan_memory
from jitgrad.runtime import thread_pool


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("JITGRAD_CACHE_DIR", str(tmp_path / "c"))
    return tmp_path / "c"


@pytest.fixture
def two_threads():
    thread_pool.set_num_threads(2)
    yield
    thread_pool.use_default_size()


def _qkv_args():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((192, 64)).astype(np.float32)
    return (x, *((rng.standard_normal((64, 64)) * 0.1).astype(np.float32) for _ in range(3)))


def qkv(x, wq, wk, wv):
    """Three independent projections: two lanes of one wave on two threads."""
    return jnp.tanh(x @ wq), jnp.tanh(x @ wk), jnp.tanh(x @ wv)


def _plan(f):
    return next(iter(f._cache.values())).exe.memory_plan


def test_warm_load_plans_no_waves(cache_dir, two_threads):
    args = _qkv_args()
    before = waves.layout_info()
    cold = jg.jit(qkv)
    first = [np.asarray(v) for v in cold(*args)]
    mid = waves.layout_info()
    assert mid["laid"] == before["laid"] + 1 and mid["kept"] == before["kept"] + 1
    warm = jg.jit(qkv)          # a new function object: traced again, its pipeline from disk
    second = [np.asarray(v) for v in warm(*args)]
    after = waves.layout_info()
    assert after["laid"] == mid["laid"] and after["kept"] == mid["kept"] + 1
    assert _plan(cold).waves and _plan(warm).waves == _plan(cold).waves
    assert _plan(warm).width == 2
    for a, b, w in zip(first, second, args[1:]):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_allclose(a, np.tanh(args[0] @ w), rtol=1e-5, atol=1e-6)


def test_another_width_is_laid_out_again():
    schedule, _, plan = run_pipeline(jg.make_graph(qkv)(*_qkv_args()))
    two = waves.planned(schedule, plan, width=2)
    assert two.waves and two.width == 2
    assert waves.planned(schedule, two, width=2) is two
    one = waves.planned(schedule, two, width=1)
    assert one.width == 1 and one.waves == [] and one.order == list(range(len(schedule.nodes)))
    one.check()
    assert str(one) == str(plan_memory(schedule))
    assert waves.planned(schedule, one, width=2).waves == two.waves


def test_layout_is_part_of_the_key(cache_dir):
    g = jg.make_graph(qkv)(*_qkv_args())
    assert pipeline_cache.key(g, (), "cpu") != pipeline_cache.key(g, ())
    assert pipeline_cache.key(g, (), "cpu") == pipeline_cache.key(g, (), "cpu")


@pytest.mark.interpreter
def test_interpreter_gets_the_pipelines_plan(cache_dir, two_threads):
    """Without a backend to run it, the plan is the pipeline's own: nothing laid out."""
    before = waves.layout_info()
    args = _qkv_args()
    got = jg.jit(qkv)(*args)
    np.testing.assert_allclose(np.asarray(got[0]), np.tanh(args[0] @ args[1]), rtol=1e-5,
                               atol=1e-6)
    assert waves.layout_info() == before


PROGRAM = """
import json, numpy as np, jitgrad as jg, jitgrad.numpy as jnp
from jitgrad.codegen.cpu import waves
x = np.linspace(-1, 1, 48, dtype=np.float32).reshape(6, 8)
f = jg.jit(jg.value_and_grad(lambda x: jnp.sum(jnp.tanh(x @ x.T))))
f(x)
print(json.dumps(waves.layout_info()))
"""


def test_second_process_plans_no_waves(tmp_path):
    env = {**os.environ, "JITGRAD_CACHE_DIR": str(tmp_path / "c")}
    counts = []
    for _ in range(2):
        p = subprocess.run([sys.executable, "-c", PROGRAM], env=env, capture_output=True,
                           text=True, timeout=300)
        assert p.returncode == 0, p.stderr
        counts.append(p.stdout.strip().splitlines()[-1])
    assert counts[0] == '{"laid": 1, "kept": 1}'
    assert counts[1] == '{"laid": 0, "kept": 1}'
