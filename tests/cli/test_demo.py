"""`jitgrad demo --quick` (one epoch of each model) runs end to end and learns."""
import re
import subprocess
import sys


def test_demo_quick_reaches_sane_accuracy():
    r = subprocess.run([sys.executable, "-m", "jitgrad.cli", "demo", "--quick"],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    out = r.stdout
    assert "1437 train / 360 test" in out
    accuracies = [float(a) for a in re.findall(r"test accuracy (\d+\.\d)%", out)]
    assert len(accuracies) == 2 and min(accuracies) > 80.0, out
    assert re.search(r"compile \d+\.\d+ s \(\w+ backend\); step .* jitted vs .* eager: "
                     r"\d+x faster", out), out
    assert "epoch  1/1" in r.stderr          # the progress bars


def test_demo_reports_missing_mnist_directory(tmp_path):
    r = subprocess.run([sys.executable, "-m", "jitgrad.cli", "demo", "--data",
                        str(tmp_path / "nope")], capture_output=True, text=True, timeout=120)
    assert r.returncode == 1
    assert "does not exist" in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_demo_loads_mnist_idx_files(tmp_path):
    import gzip
    import struct

    import numpy as np

    from jitgrad.cli import demo

    rng = np.random.default_rng(0)
    for prefix, n in (("train", 12), ("t10k", 5)):
        images = rng.integers(0, 256, (n, 28, 28), dtype=np.uint8)
        labels = rng.integers(0, 10, n, dtype=np.uint8)
        (tmp_path / f"{prefix}-images-idx3-ubyte.gz").write_bytes(gzip.compress(
            struct.pack(">BBBBIII", 0, 0, 8, 3, n, 28, 28) + images.tobytes()))
        (tmp_path / f"{prefix}-labels-idx1-ubyte").write_bytes(
            struct.pack(">BBBBI", 0, 0, 8, 1, n) + labels.tobytes())
    (x_train, y_train), (x_test, y_test), name, about = demo.load(str(tmp_path))
    assert name == "mnist" and str(tmp_path) in about
    assert x_train.shape == (12, 784) and x_test.shape == (5, 784) and y_train.dtype == np.int64


def test_plot_writes_png_and_missing_matplotlib_is_reported(tmp_path, monkeypatch, capsys):
    import argparse

    import pytest

    from jitgrad.cli import demo

    pytest.importorskip("matplotlib")
    runs = [demo.Run("a", [1.0, 0.5], [0.8, 0.9]), demo.Run("b", [0.9, 0.3], [0.85, 0.97])]
    demo.plot(runs, tmp_path / "curves.png")
    assert (tmp_path / "curves.png").read_bytes()[:4] == b"\x89PNG"

    monkeypatch.setitem(sys.modules, "matplotlib", None)      # as if not installed
    assert demo.main(argparse.Namespace(plot=str(tmp_path / "x.png"), quick=True)) == 1
    assert "--plot needs matplotlib" in capsys.readouterr().err


def test_demo_distributed_two_ranks_end_equal(tmp_path):
    import os

    import pytest
    pytest.importorskip("mpi4py", reason="mpi4py is not installed (pip install "
                        "'jitgrad[distributed]')")
    mpiexec = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    # the interpreter backend: this checks the data-parallel logic, not compile time
    env = {**os.environ, "JITGRAD_BACKEND": "interpreter"}
    r = subprocess.run([mpiexec, "--allow-run-as-root", "--oversubscribe", "-n", "2",
                        sys.executable, "-m", "jitgrad.cli", "demo", "--distributed", "--quick"],
                       capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 0, r.stdout + r.stderr[-3000:]
    out = r.stdout
    assert out.count("jitgrad demo --distributed: 2 MPI ranks") == 1, out   # rank 0 prints
    assert "global batch 32 = 2 x 16" in out
    accuracies = [float(a) for a in re.findall(r"test accuracy (\d+\.\d)%", out)]
    assert len(accuracies) == 2 and min(accuracies) > 80.0, out
    assert "final parameters on all 2 ranks: max |difference| from rank 0 = 0 (identical)" in out
    assert r.stderr.count("MLP     epoch  1/1") >= 1


def test_demo_distributed_rejects_a_batch_that_does_not_split():
    import os

    import pytest
    pytest.importorskip("mpi4py", reason="mpi4py is not installed (pip install "
                        "'jitgrad[distributed]')")
    mpiexec = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    r = subprocess.run([mpiexec, "--allow-run-as-root", "--oversubscribe", "-n", "2",
                        sys.executable, "-m", "jitgrad.cli", "demo", "--distributed",
                        "--batch-size", "33"], capture_output=True, text=True, timeout=120)
    assert r.returncode != 0
    assert r.stderr.count("jitgrad demo: --batch-size 33 does not split evenly over 2 ranks; "
                          "pass a multiple of 2") == 1
