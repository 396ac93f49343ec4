"""Pieces every reader of the question shares: regexes in ASCII mode, numbers, blanking."""

from __future__ import annotations

import re

from bot.core import gated_re
from bot.core.gated_re import GatedPattern

__all__ = ["CJK_RE", "DIGIT_RE", "NUM", "blank", "num", "rx"]


# any decimal digit: the cheap gate before a reader that needs a number (one C-level search)
DIGIT_RE = gated_re.compile(r"\d")


def rx(pattern: str) -> GatedPattern:
    """A compiled pattern in ASCII mode: ``\\b`` and ``\\w`` treat Chinese characters as non-word,
    so "预算800" and "最大batch" still have word boundaries around the ASCII parts."""
    return gated_re.compile(pattern, re.ASCII)


CJK_RE = rx(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff]")

# 1,200 / 1,200.50 / 1.200 (European grouping) / 2,5 (decimal comma) / 900 / 1.5
NUM = r"(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+,\d{1,2}(?![\d,])|\d+(?:\.\d+)?)"

_EU_GROUPED = gated_re.compile(r"(?<!\d)\d{1,3}(?:\.\d{3})+")
_DECIMAL_COMMA = gated_re.compile(r"(?<!\d)\d+,\d{1,2}")


def num(s: str) -> float:
    """An amount as people write it: "1,200" and "1.200" (European grouping) are 1200, "2,5" is 2.5."""
    if _EU_GROUPED.fullmatch(s):
        return float(s.replace(".", ""))
    if _DECIMAL_COMMA.fullmatch(s):
        return float(s.replace(",", "."))
    return float(s.replace(",", ""))


def blank(text: str, start: int, end: int) -> str:
    """``text`` with ``[start, end)`` replaced by spaces (offsets of later readers stay valid)."""
    return text[:start] + " " * (end - start) + text[end:]
