"""`python -m bot ask --json -` survives bad bytes: one invalid UTF-8 byte costs one line
(decoded with replacement), never the batch, even under a strict UTF-8 locale."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]


def test_one_bad_byte_costs_one_line_at_most() -> None:
    env = {**os.environ, "LC_ALL": "C.UTF-8", "PYTHONUTF8": "0", "PYTHONIOENCODING": "utf-8:strict"}
    stdin = b"what gpu for bert under $1000\nbad \xff\xfe byte on a 3090\r\nhelp\n\xc3\n"
    out = subprocess.run(
        [sys.executable, "-m", "bot", "ask", "--json", "-"],
        input=stdin,
        capture_output=True,
        cwd=REPO,
        env=env,
        timeout=120,
        check=True,
    )
    rows = [json.loads(line) for line in out.stdout.decode("utf-8").splitlines()]
    assert len(rows) == 4
    assert rows[0]["intent"] == "recommend" and rows[0]["budget_usd"] == 1000.0
    assert rows[1]["gpus"] == ["rtx-3090"]  # the rest of the bad line is still read
    assert rows[2]["intent"] == "help"
