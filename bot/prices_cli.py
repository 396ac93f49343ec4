"""``python -m bot prices``: import a dated price list, list stale prices.

``python -m bot prices import FILE.csv``
    reads a CSV with the header ``gpu,kind,price,currency,date,source``
    (gpu: a card id or name, matched like questions are; kind: new, used or
    cloud, a cloud price being per GPU-hour, optionally narrowed as
    ``new:msrp|new:street|new:list`` or
    ``cloud:hyperscaler|cloud:specialist|cloud:marketplace``; currency: a
    code or symbol from currencies.yaml; date: YYYY-MM or YYYY-MM-DD, not in
    the future). Every row is checked first; any bad row is reported with its
    line number and nothing is written. Good rows go to
    ``prices-imported.yaml`` in the knowledge directory in use (``knowledge/``
    or ``KNOWLEDGE_DIR``), replacing earlier imported rows with the same
    card, kind and date; the file is written to a temporary file in the same
    directory, re-validated, and moved into place with ``os.replace``.
``python -m bot prices stale [--today YYYY-MM-DD] [--json]``
    lists the prices in use older than ``STALE_MONTHS``.

Exit codes: 0 done, 1 rows refused, 2 unusable input or knowledge.
"""

from __future__ import annotations

import argparse
import csv
import datetime as _dt
import io
import json
import os
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["add_parser", "import_csv", "ImportResult", "RowError", "HEADER"]

HEADER = ("gpu", "kind", "price", "currency", "date", "source")
MAX_ROWS = 20_000


@dataclass(frozen=True)
class RowError:
    line: int
    field: str | None
    problem: str

    def __str__(self) -> str:
        where = f"line {self.line}" + (f", {self.field}" if self.field else "")
        return f"{where}: {self.problem}"


@dataclass(frozen=True)
class ImportResult:
    errors: tuple[RowError, ...]
    added: int = 0
    replaced: int = 0
    path: Path | None = None


def _resolve_gpu(text: str, catalog: Any) -> tuple[str | None, str | None]:
    """(gpu id, None) or (None, problem)."""
    from bot.core.matching import get_matcher, normalize, tokenize

    t = text.strip()
    if not t:
        return None, "empty card name"
    if t in catalog.gpus:
        return t, None
    matcher = get_matcher(catalog)
    norm = normalize(t)
    ms = matcher.mentions(norm, "gpu", tokenize(norm))
    if len(ms) == 1 and ms[0].text.replace(" ", "") == norm.replace(" ", "").strip():
        m = ms[0]
        if len(m.ids) > 1:
            return None, f"ambiguous card {t!r}: one of {', '.join(m.ids)}"
        return m.ids[0], None
    match = matcher.resolve(t, "gpu")
    if match is not None and match.score >= 90 and match.kind == "gpu":
        return match.id, None
    return None, f"unknown card {t!r} (not in gpus.yaml)"


def _currency_code(text: str, catalog: Any) -> str | None:
    from bot.core.knowledge import normalise_name

    t = text.strip()
    if t.upper() in catalog.currencies:
        return t.upper()
    key = normalise_name(t)
    for code, rate in catalog.currencies.items():
        if any(normalise_name(s) == key for s in rate.symbols):
            return code
    return None


def _parse_price(text: str) -> float | None:
    t = text.strip().replace(",", "").replace("_", "")
    try:
        v = float(t)
    except ValueError:
        return None
    return v


def _read_rows(path: Path) -> tuple[list[tuple[int, dict[str, str]]], list[RowError]]:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        return [], [RowError(0, None, f"cannot read {path}: {exc.strerror or exc}")]
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        return [], [RowError(0, None, "the file is not UTF-8 text")]
    reader = csv.reader(io.StringIO(text, newline=""))
    rows: list[tuple[int, dict[str, str]]] = []
    errors: list[RowError] = []
    try:
        header = next(reader, None)
        if header is None:
            return [], [RowError(1, None, "empty file: expected the header " + ",".join(HEADER))]
        if tuple(h.strip().lower() for h in header) != HEADER:
            return [], [
                RowError(1, None, f"header must be exactly {','.join(HEADER)}; got {','.join(header)}")
            ]
        for rec in reader:
            line = reader.line_num
            if not rec or all(not c.strip() for c in rec):
                continue
            if len(rec) != len(HEADER):
                errors.append(RowError(line, None, f"expected {len(HEADER)} columns, got {len(rec)}"))
                continue
            rows.append((line, dict(zip(HEADER, (c.strip() for c in rec), strict=True))))
            if len(rows) > MAX_ROWS:
                return [], [RowError(line, None, f"more than {MAX_ROWS} rows")]
    except csv.Error as exc:
        errors.append(RowError(reader.line_num, None, f"CSV error: {exc}"))
    return rows, errors


