"""`python -m bot prices import FILE.csv` and `python -m bot prices stale`, always on a copy of
knowledge/ in a temporary KNOWLEDGE_DIR (the repository's knowledge/ is never written)."""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bot.core import prices as P
from bot.core.knowledge import load_catalog
from bot.core.yaml_io import safe_load
from bot.prices_cli import import_csv

ROOT = Path(__file__).resolve().parents[2]
TODAY = dt.date(2026, 12, 3)
HEADER = "gpu,kind,price,currency,date,source\n"

GOOD = HEADER + (
    "rtx 3090,used,700,USD,2026-11,ebay sold listings 2026-11\n"
    'rtx-4090,new,"1,899",USD,2026-11-20,shop X\n'
    "4090,cloud:marketplace,0.35,USD,2026-11,vast.ai listing\n"
    "3060 12gb,used,190,EUR,2026-11,kleinanzeigen\n"
    "h100 sxm,cloud,2.1,usd,2026-11,some cloud\n"
)
BAD = HEADER + (
    "rtx 3090,used,700,USD,2026-11,a good row\n"  # line 2: fine
    "foobar 9000,used,100,USD,2026-11,x\n"  # 3 unknown card
    "a100,used,5000,USD,2026-11,x\n"  # 4 ambiguous
    "4090,new,-5,USD,2026-11,x\n"  # 5 negative
    "4090,new,900000,USD,2026-11,x\n"  # 6 absurd
    "4090,used,1500,XYZ,2026-11,x\n"  # 7 unknown currency
    "4090,used,1500,USD,2026-13,x\n"  # 8 bad date
    "4090,rent,1,USD,2026-11,x\n"  # 9 bad kind
    "4090,cloud,500,USD,2026-11,x\n"  # 10 absurd hourly
    "4090,used,1500,USD,2027-05,x\n"  # 11 future
    "4090,used,abc,USD,2026-11,x\n"  # 12 not a number
    "4090,used,1500,USD,2026-11,\n"  # 13 no source
)


@pytest.fixture
def kdir(tmp_path: Path) -> Path:
    k = tmp_path / "knowledge"
    shutil.copytree(ROOT / "knowledge", k)
    (k / P.IMPORTED_FILE).unlink(missing_ok=True)
    return k


def write(tmp_path: Path, text: str, name: str = "p.csv") -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def snapshot(k: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(k.iterdir()) if p.is_file()}


# --------------------------------------------------------------------------- in process


def test_good_file_is_imported_and_used(kdir, tmp_path):
    res = import_csv(write(tmp_path, GOOD), kdir, TODAY)
    assert res.errors == () and res.added == 5 and res.replaced == 0
    cat = load_catalog(kdir)
    used = P.used_price(cat, "rtx-3090")
    assert (used.usd, used.date, used.origin) == (700, "2026-11", P.IMPORTED_FILE)
    new = P.new_price(cat, "rtx-4090")
    assert (new.usd, new.date, new.sub) == (1899, "2026-11-20", P.PriceSub.STREET)
    assert P.cloud_price(cat, "rtx-4090", P.ProviderKind.MARKETPLACE).usd == 0.35
    assert P.cloud_price(cat, "h100-sxm", P.ProviderKind.UNSPECIFIED).usd == 2.1
    eur = P.used_price(cat, "rtx-3060-12gb")
    assert eur.currency == "EUR" and eur.usd == pytest.approx(190 * cat.currencies["EUR"].usd_per_unit)
    assert (kdir / P.PRICES_FILE).read_bytes() == (ROOT / "knowledge" / P.PRICES_FILE).read_bytes()


def test_bad_rows_are_refused_with_line_numbers_and_nothing_is_written(kdir, tmp_path):
    before = snapshot(kdir)
    res = import_csv(write(tmp_path, BAD), kdir, TODAY)
    lines = {e.line: e for e in res.errors}
    assert sorted(lines) == list(range(3, 14))
    assert lines[3].field == "gpu" and "unknown card" in lines[3].problem
    assert "ambiguous" in lines[4].problem
    assert lines[5].field == "price" and "positive" in lines[5].problem
    assert "outside" in lines[6].problem and "per hour" in lines[10].problem
    assert lines[7].field == "currency" and lines[8].field == "date" and lines[9].field == "kind"
    assert "future" in lines[11].problem and lines[13].field == "source"
    assert snapshot(kdir) == before  # one bad row writes nothing


def test_header_must_be_exact(kdir, tmp_path):
    res = import_csv(
        write(tmp_path, "gpu,price,kind,currency,date,source\n3090,700,used,USD,2026-11,x\n"), kdir, TODAY
    )
    assert res.errors and res.errors[0].line == 1 and "header" in res.errors[0].problem
    assert not (kdir / P.IMPORTED_FILE).exists()


