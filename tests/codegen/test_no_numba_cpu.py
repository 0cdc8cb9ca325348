"""numba builds no CPU code (issue 26): a jitted training step, a native library export and an
AOT artifact saved and loaded run in a process that never imports numba (CUDA is what may still load it)."""
import os
import shutil
import subprocess
import sys

import pytest

CODE = """
import sys, tempfile
import numpy as np
import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad import nn
from jitgrad.codegen.native import export as native_export
from jitgrad.nn import functional as F

jg.manual_seed(0)
model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))
rng = np.random.default_rng(0)
x = rng.standard_normal((8, 16)).astype(np.float32)
y = rng.integers(0, 4, 8).astype(np.int32)

@jg.jit
def step(model, x, y):
    loss, grads = jg.value_and_grad(lambda m: F.cross_entropy(m(x), y))(model)
    return loss, jg.tree_util.tree_map(lambda p, g: p - 0.1 * g, model, grads)

loss, model = step(model, x, y)
assert np.isfinite(float(loss))

def conv(x, w):
    return jg.value_and_grad(lambda x, w: jnp.sum(F.conv2d(x, w, padding=1) ** 2),
                             argnums=(0, 1))(x, w)
xc = rng.standard_normal((2, 3, 6, 5)).astype(np.float32)
wc = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
native_export.export(jg.jit(conv).lower(xc, wc).graph, tempfile.mkdtemp(), "convgrad")
path = tempfile.mkdtemp() + "/conv.jgx"
jg.jit(conv).lower(xc, wc).compile().save(path)
got = jg.load(path)(xc, wc)
want = conv(xc, wc)
assert np.allclose(np.asarray(got[0]), np.asarray(want[0]), rtol=1e-6)
print("numba" in sys.modules)
"""


@pytest.mark.skipif(shutil.which("gcc") is None, reason="native export needs gcc")
def test_a_training_step_an_export_and_an_artifact_never_import_numba():
    res = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, cwd="/",
                         env=os.environ.copy(), timeout=600)
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == ["False"], res.stdout
