"""A user's saved rig: what it is, reading it from chat, and when a question means it.

Pure functions over the catalog (no database, no Discord):

* :class:`Rig` - a frozen value: catalog card id, how many, system RAM and
  budget (both optional). Stored per user by :mod:`bot.storage`.
* :func:`parse_rig` - "my rig is 2x 3090 and 64GB RAM", "I have a 4090 and
  32 gb ram", "我的配置是两张3090，64G内存" -> a :class:`Rig`; ``None`` when the
  text is not a statement of the user's rig (no rig cue, no card, two
  different cards, or a question about a model: "I have a 4090, can I run
  llama 3 70b?" is a question for the parser, which already reads the card).
  The card is matched with :mod:`bot.core.matching`; a card family with no
  memory size ("4060 Ti") takes the family's default member, and the
  confirmation the surface shows names the card, so the user can correct it.
* :func:`build_rig` - the same value from slash-command options (``/gpu rig
  set gpu count ram_gb budget``), or a :class:`RigProblem` with a code.
* :func:`refers_to_rig` - whether a question means the user's own rig ("my
  rig", "my card", "can I run X" with no card named).
* :func:`with_rig` - the query with the saved rig as its card(s), for a
  question that refers to the rig.

How the surfaces phrase these is the phrasing layer's business: this module
returns data only (see :class:`RigProblem` codes).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from bot.core import gated_re
from bot.core.matching import Matcher, get_matcher, normalize
from bot.core.numerals import COUNT_WORDS
from bot.core.types import Intent, Query

__all__ = [
    "Rig",
    "RigProblem",
    "RigProblemCode",
    "MAX_COUNT",
    "MAX_RAM_GB",
    "build_rig",
    "parse_rig",
    "refers_to_rig",
    "with_rig",
    "query_on_rig",
    "may_refer_to_rig",
]

#: Limits of a believable rig (a 64-card box is already a cluster node).
MAX_COUNT = 64
MAX_RAM_GB = 16384.0
MAX_BUDGET_USD = 10_000_000.0


@dataclass(frozen=True)
class Rig:
    """A user's rig. ``gpu`` is a catalog card id (``rtx-3090``)."""

    gpu: str
    count: int = 1
    ram_gb: float | None = None
    budget_usd: float | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.gpu, str) or not self.gpu.strip():
            raise ValueError("Rig.gpu must be a card id")
        if (
            isinstance(self.count, bool)
            or not isinstance(self.count, int)
            or not 1 <= self.count <= MAX_COUNT
        ):
            raise ValueError(f"Rig.count must be 1..{MAX_COUNT}, got {self.count!r}")
        if self.ram_gb is not None and not (math.isfinite(self.ram_gb) and 0 < self.ram_gb <= MAX_RAM_GB):
            raise ValueError(f"Rig.ram_gb must be in (0, {MAX_RAM_GB:g}], got {self.ram_gb!r}")
        if self.budget_usd is not None and not (
            math.isfinite(self.budget_usd) and 0 < self.budget_usd <= MAX_BUDGET_USD
        ):
            raise ValueError(f"Rig.budget_usd must be in (0, {MAX_BUDGET_USD:g}], got {self.budget_usd!r}")


class RigProblemCode(StrEnum):
    """Why slash-command options do not make a rig (``value`` is what was given)."""

    UNKNOWN_GPU = "unknown_gpu"  # no card by that name; ``suggestions`` holds near names (card ids)
    BAD_COUNT = "bad_count"  # not 1..MAX_COUNT
    BAD_RAM = "bad_ram"  # not in (0, MAX_RAM_GB]
    BAD_BUDGET = "bad_budget"  # not in (0, MAX_BUDGET_USD]


@dataclass(frozen=True)
class RigProblem:
    code: RigProblemCode
    value: str
    suggestions: tuple[str, ...] = ()  # card ids, best first (UNKNOWN_GPU only)


def _resolve_gpu(matcher: Matcher, text: str) -> str | None:
    m = matcher.resolve(text, "gpu")
    return m.id if m is not None else None


def build_rig(
    gpu: str,
    count: int = 1,
    ram_gb: float | None = None,
    budget_usd: float | None = None,
    *,
    catalog: Any = None,
) -> Rig | RigProblem:
    """A :class:`Rig` from ``/gpu rig set`` options; ``gpu`` is a card id or a name."""
    matcher = get_matcher(catalog)
    text = str(gpu or "").strip()[:200]
    gid = text if text in getattr(matcher.catalog, "gpus", {}) else _resolve_gpu(matcher, text)
    if gid is None:
        near = tuple(m.id for m in matcher.suggest(text, "gpu", limit=3)) if text else ()
        return RigProblem(RigProblemCode.UNKNOWN_GPU, text, near)
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= MAX_COUNT:
        return RigProblem(RigProblemCode.BAD_COUNT, str(count))
    if ram_gb is not None and not (math.isfinite(ram_gb) and 0 < ram_gb <= MAX_RAM_GB):
        return RigProblem(RigProblemCode.BAD_RAM, str(ram_gb))
    if budget_usd is not None and not (math.isfinite(budget_usd) and 0 < budget_usd <= MAX_BUDGET_USD):
        return RigProblem(RigProblemCode.BAD_BUDGET, str(budget_usd))
    return Rig(
        gid,
        count,
        None if ram_gb is None else float(ram_gb),
        None if budget_usd is None else float(budget_usd),
    )


