"""Recommend results: which cards to buy within a budget, and why; what to change when nothing fits."""

from __future__ import annotations

from bot.core import memory, recommend
from bot.core.copy_with import copy_with
from bot.core.engine.common import assumptions_for, fix_from_suggestion
from bot.core.knowledge import Catalog, Model
from bot.core.names import card_label
from bot.core.results import GeneralResult, Pick, Reason, ReasonCode, RecommendResult
from bot.core.types import ComparisonRow, NoteCode, Query

__all__ = ["GENERAL_MIN_VRAM_GB", "recommend_result", "general_result", "round_tp", "candidate_rows"]


GENERAL_MIN_VRAM_GB = 12
_BUDGET_NO_AMOUNT = NoteCode.BUDGET_NO_AMOUNT  # (a global: NoteCode.X reads are slow on Python 3.11)

#: the reasons of a pick that is there only for its speed (left out when value was asked)
_SPEED_ONLY = frozenset(
    {
        ReasonCode.FASTEST_CONSUMER,
        ReasonCode.FASTEST_IN_RANGE,
        ReasonCode.RELATIVE_SPEED,
        ReasonCode.FITS_BATCH,
        ReasonCode.FITS_EASILY,
        ReasonCode.ROOM_LARGE_BATCHES,
        ReasonCode.ROOM_PARALLEL,
        ReasonCode.SMALL_BATCHES_ONLY,
        ReasonCode.RUNS_AS_Q4_K_M,
        ReasonCode.RUNS_AS_RELEASE,
        ReasonCode.MOST_MEMORY,
        ReasonCode.MOST_MEMORY_LLM,
    }
)


def round_tp(v: float | None) -> float | None:
    return None if v is None else (round(v) if v >= 100 else round(v, 1))


def _pick(c: recommend.Candidate, reasons: tuple[Reason, ...], count: int) -> Pick:
    return Pick(
        gpu=c.gpu,
        count=count,
        price_usd=c.price,
        max_batch=c.max_batch,
        relative_speed=round(c.speed.relative, 3),
        speed_basis=c.speed.basis,
        value=round(c.value, 3) if c.value else None,
        reasons=reasons,
        throughput=round_tp(c.speed.unit_value),
        throughput_unit=c.speed.unit,
        price_quote=c.quote,
    )


def recommend_result(cat: Catalog, q: Query, m: Model) -> RecommendResult:
    r = recommend.recommend(cat, m, q)
    w = r.workload
    n = w.num_gpus
    picks = tuple(_pick(c, reasons, n) for c, reasons in r.picks)
    value_first = r.budget_usd is None and any(x.code is _BUDGET_NO_AMOUNT for x in q.notes)
    if value_first:
        # "budget gpu for sdxl" (issue 10): value asked, so the fastest card alone is no pick
        kept = tuple(p for p in picks if not all(x.code in _SPEED_ONLY for x in p.reasons))
        picks = kept or picks
    extra: dict[str, object] = {}
    if r.picks and r.budget_usd is None:
        if r.best_value_fit is not None:
            extra["best_value"] = _pick(r.best_value_fit, (), n)
        if r.cheapest_fit is not None:
            extra["cheapest"] = _pick(r.cheapest_fit, (), n)
    if not r.picks:
        if r.cheapest_fit is not None:
            extra["cheapest_fit"] = _pick(r.cheapest_fit, (), n)
            extra["cheapest_fit_gb"] = r.cheapest_fit.total_gb
        else:
            need = memory.estimate(m, None, workload=copy_with(w, batch_size=r.batch_needed)).total
            extra["no_workstation_gb"] = need / memory.GB
            extra["server_fit"] = r.server_fit.gpu if r.server_fit is not None else None
        if r.fix is not None and r.fix_card is not None:
            extra["fix"] = copy_with(
                fix_from_suggestion(cat, r.fix, w),
                gpu=r.fix_card.gpu,
            )
            extra["fix_price_usd"] = (r.fix_card.gpu.price_usd or 0) * r.fix.num_gpus
        elif r.budget_usd is not None:
            how, gb = _no_fix(m, w)
            extra["no_fix_how"], extra["no_fix_gb"] = how, gb
    return RecommendResult(
        model=m,
        workload=w,
        budget_usd=r.budget_usd,
        picks=picks,
        batch_needed=r.batch_needed,
        batch_was_default=r.batch_was_default,
        assumptions=assumptions_for(q, w, batch=r.batch_needed, batch_default=r.batch_was_default),
        measured_count=sum(1 for c, _ in r.picks if c.speed.basis == "measured"),
        price_filter=str(q.price_question.filters.condition.value)
        if q.price_question is not None and q.price_question.filters.condition
        else None,
        price_dates=tuple(sorted({c.gpu.price_date for c, _ in r.picks if c.gpu.price_date})),
        notes=r.notes,
        value_first=value_first,
        candidates_of=r.considered_of,
        **extra,  # type: ignore[arg-type]
    )


