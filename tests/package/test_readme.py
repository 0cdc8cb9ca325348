"""Every ```python block of README.md and of docs/**/*.md runs as pasted: each file's blocks in
order, in one namespace (a user pasting the page top to bottom into one session, so a later block
may use an earlier one's names and must not break functions defined above it), a fresh namespace
per file, all files in one fresh process; each block reported on its own.

A block that needs what the test machine may lack says so on the line before it:
`<!-- skip: needs torch -->`; the test reports it as skipped with that reason."""
import json
import os
import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").rglob("*.md"))
_FENCE = re.compile(r"^```python[ \t]*\n(.*?)^```[ \t]*$", re.S | re.M)
_SKIP = re.compile(r"<!--\s*skip:\s*(.*?)\s*-->\s*$")


def readme_blocks(text=None):
    """[(line of the fence, source, skip reason or None)] of README's python blocks."""
    text = README.read_text() if text is None else text
    blocks = []
    for m in _FENCE.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        before = text[:m.start()].rstrip("\n").rsplit("\n", 1)[-1]
        skip = _SKIP.search(before)
        blocks.append((line, m.group(1), skip.group(1) if skip else None))
    return blocks


def all_blocks():
    """[(file relative to the root, line, source, skip)] of the README's and the docs' blocks."""
    out = []
    for path in [README, *DOCS]:
        name = path.relative_to(ROOT).as_posix()
        out += [(name, line, src, skip) for line, src, skip in readme_blocks(path.read_text())]
    return out


# exec each file's blocks in one namespace (as a pasted session), one JSON line per block
_RUNNER = r"""
import json, sys, traceback, io, contextlib, os, tempfile
blocks = json.load(sys.stdin)
ns, current = None, None
for name, line, src, skip in blocks:
    if name != current:                     # a fresh session (and directory) per file
        ns, current = {"__name__": "__main__"}, name
        os.chdir(tempfile.mkdtemp())
    key = f"{name}:{line}"
    if skip:
        print(json.dumps({"key": key, "status": "skipped", "why": skip}), flush=True)
        continue
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(src, key, "exec"), ns)
        print(json.dumps({"key": key, "status": "ok"}), flush=True)
    except BaseException:
        print(json.dumps({"key": key, "status": "failed", "why": traceback.format_exc(),
                          "stdout": out.getvalue()[-2000:]}), flush=True)
"""


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    blocks = all_blocks()
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    env.pop("JITGRAD_BACKEND", None)
    proc = subprocess.run([sys.executable, "-c", _RUNNER], input=json.dumps(blocks),
                          capture_output=True, text=True, cwd=tmp_path_factory.mktemp("readme"),
                          env=env, timeout=600)
    got = {}
    for ln in proc.stdout.splitlines():
        if ln.startswith("{"):
            r = json.loads(ln)
            got[r["key"]] = r
    return got, proc


def test_readme_has_python_blocks_and_skip_markers_parse():
    assert len(readme_blocks()) >= 2
    assert len(all_blocks()) >= 20
    sample = "text\n<!-- skip: needs torch -->\n```python\nimport torch\n```\n"
    assert readme_blocks(sample) == [(3, "import torch\n", "needs torch")]


@pytest.mark.parametrize("key", [f"{b[0]}:{b[1]}" for b in all_blocks()])
def test_doc_block_runs_as_pasted(results, key):
    got, proc = results
    r = got.get(key)
    if r is None:
        pytest.fail(f"{key}: the runner stopped before this block\n{proc.stderr[-3000:]}")
    if r["status"] == "skipped":
        pytest.skip(f"{key}: {r['why']} (marked in the page)")
    assert r["status"] == "ok", f"{key} failed:\n{r['why']}\nstdout:\n{r['stdout']}"


def test_readme_ir_example_output_is_current(tmp_path):
    """The "Before"/"After" IR under the `# example.py` block (docs/design/passes.md) is that
    script's output, as printed today (regenerate it by running the block as example.py)."""
    text = (ROOT / "docs" / "design" / "passes.md").read_text()
    src = next(s for _, s, _ in readme_blocks(text) if s.startswith("# example.py\n"))
    tail = text[text.index(src) + len(src):].split("\n", 1)[1]      # after the closing fence
    shown = re.findall(r"^```[ \t]*\n(.*?)^```[ \t]*$", tail, re.S | re.M)[:2]
    (tmp_path / "example.py").write_text(src)
    env = {k: v for k, v in os.environ.items() if not k.startswith("JITGRAD_")
           or k == "JITGRAD_CACHE_DIR"}
    out = subprocess.run([sys.executable, "example.py"], cwd=tmp_path, capture_output=True,
                         text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout == "".join(shown)
