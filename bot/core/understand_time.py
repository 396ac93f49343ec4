"""Read how fast / how long / how many users from a question (pure; no catalog).

``read(text)`` returns :class:`TimeAsk`: the figures a speed, time-to-train or
serving question states, and which kind of question it is. ``refine(q)``
applies it to a parsed :class:`~bot.core.types.Query` (the parser's hook):
it sets the speed intents and the Query fields appended for them.

Phrasings it reads (English and Chinese):

- speed: "tokens/s of mistral 7b on a 3060", "how fast", "seconds per image",
  "每秒多少token", "速度"; targets: "at least 15 tokens/s", "20 tok/s",
  "an image in under 5 seconds", "至少每秒15个token";
- time: "how long to lora fine-tune ... on 10k samples of 1024 tokens",
  "20k samples of 1,024 tokens, 2 epochs", "COCO for 100 epochs",
  "1B tokens", "my 2 GB of text", "train in under a day", "多久", "2轮";
- serving: "how many users can an L40S serve ... at 16k context", "30 users",
  "多少用户", "并发";
- electricity price: "0.30 €/kWh", "电价0.6元".
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from bot.core import gated_re
from bot.core.quick_init import quick_init
from bot.core.types import Intent, NoteCode, Query, Task
from bot.core.understand.budgets import CN_AMOUNT_RE, cn_amount
from bot.core.understand.text import DIGIT_RE

__all__ = ["TimeAsk", "asks_job_cost", "asks_time_or_speed", "read", "refine", "DATASETS", "BYTES_PER_TOKEN"]

# images in the training split of datasets people name (their papers / official pages)
DATASETS = {
    "coco": 118_287,  # COCO 2017 train
    "imagenet": 1_281_167,  # ILSVRC-2012 train
    "cifar-10": 50_000,
    "cifar10": 50_000,
    "cifar-100": 50_000,
    "mnist": 60_000,
}
# bytes of UTF-8 text per token: ~4 for English with BPE tokenizers (OpenAI's rule of thumb);
# an assumption the answer names
BYTES_PER_TOKEN = 4.0

_MULT = {
    "k": 1e3,
    "thousand": 1e3,
    "m": 1e6,
    "million": 1e6,
    "mn": 1e6,
    "b": 1e9,
    "billion": 1e9,
    "bn": 1e9,
    "t": 1e12,
    "万": 1e4,
    "千": 1e3,
    "亿": 1e8,
}
_NUM = r"((?<![\d.])\d+(?:,\d{3})*(?:\.\d+)?)\s*(k|thousand|m|million|mn|b|billion|bn|t|万|千|亿)?"


def _n(num: str, mult: str | None) -> float:
    v = float(num.replace(",", ""))
    return v * _MULT.get((mult or "").lower(), 1.0)


@quick_init
@dataclass(frozen=True)
class TimeAsk:
    kind: str | None = None  # "speed" | "time" | "serve" | None
    samples: int | None = None
    sample_tokens: int | None = None
    dataset_tokens: float | None = None
    dataset_name: str | None = None
    epochs: float | None = None
    target_tokens_per_s: float | None = None
    target_seconds_per_image: float | None = None
    target_hours: float | None = None
    users: int | None = None
    context: int | None = None
    kwh_price: float | None = None
    kwh_currency: str | None = None
    steps: int | None = None
    weak_speed: bool = False  # "speed" / "速度" alone: a speed question only when a card is named too


_WEAK_SPEED_RE = gated_re.compile(
    r"\bspeed\b|\bthroughput\b|\breal[- ]time factor|\brtf\b|速度|吞吐|实时率", re.I
)

_RX = {
    "samples": gated_re.compile(
        _NUM
        + r"\s*(?:samples?|examples?|conversations?|chats?|rows?|pairs?|documents?|docs|instructions?|条(?:数据|样本)?|个样本|样本)",
        re.I,
    ),
    "sample_tokens": gated_re.compile(
        r"(?:of|with|each|@|at|,)\s*(?:about|around|~)?\s*"
        + r"((?<![\d.])\d+(?:,\d{3})*)\s*(k)?\s*tokens?(?:\s*(?:each|per\s+(?:sample|example)))?"
        r"|每条\s*((?<![\d.])\d+(?:,\d{3})*)\s*(k)?\s*(?:个)?\s*token",
        re.I,
    ),
    "dataset_tokens": gated_re.compile(_NUM + r"\s*tokens?\b(?!\s*(?:/|per|each|a\s+second))", re.I),
    "text_bytes": gated_re.compile(
        r"((?<![\d.])\d+(?:\.\d+)?)\s*(kb|mb|gb|tb|k|m|g|t)\s*(?:of\s+)?(?:text|data|corpus|文本|数据|语料)",
        re.I,
    ),
    "epochs": gated_re.compile(
        r"((?<![\d.])\d+(?:\.\d+)?)\s*(?:epochs?|passes|轮|个\s*epoch)|(?:for|epochs?:?)\s*((?<![\d.])\d+(?:\.\d+)?)\s*epochs?",
        re.I,
    ),
    "target_tps": gated_re.compile(
        r"((?<![\d.])\d+(?:\.\d+)?)\s*(?:tokens?|toks?|t)\s*(?:/|per\s*)\s*(?:s\b|sec|second)"
        r"|((?<![\d.])\d+(?:\.\d+)?)\s*tps\b|每秒\s*(?:至少|最少|不低于|要|能有|能到)?\s*((?<![\d.])\d+(?:\.\d+)?)\s*(?:个)?\s*(?:token|词元)",
        re.I,
    ),
    "target_img": gated_re.compile(
        r"(?:in\s+)?(?:under|below|less\s+than|within|<)\s*((?<![\d.])\d+(?:\.\d+)?)\s*(?:s\b|sec|seconds?)"
        r"|((?<![\d.])\d+(?:\.\d+)?)\s*(?:秒|s)\s*(?:以内|之内|内)?\s*(?:一张|出图|每张)",
        re.I,
    ),
    "target_hours": gated_re.compile(
        r"(?:in\s+)?(?:under|below|less\s+than|within)\s*(?:a|one|((?<![\d.])\d+(?:\.\d+)?))\s*(hours?|h\b|days?|weeks?)"
        r"|((?<![\d.])\d+(?:\.\d+)?)\s*(小时|天)\s*(?:以内|之内|内)",
        re.I,
    ),
    "users": gated_re.compile(
        r"((?<![\d.])\d+(?:,\d{3})*)\s*(?:concurrent\s+|simultaneous\s+|parallel\s+)?(?:users?|people|clients?|requests?|streams?|sessions?)"
        r"|((?<![\d.])\d+(?:,\d{3})*)\s*(?:个)?\s*(?:用户|并发|人同时|路并发)|并发\s*((?<![\d.])\d+(?:,\d{3})*)",
        re.I,
    ),
    "context": gated_re.compile(
        r"((?<![\d.])\d+(?:\.\d+)?)\s*(k)?\s*(?:tokens?\s+(?:of\s+)?)?(?:context|ctx|上下文)|(?:context|上下文)\s*(?:of|=|:)?\s*((?<![\d.])\d+(?:\.\d+)?)\s*(k)?",
        re.I,
    ),
    "kwh": gated_re.compile(
        r"((?<![\d.])\d+(?:\.\d+)?)\s*(€|eur|euros?|\$|usd|dollars?|元|rmb|cny|£|gbp)?\s*(?:/|per\s*)\s*kwh"
        r"|(€|\$|£)\s*((?<![\d.])\d+(?:\.\d+)?)\s*(?:/|per\s*)\s*kwh|电价\s*((?<![\d.])\d+(?:\.\d+)?)\s*(元)?",
        re.I,
    ),
    "steps": gated_re.compile(r"((?<!\d)\d{1,3})\s*(?:steps?|步)", re.I),
}

_SERVE_RE = gated_re.compile(
    r"\bhow\s+many\s+(?:concurrent\s+)?(?:users|people|clients|requests|streams)|\bconcurrent\s+(?:users|requests|streams|sessions)"
    r"|多少(?:个)?(?:用户|人|并发)|并发|同时服务|部署.*用户",
    re.I,
)
_TIME_RE = gated_re.compile(
    r"\bhow\s+long\b|\bhow\s+many\s+(?:hours|days)|\btime\s+to\s+(?:train|fine-?tune)|\btraining\s+time"
    r"|\btrain\s+in\s+under|多久|多长时间|几个小时|几天|多少小时|多少天|训练时间|耗时",
    re.I,
)
_SPEED_RE = gated_re.compile(
    r"tokens?\s*(?:/|per)\s*(?:s\b|sec|second)|\btok/s|\bt/s\b|\btps\b|\bhow\s+fast\b"
    r"|\bseconds?\s+(?:per|an?|each)\s+image|\bs/image|\bimages?\s*(?:/|per)\s*(?:s\b|sec|second|minute)|\bit/s"
    r"|每秒|速度(?:多少|怎么样|如何)|多快|出图(?:要)?(?:几|多少)秒|一张图|出一张.{0,20}?(?:要)?(?:几|多少)秒|几秒一张",
    re.I,
)


def _float(m: re.Match[str] | None, *groups: int) -> float | None:
    if m is None:
        return None
    for g in groups:
        v = m.group(g)
        if v:
            return float(v.replace(",", ""))
    return None


_CN_COUNT_RE = gated_re.compile(CN_AMOUNT_RE.pattern + r"(?=\s{0,3}(?:条|个样本|样本|张图|张图片))")


def _cn_count_digits(m: re.Match[str]) -> str:
    value = cn_amount(m)
    return f"{value:g}" if value else m.group()


def asks_time_or_speed(text: str) -> bool:
    """Whether the words ask how long, how fast or how many users (not whether it fits)."""
    return bool(_TIME_RE.search(text) or _SPEED_RE.search(text) or _SERVE_RE.search(text))


def read(text: str) -> TimeAsk:
    return _read(text, full=True)


# any dataset name at all (the loop over DATASETS then picks the first in DATASETS' order)
# (ASCII boundaries: "训练coco" names COCO too)
_ANY_DATASET = gated_re.compile(
    r"(?<![a-z0-9])(?:" + "|".join(re.escape(d) for d in DATASETS) + r")(?![a-z0-9])"
)


_TRAIN_WORDS = gated_re.compile(r"train|tune|训练|微调")


# the patterns that decide the kind, and one alternation of them all: when its literal check fails,
# none of them can match (the alternation itself is never searched)
_KIND_PATTERNS = (
    _SERVE_RE,
    _RX["users"],
    _TIME_RE,
    _RX["target_hours"],
    _SPEED_RE,
    _RX["target_tps"],
    _WEAK_SPEED_RE,
)
_USERS_RE, _TARGET_HOURS_RE, _TARGET_TPS_RE = _RX["users"], _RX["target_hours"], _RX["target_tps"]
# only its literal check is kept: the alternation is never searched (the regex audit times what is
# searched, and the seven patterns are there each on their own)
_may_be_any_kind = gated_re.literal_check("|".join(f"(?:{p.pattern})" for p in _KIND_PATTERNS), re.I)


_NO_ASK = TimeAsk()  # (frozen: one for every question that asks none)


def _any_kind(t: str) -> bool:
    """Whether a pattern of ``_KIND_PATTERNS`` matches (written out: no generator a question)."""
    return bool(
        _SERVE_RE.search(t)
        or _USERS_RE.search(t)
        or _TIME_RE.search(t)
        or _TARGET_HOURS_RE.search(t)
        or _SPEED_RE.search(t)
        or _TARGET_TPS_RE.search(t)
        or _WEAK_SPEED_RE.search(t)
    )


def _may_ask(t: str, low: str) -> bool:
    """Whether ``_read`` can find a kind or a weak speed word in the text: a pattern that decides the
    kind below (or its figure) matches, or the training words and a sample count, a dataset or an
    amount of data that together make a time question may be there (their literal checks, gated_re)."""
    # each of these matching sets the kind (or the weak speed word) in ``_read``: searched, not only
    # checked for literals ("under" of "under $500", "/" of "w/ qlora" passed the checks of hundreds)
    if _may_be_any_kind(t) and _any_kind(t):
        return True
    if _RX["target_img"].may_match(t) and ("image" in low or "图" in low):
        return True
    # "train ... on 10k samples", "fine-tune on coco", "on 1B tokens", "my 2 GB of text"
    return _TRAIN_WORDS.may_match(low) and (
        _ANY_DATASET.may_match(low)
        or _RX["samples"].may_match(t)
        or _RX["dataset_tokens"].may_match(t)
        or _RX["text_bytes"].may_match(t)
    )


def _read(text: str, full: bool) -> TimeAsk:
    """``read``; with ``full`` False, a question of no speed kind returns as soon as that is known
    (kind None, weak_speed False), without the figures only a speed question uses."""
    t = (text or "").replace("，", ",")
    if "万" in t or "千" in t:  # "一万条数据", "两千个样本": Chinese numerals counting samples, as digits
        t = _CN_COUNT_RE.sub(_cn_count_digits, t)
    low = t.lower()
    if not full and not _may_ask(t, low):
        return _NO_ASK  # no word or figure that makes a speed, time or serving question
    # every figure below but "under a day" needs a digit: a question without one skips them
    digits = DIGIT_RE.search(t) is not None
    samples = None
    name = None
    if digits and (m := _RX["samples"].search(t)) is not None:
        samples = int(_n(m.group(1), m.group(2)))
    if _ANY_DATASET.search(low):
        for ds, count in DATASETS.items():
            if re.search(rf"(?<![a-z0-9]){re.escape(ds)}(?![a-z0-9])", low):
                name = ds
                if samples is None:
                    samples = count
                break
    sample_tokens = None
    if samples is not None and (m := _RX["sample_tokens"].search(t)) is not None:
        num, k = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
        sample_tokens = int(_n(num, k))
    dataset_tokens = None
    if digits and sample_tokens is None and (m := _RX["dataset_tokens"].search(t)) is not None and m.group(2):
        dataset_tokens = _n(m.group(1), m.group(2))
    if digits and dataset_tokens is None and (m := _RX["text_bytes"].search(t)) is not None:
        unit = m.group(2).lower()[0]
        b = float(m.group(1)) * {"k": 1e3, "m": 1e6, "g": 1e9, "t": 1e12}[unit]
        dataset_tokens = b / BYTES_PER_TOKEN
    tps = _float(_RX["target_tps"].search(t), 1, 2, 3) if digits else None
    img = _float(_RX["target_img"].search(t), 1, 2) if digits else None
    hours = None
    if (m := _RX["target_hours"].search(t)) is not None:
        if m.group(2):
            k = float(m.group(1)) if m.group(1) else 1.0
            u = m.group(2).lower()
            hours = k * (24.0 if u.startswith("day") else 168.0 if u.startswith("week") else 1.0)
        elif m.group(3):
            hours = float(m.group(3)) * (24.0 if m.group(4) == "天" else 1.0)
    if hours is not None:
        img = None  # "under a day" is not an image target
    users = None
    if digits and (m := _RX["users"].search(t)) is not None:
        v = m.group(1) or m.group(2) or m.group(3)
        users = int(v.replace(",", "")) if v else None

    kind: str | None = None
    if _SERVE_RE.search(t) or users is not None:
        kind = "serve"
    elif (
        _TIME_RE.search(t)
        or hours is not None
        or ((samples is not None or dataset_tokens is not None) and re.search(r"train|tune|训练|微调", low))
    ):
        kind = "time"
    elif _SPEED_RE.search(t) or tps is not None:
        kind = "speed"
    if img is not None and kind is None and re.search(r"image|图", low):
        kind = "speed"
    weak = bool(_WEAK_SPEED_RE.search(t))
    if not full and kind is None and not weak:
        return TimeAsk()

    epochs = _float(_RX["epochs"].search(t), 1, 2)
    context = None
    if (m := _RX["context"].search(t)) is not None:
        num, k = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
        if num:
            context = int(float(num) * (1024 if k else 1))
    kwh = cur = None
    if (m := _RX["kwh"].search(t)) is not None:
        if m.group(1):
            kwh, cur = float(m.group(1)), m.group(2)
        elif m.group(4):
            kwh, cur = float(m.group(4)), m.group(3)
        else:
            kwh, cur = float(m.group(5)), "元"
    steps = int(m.group(1)) if (m := _RX["steps"].search(t)) is not None else None
    return TimeAsk(
        kind=kind,
        samples=samples,
        sample_tokens=sample_tokens,
        dataset_tokens=dataset_tokens,
        dataset_name=name,
        epochs=epochs,
        target_tokens_per_s=tps,
        target_seconds_per_image=img if kind == "speed" else None,
        target_hours=hours,
        users=users,
        context=context,
        kwh_price=kwh,
        kwh_currency=_currency(cur),
        steps=steps,
        weak_speed=weak,
    )


def asks_job_cost(q: Query) -> bool:
    """The price reader found a job-cost question ("what does it cost to fine-tune X", "训练X要花多少钱")."""
    pq = q.price_question
    return pq is not None and any(str(k) == "job_cost" for k in getattr(pq, "kinds", ()))


def _currency(sym: str | None) -> str | None:
    if not sym:
        return None
    s = sym.lower()
    if s in ("€", "eur", "euro", "euros"):
        return "EUR"
    if s in ("£", "gbp"):
        return "GBP"
    if s in ("元", "rmb", "cny"):
        return "CNY"
    return "USD"


_KIND_INTENT = {"speed": "SPEED", "time": "TIME", "serve": "SERVE"}


def refine(q: Query) -> Query:
    """The parser's hook: the speed intents and the fields they read, on top of a parsed Query."""
    if q.intent in (Intent.HELP, Intent.LIST, Intent.RENT_OR_BUY, Intent.DEAL) or q.needs_clarification:
        return q
    ask = _read(q.text, full=False)  # no speed kind: the figures a speed answer reads are not read
    if ask.kind is None and q.models and asks_job_cost(q):
        # "how much does it cost to fine-tune X on runpod": the time to train times a rental price
        ask = replace(_read(q.text, full=True), kind="time")
    if ask.kind is None and ask.weak_speed and q.models and q.gpus:
        ask = replace(ask, kind="speed")
    if ask.kind is None:
        return q
    if not q.models and ask.kind != "time":
        return q  # "how fast is a 4090" stays a card question
    intent = Intent(_KIND_INTENT[ask.kind].lower())
    targeted = ask.target_tokens_per_s or ask.target_seconds_per_image or ask.target_hours
    if q.intent is Intent.RECOMMEND and not q.gpus and targeted and not _names_other_card(q.text):
        intent = Intent.RECOMMEND  # "what do I need for 20 tokens/s": a recommendation, ranked by the target
    gpus = q.gpus
    if targeted and _upgrades(q.text):
        # "upgrading from a 3060, which gpu gets 30 tokens/s", "I have a gtx 1080, what should I buy for
        # ... 30 tok/s": the card named is the one owned; the question is which card to buy
        intent, gpus = Intent.RECOMMEND, ()
    budget, notes, seq = q.budget_usd, q.notes, q.seq_len
    stated = {ask.samples, ask.users, ask.target_tokens_per_s, ask.kwh_price, ask.steps}
    if budget is not None and (budget < 50 or budget in stated or _money_is_kwh(q, ask)):
        # "10k samples" / "0.30 €/kWh" read as a budget by the general parser: not one
        budget = None
        notes = tuple(n for n in notes if n.code not in (NoteCode.BUDGET_CONVERTED, NoteCode.BUDGET_NO_RATE))
    if (
        q.intent is Intent.RECOMMEND
        and not q.gpus
        and budget is not None
        and ask.kind == "time"
        and not targeted
        and not _TIME_RE.search(q.text)
    ):
        return q  # "what gpu for training resnet50 on imagenet, about $1500": a buying question
    if seq is not None and seq in {ask.target_tokens_per_s, ask.users}:
        seq = None  # "20 tokens per second" is not a sequence length
    if seq is None and ask.sample_tokens:
        seq = ask.sample_tokens
    task = q.task
    if task is None and ask.kind in ("speed", "serve"):
        task = Task.INFERENCE  # "tokens/s of llama 3 8b", "how many users": running the model
    return replace(
        q,
        intent=intent,
        gpus=gpus,
        task=task,
        budget_usd=budget,
        notes=notes,
        seq_len=seq,
        samples=ask.samples,
        sample_tokens=ask.sample_tokens,
        dataset_tokens=ask.dataset_tokens,
        dataset_name=ask.dataset_name,
        epochs=ask.epochs,
        target_tokens_per_s=ask.target_tokens_per_s,
        target_seconds_per_image=ask.target_seconds_per_image,
        target_hours=ask.target_hours,
        users=ask.users,
        context_tokens=ask.context,
        kwh_price=ask.kwh_price,
        kwh_currency=ask.kwh_currency,
        steps=ask.steps,
    )


