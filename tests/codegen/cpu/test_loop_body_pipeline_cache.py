"""Loop bodies compiled into native loops (codegen/cpu/backend.compile_subgraph) go through the
pipeline cache as a jitted function's graph does (codegen/pipeline_cache.py): a warm compile of
a scan, a while_loop, a fori_loop or a cond runs no pass on the graph nor on its bodies or
branches, and gives the same values; the bodies' entries sit beside the graph's, under the same
kind of key."""
import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad.ir.passes import manager
from jitgrad.runtime import cache


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("JITGRAD_CACHE_DIR", str(tmp_path / "c"))
    return tmp_path / "c"


@pytest.fixture
def pipeline_runs(monkeypatch):
    """The names of the graphs the pass pipeline runs on."""
    names, real = [], manager.run_pipeline

    def counting(graph, *args, **kwargs):
        names.append(graph.name)
        return real(graph, *args, **kwargs)
    monkeypatch.setattr(manager, "run_pipeline", counting)
    return names


def _entries(cache_dir):
    return sorted((cache_dir / cache.SUBDIR / "pipeline").glob("*.pkl"))


def rnn(h, xs, w):
    def step(h, x):
        h = jnp.tanh(h @ w + x)
        return h, jnp.sum(h * h)
    return jg.lax.scan(step, h, xs)


def halving(x):
    return jg.lax.while_loop(lambda c: jnp.max(jnp.abs(c)) > 1e-3, lambda c: c * 0.5, x)


def powers(x):
    return jg.lax.fori_loop(0, 5, lambda i, c: c * x + i, jnp.ones_like(x))


def branch(x):
    return jg.lax.cond(jnp.sum(x) > 0, lambda x: jnp.tanh(x) * 2.0, lambda x: x - 1.0, x)


def _branch_reference(x):
    return np.tanh(x) * 2 if np.sum(x) > 0 else x - 1


def _rnn_reference(h, xs, w):
    ys = []
    for x in xs:
        h = np.tanh(h @ w + x)
        ys.append(np.sum(h * h))
    return h, np.array(ys, np.float32)


def _powers_reference(x):
    c = np.ones_like(x)
    for i in range(5):
        c = c * x + i
    return c


CASES = {
    "scan": (rnn, lambda rng: (rng.standard_normal((2, 4)).astype(np.float32),
                               rng.standard_normal((6, 2, 4)).astype(np.float32),
                               (0.3 * rng.standard_normal((4, 4))).astype(np.float32)),
             _rnn_reference),
    "while_loop": (halving, lambda rng: (rng.standard_normal((3, 5)).astype(np.float32),),
                   None),
    "cond": (branch, lambda rng: (rng.standard_normal((6,)).astype(np.float32),),
             _branch_reference),
    "fori_loop": (powers, lambda rng: (rng.standard_normal((7,)).astype(np.float32),),
                  _powers_reference),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_warm_compile_runs_no_pass_on_loop_bodies(case, cache_dir, pipeline_runs, rng):
    fn, make_args, reference = CASES[case]
    args = make_args(rng)
    cold = jg.tree_util.tree_map(np.asarray, jg.jit(fn)(*args))
    assert len(pipeline_runs) >= 2, pipeline_runs       # the graph and its loop's sub-graph(s)
    assert len(_entries(cache_dir)) == len(pipeline_runs)
    del pipeline_runs[:]
    warm = jg.tree_util.tree_map(np.asarray, jg.jit(fn)(*args))   # a new function: traced again
    assert pipeline_runs == []
    for a, b in zip(jg.tree_util.tree_leaves(cold), jg.tree_util.tree_leaves(warm)):
        np.testing.assert_array_equal(a, b)
    if reference is not None:
        for a, b in zip(jg.tree_util.tree_leaves(warm),
                        jg.tree_util.tree_leaves(reference(*args))):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    else:
        assert np.max(np.abs(warm)) <= 1e-3


def test_a_body_seen_in_another_graph_is_loaded(cache_dir, pipeline_runs, rng):
    """Two functions with the same loop body: the second optimizes its own graph only."""
    h, xs, w = CASES["scan"][1](rng)
    jg.jit(rnn)(h, xs, w)
    first = list(pipeline_runs)
    del pipeline_runs[:]
    h_out, _ = jg.jit(lambda h, xs, w: rnn(h * 1.0, xs, w))(h, xs, w)
    assert len(pipeline_runs) == 1 and len(first) >= 2
    np.testing.assert_allclose(np.asarray(h_out), _rnn_reference(h, xs, w)[0], rtol=1e-5,
                               atol=1e-6)
