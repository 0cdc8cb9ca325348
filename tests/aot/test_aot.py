"""AOT Python artifacts: compiled.save(path, key) -> jg.load(path) in a fresh process without
the user's module, without tracing and (signed with the loader's key) without compiling kernels;
unsigned or otherwise signed artifacts compile from their IR; refusals of damaged artifacts;
`jitgrad aot` writing an artifact. Hostile artifacts: tests/codegen/test_faults.py."""
import importlib
import json
import os
import subprocess
import sys
import textwrap
import zipfile

import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad.aot import artifact
from jitgrad.cli import main as cli
from jitgrad.aot.artifact import ArtifactError

USER_MODULE = '''
import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad import nn

jg.manual_seed(0)
model = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 10))
NAMES = [n for n, _ in model.named_parameters()]
STRUCTURE = jg.tree_util.tree_structure(model)


def baked(x):                   # closes over the trained model: its parameters become constants
    return jnp.tanh(model(x))


def with_params(params, x):     # the parameters as an input: a dict such as model.state_dict()
    return jg.tree_util.tree_unflatten(STRUCTURE, [params[n] for n in NAMES])(x)


def small(x):
    return jnp.tanh(x * 1.5 + 0.3)
'''

LOADER = '''
import sys
import numpy as np
import jitgrad as jg
{patch}
baked, with_params = jg.load(sys.argv[1]), jg.load(sys.argv[2])
x, params = np.load(sys.argv[3]), dict(np.load(sys.argv[4]))
np.save(sys.argv[5], np.asarray(baked(x)))
np.save(sys.argv[6], np.asarray(with_params(params, x)))
np.asarray(baked(x))    # a second call: nothing more is said
try:
    baked(x[:1])
except TypeError as e:
    print(e)
assert "aot_user_model" not in sys.modules
'''


KEY = "a key this user trusts"


def run(args, env=None, cwd=None):
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=cwd,
                          env={**os.environ, **(env or {})}, timeout=120)


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """Both artifacts, their input and expected output; the user's module is gone afterwards."""
    root = tmp_path_factory.mktemp("aot")
    src = root / "src"
    src.mkdir()
    (src / "aot_user_model.py").write_text(USER_MODULE)
    sys.path.insert(0, str(src))
    try:
        user = importlib.import_module("aot_user_model")
        x = np.random.default_rng(0).standard_normal((4, 64)).astype(np.float32)
        params = {k: np.asarray(v) for k, v in user.model.state_dict().items()}
        paths = {name: root / f"{name}.jgz" for name in ("baked", "with_params", "small")}
        jg.jit(user.baked).lower(jg.ShapeDtype((4, 64), "float32")).compile().save(paths["baked"], key=KEY)
        jg.jit(user.small).lower(x).compile().save(paths["small"], key=KEY)
        jg.jit(user.with_params).lower(user.model.state_dict(), x).compile().save(
            paths["with_params"], key=KEY)
        want = {"baked": np.asarray(user.baked(x)), "with_params": np.asarray(user.model(x)),
                "small": np.tanh(x * np.float32(1.5) + np.float32(0.3))}
    finally:
        sys.path.remove(str(src))
        sys.modules.pop("aot_user_model", None)
        (src / "aot_user_model.py").unlink()
    np.save(root / "x.npy", x)
    np.savez(root / "params.npz", **params)
    return root, paths, x, params, want


def in_fresh_process(script, args, tmp_path, key=KEY):
    """Run script in a new process with an empty kernel cache, compile/cache-hit logging and
    JITGRAD_ARTIFACT_KEY=key."""
    path = tmp_path / "load_it.py"
    path.write_text(script)
    proc = run([str(path), *map(str, args)], cwd=tmp_path,
               env={"JITGRAD_DEBUG": "1", "JITGRAD_CACHE_DIR": str(tmp_path / "fresh-cache"),
                    "JITGRAD_ARTIFACT_KEY": key or ""})
    assert proc.returncode == 0, proc.stderr
    return proc


