"""The best models for a card and a task (issue 17): "best model I can run on a 3090 for coding",
"16G显存最好的中文模型", "what can I run on 2x 4090".

For every LLM in the catalog (vision-language models only, for the vision task): the
highest-quality build that fits the card(s) at the context the fit code assumes (the model's
``default_seq_len``, inference, batch 1; the same search as ``builds.what_runs``, with the
card count split tensor-parallel). The models that fit are ranked by published quality for
the task (``bot.core.quality.rank``: compared on the first benchmark both report, newer release
first when they share none). Builds at Q4_K_M or better are the picks; a model that fits only
at 2-3 bits is listed apart (its benchmark score was measured unquantized), only when it ranks
above the best pick. A model that fits but has no score for the task is named as missing.

A question that names memory but no card ("on 16 GB", "16G显存") is answered for a generic
CUDA card of that many GB (sold in GiB, like every card).
"""

from __future__ import annotations

import re

from bot.core import gated_re, memory, quality
from bot.core.copy_with import copy_with
from bot.core.engine import builds
from bot.core.formats import Build
from bot.core.gated_re import GatedPattern
from bot.core.knowledge import GPU, Catalog, Model
from bot.core.memory import GB
from bot.core.results import ModelPick, ModelPicksResult, PickWhy
from bot.core.types import Parallelism, Query, Task

__all__ = [
    "asks_best_model",
    "asks_memory_runs",
    "task_of",
    "memory_card",
    "generic_card",
    "picks_result",
    "TOP",
]

#: picks shown (at Q4_K_M or better), and low-bit ones listed apart at most
TOP = 5
LOW_MAX = 2
#: models that fit but have no score are named when released since then (at most this many)
MISSING_SINCE = "2024-01"
MISSING_MAX = 6

_TASK_WORDS: tuple[tuple[str, GatedPattern], ...] = (
    (
        "vision",
        gated_re.compile(
            r"\bvision\b|\bvlm s?\b|\bvlms\b|vision[- ]language|multi-?modal|\bimages?\b|\bocr\b|"
            r"视觉|多模态|看图|图片|图像|识图",
            re.I,
        ),
    ),
    (
        "coding",
        gated_re.compile(r"\bcod(?:e|es|ing|er)\b|\bprogramm\w*|\bdeveloper\b|写代码|代码|编程|编码", re.I),
    ),
    ("chinese", gated_re.compile(r"\bchinese\b|\bmandarin\b|中文|汉语|国语", re.I)),
    (
        "reasoning",
        gated_re.compile(r"\bmath\w*|\breason\w*|\blogic\b|\bthinking\b|数学|推理|解题|逻辑", re.I),
    ),
    (
        "general",
        gated_re.compile(r"\bchat\w*|\bgeneral\b|\bassistant\b|\ball[- ]round\w*|聊天|对话|通用|日常", re.I),
    ),
)

_BEST = gated_re.compile(
    r"\bbest\b|\btop\b|\bstrongest\b|\bsmartest\b|\bideal\b|\brecommend\w*|最好|最强|最适合|最佳|推荐",
    re.I,
)
_MODEL_WORD = gated_re.compile(
    r"\bllms?\b|\bmodels?\b|\bvlms?\b|\bai\b|\bcoder\b|\bassistant\b|模型|大模型|\bllm\b",
    re.I,
)
#: the question asks which card to buy ("best 24gb gpu for llms", "买什么显卡"): a recommendation, not picks
_ASKS_CARD = gated_re.compile(
    r"\b(?:best|which|what|top|recommend\w*|cheapest|fastest)\b(?:\s+[\w.-]+){0,3}?\s+(?:gpus?|cards?|graphics)\b|"
    r"\bshould i (?:buy|get)\b|买什么|什么显卡|哪张卡|哪款显卡|哪个显卡|买哪",
    re.I,
)
#: "on 16 GB", "16G显存", "with 12gb of vram" (and not "64GB RAM")
_MEMORY = gated_re.compile(
    r"(?<![\d.])(\d{1,3}(?:\.\d)?)\s*(?:gb|gib|g)(?![a-z])(?!\s*(?:of\s+)?(?:system\s+|cpu\s+)?(?:ram|ddr|内存))",
    re.I,
)


def task_of(text: str) -> tuple[str, bool]:
    """(task, stated): the first task word the question has; ``general`` when it names none."""
    for task, rx in _TASK_WORDS:
        if rx.search(text):
            return task, True
    return "general", False


