"""Every module of the package imports on its own, first thing in a fresh interpreter: no module
works only because another one happened to be imported before it.

One child process imports the third-party libraries (numpy, numba, llvmlite: not jitgrad), then
forks grandchildren, two at a time; each starts with no jitgrad module loaded and imports just its
module. A fork is a fresh interpreter as far as jitgrad is concerned, and costs ~0.2 s instead of
the ~1 s of a new process with numba. Importing any module runs jitgrad/__init__.py first, so the
first grandchild imports `jitgrad`: every module that import loads is checked by it (imported
first, a module loaded there would be imported the same way), and the rest get one each. Those
fork after the child process has imported `jitgrad` itself: importing `jitgrad.x` in a fresh
interpreter runs jitgrad/__init__.py to its end before x, so each grandchild starts from exactly
that state, without paying for it (49 s of a CI run before, 18 s alone after)."""
import json
import os
import subprocess
import sys

import pytest

from tests.support import import_graph

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork (POSIX)")

ISOLATE = r"""
import importlib, json, os, sys, traceback
import numpy, numba, llvmlite.binding  # noqa: F401  (what every module would import anyway)
assert not any(m == "jitgrad" or m.startswith("jitgrad.") for m in sys.modules)
failed, running = {}, {}


def start(name):
    # a child imports `name` and writes the jitgrad modules then loaded, or the traceback (both
    # well under a pipe's buffer, so it never blocks before exiting)
    while len(running) >= 2:
        reap()
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            importlib.import_module(name)
            text, code = " ".join(m for m in sys.modules if m.startswith("jitgrad")), 0
        except BaseException:
            text, code = traceback.format_exc()[-30000:], 1
        os.write(w, text.encode())
        os._exit(code)
    os.close(w)
    running[pid] = (name, r)


def reap():
    pid, status = os.wait()
    name, r = running.pop(pid)
    with os.fdopen(r, "rb") as f:
        text = f.read().decode(errors="replace")
    if status:
        failed[name] = text or f"exit status {status}"
    return "" if status else text


names = sys.argv[1:]
covered = set()
if "jitgrad" in names:      # alone and first: the modules it loads need no child of their own
    start("jitgrad")
    covered = set(reap().split())
    if "jitgrad" not in failed:     # the state every `import jitgrad.x` starts from (see above)
        importlib.import_module("jitgrad")
for name in names:
    if name not in covered:
        start(name)
while running:
    reap()
print(json.dumps({"failed": failed, "children": 1 + sum(n not in covered for n in names)}))
"""


def import_each(names):
    """({module: traceback} of the modules that fail to import first in a fresh interpreter,
    the number of fresh interpreters used)."""
    out = subprocess.run([sys.executable, "-c", ISOLATE, *names], capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout.strip().splitlines()[-1])
    return report["failed"], report["children"]


def test_every_module_imports_first_in_a_fresh_interpreter():
    names = sorted(import_graph.modules())
    failed, children = import_each(names)
    assert not failed, "\n\n".join(f"import {name} failed:\n{tb}" for name, tb in failed.items())
    assert 1 < children < len(names)


def test_a_failing_import_is_reported_with_its_traceback():
    failed, children = import_each(["jitgrad", "jitgrad.ir", "jitgrad.no_such_module"])
    assert children == 2 and list(failed) == ["jitgrad.no_such_module"]
    assert "ModuleNotFoundError: No module named 'jitgrad.no_such_module'" in failed[
        "jitgrad.no_such_module"]
