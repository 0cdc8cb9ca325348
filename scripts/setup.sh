# Sourced by demo.sh and test.sh: a virtual environment in .venv with jitgrad installed
# (editable) and the extras named in $JITGRAD_EXTRAS. Safe to run again: pip skips what is there.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
. .venv/bin/activate
python -m pip install -q --upgrade pip >/dev/null
python -m pip install -q -e ".[${JITGRAD_EXTRAS:-test}]"
# native AOT export links against OpenBLAS (cblas_sgemm); install it when we can
if ! ldconfig -p 2>/dev/null | grep -q 'libopenblas\.so '; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    (apt-get update -qq && apt-get install -y -qq libopenblas-dev >/dev/null) || \
      echo "note: libopenblas-dev not installed; native BLAS tests will skip" >&2
  fi
fi