def asks_best_model(text: str, num_gpus: int = 1) -> bool:
    """A "best model for my card" question: asks for the best/top model (or names a task with
    "what can I run"), or asks what runs on several cards (``what_runs`` is one card)."""
    if _ASKS_CARD.search(text):
        return False
    if _BEST.search(text) and (_MODEL_WORD.search(text) or task_of(text)[1]):
        return True
    if builds.asks_what_runs(text) and (task_of(text)[1] or num_gpus > 1):
        return True
    return False


def asks_memory_runs(text: str) -> bool:
    """ "what can i run on 8gb vram", "which models fit in 12gb", "16g显存能跑什么模型": what runs on
    an amount of memory (the caller checks the memory; a card to buy is not this question)."""
    return builds.asks_what_runs(text) and not _ASKS_CARD.search(text)


#: "2x 24gb", "4 x 16 GB", "2*24G": several generic cards of one memory size
_MEMORY_COUNT = gated_re.compile(
    r"(?<![\d.])([1-8])\s*[x×*]\s*\d{1,3}(?:\.\d)?\s*(?:gb|gib|g)(?![a-z])", re.I
)


def memory_count(text: str) -> int:
    """How many cards of the memory named ("2x 24gb": 2); 1 when no count is written that way."""
    m = _MEMORY_COUNT.search(text)
    return int(m.group(1)) if m is not None else 1


def memory_card(cat: Catalog, text: str) -> GPU | None:
    """A generic CUDA card with the memory the question names ("on 16 GB"), or None."""
    m = _MEMORY.search(text)
    return generic_card(cat, float(m.group(1))) if m is not None else None


def generic_card(cat: Catalog, gb: float) -> GPU | None:
    """A CUDA card with ``gb`` of memory and nothing else known (None outside 2-512 GB)."""
    if not 2 <= gb <= 512:
        return None
    template = cat.gpus.get("rtx-3090") or next(iter(cat.gpus.values()))
    label = f"{gb:g}"
    return copy_with(
        template,
        id=f"vram-{label}gb",
        name=f"{label} GB",
        aliases=(),
        vram_gb=gb,
        unified_memory=False,
        gpu_memory_share=None,
        price_usd=None,
        notes=None,
    )


def _best_fit(cat: Catalog, m: Model, g: GPU, q: Query, n: int) -> tuple[Build, memory.Estimate] | None:
    """The highest-quality build of ``m`` that fits ``n`` x ``g`` (tensor parallel when n > 1)."""
    mq = copy_with(q, models=(m.id,), precision=None, method=None, task=None)
    base = memory.resolve_workload(m, task=Task.INFERENCE)
    if n > 1:
        base = copy_with(base, num_gpus=n, parallelism=Parallelism.TENSOR)
    reserve = builds.VLLM_RESERVE if q.engine == "vllm" else 1.0
    # one card, an LLM build: its weights (``build_workload``'s weights_bytes, the estimate's weights
    # term as is) are part of the total, so weights past the room fit no better with the rest added:
    # no estimate is needed to say no (most builds of a big model on a small card)
    room = memory.usable_bytes(g) * reserve if n == 1 and m.kind != "diffusion" else None
    for b in builds.usable_builds(cat, m, mq, g):
        if room is not None and b.weights_gb * GB > room:
            continue
        e = memory.estimate(m, g, workload=builds.build_workload(m, base, b))
        if e.capacity is not None and e.total <= e.capacity * reserve:
            return b, e
    return None


