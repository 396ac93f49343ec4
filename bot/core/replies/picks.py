"""Recommend replies: which cards to buy within a budget, and why; what to change when nothing fits."""

from __future__ import annotations

from dataclasses import replace

from bot.core import memory, recommend
from bot.core.knowledge import Catalog, Model
from bot.core.replies.phrasing import (
    card_label,
    change_hint,
    gb,
    price_label,
    round_tp,
    source_lines,
    workload_title,
)
from bot.core.types import Answer, ComparisonRow, Intent, Query, Recommendation

__all__ = ["GENERAL_MIN_VRAM_GB", "recommend_reply", "no_fix_line", "recommend_general_reply"]


GENERAL_MIN_VRAM_GB = 12


def recommend_reply(cat: Catalog, q: Query, m: Model) -> Answer:
    r = recommend.recommend(cat, m, q)
    w = r.workload
    budget = f" under ${r.budget_usd:,.0f}" if r.budget_usd is not None else ""
    what = workload_title(m, w)
    recs: list[Recommendation] = []
    details: list[str] = []
    for i, (c, reason) in enumerate(r.picks, 1):
        recs.append(
            Recommendation(
                gpu=c.gpu.id,
                name=card_label(c.gpu),
                price_usd=c.price,
                price_date=c.gpu.price_date,
                price_kind=c.gpu.price_kind,
                vram_gb=c.gpu.vram_gb,
                fits=c.fits,
                max_batch_size=c.max_batch,
                relative_speed=round(c.speed.relative, 3),
                speed_basis=c.speed.basis,
                value=round(c.value, 3) if c.value else None,
                reason=reason,
                throughput=round_tp(c.speed.unit_value),
                throughput_unit=c.speed.unit,
                price_label=price_label(c.gpu, w.num_gpus),
            )
        )
        count = f"{w.num_gpus}x " if w.num_gpus > 1 else ""
        details.append(f"{i}. {count}{card_label(c.gpu)} - {price_label(c.gpu, w.num_gpus)} - {reason}")
    if r.picks and r.budget_usd is not None:
        verdict = f"{what}{budget} -> {card_label(r.picks[0][0].gpu)} (fastest in budget)"
    elif r.picks:
        verdict = f"{what}: " + "; ".join(
            f"{label} {card_label(c.gpu)}"
            for label, c in (("best value", r.best_value_fit), ("cheapest that fits", r.cheapest_fit))
            if c is not None
        )
    else:
        verdict = f"Nothing{budget} fits {what} as asked."
        if r.cheapest_fit is not None:
            c = r.cheapest_fit
            details.append(
                f"Cheapest card that fits: {card_label(c.gpu)} at {price_label(c.gpu, w.num_gpus)} "
                f"(batch {r.batch_needed} needs about {c.total_gb:.1f} GB)."
            )
        else:
            need = memory.estimate(m, None, workload=replace(w, batch_size=r.batch_needed)).total
            server = (
                f"; of server modules, {card_label(r.server_fit.gpu)} does"
                if r.server_fit is not None
                else ""
            )
            details.append(
                f"No workstation card holds it (about {gb(need)}){server}. "
                "Several cards split it: ask with `2x` or `4x`."
            )
        if r.fix is not None and r.fix_card is not None:
            n = r.fix.num_gpus
            card = f"{n}x {card_label(r.fix_card.gpu)}" if n > 1 else card_label(r.fix_card.gpu)
            per = " per card" if n > 1 else ""
            lead = "To stay in budget" if r.budget_usd is not None else "Cheapest way to run it"
            rocm = "; ROCm, not CUDA" if r.fix_card.gpu.software == "rocm" else ""
            details.append(
                f"{lead}: {r.fix.change} it fits {card} "
                f"({price_label(r.fix_card.gpu, n)}{rocm}), about {r.fix.total_gb:g} GB{per}."
            )
        elif r.budget_usd is not None:
            details.append(no_fix_line(m, w, r.budget_usd))
    batch = f"batch {r.batch_needed}" + (" (default)" if r.batch_was_default else "")
    assumptions = (f"Assumed: {w.describe()}, {batch}. {change_hint(w, m)}",)
    measured = sum(1 for c, _ in r.picks if c.speed.basis == "measured")
    basis = [
        "Memory modelled (formulas: `help memory`); "
        + (
            f"speed measured for {measured} of {len(r.picks)} cards, modelled for the rest."
            if measured
            else "speed modelled from tensor TFLOPS and memory bandwidth, relative to the RTX 3090."
        )
    ]
    dates = sorted({c.gpu.price_date for c, _ in r.picks if c.gpu.price_date})
    if dates:
        basis.append(f"Prices as of {', '.join(dates)}; street prices move, check before buying.")
    details.extend(r.notes)
    candidates = tuple(
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
        for c in r.considered
    )
    return Answer(
        intent=Intent.RECOMMEND,
        query=q,
        verdict=verdict,
        details=tuple(details),
        assumptions=assumptions,
        basis=tuple(basis),
        recommendations=tuple(recs),
        sources=source_lines([m, *(c.gpu for c, _ in r.picks)]),
        candidates=candidates,
    )


