#!/usr/bin/env bash
# Set up (first time) and run gpu-advisor: the terminal chat without a
# DISCORD_TOKEN, the Discord bot with one. Extra arguments go to `python -m bot`.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
bash "$here/scripts/bootstrap.sh" run
exec "$here/.venv/bin/python" -m bot "$@"