def _row_entry(
    line: int, row: Mapping[str, str], catalog: Any, today: _dt.date
) -> tuple[dict[str, Any] | None, list[RowError]]:
    from bot.core import prices as P

    errs: list[RowError] = []
    gpu, problem = _resolve_gpu(row["gpu"], catalog)
    if problem:
        errs.append(RowError(line, "gpu", problem))
    kind_text = row["kind"].strip().lower()
    kind, _, narrow = kind_text.partition(":")
    entry: dict[str, Any] = {"gpu": gpu, "kind": kind}
    if kind not in ("new", "used", "cloud"):
        errs.append(RowError(line, "kind", f"must be new, used or cloud; got {row['kind']!r}"))
    elif kind == "new":
        entry["sub"] = narrow or "street"
    elif kind == "cloud":
        entry["provider_kind"] = narrow or "unspecified"
    elif narrow:
        errs.append(RowError(line, "kind", f"used takes no ':{narrow}'"))
    price = _parse_price(row["price"])
    if price is None:
        errs.append(RowError(line, "price", f"not a number: {row['price']!r}"))
    elif price <= 0:
        errs.append(RowError(line, "price", f"must be positive, got {row['price']}"))
    entry["price"] = price
    code = _currency_code(row["currency"], catalog)
    if code is None:
        known = ", ".join(sorted(catalog.currencies))
        errs.append(RowError(line, "currency", f"unknown currency {row['currency']!r} (known: {known})"))
    entry["currency"] = code
    d = P.parse_date(row["date"])
    if d is None:
        errs.append(RowError(line, "date", f"must be YYYY-MM or YYYY-MM-DD, got {row['date']!r}"))
    elif _dt.date(*d) > today:
        errs.append(RowError(line, "date", f"{row['date']} is in the future"))
    entry["date"] = row["date"].strip()
    if not row["source"].strip():
        errs.append(RowError(line, "source", "empty: say where the price comes from"))
    entry["source"] = row["source"].strip()
    if errs:
        return None, errs
    try:
        P.validate_entry(entry, catalog.gpus, catalog.currencies, origin=P.IMPORTED_FILE)
    except ValueError as exc:
        fld, prob = exc.args if len(exc.args) == 2 else (None, str(exc))
        return None, [RowError(line, fld, prob)]
    return {k: v for k, v in entry.items() if v is not None}, []


_FILE_HEADER = """\
# Prices imported with `python -m bot prices import FILE.csv`; replaced as a whole on
# every import (written to a temporary file, validated, then moved into place).
# Same schema as prices.yaml's `prices:` list (knowledge/SCHEMA.md). Edit prices.yaml for
# curated prices; a row here with the same card, kind and date wins over prices.yaml.
"""


def _key(e: Mapping[str, Any]) -> tuple[str, ...]:
    return (e["gpu"], e["kind"], e.get("sub", ""), e.get("provider_kind", ""), str(e["date"]))


def import_csv(csv_path: Path, directory: Path, today: _dt.date | None = None) -> ImportResult:
    """Validate ``csv_path`` against the knowledge in ``directory`` and merge it into
    ``prices-imported.yaml`` there (atomically). Nothing is written when any row is bad."""
    import yaml

    from bot.core import prices as P
    from bot.core.knowledge import load_catalog
    from bot.core.yaml_io import safe_load

    today = today or _dt.date.today()
    catalog = load_catalog(directory)
    rows, errors = _read_rows(csv_path)
    entries: list[dict[str, Any]] = []
    seen: dict[tuple[str, ...], int] = {}
    for line, row in rows:
        entry, errs = _row_entry(line, row, catalog, today)
        errors.extend(errs)
        if entry is not None:
            k = _key(entry)
            if k in seen:
                errors.append(RowError(line, "date", f"same card, kind and date as line {seen[k]}"))
                continue
            seen[k] = line
            entries.append(entry)
    if not errors and not entries:
        errors.append(RowError(1, None, "no price rows after the header"))
    if errors:
        return ImportResult(tuple(sorted(errors, key=lambda e: e.line)))

    target = Path(directory) / P.IMPORTED_FILE
    existing: list[dict[str, Any]] = []
    if target.is_file():
        data = safe_load(target.read_text(encoding="utf-8")) or {}
        existing = [dict(e) for e in (data.get("prices") or []) if isinstance(e, dict)]
    new_keys = {_key(e) for e in entries}
    kept = [e for e in existing if _key(e) not in new_keys]
    replaced = len(existing) - len(kept)
    merged = sorted(kept + entries, key=lambda e: (e["gpu"], e["kind"], str(e["date"])))
    for e in merged:
        e["date"] = str(e["date"])
    text = _FILE_HEADER + yaml.safe_dump(
        {"prices": merged}, sort_keys=False, allow_unicode=True, default_flow_style=False, width=200
    )
    fd, tmp_name = tempfile.mkstemp(prefix=".prices-imported.", suffix=".tmp", dir=str(directory))
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        # the whole knowledge base must still load with the new file in place
        P._read_book_file(
            tmp, P.IMPORTED_FILE, catalog.gpus, catalog.currencies, origin=P.IMPORTED_FILE, allow_extras=False
        )
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return ImportResult((), added=len(entries), replaced=replaced, path=target)


