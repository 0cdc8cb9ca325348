"""The `--device cuda` benchmark harness, the parts that run without a GPU: bytes-moved
accounting, goals and verdicts, the markdown table, interleaved timing with stand-in peers, and
the one-line refusal where no GPU can be measured. Speed is never asserted."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from jitgrad.benchmarks import cli, cuda_workloads as cw
from jitgrad.benchmarks.workloads import BY_NAME

MB = 1e6


def _inputs(workload, size):
    return BY_NAME[workload].make_inputs(np.random.default_rng(0), size)


def test_the_issue_sizes_are_all_there():
    sizes = {(c.workload, c.size) for c in cw.CASES}
    assert {("ew_chain", 10_000_000), ("gelu", 10_000_000), ("softmax", (4096, 1024)),
            ("softmax", (16384, 4096)), ("layernorm", (4096, 1024)),
            ("layernorm", (16384, 4096)), ("sum_sq", 100_000_000), ("mlp_step", 256),
            ("mlp_step", 4096), ("call_overhead", 16)} == sizes
    assert all(c.workload in cw.GOAL_OF for c in cw.CASES)


@pytest.mark.parametrize("workload,size,moved", [
    ("ew_chain", 1000, 2 * 4 * 1000),          # read x, write out
    ("gelu", 1000, 2 * 4 * 1000),
    ("softmax", (16, 64), 2 * 4 * 16 * 64),
    ("layernorm", (16, 64), 2 * 4 * 16 * 64),
    ("sum_sq", 1000, 4 * 1000),                # read only
    ("mlp_step", 32, None),                    # matmul-bound: no HBM bound
    ("call_overhead", 16, None),               # launch-bound
])
def test_bytes_moved(workload, size, moved):
    assert cw.bytes_moved(workload, _inputs(workload, size)) == moved


def _row(workload, size, bandwidth, **ms):
    results = {k.replace("_", "."): {"ms": v, "check": "ok"} for k, v in ms.items()}
    return cw.build_row(workload, size, _inputs(workload, size), bandwidth, results)


def test_bound_and_verdicts():
    # 2 * 4 MB through 8 GB/s: the bound is 1 ms
    row = _row("ew_chain", 1_000_000, 8e9, jitgrad=1.2, torch_compile=1.5)
    assert row["bytes_moved"] == 8_000_000 and row["bound_ms"] == pytest.approx(1.0)
    assert row["verdict"] == "met: 1.20x bound, 0.80x torch.compile"
    assert _row("ew_chain", 1_000_000, 8e9, jitgrad=1.4, torch_compile=2.0)["verdict"] == \
        "missed: 1.40x bound, 0.70x torch.compile"
    assert _row("ew_chain", 1_000_000, 8e9, jitgrad=1.1, torch_compile=1.0)["verdict"] == \
        "missed: 1.10x bound, 1.10x torch.compile"
    assert _row("ew_chain", 1_000_000, 8e9, jitgrad=1.1)["verdict"] == \
        "met: 1.10x bound (torch.compile not run)"
    assert _row("mlp_step", 32, 8e9, jitgrad=3.0, torch=2.0)["verdict"] == "met: 1.50x torch eager"
    assert _row("mlp_step", 32, 8e9, jitgrad=3.1, torch=2.0)["verdict"] == "missed: 1.55x torch eager"
    assert _row("mlp_step", 32, 8e9, jitgrad=3.1)["verdict"] == \
        "not measured: needs jitgrad and torch eager times"
    assert _row("call_overhead", 16, 8e9, jitgrad=0.0125)["verdict"] == "missed: 12.5 µs per call"
    assert _row("call_overhead", 16, 8e9, jitgrad=0.008)["verdict"] == "met: 8.0 µs per call"
    errored = cw.build_row("sum_sq", 1000, _inputs("sum_sq", 1000), 8e9,
                           {"jitgrad": {"error": "RuntimeError: boom"}})
    assert errored["verdict"] == "not measured: no jitgrad time"


def test_markdown_table():
    rows = [_row("softmax", (16, 64), 8e9, jitgrad=0.5, torch=0.25, torch_compile=0.75),
            cw.build_row("sum_sq", 1000, _inputs("sum_sq", 1000), 8e9,
                         {"jitgrad": {"error": "ValueError: a|b"},
                          "torch": {"ms": 0.1, "check": "mismatch: |err| exceeds rtol by 1e-2"}})]
    report = {"meta": {"device": "NVIDIA H100 80GB HBM3", "sizes": "full", "repeat": 11,
                       "copy_GB_per_s": 8.0, "impls": ["jitgrad", "torch", "torch.compile"],
                       "versions": {"jitgrad": "0.1", "torch": "2.9"}},
              "skipped": {"cupy": "ModuleNotFoundError: No module named 'cupy'"}, "rows": rows}
    text = cw.to_markdown(report)
    lines = text.splitlines()
    assert lines[0] == ("# jitgrad on NVIDIA H100 80GB HBM3 (full sizes, 11 interleaved rounds, "
                        "median time per call)")
    assert "- not run: cupy (ModuleNotFoundError: No module named 'cupy')" in lines
    header = ("| workload | size | MB moved | bound ms | jitgrad ms | torch ms | torch.compile ms "
              "| goal | verdict |")
    at = lines.index(header)
    assert lines[at + 1] == "|---|---|---:|---:|---:|---:|---:|---|---|"
    assert lines[at + 2] == ("| softmax | (16, 64) | 0.008192 | 0.001024 | 0.5 | 0.25 | 0.75 | "
                             "≤ 1.3x HBM bound and ≤ torch.compile | "
                             "missed: 488.28x bound, 0.67x torch.compile |")
    assert lines[at + 3] == ("| sum_sq | 1000 | 0.004 | 0.0005 | error: ValueError: a\\|b | "
                             "0.1 (mismatch: \\|err\\| exceeds rtol by 1e-2) | - | "
                             "≤ 1.3x HBM bound and ≤ torch.compile | not measured: no jitgrad time |")
    json.dumps(report)    # the same dict is the JSON file


def _stand_in(name, fns, waits):
    return cw.Peer(name, "0", fns, np.asarray, np.asarray, lambda out: waits.append(name))


def test_timing_interleaves_checks_and_reports_errors():
    waits = []
    inputs = _inputs("sum_sq", 1000)
    ref = np.sum(inputs[0] * inputs[0])
    peers = [_stand_in("good", {"sum_sq": lambda x: np.sum(x * x)}, waits),
             _stand_in("wrong", {"sum_sq": lambda x: np.sum(x)}, waits),
             _stand_in("raises", {"sum_sq": lambda x: 1 / 0}, waits),
             _stand_in("absent", {}, waits)]
    out = cw.time_case(peers, "sum_sq", inputs, ref, repeat=3, target_s=1e-4)
    assert set(out) == {"good", "wrong", "raises"}
    assert out["good"]["check"] == "ok" and out["good"]["ms"] > 0 and out["good"]["calls"] >= 1
    assert out["wrong"]["check"].startswith("mismatch") and out["wrong"]["ms"] > 0
    assert out["raises"] == {"error": "ZeroDivisionError: division by zero"}
    # one wait per batch: the warm-up batch and 3 timed rounds of each working peer
    assert waits.count("good") == waits.count("wrong") == 4


def _bench(*argv, **env):
    return subprocess.run([sys.executable, "-m", "jitgrad.benchmarks", *argv],
                          env={**os.environ, **env}, capture_output=True, text=True, timeout=120)


def test_without_a_gpu_one_line_and_nonzero_exit():
    from jitgrad.runtime import cuda_device
    if cuda_device.is_available():
        pytest.skip("a GPU is present: the benchmark would run")
    result = _bench("--device", "cuda")
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.startswith("--device cuda: no usable CUDA GPU here: ")
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr


def test_under_the_simulator_one_line_and_nonzero_exit():
    result = _bench("--device", "cuda", NUMBA_ENABLE_CUDASIM="1")
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert result.stderr.strip() == (
        "--device cuda: NUMBA_ENABLE_CUDASIM=1 is set: the CUDA simulator runs every GPU thread "
        "as a Python thread and cannot be benchmarked; unset it on a machine with an NVIDIA GPU")


def test_gpu_peers_on_the_command_line():
    assert cli.parse(["--device", "cuda"], "bench").compare_gpu == list(cw.PEERS)
    assert cli.parse(["--device", "cuda", "--compare", "torch,cupy"], "bench").compare_gpu == \
        ["torch", "torch.compile", "cupy"]
    with pytest.raises(SystemExit) as e:
        cli.parse(["--device", "cuda", "--compare", "numba"], "bench")
    assert e.value.code == 2


def test_unknown_gpu_peer_is_named(capsys):
    with pytest.raises(SystemExit):
        cli.parse(["--device", "cuda", "--compare", "tensorflow"], "bench")
    assert "--device cuda: unknown peer(s) tensorflow; choose from torch, torch.compile, jax, " \
        "cupy" in capsys.readouterr().err


def test_missing_peers_are_listed_not_fatal(monkeypatch):
    def gone():
        raise ImportError("No module named 'cupy'")
    monkeypatch.setitem(cw.LOADERS, "cupy", gone)
    monkeypatch.setattr(cw, "_jitgrad", lambda: _stand_in("jitgrad", {}, []))
    peers, skipped = cw.load_peers(["cupy"])
    assert [p.name for p in peers] == ["jitgrad"]
    assert skipped == {"cupy": "ImportError: No module named 'cupy'"}


def _numpy_stand_ins(names):
    """jitgrad and torch played by NumPy on the host: the whole run, minus the GPU."""
    from jitgrad.benchmarks import impl_numpy
    fns = impl_numpy.IMPLS[0].fns
    return [_stand_in("jitgrad", fns, []), _stand_in("torch", fns, [])], {"cupy": "not installed"}


def test_a_whole_quick_run_writes_markdown_and_json(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(cw, "unavailable_reason", lambda: None)
    monkeypatch.setattr(cw, "measure_device", lambda: ("Stand-in GPU", 100e9))
    monkeypatch.setattr(cw, "load_peers", _numpy_stand_ins)
    out = tmp_path / "run.json"
    args = cli.parse(["--device", "cuda", "--quick", "--repeat", "1", "--json", str(out),
                      "sum_sq", "mlp_step", "call_overhead"], "bench")
    assert cw.main(args) == 0
    report = json.loads(out.read_text())
    assert [(r["workload"], r["size"]) for r in report["rows"]] == \
        [("sum_sq", "1000000"), ("mlp_step", "32"), ("mlp_step", "64"), ("call_overhead", "16")]
    for row in report["rows"]:
        assert row["results"]["jitgrad"]["check"] == "ok" and row["results"]["torch"]["ms"] > 0
    assert report["rows"][0]["bound_ms"] == pytest.approx(1e3 * 4e6 / 100e9)
    assert report["rows"][1]["verdict"].startswith(("met: ", "missed: "))
    assert report["meta"]["device"] == "Stand-in GPU" and report["skipped"] == {"cupy": "not installed"}
    markdown = (tmp_path / "run.md").read_text()
    assert markdown.startswith("# jitgrad on Stand-in GPU (quick sizes, 1 interleaved rounds")
    assert markdown in capsys.readouterr().out


def test_workloads_without_a_gpu_case_are_named(monkeypatch, capsys):
    monkeypatch.setattr(cw, "unavailable_reason", lambda: None)
    assert cw.main(cli.parse(["--device", "cuda", "logreg_step"], "bench")) == 2
    assert capsys.readouterr().err.strip() == (
        "--device cuda: none of logreg_step has a GPU case; choose from ew_chain, gelu, softmax, "
        "layernorm, sum_sq, mlp_step, call_overhead")
