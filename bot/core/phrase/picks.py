"""Phrasing of "best models for my card and task" (issue 17): one line per pick, in the reply's language.

Reads ``results.ModelPicksResult`` only (never the engine); every sentence is a ``picks.`` message.
"""

from __future__ import annotations

from bot.core.names import card_label, short_name
from bot.core.phrase import fmt
from bot.core.phrase.catalog import t
from bot.core.phrase.common import Env, format_label, gb
from bot.core.phrase.replies import Phrased
from bot.core.results import ModelPick, ModelPicksResult, PickWhy

__all__ = ["model_picks", "reason"]


def _card(env: Env, r: ModelPicksResult) -> str:
    assert r.gpu is not None
    label = card_label(r.gpu)
    return t(env.lang, "picks.card_multi", n=r.count, card=label) if r.count > 1 else label


def _score(v: float) -> str:
    return f"{v:.1f}".rstrip("0").rstrip(".")


def reason(env: Env, r: ModelPicksResult, p: ModelPick) -> str:
    """The one-line reason of a pick (also the JSON's ``reason``)."""
    L = env.lang
    primary = r.lead_benchmark or p.benchmark_name
    if p.why is PickWhy.MOE_ACTIVE:
        return t(L, "picks.why.moe_active", active=f"{p.why_value:g}")
    if p.why is PickWhy.OTHER_BENCHMARK:
        return t(L, "picks.why.other_benchmark", primary=primary, bench=p.benchmark_name)
    if p.why in (PickWhy.TOP_RANKED, PickWhy.NEXT_RANKED):
        return t(L, f"picks.why.{p.why}", bench=p.benchmark_name)
    return t(L, f"picks.why.{p.why}")


def model_picks(env: Env, r: ModelPicksResult) -> Phrased:
    L = env.lang
    task = t(L, f"picks.task.{r.task}")
    if r.gpu is None:
        return Phrased(verdict=t(L, "picks.no_card"))
    card = _card(env, r)
    capacity = gb(env, r.usable_gb)
    if r.count > 1:
        capacity = t(L, "picks.capacity_each", gb=capacity)
    details: list[str] = []
    if r.generic_card:
        details.append(t(L, "picks.generic", gb=f"{r.gpu.vram_gb:g}"))
    if r.gpu.unified_memory:  # Apple / DGX Spark / Strix Halo: the GPU's default share of the RAM
        details.append(
            t(
                L,
                "note.unified_memory",
                card=short_name(r.gpu),
                usable_gb=f"{r.usable_gb:g}",
                total_gb=f"{r.gpu.vram_gb:g}",
                share=round(100 * (r.gpu.gpu_memory_share or 1.0)),
            )
        )
    if not r.picks and not r.low_bit:
        verdict = t(L, "picks.none", task=task, card=card, capacity=capacity)
        return Phrased(verdict=verdict, details=details)
    verdict = t(L, "picks.header", card=card, capacity=capacity, task=task, bench=r.lead_benchmark)
    reasons = []
    for i, p in enumerate(r.picks, start=1):
        why = reason(env, r, p)
        reasons.append(why)
        details.append(
            t(
                L,
                "picks.item",
                n=i,
                model=p.model.name,
                fmt=format_label(p.format_id),
                gb=gb(env, p.required_gb),
                ctx=fmt.num(p.context_tokens, L),
                bench=p.benchmark_name,
                score=_score(p.score.score),
                date=fmt.month(p.score.date[:7], L),
                reason=why,
            )
        )
    if r.low_bit:
        sep = t(L, "sep.semicolon")
        items = sep.join(
            t(
                L,
                "picks.low_item",
                model=p.model.name,
                fmt=format_label(p.format_id),
                gb=gb(env, p.required_gb),
                bench=p.benchmark_name,
                score=_score(p.score.score),
            )
            for p in r.low_bit
        )
        details.append(t(L, "picks.low", items=items))
    if r.task == "chinese" and r.benchmarks and all(p.score.benchmark != r.benchmarks[0].id for p in r.picks):
        details.append(t(L, "picks.no_chinese"))
    if r.missing:
        details.append(
            t(L, "picks.missing", task=task, names=t(L, "sep.semicolon").join(m.name for m in r.missing))
        )
    split = t(L, "picks.split", n=r.count) if r.count > 1 else ""
    assumptions = [t(L, "picks.assumed", ctx=fmt.num(r.context_tokens or 0, L), split=split)]
    basis = [
        t(
            L,
            "picks.rule",
            benches=", ".join(b.name for b in r.benchmarks),
            date=fmt.month(r.quality_date, L),
        ),
        t(L, "picks.quant", delta=fmt.num(r.q4_ppl_delta or 0, L, 2)),
        t(L, "basis.memory_modelled_config"),
    ]
    return Phrased(verdict=verdict, details=details, assumptions=assumptions, basis=basis, reasons=reasons)
