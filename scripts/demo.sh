#!/usr/bin/env bash
# Install jitgrad and run the main job: `jitgrad demo` (extra arguments are passed on).
set -euo pipefail
JITGRAD_EXTRAS="test" source "$(dirname "$0")/setup.sh"
jitgrad demo "$@"
