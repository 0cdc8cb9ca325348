"""Child processes that tests wait for, started as soon as collection has selected their tests
(tests/conftest.py), so that slow ones (the CUDA simulator: minutes) run beside the rest of the
suite instead of after it. A test module registers `CHILDREN = {test name: argv after python}`;
its tests call `result(module, name)`. Output goes to a temporary file: a pipe nobody reads
would fill and block the child."""
from __future__ import annotations

import os
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
_STARTED: dict = {}


class Child:
    def __init__(self, args):
        self.out = tempfile.TemporaryFile(mode="w+")
        self.proc = subprocess.Popen([sys.executable, *args], cwd=ROOT, stdout=self.out,
                                     stderr=subprocess.STDOUT, text=True,
                                     env=dict(os.environ, NUMBA_ENABLE_CUDASIM="1"))

    def result(self, timeout=900):
        """(exit code, everything the child printed)."""
        try:
            code = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise
        self.out.seek(0)
        return code, self.out.read()


def start(module, name) -> None:
    key = (module.__name__, name)
    if key not in _STARTED:
        _STARTED[key] = Child(module.CHILDREN[name])


def result(module, name):
    start(module, name)
    return _STARTED.pop((module.__name__, name)).result()
