#!/usr/bin/env bash
# Builds the documentation site into site/ with warnings as errors (mkdocs.yml: strict), after
# installing the docs extra (mkdocs, mkdocs-material, mkdocstrings[python]) into .venv.
set -euo pipefail
cd "$(dirname "$0")/.."
JITGRAD_EXTRAS=docs . scripts/setup.sh
NO_MKDOCS_2_WARNING=1 python -m mkdocs build --strict "$@"
