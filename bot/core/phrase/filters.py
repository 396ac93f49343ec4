"""Phrasing of a filter answer (cards by spec, issue 10): what was applied, the cards, what was not."""

from __future__ import annotations

from typing import Any

from bot.core.names import card_label
from bot.core.phrase import fmt
from bot.core.phrase.catalog import t
from bot.core.phrase.common import Env, join, price_label
from bot.core.phrase.replies import Phrased
from bot.core.results import FilterResult

__all__ = ["filtered", "constraint"]


def constraint(env: Env, f: Any) -> str:
    """One applied constraint in the reply's language ("at least 16 GB", "bf16")."""
    L = env.lang
    v = f.value
    if f.field == "vram_gb":
        key = {">=": "filter.c.vram_min", "<=": "filter.c.vram_max"}.get(f.op, "filter.c.vram_eq")
        return t(L, key, gb=f"{float(v):g} GB")
    if f.field == "tdp_w":
        return t(L, "filter.c.tdp_max", w=fmt.num(float(v), L))
    if f.field == "memory_bandwidth_gbs":
        return t(L, "filter.c.bw_min", gbs=fmt.num(float(v), L))
    if f.field in ("bf16", "fp8"):
        return t(L, f"filter.c.{f.field}")
    if f.field == "form_factor":
        return t(L, "filter.c.laptop")
    if f.field == "unified_memory":
        return t(L, "filter.c.unified")
    if f.field == "vendor":
        return t(
            L,
            "filter.c.vendor",
            vendor={"amd": "AMD", "nvidia": "NVIDIA", "intel": "Intel"}.get(v, str(v).title()),
        )
    return str(f.field)


def filtered(env: Env, r: FilterResult) -> Phrased:
    L = env.lang
    parts = [constraint(env, f) for f in r.filters]
    if r.budget_usd is not None:
        parts.append(t(L, "filter.c.price_max", usd=fmt.usd(r.budget_usd, L)))
    what = join(env, parts) if parts else t(L, "filter.c.any")
    sort = t(L, f"filter.sort.{r.sort}")
    unknown = [t(L, "filter.unknown_field", field=t(L, f"filter.field.{u}")) for u in r.unknown]
    if unknown and not parts:  # only a field the catalog lacks ("single-slot cards"): said, no list
        return Phrased(verdict=unknown[0], details=unknown[1:], basis=[t(L, "filter.basis")])
    if not r.gpus:
        verdict = t(L, "filter.none", filters=what)
    else:
        verdict = t(L, "filter.found", n=r.total, filters=what, sort=sort)
    details = [
        t(
            L,
            "filter.row",
            i=i,
            card=card_label(g),
            vram=f"{g.vram_gb:g} GB",
            tdp=fmt.num(float(g.tdp_w), L),
            bw=fmt.num(float(g.memory_bandwidth_gbs), L),
            price=price_label(env, g),
        )
        for i, g in enumerate(r.gpus, 1)
    ]
    if r.total > len(r.gpus):
        details.append(t(L, "filter.more", n=r.total - len(r.gpus)))
    details += unknown
    assumptions = [t(L, "filter.low_power", w=f"{f.value:g}") for f in r.filters if f.implied]
    basis = [t(L, "filter.basis")]
    return Phrased(verdict=verdict, details=details, assumptions=assumptions, basis=basis)
