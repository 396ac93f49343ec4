#!/usr/bin/env bash
# Create .venv (once) and install the project with its dev tools; reinstall
# only when pyproject.toml or requirements.lock changed. Versions come from
# requirements.lock (constraints), so every machine tests the same set. Called by run.sh and test.sh.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$here/.venv"
py="${PYTHON:-python3}"
if ! "$py" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
  echo "gpu-advisor needs Python 3.11 or newer (set PYTHON=/path/to/python3.11)" >&2
  exit 1
fi
if [ ! -x "$venv/bin/python" ]; then
  "$py" -m venv "$venv"
fi
stamp="$venv/.installed-$(cat "$here/pyproject.toml" "$here/requirements.lock" | sha1sum | cut -c1-12)"
if [ ! -f "$stamp" ]; then
  echo "Setting up .venv (first run; takes a minute)..." >&2
  log="$venv/install.log"
  if ! { "$venv/bin/python" -m pip install --disable-pip-version-check --upgrade pip \
         && "$venv/bin/python" -m pip install --disable-pip-version-check -c "$here/requirements.lock" -e "$here[dev]"; } >"$log" 2>&1; then
    tail -n 40 "$log" >&2
    echo "installing the dependencies failed; full log: $log" >&2
    exit 1
  fi
  rm -f "$venv"/.installed-* && touch "$stamp"
fi