def no_fix_line(m: Model, w: memory.Workload, budget: float) -> str:
    """Why no change helps within the budget: the smallest footprint still needs this much."""
    if w.trains and m.kind in memory.TRANSFORMER_KINDS:
        low = replace(
            w,
            method=memory.Method.QLORA,
            precision=memory.Precision.INT4,
            grad_checkpointing=True,
            lora_rank=memory.QLORA_RANK,
            seq_len=min(w.seq_len or 512, 512),
        )
        how = "with QLoRA"
    elif not w.trains and m.kind in memory.TRANSFORMER_KINDS:
        low = replace(w, precision=memory.Precision.INT4)
        how = "with 4-bit weights"
    else:
        low, how = w, "as asked"
    e = memory.estimate(m, None, workload=replace(low, batch_size=1))
    return (
        f"Even {how} it needs about {gb(e.total)}: no card (or pair of cards) under "
        f"${budget:,.0f} holds that."
    )


def recommend_general_reply(cat: Catalog, q: Query) -> Answer:
    """No model named: rank cards in budget across a representative workload set."""
    # with no budget, consumer cards only: a $30,000 datacenter card is not an answer to "what should I buy"
    pool = [
        g
        for g in cat.gpus.values()
        if recommend.buyable(g)
        and ((g.price_usd or 0) <= q.budget_usd if q.budget_usd is not None else g.segment == "consumer")
    ]
    if not pool:
        cheapest = min((g for g in cat.gpus.values() if g.price_usd), key=lambda g: g.price_usd or 0)
        return Answer(
            intent=Intent.RECOMMEND,
            query=q,
            verdict=f"No card on file costs under ${q.budget_usd:,.0f}.",
            details=(f"Cheapest on file: {card_label(cheapest)} at {price_label(cheapest)}.",),
            suggestions=q.suggestions,
            choices=q.choices,
        )
    by_id = recommend.representative_rows(cat)
    rows = sorted((by_id[g.id] for g in pool), key=lambda r: -(r.relative_speed or 0))
    fastest = rows[0]
    # value among cards with room for today's models (the 2020 guide's "most models" tier was 8 GB;
    # with LLMs in the mix it is 12 GB): a 6 GB card is cheap per unit of speed but not a good buy
    roomy = [r for r in rows if r.gpu.vram_gb >= GENERAL_MIN_VRAM_GB] or rows
    best_value = max(roomy, key=lambda r: r.value or 0)
    most_mem = max(rows, key=lambda r: (r.gpu.vram_gb, r.relative_speed or 0))
    picks: list[tuple[recommend.CompareRow, str]] = [(fastest, "fastest in range")]
    if most_mem is not fastest and most_mem.gpu.vram_gb > fastest.gpu.vram_gb:
        picks.append((most_mem, "most memory: language models are bound by memory"))
    if best_value not in [p for p, _ in picks]:
        picks.append((best_value, f"best $/perf with at least {GENERAL_MIN_VRAM_GB} GB"))
    budget = f" under ${q.budget_usd:,.0f}" if q.budget_usd is not None else ""
    details = []
    recs = []
    for i, (row, why) in enumerate(picks, 1):
        g = row.gpu
        details.append(
            f"{i}. {card_label(g)} - {price_label(g)} - {row.relative_speed or 0:.2f}x the RTX 3090; {why}"
        )
        recs.append(
            Recommendation(
                gpu=g.id,
                name=card_label(g),
                price_usd=g.price_usd,
                price_date=g.price_date,
                price_kind=g.price_kind,
                vram_gb=g.vram_gb,
                fits=True,
                max_batch_size=None,
                relative_speed=round(row.relative_speed or 0, 3),
                speed_basis=row.speed_basis,
                value=round(row.value, 3) if row.value else None,
                reason=why,
                price_label=price_label(g),
            )
        )
    suggestions = q.suggestions
    return Answer(
        intent=Intent.RECOMMEND,
        query=q,
        verdict=f"General deep learning{budget} -> {card_label(fastest.gpu)} "
        + ("(fastest in budget)" if q.budget_usd is not None else "(fastest consumer card)"),
        details=tuple(details),
        assumptions=(
            "Assumed: no particular model, so speed is the geometric mean over ResNet-50 training, "
            "BERT-Base fine-tuning, Llama 3 8B and SDXL inference"
            + (
                ", consumer cards only (add a budget to include workstation cards)"
                if q.budget_usd is None
                else ""
            )
            + ". Name your model to check it fits.",
        ),
        basis=("Speed modelled from tensor TFLOPS and memory bandwidth, relative to the RTX 3090.",),
        recommendations=tuple(recs),
        suggestions=suggestions,
        choices=q.choices,
    )
