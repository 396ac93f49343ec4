"""The price book: dated, sourced new / used / cloud prices per card (``knowledge/prices.yaml``).

Contract: ``knowledge/SCHEMA.md`` ("prices.yaml"). :func:`load` reads
``prices.yaml`` and, when present, ``prices-imported.yaml`` (written by
``python -m bot prices import``) from a knowledge directory, validates every
entry (unknown keys and cards, bad dates, unknown currencies, negative or
absurd prices fail with :class:`KnowledgeError` naming file, entry and field)
and returns a :class:`PriceBook` of typed :class:`PriceQuote` values, each
converted to USD with the dated rate of ``currencies.yaml``.

Lookups (:func:`new_price`, :func:`used_price`, :func:`cloud_prices`,
:func:`purchase_price`) take the newest quote of a kind; a card without a
quote of that kind falls back to ``gpus.yaml``'s ``price_usd`` (``origin`` is
then ``"gpus.yaml"``). :data:`STALE_MONTHS` is the one place that says when a
price is too old to be shown without a warning (:func:`is_stale`). Launch
MSRPs are launch facts and never stale.

The catalog carries its book as ``catalog.prices`` (filled by
:func:`bot.core.knowledge.load_catalog`); :func:`book` also builds one for a
catalog that has none. Pure: no environment, no network, no Discord.
"""

from __future__ import annotations

import datetime as _dt
import functools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bot.core import gated_re
from bot.core.errors import KnowledgeError
from bot.core.quick_init import quick_init

if TYPE_CHECKING:
    from bot.core.knowledge import GPU, Catalog, CurrencyRate

__all__ = [
    "PriceKind",
    "PriceSub",
    "ProviderKind",
    "PriceQuote",
    "UsedRisk",
    "PriceBook",
    "STALE_MONTHS",
    "PRICE_BOUNDS_USD",
    "PRICES_FILE",
    "IMPORTED_FILE",
    "load",
    "book",
    "is_stale",
    "months_between",
    "parse_date",
    "new_price",
    "used_price",
    "cloud_prices",
    "cloud_price",
    "purchase_price",
    "used_trend",
    "stale_quotes",
    "validate_entry",
    "quoted",
    "filtered_price",
]

# A price older than this many months is called stale (the one place this is set).
STALE_MONTHS = 6

PRICES_FILE = "prices.yaml"
IMPORTED_FILE = "prices-imported.yaml"


class PriceKind(StrEnum):
    NEW = "new"
    USED = "used"
    CLOUD = "cloud"


class PriceSub(StrEnum):
    """What kind of new price: launch MSRP, street (what shops charge), vendor list price."""

    MSRP = "msrp"
    STREET = "street"
    LIST = "list"


class ProviderKind(StrEnum):
    HYPERSCALER = "hyperscaler"  # AWS, Azure, GCP, Oracle on-demand
    SPECIALIST = "specialist"  # GPU clouds on-demand: Lambda, CoreWeave, RunPod secure, ...
    MARKETPLACE = "marketplace"  # peer / spot: vast.ai, RunPod community / spot
    UNSPECIFIED = "unspecified"  # imported rows that did not say


# Sanity bounds in USD (after conversion): a price outside is refused as absurd.
# One card new/used: 20 USD .. 100,000 USD; cloud per GPU-hour: 0.01 .. 100 USD.
PRICE_BOUNDS_USD: Mapping[PriceKind, tuple[float, float]] = {
    PriceKind.NEW: (20.0, 100_000.0),
    PriceKind.USED: (20.0, 100_000.0),
    PriceKind.CLOUD: (0.01, 100.0),
}

_DATE_RE = gated_re.compile(r"^(?P<y>(?:19|20)\d\d)-(?P<m>0[1-9]|1[0-2])(?:-(?P<d>0[1-9]|[12]\d|3[01]))?$")
_ENTRY_KEYS = frozenset(
    {"gpu", "kind", "sub", "provider_kind", "price", "currency", "date", "source", "estimated", "notes"}
)
_RISK_KEYS = frozenset({"code", "source", "date"})
_DEFAULT_KEYS = frozenset({"electricity_usd_per_kwh", "electricity_date", "electricity_source"})


