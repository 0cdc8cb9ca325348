#!/usr/bin/env bash
# CI: build jitgrad's wheel from the working tree, install it into a fresh virtual environment
# outside the checkout and use it there (jit, grad, nn, optim, the `jitgrad` command, the demo),
# so a package or data file missing from the wheel fails here, not on a user's machine (the
# editable install of scripts/setup.sh hides such mistakes).
#
# Fast where it can be: the dependencies come from the environment running this script when it
# has them all (the .venv of scripts/setup.sh in CI), through a .pth file; elsewhere pip installs
# them into the fresh environment. PYTHON picks the interpreter (default: python3).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
py="${PYTHON:-python3}"
work="$(mktemp -d "${TMPDIR:-/tmp}/jitgrad-wheel.XXXXXX")"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/src" "$work/dist"

# the working tree without ignored files: a stale build/ must not leak into the wheel
if git -C "$repo" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  # (a tracked file deleted in the working tree is skipped: --ignore-failed-read)
  (cd "$repo" && git ls-files -z -co --exclude-standard \
     | tar -cf - --null -T - --ignore-failed-read 2>/dev/null) | tar -xf - -C "$work/src"
else
  tar -C "$repo" --exclude=.venv --exclude=build --exclude='*.egg-info' --exclude=__pycache__ \
      -cf - . | tar -xf - -C "$work/src"
fi

echo "wheel smoke: building the wheel"
isolation=()
if "$py" -c "import setuptools, wheel, sys; sys.exit(int(setuptools.__version__.split('.')[0]) < 68)" 2>/dev/null; then
  isolation=(--no-build-isolation)      # the build backend is here already: no download
fi
"$py" -m pip wheel -q --no-deps "${isolation[@]}" -w "$work/dist" "$work/src"
whl=("$work"/dist/jitgrad-*.whl)

echo "wheel smoke: installing $(basename "${whl[0]}") into a fresh environment"
"$py" -m venv "$work/venv"
vpy="$work/venv/bin/python"
if "$py" -c "import numpy, numba, llvmlite, scipy, tqdm" 2>/dev/null; then
  # the dependencies as they are installed here; the .pth adds their directories after the
  # fresh environment's own (whose jitgrad is the wheel's: an editable jitgrad here is a .pth
  # of its own, which a directory added this way does not run)
  "$py" -c "import sysconfig; print(sysconfig.get_paths()['purelib']); print(sysconfig.get_paths()['platlib'])" \
    > "$("$vpy" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")/jitgrad-smoke-deps.pth"
  "$vpy" -m pip install -q --no-deps --no-index "${whl[0]}"
else
  "$vpy" -m pip install -q "${whl[0]}"
fi

cd "$work"           # nothing of the checkout on sys.path
export JITGRAD_CACHE_DIR="$work/cache"
"$vpy" - "$work/venv" <<'EOF'
import sys

import numpy as np

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad import nn, optim

assert jg.__file__.startswith(sys.argv[1]), f"jitgrad imported from {jg.__file__}, not the wheel"
x = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)
np.testing.assert_allclose(np.asarray(jg.jit(lambda a: jnp.tanh(a) * 2)(x)), np.tanh(x) * 2, rtol=1e-5)
np.testing.assert_allclose(np.asarray(jg.grad(lambda a: jnp.sum(a * a))(x)), 2 * x, rtol=1e-6)
jg.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
opt = optim.SGD(model.parameters(), lr=0.1)
loss = nn.functional.cross_entropy(model(jg.tensor(x)), jg.tensor(np.array([0, 1, 0])))
loss.backward()
opt.step()
print(f"wheel smoke: jit, grad, nn, optim ok (loss {loss.item():.4f})")
EOF
"$work/venv/bin/jitgrad" --version
"$work/venv/bin/jitgrad" demo --quick >"$work/demo.log" 2>&1 || { cat "$work/demo.log"; exit 1; }
tail -n 3 "$work/demo.log"
echo "wheel smoke: ok"
