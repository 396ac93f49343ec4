"""Lay an ``Answer`` out as text: the terminal's reply and Discord's plain-text fallback.

Order is fixed by the product: verdict, the numbers that justify it, what
was assumed, where the numbers come from, then any question back. Replies
stay under Discord's 2,000-character message limit; when the details are
too many, the tail is cut with a marker, never the verdict.
"""

from __future__ import annotations

from bot.core.phrase.catalog import t
from bot.core.types import Answer

__all__ = ["to_text", "MAX_CHARS"]

MAX_CHARS = 1900  # under Discord's 2,000 with room for a mention prefix


def to_text(ans: Answer, max_chars: int = MAX_CHARS) -> str:
    head = [ans.verdict]
    tail: list[str] = []
    tail.extend(ans.assumptions)
    tail.extend(ans.basis)
    if ans.suggestions and ans.suggestions[0] != ans.verdict and not ans.choices:
        tail.extend(ans.suggestions)
    if ans.choices:
        options = "  ".join(f"[{i}] {c.label}" for i, c in enumerate(ans.choices, 1))
        tail.append(t(ans.language, "render.options", options=options))
    body = list(ans.details)
    text = _join(head, body, tail)
    if len(text) <= max_chars:
        return text
    # drop detail lines from the end until it fits, then say so
    while body and len(_join(head, body, tail)) + 30 > max_chars:
        body.pop()
    text = _join(head, [*body, t(ans.language, "render.cut")], tail)
    if len(text) > max_chars:
        text = text[: max_chars - 1] + "…"
    return text


def _join(head: list[str], body: list[str], tail: list[str]) -> str:
    return "\n".join(line for line in (*head, *body, *tail) if line)
