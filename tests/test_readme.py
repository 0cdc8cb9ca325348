"""Every ```python block of README.md runs as pasted: in order, in one fresh process (a user
pasting the README top to bottom into one session, so a later block may use an earlier one's
names and must not break functions defined above it), each block reported on its own.

A block that needs what the test machine may lack says so on the line before it:
`<!-- skip: needs torch -->`; the test reports it as skipped with that reason."""
import json
import os
import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
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


# exec each block in one namespace (as a pasted session), one JSON line per block
_RUNNER = r"""
import json, sys, traceback, io, contextlib
blocks = json.load(sys.stdin)
ns = {"__name__": "__main__"}
for line, src, skip in blocks:
    if skip:
        print(json.dumps({"line": line, "status": "skipped", "why": skip}), flush=True)
        continue
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(src, f"README.md:{line}", "exec"), ns)
        print(json.dumps({"line": line, "status": "ok"}), flush=True)
    except BaseException:
        print(json.dumps({"line": line, "status": "failed", "why": traceback.format_exc(),
                          "stdout": out.getvalue()[-2000:]}), flush=True)
"""


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    blocks = readme_blocks()
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    env.pop("JITGRAD_BACKEND", None)
    proc = subprocess.run([sys.executable, "-c", _RUNNER], input=json.dumps(blocks),
                          capture_output=True, text=True, cwd=tmp_path_factory.mktemp("readme"),
                          env=env, timeout=600)
    got = {}
    for ln in proc.stdout.splitlines():
        if ln.startswith("{"):
            r = json.loads(ln)
            got[r["line"]] = r
    return got, proc


def test_readme_has_python_blocks_and_skip_markers_parse():
    blocks = readme_blocks()
    assert len(blocks) >= 10
    sample = "text\n<!-- skip: needs torch -->\n```python\nimport torch\n```\n"
    assert readme_blocks(sample) == [(3, "import torch\n", "needs torch")]


@pytest.mark.parametrize("line", [b[0] for b in readme_blocks()])
def test_readme_block_runs_as_pasted(results, line):
    got, proc = results
    r = got.get(line)
    if r is None:
        pytest.fail(f"README.md:{line}: the runner stopped before this block\n"
                    f"{proc.stderr[-3000:]}")
    if r["status"] == "skipped":
        pytest.skip(f"README.md:{line}: {r['why']} (marked in the README)")
    assert r["status"] == "ok", f"README.md:{line} failed:\n{r['why']}\nstdout:\n{r['stdout']}"


def test_readme_ir_example_output_is_current(tmp_path):
    """The "Before"/"After" IR under the `# example.py` block is that script's output, as
    printed today (regenerate it by running the block as example.py)."""
    text = README.read_text()
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
