"""Conversation context <-> JSON dict, lossless and tolerant of old rows.

The codec walks the dataclass fields of :class:`bot.core.types.Context` /
:class:`~bot.core.types.Query` / :class:`~bot.core.types.Choice` by their
type hints, so a field added to ``Query`` later is stored without touching
this module (as long as its type is one of: ``str``, ``int``, ``float``,
``bool``, a ``StrEnum``, a dataclass made of those, ``tuple[X, ...]``,
``dict[str, X]``, or ``X | None``). ``Any`` values (a ``Note``'s
``values``) are stored as JSON, with the types JSON lacks tagged so they
come back as they went in: ``{"$tuple": [...]}``, ``{"$date": "2026-05-01"}``,
``{"$datetime": ...}``; an enum inside ``Any`` is stored by value and comes
back as its value (a ``StrEnum`` compares equal to it).

Encoding: enums by value, tuples as lists, nested dataclasses as dicts, and
a ``"v"`` version key at the top. Decoding ignores unknown keys (rows written
by a newer version still load), uses the field default for a missing key or a
value that does not fit the field (an enum value this version does not know),
and returns ``None`` only when the row is unusable as a whole. Floats must be
finite: JSON never holds NaN/Infinity (``encode`` raises ``ValueError``).
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import enum
import json
import logging
import math
import types
import typing
from functools import cache
from typing import Any

from bot.core.choices import CompactChoices
from bot.core.types import Choice, Context, Query

__all__ = [
    "CODEC_VERSION",
    "encode_context",
    "decode_context",
    "encode_query",
    "decode_query",
    "encode_choices",
    "decode_choices",
    "dumps",
    "loads",
]

log = logging.getLogger(__name__)

#: Bumped when the stored shape changes in a way old readers cannot ignore.
CODEC_VERSION = 1


class _Skip(Exception):
    """A stored value does not fit its field: use the field's default."""


@cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def _encode_any(value: Any) -> Any:
    """A value typed ``Any``: JSON, with tuples and dates tagged."""
    if isinstance(value, tuple):
        return {"$tuple": [_encode_any(v) for v in value]}
    if isinstance(value, list):
        return [_encode_any(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _encode_any(v) for k, v in value.items()}
    if isinstance(value, _dt.datetime):
        return {"$datetime": value.isoformat()}
    if isinstance(value, _dt.date):
        return {"$date": value.isoformat()}
    return _encode(value)


def _decode_any(raw: Any) -> Any:
    if isinstance(raw, list):
        return [_decode_any(v) for v in raw]
    if isinstance(raw, dict):
        if len(raw) == 1:
            ((tag, inner),) = raw.items()
            try:
                if tag == "$tuple" and isinstance(inner, list):
                    return tuple(_decode_any(v) for v in inner)
                if tag == "$datetime" and isinstance(inner, str):
                    return _dt.datetime.fromisoformat(inner)
                if tag == "$date" and isinstance(inner, str):
                    return _dt.date.fromisoformat(inner)
            except ValueError:
                raise _Skip from None
        return {k: _decode_any(v) for k, v in raw.items()}
    if isinstance(raw, float) and not math.isfinite(raw):
        raise _Skip
    return raw


# fields not stored: derived again from the question's text when needed (Query.price_question is
# what the price reader made of the text; a follow-up re-reads its own)
TRANSIENT_FIELDS = frozenset({"price_question", "card_filter"})  # card_filter: bot.core.filters, re-read


def _encode(value: Any) -> Any:
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"cannot store a non-finite number: {value!r}")
        return value
    if isinstance(value, tuple | list):
        return [_encode(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _encode_any(v) for k, v in value.items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        hints = _hints(type(value))
        return {
            f.name: (_encode_any if hints.get(f.name) is Any else _encode)(getattr(value, f.name))
            for f in dataclasses.fields(value)
            if f.name not in TRANSIENT_FIELDS
        }
    raise TypeError(f"cannot store a value of type {type(value).__name__}")


def _decode(tp: Any, raw: Any) -> Any:
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        args = typing.get_args(tp)
        if raw is None and type(None) in args:
            return None
        for arg in args:
            if arg is type(None):
                continue
            try:
                return _decode(arg, raw)
            except _Skip:
                continue
        raise _Skip
    if origin is tuple:
        args = typing.get_args(tp)
        if not isinstance(raw, list):
            raise _Skip
        if len(args) == 2 and args[1] is Ellipsis:
            out = []
            for v in raw:
                try:
                    out.append(_decode(args[0], v))
                except _Skip:  # one element this version cannot read (a newer note code): drop it
                    log.debug("dropping a stored %s this version cannot read: %r", args[0], v)
            return tuple(out)
        if len(args) != len(raw):
            raise _Skip
        return tuple(_decode(a, v) for a, v in zip(args, raw, strict=True))
    if origin is dict:
        key_t, val_t = typing.get_args(tp) or (str, Any)
        if not isinstance(raw, dict) or key_t is not str:
            raise _Skip
        return {k: (_decode_any(v) if val_t is Any else _decode(val_t, v)) for k, v in raw.items()}
    if tp is Any:
        return _decode_any(raw)
    if isinstance(tp, type):
        if issubclass(tp, enum.Enum):
            try:
                return tp(raw)
            except ValueError:
                raise _Skip from None
        if tp is bool:
            if isinstance(raw, bool):
                return raw
            raise _Skip
        if tp is int:
            if isinstance(raw, int) and not isinstance(raw, bool):
                return raw
            raise _Skip
        if tp is float:
            if isinstance(raw, int | float) and not isinstance(raw, bool) and math.isfinite(raw):
                return float(raw)
            raise _Skip
        if tp is str:
            if isinstance(raw, str):
                return raw
            raise _Skip
        if dataclasses.is_dataclass(tp):
            if not isinstance(raw, dict):
                raise _Skip
            return _decode_dataclass(tp, raw)
    raise _Skip


def _decode_dataclass(cls: type, raw: dict[str, Any]) -> Any:
    hints = _hints(cls)
    kwargs: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        if f.name not in raw:
            continue  # the default
        try:
            kwargs[f.name] = _decode(hints[f.name], raw[f.name])
        except _Skip:
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise
            log.debug("stored %s.%s=%r does not fit; using the default", cls.__name__, f.name, raw[f.name])
    try:
        return cls(**kwargs)
    except (TypeError, ValueError):
        raise _Skip from None


def encode_query(query: Query) -> dict[str, Any]:
    out = _encode(query)
    out["v"] = CODEC_VERSION
    return out  # type: ignore[no-any-return]


def decode_query(data: Any) -> Query | None:
    if not isinstance(data, dict):
        return None
    try:
        return _decode_dataclass(Query, data)  # type: ignore[no-any-return]
    except _Skip:
        return None


def encode_context(context: Context) -> dict[str, Any]:
    """The context for a column; the last question's choices by reference to its text."""
    last = context.last
    choices = last.choices if last is not None else ()
    if last is not None and choices:
        context = dataclasses.replace(context, last=dataclasses.replace(last, choices=()))
    out = _encode(context)
    if last is not None and choices:
        out["choices_compact"] = encode_choices(choices, last.text)
    out["v"] = CODEC_VERSION
    return out  # type: ignore[no-any-return]


def decode_context(data: Any) -> Context | None:
    if not isinstance(data, dict):
        return None
    compact = data.get("choices_compact")
    try:
        context: Context = _decode_dataclass(
            Context, {k: v for k, v in data.items() if k != "choices_compact"}
        )
    except _Skip:
        return None
    if compact is not None and context.last is not None:
        choices = decode_choices(compact, context.last.text)
        if choices is not None:  # damaged choices: the context without its buttons
            context = dataclasses.replace(context, last=dataclasses.replace(context.last, choices=choices))
    return context


def encode_choices(choices: typing.Sequence[Choice], question: str | None = None) -> Any:
    """The choices for a column. Given the question they were made from, by reference to it
    (``{"compact": rows}``: one copy of the question, not one per button); else in full."""
    if question is not None:
        return {"compact": CompactChoices(question, tuple(choices)).to_rows()}
    return [_encode(c) for c in choices]


def decode_choices(data: Any, question: str | None = None) -> tuple[Choice, ...] | None:
    """Choices from :func:`encode_choices` (either form); None when damaged."""
    if isinstance(data, dict):
        compact = CompactChoices.from_rows(question, data.get("compact")) if question is not None else None
        return compact.choices() if compact is not None else None
    try:
        return _decode(tuple[Choice, ...], data)  # type: ignore[no-any-return]
    except _Skip:
        return None


def dumps(data: Any) -> str:
    """JSON text for a database column: no NaN, and ASCII only (PostgreSQL text holds no NUL)."""
    return json.dumps(data, ensure_ascii=True, allow_nan=False, separators=(",", ":"))


def loads(text: str | None) -> Any:
    """Parsed JSON, or None for a missing or damaged column."""
    if text is None:
        return None
    try:
        return json.loads(text)
    except (TypeError, ValueError):
        return None
