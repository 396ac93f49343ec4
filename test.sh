#!/usr/bin/env bash
# Set up (first time) and run the whole test suite: fast unit tests first,
# then the end-to-end tests (marker `e2e`).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
bash scripts/bootstrap.sh dev
.venv/bin/python -m pytest -m "not e2e" "$@"
.venv/bin/python -m pytest -m e2e "$@"