# --------------------------------------------------------------------- chat
# A statement about the user's own machine. Normalised text (NFKC, lower case).
_RIG_CUE_RE = gated_re.compile(
    r"\bmy\s+(?:rig|setup|set-up|build|pc|machine|computer|workstation|box|server|gpus?|cards?|graphics cards?)\b"
    r"(?:\s+(?:is|has|=|:)|\s*:)"
    r"|\bi\s+(?:have|own|use|run|got)\b|\bi've\s+got\b|\bi\s+am\s+(?:using|running|on)\b|\bi'm\s+(?:using|running|on)\b"
    r"|\bi\s+have\s+got\b|\bmy\s+(?:rig|setup|build)\s*(?:-|—)"
    r"|我的(?:配置|电脑|主机|机器|显卡|卡)(?:是|有|:)?|我有|我用的?是?|我(?:现在)?用|配置(?:是|:)"
)
# A question about something (a model to run, a card to buy), not a statement of the rig.
# a question, not a statement about one's rig: a question mark or word, or a question word and a verb
# (three linear scans instead of one pattern with a 200-character window between them)
_Q_MARK_RE = gated_re.compile(r"\?|？|吗|能不能|什么|哪")
_Q_WORD_RE = gated_re.compile(r"\b(?:can|could|will|would|should|which|what|how|does|do|is|are)\b|可以")
_Q_VERB_RE = gated_re.compile(
    r"\b(?:run|fit|train|fine-?tune|finetune|handle|buy|get|upgrade)\b|跑|运行|训练"
)


def _is_question(norm: str) -> bool:
    if _Q_MARK_RE.search(norm):
        return True
    word = _Q_WORD_RE.search(norm)
    return word is not None and _Q_VERB_RE.search(norm, word.end()) is not None


_NUM_WORDS = COUNT_WORDS  # bot.core.numerals: one table
_COUNT_BEFORE_RE = gated_re.compile(
    r"(?:\b(\d{1,4})\s*(?:x|×|\*)\s*|\b(\d{1,4})\s+|\b(?:a\s+)?(pair)\s+of\s+|"
    r"\b(one|single|two|dual|double|three|triple|four|quad|five|six|seven|eight)[\s-]+|"
    r"(\d{1,2}|[一两二双三四五六八])\s*(?:张|块|个)\s*)"
    r"(?:(?:nvidia|geforce|rtx|gtx|amd|radeon)\s+)*$"
)
_COUNT_AFTER_RE = gated_re.compile(r"^(?:s|'s)?\s*(?:x|×|\*)\s*(\d{1,4})\b")
_RAM_RE = gated_re.compile(
    r"(\d{1,5}(?:\.\d+)?)\s*(?:gb|g|gib|gigs?|gigabytes?)\s*(?:of\s+)?(?:system\s+|ddr\d\s+)?(?:ram|memory|内存)"
    r"|(?:ram|内存)\s*(?:is|:|=|是|有)?\s*(\d{1,5}(?:\.\d+)?)\s*(?:gb|g|gib)?"
)
_BUDGET_CUE_RE = gated_re.compile(r"\bbudget\b|预算")
_REFERS_RE = gated_re.compile(
    r"\bmy\s+(?:own\s+)?(?:rig|setup|set-up|build|pc|machine|computer|workstation|box|gpus?|cards?|graphics cards?)\b"
    r"|\bon\s+mine\b|我的(?:配置|电脑|主机|机器|显卡|卡)"
)
_CAN_I_RE = gated_re.compile(
    r"\b(?:can|could)\s+i\s+(?:even\s+|still\s+|actually\s+)?(?:run|use|train|fine-?tune|finetune|serve|host|load|fit|do)\b"
    r"|\bwill\s+(?:it|this|that|\S+(?:\s+\S+){0,4})\s+(?:run|fit)\s+(?:for\s+me|on\s+mine|here)\b"
    r"|\bam\s+i\s+able\s+to\s+(?:run|train|fine-?tune|finetune)\b"
    r"|我(?:能|可以|能不能|可不可以)(?:跑|运行|训练|微调|用)"
)