@quick_init
@dataclass(frozen=True)
class PriceQuote:
    """One dated price of one card. ``price`` in ``currency``; ``usd`` converted."""

    gpu: str
    kind: PriceKind
    provider_kind: ProviderKind | None  # cloud only
    price: float
    currency: str
    usd: float
    date: str  # YYYY-MM or YYYY-MM-DD
    source: str
    estimated: bool
    sub: PriceSub | None = None  # new only
    origin: str = PRICES_FILE  # prices.yaml | prices-imported.yaml | gpus.yaml | quoted

    def to_json(self) -> dict[str, Any]:
        return {
            "gpu": self.gpu,
            "kind": self.kind.value,
            "sub": self.sub.value if self.sub else None,
            "provider_kind": self.provider_kind.value if self.provider_kind else None,
            "price": self.price,
            "currency": self.currency,
            "usd": round(self.usd, 4),
            "date": self.date,
            "source": self.source,
            "estimated": self.estimated,
            "origin": self.origin,
        }


@dataclass(frozen=True)
class UsedRisk:
    code: str  # mining_wear | compute_wear | no_warranty | bios_modded
    source: str
    date: str


@dataclass(frozen=True)
class PriceBook:
    quotes: tuple[PriceQuote, ...] = ()
    used_risks: tuple[UsedRisk, ...] = ()
    electricity_usd_per_kwh: float | None = None
    electricity_date: str | None = None
    electricity_source: str | None = None
    by_gpu: Mapping[str, tuple[PriceQuote, ...]] = field(default_factory=dict)

    @classmethod
    def of(cls, quotes: Sequence[PriceQuote], **kw: Any) -> PriceBook:
        grouped: dict[str, list[PriceQuote]] = {}
        for q in quotes:
            grouped.setdefault(q.gpu, []).append(q)
        return cls(quotes=tuple(quotes), by_gpu={k: tuple(v) for k, v in grouped.items()}, **kw)

    def for_gpu(self, gpu_id: str) -> tuple[PriceQuote, ...]:
        return self.by_gpu.get(gpu_id, ())

    def __len__(self) -> int:
        return len(self.quotes)


# --------------------------------------------------------------------------- dates


def parse_date(text: str) -> tuple[int, int, int] | None:
    """``YYYY-MM`` or ``YYYY-MM-DD`` -> (year, month, day or 1); None when malformed or impossible."""
    m = _DATE_RE.match(text.strip()) if isinstance(text, str) else None
    if not m:
        return None
    y, mo, d = int(m["y"]), int(m["m"]), int(m["d"] or 1)
    try:
        _dt.date(y, mo, d)
    except ValueError:
        return None
    return y, mo, d


def months_between(older: str, newer: str | _dt.date) -> int:
    """Whole months from ``older`` to ``newer`` (by calendar month; negative when ``older`` is later)."""
    a = parse_date(older)
    if a is None:
        raise ValueError(f"bad date {older!r}")
    if isinstance(newer, _dt.date):
        b = (newer.year, newer.month, newer.day)
    else:
        pb = parse_date(newer)
        if pb is None:
            raise ValueError(f"bad date {newer!r}")
        b = pb
    return (b[0] - a[0]) * 12 + (b[1] - a[1])


def is_stale(date: str, today: _dt.date | None = None) -> bool:
    """True when ``date`` is more than :data:`STALE_MONTHS` months before ``today``."""
    return _stale(date, today or _dt.date.today())


@functools.lru_cache(maxsize=512)
def _stale(date: str, today: _dt.date) -> bool:
    # (the catalog's few hundred price dates, against today: the answer asks for each card it shows)
    return months_between(date, today) > STALE_MONTHS


# --------------------------------------------------------------------------- validation