def picks_result(cat: Catalog, q: Query, gpus: list[GPU]) -> ModelPicksResult:
    task, stated = task_of(q.text)
    book = cat.quality
    card = gpus[0] if gpus else memory_card(cat, q.text)
    n = max(1, q.num_gpus)
    if book is None or card is None:
        return ModelPicksResult(
            task=task, task_stated=stated, gpu=card, count=n, picks=(), no_card=card is None
        )
    q4 = cat.formats["gguf-q4_k_m"].quality_rank if "gguf-q4_k_m" in cat.formats else 99
    pool = [m for m in cat.models.values() if m.kind in builds.LLM_KINDS]
    if task == "vision":
        pool = [m for m in pool if book.is_vision(m.id)]
    fits: dict[str, tuple[Build, memory.Estimate]] = {}
    for m in pool:
        found = _best_fit(cat, m, card, q, n)
        if found is not None:
            fits[m.id] = found
    release = {m.id: m.release or "" for m in pool}
    params = {m.id: float(m.params) for m in pool}
    ranked, missing = quality.rank(book, task, list(fits), release, params)
    good = [mid for mid in ranked if fits[mid][0].quality_rank <= q4]
    low_all = [mid for mid in ranked if mid not in good]
    top = good[:TOP]
    # low-bit builds only when they rank above the best pick (a bigger model squeezed in)
    first = ranked.index(top[0]) if top else len(ranked)
    low = [mid for mid in low_all if ranked.index(mid) < first][:LOW_MAX]
    # the benchmark most picks are scored on: the list is "mostly" ranked by it; a pick scored on
    # another one says so in its reason
    primary = _lead_id(book, task, top)
    picks = tuple(_pick(cat, book, task, primary, mid, fits[mid], i, top) for i, mid in enumerate(top))
    lows = tuple(_pick(cat, book, task, primary, mid, fits[mid], 0, [], low=True) for mid in low)
    ctx = next((p.context_tokens for p in picks + lows), None)
    usable = memory.usable_bytes(card) / GB
    return ModelPicksResult(
        task=task,
        task_stated=stated,
        gpu=card,
        count=n,
        picks=picks,
        low_bit=lows,
        # fit but unscored: the current ones (2024 on), largest first; older ones are not worth naming
        missing=tuple(
            sorted(
                (
                    cat.models[mid]
                    for mid in missing
                    if (cat.models[mid].release or "") >= MISSING_SINCE and fits[mid][0].quality_rank <= q4
                ),
                key=lambda m: -m.params,
            )[:MISSING_MAX]
        ),
        benchmarks=tuple(book.benchmarks[b] for b in book.tasks[task]),
        usable_gb=round(usable, 1),
        context_tokens=ctx,
        generic_card=not gpus,
        quality_date=book.date,
        q4_ppl_delta=_q4_delta(cat),
        lead_benchmark=book.benchmarks[primary].name,
    )


def _lead_id(book: quality.QualityBook, task: str, ids: list[str]) -> str:
    """The benchmark most of ``ids`` are shown with (ties: the task's order)."""
    order = book.tasks[task]
    shown = [s.benchmark for s in (book.score_for(m, task) for m in ids) if s is not None]
    return max(order, key=lambda b: (shown.count(b), -order.index(b)))


def _q4_delta(cat: Catalog) -> float | None:
    f = cat.formats.get("gguf-q4_k_m")
    note = f.quality_note if f is not None else None
    return round(note.value, 2) if note is not None and note.value is not None else None


def _pick(
    cat: Catalog,
    book: quality.QualityBook,
    task: str,
    primary: str,
    mid: str,
    found: tuple[Build, memory.Estimate],
    i: int,
    top: list[str],
    low: bool = False,
) -> ModelPick:
    b, e = found
    m = cat.models[mid]
    # the list's lead benchmark when the model has it, else its first benchmark of the task's list
    s = book.models[mid].scores.get(primary) or book.score_for(mid, task)
    assert s is not None  # ranked models have a score
    gb = round(e.total / GB, 1)
    why, value = _why(cat, m, b, s, primary, i, top, gb, low)
    return ModelPick(
        model=m,
        format_id=b.format_id,
        precision=b.precision,
        release_build=bool(b.is_release),
        required_gb=gb,
        context_tokens=int(e.workload.seq_len or 0),
        score=s,
        benchmark_name=book.benchmarks[s.benchmark].name,
        variant=book.models[mid].variant,
        why=why,
        why_value=value,
        low_bit=low,
    )


def _why(
    cat: Catalog,
    m: Model,
    b: Build,
    s: quality.Score,
    primary: str,
    i: int,
    top: list[str],
    gb: float,
    low: bool,
) -> tuple[PickWhy, object]:
    if low:
        return PickWhy.LOW_BIT, None
    if s.benchmark != primary:
        return PickWhy.OTHER_BENCHMARK, None
    if i == 0:
        return PickWhy.TOP_RANKED, None
    if b.is_release:
        return PickWhy.NO_QUANT, None
    if m.kind == "moe-decoder" and m.active_params:
        return PickWhy.MOE_ACTIVE, round(m.active_params / 1e9, 1)
    return PickWhy.NEXT_RANKED, None
