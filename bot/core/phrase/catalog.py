"""Message catalogs: one gettext ``.po`` file per language, keyed by message id.

The files live in ``locales/<lang>.po`` beside this module; a translator
edits them with any PO editor (msgid is the key, msgstr the sentence, with
``{name}`` placeholders). They are read once with Babel's PO reader; there
is no build step, so what is in the file is what the bot says.

Traditional Chinese is written from the Simplified catalog and converted
character by character with OpenCC (``s2tw``: Taiwan standard characters,
no phrase substitution, so 显存 stays 顯存 as people write it).

``t()`` runs ~25 times a reply: each message is turned once, on first use, into a filler, a
function made from its template (one f-string; in Chinese, with the spaces the join may remove as
conditional pieces), which gives exactly what ``str.format`` and ``_fill_cjk`` give
(``tests/core/test_catalog_fill.py`` checks every message of the three catalogs).
"""

from __future__ import annotations

import functools
import keyword
import logging
import string
from collections.abc import Callable
from pathlib import Path
from typing import Any

from babel.messages.pofile import read_po

from bot.core import gated_re
from bot.core.types import Lang

__all__ = ["LOCALES_DIR", "CATALOG_LANGS", "messages", "t", "word", "to_traditional", "placeholders"]

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
# (lang, key) -> the sentence's filler: values -> the sentence filled in (built once per message, on
# first use: the catalog is fixed for the process)
_FILLERS: dict[Lang, dict[str, Callable[[dict[str, Any]], str]]] = {}
_PLAIN: dict[Lang, dict[str, str]] = {}  # (lang, key) -> a sentence without values, as said
_ZH_HANT = Lang.ZH_HANT  # (an Enum member read from its class costs ~0.1 us under Python 3.11)


def t(lang: Lang, key: str, /, **values: Any) -> str:
    """The sentence ``key`` in ``lang`` with its placeholders filled.

    A key missing from a catalog is a bug the catalog test catches; at run
    time it falls back to English rather than failing the answer.
    """
    # ~25 calls a reply: a message with values goes to its filler (the template parsed once, filled
    # by a compiled f-string); one without is the sentence as written (Traditional: converted once)
    if values:
        try:
            return _FILLERS[lang][key](values)
        except KeyError:
            fill = _filler(lang, key)
        return fill(values)
    try:
        return _PLAIN[lang][key]
    except KeyError:
        return _plain(lang, key)


def word(lang: Lang, key: str, value: Any) -> str:
    """``t(lang, key)`` when the catalog has ``key``, else ``str(value)`` (the word for an enum
    value, common.enum_word): a sentence already said is found in one look-up."""
    try:
        return _PLAIN[lang][key]
    except KeyError:
        pass
    return t(lang, key) if key in messages(lang) else str(value)


def _plain(lang: Lang, key: str) -> str:
    """A sentence without values, kept for the next time unless it is missing (then its fallback is
    logged on each use)."""
    table = _TABLES.get(lang) or _TABLES.setdefault(lang, messages(lang))
    text = table.get(key)
    if not text:
        text = _lookup(lang, key)
        return to_traditional(text) if lang is _ZH_HANT else text
    out = to_traditional(text) if lang is _ZH_HANT else text
    _PLAIN.setdefault(lang, {})[key] = out
    return out


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


def _filler(lang: Lang, key: str) -> Callable[[dict[str, Any]], str]:
    """The filler of ``key`` in ``lang``: ``str.format`` of the sentence (Chinese: joined as
    ``_fill_cjk`` joins it; Traditional: converted), done by code made once for the sentence. A key
    missing from the catalog gets the long way every time (its fallback is logged on each use)."""
    table = _TABLES.get(lang) or _TABLES.setdefault(lang, messages(lang))
    text = table.get(key)
    if not text:
        text = _lookup(lang, key)
        if lang is Lang.EN:
            return lambda values: text.format(**values)
        if lang is Lang.ZH_HANT:
            return lambda values: to_traditional(_fill_cjk(text, values))
        return lambda values: _fill_cjk(text, values)
    if lang is Lang.EN or (" {" not in text and "} " not in text):  # Chinese: nothing to join
        fill = _compiled(text)
    else:
        fill = _cjk_compiled(text)
    if lang is Lang.ZH_HANT:
        fill = _then_traditional(fill)
    _FILLERS.setdefault(lang, {})[key] = fill
    return fill


def _then_traditional(fill: Callable[[dict[str, Any]], str]) -> Callable[[dict[str, Any]], str]:
    return lambda values: to_traditional(fill(values))


def _fields(text: str) -> list[tuple[str, str | None]] | None:
    """(literal, field name) pieces of a sentence, the last with no field; None when a field is not
    a plain ``{name}`` (a format spec, a conversion, an index), which ``str.format`` then fills."""
    pieces: list[tuple[str, str | None]] = []
    try:
        parsed = list(string.Formatter().parse(text))
    except ValueError:
        return None
    for lit, name, spec, conv in parsed:
        if name is None:
            pieces.append((lit, None))
            continue
        if spec or conv or not name.isidentifier() or keyword.iskeyword(name):
            return None
        pieces.append((lit, name))
    if not pieces or pieces[-1][1] is not None:
        pieces.append(("", None))
    return pieces