def _hits(log) -> int:
    """Kernel units loaded from the disk cache (LLVM objects or numba's cache)."""
    return log.count("llvm hit") + log.count("numba cache hit")


def _compiled(log) -> bool:
    return "llvm compiled" in log or "numba compiled" in log


def test_load_in_fresh_process_without_trace_or_compile(saved, tmp_path):
    root, paths, *_, want = saved
    out = [tmp_path / "baked_out.npy", tmp_path / "params_out.npy"]
    proc = in_fresh_process(LOADER.format(patch=""), [paths["baked"], paths["with_params"],
                            root / "x.npy", root / "params.npz", *out], tmp_path)
    baked, with_params = map(np.load, out)
    np.testing.assert_allclose(baked, want["baked"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(with_params, want["with_params"], rtol=1e-5, atol=1e-6)
    log = proc.stderr
    assert log.count("(no trace)") == 2, log
    assert "] trace " not in log, log
    assert _hits(log) >= 2 and not _compiled(log), log
    assert "recompiling" not in log and "not used" not in log
    # a wrong shape names every argument's expected and actual type
    assert "argument 0 (x): expected f32[4,64], got f32[1,64]   <-- differs" in proc.stdout


def test_other_versions_recompile_from_ir_and_say_so_once(saved, tmp_path):
    root, paths, *_, want = saved
    script = textwrap.dedent('''
        import sys
        import numpy as np
        import jitgrad.aot.save_load
        real = jitgrad.aot.save_load._versions
        jitgrad.aot.save_load._versions = lambda b="cpu": {**real(b), "cpu": "another-cpu"}
        f = jitgrad.aot.save_load.load(sys.argv[1])
        x = np.load(sys.argv[2])
        np.save(sys.argv[3], np.asarray(f(x)))
        f(x)
        ''')
    proc = in_fresh_process(script, [paths["small"], root / "x.npy", tmp_path / "o.npy"], tmp_path)
    np.testing.assert_allclose(np.load(tmp_path / "o.npy"), want["small"], rtol=1e-5, atol=1e-6)
    assert proc.stderr.count("recompiling from the carried IR") == 1, proc.stderr
    assert "'cpu': 'another-cpu'" in proc.stderr
    assert _compiled(proc.stderr) and "] trace " not in proc.stderr


LOAD_SMALL = textwrap.dedent('''
    import sys
    import numpy as np
    import jitgrad as jg
    f = jg.load(sys.argv[1], **eval(sys.argv[4]))
    np.save(sys.argv[3], np.asarray(f(np.load(sys.argv[2]))))
    ''')


@pytest.mark.parametrize("key, load_kwargs, why", [
    (None, {}, "it is signed, but no key was given (key= or $JITGRAD_ARTIFACT_KEY)"),
    ("another key", {}, "its signature does not match your key"),
    (None, {"key": "another key"}, "its signature does not match your key"),
])
def test_code_not_signed_with_the_users_key_is_ignored(saved, tmp_path, key, load_kwargs, why):
    root, paths, *_, want = saved
    proc = in_fresh_process(LOAD_SMALL, [paths["small"], root / "x.npy", tmp_path / "o.npy",
                                         repr(load_kwargs)], tmp_path, key=key)
    np.testing.assert_allclose(np.load(tmp_path / "o.npy"), want["small"], rtol=1e-5, atol=1e-6)
    assert _compiled(proc.stderr) and not _hits(proc.stderr), proc.stderr
    assert proc.stderr.count(f"its machine code is not used because {why}; compiling from the "
                             "carried IR") == 1, proc.stderr


def test_key_argument_and_unsigned_artifacts(saved, tmp_path):
    root, paths, x, _, want = saved
    unsigned = tmp_path / "unsigned.jgz"
    with zipfile.ZipFile(paths["small"]) as z:
        assert z.read(artifact.SIGNATURE)                   # saved with a key: signed
        manifest = json.loads(z.read("manifest.json"))
        members = {n: z.read(n) for n in z.namelist() if n not in ("manifest.json", artifact.SIGNATURE)}
    artifact.write(unsigned, manifest, members)
    proc = in_fresh_process(LOAD_SMALL, [unsigned, root / "x.npy", tmp_path / "o.npy", "{}"], tmp_path)
    assert "because it is not signed" in proc.stderr and _compiled(proc.stderr)
    proc = in_fresh_process(LOAD_SMALL, [paths["small"], root / "x.npy", tmp_path / "o.npy",
                                         repr({"key": KEY})], tmp_path, key=None)
    assert _hits(proc.stderr) and "not used" not in proc.stderr, proc.stderr
    with pytest.raises(TypeError, match="an artifact key is a str or bytes, got int"):
        jg.load(paths["small"], key=42)


def test_lambda_artifact_loads_its_carried_code(tmp_path, monkeypatch):
    monkeypatch.setenv("JITGRAD_CACHE_DIR", str(tmp_path / "saver-cache"))
    x = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)
    path = tmp_path / "lam.jgz"
    jg.jit(lambda a: jnp.tanh(a * 2.0) + 1.0).lower(x).compile().save(path, key=KEY)
    np.save(tmp_path / "x.npy", x)
    proc = in_fresh_process(LOAD_SMALL, [path, tmp_path / "x.npy", tmp_path / "o.npy", "{}"], tmp_path)
    np.testing.assert_allclose(np.load(tmp_path / "o.npy"), np.tanh(x * 2) + 1, rtol=1e-5)
    assert _hits(proc.stderr) and not _compiled(proc.stderr), proc.stderr


def test_params_dict_matched_by_key(saved):
    _, paths, x, params, want = saved
    f = jg.load(paths["with_params"])
    reordered = dict(reversed(list(params.items())))
    np.testing.assert_allclose(np.asarray(f(reordered, x)), want["with_params"], rtol=1e-5, atol=1e-6)
    with pytest.raises(TypeError, match=r"structured as \(\{'0.weight': an array.*got \(\{'w'"):
        f({"w": x}, x)


def rewrite(src, dst, change):
    """Copy the artifact at src to dst with change(name, data) -> data applied to each member."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for name in zin.namelist():
            zout.writestr(name, change(name, zin.read(name)))
    return dst


def with_manifest(src, dst, edit):
    def change(name, data):
        if name != "manifest.json":
            return data
        m = json.loads(data)
        edit(m)
        return json.dumps(m).encode()
    return rewrite(src, dst, change)


def test_tampered_member_is_refused(saved, tmp_path):
    _, paths, *_ = saved
    bad = rewrite(paths["baked"], tmp_path / "t.jgz",
                  lambda n, d: d.replace(b"tanh", b"exp") if n == "graph.ir" else d)
    with pytest.raises(ArtifactError, match="member graph.ir does not match its SHA-256"):
        jg.load(bad)


def test_truncated_zip_is_refused(saved, tmp_path):
    _, paths, *_ = saved
    data = paths["baked"].read_bytes()
    bad = tmp_path / "t.jgz"
    bad.write_bytes(data[: len(data) // 2])
    with pytest.raises(ArtifactError, match="truncated or not a zip"):
        jg.load(bad)


def test_future_format_version_is_refused(saved, tmp_path):
    _, paths, *_ = saved
    bad = with_manifest(paths["baked"], tmp_path / "t.jgz",
                        lambda m: m.update(format_version=artifact.FORMAT_VERSION + 1))
    with pytest.raises(ArtifactError, match=r"format version 2, this jitgrad reads version 1 "
                                            r"\(made by a newer jitgrad; upgrade\)"):
        jg.load(bad)


def test_manifest_types_must_match_the_ir(saved, tmp_path):
    _, paths, *_ = saved
    bad = with_manifest(paths["baked"], tmp_path / "t.jgz",
                        lambda m: m["inputs"][0].update(type="f32[400,64]"))
    with pytest.raises(ArtifactError, match="does not match the carried IR"):
        jg.load(bad)


def test_member_outside_the_cache_is_refused(saved, tmp_path, monkeypatch):
    monkeypatch.setenv("JITGRAD_CACHE_DIR", str(tmp_path / "a" / "b"))
    _, paths, *_ = saved
    with zipfile.ZipFile(paths["baked"]) as z:
        manifest = json.loads(z.read("manifest.json"))
        members = {n: z.read(n) for n in z.namelist() if n not in ("manifest.json", artifact.SIGNATURE)}
    members["code/../../escape.py"] = b"print('hello')\n"
    artifact.write(tmp_path / "t.jgz", manifest, members, key=KEY)
    with pytest.raises(ArtifactError, match=r"'../../escape.py' is not a kernel cache entry"):
        jg.load(tmp_path / "t.jgz", key=KEY)
    assert not (tmp_path / "escape.py").exists()


def test_registered_class_structure_is_refused_with_advice():
    structure = jg.tree_util.tree_structure((jg.nn.Linear(3, 2), np.ones(3)))
    with pytest.raises(ArtifactError, match="only hold tuples, lists, dicts and None .* not Linear"):
        artifact.treedef_to_json(structure)


# ---------------------------------------------------------------------------------- CLI

CLI_MODULE = '''
import jitgrad.numpy as jnp

def scale_shift(x, y):
    return jnp.tanh(x * 1.5 + 0.3) + y.sum()
'''


def test_cli_writes_an_artifact(tmp_path):
    (tmp_path / "aot_cli_fn.py").write_text(CLI_MODULE)
    proc = run(["-m", "jitgrad.cli", "aot", "aot_cli_fn.py:scale_shift", "--arg", "f32[4,8]",
                "--arg", "f32[3]", "-o", "out"], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "wrote out/scale_shift.jgz (load it with jg.load)"
    assert lines[1:4] == ["  input  x: f32[4,8]", "  input  y: f32[3]", "  output 0: f32[4,8]"]
    assert lines[4].startswith("  workspace ") and lines[4].endswith(" bytes")
    f = jg.load(tmp_path / "out" / "scale_shift.jgz")
    x, y = np.ones((4, 8), np.float32), np.arange(3, dtype=np.float32)
    np.testing.assert_allclose(np.asarray(f(x, y)), np.tanh(x * 1.5 + 0.3) + 3, rtol=1e-5)


@pytest.mark.parametrize("argv, message", [
    (["aot", "m.py:f", "--arg", "f32[2,", "-o", "o"], "bad --arg 'f32[2,'"),
    (["aot", "no_colon", "-o", "o"], "expected MODULE:FUNCTION"),
    (["aot", "m.py:missing", "-o", "o"], "has no attribute 'missing'"),
    (["aot", "m.py:f", "-o", "o", "--name", "9lives"], "bad --name '9lives'"),
    (["aot", "m.py:f"], "required: -o/--out"),
])
def test_cli_bad_arguments_exit_2(tmp_path, monkeypatch, capsys, argv, message):
    (tmp_path / "m.py").write_text("def f(x):\n    return x\n")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as e:
        cli.main(argv)
    assert e.value.code == 2
    assert message in capsys.readouterr().err


def test_loaded_artifact_records_for_eager_autograd(tmp_path):
    """A jg.load'ed function called on tensors that require grad is one recorded op whose
    backward is the VJP of the graph the artifact carries: the same gradient as eager code."""
    import jitgrad as jg
    import jitgrad.numpy as jnp
    w0 = np.array([[0.5, -1.0], [2.0, 0.25]], np.float32)
    f = lambda w, x: jnp.sum(jnp.tanh(x @ w))     # noqa: E731
    x = np.ones((3, 2), np.float32)
    jg.jit(f).lower(w0, x).compile().save(tmp_path / "f.jgz")
    loaded = jg.load(tmp_path / "f.jgz")
    w = jg.tensor(w0, requires_grad=True)
    (loaded(w, x) * 2.0).backward()
    want = jg.grad(lambda w: 2.0 * f(w, x))(w0)
    np.testing.assert_allclose(np.asarray(w.grad), np.asarray(want), rtol=1e-5)
