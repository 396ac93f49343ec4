"""Rent-or-buy and deal results: the cost engine (bot.core.costs) applied to a question."""

from __future__ import annotations

from dataclasses import replace

from bot.core import costs
from bot.core.knowledge import Catalog
from bot.core.results import DealResult, RentBuyResult, WhichCardResult
from bot.core.types import Query

__all__ = ["rent_buy_result", "deal_result"]


def _cards(cat: Catalog, ids: list[str]) -> dict:
    return {g: cat.gpus[g] for g in dict.fromkeys(ids) if g in cat.gpus}


def rent_buy_result(cat: Catalog, q: Query) -> RentBuyResult | WhichCardResult:
    pq = q.price_question
    gpu = next((g for g in q.gpus if g in cat.gpus), None)
    if gpu is None:
        return WhichCardResult("rent_or_buy")
    quote = (
        next((x for x in pq.quotes if x.usd and x.gpu_ids == (gpu,) and not x.hourly), None) if pq else None
    )
    cond = pq.filters.condition if pq is not None else None
    condition = {"new_only": "new", "used_only": "used", "used_ok": None}.get(str(cond)) if cond else None
    rob = costs.rent_or_buy(
        cat,
        gpu,
        hours_per_day=pq.hours_per_day if pq else None,
        years=pq.resale_years if pq else None,
        kwh_price=pq.kwh.amount if pq and pq.kwh else None,
        kwh_currency=pq.kwh.currency if pq and pq.kwh else "USD",
        condition=condition or (quote.condition if quote else None),
        price_usd=quote.usd if quote else None,
        model_id=q.models[0] if q.models else None,
        task=q.task,
        precision=q.precision,
    )
    if pq is not None and pq.filters.no_cloud:
        # "no cloud" / "I don't want to rent" / "不租云": owning alone, rent options left out (issue 14)
        rob = replace(rob, rent=(), break_even_hours=None, break_even_months=None)
        return RentBuyResult(rob, _cards(cat, [gpu]), no_cloud=True)
    return RentBuyResult(rob, _cards(cat, [gpu, *(r.gpu for r in rob.rent)]))


def deal_result(cat: Catalog, q: Query) -> DealResult | WhichCardResult:
    pq = q.price_question
    quote = next((x for x in pq.quotes if x.usd and len(x.gpu_ids) == 1), None) if pq else None
    if quote is None or quote.gpu_ids[0] not in cat.gpus:
        return WhichCardResult("deal")
    gpu = quote.gpu_ids[0]
    deal = costs.deal_verdict(
        cat,
        gpu,
        float(quote.usd),
        quote.condition,
        model_id=q.models[0] if q.models else None,
        task=q.task,
        precision=q.precision,
        assumed=quote.assumed_condition,
    )
    return DealResult(deal, _cards(cat, [gpu, *(a.gpu for a in deal.alternatives)]), quoted=quote)
