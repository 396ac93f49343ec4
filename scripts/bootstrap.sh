#!/usr/bin/env bash
# Create .venv (once) and install the project; reinstall only when pyproject.toml or
# requirements.lock changed. `bootstrap.sh run` (run.sh) installs what running needs;
# `bootstrap.sh dev` (test.sh, the default) adds the test and lint tools. Versions come from
# requirements.lock (constraints), so every machine runs and tests the same set.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$here/.venv"
py="${PYTHON:-python3}"
what="${1:-dev}"
case "$what" in
  run) target="$here" ;;
  dev) target="$here[dev]" ;;
  *) echo "usage: bootstrap.sh [run|dev]" >&2; exit 2 ;;
esac
if ! "$py" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
  echo "gpu-advisor needs Python 3.11 or newer (set PYTHON=/path/to/python3.11)" >&2
  exit 1
fi
if [ ! -x "$venv/bin/python" ]; then
  "$py" -m venv "$venv"
fi
hash="$(cat "$here/pyproject.toml" "$here/requirements.lock" | sha1sum | cut -c1-12)"
stamp="$venv/.installed-$what-$hash"
# a dev install holds everything a run install needs
if [ -f "$stamp" ] || { [ "$what" = run ] && [ -f "$venv/.installed-dev-$hash" ]; }; then
  exit 0
fi
echo "Setting up .venv for $what (first time; takes a minute)..." >&2
log="$venv/install.log"
if ! { "$venv/bin/python" -m pip install --disable-pip-version-check --upgrade pip \
       && "$venv/bin/python" -m pip install --disable-pip-version-check -c "$here/requirements.lock" -e "$target"; } >"$log" 2>&1; then
  tail -n 40 "$log" >&2
  echo "installing the dependencies failed; full log: $log" >&2
  exit 1
fi
rm -f "$venv"/.installed-"$what"-* && touch "$stamp"