def _show(v: Any) -> str:
    t = repr(v)
    return t if len(t) <= 60 else t[:57] + "..."


def _num(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)


def _date_str(v: Any) -> Any:
    # unquoted YAML dates load as datetime.date
    if isinstance(v, _dt.date):
        return v.isoformat()
    return v


def validate_entry(
    raw: Mapping[str, Any],
    gpus: Mapping[str, GPU],
    currencies: Mapping[str, CurrencyRate],
    *,
    origin: str = PRICES_FILE,
) -> PriceQuote:
    """Check one price entry; return it as a :class:`PriceQuote`.

    Raises ``ValueError(field, problem)`` (args) on the first problem; callers
    add file / entry / line. Used by :func:`load` and by the CSV import.
    """
    for k in raw:
        if k not in _ENTRY_KEYS:
            raise ValueError(str(k), "unknown key (not in knowledge/SCHEMA.md)")
    for k in ("gpu", "kind", "price", "currency", "date", "source"):
        if raw.get(k) is None:
            raise ValueError(k, "missing required key")
    gpu = raw["gpu"]
    if not isinstance(gpu, str) or gpu not in gpus:
        raise ValueError("gpu", f"unknown card {_show(gpu)} (use an id from gpus.yaml)")
    try:
        kind = PriceKind(raw["kind"])
    except ValueError:
        raise ValueError("kind", f"must be one of new, used, cloud; got {_show(raw['kind'])}") from None
    sub: PriceSub | None = None
    provider: ProviderKind | None = None
    if raw.get("sub") is not None:
        if kind is not PriceKind.NEW:
            raise ValueError("sub", "only new prices have a sub (msrp, street, list)")
        try:
            sub = PriceSub(raw["sub"])
        except ValueError:
            raise ValueError("sub", f"must be one of msrp, street, list; got {_show(raw['sub'])}") from None
    elif kind is PriceKind.NEW:
        sub = PriceSub.STREET
    if raw.get("provider_kind") is not None:
        if kind is not PriceKind.CLOUD:
            raise ValueError("provider_kind", "only cloud prices have a provider_kind")
        try:
            provider = ProviderKind(raw["provider_kind"])
        except ValueError:
            allowed = ", ".join(p.value for p in ProviderKind)
            raise ValueError(
                "provider_kind", f"must be one of {allowed}; got {_show(raw['provider_kind'])}"
            ) from None
    elif kind is PriceKind.CLOUD:
        raise ValueError("provider_kind", "a cloud price needs provider_kind (hyperscaler, specialist, ...)")
    price = raw["price"]
    if not _num(price) or price <= 0:
        raise ValueError("price", f"must be a positive number, got {_show(price)}")
    cur = raw["currency"]
    if not isinstance(cur, str) or cur.strip().upper() not in currencies:
        known = ", ".join(sorted(currencies))
        raise ValueError("currency", f"unknown currency {_show(cur)} (known: {known})")
    cur = cur.strip().upper()
    usd = float(price) * currencies[cur].usd_per_unit
    lo, hi = PRICE_BOUNDS_USD[kind]
    if not lo <= usd <= hi:
        unit = " per hour" if kind is PriceKind.CLOUD else ""
        raise ValueError(
            "price", f"{price} {cur} (= {usd:,.2f} USD{unit}) is outside {lo:g}..{hi:,.0f} USD{unit}"
        )
    date = _date_str(raw["date"])
    if not isinstance(date, str) or parse_date(date) is None:
        raise ValueError("date", f"must be YYYY-MM or YYYY-MM-DD (quote it), got {_show(date)}")
    source = raw["source"]
    if not isinstance(source, str) or not source.strip():
        raise ValueError("source", f"must be a non-empty string, got {_show(source)}")
    est = raw.get("estimated", False)
    if not isinstance(est, bool):
        raise ValueError("estimated", f"must be true or false, got {_show(est)}")
    if raw.get("notes") is not None and not isinstance(raw["notes"], str):
        raise ValueError("notes", f"must be a string, got {_show(raw['notes'])}")
    return PriceQuote(
        gpu=gpu,
        kind=kind,
        provider_kind=provider,
        price=float(price),
        currency=cur,
        usd=usd,
        date=date,
        source=source.strip(),
        estimated=est,
        sub=sub,
        origin=origin,
    )


