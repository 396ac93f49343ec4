"""Ask-back choices kept as one question plus, per choice, what differs from it.

A choice's text is the question with one name replaced ("which 4060 Ti?" -> the question
with "4060 Ti 16 GB" in place of "4060 ti"); 25 buttons under a 1,000-character question
would otherwise keep 25 copies of it. :class:`CompactChoices` is what the in-memory
context store and the database (``bot.storage``) keep: one reference to the question and,
per choice, the span it replaces and the replacement. Lossless.
"""

from __future__ import annotations

from typing import Any

from bot.core.types import Choice

__all__ = ["CompactChoices", "CHOICE_OVERHEAD"]

CHOICE_OVERHEAD = 250  # bytes per compact choice (measured: ~130 B beyond its texts; kept conservative)


def _common_prefix(a: str, b: str) -> int:
    """Length of the common prefix of ``a`` and ``b`` (binary search on slices: C speed)."""
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _common_suffix(a: str, b: str, limit: int) -> int:
    lo, hi = 0, min(len(a), len(b), limit)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[len(a) - mid :] == b[len(b) - mid :]:
            lo = mid
        else:
            hi = mid - 1
    return lo


class CompactChoices:
    """Choices whose texts are edits of one question ("which 4060 Ti?" -> the question with
    "4060 Ti 16 GB" in place of "4060 ti"), stored as one reference to the question plus, per
    choice, the span it replaces and the replacement. Lossless: ``choices()`` rebuilds the same
    Choice objects' values."""

    __slots__ = ("question", "_items", "_spans")

    def __init__(self, question: str, choices: tuple[Choice, ...]) -> None:
        self.question = question
        self._spans: list[tuple[int, int]] = []
        # choices are often the question with one name replaced, then stripped: compare with
        # both the question and its stripped span, keep the smaller difference
        lead = len(question) - len(question.lstrip())
        spans = ((0, len(question)), (lead, lead + len(question.strip())))
        items: list[tuple[int, int, str, str, str | None]] = []
        for c in choices:
            best: tuple[int, int, str] | None = None
            for a, b in spans:
                base = question[a:b]
                pre = _common_prefix(c.text, base)
                suf = _common_suffix(c.text, base, min(len(c.text), len(base)) - pre)
                middle = c.text[pre : len(c.text) - suf]
                if best is None or len(middle) < len(best[2]):
                    best = (a + pre, a + len(base) - suf, middle)
                    bounds = (a, b)
            assert best is not None
            start, end, middle = best
            items.append((start, end, middle, c.label, c.id))
            self._spans.append(bounds)
        self._items = tuple(items)

    def __len__(self) -> int:
        return len(self._items)

    def __getitem__(self, index: int) -> Choice:
        start, end, middle, label, ident = self._items[index]
        a, b = self._spans[index]
        q = self.question
        return Choice(label=label, text=q[a:start] + middle + q[end:b], id=ident)

    def label(self, index: int) -> str:
        return self._items[index][3]

    def choices(self) -> tuple[Choice, ...]:
        return tuple(self[i] for i in range(len(self._items)))

    def nbytes(self) -> int:
        """Estimated bytes beyond the question itself."""
        return sum(CHOICE_OVERHEAD + len(m) + len(lbl) + len(i or "") for _, _, m, lbl, i in self._items)

    def to_rows(self) -> list[list[Any]]:
        """JSON-able rows (start, end, replacement, label, id, span start, span end)."""
        return [
            [s, e, m, lbl, i, a, b]
            for (s, e, m, lbl, i), (a, b) in zip(self._items, self._spans, strict=True)
        ]

    @classmethod
    def from_rows(cls, question: str, rows: Any) -> CompactChoices | None:
        """The choices back from :meth:`to_rows`; None when the rows are damaged."""
        if not isinstance(question, str) or not isinstance(rows, list):
            return None
        items: list[tuple[int, int, str, str, str | None]] = []
        spans: list[tuple[int, int]] = []
        n = len(question)
        for row in rows:
            if not (isinstance(row, list) and len(row) == 7):
                return None
            s, e, m, lbl, i, a, b = row
            ints = (s, e, a, b)
            if not all(type(x) is int for x in ints) or not 0 <= a <= s <= e <= b <= n:
                return None
            if not isinstance(m, str) or not isinstance(lbl, str) or not (i is None or isinstance(i, str)):
                return None
            items.append((s, e, m, lbl, i))
            spans.append((a, b))
        out = cls.__new__(cls)
        out.question = question
        out._items = tuple(items)
        out._spans = spans
        return out
