"""The model benchmark (python -m jitgrad.benchmarks models): every model's jitgrad step at tiny
sizes, the gradient comparison against a NumPy reference, the child process and the runner.
No timing is asserted."""
import json
import subprocess
import sys

import numpy as np
import pytest

from jitgrad.benchmarks.models import compare, fw_jitgrad, model_spec, runner


@pytest.mark.parametrize("model", model_spec.MODELS)
def test_jitgrad_step_of_each_model_at_small_sizes(model):
    cfg = model_spec.config(model, small=True)
    weights = model_spec.weights(model, cfg)
    tr = fw_jitgrad.Trainer(model, cfg, weights, model_spec.batch(model, cfg))
    losses = [tr.step(), tr.step()]
    assert all(np.isfinite(losses)) and losses[1] < losses[0]
    grads = tr.grads()
    assert set(grads) == set(weights)
    for name, g in grads.items():
        assert g.shape == weights[name].shape and np.all(np.isfinite(g))
    # the first loss is the loss at the initial weights: ln(classes) at most a little off
    classes = getattr(cfg, "vocab", None) or getattr(cfg, "classes", None) or cfg.sizes[-1]
    assert abs(losses[0] - np.log(classes)) < 1.0


def _numpy_mlp_grads(w, x, y):
    """Backpropagation by hand for fc0-relu-fc1-relu-fc2 and mean cross entropy."""
    acts, h = [x], x
    for i in range(3):
        z = h @ w[f"fc{i}.weight"].T + w[f"fc{i}.bias"]
        h = np.maximum(z, 0) if i < 2 else z
        acts.append(h)
    p = np.exp(h - h.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    dz = (p - np.eye(h.shape[1])[y]) / len(y)
    g = {}
    for i in (2, 1, 0):
        g[f"fc{i}.weight"] = dz.T @ acts[i]
        g[f"fc{i}.bias"] = dz.sum(0)
        dz = (dz @ w[f"fc{i}.weight"]) * (acts[i] > 0)
    return g


def test_gradient_comparison_against_numpy_reference():
    cfg = model_spec.config("mlp", small=True)
    w = {k: v.astype(np.float64) for k, v in model_spec.weights("mlp", cfg).items()}
    x, y = model_spec.batch("mlp", cfg)
    reference = _numpy_mlp_grads(w, x.astype(np.float64), y)
    tr = fw_jitgrad.Trainer("mlp", cfg, model_spec.weights("mlp", cfg), (x, y))
    diff, leaf = compare.grad_diff(tr.grads(), reference)
    assert diff < 1e-5, (diff, leaf)
    # the comparison finds the worst leaf and reports it
    bad = dict(reference)
    bad["fc1.bias"] = reference["fc1.bias"] + np.array([0.0] * 15 + [0.25])
    diff, leaf = compare.grad_diff(bad, reference)
    assert leaf == "fc1.bias" and diff == pytest.approx(0.25)
    bad["fc2.weight"] = reference["fc2.weight"] * np.nan
    assert compare.grad_diff(bad, reference)[1] == "fc2.weight"
    with pytest.raises(ValueError, match=r"missing \['fc0.bias'\]"):
        compare.grad_diff({k: v for k, v in reference.items() if k != "fc0.bias"}, reference)
    with pytest.raises(ValueError, match="'fc0.bias': shape"):
        compare.grad_diff({**reference, "fc0.bias": reference["fc0.bias"][:2]}, reference)


def test_ratios_and_table():
    rows = [{"model": "mlp", "framework": "jitgrad", "median_ms": 6.0},
            {"model": "mlp", "framework": "jax", "median_ms": 4.0},
            {"model": "mlp", "framework": "torch", "median_ms": 5.0},
            {"model": "cnn", "framework": "jitgrad", "error": "boom"}]
    compare.add_ratios(rows)
    assert rows[0]["x_best_peer"] == pytest.approx(1.5)
    assert rows[1]["x_best_peer"] == pytest.approx(0.8)
    text = compare.markdown(rows, {"mlp": "MLP"}, ["a note"])
    assert "| MLP | 6.00 | 4.00 | 5.00 | 1.50x |" in text
    assert "error: boom" in text and "- a note" in text


def test_child_process_reports_json(tmp_path):
    grads = tmp_path / "g.npz"
    proc = subprocess.run([sys.executable, runner.CHILD, "jitgrad", "mlp", "--small", "--steps",
                           "2", "--warmup", "1", "--grads", str(grads)],
                          capture_output=True, text=True, timeout=300)
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert "error" not in out, out
    assert out["steps"] == 2 and out["min_ms"] <= out["median_ms"] <= out["max_ms"]
    assert out["first_s"] > 0 and out["peak_rss_mb"] > 0
    with np.load(grads) as g:
        assert sorted(g) == sorted(model_spec.weights("mlp", model_spec.config("mlp", True)))


def test_runner_skips_missing_peers_and_writes_json(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(runner.IMPORTS, "jax", "no_such_framework_module")
    path = tmp_path / "out.json"
    rc = runner.main(["--small", "--models", "mlp", "--frameworks", "jitgrad,jax", "--steps",
                      "2", "--warmup", "0", "--json", str(path)])
    text = capsys.readouterr().out
    assert rc == 0
    assert "jax: not installed, skipped" in text and "no JAX run" in text
    rows = json.loads(path.read_text())["rows"]
    assert [(r["model"], r["framework"]) for r in rows] == [("mlp", "jitgrad")]
    assert rows[0]["first_cold_s"] > 0 and rows[0]["first_warm_s"] > 0


def test_rounds_report_the_median_of_the_processes_medians(tmp_path, capsys):
    path = tmp_path / "out.json"
    rc = runner.main(["--small", "--models", "mlp", "--frameworks", "jitgrad", "--steps", "2",
                      "--warmup", "0", "--rounds", "3", "--json", str(path)])
    text = capsys.readouterr().out
    assert rc == 0 and "the median of 3 processes' medians" in text
    (row,) = json.loads(path.read_text())["rows"]
    assert len(row["round_ms"]) == 3 and row["median_ms"] == sorted(row["round_ms"])[1]
    assert row["min_ms"] <= row["median_ms"] <= row["max_ms"]


def test_runner_rejects_unknown_names():
    with pytest.raises(SystemExit):
        runner.parse(["--models", "resnet9"], "models")
    with pytest.raises(SystemExit):
        runner.parse(["--frameworks", "tensorflow"], "models")


def test_contention_neighbour_process_and_thread_end_with_the_run():
    with runner.Neighbour(True) as n:
        assert n.proc.poll() is None                  # the BLAS loop runs beside the child
    assert n.proc.returncode is not None
    with runner.Neighbour(False) as n:
        assert n.proc is None
    import threading
    from jitgrad.benchmarks.models import child
    before = threading.active_count()
    out = child.run("jitgrad", "mlp", True, 2, 0, None, "thread")
    assert out["steps"] == 2 and out["median_ms"] > 0
    import time
    for _ in range(100):                  # the matmul thread stops after its current product
        if threading.active_count() == before:
            break
        time.sleep(0.05)
    assert threading.active_count() == before


def test_resnet_batchnorm_state_and_gradients_match_jax():
    """The ResNet's BatchNorm in training mode: jitgrad (nn.BatchNorm2d, buffers written back
    under jit) and the hand-written JAX model agree on the gradients and, after two steps, on
    the running statistics and the weights."""
    pytest.importorskip("jax")
    from jitgrad.benchmarks.models import fw_jax
    cfg = model_spec.config("resnet", small=True)
    weights, data = model_spec.weights("resnet", cfg), model_spec.batch("resnet", cfg)
    ours, theirs = fw_jitgrad.Trainer("resnet", cfg, weights, data), \
        fw_jax.Trainer("resnet", cfg, weights, data)
    for _ in range(2):
        np.testing.assert_allclose(ours.step(), theirs.step(), rtol=1e-5)
    state = {k: np.asarray(v) for k, v in ours.model.state_dict().items()}
    assert int(state["bn.num_batches_tracked"]) == 2
    assert np.abs(state["bn.running_mean"]).max() > 0
    for name, v in {**theirs.buffers, **theirs.params}.items():
        np.testing.assert_allclose(state[name], np.asarray(v), rtol=1e-4, atol=1e-6,
                                   err_msg=name)
    diff, leaf = compare.grad_diff(ours.grads(), theirs.grads())      # at the initial weights
    assert diff < 1e-5, (diff, leaf)
