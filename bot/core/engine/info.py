"""Info, list, help results: facts about cards and models, what the bot knows."""

from __future__ import annotations

from typing import Any

from bot.core import facts, memory, prices
from bot.core.engine import builds
from bot.core.engine.common import memory_variant
from bot.core.knowledge import GPU, Catalog, Model
from bot.core.names import is_uncurated
from bot.core.price_parse import PRICE_QUESTION, RENT_QUESTION
from bot.core.results import GpuFacts, InfoResult, ListResult, ModelFacts
from bot.core.types import Query, Task

__all__ = ["info_result", "list_result", "filter_result", "PRICE_QUESTION"]


def info_result(cat: Catalog, q: Query, models: list[Model], gpus: list[GPU]) -> InfoResult:
    mfacts = []

    for m in models:
        # (the workload ``memory.estimate(m, None, task=INFERENCE)`` resolves: estimated once, as the
        # release build when there is one)
        w = memory.resolve_workload(m, task=Task.INFERENCE)
        fmt_id = None
        bl = builds.builds_of(cat, m) if m.kind in (*builds.LLM_KINDS, "diffusion") else []
        if bl:
            # the release build (FP8 for DeepSeek-R1, MXFP4 for gpt-oss), not a bf16 upcast
            e = memory.estimate(m, None, workload=builds.build_workload(m, w, bl[0]))
            fmt_id = bl[0].format_id
        else:
            e = memory.estimate(m, None, workload=w)
        kv_full = kv_plain = None
        if m.kind in builds.LLM_KINDS and m.max_seq_len:
            # issue 17: the cache at the model's whole context, by its attention design and as if plain
            w16 = memory.resolve_workload(m, task=Task.INFERENCE, seq_len=m.max_seq_len)
            per_slot = memory.kv_values_per_token_layer(m) * 2.0
            kv_full = memory.kv_token_layers(m, w16, m.max_seq_len) * per_slot
            head_dim = m.head_dim or (m.hidden or 0) // (m.heads or 1)
            kv_plain = (
                float(m.layers or 0) * m.max_seq_len * 2 * (m.kv_heads or m.heads or 1) * head_dim * 2.0
            )
        mfacts.append(
            ModelFacts(
                m, e.total / memory.GB, e.weights / memory.GB, e.workload.precision, fmt_id, kv_full, kv_plain
            )
        )

    gpus = [memory_variant(g, q.text) for g in gpus]
    runs: tuple[tuple[GPU, tuple[builds.Runs, ...]], ...] = ()
    if gpus and not models and builds.asks_what_runs(q.text):
        runs = tuple((g, builds.what_runs(cat, g, q)) for g in gpus[:2])
    cloud: tuple[tuple[GPU, tuple[Any, ...]], ...] = ()
    no_cloud = q.price_question is not None and q.price_question.filters.no_cloud  # issue 14
    if gpus and RENT_QUESTION.search(q.text) and not no_cloud:
        cloud = tuple((g, prices.cloud_prices(cat, g.id)) for g in gpus[:2])

    asked = facts.asked(q.text.lower(), bool(models), bool(gpus))  # the one fact asked, said first
    return InfoResult(
        gpus=tuple(GpuFacts(g, is_uncurated(g)) for g in gpus),
        models=tuple(mfacts),
        price_first=bool(PRICE_QUESTION.search(q.text)) or bool(cloud),
        runs=runs,
        cloud=cloud,
        facts=facts.values(asked, [mf.model for mf in mfacts], list(gpus)) if asked and not runs else (),
    )


def list_result(cat: Catalog, q: Query) -> ListResult:
    kind = q.list_kind or ("gpus" if q.budget_usd is not None or not q.models else "models")
    if kind == "models":
        by_kind: dict[str, list[str]] = {}
        for m in cat.models.values():
            by_kind.setdefault(m.kind, []).append(m.name)
        return ListResult(
            kind="models",
            budget_usd=None,
            models_by_kind=tuple((k, tuple(v)) for k, v in by_kind.items()),
            total=len(cat.models),
        )
    cards = [
        g for g in cat.gpus.values() if q.budget_usd is None or (g.price_usd and g.price_usd <= q.budget_usd)
    ]
    if q.budget_usd is not None:
        cards.sort(key=lambda g: g.price_usd or 0)
    return ListResult(kind="gpus", budget_usd=q.budget_usd, gpus=tuple(cards), total=len(cat.gpus))


#: how many matching cards a filter answer lists (the JSON's ``matched`` says how many there are)
FILTER_SHOWN = 10


def filter_result(cat: Catalog, q: Query) -> Any:
    """Cards that meet the question's constraints on specs (bot.core.filters), within the budget."""
    from bot.core import filters
    from bot.core.results import FilterResult

    cf = q.card_filter
    # only a constraint the catalog cannot check ("single-slot cards"): no list that looks filtered
    found = filters.apply(cat, cf, q.budget_usd) if cf.filters or q.budget_usd is not None else []
    return FilterResult(
        filters=cf.filters,
        unknown=cf.unknown,
        budget_usd=q.budget_usd,
        sort=cf.sort,
        gpus=tuple(found[:FILTER_SHOWN]),
        total=len(found),
    )
