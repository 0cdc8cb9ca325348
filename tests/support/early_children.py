"""Child processes that tests wait for, started as soon as collection has selected their tests
(tests/conftest.py), so that slow ones (the CUDA simulator: minutes) run beside the rest of the
suite instead of after it. A test module registers `CHILDREN = {test name: argv after python}`;
its tests call `result(module, name)`.

The suite runs in several pytest-xdist workers (scripts/test.sh), each collecting every test, and
the test that waits for a child may run in any of them; so a child is started once per test run:
the process that first claims it (an exclusive file in `session_dir()`, shared by the workers)
starts it, and everyone reads its exit code and output from files there. Output goes to a file,
not a pipe: a pipe nobody reads would fill and block the child.

`python -m tests.support.early_children RC OUT ARGV...` is the wrapper that runs one child and
writes its exit code last (atomically), so a waiting worker knows the output is complete."""
from __future__ import annotations

import os
import pathlib
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
_SESSION_DIR: list = []
CHILD_TIMEOUT_S = 1500
SHARED_ENV = "JITGRAD_TESTS_SHARED_DIR"


def session_dir() -> pathlib.Path:
    """A directory shared by every process of this test run: made by the first process
    (`share_dir`, the xdist controller or the only process) and named to the workers and the
    children by the environment (SHARED_ENV), which they inherit."""
    if not _SESSION_DIR:
        path = os.environ.get(SHARED_ENV)
        _SESSION_DIR.append(pathlib.Path(path) if path else share_dir())
    return _SESSION_DIR[0]


def share_dir() -> pathlib.Path:
    """Make the run's shared directory and put it in the environment (before the workers
    start); `remove_shared_dir` deletes it when the run ends."""
    path = tempfile.mkdtemp(prefix="jitgrad-tests-")
    os.environ[SHARED_ENV] = path
    return pathlib.Path(path)


def remove_shared_dir() -> None:
    """At the run's end: children nobody waited for (their tests failed early or were
    interrupted) are ended, then the directory is deleted."""
    path = os.environ.pop(SHARED_ENV, None)
    if not path:
        return
    for claim in pathlib.Path(path).glob("*.claim"):
        pid = claim.read_text().strip()
        if pid and not claim.with_suffix(".rc").exists():
            try:
                os.killpg(int(pid), signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
    shutil.rmtree(path, ignore_errors=True)


def _files(module, name):
    stem = re.sub(r"\W", "_", f"{module.__name__}.{name}")
    d = session_dir()
    return d / f"{stem}.claim", d / f"{stem}.rc", d / f"{stem}.out"


def is_starter() -> bool:
    """Whether this process starts children at collection: the first xdist worker, or the
    only process."""
    return os.environ.get("PYTEST_XDIST_WORKER", "gw0") == "gw0"


def start(module, name) -> None:
    """Start the child unless some process of this run already has."""
    claim, rc, out = _files(module, name)
    try:
        fd = os.open(claim, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        return
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_XDIST_")}
    env.update(NUMBA_ENABLE_CUDASIM="1", **{SHARED_ENV: str(session_dir())})
    proc = subprocess.Popen([sys.executable, "-m", "tests.support.early_children", str(rc),
                             str(out), *module.CHILDREN[name]], cwd=ROOT,
                            stdin=subprocess.DEVNULL, env=env, start_new_session=True)
    os.write(fd, str(proc.pid).encode())      # its own process group: remove_shared_dir ends it
    os.close(fd)


def result(module, name, timeout=900):
    """(exit code, everything the child printed), waiting for it to end."""
    start(module, name)
    _, rc, out = _files(module, name)
    deadline = time.monotonic() + timeout
    while not rc.exists():
        if time.monotonic() > deadline:
            raise TimeoutError(f"child {name!r} did not end within {timeout} s")
        time.sleep(0.2)
    return int(rc.read_text()), out.read_text()


def _run(rc: str, out: str, argv) -> None:
    with open(out, "w") as f:
        try:        # a child that hangs is killed rather than outliving the run
            code = subprocess.call([sys.executable, *argv], stdout=f, stderr=subprocess.STDOUT,
                                   stdin=subprocess.DEVNULL, timeout=CHILD_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            code = -9
            f.write(f"\nkilled after {CHILD_TIMEOUT_S} s\n")
    tmp = rc + ".tmp"
    with open(tmp, "w") as f:
        f.write(str(code))
    os.replace(tmp, rc)


if __name__ == "__main__":
    _run(sys.argv[1], sys.argv[2], sys.argv[3:])
