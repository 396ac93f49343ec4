"""Money as people write it, the parts the budget reader in :mod:`bot.core.parsing` asks about.

Pure functions of the normalised question text; nothing here imports the parser,
so :mod:`bot.core.parsing` can import it at module level.

- :func:`fractions`: "½k" (NFKC makes it "1⁄2k"), "1/2k", "half a grand" -> 500.
- :func:`unknown_currencies`: an amount written with a currency the rate table does
  not have ("3000 dinars", "₪2000", "S$ 900", "500 XYZ" with an ISO 4217 code) is
  said, never read as dollars. Codes and names come from ISO 4217 (the list below,
  https://www.iso.org/iso-4217-currency-codes.html, checked 2026-12); codes that are
  also English words or units ("all", "top", "cup", "gel", "mad", "pen", ...) count
  only when typed in capitals.
- :func:`per_card_after` / :func:`per_card_before`: "800 each", "$800 per card",
  "每张800", "单卡预算800": the budget is per card (total = each x count).
- :func:`per_card_amounts`: amounts that are budgets only because they are per card
  ("800 each", "每张800", "单卡5000").
"""

from __future__ import annotations

import re

from bot.core import gated_re
from bot.core.understand.text import DIGIT_RE

__all__ = [
    "NUM",
    "fractions",
    "unknown_currencies",
    "per_card_after",
    "per_card_before",
    "per_card_amounts",
    "POST_ONLY_SYMBOLS",
]

# the parser's amount pattern ("1,200", "2,5", "1200.50"), repeated so this module stands alone
NUM = r"(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+,\d{1,2}(?![\d,])|\d+(?:\.\d+)?)"

#: currency words that are English words too: read only after an amount ("30000 try", "1,500,000 won")
POST_ONLY_SYMBOLS = frozenset({"try", "won", "kr", "tl", "rub", "real", "reais", "lira", "rand"})

_FRACTION_RE = gated_re.compile(
    r"(?<![\d.,/⁄])(\d{1,2})\s*[/⁄]\s*(\d{1,2})\s*(k|grand|thousand|千|万)(?![a-z0-9])"
    r"|\bhalf\s+a\s+(k|grand|thousand)\b",
    re.ASCII | re.IGNORECASE,
)
_MULT = {"k": 1000.0, "grand": 1000.0, "thousand": 1000.0, "千": 1000.0, "万": 10000.0}


def fractions(text: str) -> list[tuple[float, int, int]]:
    """(value, start, end) for "1/2k", "½k" (NFKC "1⁄2k"), "3/4 grand", "half a k"; a zero
    denominator or a fraction over 1 is not an amount people write, and is skipped."""
    out: list[tuple[float, int, int]] = []
    for m in _FRACTION_RE.finditer(text):
        if m.group(4):
            out.append((500.0, m.start(), m.end()))
            continue
        num, den = int(m.group(1)), int(m.group(2))
        if den == 0 or num == 0 or num >= den:
            continue
        out.append((round(num / den * _MULT[m.group(3).lower()], 2), m.start(), m.end()))
    return out


