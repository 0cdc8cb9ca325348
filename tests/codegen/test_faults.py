"""Fault injection: damaged kernel cache entries of every member kind, unusable cache
directories, foreign files in the cache directory, hostile artifacts (a pickle payload in every
carried member kind, with the manifest's hashes recomputed), and the CLI's one-line failures.

Damaged entries and hostile artifacts are loaded in a child process: a fault that got through
would kill that process (SIGILL from bad machine code), not pytest."""
import glob
import json
import os
import pickle
import subprocess
import sys
import textwrap
import warnings
import zipfile

import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad.aot import artifact
from jitgrad.cli import main as cli
from jitgrad.codegen.cpu import units as cpu_units
from jitgrad.codegen import disk_cache
from jitgrad.codegen.disk_cache import CacheWarning
from jitgrad.compilation.compile_graph import compile_graph
from jitgrad.runtime import cache


def child(script, *args, env=None, prefix=()):
    return subprocess.run([*prefix, sys.executable, "-c", textwrap.dedent(script), *map(str, args)],
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, "JITGRAD_DEBUG": "1", **(env or {})})


def tree(root):
    """Every file and directory under root."""
    return sorted(os.path.join(d, n) for d, dirs, files in os.walk(root) for n in dirs + files)


def fn(x):
    return jnp.sum(jnp.tanh(x) * 2.0 + 1.0, axis=1)


@pytest.fixture(autouse=True)
def _units_from_disk():
    """Each test sees the cache directory it sets up: no kernel unit held over in memory."""
    cpu_units.forget()
    yield
    cpu_units.forget()


X = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)
WANT = np.sum(np.tanh(X) * 2 + 1, axis=1)


# ---------------------------------------------------------------------------------- cache entries



# ---------------------------------------------------------------------------------- unusable dirs

def _compile_twice(where):
    """Two kernels compiled with JITGRAD_CACHE_DIR=where: right results, one warning."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        (got,) = compile_graph(jg.make_graph(fn)(X)).run([X])
        (got2,) = compile_graph(jg.make_graph(lambda x: jnp.exp(x) - 1.0)(X)).run([X])
    np.testing.assert_allclose(got, WANT, rtol=1e-5)
    np.testing.assert_allclose(got2, np.exp(X) - 1, rtol=1e-5)
    ours = [w for w in caught if issubclass(w.category, CacheWarning)]
    assert len(ours) == 1, [str(w.message) for w in caught]
    return str(ours[0].message)


def test_a_cache_path_that_is_a_file_compiles_in_memory(tmp_path, monkeypatch):
    path = tmp_path / "not-a-dir"
    path.write_text("user data\n")
    monkeypatch.setenv("JITGRAD_CACHE_DIR", str(path))
    msg = _compile_twice(path)
    assert f"the kernel cache {path} cannot be used (NotADirectoryError" in msg
    assert "compiling in memory" in msg
    assert path.read_text() == "user data\n"


def test_a_cache_dir_that_cannot_be_created_compiles_in_memory(monkeypatch):
    monkeypatch.setenv("JITGRAD_CACHE_DIR", "/proc/jitgrad-no-such-dir/cache")
    assert "cannot be used (FileNotFoundError" in _compile_twice("/proc")


def test_a_missing_cache_dir_is_created(tmp_path, monkeypatch):
    where = tmp_path / "a" / "b"
    monkeypatch.setenv("JITGRAD_CACHE_DIR", str(where))
    (got,) = compile_graph(jg.make_graph(fn)(X)).run([X])
    np.testing.assert_allclose(got, WANT, rtol=1e-5)
    assert cache.is_marked(str(where / cache.SUBDIR))
    assert glob.glob(str(where / cache.SUBDIR / "llvm" / "*.obj"))


def _read_only_prefix(path):
    """A command prefix under which `path` is read-only: chmod for a normal user; for root
    (whom permissions do not stop) a read-only bind mount in a user namespace."""
    if os.geteuid() != 0:
        for d, _, _ in os.walk(path):
            os.chmod(d, 0o555)
        return ()
    script = f'mount --bind "{path}" "{path}" && mount -o remount,bind,ro "{path}" && exec "$@"'
    probe = subprocess.run(["unshare", "-rm", "sh", "-c", script, "sh", "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip("running as root without user namespaces: no way to make a read-only "
                    "directory (the other unusable-directory tests still run)")
    return ("unshare", "-rm", "sh", "-c", script, "sh")


READ_ONLY = """
import warnings
import numpy as np
import jitgrad as jg, jitgrad.numpy as jnp
warnings.simplefilter("always")
x = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)
for f in (lambda x: jnp.sum(jnp.tanh(x) * 2.0 + 1.0, axis=1), lambda x: jnp.exp(x) - 1.0,
          lambda x: jnp.log1p(x * x)):
    jg.jit(f)(x)
