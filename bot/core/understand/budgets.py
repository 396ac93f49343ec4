"""Budgets as people write them: amounts, currencies, ranges, per-card budgets.

``read`` finds every amount in the masked question (symbols and codes before or after, glued
units "1200usd", European forms "2,5k €", Chinese numerals 一万二 / 2万5 / 预算四千以内, "½k",
Indian grouping, per-card "800 each"); an amount in a currency the rate table lacks is reported,
never read as dollars. ``pick`` chooses the one that is the budget (the top of a range);
``settle`` converts it to dollars with the dated rate, said in a note, and applies a per-card
budget to the card count.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from cachetools import LRUCache

from bot.core import gated_re, money_read
from bot.core.limits import OutOfRange
from bot.core.matching import Mention, normalize
from bot.core.numerals import CN_DIGITS
from bot.core.types import Note, NoteCode, note
from bot.core.understand.numbers import WORD_NUM as _WORD_NUM
from bot.core.understand.numbers import out_of_range
from bot.core.understand.text import CJK_RE as _CJK_RE
from bot.core.understand.text import DIGIT_RE
from bot.core.understand.text import NUM as _NUM
from bot.core.understand.text import blank as _blank
from bot.core.understand.text import num as _num
from bot.core.understand.text import rx as _rx

__all__ = [
    "CN_COUNTED_RE",
    "MULT",
    "Budget",
    "Currencies",
    "currencies",
    "is_money",
    "pick",
    "read",
    "settle",
]

_SIZE_MASK_RE = _rx(
    r"\b\d+(?:\.\d+)?\s*(?:x\s*\d+(?:\.\d+)?\s*)?(?:b|bn|billion|m|million|t|trillion)\b(?:\s*param\w*)?|"
    r"\b\d+(?:\.\d+)?\s*(?:gb|g|gib|tb|mb|gigs?|gigabytes?)\b|"
    r"\b\d+(?:\.\d+)?\s*(?:w|watts?|tflops|gb/s|fps|it/s|tok/s|tokens/s|hours?|hrs?|days?|minutes?|mins?|steps|epochs?|"
    r"images?|samples|px|p|layers|heads|%|ms|s)\b|"
    r"\b\d+\s*[x×]\b|\b[x×]\s*\d+\b|\b\d+k\s*(?:resolution|images?|video|monitor|display|screens?)\b|"
    r"\b\d+\s*x\s*\d+\b"
)

_USD_SYMBOLS = ("$", "us$", "usd", "dollars", "dollar", "bucks", "buck", "美元", "美金", "刀")
MULT = {"k": 1000.0, "grand": 1000.0, "thousand": 1000.0, "千": 1000.0, "万": 10000.0}
_MULT_RE = r"(\s*(?:k\b|grand\b|thousand\b|千|万))?"
_CUE_RE = (
    r"(?:\bunder|\bbelow|\bless than|\bmax(?:imum)?|\bup ?to|\bwithin|\bbudget(?:\s+(?:of|is|around|about|at))?|"
    r"\baround|\babout|<=?|\bat most|\bno more than|\bcheaper than|\bspend|\bgot|\bhave|\bfor|预算(?:是|为|有)?|不超过|最多)"
)
_UNIT_AFTER_RE = _rx(
    r"^\s*(?:gb|g\b|tb|mb|w\b|watts?|b\b|m\b|%|x\b|tokens?|ms\b|hours?|steps|images?|fps|px|k\s*context)"
)
_WORD_GRAND_RE = _rx(r"\b(a|one|two|three|four|five|ten)\s+grand\b")
# the first character of every cue above: a lookahead of them lets re leave a position at one test,
# where it tried the twenty cues in turn
_CUE_FIRST = r"(?=[ublmwa<ncsghf预不最])"
_CUE_NUM_RE = _rx(
    _CUE_FIRST
    + _CUE_RE
    # (possessive: a blanked name's run of spaces after "for" is not tried again at every split of it;
    # no split can end elsewhere than after the run, or after the colon and the spaces that follow it)
    + r"\s*+:?\s*+(?:(?:like|roughly|maybe|just|only)\s+)?"
    + r"(?<![a-z0-9.])"
    + _NUM
    + r"(?![a-z0-9.])"
)
# amounts in English words before a currency word: "three hundred dollars", "fifteen hundred bucks"
_EN_UNITS = {
    w: n
    for n, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
        "sixteen seventeen eighteen nineteen".split()
    )
}
_EN_TENS = {
    w: 10 * n
    for n, w in enumerate("_ _ twenty thirty forty fifty sixty seventy eighty ninety".split())
    if n >= 2
}
_EN_WORD = "|".join([*_EN_UNITS, *_EN_TENS, "hundred", "thousand", "a"])
_WORD_AMOUNT_RE = _rx(
    # bounded repeats and gaps: a run of "a a a ..." costs a few steps per position, never the whole run
    rf"\b((?:{_EN_WORD})(?:[\s-]{{1,3}}(?:and[\s-]{{1,3}})?(?:{_EN_WORD})){{0,6}})\s{{1,3}}"
    r"(dollars?|bucks?|usd|euros?|eur|pounds?|quid|gbp)\b"
)
_WORD_CODES = {"euro": "EUR", "eur": "EUR", "pound": "GBP", "quid": "GBP", "gbp": "GBP"}


def _word_amount(words: str) -> float | None:
    """ "three hundred" -> 300, "fifteen hundred" -> 1500, "two thousand five hundred" -> 2500;
    None without a hundred/thousand or a tens word ("one dollar" is not a budget)."""
    total = current = 0
    scaled = False
    for w in re.split(r"[\s-]+", words):
        if w in ("and", ""):
            continue
        if w == "a":
            current = current or 1
        elif w in _EN_UNITS:
            current += _EN_UNITS[w]
        elif w in _EN_TENS:
            current += _EN_TENS[w]
            scaled = True
        elif w == "hundred":
            current = (current or 1) * 100
            scaled = True
        elif w == "thousand":
            total += (current or 1) * 1000
            current = 0
            scaled = True
    value = total + current
    return float(value) if scaled and value > 0 else None


_BETWEEN_RE = _rx(r"\bbetween\s*$")
_RANGE_GAP_RE = _rx(r"^\s*(?:-|–|—|to|~|至|到|and)\s*$")


# Chinese amounts: 三万, 一万二 (12,000), 五千五 (5,500), 2万5 (25,000), 六千块钱, 四千以内
CN_AMOUNT_RE = gated_re.compile(
    r"(?<![\d.])(\d+(?:\.\d+)?|[一二两兩三四五六七八九十]{1,3})\s*(万|萬|千)"
    r"(?:([一二两兩三四五六七八九])|(\d)(?![\d.]))?(?![万萬千百])"
)

# what a Chinese-numeral amount counts when it is not money: "一万条数据", "两万步", "三千张图"
CN_COUNTED_RE = gated_re.compile(
    r"\s{0,3}(?:条|个|張|张|步|轮|輪|次|小时|小時|天|样本|樣本|token|epoch|句|篇|图|圖|字|人(?!民)|用户)"
)


def _cn_number(s: str) -> float | None:
    """'3' / '2.5' / '三' / '十二' / '二十' -> the number (up to 99)."""
    if s[0].isdigit():
        return float(s)
    if s == "十":
        return 10.0
    if "十" in s:
        tens, _, ones = s.partition("十")
        return float((CN_DIGITS.get(tens, 1) if tens else 1) * 10 + (CN_DIGITS.get(ones, 0) if ones else 0))
    if len(s) == 1:
        return float(CN_DIGITS[s])
    return None


def cn_amount(m: re.Match[str]) -> float | None:
    base = _cn_number(m.group(1))
    if base is None:
        return None
    unit = 10000.0 if m.group(2) in ("万", "萬") else 1000.0
    tail = m.group(3) or m.group(4)
    extra = (CN_DIGITS[tail] if tail in CN_DIGITS else int(tail)) * unit / 10 if tail else 0.0
    return base * unit + extra


# a check before a word character, as a lookbehind from after it: "\b" there is "no word character
# before it"; "(?<![a-z])" is "no letter before it"
_AFTER_FIRST = {r"\b": r"(?<!\w.)", "(?<![a-z])": "(?<![a-z].)"}


def _symbol_alternation(syms: Sequence[str], word_start: str) -> str:
    """One regex alternation of currency symbols, grouped by first character (a flat alternation
    of ~150 symbols costs ~150 tries per position); longest first within a group. A symbol that
    starts with a letter or digit gets ``word_start`` before it, one that ends with one a ``\\b``
    after it ("c$ 1500": none after "$")."""
    groups: dict[str, list[str]] = {}
    for x in sorted(syms, key=len, reverse=True):
        groups.setdefault(x[0], []).append(x)
    out = []
    # the check before a symbol's first letter, written after that letter as a lookbehind past it
    # ("n(?<!\w.)" for "\bn"): a group then starts with its letter, which re tests before entering it
    # (a group starting with "\b" is entered at every position of the text)
    after_first = _AFTER_FIRST.get(word_start)
    for first, members in groups.items():
        alts = [re.escape(x[1:]) + (r"\b" if x[-1].isascii() and x[-1].isalnum() else "") for x in members]
        if not (first.isascii() and first.isalnum()):
            out.append(re.escape(first) + "(?:" + "|".join(alts) + ")")
        elif after_first is not None:
            out.append(re.escape(first) + after_first + "(?:" + "|".join(alts) + ")")
        else:
            out.append(word_start + re.escape(first) + "(?:" + "|".join(alts) + ")")
    # one character-class test first: most positions start no symbol at all
    firsts = "".join(sorted({re.escape(x[0]) for x in syms}))
    return f"(?=[{firsts}])(?:" + "|".join(out) + ")"


class Currencies:
    """Symbol -> currency code, from the catalog's dated rate table plus USD words."""

    def __init__(self, table: Mapping[str, Any]) -> None:
        self.table = dict(table or {})
        self.by_symbol: dict[str, list[str]] = {}
        for s in _USD_SYMBOLS:
            self.by_symbol.setdefault(s, []).append("USD")
        for code, rate in self.table.items():
            for s in (code, *getattr(rate, "symbols", ())):
                s = normalize(str(s)).strip()
                if s and code not in self.by_symbol.setdefault(s, []):
                    self.by_symbol[s].append(code)
        syms = sorted(self.by_symbol, key=len, reverse=True)
        self.known = frozenset(self.by_symbol)
        self.cjk_words = money_read.cjk_words(self.by_symbol)  # (cjk_prefixed_amounts', once)
        # Chinese/Japanese currency words only follow the amount ("5000元"); "4块4090" is four 4090s;
        # words that are English too ("try", "won", "kr") only follow it ("30000 try", not "try 2 cards")
        pre_syms = [x for x in syms if not _CJK_RE.search(x) and x not in money_read.POST_ONLY_SYMBOLS]
        self.pre = _rx("(?P<sym>" + _symbol_alternation(pre_syms, r"\b") + r")\s*" + _NUM + _MULT_RE)
        # after the amount a code may be glued to it: "1200usd", "2000rmb", "1500eur"
        self.post = _rx(
            r"(?<![a-z0-9.,])(?>"
            + _NUM
            + ")"
            + _MULT_RE
            + r"\s*(?P<sym2>"
            + _symbol_alternation(syms, "(?<![a-z])")
            + ")"
        )

    def code(self, symbol: str, cjk: bool) -> str:
        codes = self.by_symbol.get(symbol.strip(), ["USD"])
        if len(codes) > 1:
            if cjk and "CNY" in codes:
                return "CNY"
            if "JPY" in codes and not cjk:
                return "JPY"
            if "USD" in codes:
                return "USD"
        return codes[0]