# ISO 4217 active codes (2026), less the ones the rate table may hold; checked against it at run time
_ISO_4217 = (
    "aed afn all amd ang aoa ars aud awg azn bam bbd bdt bgn bhd bif bmd bnd bob brl bsd btn bwp byn bzd "
    "cad cdf chf clp cny cop crc cup cve czk djf dkk dop dzd egp ern etb eur fjd fkp gbp gel ghs gip gmd "
    "gnf gtq gyd hkd hnl htg huf idr ils inr iqd irr isk jmd jod jpy kes kgs khr kmf kpw krw kwd kyd kzt "
    "lak lbp lkr lrd lsl lyd mad mdl mga mkd mmk mnt mop mru mur mvr mwk mxn myr mzn nad ngn nio nok npr "
    "nzd omr pab pen pgk php pkr pln pyg qar ron rsd rub rwf sar sbd scr sdg sek sgd shp sle sos srd ssp "
    "stn svc syp szl thb tjs tmt tnd top try ttd twd tzs uah ugx usd uyu uzs ves vnd vuv wst xaf xcd xof "
    "xpf yer zar zmw zwg"
).split()
# codes that are English words, units or common abbreviations: only when typed in capitals
_ISO_WORDLIKE = frozenset(
    "all amd bob cup gel mad pen top ils lak mop sos std bam cad gip nad ern mga kes mur ves "
    "bif mdl srd yer gmd dop php cop sar ron jod lsl".split()
)
# capitals after a number that are not money ("24 GB", "2 GPU", "4 LLM", "350 TDP")
_NOT_CURRENCY = frozenset(
    "gpu gpus cpu ram tdp fps ssd hdd psu llm tps gib tib mib pcs fp8 fp4 bit api mhz ghz nvl sxm pci "
    "gen max min avg req rps qps tok img dpi rpm mac amd pro ada ram hbm sli usb".split()
)
# currency names people write after an amount that the rate table may lack (plurals listed)
_CURRENCY_WORDS = frozenset(
    "dinar dinars dirham dirhams peso pesos baht ringgit ringgits rupiah rupiahs shekel shekels sheqel "
    "sheqels forint forints koruna korunas koruny lei leu naira nairas dong riyal riyals rial rials hryvnia "
    "hryvnias hryvnya hryvnyas tenge lari taka takas kwacha kwachas cedi cedis shilling shillings soles colon "
    "colons colones lempira lempiras quetzal quetzals quetzales bolivar bolivars bolivares guarani guaranis "
    "lev leva manat manats som soms dram drams afghani afghanis kyat kyats kip kips riel riels birr birrs "
    "rands franc francs".split()
)
_CURRENCY_CJK = (
    "迪拉姆", "第纳尔", "比索", "泰铢", "林吉特", "印尼盾", "谢克尔", "福林", "越南盾", "里亚尔",
    "格里夫纳", "坚戈", "兰特", "瑞尔", "新加坡元", "新币", "马币",
)  # fmt: skip
_UNKNOWN_SYMBOLS = "₪|₫|₱|₴|฿|₦|₸|₭|₮|₲|₡|₵|₼|₾|﷼|৳|₨"
_UNKNOWN_SYMBOL_SET = frozenset(_UNKNOWN_SYMBOLS.split("|"))
# the amount is atomic ("(?>...)"): a run of digits is not re-tried at every shorter length; the
# word after it is any run of letters, checked against the lists above in Python
_NAME_AFTER_RE = gated_re.compile(
    r"(?<![a-z0-9.,])(?>" + NUM + r")(?:\s*(?:(k|grand|thousand)(?![^\W\d_])|(千|万)))?\s*"
    r"(?P<cur>(?>[^\W\d_\u4e00-\u9fff]+)(?![\w])|[\u4e00-\u9fff]{2,5}|" + _UNKNOWN_SYMBOLS + ")",
    re.IGNORECASE,
)
_SYMBOL_BEFORE_RE = gated_re.compile(
    r"(?P<cur>"
    + _UNKNOWN_SYMBOLS
    + r"|(?<![a-z0-9$])[a-z]{1,3}\$)\s*"
    + NUM
    + r"(?:\s*(k|grand|thousand))?(?![a-z0-9])",
    re.IGNORECASE,
)
_CODE_AFTER_RE = gated_re.compile(
    r"(?<![a-z0-9.,])(?>" + NUM + ")" + r"(?:\s*(k|grand|thousand))?\s*(?P<cur>[a-z]{3})(?![a-z0-9])",
    re.IGNORECASE,
)
_CODE_BEFORE_RE = gated_re.compile(
    r"(?<![a-z0-9])(?P<cur>[a-z]{3})\s*" + NUM + r"(?![a-z0-9])", re.IGNORECASE
)


# what a match of each reader below needs for unknown_currencies to keep it (checked before its scan;
# each reads every amount of a question that has a digit, and most have none of these):
# a currency word, symbol or Chinese currency word (_NAME_AFTER_RE) ...
_NAME_GATE = gated_re.literal_check(
    "|".join(re.escape(x) for x in sorted({*_CURRENCY_WORDS, *_UNKNOWN_SYMBOL_SET, *_CURRENCY_CJK})),
    re.IGNORECASE,
)
# ... an unknown symbol, or letters glued to "$" ("r$", "nt$") (_SYMBOL_BEFORE_RE) ...
_LETTER_DOLLAR_RE = gated_re.compile(r"[a-z]\$", re.IGNORECASE)  # (the letter as that pattern reads it)