# --------------------------------------------------------------------------- commands


def _knowledge_dir() -> Path:
    from bot.core.knowledge import default_knowledge_dir

    return default_knowledge_dir(os.environ)


def _today(text: str | None) -> _dt.date:
    if not text:
        return _dt.date.today()
    return _dt.date.fromisoformat(text)


def _cmd_import(args: argparse.Namespace) -> int:
    from bot.core.errors import KnowledgeError

    path = Path(args.file)
    if not path.is_file():
        print(f"prices import: no such file: {path}", file=sys.stderr)
        return 2
    try:
        today = _today(args.today)
        result = import_csv(path, _knowledge_dir(), today)
    except KnowledgeError as exc:
        print(f"knowledge error: {exc}", file=sys.stderr)
        return 2
    except ValueError as exc:
        print(f"prices import: {exc}", file=sys.stderr)
        return 2
    if result.errors:
        print(
            f"prices import: {len(result.errors)} problem(s) in {path}; nothing was written:", file=sys.stderr
        )
        for e in result.errors:
            print(f"  {e}", file=sys.stderr)
        return 1
    print(f"imported {result.added} price(s) ({result.replaced} replaced) into {result.path}")
    return 0


def _cmd_stale(args: argparse.Namespace) -> int:
    from bot.core import prices as P
    from bot.core.errors import KnowledgeError
    from bot.core.knowledge import load_catalog

    try:
        today = _today(args.today)
        cat = load_catalog(_knowledge_dir())
    except KnowledgeError as exc:
        print(f"knowledge error: {exc}", file=sys.stderr)
        return 2
    except ValueError as exc:
        print(f"prices stale: {exc}", file=sys.stderr)
        return 2
    pb = P.book(cat)
    stale = list(P.stale_quotes(pb, today))
    booked = {(q.gpu, q.kind) for q in pb.quotes}
    for g in cat.gpus.values():  # gpus.yaml fallback prices still in use
        fb = P.used_price(cat, g.id) if g.price_kind == "used" else P.new_price(cat, g.id)
        if fb is not None and fb.origin == "gpus.yaml" and (g.id, fb.kind) not in booked:
            if P.is_stale(fb.date, today):
                stale.append(fb)
    rows = [
        {
            **q.to_json(),
            "months": P.months_between(q.date, today),
        }
        for q in stale
    ]
    if args.json:
        print(
            json.dumps(
                {"today": today.isoformat(), "stale_months": P.STALE_MONTHS, "stale": rows}, allow_nan=False
            )
        )
        return 0
    if not rows:
        print(f"no price older than {P.STALE_MONTHS} months (today {today.isoformat()})")
        return 0
    print(f"{len(rows)} price(s) older than {P.STALE_MONTHS} months (today {today.isoformat()}):")
    for r in rows:
        what = (
            r["kind"]
            + (f"/{r['sub']}" if r["sub"] else "")
            + (f"/{r['provider_kind']}" if r["provider_kind"] else "")
        )
        est = " est." if r["estimated"] else ""
        unit = "/h" if r["kind"] == "cloud" else ""
        print(
            f"  {r['gpu']:<18} {what:<22} {r['price']:>10,.2f} {r['currency']}{unit}{est:<5} "
            f"{r['date']:<10} {r['months']:>3} months  [{r['origin']}]"
        )
    return 0


def add_parser(sub: Any) -> None:
    """Register ``prices import|stale`` on the main parser's sub-parsers."""
    p = sub.add_parser("prices", help="import a dated price list (CSV) or list stale prices")
    psub = p.add_subparsers(dest="prices_cmd", required=True)
    imp = psub.add_parser(
        "import", help="load FILE.csv (gpu,kind,price,currency,date,source) into the knowledge base"
    )
    imp.add_argument("file")
    imp.add_argument("--today", help=argparse.SUPPRESS)
    imp.set_defaults(func=_cmd_import)
    st = psub.add_parser("stale", help="list prices older than the stale limit")
    st.add_argument("--json", action="store_true")
    st.add_argument("--today", help="judge age against this date (YYYY-MM-DD)")
    st.set_defaults(func=_cmd_stale)
