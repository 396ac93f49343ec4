#!/usr/bin/env bash
# Create .venv (once) and install the project with its dev tools; reinstall
# only when pyproject.toml changed. Sourced by run.sh and test.sh.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$here/.venv"
py="${PYTHON:-python3}"
if [ ! -x "$venv/bin/python" ]; then
  "$py" -m venv "$venv"
fi
stamp="$venv/.installed-$(sha1sum "$here/pyproject.toml" | cut -c1-12)"
if [ ! -f "$stamp" ]; then
  "$venv/bin/python" -m pip install -q --disable-pip-version-check --upgrade pip >&2
  "$venv/bin/python" -m pip install -q --disable-pip-version-check -e "$here[dev]" >&2
  rm -f "$venv"/.installed-* && touch "$stamp"
fi