def _SYMBOL_GATE(text: str) -> bool:  # noqa: N802 - a check named like the patterns it stands beside
    if "$" in text and _LETTER_DOLLAR_RE.search(text) is not None:
        return True
    return not text.isascii() and any(s in text for s in _UNKNOWN_SYMBOL_SET)


# ... an ISO code with no letter after it and none before it but the "k" / "d" of "5k", "2 grand"
# (_CODE_AFTER_RE, _CODE_BEFORE_RE: "dollars" holds "ars", which neither reads). Searched in the
# lowered text, case-sensitive: a code's letters lower to ASCII ("usd", "USD", the Kelvin sign's "k"),
# and a letter next to it that the IGNORECASE scans read as a letter is one after lower() too; each
# group starts with its letter and checks the one before it after it, so re skips the groups whose
# letter is not there (the codes grouped by first letter, "a(?<!...)(?:ed|fn|...)|b...")
_ISO_BY_FIRST: dict[str, list[str]] = {}
for _code in _ISO_4217:
    _ISO_BY_FIRST.setdefault(_code[0], []).append(_code[1:])
_ISO_WORD_RE = gated_re.compile(
    "(?:"
    + "|".join(f"{a}(?<![a-ce-jl-z].)(?:{'|'.join(rest)})" for a, rest in sorted(_ISO_BY_FIRST.items()))
    + r")(?![a-z])"
)


def unknown_currencies(
    norm: str, raw: str | None, known: frozenset[str] | set[str]
) -> list[tuple[str, int, int]]:
    """(currency as written, start, end) for each amount in a currency outside ``known``
    (lower-case symbols and codes of the rate table). ``raw`` (same length as ``norm``, or None)
    tells capitals: an ISO code that is also a word counts only in capitals."""
    if not DIGIT_RE.search(norm):
        return []
    out: list[tuple[str, int, int]] = []

    def cur_ok(word: str, start: int) -> bool:
        w = word.lower()
        if w in known:
            return False
        if w in _ISO_WORDLIKE:
            return raw is not None and raw[start : start + len(word)].isupper()
        return True

    for m in _NAME_AFTER_RE.finditer(norm) if _NAME_GATE(norm) else ():
        cur = m.group("cur")
        low = cur.lower()
        if low in known:
            continue
        if low in _CURRENCY_WORDS or low in _UNKNOWN_SYMBOL_SET:
            out.append((cur, m.start(), m.end()))
            continue
        cjk = next((x for x in _CURRENCY_CJK if low.startswith(x)), None)
        if cjk is not None and cjk not in known:
            out.append((cjk, m.start(), m.start("cur") + len(cjk)))
    for m in _SYMBOL_BEFORE_RE.finditer(norm) if _SYMBOL_GATE(norm) else ():
        cur = m.group("cur")
        if cur.lower() not in known:
            out.append((cur, m.start(), m.end()))
    iso = _ISO_WORD_RE.search(norm.lower()) is not None
    capitals = raw is not None and not raw.islower()  # (three capitals after an amount, below)
    for rx in (_CODE_AFTER_RE, _CODE_BEFORE_RE):
        if not (iso or (capitals and rx is _CODE_AFTER_RE)):
            continue
        for m in rx.finditer(norm):
            cur = m.group("cur")
            if cur.lower() in _ISO_4217 and cur_ok(cur, m.start("cur")):
                out.append((cur.upper(), m.start(), m.end()))
            elif (  # "500 XYZ": three capitals after an amount read as a currency code nobody listed
                rx is _CODE_AFTER_RE
                and raw is not None
                and raw[m.start("cur") : m.end("cur")].isupper()
                and cur.lower() not in known
                and cur.lower() not in _NOT_CURRENCY
            ):
                out.append((cur.upper(), m.start(), m.end()))
    out.sort(key=lambda x: x[1])
    dedup: list[tuple[str, int, int]] = []
    for x in out:
        if not dedup or x[1] >= dedup[-1][2]:
            dedup.append(x)
    return dedup


