"""Message catalogs: one gettext ``.po`` file per language, keyed by message id.

The files live in ``locales/<lang>.po`` beside this module; a translator
edits them with any PO editor (msgid is the key, msgstr the sentence, with
``{name}`` placeholders). They are read once with Babel's PO reader; there
is no build step, so what is in the file is what the bot says.

Traditional Chinese is written from the Simplified catalog and converted
character by character with OpenCC (``s2tw``: Taiwan standard characters,
no phrase substitution, so 显存 stays 顯存 as people write it).
"""

from __future__ import annotations

import functools
import logging
from pathlib import Path
from typing import Any

from babel.messages.pofile import read_po

from bot.core import gated_re
from bot.core.types import Lang

__all__ = ["LOCALES_DIR", "CATALOG_LANGS", "messages", "t", "to_traditional", "placeholders"]

log = logging.getLogger(__name__)

LOCALES_DIR = Path(__file__).resolve().parent / "locales"
# the languages with a catalog of their own; zh-Hant is converted from zh-Hans
CATALOG_LANGS: dict[Lang, str] = {Lang.EN: "en", Lang.ZH_HANS: "zh_Hans"}


@functools.cache
def messages(lang: Lang) -> dict[str, str]:
    """key -> sentence for a catalog language (zh-Hant reads the zh-Hans catalog)."""
    base = Lang.ZH_HANS if lang is Lang.ZH_HANT else lang
    path = LOCALES_DIR / f"{CATALOG_LANGS[base]}.po"
    with path.open("rb") as fh:
        cat = read_po(fh, locale=CATALOG_LANGS[base].replace("_", "-").split("-")[0])
    out: dict[str, str] = {}
    for msg in cat:
        if msg.id and isinstance(msg.id, str):
            out[msg.id] = str(msg.string or "")
    return out


_TABLES: dict[Lang, dict[str, str]] = {}


def t(lang: Lang, key: str, /, **values: Any) -> str:
    """The sentence ``key`` in ``lang`` with its placeholders filled.

    A key missing from a catalog is a bug the catalog test catches; at run
    time it falls back to English rather than failing the answer.
    """
    # ~25 calls a reply: the common case (a table already read, a key it has, English) takes two
    # subscripts and one test before the format; anything else goes the long way (_lookup)
    try:
        text = _TABLES[lang][key]
    except KeyError:
        text = ""
    if not text:
        text = _lookup(lang, key)
    if lang is Lang.EN:
        return text.format(**values) if values else text
    out = _fill_cjk(text, values) if values else text
    return to_traditional(out) if lang is Lang.ZH_HANT else out


def _lookup(lang: Lang, key: str) -> str:
    """``key`` in ``lang``'s table (read on first use); a key missing (or empty) is logged and
    falls back to English, then to the key itself."""
    table = _TABLES.get(lang) or _TABLES.setdefault(lang, messages(lang))
    text = table.get(key)
    if not text:
        log.error("message %r missing in %s", key, lang)
        text = messages(Lang.EN).get(key, key)
    return text


# a filled-in value is marked while the sentence is put together, to find where it was joined
_OPEN, _CLOSE = "\x02", "\x03"
# Chinese characters and full-width punctuation ("（2024年1月） 高 10%" has no space either)
_HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3001-\u303f\uff01-\uff0f\uff1a-\uff1f\u201c\u201d"
# a space where a value joins a Chinese character on both sides: "做 {work}" + "常见任务" (the
# value ends or starts the join; spaces inside a value or a catalog sentence are left alone)
_JOIN_GAP = gated_re.compile(
    f"(?<=[{_HAN}]{_CLOSE}) +(?={_OPEN}?[{_HAN}])|(?<=[{_HAN}]) +(?={_OPEN}[{_HAN}])"
)


def _fill_cjk(text: str, values: dict[str, Any]) -> str:
    """A Chinese sentence filled in: the catalog puts a space around a placeholder for the Latin
    words it usually holds ("做 {work}" -> "做 Llama 3 8B 推理"), and that space goes where the value
    joins a Chinese character on both sides ("做常见任务", not "做 常见任务")."""
    if " {" not in text and "} " not in text:  # no space beside a placeholder: nothing to join
        return text.format(**values)
    marked = text.format(**{k: f"{_OPEN}{v}{_CLOSE}" for k, v in values.items()})
    joined = _JOIN_GAP.sub("", marked)
    return joined.replace(_OPEN, "").replace(_CLOSE, "")


@functools.lru_cache(maxsize=1)
def _converter() -> Any:
    import opencc

    return opencc.OpenCC("s2tw")


@functools.lru_cache(maxsize=8192)
def to_traditional(text: str) -> str:
    return str(_converter().convert(text)) if text else text


def placeholders(text: str) -> set[str]:
    """The ``{name}`` placeholders of a message (format-spec and conversions ignored)."""
    import string

    return {name for _, name, _, _ in string.Formatter().parse(text) if name}