print("ok")
"""


@pytest.mark.parametrize("populated", [False, True])
def test_a_read_only_cache_dir_compiles_in_memory_with_one_warning(tmp_path, populated):
    cache_dir = tmp_path / "ro"
    cache_dir.mkdir()
    env = {"JITGRAD_CACHE_DIR": str(cache_dir)}
    if populated:
        assert child(READ_ONLY, env=env).returncode == 0
    before = tree(cache_dir)
    p = child(READ_ONLY, env=env, prefix=_read_only_prefix(cache_dir))
    assert p.returncode == 0 and p.stdout.strip() == "ok", p.stderr
    assert p.stderr.count("CacheWarning") == 1, p.stderr
    assert p.stderr.count("kernel cache memory") == 3, p.stderr
    assert tree(cache_dir) == before


# ---------------------------------------------------------------------------------- foreign files

def jitgrad_cli(*args, env):
    return subprocess.run([sys.executable, "-m", "jitgrad.cli", *args], capture_output=True,
                          text=True, timeout=120, env={**os.environ, **env})


def test_cache_clear_deletes_only_what_jitgrad_wrote(tmp_path, monkeypatch):
    home = tmp_path / "home"
    (home / "notes").mkdir(parents=True)
    (home / "notes" / "todo.txt").write_text("mine\n")
    (home / "cpu").mkdir()
    (home / "cpu" / "jg_cpu_0123456789abcdef01234567.py").write_text("# not jitgrad's: outside its subdirectory\n")
    monkeypatch.setenv("JITGRAD_CACHE_DIR", str(home))
    compile_graph(jg.make_graph(fn)(X))     # an LLVM unit (llvm/<name>.obj), pipeline/<name>.pkl
    entries = home / cache.SUBDIR / "llvm"
    (entries / "keep-me.txt").write_text("a user's file among the entries\n")
    foreign = [p for p in tree(home) if cache.SUBDIR not in p or p.endswith("keep-me.txt")]

    r = jitgrad_cli("cache", "clear", env={"JITGRAD_CACHE_DIR": str(home)})
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith(f"cleared {home / cache.SUBDIR}: removed 2 files")
    assert r.stdout.rstrip().endswith("; kept 1 file jitgrad did not write")
    assert [p for p in tree(home) if cache.SUBDIR not in p or p.endswith("keep-me.txt")] == foreign
    assert not glob.glob(str(entries / "jg_*"))
    assert [os.path.basename(p) for p in glob.glob(str(entries / "*"))] == ["keep-me.txt"]


@pytest.mark.parametrize("layout", ["user files", "unmarked subdirectory", "a file"])
def test_cache_clear_refuses_a_directory_that_is_not_a_jitgrad_cache(tmp_path, layout):
    target = tmp_path / "target"
    if layout == "a file":
        target.write_text("x")
    else:
        (target / "docs").mkdir(parents=True)
        (target / "docs" / "thesis.tex").write_text("x")
        if layout == "unmarked subdirectory":
            (target / cache.SUBDIR / "cpu").mkdir(parents=True)
            (target / cache.SUBDIR / "cpu" / "jg_cpu_0123456789abcdef01234567.py").write_text("x")
    before = tree(tmp_path)
    r = jitgrad_cli("cache", "clear", env={"JITGRAD_CACHE_DIR": str(target)})
    assert r.returncode == 1 and r.stdout == ""
    assert r.stderr == (f"jitgrad cache clear: {target} does not look like a jitgrad cache (no "
                        f"{cache.SUBDIR}/{cache.MARKER} marker); nothing deleted\n")
    assert tree(tmp_path) == before


# ---------------------------------------------------------------------------------- artifacts

class Payload:
    """Unpickling this creates the marker file: proof that something was unpickled."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (open, (self.marker, "w"))


