"""test.sh runs the end-to-end tests (marker ``e2e``) from the folders it names only: an e2e test
written anywhere else would never run. Every test file that marks a test e2e is in one of them."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
E2E_MARK = re.compile(r"mark\.e2e\b")


def _e2e_folders() -> list[str]:
    line = next(x for x in (ROOT / "test.sh").read_text().splitlines() if "-m e2e" in x)
    return [w for w in line.split() if w.startswith("tests/")]


def test_test_sh_names_the_e2e_folders() -> None:
    folders = _e2e_folders()
    assert folders, "test.sh's e2e run names no folder"
    assert all((ROOT / f).is_dir() for f in folders)


def test_every_e2e_test_is_in_a_folder_test_sh_runs() -> None:
    folders = [ROOT / f for f in _e2e_folders()]
    marked = [
        p for p in (ROOT / "tests").rglob("test_*.py") if E2E_MARK.search(p.read_text(encoding="utf-8"))
    ]
    assert len(marked) >= 5  # the CLI and Discord end-to-end files
    outside = [str(p.relative_to(ROOT)) for p in marked if not any(f in p.parents for f in folders)]
    assert outside == [], f"e2e tests that test.sh never runs: {outside}"
