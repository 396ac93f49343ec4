"""Reading price talk from a question: rent-or-buy, deals, quoted prices, filters, usage.

Pure functions of the question text and the catalog (for card names and the
currency table); nothing here is wired into ``parsing.py`` / ``answer.py``.

- :func:`is_rent_or_buy`: "rent or buy", "should I just rent an H100", "how
  many hours of cloud before a 4090 pays off", "租还是买", "多久回本".
- :func:`is_deal_question`: "is a 3090 for $650 a good deal", "值不值".
- :func:`is_job_cost`: "what does it cost to fine-tune X on rented H100s".
- :func:`quoted_prices`: "I can get a 3090 for $650", "4090 at 1,800 €",
  "is $900 a good price for a used 3090 ti", "二手3090 4500元" -> card span,
  amount, currency, USD, condition; hourly quotes ("H100 at $2/hr") marked.
- :func:`price_filters`: "new only", "used is fine", "only used cards under
  $500", "no cloud", "只要二手", "不租".
- :func:`hours_per_day`, :func:`kwh_price` ("0.30 €/kWh", "电费0.6元/度",
  "15 cents per kWh"), :func:`resale_years` ("sell after 2 years", "两年后卖掉").

Currency symbols and amounts are read with the same table and number
patterns as :mod:`bot.core.parsing` (``knowledge/currencies.yaml``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from bot.core import gated_re, money_read
from bot.core.gated_re import GatedPattern
from bot.core.matching import Mention, get_matcher, normalize, tokenize
from bot.core.numerals import CN_DIGITS
from bot.core.understand.budgets import CN_AMOUNT_RE, CN_COUNTED_RE, cn_amount
from bot.core.understand.budgets import MULT as _MULT
from bot.core.understand.budgets import currencies as _currencies
from bot.core.understand.budgets import is_money as _is_money
from bot.core.understand.text import CJK_RE as _CJK_RE
from bot.core.understand.text import NUM as _NUM

__all__ = [
    "Money",
    "QuotedPrice",
    "ConditionFilter",
    "PriceFilters",
    "KwhPrice",
    "PriceQuestionKind",
    "PriceQuestion",
    "money",
    "quoted_prices",
    "price_filters",
    "hours_per_day",
    "kwh_price",
    "resale_years",
    "is_rent_or_buy",
    "is_deal_question",
    "is_job_cost",
    "parse_price_question",
    "RENT_QUESTION",
    "PRICE_QUESTION",
    "asks_price",
    "says_something",
]


def _rx(p: str) -> GatedPattern:
    return gated_re.compile(p, re.IGNORECASE)


_CN_NUM: dict[str, float] = {**{k: v for k, v in CN_DIGITS.items() if v}, "十": 10, "半": 0.5}
_EN_NUM = {
    "one": 1, "a": 1, "an": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "twelve": 12, "half a": 0.5,
}  # fmt: skip
_NUMWORD = r"(\d+(?:\.\d+)?|one|two|three|four|five|six|seven|eight|nine|ten|twelve|an?|half a|[一二两三四五六七八九十半])"


def _n(s: str) -> float:
    s = s.strip().lower()
    if s in _EN_NUM:
        return float(_EN_NUM[s])
    if s in _CN_NUM:
        return float(_CN_NUM[s])
    return float(s.replace(",", ""))


class ConditionFilter(StrEnum):
    NEW_ONLY = "new_only"
    USED_OK = "used_ok"  # new or used
    USED_ONLY = "used_only"


class PriceQuestionKind(StrEnum):
    RENT_OR_BUY = "rent_or_buy"
    DEAL = "deal"
    JOB_COST = "job_cost"


@dataclass(frozen=True)
class Money:
    amount: float
    currency: str
    usd: float | None  # None when the currency has no rate in the catalog
    start: int  # span in the normalised text
    end: int
    text: str
    hourly: bool = False  # "$2/hr", "2 dollars an hour"
    cue: str | None = None  # "under", "below", "以内" ... when it reads as a limit
    bare: bool = False  # no currency said ("a 3090 for 650"): the default one (USD; CNY in Chinese)


@dataclass(frozen=True)
class QuotedPrice:
    gpu_ids: tuple[str, ...]  # one id, or a family the caller asks back about
    gpu_text: str
    gpu_span: tuple[int, int]
    amount: float
    currency: str
    usd: float | None
    span: tuple[int, int]
    condition: str | None  # "used" | "new" | None
    hourly: bool = False
    # not said, but read from the conversation: "new" for another card after "a used 3090 at $650"
    # (bot.core.conversation.deal_conditions); the answer says it took it so
    assumed_condition: str | None = None
    bare: bool = False  # the amount was said without a currency (a follow-up keeps the conversation's)

    @property
    def gpu(self) -> str | None:
        return self.gpu_ids[0] if len(self.gpu_ids) == 1 else None


@dataclass(frozen=True)
class PriceFilters:
    condition: ConditionFilter | None = None
    max_usd: float | None = None  # "only used cards under $500"
    max_amount: float | None = None
    max_currency: str | None = None
    no_cloud: bool = False


@dataclass(frozen=True)
class KwhPrice:
    amount: float  # per kWh, in currency
    currency: str
    usd: float | None


@dataclass(frozen=True)
class PriceQuestion:
    kinds: tuple[PriceQuestionKind, ...]
    quotes: tuple[QuotedPrice, ...]
    filters: PriceFilters
    hours_per_day: float | None
    kwh: KwhPrice | None
    resale_years: float | None
    # "rent an A100 or buy a 3090": the card to rent, when it is not the card to buy (issue 10)
    rent_gpu: str | None = None


# --------------------------------------------------------------------------- regexes

_LIMIT_BEFORE_RE = _rx(
    r"(?:\bunder|\bbelow|\bless than|\bmax(?:imum)?|\bup ?to|\bwithin|\bbudget(?:\s+(?:of|is|around|about|at))?"
    r"|<=?|\bat most|\bno more than|\bcheaper than|预算(?:是|为|有)?|不超过|最多|低于)\s*:?\s*$"
)
_LIMIT_AFTER_RE = _rx(r"^\s*(?:以内|以下|之内|or less|max\b|tops\b)")
_HOURLY_AFTER_RE = _rx(
    r"^\s*(?:/\s*(?:h|hr|hrs|hour|gpu[\s-]?h(?:ou)?r?)\b|(?:per|an|a|each)\s+(?:gpu[\s-])?(?:hour|hr)\b|一小时|每小时|/小时)"
)
_KWH_AFTER_RE = _rx(r"^\s*(?:/\s*kw\s*h\b|(?:per|a|an|each)\s+kw\s*h\b|/\s*度|每度|一度)")
_USED_RE = _rx(
    r"\bused\b|\bsecond[\s-]?hand\b|\bpre[\s-]?owned\b|\brefurb(?:ished)?\b|\bex[\s-]?mining\b|二手|矿卡|翻新"
)
_NEW_RE = _rx(r"\bbrand[\s-]?new\b|\bnew\b|\bsealed\b|\bretail\b|全新|新卡|新的")

# "how much does renting an a100 cost per hour": a card's rental (cloud) price is asked
RENT_QUESTION = _rx(r"\brent\w*|\bcloud\b|\bper hour\b|\ban hour\b|/h(?:r|our)?\b|租|云|每小时")
# what a card costs: its prices lead an info answer
PRICE_QUESTION = _rx(
    r"\b(?:cost|costs|price|prices|priced|how much is|worth)\b|多少钱|价格|价钱|报价|多少錢|價格|價錢"
)


def asks_price(text: str) -> bool:
    """The question asks what a card costs, to rent or to buy."""
    return bool(RENT_QUESTION.search(text) or PRICE_QUESTION.search(text))


# every alternative starts at a letter or 租/买/回: the lookahead lets a position that cannot start
# one fail once, where the ~30 alternatives each tried it (39x the audit's reference on decimals)
_RENT_BUY_RE = _rx(
    r"(?=[a-z租买回])(?:"
    r"\brent\s+or\s+(?:to\s+)?buy\b|\bbuy\s+or\s+(?:to\s+)?rent\b|\brent(?:ing)?\s+(?:vs\.?|versus|or)\s+(?:buy|own)(?:ing)?\b"
    r"|\b(?:buy|own)(?:ing)?\s+(?:vs\.?|versus)\s+rent(?:ing)?\b|\bjust\s+rent\b|\brent\b.{0,40}\binstead\b"
    r"|\brent\b.{0,40}\bor\s+(?:to\s+)?buy\b|\bbuy\b.{0,40}\bor\s+(?:to\s+)?rent\b"
    r"|\b(?:buy|own)(?:ing)?\b.{0,40}\b(?:vs\.?|versus)\s+rent(?:ing)?\b|\brent(?:ing)?\b.{0,40}\b(?:vs\.?|versus)\s+(?:buy|own)(?:ing)?\b"
    r"|\binstead\s+of\s+(?:buying|renting)\b|\bpays?\s+(?:itself\s+)?off\b|\bpay\s+for\s+itself\b|\bbreak[\s-]?even\b"
    r"|\bhours\s+of\s+cloud\b|\bcloud\b.{0,30}\b(?:or|vs\.?|versus)\s+(?:buy|own)|\b(?:buy|own)\w*\b.{0,30}\bor\b.{0,20}\bcloud\b"
    r"|\bcheaper\s+to\s+(?:rent|buy)\b|\brent\w*\b.{0,40}\bcheaper\s+than\s+buy|\bbuy\w*\b.{0,40}\bcheaper\s+than\s+rent|\bworth\s+buying\b.{0,40}\brent|\bshould\s+i\s+rent\b"
    r"|租还是买|买还是租|租.{0,6}还是.{0,6}买|买.{0,6}还是.{0,6}租|回本|租云|租卡|租用.{0,10}划算"
    r"|租.{0,12}比.{0,6}买|买.{0,12}比.{0,6}租"  # "租H100比买4090划算吗" (issue 10)
    r")"
)
_DEAL_RE = _rx(
    r"\bgood\s+(?:deal|price|buy|value)\b|\bfair\s+price\b|\bworth\b|\bgood\s*\?|\bover[\s-]?priced\b|\brip[\s-]?off\b"
    r"|\bdeal\b|\bshould\s+i\s+(?:take|grab)\b|\b(?:too\s+)?(?:expensive|cheap)\b|\breasonable\b|\bbargain\b"
    r"|\bfair\s*\?|\bis\s+(?:that|this|it)\s+fair\b|值不值|值得(?:买|入手?)吗?|入手吗|划算吗|贵不贵|贵吗|贵了吗|值吗|价格合理|能买吗|可以入吗|能入吗"
)
_JOB_RE = _rx(
    r"\b(?:cost|price)\s+(?:me\s+)?to\s+(?:fine[\s-]?tune|train|pre[\s-]?train)\b"
    r"|\bwhat\s+(?:does|would|will)\s+it\s+cost\s+to\b|\bhow\s+much\s+(?:would|does|will)\s+it\s+cost\s+to\s+(?:fine|train|pre)"
    r"|训练.{0,20}(?:多少钱|成本|花多少)|微调.{0,20}(?:多少钱|成本|花多少)"
    # "how much to fine-tune X in the cloud", "cost of fine-tuning X on runpod", "how much does it
    # cost to rent gpus to train X", "租卡训练X要多少钱", "在云上微调X的费用"
    r"|\bhow\s+much\s+(?:would\s+it\s+be\s+|is\s+it\s+)?to\s+(?:fine[\s-]?tune|train|pre[\s-]?train)\b"
    r"|\bcost\s+(?:of|for)\s+(?:fine[\s-]?tuning|training|pre[\s-]?training)\b"
    r"|\bcost\s+(?:me\s+)?to\s+rent\b.{0,40}?\bto\s+(?:fine[\s-]?tune|train|pre[\s-]?train)\b"
    r"|(?:训练|微调|訓練|微調).{0,30}(?:费用|費用|多少錢|花多少)"
)

_BUY_WORD_RE = _rx(r"\b(?:buy\w*|own\w*|purchas\w*|break[\s-]?even|pays?\s+(?:itself\s+)?off)\b|买|買|回本")

_NEW_ONLY_RE = _rx(
    r"\bnew\s+only\b|\bonly\s+(?:brand[\s-]?)?new\b|\bno\s+used\b|\bnot\s+used\b|\bno\s+second[\s-]?hand\b"
    r"|\bnothing\s+used\b|\bonly\s+buy\s+new\b|只要新|只买新|只考虑新|不要二手|不买二手|不考虑二手"
)
_USED_ONLY_RE = _rx(
    r"\bonly\s+used\b|\bused\s+only\b|\bused\s+cards?\s+only\b|\bonly\s+(?:second[\s-]?hand|refurb\w*)\b"
    r"|只要二手|只买二手|只看二手|只考虑二手"
)
_USED_OK_RE = _rx(
    r"\bused\s+(?:is|are|would\s+be)\s+(?:fine|ok(?:ay)?|good|acceptable)\b|\bused\s+(?:cards?\s+)?(?:fine|ok(?:ay)?)\b"
    r"|\bopen\s+to\s+used\b|\bsecond[\s-]?hand\s+is\s+(?:fine|ok(?:ay)?)\b|\bdon'?t\s+mind\s+(?:a\s+)?used\b"
    r"|\bnew\s+or\s+used\b|\bused\s+or\s+new\b|\bincluding\s+used\b|二手也行|二手也可以|二手可以|接受二手|二手也没关系"
)
_NO_CLOUD_RE = _rx(
    r"\bno\s+cloud\b|\bnot\s+(?:the\s+)?cloud\b|\bwithout\s+(?:the\s+)?cloud\b|\bno\s+rent(?:ing|als?)?\b"
    r"|\b(?:don'?t|do\s+not|won'?t)\s+want\s+to\s+rent\b|\bnot\s+(?:interested\s+in\s+)?rent(?:ing)?\b|\bexcept\s+cloud\b"
    r"|\bcloud\s+is\s+out\b|不要云|不用云|不考虑云|不租|不想租"
)

_HOURS_RES = (
    _rx(
        r"\b" + _NUMWORD + r"\s*(?:h|hrs?|hours?)\s*(?:a|per|each|/|every)\s*(?:day|night|24\s*h)\b"
        r"|\b" + _NUMWORD + r"\s*(?:h|hrs?|hours?)\s+daily\b"
    ),
    _rx(r"(?:每天|一天|每日|日均)\s*(?:大概|约|用|跑)?\s*" + _NUMWORD + r"\s*(?:个)?\s*(?:小时|钟头|h)"),
    _rx(r"\b(24\s*/\s*7|around the clock|all day and night)\b|全天|24小时不停"),
)
_YEARS_RES = (
    _rx(
        r"\b(?:sell|resell|sold|flip|get rid of)\b[^.?!]{0,25}?\b(?:after|in|within)\s+"
        + _NUMWORD
        + r"\s*(?:years?|yrs?)\b"
    ),
    _rx(
        r"\b(?:keep|own|use|have)\s+(?:it|them|the card|the cards)?\s*(?:for\s+)?"
        + _NUMWORD
        + r"\s*(?:years?|yrs?)\b"
    ),
    _rx(r"\b(?:over|for)\s+" + _NUMWORD + r"\s*(?:years?|yrs?)\b"),
    # never starting mid-number (linear on a run of digits)
    _rx(r"(?<![0-9.])" + _NUMWORD + r"\s*年(?:后|以后|之后)?\s*(?:卖|出|转|出手|二手)"),
    _rx(r"(?:用|用上)\s*" + _NUMWORD + r"\s*年"),
)
_KWH_CN_RE = _rx(
    r"电费\s*(?:是|为|大概|约)?\s*(?:每度|一度)?\s*"
    + _NUM
    + r"\s*(元|块|毛|分|欧|美元|美金)?\s*(?:/?\s*度|每度|一度)?"
)
_CENTS_KWH_RE = _rx(
    r"(?<![0-9.,])" + _NUM + r"\s*(?:cents?|ct|¢|c)\s*(?:/\s*kw\s*h|(?:per|a|an|each)\s+kw\s*h)\b"
)
_SENTENCE_BREAK_RE = gated_re.compile(r"[.?!;。？！；]|\band\b|\bbut\b|,\s")


# --------------------------------------------------------------------------- money


# One question asks money(), quoted_prices(), price_filters() and kwh_price() of the same text:
# the last text's cards and amounts are kept (one entry, so nothing carries to another question).
_LAST_MENTIONS: tuple[tuple[str, int], list[Mention]] | None = None
_LAST_MONEY: tuple[tuple[str, int], list[Money]] | None = None


def money(text: str, catalog: Any = None) -> list[Money]:
    """Every amount with a currency in ``text`` (normalised), in order; bare numbers after a
    card mention ("a 3090 for 650") count as the default currency (USD; CNY in Chinese text)."""
    global _LAST_MONEY
    key = (text, id(get_matcher(catalog).catalog))
    last = _LAST_MONEY
    if last is not None and last[0] == key:
        return list(last[1])
    found = _money(text, catalog)
    _LAST_MONEY = (key, found)
    return list(found)


# the patterns of the readers below, compiled once (they were written inline: built and looked up
# in re's cache on every call)
# a comma that is not a thousands separator
_LONE_COMMA_RE = gated_re.compile(r"(?<!\d),|,(?!\d{3}(?!\d))")
_USD_AFTER_RE = gated_re.compile(r"^\s*(?:美元|美金|刀|usd|dollars?)")
# a bare amount ("650", "1,800", "1.2k"), cards blanked to "#"
_BARE_AMOUNT_RE = gated_re.compile(r"(?<![a-z0-9.,#$])" + _NUM + r"(\s*(?:k\b|grand\b))?(?![a-z0-9.#%])")
_CARD_THEN_PRICE_RE = gated_re.compile(r"#\s*(?:for|at|@|is|costs?|priced at|卖|要|才)?\s*$")
_PRICE_WORD_BEFORE_RE = gated_re.compile(
    r"\b(?:for|at|pay|paying|offer(?:ed)?|asking|is|worth|only|just)\s*$"
)
_FOR_A_CARD_AFTER_RE = gated_re.compile(
    r"\s{0,3}(?:for|on)\s{1,3}(?:(?:a|an|the|my|one)\s{1,3})?(?:used\s{1,3}|new\s{1,3})?#"
)
_UNIT_AFTER_RE = gated_re.compile(
    r"^\s*(?:gb|g\b|w\b|watts?|hours?|h\b|hrs?|years?|yrs?|months?|days?|tokens?|b\b|%|x\b)"
)
_NEW_MODEL_RE = gated_re.compile(r"\bnew(?:er)?\s+(?:one|model|gen)")
_EURO_CENTS_RE = gated_re.compile(r"\bct\b|\beuro")
_POWER_PRICE_RE = gated_re.compile(
    r"(?:electricity|power|energy)\s+(?:costs?|is|at|price)?\s*:?\s*" + _NUM + r"\b"
)


def _money(text: str, catalog: Any) -> list[Money]:
    matcher = get_matcher(catalog)
    cat = matcher.catalog
    norm = normalize(text)
    cur = _currencies(cat)
    cjk = bool(_CJK_RE.search(norm))
    rates = getattr(cat, "currencies", {}) or {}
    mentions = _gpu_mentions(norm, cat)
    work = norm
    for mn in mentions:  # "3090" is a card, not an amount
        work = work[: mn.start] + "#" * (mn.end - mn.start) + work[mn.end :]
    # a comma that is not a thousands separator ("的，3000元" is "的,3000元" after NFKC) is a space
    work = _LONE_COMMA_RE.sub(" ", work)
    out: list[Money] = []

    def usd(amount: float, code: str) -> float | None:
        r = rates.get(code)
        return amount * r.usd_per_unit if r is not None else None

    def add(amount: float, code: str, start: int, end: int, bare: bool = False) -> None:
        after = norm[end:]
        hourly = bool(_HOURLY_AFTER_RE.match(after))
        before = norm[max(0, start - 30) : start]
        lm = _LIMIT_BEFORE_RE.search(before)
        la = _LIMIT_AFTER_RE.match(after)
        cue = (lm.group().strip() if lm else None) or (la.group().strip() if la else None)
        out.append(Money(amount, code, usd(amount, code), start, end, norm[start:end], hourly, cue, bare))

    taken: list[tuple[int, int]] = []

    def free(s: int, e: int) -> bool:
        return all(e <= a or s >= b for a, b in taken)

    def mult(g: str | None) -> float:
        return _MULT.get((g or "").strip(), 1.0)

    for rx, gi, mi, si in ((cur.pre, 2, 3, "sym"), (cur.post, 1, 2, "sym2")):
        for m in rx.finditer(work):
            if not free(m.start(), m.end()) or "#" in m.group():
                continue
            try:
                amount = _n(m.group(gi)) * mult(m.group(mi))
            except (ValueError, IndexError):
                continue
            taken.append((m.start(), m.end()))
            add(amount, cur.code(m.group(si), cjk), m.start(), m.end())
    # amounts in Chinese numerals ("两万二", "一万八人民币"), never a count of something ("一万条数据")
    for m in CN_AMOUNT_RE.finditer(work):
        if not free(m.start(), m.end()) or CN_COUNTED_RE.match(work, m.end()):
            continue
        value = cn_amount(m)
        if value is None:
            continue
        after = work[m.end() : m.end() + 6]
        said_usd = _USD_AFTER_RE.match(after)
        code = "USD" if said_usd or "CNY" not in rates else "CNY"
        near = money_read.cjk_currency_near(work, m.start(), m.end(), cur.by_symbol)
        if near is not None and code != "USD":
            code = near
        taken.append((m.start(), m.end()))
        add(value, code, m.start(), m.end(), bare=not said_usd and near is None)
    # bare amounts right after a card ("a 3090 for 650", "4090 at 1,800") or before 以内
    for m in _BARE_AMOUNT_RE.finditer(work):
        if not free(m.start(), m.end()):
            continue
        before = work[max(0, m.start() - 14) : m.start()]
        after = work[m.end() :]
        if _KWH_AFTER_RE.match(after) or _HOURLY_AFTER_RE.match(after):
            pass
        elif not (
            _CARD_THEN_PRICE_RE.search(before)
            or _PRICE_WORD_BEFORE_RE.search(before)
            or _FOR_A_CARD_AFTER_RE.match(after)
        ):  # "a 3090 for 650", "paying 650", "1100 for a 4080 super"
            continue
        if _UNIT_AFTER_RE.match(after):
            continue
        amount = _n(m.group(1)) * mult(m.group(2))
        per_unit = _KWH_AFTER_RE.match(after) or _HOURLY_AFTER_RE.match(after)
        if amount < 0.01 or (not per_unit and amount < 20):  # "is 8 fine" is not a price
            continue
        code = "CNY" if cjk and "CNY" in rates else "USD"
        taken.append((m.start(), m.end()))
        add(amount, code, m.start(), m.end(), bare=True)
    out.sort(key=lambda x: x.start)
    return out


def _gpu_mentions(norm: str, catalog: Any) -> list[Mention]:
    global _LAST_MENTIONS
    matcher = get_matcher(catalog)
    key = (norm, id(matcher.catalog))
    last = _LAST_MENTIONS
    if last is not None and last[0] == key:
        return list(last[1])
    cur = _currencies(matcher.catalog)
    toks = tokenize(norm)
    # (a question that can name no card, "what gpu for llama 3 8b under $500", is not scanned for one)
    ms = matcher.mentions(norm, "gpu", toks) if matcher.may_name_gpu(norm, toks) else []
    found = [m for m in ms if not _is_money(m, norm, cur)]
    _LAST_MENTIONS = (key, found)
    return list(found)


def _condition_near(norm: str, start: int, end: int, others: Sequence[tuple[int, int]] = ()) -> str | None:
    """ "used" / "new" said next to a card and its price (not past another card or price)."""
    lo = max([max(0, start - 14)] + [b for a, b in others if b <= start])
    hi = min([end + 10] + [a for a, b in others if a >= end])
    window = norm[lo:hi]
    if _USED_RE.search(window):
        return "used"
    if _NEW_RE.search(window) and not _NEW_MODEL_RE.search(window):
        return "new"
    return None


def quoted_prices(text: str, catalog: Any = None) -> list[QuotedPrice]:
    """Prices the user quotes for a card: each amount (not a limit such as "under $500", not a
    kWh price) paired with the card named nearest before it in the same clause, else after it."""
    return _quoted_prices(text, normalize(text), catalog)


def _quoted_prices(text: str, norm: str, catalog: Any) -> list[QuotedPrice]:
    """:func:`quoted_prices` with ``norm`` = ``normalize(text)`` (the readers below share one)."""
    matcher = get_matcher(catalog)
    cat = matcher.catalog
    mentions = _gpu_mentions(norm, cat)
    out: list[QuotedPrice] = []
    if not mentions:
        return out
    used_mentions: set[int] = set()
    amounts = money(text, cat)
    spans = [(m.start, m.end) for m in mentions] + [(m.start, m.end) for m in amounts]
    for mo in amounts:
        if mo.cue is not None or _KWH_AFTER_RE.match(norm[mo.end :]):
            continue
        left = [
            m for m in mentions if m.end <= mo.start and not _SENTENCE_BREAK_RE.search(norm[m.end : mo.start])
        ]
        right = [
            m for m in mentions if m.start >= mo.end and not _SENTENCE_BREAK_RE.search(norm[mo.end : m.start])
        ]
        pick: Mention | None = None
        cands_left = [m for m in left if id(m) not in used_mentions and mo.start - m.end <= 30]
        cands_right = [m for m in right if id(m) not in used_mentions and m.start - mo.end <= 40]
        if cands_left:
            pick = cands_left[-1]
        elif cands_right:
            pick = cands_right[0]
        if pick is None:
            continue
        used_mentions.add(id(pick))
        s, e = min(pick.start, mo.start), max(pick.end, mo.end)
        others = [(a, b) for a, b in spans if b <= s or a >= e]
        out.append(
            QuotedPrice(
                gpu_ids=tuple(pick.ids),
                gpu_text=pick.text,
                gpu_span=(pick.start, pick.end),
                amount=mo.amount,
                currency=mo.currency,
                usd=mo.usd,
                span=(mo.start, mo.end),
                condition=_condition_near(norm, s, e, others),
                hourly=mo.hourly,
                bare=mo.bare,
            )
        )
    return out


def requote(prev: QuotedPrice, text: str, catalog: Any = None) -> QuotedPrice | None:
    """ "and at $600?" after a quote for one card: that card at the one amount ``text`` says, with the
    condition ``text`` says (None when it says none). None when ``text`` names a card or says no
    amount, or several (a limit such as "under $500", an hourly or kWh price is not a card's price)."""
    if len(prev.gpu_ids) != 1:
        return None
    cat = get_matcher(catalog).catalog
    norm = normalize(text)
    if _gpu_mentions(norm, cat):
        return None
    amounts = [
        m
        for m in money(text, cat)
        if m.cue is None and not m.hourly and not _KWH_AFTER_RE.match(norm[m.end :])
    ]
    if len(amounts) != 1:
        return None
    mo = amounts[0]
    return replace(
        prev,
        gpu_span=(mo.start, mo.start),
        amount=mo.amount,
        currency=mo.currency,
        usd=mo.usd,
        span=(mo.start, mo.end),
        # a short follow-up: "used" / "new" anywhere in it ("and a new one at $1100?")
        condition="used" if _USED_RE.search(norm) else "new" if _NEW_RE.search(norm) else None,
        assumed_condition=None,
        bare=mo.bare,
    )


# --------------------------------------------------------------------------- filters and usage


def price_filters(text: str, catalog: Any = None) -> PriceFilters:
    return _price_filters(text, normalize(text), catalog)


def _price_filters(text: str, norm: str, catalog: Any) -> PriceFilters:
    if _NEW_ONLY_RE.search(norm):
        cond: ConditionFilter | None = ConditionFilter.NEW_ONLY
    elif _USED_ONLY_RE.search(norm):
        cond = ConditionFilter.USED_ONLY
    elif _USED_OK_RE.search(norm):
        cond = ConditionFilter.USED_OK
    else:
        cond = None
    limits = [m for m in money(text, catalog) if m.cue is not None and not m.hourly]
    lim = min(limits, key=lambda m: m.usd if m.usd is not None else float("inf")) if limits else None
    return PriceFilters(
        condition=cond,
        max_usd=lim.usd if lim else None,
        max_amount=lim.amount if lim else None,
        max_currency=lim.currency if lim else None,
        no_cloud=bool(_NO_CLOUD_RE.search(norm)),
    )


def hours_per_day(text: str) -> float | None:
    return _hours_per_day(normalize(text))


def _hours_per_day(norm: str) -> float | None:
    for rx in _HOURS_RES[:2]:
        m = rx.search(norm)
        if m:
            g = next(x for x in m.groups() if x)
            v = _n(g)
            return v if 0 < v <= 24 else None
    if _HOURS_RES[2].search(norm):
        return 24.0
    return None


def resale_years(text: str) -> float | None:
    return _resale_years(normalize(text))


def _resale_years(norm: str) -> float | None:
    for rx in _YEARS_RES:
        m = rx.search(norm)
        if m:
            g = next(x for x in m.groups() if x)
            v = _n(g)
            return v if 0 < v <= 15 else None
    return None


def kwh_price(text: str, catalog: Any = None) -> KwhPrice | None:
    """Electricity price per kWh: "0.30 €/kWh", "$0.15 per kWh", "15 cents per kWh", "电费0.6元/度"."""
    return _kwh_price(text, normalize(text), catalog)


def _kwh_price(text: str, norm: str, catalog: Any) -> KwhPrice | None:
    matcher = get_matcher(catalog)
    cat = matcher.catalog
    rates = getattr(cat, "currencies", {}) or {}
    cjk = bool(_CJK_RE.search(norm))

    def mk(amount: float, code: str) -> KwhPrice | None:
        if not 0 < amount < 10:
            return None
        r = rates.get(code)
        return KwhPrice(amount, code, amount * r.usd_per_unit if r is not None else None)

    m = _CENTS_KWH_RE.search(norm)
    if m:
        code = "EUR" if "€" in norm or _EURO_CENTS_RE.search(norm) else "USD"
        return mk(_n(m.group(1)) / 100.0, code)
    # (no "/", "kw", 每度 ... anywhere: no amount has one after it, and the amounts are not read)
    for mo in money(text, cat) if _KWH_AFTER_RE.may_match(norm) else ():
        if _KWH_AFTER_RE.match(norm[mo.end :]):
            return mk(mo.amount, mo.currency)
    m = _KWH_CN_RE.search(norm)
    if m:
        unit = (m.group(2) or "").strip()
        v = _n(m.group(1))
        if unit == "毛":
            v /= 10
        elif unit == "分":
            v /= 100
        code = {"欧": "EUR", "美元": "USD", "美金": "USD"}.get(unit, "CNY" if "CNY" in rates else "USD")
        return mk(v, code)
    m = _POWER_PRICE_RE.search(norm)
    if m and not cjk:
        return mk(_n(m.group(1)), "USD")
    return None


# --------------------------------------------------------------------------- kinds


def is_rent_or_buy(text: str) -> bool:
    return _is_rent_or_buy(normalize(text))


def _is_rent_or_buy(norm: str) -> bool:
    # "不租云", "I don't want to rent" say no to renting; they do not ask rent or buy
    norm = _NO_CLOUD_RE.sub(lambda m: " " * len(m.group()), norm)
    return bool(_RENT_BUY_RE.search(norm))


def is_job_cost(text: str) -> bool:
    return bool(_JOB_RE.search(normalize(text)))


def is_deal_question(text: str, catalog: Any = None) -> bool:
    """A deal question names a card with a price and asks whether it is good / worth it."""
    return _is_deal_question(text, normalize(text), catalog)


def _is_deal_question(text: str, norm: str, catalog: Any) -> bool:
    if not _DEAL_RE.search(norm):
        return False
    return any(not q.hourly for q in _quoted_prices(text, norm, catalog))


def parse_price_question(text: str, catalog: Any = None) -> PriceQuestion:
    norm = normalize(text)  # (once: each reader below took the text and normalised it again)
    kinds: list[PriceQuestionKind] = []
    job = bool(_JOB_RE.search(norm))
    # "租卡微调X要多少钱" (rent a card to fine-tune X: what does it cost) names no buying: a job cost
    if _is_rent_or_buy(norm) and not (job and not _BUY_WORD_RE.search(norm)):
        kinds.append(PriceQuestionKind.RENT_OR_BUY)
    quotes = _quoted_prices(text, norm, catalog)  # (once: the deal test below reads them too)
    if _DEAL_RE.search(norm) and any(not q.hourly for q in quotes):  # (``_is_deal_question``)
        kinds.append(PriceQuestionKind.DEAL)
    if job:
        kinds.append(PriceQuestionKind.JOB_COST)
    return PriceQuestion(
        kinds=tuple(kinds),
        quotes=tuple(quotes),
        filters=_price_filters(text, norm, catalog),
        hours_per_day=_hours_per_day(norm),
        kwh=_kwh_price(text, norm, catalog),
        resale_years=_resale_years(norm),
    )


def says_something(text: str, catalog: Any = None) -> bool:
    """Whether :func:`parse_price_question` finds anything but a price limit in ``text``: a kind, a
    quote, hours a day, a kWh price, resale years, a condition or no cloud. False means it finds none
    of them, found without reading the limits ("under $500"), the costly part of most texts; the
    parser leaves such a question as it is."""
    norm = normalize(text)
    return bool(
        _NEW_ONLY_RE.search(norm)  # the conditions and "no cloud" of price_filters
        or _USED_ONLY_RE.search(norm)
        or _USED_OK_RE.search(norm)
        or _NO_CLOUD_RE.search(norm)
        or _JOB_RE.search(norm)  # the kinds (a deal needs a quote, below)
        or _is_rent_or_buy(norm)
        or _hours_per_day(norm) is not None
        or _resale_years(norm) is not None
        or _kwh_price(text, norm, catalog) is not None
        or _quoted_prices(text, norm, catalog)
    )
