"""Rent-or-buy and deal results: the cost engine (bot.core.costs) applied to a question."""

from __future__ import annotations

from typing import Any

from bot.core import costs
from bot.core import prices as P
from bot.core.copy_with import copy_with
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
    rent_gpu = pq.rent_gpu if pq is not None and pq.rent_gpu in cat.gpus and pq.rent_gpu != gpu else None
    unpriced = rent_gpu if rent_gpu is not None and not P.cloud_prices(cat, rent_gpu) else None
    rent_gpu = None if unpriced else rent_gpu  # no rental price: the usual rent options, and said so
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
        # "rent an A100 or buy a 3090": that card's rent prices (each provider kind), not the defaults
        rent_options=[(rent_gpu, x.provider_kind) for x in P.cloud_prices(cat, rent_gpu)]
        if rent_gpu
        else None,
    )
    if pq is not None and pq.filters.no_cloud:
        # "no cloud" / "I don't want to rent" / "不租云": owning alone, rent options left out (issue 14)
        rob = copy_with(rob, rent=(), break_even_hours=None, break_even_months=None)
        return RentBuyResult(rob, _cards(cat, [gpu]), no_cloud=True)
    model = cat.models.get(q.models[0]) if q.models else None
    cross = (
        costs.rent_card_cost(rob, rent_gpu, model.name if model is not None else None) if rent_gpu else None
    )
    if cross is not None and model is not None:
        cross = _with_fit(cat, q, model, cross)
    if cross is not None and len(q.gpu_counts) == 2 and q.gpus[:2] == (gpu, rent_gpu):
        cross = copy_with(cross, buy_count=int(q.gpu_counts[0]), rent_count=int(q.gpu_counts[1]))
    named = [gpu, *(r.gpu for r in rob.rent), *[g for g in (rent_gpu, unpriced) if g]]
    return RentBuyResult(rob, _cards(cat, named), rent_card=cross, rent_unpriced=unpriced)


def _with_fit(cat: Catalog, q: Query, model: Any, cross: costs.RentCardCost) -> costs.RentCardCost:
    """Whether the named model, as asked, fits each of the two cards (two memory estimates): the
    costs compare speed, and a card that cannot hold the work does not do it at any price."""
    from bot.core.memory import GB
    from bot.core.recommend import fit_estimate

    try:
        buy = fit_estimate(cat, model, cat.gpus[cross.buy_gpu], q)
        rent = fit_estimate(cat, model, cat.gpus[cross.rent_gpu], q)
    except Exception:  # a model the memory model cannot size: the costs still stand, fit unsaid
        return cross
    band = (max(buy.low, buy.weights) / GB, buy.high / GB) if buy.high else None
    return copy_with(
        cross, fits_buy=buy.fits, fits_rent=rent.fits, required_gb=buy.total / GB, required_gb_band=band
    )


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
