"""Compare results: two or more cards side by side for a model or a representative set."""

from __future__ import annotations

from bot.core import recommend
from bot.core.engine.common import assumptions_for
from bot.core.engine.fit import fit_entry
from bot.core.engine.picks import round_tp
from bot.core.knowledge import GPU, Catalog, Model
from bot.core.names import card_label
from bot.core.results import BasisCode, CompareResult, CompareRowData
from bot.core.types import ComparisonRow, Query

__all__ = ["compare_result", "row_label"]


def row_label(gpu: GPU, count: int) -> str:
    return f"{count}x {card_label(gpu)}" if count > 1 else card_label(gpu)


def compare_result(cat: Catalog, q: Query, gpus: list[GPU], m: Model | None) -> CompareResult:
    """The comparison as data, with its JSON rows (price labels filled by phrasing) and fit entries."""
    res = recommend.compare(cat, gpus, m, q)
    rows = res.rows
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
            price_usd=r.gpu.price_usd * r.count if r.gpu.price_usd else None,
            throughput=round_tp(r.speed.unit_value) if r.speed else None,
            throughput_unit=r.speed.unit if r.speed else None,
            per_model=tuple((mid, cat.models[mid].name, ok) for mid, ok, _ in r.per_model),
        )
        for r in rows
    )
    json_rows = tuple(
        ComparisonRow(
            gpu=r.gpu.id,
            name=row_label(r.gpu, r.count),
            vram_gb=r.gpu.vram_gb,
            price_usd=r.gpu.price_usd * r.count if r.gpu.price_usd else None,
            price_date=r.gpu.price_date,
            fits=r.fits,
            max_batch_size=r.max_batch,
            relative_speed=round(r.relative_speed, 3) if r.relative_speed is not None else None,
            speed_basis=r.speed_basis,
            value=round(r.value, 3) if r.value else None,
            tdp_w=r.gpu.tdp_w * r.count,
            throughput=round_tp(r.speed.unit_value) if r.speed else None,
            throughput_unit=r.speed.unit if r.speed else None,
            count=r.count,
        )
        for r in rows
    )
    entries = tuple(fit_entry(m, r.gpu, r.estimate) for r in rows if m is not None and r.estimate)
    kinds = {r.speed_basis for r in rows}
    basis = [BasisCode.SPEED_MEASURED if kinds == {"measured"} else BasisCode.SPEED_PARTLY_MEASURED]
    basis += [BasisCode.MEMORY_MODELLED, BasisCode.PRICES_DATED]
    if any(r.count > 1 for r in rows):
        basis.append(BasisCode.MULTI_CARD_SCALED)
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
    )
