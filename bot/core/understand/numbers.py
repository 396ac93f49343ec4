"""Numbers about the workload: sequence length, image resolution, batch size and card counts.

Each reader takes the masked question, returns its value and the text with what it read blanked;
a value past what the engine accepts is reported in ``oor`` (:mod:`bot.core.limits`), never
dropped silently ("batch 1000001", "1025x h100", "seq 10 million").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from bot.core.limits import OutOfRange, check_number
from bot.core.matching import Mention
from bot.core.numerals import COUNT_WORDS
from bot.core.understand.text import blank as _blank
from bot.core.understand.text import rx as _rx

__all__ = ["WORD_NUM", "batch", "counts", "out_of_range", "resolution", "seq_len"]

# image side: "at 1024px", "768 pixels", "1024x1024", "1024×768"
_RES_RE = _rx(r"\b(\d{3,4})\s*(?:px\b|pixels?\b|[x×*]\s*(\d{3,4})\b)")
# a side in pixels too small or too large to be one ("20000px"): reported, not used
_RES_ODD_RE = _rx(r"\b(\d{1,2}|\d{5,9})\s*(?:px|pixels?)\b")

# a multiple after the number: "8k" tokens are 8,192; "10 million", "1m"; 万 and 亿 in Chinese
_SEQ_UNIT = r"(k|m(?:il(?:lion)?)?\b|million|万|亿)?"
_CN_NUM = r"([一二两三四五六七八九十]{1,3})\s*(千|万|亿)"
_SEQ_RES = (
    _rx(
        r"\b(?:seq(?:uence)?|max)?[\s_-]*(?:len(?:gth)?|seq(?:uence)?)\s*(?:of|=|:|is|to)?\s*(\d+(?:\.\d+)?)\s*"
        + _SEQ_UNIT
        + r"\b"
        r"|\bcontext(?:[\s-](?:length|window|size|len))?\s*(?:of|=|:|is|to)?\s*(\d+(?:\.\d+)?)\s*"
        + _SEQ_UNIT
        + r"\b"
        r"|\bctx\s*(?:=|:)?\s*(\d+(?:\.\d+)?)\s*" + _SEQ_UNIT + r"\b"
        # "a 2 million token context", "10m context": a multiple before the word context
        r"|\b(\d+(?:\.\d+)?)\s*(m(?:il(?:lion)?)?|million)[\s-]*(?:tokens?[\s-]+)?(?:context|ctx)\b"
        r"|(?:上下文|序列长度|長度|长度)\s*(\d+(?:\.\d+)?)\s*"
        + _SEQ_UNIT
        + r"|(?:上下文|序列长度|長度|长度)\s*"
        + _CN_NUM
    ),
    _rx(
        r"\b(\d+(?:\.\d+)?)\s*(k)?[\s-]*(?:tokens?|toks?|ctx|context|seq(?:uence)?s?(?: length)?)\b|(?<![0-9.])(\d+(?:\.\d+)?)\s*(k)?\s*(?:上下文|token)"
    ),
)
_SEQ_MULT = {"k": 1024.0, "m": 1e6, "mil": 1e6, "million": 1e6, "千": 1000.0, "万": 1e4, "亿": 1e8}


def _seq_value(num: str, unit: str | None) -> float:
    """ "8" + "k" -> 8,192; "10" + "million" -> 10,000,000; "一" + "亿" -> 100,000,000."""
    if num[0].isdigit():
        base = float(num)
    else:
        base = float(_cn_small(num))
    return base * _SEQ_MULT.get(unit or "", 1.0)


def _cn_small(s: str) -> int:
    """一..九十九 written in Chinese digits."""
    from bot.core.numerals import CN_DIGITS

    if "十" in s:
        tens, _, ones = s.partition("十")
        return (CN_DIGITS.get(tens, 1) if tens else 1) * 10 + (CN_DIGITS.get(ones, 0) if ones else 0)
    return CN_DIGITS.get(s, 0) if len(s) == 1 else 0


_BATCH_RES = (
    _rx(
        r"\b(?:micro[\s-]?)?(?:mini[\s-]?)?batch(?:[\s_-]?size)?\s*(?:of|=|:|is|to|at)?\s*(\d+)\b|\bbs\s*(?:=|:|of)?\s*(\d+)\b"
        r"|(?:批大小|批量|批次)\s*(?:改成|改为|改到|设为|设成|=)?\s*(\d+)"
    ),
    _rx(r"\b(\d+)\s*(?:samples|images|sequences)?\s*(?:per|a|each)\s*batch\b|\b(\d+)[\s-]*batch\b"),
)
WORD_NUM = COUNT_WORDS  # bot.core.numerals: one table
_WORDS = r"one|single|two|dual|double|three|triple|four|quad|five|six|seven|eight|ten|twelve|sixteen"
_COUNT_BEFORE_RE = _rx(
    r"(?:\b(\d{1,4})\s*(?:x|×|\*)\s*|\b(\d{1,3})\s+(?:of\s+)?(?:the\s+)?|"
    rf"\b(?:a\s+)?(pair) of\s+(?:the\s+)?|\b({_WORDS})(?:[\s-]+(?:of\s+)?(?:the\s+)?|\s*x\s*)|"
    r"(\d{1,9}|[一两二双三四五六八十])\s*(张|块|个|卡)?\s*)$"
)
# what every match of _COUNT_BEFORE_RE (anchored at the end) ends with before its spaces: a digit,
# "x" / "×" / "*" / "-", a count word, "of", "the", a Chinese numeral or 张 / 块 / 个 / 卡
_COUNT_END_WORDS = frozenset(_WORDS.split("|")) | {"of", "the"}
_COUNT_END_CHARS = frozenset("x×*-一两二双三四五六八十张块个卡")


def _may_end_in_count(head: str) -> bool:
    """False only when ``_COUNT_BEFORE_RE`` cannot match ``head`` (a few string tests: the search
    tries its five branches at each of the 40 characters, ~2 us a card named)."""
    h = head.rstrip()
    if not h:
        return False
    c = h[-1]
    if c.isdigit() or c in _COUNT_END_CHARS:
        return True
    i = len(h)  # the lower-case ASCII word it ends with (the pattern's words; "块two" ends with "two")
    while i > 0 and "a" <= h[i - 1] <= "z":
        i -= 1
    return h[i:] in _COUNT_END_WORDS


_COUNT_AFTER_RE = _rx(
    r"^(?:s|'s)?\s*(?:x|×|\*)\s*(\d{1,4})\b|^(?:s|'s)?\s*(?:(?:cards?|gpus?)\s*)?[x×]\s*(\d{1,4})\b"
)
_COUNT_GPUS_RE = _rx(
    rf"\b(\d{{1,4}}|{_WORDS})(?:\s*x)?[\s-]*(?:gpus?|cards?|graphics cards|of them|of those)\b|\bmulti[\s-]?gpu\b|"
    r"(?<![\d.,])(\d{1,3}|[两二双三四五六八十])\s*(?:张|块)\s*(?:卡|显卡)?|双卡|四卡|八卡"
)


def seq_len(masked: str, oor: list[OutOfRange] | None = None) -> tuple[int | None, str]:
    for rx in _SEQ_RES:
        for m in rx.finditer(masked):
            groups = m.groups()
            for k in range(0, len(groups), 2):
                if groups[k]:
                    v = _seq_value(groups[k], groups[k + 1])
                    if v >= 16 or groups[k + 1]:
                        return _taken("seq_len", v, m, masked, oor)
    return None, masked


def _taken(
    field: str, v: float, m: re.Match[str], masked: str, oor: list[OutOfRange] | None
) -> tuple[int | None, str]:
    """The value read at ``m`` (blanked either way), or None with the out-of-range reported."""
    bad = out_of_range(field, v, m.group().strip())
    if bad is not None and oor is not None:
        oor.append(bad)
    return (int(v) if bad is None else None), _blank(masked, m.start(), m.end())


def out_of_range(field: str, value: float, text: str) -> OutOfRange | None:
    return check_number(field, value, text)


def resolution(masked: str, oor: list[OutOfRange] | None = None) -> tuple[int | None, str]:
    """Image side in pixels; a w x h pair becomes the side of the same pixel count."""
    m = _RES_RE.search(masked)
    if m is None:
        odd = _RES_ODD_RE.search(masked)
        if odd is not None and oor is not None:
            bad = out_of_range("resolution", int(odd.group(1)), odd.group().strip())
            if bad is not None:
                oor.append(bad)
                return None, _blank(masked, odd.start(), odd.end())
        return None, masked
    w = int(m.group(1))
    h = int(m.group(2)) if m.group(2) else w
    for side in (w, h):
        bad = out_of_range("resolution", side, m.group().strip())
        if bad is not None:
            if oor is not None:
                oor.append(bad)
            return None, _blank(masked, m.start(), m.end())
    return int(round((w * h) ** 0.5)), _blank(masked, m.start(), m.end())


def batch(masked: str, oor: list[OutOfRange] | None = None) -> tuple[int | None, str]:
    for rx in _BATCH_RES:
        for m in rx.finditer(masked):
            g = next((x for x in m.groups() if x), None)
            if g is not None:
                v = float(g) if len(g) > 18 else int(g)  # a 300-digit "batch" is not parsed as an int
                return _taken("batch_size", v, m, masked, oor)
    return None, masked


def counts(
    masked: str,
    gpu_mentions: Sequence[Mention],
    per: dict[int, int],
    oor: list[OutOfRange] | None = None,
    loose: bool = True,
) -> tuple[int | None, str]:
    """The card count ("2x 3090", "two 4090s", "dual"), first one found; ``per`` gets each
    card mention's own count (by mention start) for comparisons like "2x 3090 vs 4090".
    ``loose``: a count said apart from any card ("2 gpus") counts too when no card has its own."""
    found: int | None = None
    for mn in gpu_mentions:
        head = masked[max(0, mn.start - 40) : mn.start]
        m = _COUNT_BEFORE_RE.search(head) if _may_end_in_count(head) else None
        if m:
            raw = next((x for x in m.groups() if x), None)
            if raw is not None:
                v = WORD_NUM.get(raw) if not raw.isdigit() else int(raw)
                # a bare number before a card is a count only when small ("8 h100s", not "2000 4090")
                # ("100张4090" has its unit: a count)
                bare = m.group(2) is not None or (
                    m.group(5) is not None and m.group(5).isdigit() and m.group(6) is None
                )
                if v and 1 <= v <= (64 if bare else 1024):
                    off = mn.start - len(head)
                    masked = _blank(masked, off + m.start(), off + m.end())
                    found = found or v
                    per[mn.start] = v
                    continue
                if v is not None and oor is not None and (m.group(1) is not None or m.group(6) is not None):
                    # "2000x 4090", "1000000张4090": a count, absurd
                    oor.append(OutOfRange("num_gpus", m.group().strip(), 1.0, 1024.0))
                    off = mn.start - len(head)
                    masked = _blank(masked, off + m.start(), off + m.end())
                    continue
        tail = masked[mn.end : mn.end + 20]
        m2 = _COUNT_AFTER_RE.search(tail)
        if m2:
            v = int(next(x for x in m2.groups() if x))
            if 1 <= v <= 1024:
                masked = _blank(masked, mn.end + m2.start(), mn.end + m2.end())
                found = found or v
                per[mn.start] = v
            elif oor is not None:  # "4090 x 0", "4090 x 2000"
                oor.append(OutOfRange("num_gpus", m2.group().strip(), 1.0, 1024.0))
                masked = _blank(masked, mn.end + m2.start(), mn.end + m2.end())
    if found is None and loose:
        m = _COUNT_GPUS_RE.search(masked)
        if m and m.group(0) and not m.group(0).startswith("multi"):
            raw = m.group(1) or m.group(2)
            if raw is None:
                raw = m.group(0)[0]
            v = int(raw) if raw.isdigit() else WORD_NUM.get(raw)
            money = any(c in "$€£¥₹₩" for c in masked[max(0, m.start() - 2) : m.start()])
            if v and 1 <= v <= 64 and not money:
                found = v
                masked = _blank(masked, m.start(), m.end())
            elif v is not None and (v < 1 or v > 1024) and not money and oor is not None:
                oor.append(OutOfRange("num_gpus", m.group().strip(), 1.0, 1024.0))
                masked = _blank(masked, m.start(), m.end())
    return found, masked