_CURRENCY_CACHE: LRUCache[int, tuple[Any, Currencies]] = LRUCache(maxsize=16)  # per catalog


# the last catalog's table and its Currencies (one tuple, replaced whole): the LRU's lookup took ~1 us
_LAST_CURRENCIES: list[tuple[Any, Currencies | None]] = [(None, None)]


def currencies(catalog: Any) -> Currencies:
    table = getattr(catalog, "currencies", None) or {}
    last = _LAST_CURRENCIES[0]
    if last[0] is table and last[1] is not None:
        return last[1]
    hit = _CURRENCY_CACHE.get(id(table))
    if hit is not None and hit[0] is table:
        _LAST_CURRENCIES[0] = hit
        return hit[1]
    c = Currencies(table)
    _CURRENCY_CACHE[id(table)] = (table, c)
    _LAST_CURRENCIES[0] = (table, c)
    return c


class Budget:
    """One amount found: value, currency code, the text read, where, and whether a cue made it a budget."""

    def __init__(self, amount: float, code: str, text: str, start: int, end: int, strong: bool) -> None:
        self.amount, self.code, self.text, self.start, self.end, self.strong = (
            amount,
            code,
            text,
            start,
            end,
            strong,
        )


# what an amount without digits is written with: number words before a currency word or "grand",
# Chinese numerals before 万/千/萬 (the readers below check the rest)
_WORDS_GATE_RE = gated_re.compile(
    r"\b(?:grand|dollars?|bucks?|usd|euros?|eur|pounds?|quid|gbp)\b|[万千萬]", re.ASCII | re.IGNORECASE
)