def _entry_label(raw: Any, i: int) -> str:
    if isinstance(raw, Mapping):
        bits = [str(raw.get(k)) for k in ("gpu", "kind", "sub", "provider_kind", "date") if raw.get(k)]
        if bits:
            return f"price #{i + 1} ({' '.join(bits)})"
    return f"price #{i + 1}"


def _read_book_file(
    path: Path,
    display: str,
    gpus: Mapping[str, GPU],
    currencies: Mapping[str, CurrencyRate],
    *,
    origin: str,
    allow_extras: bool,
) -> tuple[list[PriceQuote], list[UsedRisk], dict[str, Any]]:
    from bot.core.knowledge import _read_yaml  # the project's safe, duplicate-refusing loader

    data = _read_yaml(path, display)
    if not isinstance(data, dict):
        raise KnowledgeError(display, "must be a mapping with a top-level 'prices:' list")
    allowed_top = {"prices", "used_risks", "defaults"} if allow_extras else {"prices"}
    for k in data:
        if k not in allowed_top:
            raise KnowledgeError(display, "unknown top-level key", field=str(k))
    items = data.get("prices")
    if items is None:
        items = []
    if not isinstance(items, list):
        raise KnowledgeError(display, "must be a list", field="prices")
    quotes: list[PriceQuote] = []
    seen: dict[tuple[Any, ...], str] = {}
    for i, raw in enumerate(items):
        label = _entry_label(raw, i)
        if not isinstance(raw, dict):
            raise KnowledgeError(display, "each price must be a mapping", entry=label)
        try:
            q = validate_entry(raw, gpus, currencies, origin=origin)
        except ValueError as exc:
            fld, problem = exc.args if len(exc.args) == 2 else (None, str(exc))
            raise KnowledgeError(display, problem, entry=label, field=fld) from None
        key = (q.gpu, q.kind, q.sub, q.provider_kind, q.date)
        if key in seen:
            raise KnowledgeError(
                display, f"same card, kind and date as {seen[key]}", entry=label, field="date"
            )
        seen[key] = label
        quotes.append(q)
    risks: list[UsedRisk] = []
    for i, r in enumerate(data.get("used_risks") or []):
        label = f"used risk #{i + 1}"
        if not isinstance(r, dict):
            raise KnowledgeError(display, "each used risk must be a mapping", entry=label)
        for k in r:
            if k not in _RISK_KEYS:
                raise KnowledgeError(display, "unknown key", entry=label, field=str(k))
        for k in ("code", "source", "date"):
            v = _date_str(r.get(k))
            if not isinstance(v, str) or not v.strip():
                raise KnowledgeError(display, "must be a non-empty string", entry=label, field=k)
        if parse_date(_date_str(r["date"])) is None:
            raise KnowledgeError(display, "must be YYYY-MM or YYYY-MM-DD", entry=label, field="date")
        risks.append(UsedRisk(r["code"].strip(), r["source"].strip(), _date_str(r["date"])))
    defaults = data.get("defaults") or {}
    if not isinstance(defaults, dict):
        raise KnowledgeError(display, "must be a mapping", field="defaults")
    for k in defaults:
        if k not in _DEFAULT_KEYS:
            raise KnowledgeError(display, "unknown key", entry="defaults", field=str(k))
    if "electricity_usd_per_kwh" in defaults:
        v = defaults["electricity_usd_per_kwh"]
        if not _num(v) or not 0 < v < 5:
            raise KnowledgeError(
                display,
                f"must be a number in 0..5 USD, got {_show(v)}",
                entry="defaults",
                field="electricity_usd_per_kwh",
            )
        for k in ("electricity_date", "electricity_source"):
            v = _date_str(defaults.get(k))
            if not isinstance(v, str) or not v.strip():
                raise KnowledgeError(
                    display, "required with electricity_usd_per_kwh", entry="defaults", field=k
                )
        if parse_date(_date_str(defaults["electricity_date"])) is None:
            raise KnowledgeError(
                display, "must be YYYY-MM or YYYY-MM-DD", entry="defaults", field="electricity_date"
            )
    return quotes, risks, dict(defaults)


