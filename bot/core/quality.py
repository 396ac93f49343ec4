"""Published model quality per task (``knowledge/quality.yaml``) and the rule that ranks models by it.

Loaded with the catalog (``Catalog.quality``); a malformed entry stops start-up naming file, entry
and field, like every other knowledge file.

The ranking rule (:func:`rank`), stated in every answer that uses it:

* each task has an ordered list of benchmarks (``tasks:``); the first is the one with the widest
  coverage of current models, and the score an answer shows is a model's score on the first
  benchmark of the list it has;
* two models are compared on the first benchmark of the list that **both** have (comparing
  different benchmarks is meaningless); when they share none, the newer release wins: a newer
  generation is never ranked below an older one only because the older one has more rows;
* the ranking is the number of such pairwise wins (Copeland), ties broken by release, then size;
* a model with no score for the task is not ranked: it is listed as missing.

Pure data and functions; no I/O beyond :func:`load`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from bot.core.errors import KnowledgeError

__all__ = ["FILE", "TASKS", "Benchmark", "Score", "ModelQuality", "QualityBook", "load", "rank"]

FILE = "quality.yaml"
#: the tasks a "best model for my card" question can name (``general`` when it names none)
TASKS = ("coding", "general", "chinese", "vision", "reasoning")


@dataclass(frozen=True)
class Benchmark:
    id: str
    name: str
    about: str


@dataclass(frozen=True)
class Score:
    benchmark: str  # Benchmark.id
    score: float  # percent
    setting: str  # how the source ran it ("0-shot", "thinking mode", ...)
    date: str  # YYYY-MM of the source
    source: str


@dataclass(frozen=True)
class ModelQuality:
    model: str  # models.yaml id
    variant: str  # the variant the scores are for ("Qwen2.5-7B-Instruct")
    vision: bool  # takes images (a vision-language model)
    scores: Mapping[str, Score] = field(default_factory=dict)  # benchmark id -> score


@dataclass(frozen=True)
class QualityBook:
    source: str
    date: str
    benchmarks: Mapping[str, Benchmark]
    tasks: Mapping[str, tuple[str, ...]]  # task -> benchmark ids, in order
    models: Mapping[str, ModelQuality]

    def score_for(self, model_id: str, task: str) -> Score | None:
        """The score an answer shows: the model's score on the first benchmark of the task's list it has."""
        mq = self.models.get(model_id)
        if mq is None:
            return None
        for b in self.tasks.get(task, ()):
            if b in mq.scores:
                return mq.scores[b]
        return None

    def is_vision(self, model_id: str) -> bool:
        mq = self.models.get(model_id)
        return bool(mq and mq.vision)


def _fail(problem: str, entry: str | None = None, fld: str | None = None) -> KnowledgeError:
    return KnowledgeError(FILE, problem, entry=entry, field=fld)


def _text(v: Any, entry: str | None, fld: str, limit: int = 400) -> str:
    if not isinstance(v, str) or not v.strip():
        raise _fail("must be a non-empty string", entry, fld)
    if len(v) > limit:
        raise _fail(f"must be at most {limit} characters", entry, fld)
    return v.strip()


def _date(v: Any, entry: str | None, fld: str) -> str:
    if not isinstance(v, str) or not re.fullmatch(r"(19|20)\d\d-(0[1-9]|1[0-2])(-(0[1-9]|[12]\d|3[01]))?", v):
        raise _fail(f"must be a YYYY-MM date (quote it), got {str(v)[:40]!r}", entry, fld)
    return v


def _keys(raw: Any, allowed: set[str], required: Sequence[str], entry: str | None) -> Mapping[str, Any]:
    if not isinstance(raw, Mapping):
        raise _fail("must be a mapping", entry)
    for k in raw:
        if k not in allowed:
            raise _fail("unknown key (not in knowledge/SCHEMA.md)", entry, str(k))
    for k in required:
        if raw.get(k) is None:
            raise _fail("missing required key", entry, k)
    return raw


def load(directory: Path, models: Mapping[str, Any], read_yaml: Any) -> QualityBook | None:
    """The quality book of ``directory/quality.yaml`` (None when the file is absent)."""
    path = directory / FILE
    if not path.is_file():
        return None
    data = _keys(read_yaml(path, FILE), {"source", "date", "benchmarks", "tasks", "models"}, (), None)
    source = _text(data.get("source"), None, "source")
    date = _date(data.get("date"), None, "date")
    braw = data.get("benchmarks")
    if not isinstance(braw, list) or not braw:
        raise _fail("must be a non-empty list", None, "benchmarks")
    benches: dict[str, Benchmark] = {}
    for i, r in enumerate(braw):
        entry = f"benchmark {r.get('id', i) if isinstance(r, Mapping) else i}"
        _keys(r, {"id", "name", "about"}, ("id", "name", "about"), entry)
        bid = _text(r["id"], entry, "id", 40)
        if bid in benches:
            raise _fail("duplicate benchmark id", entry, "id")
        benches[bid] = Benchmark(bid, _text(r["name"], entry, "name", 60), _text(r["about"], entry, "about"))
    traw = data.get("tasks")
    if not isinstance(traw, Mapping):
        raise _fail("must be a mapping of task -> benchmark ids", None, "tasks")
    tasks: dict[str, tuple[str, ...]] = {}
    for t in TASKS:
        lst = traw.get(t)
        if not isinstance(lst, list) or not lst:
            raise _fail(f"task {t!r} needs a non-empty list of benchmark ids", None, f"tasks.{t}")
        for j, b in enumerate(lst):
            if not isinstance(b, str) or b not in benches:
                raise _fail(f"unknown benchmark id {str(b)[:40]!r}", None, f"tasks.{t}[{j}]")
        tasks[t] = tuple(lst)
    for t in traw:
        if t not in TASKS:
            raise _fail(f"unknown task (one of {', '.join(TASKS)})", None, f"tasks.{str(t)[:40]}")
    mraw = data.get("models")
    if not isinstance(mraw, list) or not mraw:
        raise _fail("must be a non-empty list", None, "models")
    out: dict[str, ModelQuality] = {}
    for i, r in enumerate(mraw):
        entry = f"model {str(r.get('model', i))[:60] if isinstance(r, Mapping) else i}"
        _keys(r, {"model", "variant", "vision", "scores"}, ("model", "scores"), entry)
        mid = r["model"]
        if not isinstance(mid, str) or mid not in models:
            raise _fail(f"unknown model id {str(mid)[:60]!r} (not in models.yaml)", entry, "model")
        if mid in out:
            raise _fail("duplicate model", entry, "model")
        vision = r.get("vision", False)
        if not isinstance(vision, bool):
            raise _fail("must be true or false", entry, "vision")
        sraw = r["scores"]
        if not isinstance(sraw, list) or not sraw:
            raise _fail("must be a non-empty list", entry, "scores")
        scores: dict[str, Score] = {}
        for j, s in enumerate(sraw):
            f = f"scores[{j}]"
            _keys(
                s,
                {"benchmark", "score", "setting", "date", "source"},
                ("benchmark", "score", "date", "source"),
                entry,
            )
            b = s["benchmark"]
            if not isinstance(b, str) or b not in benches:
                raise _fail(f"unknown benchmark id {str(b)[:40]!r}", entry, f"{f}.benchmark")
            if b in scores:
                raise _fail("duplicate benchmark for this model", entry, f"{f}.benchmark")
            v = s["score"]
            if (
                isinstance(v, bool)
                or not isinstance(v, int | float)
                or not math.isfinite(v)
                or not 0 <= v <= 100
            ):
                raise _fail(f"must be a percentage in [0, 100], got {str(v)[:40]!r}", entry, f"{f}.score")
            scores[b] = Score(
                benchmark=b,
                score=float(v),
                setting=_text(s.get("setting") or "as published", entry, f"{f}.setting", 120),
                date=_date(s["date"], entry, f"{f}.date"),
                source=_text(s["source"], entry, f"{f}.source"),
            )
        out[mid] = ModelQuality(
            model=mid,
            variant=_text(r.get("variant") or mid, entry, "variant", 120),
            vision=vision,
            scores=MappingProxyType(scores),
        )
    return QualityBook(
        source=source,
        date=date,
        benchmarks=MappingProxyType(benches),
        tasks=MappingProxyType(tasks),
        models=MappingProxyType(out),
    )


def _versus(book: QualityBook, task: str, a: str, b: str, release: Mapping[str, str]) -> int:
    """+1 when ``a`` beats ``b`` for ``task``, -1 when it loses, 0 for a tie."""
    sa, sb = book.models[a].scores, book.models[b].scores
    for bench in book.tasks[task]:
        if bench in sa and bench in sb:
            x, y = sa[bench].score, sb[bench].score
            return (x > y) - (x < y)
    ra, rb = release.get(a) or "", release.get(b) or ""
    return (ra > rb) - (ra < rb)  # no shared benchmark: the newer release first


def rank(
    book: QualityBook,
    task: str,
    model_ids: Sequence[str],
    release: Mapping[str, str],
    params: Mapping[str, float],
) -> tuple[list[str], list[str]]:
    """(ranked ids with a score for ``task``, best first; ids without one, in the given order)."""
    scored = [m for m in model_ids if book.score_for(m, task) is not None]
    missing = [m for m in model_ids if m not in scored]
    wins = {m: sum(1 for o in scored if o != m and _versus(book, task, m, o, release) > 0) for m in scored}
    scored.sort(key=lambda m: (-wins[m], _neg(release.get(m) or ""), -params.get(m, 0)))
    return scored, missing


def _neg(s: str) -> tuple[int, ...]:
    return tuple(-ord(c) for c in s)