def _escaped(lit: str) -> str:
    """A literal as the text part of a single-quoted f-string."""
    return (
        lit.encode("unicode_escape").decode("ascii").replace("'", "\\'").replace("{", "{{").replace("}", "}}")
    )


def _compiled(text: str) -> Callable[[dict[str, Any]], str]:
    """``lambda values: text.format(**values)`` as one f-string (the same ``format(value, "")`` of
    each field, without parsing the template on every call)."""
    pieces = _fields(text)
    if pieces is None:
        return lambda values: text.format(**values)
    body = "".join(_escaped(lit) + (f'{{v["{name}"]}}' if name else "") for lit, name in pieces)
    fill: Callable[[dict[str, Any]], str] = eval(f"lambda v: f'{body}'", {})  # noqa: S307 - built from the catalog
    sample = {name: f"<{i}>" for i, (_, name) in enumerate(pieces) if name}
    if fill(sample) != text.format(**sample):  # pragma: no cover - a template the escaping got wrong
        return lambda values: text.format(**values)
    return fill


def _is_han(ch: str) -> bool:
    """Whether ``ch`` is in ``_HAN`` (the same ranges, compared directly: no pattern call)."""
    if ch < "\u201c":  # Latin, digits, spaces: most of what a value starts or ends with
        return False
    return (
        "\u4e00" <= ch <= "\u9fff"
        or "\u3001" <= ch <= "\u303f"
        or "\u3400" <= ch <= "\u4dbf"
        or "\uff01" <= ch <= "\uff0f"
        or "\uff1a" <= ch <= "\uff1f"
        or "\uf900" <= ch <= "\ufaff"
        or ch == "\u201c"
        or ch == "\u201d"
    )


def _cjk_compiled(text: str) -> Callable[[dict[str, Any]], str]:
    """``_fill_cjk(text, values)`` without the markers and the search: the spaces that may go are
    known from the sentence (a run of spaces right after a field, or right before one), and whether
    they go depends only on the characters on either side, read from the values."""
    pieces = _fields(text)
    if pieces is None:
        return lambda values: _fill_cjk(text, values)
    lits = [lit for lit, _ in pieces]
    names = [name for _, name in pieces if name]
    last = len(names)  # lits[k] sits between field k-1 and field k
    lead: list[tuple[int, int, bool]] = []  # (k, spaces, then_han): the run after field k-1
    trail: list[tuple[int, int]] = []  # (k, spaces): the run before field k, after a Han character
    for k, lit in enumerate(lits):
        stripped = lit.lstrip(" ")
        if k > 0 and stripped != lit:
            if stripped:
                if _is_han(stripped[0]):
                    lead.append((k, len(lit) - len(stripped), True))
            elif k < last:  # the literal is only spaces, between two fields
                lead.append((k, len(lit), False))
        body = lit.rstrip(" ")
        if k < last and body and body != lit and _is_han(body[-1]):
            trail.append((k, len(lit) - len(body)))
    if not lead and not trail:
        return _compiled(text)
    # the filler as code: each value as text once, each run of spaces that may go as a conditional
    # piece of the f-string (kept unless the characters on both sides are Chinese)
    cut_lead = {k: (n, then_han) for k, n, then_han in lead}
    cut_trail = dict(trail)
    src = ["def fill(v):"]
    src += [f"    f{i} = f'{{v[\"{name}\"]}}'" for i, name in enumerate(names)]
    body = ""
    for k, lit in enumerate(lits):
        ln, then_han = cut_lead.get(k, (0, True))
        tn = cut_trail.get(k, 0)
        if ln:
            after = "" if then_han else f" and f{k} and H(f{k}[0])"
            src.append(f"    l{k} = '' if f{k - 1} and H(f{k - 1}[-1]){after} else '{' ' * ln}'")
            body += f"{{l{k}}}"
        body += _escaped(lit[ln : len(lit) - tn])
        if tn:
            src.append(f"    t{k} = '' if f{k} and H(f{k}[0]) else '{' ' * tn}'")
            body += f"{{t{k}}}"
        if k < last:
            body += f"{{f{k}}}"
    src.append(f"    return f'{body}'")
    scope: dict[str, Any] = {"H": _is_han}
    exec("\n".join(src), scope)  # noqa: S102 - built from the catalog, names checked by _fields
    fill: Callable[[dict[str, Any]], str] = scope["fill"]
    return fill


@functools.lru_cache(maxsize=1)
def _converter() -> Any:
    import opencc

    return opencc.OpenCC("s2tw")


@functools.lru_cache(maxsize=8192)
def to_traditional(text: str) -> str:
    return str(_converter().convert(text)) if text else text


def placeholders(text: str) -> set[str]:
    """The ``{name}`` placeholders of a message (format-spec and conversions ignored)."""
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}