def load(directory: Path, gpus: Mapping[str, GPU], currencies: Mapping[str, CurrencyRate]) -> PriceBook:
    """Read ``prices.yaml`` (+ ``prices-imported.yaml``) from ``directory``; empty book when absent."""
    from bot.core.knowledge import _display

    quotes: list[PriceQuote] = []
    risks: list[UsedRisk] = []
    defaults: dict[str, Any] = {}
    for name, extras in ((PRICES_FILE, True), (IMPORTED_FILE, False)):
        path = Path(directory) / name
        if not path.is_file():
            continue
        q, r, d = _read_book_file(
            path, _display(Path(directory), path), gpus, currencies, origin=name, allow_extras=extras
        )
        quotes.extend(q)
        risks.extend(r)
        defaults.update(d)
    return PriceBook.of(
        quotes,
        used_risks=tuple(risks),
        electricity_usd_per_kwh=defaults.get("electricity_usd_per_kwh"),
        electricity_date=_date_str(defaults.get("electricity_date")),
        electricity_source=defaults.get("electricity_source"),
    )


_BOOKS: dict[int, tuple[Any, PriceBook]] = {}


def book(catalog: Catalog) -> PriceBook:
    """The catalog's price book (``catalog.prices``), or one read from its directory."""
    pb = getattr(catalog, "prices", None)
    if isinstance(pb, PriceBook):
        return pb
    hit = _BOOKS.get(id(catalog))
    if hit is not None and hit[0] is catalog:
        return hit[1]
    pb = load(Path(catalog.directory), catalog.gpus, catalog.currencies)
    _BOOKS[id(catalog)] = (catalog, pb)
    return pb


# --------------------------------------------------------------------------- lookups


def _date_key(q: PriceQuote) -> tuple[int, int, int, int]:
    y, m, d = parse_date(q.date) or (0, 0, 0)
    # on the same date an imported price wins over the curated file
    return (y, m, d, 1 if q.origin == IMPORTED_FILE else 0)


def _newest(quotes: Sequence[PriceQuote]) -> PriceQuote | None:
    return max(quotes, key=_date_key) if quotes else None


def _fallback(catalog: Catalog, gpu_id: str, kinds: tuple[str, ...]) -> PriceQuote | None:
    g = catalog.gpus.get(gpu_id)
    if g is None or g.price_usd is None or g.price_kind not in kinds or not g.price_date:
        return None
    kind = PriceKind.USED if g.price_kind == "used" else PriceKind.NEW
    sub = None if kind is PriceKind.USED else PriceSub("list" if g.price_kind == "list" else "street")
    return PriceQuote(
        gpu=g.id,
        kind=kind,
        provider_kind=None,
        price=float(g.price_usd),
        currency="USD",
        usd=float(g.price_usd),
        date=g.price_date,
        source=g.price_source or "gpus.yaml",
        estimated=g.is_estimated("price_usd"),
        sub=sub,
        origin="gpus.yaml",
    )


def new_price(catalog: Catalog, gpu_id: str, sub: PriceSub | None = None) -> PriceQuote | None:
    """Newest new price: street (what shops charge) or list, else launch MSRP; ``sub`` picks one."""
    if sub is None:
        table = _newest_table(catalog)[0]
        if gpu_id in table:
            return table[gpu_id]
    return _new_price(catalog, gpu_id, sub)


