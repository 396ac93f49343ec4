"""Numbers, money, percentages and months, formatted per locale with Babel (CLDR).

Formatting is cached (bounded LRU): the same figures recur across answers,
and Babel's pattern engine costs tens of microseconds a call.
"""

from __future__ import annotations

import datetime
import functools

from babel import Locale
from babel.dates import format_skeleton
from babel.numbers import format_currency, format_percent

from bot.core.types import Lang

__all__ = ["locale_of", "num", "gb", "usd", "usd_cents", "money", "month", "percent", "ratio"]

_LOCALES = {Lang.EN: "en_US", Lang.ZH_HANS: "zh_Hans_CN", Lang.ZH_HANT: "zh_Hant_TW"}


def locale_of(lang: Lang) -> str:
    return _LOCALES[lang]


@functools.cache
def _symbols(lang: Lang) -> dict[int, str] | None:
    """CLDR's grouping and decimal signs for the language, as a str.translate table; None when they
    are Python's own ("," and "."), so the translate would change nothing (English, Chinese)."""
    sym = Locale.parse(_LOCALES[lang]).number_symbols["latn"]
    if sym["group"] == "," and sym["decimal"] == ".":
        return None
    return str.maketrans({",": sym["group"], ".": sym["decimal"]})


# the format spec of each number of digits (made once, not per figure)
_SPECS = {d: f",.{d}f" for d in range(7)}


def num(value: float, lang: Lang, digits: int = 0) -> str:
    """A number with the locale's grouping and decimal signs (CLDR): 1,234 / 1,234.5.

    The digits are laid out by Python's format and the signs taken from
    Babel's CLDR data: the same result as ``format_decimal`` for these
    patterns, at a fraction of the cost (it runs for every figure of a reply).
    """
    spec = _SPECS.get(digits)
    out = format(value, spec) if spec is not None else f"{value:,.{digits}f}"
    table = _symbols(lang)
    return out if table is None else out.translate(table)


def gb(value_gb: float, lang: Lang) -> str:
    """Decimal GB with a precision that fits the size: 0.61 GB, 8.3 GB, 141 GB."""
    v = value_gb
    # num(round(v, n), lang, n) written out, without the round: ``format`` rounds the exact value to
    # n places as round() does (both correctly rounded, half to even), and round(v, n) costs a
    # decimal conversion of its own (a reply says ~10 sizes)
    # (between -1,000 and 100 there is nothing to group: "%" formats the same digits, faster)
    if v >= 100:
        out = format(round(v), ",.0f")
    elif v < 1:
        out = "%.2f" % v if v > -1000 else format(v, ",.2f")  # noqa: UP031
    else:
        out = "%.1f" % v  # noqa: UP031
    table = _symbols(lang)
    return f"{out} GB" if table is None else f"{out.translate(table)} GB"


@functools.lru_cache(maxsize=8192)
def money(amount: float, currency: str, lang: Lang) -> str:
    """$1,599 / US$1,599 / ¥11,500: whole units, the locale's symbol and grouping."""
    return format_currency(
        round(amount), currency, format="¤#,##0", locale=_LOCALES[lang], currency_digits=False
    )


@functools.lru_cache(maxsize=2048)
def usd_cents(amount: float, lang: Lang) -> str:
    """$0.55, US$2.25: an hourly or per-kWh price, to the cent."""
    return format_currency(round(amount, 2), "USD", format="¤#,##0.00", locale=_LOCALES[lang])


def usd(amount: float, lang: Lang) -> str:
    return money(amount, "USD", lang)


@functools.lru_cache(maxsize=1024)
def month(yyyy_mm: str, lang: Lang) -> str:
    """'2026-05' -> 'May 2026' / '2026年5月'; anything else is shown as given."""
    try:
        y, m = (int(x) for x in yyyy_mm.split("-")[:2])
        return format_skeleton("yMMM", datetime.date(y, m, 1), locale=_LOCALES[lang])
    except (ValueError, TypeError):
        return yyyy_mm


@functools.lru_cache(maxsize=1024)
def percent(fraction: float, lang: Lang) -> str:
    return format_percent(fraction, locale=_LOCALES[lang])


def ratio(value: float, lang: Lang) -> str:
    """A speed ratio: 1.10x."""
    return f"{num(value, lang, 2)}x"  # (num rounds to 2 places as round(value, 2) does)