# "2k", "1.5 grand", "3千": an amount with a multiplier (compiled once, not per question)
_MULT_AMOUNT_RE = gated_re.compile(
    r"(?<![a-z0-9.,$])" + _NUM + r"\s*(k|grand|thousand|千|万)(?![a-z0-9])", re.ASCII
)
# "5000以内": an amount said as a limit in Chinese
_CN_LIMIT_AMOUNT_RE = gated_re.compile(r"(?<![a-z0-9.])" + _NUM + r"(?=\s*(?:以内|以下|左右|之内))", re.ASCII)


def read(
    masked: str,
    cur: Currencies,
    cjk: bool,
    unknown: list[tuple[str, str]] | None = None,
    raw: str | None = None,
) -> list[Budget]:
    out: list[Budget] = []
    if not DIGIT_RE.search(masked) and not _WORDS_GATE_RE.may_match(masked):
        return out  # (blanking the sizes below only takes characters away: it cannot add an amount)
    text = _SIZE_MASK_RE.sub(lambda m: " " * len(m.group()), masked)
    if not DIGIT_RE.search(text) and not _WORDS_GATE_RE.search(text):
        return out  # no digit, no number word or Chinese numeral: no amount (most questions, once names are blanked)

    def mult(g: str | None) -> float:
        return MULT.get((g or "").strip(), 1.0)

    # an amount in a currency the rate table lacks is said (``unknown``), never read as dollars
    for code, s, e in money_read.unknown_currencies(text, raw, cur.known):
        if unknown is not None:
            unknown.append((code, text[s:e].strip()))
        text = _blank(text, s, e)
    # "½k" (NFKC "1⁄2k") and "1/2k" are $500, not $2,000
    for frac, s, e in money_read.fractions(text):
        out.append(Budget(frac, "USD", text[s:e].strip(), s, e, True))
        text = _blank(text, s, e)

    if "INR" in cur.table:  # "₹1,00,000": Indian grouping
        for rupees, s, e in money_read.lakh_amounts(text):
            out.append(Budget(rupees, "INR", text[s:e].strip(), s, e, True))
            text = _blank(text, s, e)
    for m in cur.pre.finditer(text):
        amount = _num(m.group(2)) * mult(m.group(3))
        code = cur.code(m.group("sym"), cjk)
        if code == "CNY" and "JPY" in cur.table and money_read.yen_hint(text, m.end()):
            code = "JPY"  # "¥200000 (yen)"
        out.append(Budget(amount, code, m.group().strip(), m.start(), m.end(), True))
        text = _blank(text, m.start(), m.end())
    for m in cur.post.finditer(text):
        amount = _num(m.group(1)) * mult(m.group(2))
        out.append(
            Budget(amount, cur.code(m.group("sym2"), cjk), m.group().strip(), m.start(), m.end(), True)
        )
        text = _blank(text, m.start(), m.end())
    for m in _WORD_AMOUNT_RE.finditer(text):
        value = _word_amount(m.group(1))
        if value is not None:
            code = _WORD_CODES.get(m.group(2).rstrip("s"), "USD")
            out.append(Budget(value, code, m.group().strip(), m.start(), m.end(), True))
            text = _blank(text, m.start(), m.end())
    for m in _WORD_GRAND_RE.finditer(text):
        n = {"a": 1, "one": 1}.get(m.group(1)) or _WORD_NUM.get(m.group(1), 1)
        out.append(Budget(1000.0 * n, "USD", m.group(), m.start(), m.end(), True))
        text = _blank(text, m.start(), m.end())
    if cjk:  # "港币8000", "预算台币25000": a Chinese currency word before digits
        for amount, code, s, e in money_read.cjk_prefixed_amounts(text, cur.by_symbol, cur.cjk_words):
            out.append(Budget(amount, code, text[s:e].strip(), s, e, True))
            text = _blank(text, s, e)
        for m in CN_AMOUNT_RE.finditer(text):
            value = cn_amount(m)
            if value is None or CN_COUNTED_RE.match(text, m.end()):
                continue  # "一万条数据" counts samples, not yuan
            after = text[m.end() : m.end() + 6]
            usd = re.match(r"\s*(?:美元|美金|刀|usd|dollars?)", after)
            code = "USD" if usd or "CNY" not in cur.table else "CNY"
            near = money_read.cjk_currency_near(text, m.start(), m.end(), cur.by_symbol)
            if near is not None and not usd:  # "一千英镑", "新台币三万", "五万台币"
                code = near
            out.append(Budget(value, code, m.group().strip(), m.start(), m.end(), True))
            text = _blank(text, m.start(), m.end())
    for m in _MULT_AMOUNT_RE.finditer(text):
        if m.group(2) in ("千", "万") and CN_COUNTED_RE.match(text, m.end()):
            continue  # "2万条样本" counts samples
        code = "CNY" if (cjk and m.group(2) in ("千", "万") and "CNY" in cur.table) else "USD"
        out.append(
            Budget(_num(m.group(1)) * mult(m.group(2)), code, m.group().strip(), m.start(), m.end(), True)
        )
        text = _blank(text, m.start(), m.end())
    for v, s, e, _cn in money_read.per_card_amounts(text):  # "800 each", "每张800": a budget per card
        code = "CNY" if (cjk and "CNY" in cur.table) else "USD"
        out.append(Budget(v, code, text[s:e].strip(), s, e, True))
        text = _blank(text, s, e)
    for m in _CUE_NUM_RE.finditer(text):
        if _UNIT_AFTER_RE.match(text[m.end() :]):
            continue
        v = _num(m.group(1))
        cue = m.group()[: m.start(1) - m.start()].split()[0] if m.start(1) > m.start() else ""
        if v < 20 or (cue in ("for", "have", "got", "about", "around") and v < 100):
            continue
        code = "CNY" if (cjk and "CNY" in cur.table) else "USD"
        out.append(Budget(v, code, m.group(1), m.start(1), m.end(), cue.startswith("预算")))
    if not text.isascii():  # (its Chinese words sit in a lookahead, which the literal check does not read)
        for m in _CN_LIMIT_AMOUNT_RE.finditer(text):
            code = "CNY" if "CNY" in cur.table else "USD"
            out.append(Budget(_num(m.group(1)), code, m.group(1), m.start(), m.end(), True))
    out.sort(key=lambda b: b.start)
    return out