@functools.lru_cache(maxsize=8)
def _newest_table(
    catalog: Catalog,
) -> tuple[dict[str, PriceQuote | None], dict[str, PriceQuote | None]]:
    """``new_price`` and ``used_price`` of every catalog card, once per catalog: a deal answer
    weighs every card as a cheaper alternative (each a search for the newest of its dated quotes)."""
    return (
        {gid: _new_price(catalog, gid, None) for gid in catalog.gpus},
        {gid: _used_price(catalog, gid) for gid in catalog.gpus},
    )


def _new_price(catalog: Catalog, gpu_id: str, sub: PriceSub | None) -> PriceQuote | None:
    qs = [q for q in book(catalog).for_gpu(gpu_id) if q.kind is PriceKind.NEW]
    if sub is not None:
        found = _newest([q for q in qs if q.sub is sub])
        if found is None and sub is not PriceSub.MSRP:
            fb = _fallback(catalog, gpu_id, ("new", "street", "list"))
            return fb if fb is not None and fb.sub is sub else None
        return found
    found = _newest([q for q in qs if q.sub is not PriceSub.MSRP])
    if found is None:
        found = _fallback(catalog, gpu_id, ("new", "street", "list"))
    return found or _newest([q for q in qs if q.sub is PriceSub.MSRP])


def used_price(catalog: Catalog, gpu_id: str) -> PriceQuote | None:
    """Newest used (marketplace) price; gpus.yaml's when the book has none."""
    table = _newest_table(catalog)[1]
    return table[gpu_id] if gpu_id in table else _used_price(catalog, gpu_id)


def _used_price(catalog: Catalog, gpu_id: str) -> PriceQuote | None:
    qs = [q for q in book(catalog).for_gpu(gpu_id) if q.kind is PriceKind.USED]
    return _newest(qs) or _fallback(catalog, gpu_id, ("used",))


def used_trend(catalog: Catalog, gpu_id: str) -> tuple[PriceQuote, ...]:
    """Every dated used price of the card, oldest first (for resale trends)."""
    qs = [q for q in book(catalog).for_gpu(gpu_id) if q.kind is PriceKind.USED]
    return tuple(sorted(qs, key=_date_key))


def cloud_prices(catalog: Catalog, gpu_id: str) -> tuple[PriceQuote, ...]:
    """Newest cloud price per provider kind, cheapest first; gpus.yaml's cloud figure when none."""
    table = _cloud_table(catalog)
    return table[gpu_id] if gpu_id in table else _cloud_prices(catalog, gpu_id)


@functools.lru_cache(maxsize=8)
def _cloud_table(catalog: Catalog) -> dict[str, tuple[PriceQuote, ...]]:
    """``cloud_prices`` of every catalog card, once per catalog: a rent-or-buy answer asks for a
    dozen cards' (each a search for the newest of its dated quotes, ~15 dates parsed)."""
    return {gid: _cloud_prices(catalog, gid) for gid in catalog.gpus}


def _cloud_prices(catalog: Catalog, gpu_id: str) -> tuple[PriceQuote, ...]:
    qs = [q for q in book(catalog).for_gpu(gpu_id) if q.kind is PriceKind.CLOUD]
    by_kind: dict[ProviderKind | None, list[PriceQuote]] = {}
    for q in qs:
        by_kind.setdefault(q.provider_kind, []).append(q)
    out = [q for q in (_newest(v) for v in by_kind.values()) if q is not None]
    if not out:
        g = catalog.gpus.get(gpu_id)
        if g is not None and g.cloud_usd_per_hour:
            out = [
                PriceQuote(
                    gpu=g.id,
                    kind=PriceKind.CLOUD,
                    provider_kind=ProviderKind.UNSPECIFIED,
                    price=float(g.cloud_usd_per_hour),
                    currency="USD",
                    usd=float(g.cloud_usd_per_hour),
                    date=g.price_date or "2026-01",
                    source="gpus.yaml cloud_usd_per_hour (typical on-demand price)",
                    estimated=g.is_estimated("cloud_usd_per_hour"),
                    origin="gpus.yaml",
                )
            ]
    return tuple(sorted(out, key=lambda q: (q.usd, q.provider_kind or "")))


