"""Rent one card or buy another (issue 10): "rent an A100 or buy a 3090?", "租A100划算还是自己买3090",
"is renting an H100 cheaper than buying a 4090", "should I buy a used 3090 or rent a 4090 on runpod".

A rent-or-buy question that names two cards, one after a word that says rent ("rent", "renting",
"租", or "on runpod" / "in the cloud" after it) and the other after a word that says buy ("buy",
"own", "买"), is one question: owning the second against renting the first for the same work (not a
comparison of two cards, and no ask-back on the rented card's variant).

* :func:`roles`: the rented and the bought card's mentions, or None (the text between the previous
  card and this one is read for the last verb; so "rent or buy a 4090" names one card only).
* :func:`read`: the question read so (the card to buy first, then the card to rent; the price
  question's ``rent_gpu``), each family taken as one card and said, the ask-back dropped.
* :func:`rental_variant`: for a card family asked for renting ("rent an A100"), the member the
  rental prices in knowledge/prices.yaml are for: the most observed (not estimated) cloud prices,
  then the most cloud prices, then the family's default. Said in the answer as taken.

Per question the work is the few mentions already found and each named family's members (2-3
cards): nothing that scales with the catalog.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from bot.core.matching import get_matcher, normalize
from bot.core.types import NoteCode, Query
from bot.core.understand.names import took_gpu
from bot.core.understand.text import rx

__all__ = ["roles", "rental_variant", "read"]

# the last of these before a card says what the user would do with it
_VERB_RE = rx(
    r"\b(?P<rent>rent(?:s|ed|ing|al)?|lease|leasing|cloud)\b|(?P<rent_zh>租)"
    r"|\b(?P<buy>buy(?:s|ing)?|bought|own(?:s|ing)?|purchas(?:e|es|ed|ing)|get\s+my\s+own)\b|(?P<buy_zh>买|购|入手)"
)
# "a 4090 on runpod", "an h100 in the cloud", "云上的h100": rented, said after the card
_RENT_AFTER_RE = rx(
    r"^\W{0,3}(?:\w+\s+){0,2}?(?:on|in|at|from|via)\s+(?:the\s+)?(?:cloud|runpod|vast(?:\.ai)?|lambda(?:\s+labs)?"
    r"|aws|gcp|azure|coreweave|paperspace|colab|modal|together)\b|^\s*(?:在)?云上"
)
_WINDOW = 40  # characters read before a card (or after it, for "on runpod")


def _verb(window: str) -> str | None:
    last: str | None = None
    for m in _VERB_RE.finditer(window):
        last = "rent" if (m.group("rent") or m.group("rent_zh")) else "buy"
    return last


def roles(norm: str, mentions: Sequence[Any]) -> tuple[Any, Any] | None:
    """(rented mention, bought mention) when the text names exactly two different cards, one to rent
    and one to buy; None otherwise. ``mentions``: the cards found in ``norm``, in order."""
    ms = sorted(mentions, key=lambda m: m.start)
    if len(ms) != 2 or set(ms[0].ids) == set(ms[1].ids):
        return None
    said: list[str | None] = []
    for i, m in enumerate(ms):
        lo = ms[i - 1].end if i else max(0, m.start - _WINDOW)
        role = _verb(norm[max(lo, m.start - _WINDOW) : m.start])
        if role is None:
            hi = ms[i + 1].start if i + 1 < len(ms) else len(norm)
            if _RENT_AFTER_RE.search(norm[m.end : min(hi, m.end + _WINDOW)]):
                role = "rent"
        said.append(role)
    if said == ["rent", "buy"]:
        return ms[0], ms[1]
    if said == ["buy", "rent"]:
        return ms[1], ms[0]
    return None


def rental_variant(catalog: Any, ids: Sequence[str], default: str) -> str:
    """The family member the rental prices are for: most observed cloud prices, then most cloud
    prices, then ``default`` (the family's usual member)."""
    from bot.core import prices as P

    book = P.book(catalog)

    def rank(gid: str) -> tuple[int, int, bool]:
        cloud = [x for x in book.for_gpu(gid) if x.kind is P.PriceKind.CLOUD]
        return (sum(1 for x in cloud if not x.estimated), len(cloud), gid == default)

    return max(ids, key=rank)


def read(q: Query, pq: Any, catalog: Any) -> tuple[Query, Any]:
    """ "rent an A100 or buy a 3090?": the card to buy (first) and the card to rent, each family taken
    as one card and said so (the rented one as the variant the rental prices are for); no ask-back.
    ``pq``: the question's ``price_parse.PriceQuestion``; unchanged when the text names no such pair."""
    from bot.core.price_parse import _gpu_mentions

    matcher = get_matcher(catalog)
    norm = normalize(q.text)
    found = roles(norm, _gpu_mentions(norm, matcher.catalog))
    if found is None:
        return q, pq
    notes = [n for n in q.notes if n.code is not NoteCode.TOOK_GPU]
    cards: list[str] = []
    for mn, rented in ((found[1], False), (found[0], True)):
        gid = mn.ids[0]
        if len(mn.ids) > 1:
            gid, differs = matcher.family_default(mn.ids, mn.preferred)
            if rented:
                gid = rental_variant(matcher.catalog, mn.ids, gid)
            notes.append(took_gpu(matcher, mn, gid, differs, **({"why": "rental"} if rented else {})))
        cards.append(gid)
    if cards[0] == cards[1]:
        return q, pq
    # "buy two 3090s": each card's count follows it to its new place (buy first, then rent)
    said = dict(zip(q.gpus, q.gpu_counts, strict=False)) if len(q.gpu_counts) == len(q.gpus) else {}
    counts = [next((said[g] for g in mn.ids if g in said), 1) for mn in (found[1], found[0])]
    q = replace(
        q,
        gpus=tuple(cards),
        gpu_counts=tuple(counts) if max(counts) > 1 else (),
        notes=tuple(notes),
        choices=(),
        needs_clarification=False,
        suggestions=tuple(n for n in q.suggestions if n.code is not NoteCode.ASK_GPU_VARIANT),
    )
    return q, replace(pq, rent_gpu=cards[1])