def pick(found: list[Budget], masked: str) -> Budget | None:
    if not found:
        return None
    if len(found) >= 2:
        for a, b in zip(found, found[1:], strict=False):
            if _RANGE_GAP_RE.match(masked[a.end : b.start]) or _BETWEEN_RE.search(masked[: a.start]):
                return b if b.amount >= a.amount else a
    return found[0]


_MONEY_BEFORE_RE = _rx(
    r"(?:\bunder|\bbelow|\bless than|\bmax(?:imum)?|\bup ?to|\bwithin|\bbudget(?:\s+(?:of|is|around|about|at))?|"
    r"<=?|\bat most|\bno more than|预算(?:是|为|有)?|不超过|最多|预算[^\d，,。]{1,6})\s*:?\s*$"
)


def is_money(mn: Mention, norm: str, cur: Currencies) -> bool:
    """A bare card number that is really an amount: "¥8000", "6000 euros", "under 8000"."""
    if mn.kind != "gpu" or not mn.text.strip().isdigit():
        return False
    for rx in (cur.pre, cur.post):
        for m in rx.finditer(norm, max(0, mn.start - 6), min(len(norm), mn.end + 16)):
            if m.start() <= mn.start and m.end() >= mn.end:
                return True
    if _MONEY_BEFORE_RE.search(norm[max(0, mn.start - 30) : mn.start]):
        return True
    # "港币8000": right after a Chinese currency word
    return bool(
        money_read.cjk_prefixed_amounts(norm[max(0, mn.start - 6) : mn.end + 2], cur.by_symbol, cur.cjk_words)
    )