def cloud_price(
    catalog: Catalog, gpu_id: str, provider_kind: ProviderKind | None = None
) -> PriceQuote | None:
    """Cheapest newest cloud price of the card (of one provider kind when given)."""
    for q in cloud_prices(catalog, gpu_id):
        if provider_kind is None or q.provider_kind is provider_kind:
            return q
    return None


def purchase_price(catalog: Catalog, gpu_id: str, condition: str | None = None) -> PriceQuote | None:
    """What buying the card costs: ``condition`` "new", "used", or None (the cheaper of both)."""
    if condition == "new":
        return new_price(catalog, gpu_id)
    if condition == "used":
        return used_price(catalog, gpu_id)
    cands = [q for q in (new_price(catalog, gpu_id), used_price(catalog, gpu_id)) if q is not None]
    cands = [q for q in cands if q.sub is not PriceSub.MSRP] or cands
    return min(cands, key=lambda q: q.usd) if cands else None


def stale_quotes(pb: PriceBook, today: _dt.date | None = None) -> tuple[PriceQuote, ...]:
    """Quotes older than :data:`STALE_MONTHS` that are still in use (newest of their kind; not MSRPs)."""
    newest: dict[tuple[Any, ...], PriceQuote] = {}
    for q in pb.quotes:
        if q.sub is PriceSub.MSRP:
            continue
        key = (q.gpu, q.kind, q.sub, q.provider_kind)
        cur = newest.get(key)
        if cur is None or _date_key(q) > _date_key(cur):
            newest[key] = q
    return tuple(
        sorted(
            (q for q in newest.values() if is_stale(q.date, today)),
            key=lambda q: (q.date, q.gpu, q.kind.value),
        )
    )


# --------------------------------------------------------------------------- quotes and filters


def quoted(
    gpu_id: str,
    usd: float,
    kind: PriceKind = PriceKind.USED,
    today: _dt.date | None = None,
    *,
    amount: float | None = None,
    currency: str = "USD",
) -> PriceQuote:
    """A price the user quoted ("I can get a 3090 for $650"), as a quote that overrides the book
    for that conversation (``origin`` "quoted", dated today)."""
    return PriceQuote(
        gpu=gpu_id,
        kind=kind,
        provider_kind=None,
        price=float(amount if amount is not None else usd),
        currency=currency,
        usd=float(usd),
        date=(today or _dt.date.today()).isoformat(),
        source="quoted by the user",
        estimated=False,
        sub=PriceSub.STREET if kind is PriceKind.NEW else None,
        origin="quoted",
    )


def filtered_price(
    catalog: Catalog,
    gpu_id: str,
    condition: str | None = None,
    max_usd: float | None = None,
    quoted_prices: Mapping[str, PriceQuote] | None = None,
) -> PriceQuote | None:
    """The price a recommendation should use for a card under the question's filters.

    ``condition``: "new_only" (new street/list price only), "used_only" (used
    only), "used_ok" or None (the cheaper of new and used). ``max_usd`` drops
    the card when that price is above it. A price the user quoted for the card
    (``quoted_prices[gpu_id]``) wins when its kind passes the filter. None =
    no price passes (the card is left out, and the answer can say why).
    """
    q = (quoted_prices or {}).get(gpu_id)
    if q is not None:
        if condition == "new_only" and q.kind is not PriceKind.NEW:
            q = None
        elif condition == "used_only" and q.kind is not PriceKind.USED:
            q = None
    if q is None:
        if condition == "new_only":
            q = new_price(catalog, gpu_id)
            if q is not None and q.sub is PriceSub.MSRP:
                q = None  # a launch MSRP is not a price a shop charges today
        elif condition == "used_only":
            q = used_price(catalog, gpu_id)
        else:
            q = purchase_price(catalog, gpu_id)
            if q is not None and q.sub is PriceSub.MSRP:
                q = None
    if q is not None and max_usd is not None and q.usd > max_usd:
        return None
    return q
