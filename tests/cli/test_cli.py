"""The `jitgrad` command in a subprocess: each subcommand's output, and exit 2 with a one-line
error on bad arguments."""
import os
import subprocess
import sys
import textwrap

import pytest

from jitgrad.cli.main import main

MODEL = textwrap.dedent("""
    import jitgrad.numpy as jnp
    from jitgrad.nn import functional as F

    def loss(w, x, y):
        return F.cross_entropy(jnp.tanh(x @ w), y)
""")


def jitgrad(*args, cwd=None, env=None):
    return subprocess.run([sys.executable, "-m", "jitgrad.cli", *args], capture_output=True,
                          text=True, timeout=300, cwd=cwd, env={**os.environ, **(env or {})})


@pytest.fixture
def model_dir(tmp_path):
    (tmp_path / "toy_model.py").write_text(MODEL)
    return tmp_path


def test_help_lists_every_subcommand(capsys):
    r = jitgrad("--help")
    assert r.returncode == 0
    for cmd in ("demo", "bench", "ir", "info", "cache"):
        assert f"    {cmd} " in r.stdout
    for cmd in ("demo", "ir", "info", "cache", "bench"):      # in-process: argparse exits 0
        with pytest.raises(SystemExit) as e:
            main([cmd, "--help"])
        out = capsys.readouterr().out
        assert e.value.code == 0 and out.startswith(f"usage: jitgrad {cmd}"), (cmd, out)


def test_info():
    r = jitgrad("info")
    assert r.returncode == 0
    for key in ("jitgrad", "numpy", "numba", "devices", "codegen", "cache"):
        assert any(line.startswith(key) for line in r.stdout.splitlines()), r.stdout


def test_cache_info_and_clear(tmp_path):
    cache = tmp_path / "cache"
    entries = cache / "jitgrad-kernels" / "cpu"
    entries.mkdir(parents=True)
    (cache / "jitgrad-kernels" / "CACHEDIR.TAG").write_text(
        "Signature: 8a477f597d28d172789f06886806bc55\n"
        "# This directory is jitgrad's kernel cache; `jitgrad cache clear` empties it.\n")
    (entries / "jg_cpu_0123456789abcdef01234567.py").write_text("x = 1\n")
    env = {"JITGRAD_CACHE_DIR": str(cache)}
    r = jitgrad("cache", "info", env=env)
    assert r.returncode == 0 and str(cache) in r.stdout and "files            1" in r.stdout
    r = jitgrad("cache", "clear", env=env)
    assert r.returncode == 0 and "removed 1 file (" in r.stdout, r.stdout
    assert not entries.exists() and (cache / "jitgrad-kernels" / "CACHEDIR.TAG").exists()
    r = jitgrad("cache", "clear", env={"JITGRAD_CACHE_DIR": str(tmp_path / "never-made")})
    assert r.returncode == 0 and "removed 0 files" in r.stdout


def test_ir_prints_traced_and_gradient_graphs(model_dir):
    args = ["toy_model:loss", "--arg", "f32[16,4]", "--arg", "f32[8,16]", "--arg", "i64[8]"]
    r = jitgrad("ir", *args, cwd=model_dir)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("graph loss(%w: f32[16,4], %x: f32[8,16], %y: i64[8]) -> f32[]")
    assert "matmul" in r.stdout and "toy_model.py:6" in r.stdout
    r = jitgrad("ir", *args, "--grad", cwd=model_dir)
    assert r.returncode == 0, r.stderr
    assert "-> f32[16,4]" in r.stdout.splitlines()[0]          # the gradient has w's type
    r = jitgrad("ir", str(model_dir / "toy_model.py") + ":loss", *args[1:], "--optimized",
                "--print-after", "fuse")
    assert r.returncode == 0, r.stderr
    assert "kernel" in r.stdout and "IR after fuse" in r.stderr


def test_bad_arguments_exit_2_in_a_real_process():
    r = jitgrad("demo", "--epochs", "0")
    assert r.returncode == 2
    assert r.stderr == ("jitgrad demo: error: argument --epochs: expected a positive integer, "
                        "got '0' (see jitgrad demo --help)\n")


@pytest.mark.parametrize("argv,message", [
    (["frobnicate"], "invalid choice"),
    (["cache", "wipe"], "invalid choice"),
    (["ir", "toy_model"], "expected MODULE:FUNCTION"),
    (["ir", "toy_model:nothing"], "has no attribute 'nothing'"),
    (["ir", "no_such_module:f"], "cannot import 'no_such_module'"),
    (["ir", "toy_model:loss", "--arg", "f33[2]"], "bad --arg 'f33[2]'"),
    (["bench", "no_such_workload"], "unknown workload"),
])
def test_bad_arguments_exit_2_with_one_line(model_dir, monkeypatch, capsys, argv, message):
    monkeypatch.chdir(model_dir)
    with pytest.raises(SystemExit) as e:
        main(argv)
    err = capsys.readouterr().err
    assert e.value.code == 2 and message in err
    assert len(err.strip().splitlines()) == 1, err