def _count_of(norm: str, start: int, end: int) -> int | None:
    """How many of the card at norm[start:end]: None when not said, 0 when unbelievable ("1000 3090s")."""
    head = norm[max(0, start - 30) : start]
    m = _COUNT_BEFORE_RE.search(head)
    if m:
        raw = next((g for g in m.groups() if g), None)
        if raw is not None:
            v = int(raw) if raw.isdigit() else (2 if raw == "pair" else _NUM_WORDS.get(raw))
            if v is not None:
                return v if 1 <= v <= MAX_COUNT else 0
    m2 = _COUNT_AFTER_RE.search(norm[end : end + 12])
    if m2:
        v = int(m2.group(1))
        return v if 1 <= v <= MAX_COUNT else 0
    return None


def _ram_of(norm: str, card_spans: list[tuple[int, int]]) -> float | None:
    for m in _RAM_RE.finditer(norm):
        raw = m.group(1) or m.group(2)
        if raw is None or any(s <= m.start() < e for s, e in card_spans):
            continue
        v = float(raw)
        if 0 < v <= MAX_RAM_GB:
            return v
    return None


def parse_rig(text: str, *, catalog: Any = None) -> Rig | None:
    """The rig a chat message states ("my rig is 2x 3090 and 64GB RAM"), or None."""
    if not isinstance(text, str) or not text.strip():
        return None
    norm = normalize(text[:500])
    if not _RIG_CUE_RE.search(norm) or _is_question(norm):
        return None
    matcher = get_matcher(catalog)
    mentions = matcher.mentions(norm)
    if any(m.kind == "model" for m in mentions):
        return None
    cards = [m for m in mentions if m.kind == "gpu"]
    if not cards:
        return None
    ids = {m.ids[0] if not m.family else matcher.family_default(m.ids, m.preferred)[0] for m in cards}
    if len(ids) != 1:
        return None  # two different cards: a Rig holds one kind
    gid = ids.pop()
    count = 0
    for m in cards:
        n = _count_of(norm, m.start, m.end)
        if n == 0:
            return None
        count += n or 1
    if count > MAX_COUNT:
        return None
    ram = _ram_of(norm, [(m.start, m.end) for m in cards])
    budget: float | None = None
    if _BUDGET_CUE_RE.search(norm):
        from bot.core.parsing import parse

        b = parse(text, catalog=matcher.catalog).budget_usd
        if b is not None and math.isfinite(b) and 0 < b <= MAX_BUDGET_USD:
            budget = float(b)
    return Rig(gid, count, ram, budget)


def may_refer_to_rig(text: str) -> bool:
    """A cheap first test (two patterns, no name index) for :func:`refers_to_rig`: False means
    the question cannot mean the user's rig, so a surface need not even look the rig up."""
    if not isinstance(text, str) or not text.strip():
        return False
    norm = normalize(text[:500])
    return bool(_REFERS_RE.search(norm) or _CAN_I_RE.search(norm))


def refers_to_rig(text: str, *, catalog: Any = None) -> bool:
    """Whether a question means the user's own rig: "my rig", "my card", or "can I run X"
    with no card named. A question that names a card is about that card."""
    if not isinstance(text, str) or not text.strip():
        return False
    norm = normalize(text[:500])
    if not (_REFERS_RE.search(norm) or _CAN_I_RE.search(norm)):
        return False
    return not any(m.kind == "gpu" for m in get_matcher(catalog).mentions(norm, "gpu"))


def with_rig(query: Query, rig: Rig) -> Query:
    """``query`` answered on ``rig``: its card and count, when the query names no card.

    A recommendation keeps its own budget; the rig's budget fills in when it has none.
    """
    if query.gpus:
        return query
    if query.intent in (Intent.RECOMMEND,):
        if query.budget_usd is None and rig.budget_usd is not None:
            return replace(query, budget_usd=rig.budget_usd)
        return query
    intent = Intent.FIT if query.intent in (Intent.UNKNOWN, Intent.FIT) and query.models else query.intent
    return replace(query, intent=intent, gpus=(rig.gpu,), num_gpus=rig.count, gpu_counts=())


def query_on_rig(
    text: str, rig: Rig, context: Any = None, *, catalog: Any = None, name: str | None = None
) -> Query | None:
    """The question ``text`` parsed and answered on ``rig`` (:func:`with_rig`), with a
    ``NoteCode.RIG_USED`` note (gpu, name, count) saying so; None when the rig changes nothing
    (the question names a card, or is a recommendation that keeps its own budget)."""
    from bot.core import language
    from bot.core.parsing import parse
    from bot.core.types import NoteCode, note

    matcher = get_matcher(catalog)
    q = parse(language.to_simplified(text), matcher.catalog, context)
    if q.text != text:
        q = replace(q, text=text)
    on_rig = with_rig(q, rig)
    if on_rig == q:
        return None
    used = note(NoteCode.RIG_USED, gpu=rig.gpu, name=name or rig.gpu, count=rig.count)
    return replace(on_rig, notes=(*on_rig.notes, used))
