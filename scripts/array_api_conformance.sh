#!/usr/bin/env bash
# The Python Array API standard's conformance suite (data-apis/array-api-tests) on jitgrad.numpy.
# A developer tool, not part of CI (it needs the network once, to clone the suite).
#
#   bash scripts/array_api_conformance.sh            # 20 examples per test, standard 2023.12
#   MAX_EXAMPLES=100 bash scripts/array_api_conformance.sh
#   ARRAY_API_TESTS_DIR=/path/to/checkout bash scripts/array_api_conformance.sh
#
# The suite runs unmodified, every dtype (the small and unsigned integers included), complex
# dtypes and the fft extension; ARRAY_API_TESTS_SKIP_DTYPES=... still skips dtypes by hand.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
SUITE_COMMIT=55fcc60179efa2680ddd6cd926ddf17b83530e2b      # array-api-tests, 2026
SPEC_COMMIT=5f847a3858875c682ae901aa22b0413bf24be9da       # its array-api submodule
DIR="${ARRAY_API_TESTS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/jitgrad/array-api-tests}"
PY="${PYTHON:-$ROOT/.venv/bin/python}"

if [ ! -d "$DIR/array_api_tests" ]; then
    git clone --quiet https://github.com/data-apis/array-api-tests "$DIR"
    git -C "$DIR" checkout --quiet "$SUITE_COMMIT"
    git -C "$DIR" submodule update --init --quiet
    git -C "$DIR/array-api" checkout --quiet "$SPEC_COMMIT"
fi

DEPS="$DIR/.deps"
if [ ! -d "$DEPS/ndindex" ]; then
    "$PY" -m pip install --quiet --no-deps --target "$DEPS" "ndindex>=1.8" pytest-json-report pytest-metadata
fi

cd "$DIR"
export PYTHONPATH="$DEPS${PYTHONPATH:+:$PYTHONPATH}"
export ARRAY_API_TESTS_MODULE=jitgrad.numpy ARRAY_API_TESTS_VERSION=2023.12
export ARRAY_API_TESTS_SKIP_DTYPES="${ARRAY_API_TESTS_SKIP_DTYPES:-}"
REPORT="$DIR/report.json"
"$PY" -m pytest array_api_tests -q -p no:cacheprovider --max-examples="${MAX_EXAMPLES:-20}" \
    --hypothesis-disable-deadline --json-report \
    --json-report-file="$REPORT" "$@" || true
"$PY" - "$REPORT" <<'PYEOF'
import collections, json, sys
tests = json.load(open(sys.argv[1]))["tests"]
n = collections.Counter(t["outcome"] for t in tests)
ran = n["passed"] + n["failed"]
print(f"array-api-tests on jitgrad.numpy: {n['passed']} passed, {n['failed']} failed, "
      f"{n['skipped']} skipped; {100 * n['passed'] / ran:.1f} % of the {ran} tests run pass")
reasons = collections.Counter(
    str(t.get("setup", {}).get("longrepr", "") or t.get("call", {}).get("longrepr", ""))
    .split("Skipped: ")[-1].rstrip("')") for t in tests if t["outcome"] == "skipped")
for why, k in reasons.most_common():
    print(f"  skipped {k}: {why}")
for t in tests:
    if t["outcome"] == "failed":
        print("  failed:", t["nodeid"])
PYEOF
