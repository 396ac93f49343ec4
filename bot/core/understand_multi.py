"""Reading several cards in one question (issues 10, 17): mixed machines and choices between setups.

"run llama 70b on a 3090 + a 3060", "4090 and 3060 12gb", "一张3090加一张3060": one machine with
mixed cards (``Query.setups`` has one setup). "one 4090 or two used 3090s for 70B", "4x 3090 or 2x
4090 for llama 70b", "一张4090还是两张3090": a choice between setups (intent ``compare``, answered
as setups). Between two
card names, "+", "plus", "加", "配" join them into one machine; "or", "vs", "还是", "或" start
another; "and", "with", "和" join only when nothing in the question asks for a comparison. Counts
come from the parser, plus "two used 3090s" (a condition word between count and card) here; "used"
/ "二手" before a card prices it used.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace

from bot.core import gated_re
from bot.core.types import Intent, NoteCode, Query, note

__all__ = ["refine"]

_F = re.IGNORECASE
_OR_RE = gated_re.compile(
    r"\bor\b|\bvs\.?(?!\w)|\bversus\b|还是|或者|或|\bcompared?\s+(?:to|with)\b|对比", _F
)
_STRONG_JOIN_RE = gated_re.compile(r"\+|\bplus\b|&|加上?|配上?|搭配|\bpaired with\b|\btogether with\b", _F)
_WEAK_JOIN_RE = gated_re.compile(r"\band\b|\bwith\b|和|跟|与", _F)
_COMPARE_RE = gated_re.compile(
    r"\bcompare\w*|\bvs\b|\bversus\b|\bbetter\b|\bfaster\b|\bslower\b|\bthan\b|\bdifference\b|\bhow much\b|"
    r"\bwhich\b|\bor\b|还是|哪|对比|比较|差多少|差距|差别|区别|比",
    _F,
)
_USED_RE = gated_re.compile(r"(?:\bused\b|\bsecond[\s-]?hand\b|\brefurb\w*|二手)\W*(?:\w+\W*){0,2}$", _F)
_WORDS = {
    "one": 1, "a": 1, "an": 1, "single": 1, "two": 2, "dual": 2, "double": 2, "pair of": 2, "three": 3,
    "four": 4, "quad": 4, "five": 5, "six": 6, "eight": 8,
    "一": 1, "两": 2, "二": 2, "双": 2, "三": 3, "四": 4, "五": 5, "六": 6, "八": 8,
}  # fmt: skip
_COUNT_GAP_RE = gated_re.compile(
    r"(?:\b(\d{1,2})|\b(one|a|an|single|two|dual|double|pair of|three|four|quad|five|six|eight)\b|([一两二双三四五六八]))"
    r"\s*(?:x|×)?\s*(?:张|块|个)?\s*(?:used|new|second[\s-]?hand|refurbished|二手|全新)\s*(?:rtx|geforce|nvidia)?\s*$",
    _F,
)
_SIZE_RE = gated_re.compile(r"(?<![0-9.a-z])(\d{1,3}(?:\.\d)?)\s?b(?![a-z])", _F)


def _count_gap(head: str) -> int | None:
    """ "two used " before a card: the count the parser's pattern misses because of the condition word."""
    m = _COUNT_GAP_RE.search(head)
    if not m:
        return None
    raw = (m.group(1) or m.group(2) or m.group(3) or "").lower()
    v = int(raw) if raw.isdigit() else _WORDS.get(raw)
    return v if v and 1 <= v <= 16 else None


def refine(
    q: Query,
    text: str,
    spans: Sequence[tuple[int, int, str]],
    per_card: dict[int, int],
    size_model: Callable[[str], tuple[str, float] | None],
    display: Callable[[str], str],
) -> Query:
    """``q`` with ``setups`` (intent ``compare`` for a choice, ``fit`` for one mixed machine) when the question names several
    cards as one machine or as setups to choose between; unchanged otherwise."""
    if q.needs_clarification or len(spans) < 2:
        return q
    if q.intent not in (Intent.COMPARE, Intent.FIT, Intent.RECOMMEND, Intent.UNKNOWN, Intent.SPEED):
        return q
    spans = sorted(spans)
    asks_compare = bool(_COMPARE_RE.search(text))
    setups: list[list[tuple[str, int, bool]]] = [[]]
    prev_end = 0
    for i, (start, end, gid) in enumerate(spans):
        head = text[prev_end:start]
        if i > 0:
            if _OR_RE.search(head):
                setups.append([])
            elif _STRONG_JOIN_RE.search(head) or (_WEAK_JOIN_RE.search(head) and not asks_compare):
                pass
            else:
                setups.append([])
        n = per_card.get(start) or _count_gap(head[-30:]) or 1
        used = bool(_USED_RE.search(head[-30:]))
        cur = setups[-1]
        same = next((k for k, (g, _, _) in enumerate(cur) if g == gid), None)
        if same is not None:
            g, c, u = cur[same]
            cur[same] = (g, c + n, u or used)
        else:
            cur.append((gid, n, used))
        prev_end = end
    setups = [s for s in setups if s]
    mixed = any(len(s) > 1 for s in setups)
    choice = len(setups) >= 2 and (mixed or any(n > 1 for s in setups for _, n, _ in s))
    if not (choice or (len(setups) == 1 and mixed)):
        return q
    models, notes = q.models, q.notes
    if not models:
        m = _SIZE_RE.search(text)
        found = size_model(f"{m.group(1)}b model") if m else None
        if found is None:
            # no model: the old comparison, with the counts read here ("two used 3090s")
            if (
                choice
                and not mixed
                and len(setups) == len(q.gpus)
                and [s[0][0] for s in setups] == list(q.gpus)
            ):
                counts = tuple(s[0][1] for s in setups)
                return replace(q, gpu_counts=counts if len(set(counts)) > 1 else (), num_gpus=counts[0])
            return q
        mid, size = found
        models = (mid,)
        notes = (*notes, note(NoteCode.SIZE_MODEL, size=size, name=display(mid)))
    frozen: tuple[tuple[tuple[str, int, bool], ...], ...] = tuple(tuple(s) for s in setups)
    counts = q.gpu_counts
    if choice and not mixed and [s[0][0] for s in setups] == list(q.gpus):
        read = tuple(s[0][1] for s in setups)
        counts = read if len(set(read)) > 1 else ()
    return replace(
        q,
        gpu_counts=counts,
        intent=Intent.COMPARE if choice else Intent.FIT,
        models=models,
        notes=notes,
        setups=frozen,
        num_gpus=sum(n for _, n, _ in frozen[0]),
    )