def _no_fix(m: Model, w: memory.Workload) -> tuple[str, float]:
    """The smallest footprint there is (QLoRA / 4-bit / as asked): why no change helps in budget."""
    if w.trains and m.kind in memory.TRANSFORMER_KINDS:
        low = copy_with(
            w,
            method=memory.Method.QLORA,
            precision=memory.Precision.INT4,
            grad_checkpointing=True,
            lora_rank=memory.QLORA_RANK,
            seq_len=min(w.seq_len or 512, 512),
        )
        how = "qlora"
    elif not w.trains and m.kind in memory.TRANSFORMER_KINDS:
        low = copy_with(w, precision=memory.Precision.INT4)
        how = "int4"
    else:
        low, how = w, "as_asked"
    e = memory.estimate(m, None, workload=copy_with(low, batch_size=1))
    return how, e.total / memory.GB


def general_result(cat: Catalog, q: Query) -> GeneralResult:
    """No model named: rank cards in budget across a representative workload set."""
    # with no budget, consumer cards only: a $30,000 datacenter card is not an answer to "what should I buy"
    pool = [
        g
        for g, buy in recommend._cards(cat)  # (whether each card is buyable, once per catalog)
        if buy
        and ((g.price_usd or 0) <= q.budget_usd if q.budget_usd is not None else g.segment == "consumer")
    ]
    if not pool:
        cheapest = min((g for g in cat.gpus.values() if g.price_usd), key=lambda g: g.price_usd or 0)
        return GeneralResult(
            budget_usd=q.budget_usd, picks=(), min_vram_gb=GENERAL_MIN_VRAM_GB, cheapest_on_file=cheapest
        )
    by_id = recommend.representative_rows(cat)
    rows = sorted((by_id[g.id] for g in pool), key=lambda r: -(r.relative_speed or 0))
    fastest = rows[0]
    # value among cards with room for today's models (the 2020 guide's "most models" tier was 8 GB;
    # with LLMs in the mix it is 12 GB): a 6 GB card is cheap per unit of speed but not a good buy
    roomy = [r for r in rows if r.gpu.vram_gb >= GENERAL_MIN_VRAM_GB] or rows
    flagged = recommend.price_flagged(cat)  # old estimates and older cards at a 3060's price: no value pick
    roomy = [r for r in roomy if r.gpu.id not in flagged] or roomy
    best_value = max(roomy, key=lambda r: r.value or 0)
    most_mem = max(rows, key=lambda r: (r.gpu.vram_gb, r.relative_speed or 0))
    value_first = q.budget_usd is None and any(n.code is NoteCode.BUDGET_NO_AMOUNT for n in q.notes)
    chosen: list[tuple[recommend.CompareRow, Reason]] = [(fastest, Reason(ReasonCode.FASTEST_IN_RANGE))]
    if value_first:
        # "best budget gpu", "性价比最高的显卡" (issue 10): the best value leads, then the cheapest card
        # with room for today's models; not the fastest (a $3,000+ card is not a budget answer)
        cheapest_row = min(roomy, key=lambda r: (r.gpu.price_usd or 0, -(r.relative_speed or 0)))
        chosen = [(best_value, Reason(ReasonCode.BEST_VALUE_MIN_VRAM, GENERAL_MIN_VRAM_GB))]
        if cheapest_row is not best_value:
            chosen.append((cheapest_row, Reason(ReasonCode.CHEAPEST_MIN_VRAM, GENERAL_MIN_VRAM_GB)))
    if not value_first and most_mem is not fastest and most_mem.gpu.vram_gb > fastest.gpu.vram_gb:
        chosen.append((most_mem, Reason(ReasonCode.MOST_MEMORY_LLM)))
    if not value_first and best_value not in [p for p, _ in chosen]:
        chosen.append((best_value, Reason(ReasonCode.BEST_VALUE_MIN_VRAM, GENERAL_MIN_VRAM_GB)))
    picks = tuple(
        Pick(
            gpu=row.gpu,
            count=1,
            price_usd=row.gpu.price_usd,
            max_batch=None,
            relative_speed=round(row.relative_speed or 0, 3),
            speed_basis=row.speed_basis,
            value=round(row.value, 3) if row.value else None,
            reasons=(Reason(ReasonCode.RELATIVE_SPEED, round(row.relative_speed or 0, 2)), why),
        )
        for row, why in chosen
    )
    return GeneralResult(
        budget_usd=q.budget_usd, picks=picks, min_vram_gb=GENERAL_MIN_VRAM_GB, value_first=value_first
    )


def candidate_rows(result: RecommendResult) -> tuple[ComparisonRow, ...]:
    """Every priced card the recommendation weighed, as rows (for charts; built only when drawn)."""
    return tuple(
        ComparisonRow(
            gpu=c.gpu.id,
            name=card_label(c.gpu),
            vram_gb=c.gpu.vram_gb,
            price_usd=c.price,
            price_date=c.gpu.price_date,
            fits=c.fits,
            max_batch_size=c.max_batch,
            relative_speed=c.speed.relative,
            speed_basis=c.speed.basis,
            value=c.value,
            tdp_w=c.gpu.tdp_w,
        )
        for c in (result.candidates_of() if result.candidates_of is not None else result.candidates)
    )
