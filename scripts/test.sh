#!/usr/bin/env bash
# Install jitgrad with its test and cuda extras (CUDA is tested with the simulator and PTX
# compilation; no GPU needed) and run the test suite. Extra arguments go to pytest.
set -euo pipefail
JITGRAD_EXTRAS="test,cuda,distributed" source "$(dirname "$0")/setup.sh"
python -m pytest --durations=40 "$@"
