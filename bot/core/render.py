"""Lay an ``Answer`` out as text: the terminal's reply and Discord's plain-text fallback.

Order is fixed by the product: verdict, the numbers that justify it, what
was assumed, where the numbers come from, then any question back. Replies
stay under Discord's 2,000-character message limit; when the details are
too many, the tail is cut with a marker, never the verdict.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.core.phrase.catalog import t
from bot.core.types import Answer, Choice, Lang

__all__ = ["to_text", "lay_out", "MAX_CHARS"]

MAX_CHARS = 1900  # under Discord's 2,000 with room for a mention prefix


def to_text(ans: Answer, max_chars: int = MAX_CHARS) -> str:
    return lay_out(
        ans.verdict,
        ans.details,
        ans.assumptions,
        ans.basis,
        ans.suggestions,
        ans.choices,
        ans.language,
        max_chars,
    )


def lay_out(
    verdict: str,
    details: Sequence[str],
    assumptions: Sequence[str],
    basis: Sequence[str],
    suggestions: Sequence[str],
    choices: Sequence[Choice],
    lang: Lang,
    max_chars: int = MAX_CHARS,
) -> str:
    """The plain text of a reply from its phrased parts (``to_text`` for a whole Answer)."""
    head = [verdict]
    tail: list[str] = []
    tail.extend(assumptions)
    tail.extend(basis)
    if suggestions and suggestions[0] != verdict and not choices:
        tail.extend(suggestions)
    if choices:
        options = "  ".join(f"[{i}] {c.label}" for i, c in enumerate(choices, 1))
        tail.append(t(lang, "render.options", options=options))
    text = _join(head, details, tail)
    if len(text) <= max_chars:
        return text
    body = list(details)
    # drop detail lines from the end until it fits, then say so
    while body and len(_join(head, body, tail)) + 30 > max_chars:
        body.pop()
    text = _join(head, [*body, t(lang, "render.cut")], tail)
    if len(text) > max_chars:
        text = text[: max_chars - 1] + "…"
    return text


def _join(head: list[str], body: Sequence[str], tail: list[str]) -> str:
    return "\n".join(filter(None, (*head, *body, *tail)))  # (the empty lines left out)