def test_duplicate_rows_in_one_file_are_refused(kdir, tmp_path):
    text = HEADER + "3090,used,700,USD,2026-11,a\nrtx 3090,used,710,USD,2026-11,b\n"
    res = import_csv(write(tmp_path, text), kdir, TODAY)
    assert [(e.line, e.field) for e in res.errors] == [(3, "date")]


def test_reimport_replaces_same_card_kind_date_and_keeps_the_rest(kdir, tmp_path):
    import_csv(write(tmp_path, GOOD), kdir, TODAY)
    res = import_csv(
        write(tmp_path, HEADER + "3090,used,680,USD,2026-11,newer listing\n", "q.csv"), kdir, TODAY
    )
    assert (res.added, res.replaced) == (1, 1)
    data = safe_load((kdir / P.IMPORTED_FILE).read_text(encoding="utf-8"))
    assert len(data["prices"]) == 5
    assert P.used_price(load_catalog(kdir), "rtx-3090").usd == 680


def test_replace_is_atomic(kdir, tmp_path, monkeypatch):
    import_csv(write(tmp_path, GOOD), kdir, TODAY)
    target = kdir / P.IMPORTED_FILE
    old_bytes, old_inode = target.read_bytes(), target.stat().st_ino
    # a failure at the last step (the rename) leaves the old file whole and no temporary file
    real_replace = os.replace

    def boom(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError):
        import_csv(write(tmp_path, HEADER + "3090,used,600,USD,2026-10,x\n", "r.csv"), kdir, TODAY)
    assert target.read_bytes() == old_bytes
    assert not [p for p in kdir.iterdir() if p.name.endswith(".tmp")]
    # a successful import puts a new file in place by rename (a new inode), never a partial write
    monkeypatch.setattr(os, "replace", real_replace)
    import_csv(write(tmp_path, HEADER + "3090,used,600,USD,2026-10,x\n", "r.csv"), kdir, TODAY)
    assert target.stat().st_ino != old_inode
    assert not [p for p in kdir.iterdir() if p.name.endswith(".tmp")]
    load_catalog(kdir)  # and the knowledge base still loads


# --------------------------------------------------------------------------- as a user runs it


def run(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if k not in ("DISCORD_TOKEN", "KNOWLEDGE_DIR")}
    full.update(env)
    return subprocess.run(
        [sys.executable, "-m", "bot", *args], cwd=ROOT, capture_output=True, text=True, timeout=60, env=full
    )


@pytest.mark.e2e
def test_cli_import_good_then_bad(kdir, tmp_path):
    env = {"KNOWLEDGE_DIR": str(kdir)}
    p = run("prices", "import", str(write(tmp_path, GOOD)), "--today", "2026-12-03", env=env)
    assert p.returncode == 0, p.stderr
    assert "imported 5 price(s)" in p.stdout and str(kdir) in p.stdout
    before = snapshot(kdir)
    p = run("prices", "import", str(write(tmp_path, BAD, "bad.csv")), "--today", "2026-12-03", env=env)
    assert p.returncode == 1 and "nothing was written" in p.stderr
    assert "line 3, gpu: unknown card 'foobar 9000'" in p.stderr and "line 8, date" in p.stderr
    assert "Traceback" not in p.stderr
    assert snapshot(kdir) == before
    p = run("prices", "import", str(tmp_path / "missing.csv"), env=env)
    assert p.returncode == 2 and "no such file" in p.stderr


@pytest.mark.e2e
def test_cli_stale_lists_old_prices(kdir, tmp_path):
    env = {"KNOWLEDGE_DIR": str(kdir)}
    p = run("prices", "stale", "--today", "2026-12-03", "--json", env=env)
    assert p.returncode == 0, p.stderr
    data = json.loads(p.stdout)
    assert data["stale_months"] == 6
    rows = {(r["gpu"], r["kind"], r["date"]) for r in data["stale"]}
    assert ("rtx-5070-ti", "new", "2026-02") in rows and all(r["months"] > 6 for r in data["stale"])
    assert not any(r["sub"] == "msrp" for r in data["stale"])
    # after importing a fresh price the card's used price is no longer listed
    run("prices", "import", str(write(tmp_path, GOOD)), "--today", "2026-12-03", env=env)
    p = run("prices", "stale", "--today", "2026-12-03", "--json", env=env)
    after = {(r["gpu"], r["kind"]) for r in json.loads(p.stdout)["stale"]}
    assert ("rtx-3090", "used") in {(g, k) for g, k, _ in rows} and ("rtx-3090", "used") not in after
    text = run("prices", "stale", "--today", "2026-12-03", env=env)
    assert "older than 6 months" in text.stdout and "rtx-5070-ti" in text.stdout
