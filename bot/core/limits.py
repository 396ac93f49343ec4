"""Ranges every number in a question must fall in, in one place, and the check for typed queries.

A number outside its range is never used and never dropped silently: the
parser (text) and :func:`validate_query` (a ``Query`` built by a slash
command or another program) record an :class:`~bot.core.types.OutOfRange`
in ``Query.out_of_range`` naming the field, what was written and the range,
and leave the field unset (``num_gpus`` falls back to 1), so the answer is
the one for the question without that number and can say why.

The ranges are about physical sense, not about what fits a card: a batch of
a million samples or a 10-million-token context is absurd but possible to
state; 10^309 dollars, a negative batch or 0 cards are not.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

from bot.core.types import OutOfRange, Query

__all__ = ["LIMITS", "TEXT_CHARS", "OutOfRange", "check_number", "number_text", "validate_query"]

#: field -> (lowest, highest) accepted value, inclusive.
LIMITS: dict[str, tuple[float, float]] = {
    "budget_usd": (1.0, 100_000_000.0),  # one dollar to a hundred million (a large cluster)
    "batch_size": (1, 1_000_000),
    "seq_len": (1, 10_000_000),  # tokens; the longest contexts are ~1-10M
    "num_gpus": (1, 1024),
    "gpu_counts": (1, 1024),  # per card of a comparison
    "resolution": (64, 8192),  # image side in pixels
}

#: What was written is kept at most this long in ``OutOfRange.text``.
TEXT_CHARS = 24


def number_text(value: Any) -> str:
    """A short, safe rendering of a number as written or given (never a huge repr)."""
    if isinstance(value, float):
        text = f"{value:g}" if math.isfinite(value) or math.isnan(value) else ("-inf" if value < 0 else "inf")
    elif isinstance(value, int) and not isinstance(value, bool):
        digits = value.bit_length() * 0.30103
        text = str(value) if digits < 60 else f"{'-' if value < 0 else ''}~1e{int(digits)}"
    else:
        text = str(value)[: TEXT_CHARS * 4]
    text = " ".join(text.split())
    return text if len(text) <= TEXT_CHARS else text[: TEXT_CHARS - 1] + "…"


def check_number(field: str, value: Any, text: str | None = None) -> OutOfRange | None:
    """None when ``value`` is a finite number within ``LIMITS[field]``, else the OutOfRange to report."""
    low, high = LIMITS[field]
    ok = False
    if isinstance(value, int | float) and not isinstance(value, bool):
        try:
            ok = math.isfinite(value) and low <= value <= high
        except OverflowError:  # an int too large for a float comparison
            ok = False
    if ok:
        return None
    shown = number_text(value) if text is None else number_text(text)
    return OutOfRange(field=field, text=shown, low=float(low), high=float(high))


def validate_query(q: Query) -> Query:
    """``q`` with every out-of-range number unset (``num_gpus`` -> 1, ``gpu_counts`` -> ())
    and reported in ``out_of_range``. Values in range are kept; calling it twice adds nothing."""
    found: list[OutOfRange] = []
    changes: dict[str, Any] = {}
    for field in ("budget_usd", "batch_size", "seq_len", "resolution"):
        value = getattr(q, field)
        if value is None:
            continue
        bad = check_number(field, value)
        if bad is not None:
            found.append(bad)
            changes[field] = None
        elif field != "budget_usd" and not isinstance(value, int):
            changes[field] = int(value)  # a typed 512.0 is 512
    bad = check_number("num_gpus", q.num_gpus)
    if bad is not None:
        found.append(bad)
        changes["num_gpus"] = 1
    elif not isinstance(q.num_gpus, int):
        changes["num_gpus"] = int(q.num_gpus)
    if q.gpu_counts:
        bad_counts = [b for b in (check_number("gpu_counts", c) for c in q.gpu_counts) if b is not None]
        if bad_counts:
            found.extend(bad_counts)
            changes["gpu_counts"] = ()
    if not found and not changes:
        return q
    return replace(q, **changes, out_of_range=q.out_of_range + tuple(found))
