"""Which language to answer in, and Traditional Chinese read as Simplified.

Order of precedence (issue #9): an explicit request in the text ("in
English", "用中文回答") wins; then the question's own language (any Chinese
character makes it Chinese: "4090能跑llama 3 70b吗" is Chinese); a text with
no language of its own ("2", "a6000") keeps the conversation's language;
then the surface's locale (a Discord user's zh-CN / zh-TW); then English.
Traditional characters in the question make the reply Traditional.
"""

from __future__ import annotations

import functools
import re

from bot.core import gated_re
from bot.core.types import Lang

__all__ = ["detect", "from_locale", "to_simplified", "is_traditional", "parse_lang"]

_CJK = gated_re.compile(r"[\u4e00-\u9fff\u3400-\u4dbf]")
_KANA = gated_re.compile(r"[\u3040-\u30ff]")  # Japanese kana: Chinese characters alone do not make it Chinese
_ASK_EN = gated_re.compile(
    r"\b(?:in|use|reply in|answer in|respond in|speak) english\b|英文回答|用英文|英语回答|用英語|英文回覆|說英文|说英文",
    re.I,
)
_ASK_ZH = gated_re.compile(
    r"\b(?:in|use|reply in|answer in|respond in) (?:chinese|mandarin)\b|用中文|中文回答|中文回覆|说中文|說中文|用简体|用簡體",
    re.I,
)
_ASK_HANT = gated_re.compile(r"\bin traditional chinese\b|繁體|繁体|用正體|用正体", re.I)
_WORD = gated_re.compile(r"[a-z]{2,}")
# words that make a Latin-script text English (names of cards and models are not among them)
_EN_WORDS = frozenset(
    """what which how can could should would will does do did is are was the an for with on and or about
    best good better need needs run runs running fit fits train training under below budget cheap cheaper
    cheapest buy get my me you your it its this that of to in at from much many enough faster fastest
    slower than same but if why when where who use using want please thanks ok okay yes help list compare
    more less worth cost price""".split()
)


def parse_lang(value: str | None) -> Lang | None:
    """'en' / 'zh' / 'zh-Hans' / 'zh-Hant' / 'zh-TW' ... -> Lang (None for anything else)."""
    if not value:
        return None
    v = value.strip().lower().replace("_", "-")
    if v in ("en", "english") or v.startswith("en-"):
        return Lang.EN
    if v in ("zh-hant", "zh-tw", "zh-hk", "zh-mo", "traditional"):
        return Lang.ZH_HANT
    if v in ("zh", "zh-hans", "zh-cn", "zh-sg", "chinese", "cn"):
        return Lang.ZH_HANS
    return None


def from_locale(locale: str | None) -> Lang | None:
    """A Discord locale ('zh-CN', 'zh-TW', 'en-US') as a reply language; None for other languages."""
    return parse_lang(locale)


@functools.lru_cache(maxsize=1)
def _t2s():  # type: ignore[no-untyped-def]
    import opencc

    return opencc.OpenCC("t2s")


@functools.lru_cache(maxsize=4096)
def to_simplified(text: str) -> str:
    """The text with Traditional characters written as Simplified (what the parser reads)."""
    if not _CJK.search(text):
        return text
    return str(_t2s().convert(text))


# characters OpenCC's t2s rewrites that Simplified Chinese writes as they are in names (昇腾, Huawei's
# Ascend): they alone do not make a text Traditional
_SIMPLIFIED_TOO = str.maketrans({"昇": "升"})


def is_traditional(text: str) -> bool:
    if not _CJK.search(text):
        return False
    plain = text.translate(_SIMPLIFIED_TOO)
    return to_simplified(plain) != plain


def detect(
    text: str,
    *,
    conversation: Lang | None = None,
    locale: Lang | None = None,
    forced: Lang | None = None,
) -> Lang:
    """The reply's language for ``text`` (see the module docstring for the order)."""
    cjk = bool(_CJK.search(text))
    low = text.lower()
    if cjk or "english" in low or "chinese" in low or "mandarin" in low:  # cheap gate for the requests
        if _ASK_HANT.search(text):
            return Lang.ZH_HANT
        if _ASK_EN.search(text):
            return Lang.EN
        if _ASK_ZH.search(text):
            return Lang.ZH_HANT if is_traditional(text) else Lang.ZH_HANS
    if forced is not None:
        return forced
    if cjk and not _KANA.search(text):
        if is_traditional(text):
            return Lang.ZH_HANT
        if conversation is Lang.ZH_HANT:
            return Lang.ZH_HANT  # characters shared by both scripts: keep the conversation's script
        return Lang.ZH_HANS
    if any(w in _EN_WORDS for w in _WORD.findall(low)):
        return Lang.EN
    if conversation is not None:
        return conversation
    if locale is not None:
        return locale
    return Lang.EN