_PER_CARD_AFTER_RE = gated_re.compile(
    r"^\s*(?:(?:usd|dollars?|euros?|bucks)\s*)?(?:each|apiece|a piece|per\s+(?:card|gpu|unit|piece)|"
    r"an?\s+(?:card|gpu)|/\s*(?:card|gpu)|for\s+each(?:\s+(?:card|gpu|one))?|"
    r"每张|每块|一张|一块)(?![a-z])",
    re.IGNORECASE,
)
_PER_CARD_BEFORE_RE = gated_re.compile(
    r"(?:\beach\s+(?:card|gpu|one)(?:\s+(?:at|for|under|below|costs?|is))?|\bper[\s-](?:card|gpu)(?:\s+budget)?|"
    r"每张(?:卡|显卡)?|每块(?:卡|显卡)?|单卡|单张(?:卡)?|一张(?:卡)?)"
    r"\s*(?:(?:预算|budget)\s*)?(?:(?:是|为|在|不超过|最多|:)\s*)?(?:(?:under|below|at most|max|up to|of|<=?)\s*)?"
    r"(?:[$€£¥]\s*)?$",
    re.IGNORECASE,
)


def per_card_after(text: str, end: int) -> bool:
    """ "800 each", "$800 per card", "700 a card": the words right after an amount."""
    return bool(_PER_CARD_AFTER_RE.match(text[end : end + 24]))


def per_card_before(text: str, start: int) -> bool:
    """ "each card under 800", "每张800", "单卡预算5000": the words right before an amount."""
    return bool(_PER_CARD_BEFORE_RE.search(text[max(0, start - 30) : start]))


_PER_CARD_NUM_RE = gated_re.compile(
    r"(?:(?<![a-z0-9.,$])" + NUM + r"(?:\s*(k|grand)\b)?"
    r"(?=\s*(?:(?:usd|dollars?|bucks)\s*)?(?:each|apiece|per\s+(?:card|gpu)|/\s*(?:card|gpu))\b))"
    r"|(?:(?:每张|每块|单卡|单张)(?:卡|显卡)?\s*(?:预算\s*)?(?:(?:是|为|在|不超过|最多)\s*)?"
    + NUM
    + r"(?:\s*(千|万))?)",
    re.IGNORECASE,
)


def per_card_amounts(text: str) -> list[tuple[float, int, int, bool]]:
    """(amount, start, end, chinese) for amounts that read as a per-card budget without any other
    cue ("800 each", "1.2k per card", "每张800", "单卡5000"); under 20 is not an amount."""
    out: list[tuple[float, int, int, bool]] = []
    for m in _PER_CARD_NUM_RE.finditer(text):
        raw, mult, cn = (m.group(1), m.group(2), False) if m.group(1) else (m.group(3), m.group(4), True)
        try:
            v = float(raw.replace(",", "")) * _MULT.get((mult or "").lower(), 1.0)
        except ValueError:
            continue
        if v < 20:
            continue
        s = m.start(1) if not cn else m.start(3)
        out.append((v, s, m.end(), cn))
    return out


def is_per_card(text: str, start: int, end: int) -> bool:
    """The amount at ``text[start:end]`` is a per-card budget ("800 each", "每张800")."""
    return per_card_after(text, end) or per_card_before(text, start)


def per_card_total(each_usd: float, count: int | None, text: str) -> tuple[float, dict[str, object]]:
    """The total budget for ``count`` cards (one when no count was said) and the note's values."""
    n = count if count and count > 0 else 1
    total = round(each_usd * n, 2)
    return total, {
        "text": text,
        "each_usd": round(each_usd, 2),
        "count": n,
        "total_usd": total,
        "count_said": bool(count),
    }


# "₹1,00,000", "Rs 1,50,000": Indian digit grouping (lakh), read before the usual grouping would stop
# at "1,00"
_LAKH_RE = gated_re.compile(
    r"(?:(?P<sym>₹|\brs\.?|\binr)\s*(?P<a>\d{1,2}(?:,\d{2})+,\d{3})(?![\d,])"
    r"|(?<![\d,])(?P<b>\d{1,2}(?:,\d{2})+,\d{3})(?![\d,])\s*(?P<sym2>₹|inr\b|rupees?\b|rs\b))",
    re.IGNORECASE,
)