# a card the asker owns and wants to replace: "upgrading from", "replace my", "换卡", "升级"; or "I have a
# X" with a buying question ("what should I buy", "which gpu", "买什么")
_UPGRADE_RE = gated_re.compile(r"\bupgrad\w*|\breplac\w*|换卡|升级|换一张|换成什么", re.I)
_OWNED_RE = gated_re.compile(
    r"\bi (?:have|own|got|use|currently have|am using)\b|\bi'm using\b|\bmy (?:current |old )?(?:gpu|card)\b|"
    r"现在用|目前用|手上有|我有",
    re.I,
)
_BUY_RE = gated_re.compile(
    r"\bwhat (?:gpu|card|should i (?:buy|get))\b|\bwhich (?:gpu|card)\b|\bwhat to buy\b|买什么|买哪|换什么",
    re.I,
)


def _upgrades(text: str) -> bool:
    return bool(_UPGRADE_RE.search(text) or (_OWNED_RE.search(text) and _BUY_RE.search(text)))


def _names_other_card(text: str) -> bool:
    """A card outside the catalog is named ("... 20 tok/s, rtx a4500?"): not in ``q.gpus``, but a card
    all the same (the parser counts it so); the speed is asked of it, not a card search."""
    from bot.core import specs_fallback

    return bool(specs_fallback.card_spans(text))


def _money_is_kwh(q: Query, ask: TimeAsk) -> bool:
    if ask.kwh_price is None:
        return False
    for n in q.notes:
        if n.code is NoteCode.BUDGET_CONVERTED and n.values.get("amount") == ask.kwh_price:
            return True
    return False