def _hostile(src, dst, member_kind, marker):
    """src with every member of member_kind replaced by a payload, hashes recomputed."""
    with zipfile.ZipFile(src) as z:
        manifest = json.loads(z.read("manifest.json"))
        members = {n: z.read(n) for n in z.namelist() if n not in ("manifest.json", artifact.SIGNATURE)}
    evil_pickle = pickle.dumps(Payload(str(marker)))
    evil_python = f"open({str(marker)!r}, 'w')\n".encode()
    hit = 0
    for name in members:
        if name.endswith(member_kind):
            members[name] = evil_python if member_kind == ".py" else evil_pickle
            hit += 1
    assert hit, (member_kind, sorted(members))
    artifact.write(dst, manifest, members, key="the attacker's key")
    return dst


LOAD_ALL = """
import sys
import numpy as np
import jitgrad as jg
x = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)
for path in sys.argv[1:]:
    try:
        out = np.asarray(jg.load(path)(x))
        print(path, "ran", float(np.abs(out - (np.tanh(x) * 2 + 1) @ np.ones((4, 8), np.float32)).max()))
    except jg.aot.artifact.ArtifactError as e:
        print(path, "refused", str(e).splitlines()[0])
"""

MEMBER_KINDS = [".obj", ".npy", "graph.ir", "optimized.ir"]


def test_no_member_of_a_hostile_artifact_is_unpickled_or_run(tmp_path, monkeypatch):
    monkeypatch.setenv("JITGRAD_CACHE_DIR", str(tmp_path / "saver-cache"))
    ones = np.ones((4, 8), np.float32)      # a large constant: a constants/*.npy member

    def f(x):
        return (jnp.tanh(x) * 2.0 + 1.0) @ ones

    cpu_units.forget()
    good = tmp_path / "good-llvm.jgz"
    jg.jit(f).lower(X).compile().save(good, key="the attacker's key")
    marker = tmp_path / "PWNED"
    paths = [_hostile(good, tmp_path / f"evil{k.replace('.', '_')}.jgz", k, marker)
             for k in MEMBER_KINDS]
    for key in (None, "the user's key"):     # unsigned for this user / signed by someone else
        env = {"JITGRAD_CACHE_DIR": str(tmp_path / "loader-cache")}
        if key:
            env["JITGRAD_ARTIFACT_KEY"] = key
        p = child(LOAD_ALL, *paths, env=env)
        assert p.returncode == 0, p.stderr[-3000:]
        assert not marker.exists()
        outcome = dict(line.split(" ", 1) for line in p.stdout.splitlines())
        for kind, path in zip(MEMBER_KINDS, paths):
            if kind == ".obj":       # ignored: compiled from the carried IR
                verb, err = outcome[str(path)].split()
                assert verb == "ran" and float(err) < 1e-4, outcome[str(path)]
            else:
                assert outcome[str(path)].startswith("refused"), outcome[str(path)]
        why = "its signature does not match your key" if key else "it is signed, but no key was given"
        assert p.stderr.count(f"its machine code is not used because {why}") == 1, p.stderr


