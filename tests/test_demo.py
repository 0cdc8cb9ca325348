"""`jitgrad demo --quick` (one epoch of each model) runs end to end and learns."""
import os
import re
import subprocess
import sys


def test_demo_quick_reaches_sane_accuracy(tmp_path):
    env = {**os.environ, "JITGRAD_CACHE_DIR": str(tmp_path / "cache")}
    r = subprocess.run([sys.executable, "-m", "jitgrad.cli", "demo", "--quick"], env=env,
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    out = r.stdout
    assert "1437 train / 360 test" in out
    accuracies = [float(a) for a in re.findall(r"test accuracy (\d+\.\d)%", out)]
    assert len(accuracies) == 2 and min(accuracies) > 80.0, out
    assert re.search(r"compile \d+\.\d+ s .*jitted vs .* eager: \d+x faster", out), out
    assert "epoch  1/1" in r.stderr          # the progress bars


def test_demo_reports_missing_mnist_directory(tmp_path):
    r = subprocess.run([sys.executable, "-m", "jitgrad.cli", "demo", "--data", str(tmp_path / "nope")],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 1
    assert "does not exist" in r.stderr and len(r.stderr.strip().splitlines()) == 1