def settle(
    budget: Budget,
    masked: str,
    cur: Currencies,
    num_gpus: int | None,
    notes: list[Note],
    oor: list[OutOfRange],
) -> float | None:
    """The budget in dollars: converted with the dated rate (said in a note), range-checked (10^309
    dollars, or a rate that makes it absurd, is said and not used), and multiplied by the card
    count when it is per card ("800 each", "two cards at most $700 each", "每张800")."""
    usd: float | None = None
    if budget.code == "USD":
        usd = budget.amount
    else:
        rate = cur.table.get(budget.code)
        if rate is None:
            notes.append(note(NoteCode.BUDGET_NO_RATE, text=budget.text, code=budget.code))
            return None
        usd = round(budget.amount * float(rate.usd_per_unit), 2)
        notes.append(
            note(
                NoteCode.BUDGET_CONVERTED,
                text=budget.text,
                amount=budget.amount,
                code=budget.code,
                usd=usd,
                date=rate.date,
                rate=float(rate.usd_per_unit),
                estimated=bool(getattr(rate, "estimated", False)),
            )
        )
    bad = out_of_range("budget_usd", usd, budget.text)
    if bad is not None:
        oor.append(bad)
        notes[:] = [n for n in notes if n.code is not NoteCode.BUDGET_CONVERTED]
        return None
    if money_read.is_per_card(masked, budget.start, budget.end):
        usd, per_note = money_read.per_card_total(usd, num_gpus, budget.text)
        bad = out_of_range("budget_usd", usd, budget.text)
        if bad is not None:
            oor.append(bad)
            return None
        notes.append(note(NoteCode.BUDGET_PER_CARD, **per_note))
    return usd
