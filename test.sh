#!/usr/bin/env bash
# Set up (first time) and run the whole test suite: fast unit tests first,
# then the end-to-end tests (marker `e2e`).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
bash scripts/bootstrap.sh dev
# two workers (the target machine has two cores); a test file stays on one worker, in order
.venv/bin/python -m pytest -m "not e2e" -n 2 --dist loadfile "$@"
# the end-to-end tests live in these folders (tests/test_suite_layout.py holds that): collecting
# only them saves the ~6 s of importing and listing every unit test a second time
.venv/bin/python -m pytest -m e2e -n 2 --dist loadfile tests/cli tests/discord "$@"