@pytest.mark.parametrize("edit", [
    ("graph f(", 'graph f"""\nopen("MARKER", "w")\n"""('),
    ('kind="elementwise"', 'kind="elementwise\nopen(\'MARKER\', \'w\')\n"'),
])
def test_hostile_ir_text_cannot_run_code(tmp_path, monkeypatch, edit):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("JITGRAD_CACHE_DIR", str(tmp_path / "cache"))

    def f(x):
        return jnp.tanh(x) * 2.0

    good = tmp_path / "good.jgz"
    jg.jit(f).lower(X).compile().save(good)
    with zipfile.ZipFile(good) as z:
        manifest = json.loads(z.read("manifest.json"))
        members = {n: z.read(n) for n in z.namelist() if n != "manifest.json"}
    old, new = edit
    for name in ("graph.ir", "optimized.ir"):
        text = members[name].decode()
        if old in text:
            members[name] = text.replace(old, new).encode()
    artifact.write(tmp_path / "evil.jgz", manifest, members)
    try:
        out = jg.load(tmp_path / "evil.jgz")(X)
        np.testing.assert_allclose(np.asarray(out), np.tanh(X) * 2, rtol=1e-5)
    except artifact.ArtifactError as e:
        assert "invalid" in str(e)
    assert not (tmp_path / "MARKER").exists()


# ---------------------------------------------------------------------------------- CLI

@pytest.mark.parametrize("argv, code, message", [
    (["aot", "m.py:f", "-o", "/proc/nope/out"], 2,
     "jitgrad aot: error: cannot write into -o /proc/nope/out: No such file or directory"),
    (["aot", "m.py:f", "-o", "out", "--name", "int"], 2,
     "bad --name 'int': a C or Python keyword or type name"),
    (["aot", "m.py:f", "-o", "out", "--name", "while"], 2, "bad --name 'while'"),
    (["aot", "m.py:f", "-o", "out", "--name", "_Bool"], 2, "are reserved in C"),
    (["aot", "m.py:int", "-o", "out"], 2, "m.py:int cannot name the output ('int': a C or "
                                           "Python keyword or type name); pass --name"),
    (["demo", "--plot", "/proc/nope/x.png"], 2,
     "jitgrad demo: error: argument --plot: cannot write /proc/nope/x.png: No such file or directory"),
    (["demo", "--save-params", "."], 2, "argument --save-params: . is a directory"),
    (["bench", "nosuchworkload"], 2, "unknown workload(s) nosuchworkload; choose from"),
    ([], 2, "jitgrad: error: expected a command"),
])
def test_cli_failures_are_one_line_before_any_work(tmp_path, monkeypatch, capsys, argv, code, message):
    (tmp_path / "m.py").write_text("def f(x):\n    return x\n\n\ndef int(x):\n    return x\n")
    monkeypatch.chdir(tmp_path)
    # a guard, not a path: the demo's public entry fails the test if a bad command starts it
    monkeypatch.setattr("jitgrad.cli.demo.main", lambda args: pytest.fail("the demo started"))
    with pytest.raises(SystemExit) as e:
        cli.main(argv)
    captured = capsys.readouterr()
    assert e.value.code == code and captured.out == ""
    assert len(captured.err.strip().splitlines()) == 1 and message in captured.err, captured.err


def test_cli_runtime_failure_is_one_line_exit_1(tmp_path, monkeypatch, capsys):
    (tmp_path / "m.py").write_text("def f(x):\n    raise ValueError('first line\\nsecond line')\n")
    monkeypatch.chdir(tmp_path)
    assert cli.main(["aot", "m.py:f", "--arg", "f32[2]", "-o", "out"]) == 1
    err = capsys.readouterr().err
    assert err == "jitgrad aot: m.py:f: ValueError: first line; second line\n"


def test_disk_cache_install_accepts_only_entry_names(tmp_path, monkeypatch):
    monkeypatch.setenv("JITGRAD_CACHE_DIR", str(tmp_path))
    for rel in ("cpu/../../escape.py", "cpu/notes.txt", "cuda/jg_cpu_0123456789abcdef01234567.py",
                "cpu/__pycache__/../jg_cpu_0123456789abcdef01234567.py"):
        with pytest.raises(ValueError, match="is not a kernel cache entry"):
            disk_cache.install({rel: b"x"}, {})
    assert not os.path.exists(tmp_path / cache.SUBDIR)