_LAKH_DIGITS_RE = gated_re.compile(r"\d,\d\d,\d")  # what every match of _LAKH_RE holds ("1,00,000")


def lakh_amounts(text: str) -> list[tuple[float, int, int]]:
    """(rupees, start, end) for amounts in Indian grouping: "₹1,00,000" is 100,000."""
    out: list[tuple[float, int, int]] = []
    if _LAKH_DIGITS_RE.search(text) is None:
        return out  # (its literal check is a comma, in many questions; its digits seldom are)
    for m in _LAKH_RE.finditer(text):
        digits = m.group("a") or m.group("b")
        out.append((float(digits.replace(",", "")), m.start(), m.end()))
    return out


_YEN_HINT_RE = gated_re.compile(r"^\s*(?:\(\s*)?(?:yen|jpy|日元|日币|円)\b", re.IGNORECASE)


def yen_hint(text: str, end: int) -> bool:
    """ "¥200000 (yen)": the user says the ¥ is yen."""
    return bool(_YEN_HINT_RE.match(text[end : end + 16]))


def cjk_currency_near(text: str, start: int, end: int, symbols: dict[str, list[str]]) -> str | None:
    """The currency written right after a Chinese amount ("一千英镑", "三万台币") or right before it
    ("新台币三万", "港币八千"): the first code of the longest symbol found; None when none is."""
    after = text[end : end + 8].lstrip()
    before = text[max(0, start - 8) : start].rstrip()
    best: tuple[int, str] | None = None
    for sym, codes in symbols.items():
        if not sym or not codes:
            continue
        if (
            after.startswith(sym) and (not sym[-1].isascii() or not after[len(sym) : len(sym) + 1].isalpha())
        ) or (before.endswith(sym) and not sym[0].isascii()):
            if best is None or len(sym) > best[0]:
                best = (len(sym), codes[0])
    return best[1] if best else None


_CJK_SYMBOL_AMOUNT_RE = gated_re.compile(
    r"([\u4e00-\u9fff]{1,4})\s*(?>" + NUM + r")(?:\s*(万|千|k\b))?(?![\d.a-z]|,\d)", re.IGNORECASE
)


def cjk_words(symbols: dict[str, list[str]]) -> tuple[tuple[str, str], ...]:
    """The Chinese currency words of ``symbols`` (symbol -> codes), longest first, each with its first
    code: what :func:`cjk_prefixed_amounts` looks for (a ``Currencies`` table keeps them, made once)."""
    # words, not unit characters: "4块4090" is four 4090s, "块" only follows an amount
    kept = {s: c for s, c in symbols.items() if len(s) >= 2 and not s.isascii() and s != "块钱"}
    return tuple((s, kept[s][0]) for s in sorted(kept, key=len, reverse=True))


def cjk_prefixed_amounts(
    text: str, symbols: dict[str, list[str]], words: tuple[tuple[str, str], ...] | None = None
) -> list[tuple[float, str, int, int]]:
    """(amount, code, start, end) for a digit amount right after a Chinese currency word:
    "港币8000", "預算台幣 2 万" (the word may end a longer run: "预算港币8000"). ``words``:
    ``cjk_words(symbols)`` when the caller keeps it."""
    out: list[tuple[float, str, int, int]] = []
    found = list(_CJK_SYMBOL_AMOUNT_RE.finditer(text))
    if not found:
        return out
    if words is None:
        words = cjk_words(symbols)
    for m in found:
        run = m.group(1)
        hit = next(((w, c) for w, c in words if run.endswith(w)), None)
        if hit is None:
            continue
        code = hit[1]
        try:
            v = float(m.group(2).replace(",", "")) * _MULT.get((m.group(3) or "").lower(), 1.0)
        except ValueError:
            continue
        sym_start = m.start(1) + len(run) - len(hit[0])
        out.append((v, code, sym_start, m.end()))
    return out
