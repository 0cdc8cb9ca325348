#!/usr/bin/env bash
# Install jitgrad with its test and cuda extras (CUDA is tested with the simulator and PTX
# compilation; no GPU needed) and run the test suite. Extra arguments go to pytest.
set -euo pipefail
JITGRAD_EXTRAS="test,cuda,distributed" source "$(dirname "$0")/setup.sh"
# pytest-xdist workers, one per core (JITGRAD_TEST_WORKERS=0: all in this process)
python -m pytest -n "${JITGRAD_TEST_WORKERS:-auto}" --durations=40 "$@"
