"""The facts behind judgement questions (``knowledge/advice.yaml``; issue 10, intent ``advice``).

:func:`load` reads and validates the file when the catalog loads (called from
``bot.core.knowledge.load_catalog``): a malformed entry stops start-up with one
:class:`~bot.core.errors.KnowledgeError` naming the file, the fact and the field. Every fact
carries its source and the month it was checked; one that is a judgement or not from a primary
source is marked ``estimate`` and the reply says so. The reply's words for fact ``x`` are the
message ``advice.fact.x`` (English and Chinese catalogs); ``values`` are its numbers.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.core import gated_re
from bot.core.errors import KnowledgeError

__all__ = ["AdviceFact", "FILE", "TOPICS", "STACKS", "load"]

FILE = "advice.yaml"
TOPICS = (
    "memory",
    "platform",
    "compute_capability",
    "laptop",
    "nvlink",
    "pcie",
    "ecc",
    "modded",
    "used",
    "worth",
    "wait",
    "mix",
)
STACKS = ("cuda", "rocm", "mps", "oneapi")
_KEYS = {"id", "topic", "text", "source", "date", "estimate", "values", "stacks", "tools", "gpus"}
_SLUG = gated_re.compile(r"^[a-z0-9][a-z0-9.-]*$")
_DATE = gated_re.compile(r"^(19|20)\d\d-(0[1-9]|1[0-2])$")
_VALUE_NAME = gated_re.compile(r"^[a-z][a-z0-9_]*$")


@dataclass(frozen=True)
class AdviceFact:
    id: str
    topic: str
    text: str
    source: str
    date: str
    estimate: bool = False
    values: Mapping[str, float] = field(default_factory=dict)
    stacks: tuple[str, ...] = ()
    tools: tuple[str, ...] = ()
    gpus: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "topic": self.topic,
            "text": self.text,
            "source": self.source,
            "date": self.date,
            "estimate": self.estimate,
            "values": dict(self.values),
        }


def _str_list(raw: Any, fail: Callable[[str, str], KnowledgeError], name: str) -> tuple[str, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list) or not all(isinstance(x, str) and x.strip() for x in raw):
        raise fail(name, "must be a list of non-empty strings")
    return tuple(x.strip() for x in raw)


def load(
    directory: Path,
    gpu_ids: Mapping[str, Any],
    tool_ids: set[str],
    read_yaml: Callable[[Path, str], Any],
) -> tuple[AdviceFact, ...]:
    """The facts of ``directory/advice.yaml`` (none when the file is absent)."""
    path = directory / FILE
    if not path.is_file():
        return ()
    display = f"{directory.name}/{FILE}"
    data = read_yaml(path, display)
    if not isinstance(data, Mapping):
        raise KnowledgeError(display, "must be a mapping with source, date, facts")
    for k in data:
        if k not in ("source", "date", "facts"):
            raise KnowledgeError(display, "unknown top-level key", field=str(k))
    if not isinstance(data.get("source"), str) or not str(data.get("source")).strip():
        raise KnowledgeError(display, "missing required key", field="source")
    if not isinstance(data.get("date"), str) or not _DATE.match(str(data.get("date"))):
        raise KnowledgeError(display, "must be a YYYY-MM date (quote it)", field="date")
    items = data.get("facts")
    if not isinstance(items, list) or not items:
        raise KnowledgeError(display, "must be a non-empty list", field="facts")
    out: list[AdviceFact] = []
    seen: set[str] = set()
    for i, raw in enumerate(items):
        label = f"fact {raw.get('id') if isinstance(raw, Mapping) and raw.get('id') else i}"

        def fail(fld: str | None, problem: str, _label: str = label) -> KnowledgeError:
            return KnowledgeError(display, problem, entry=_label, field=fld)

        if not isinstance(raw, Mapping):
            raise fail(None, "each fact must be a mapping")
        for k in raw:
            if k not in _KEYS:
                raise fail(str(k), "unknown key (not in knowledge/SCHEMA.md)")
        for k in ("id", "topic", "text", "source", "date"):
            if not isinstance(raw.get(k), str) or not str(raw.get(k)).strip():
                raise fail(k, "missing required key (a non-empty string)")
        fid = str(raw["id"]).strip()
        if not _SLUG.match(fid):
            raise fail("id", f"must be a lowercase slug, got {fid[:60]!r}")
        if fid in seen:
            raise fail("id", "duplicate fact id")
        seen.add(fid)
        if raw["topic"] not in TOPICS:
            raise fail("topic", f"must be one of {', '.join(TOPICS)}")
        if not _DATE.match(str(raw["date"])):
            raise fail("date", "must be a YYYY-MM date (quote it)")
        est = raw.get("estimate", False)
        if not isinstance(est, bool):
            raise fail("estimate", "must be true or false")
        values_raw = raw.get("values") or {}
        if not isinstance(values_raw, Mapping):
            raise fail("values", "must be a mapping of name: number")
        values: dict[str, float] = {}
        for name, v in values_raw.items():
            if not isinstance(name, str) or not _VALUE_NAME.match(name):
                raise fail(f"values.{name}", "a value name is a lowercase identifier")
            if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v) or v < 0:
                raise fail(f"values.{name}", "must be a finite number >= 0")
            values[name] = float(v)
        stacks = _str_list(raw.get("stacks"), fail, "stacks")
        for j, s in enumerate(stacks):
            if s not in STACKS:
                raise fail(f"stacks[{j}]", f"must be one of {', '.join(STACKS)}")
        tools = _str_list(raw.get("tools"), fail, "tools")
        for j, t in enumerate(tools):
            if tool_ids and t not in tool_ids:
                raise fail(f"tools[{j}]", f"unknown tool or engine id {t!r} (knowledge/software.yaml)")
        gpus = _str_list(raw.get("gpus"), fail, "gpus")
        for j, g in enumerate(gpus):
            if g not in gpu_ids:
                raise fail(f"gpus[{j}]", f"unknown gpu id {g!r}")
        out.append(
            AdviceFact(
                id=fid,
                topic=str(raw["topic"]),
                text=str(raw["text"]).strip(),
                source=str(raw["source"]).strip(),
                date=str(raw["date"]),
                estimate=est,
                values=values,
                stacks=stacks,
                tools=tools,
                gpus=gpus,
            )
        )
    return tuple(out)
