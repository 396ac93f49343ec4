"""Compare replies: two or more cards side by side for a model or a representative set."""

from __future__ import annotations

from bot.core import recommend
from bot.core.knowledge import GPU, Catalog, Model
from bot.core.replies.fit import fit_entry
from bot.core.replies.phrasing import (
    card_label,
    change_hint,
    price_label,
    round_tp,
    source_lines,
    throughput_phrase,
)
from bot.core.types import Answer, ComparisonRow, Intent, Query

__all__ = ["compare_reply"]


def compare_reply(cat: Catalog, q: Query, gpus: list[GPU], m: Model | None) -> Answer:
    res = recommend.compare(cat, gpus, m, q)
    rows = res.rows
    a, b = rows[0], rows[1]

    def label(r: recommend.CompareRow) -> str:
        return f"{r.count}x {card_label(r.gpu)}" if r.count > 1 else card_label(r.gpu)

    fast, slow = (a, b) if (a.relative_speed or 0) >= (b.relative_speed or 0) else (b, a)
    ratio = (fast.relative_speed or 0) / (slow.relative_speed or 1)
    subject = f" for {m.name}" if m else " across typical workloads"
    if abs(ratio - 1) < 0.05:
        verdict = f"{label(a)} and {label(b)} are about as fast{subject}"
    else:
        verdict = f"{label(fast)} is about {ratio:.1f}x faster than {label(slow)}{subject}"
    if m is not None:
        fits = [r.fits for r in rows]
        if all(fits):
            same = a.gpu.vram_gb == b.gpu.vram_gb and a.count == b.count
            verdict += f"; both have {a.gpu.vram_gb:g} GB, so both fit." if same else "; both fit."
        elif not any(fits):
            verdict += "; neither fits as asked."
        else:
            ok = [r for r in rows if r.fits][0]
            verdict += f"; only {label(ok)} fits."
    else:
        verdict += "."
    details: list[str] = []
    out_rows: list[ComparisonRow] = []
    for r in rows:
        g = r.gpu
        fit_s = ""
        if m is not None:
            mb = f", max batch {r.max_batch:,}" if r.max_batch else ""
            fit_s = f"fits{mb}" if r.fits else "does not fit"
        else:
            fit_s = ", ".join(f"{cat.models[mid].name} {'ok' if ok else 'no'}" for mid, ok, _ in r.per_model)
        value = f"{r.value:.2f}x/$1k" if r.value else "n/a"
        tp = throughput_phrase(r.speed)
        each = " each" if r.count > 1 else ""
        details.append(
            f"{label(r)}: {g.vram_gb:g} GB{each} | {fit_s} | {r.relative_speed or 0:.2f}x{tp} | "
            f"{price_label(g, r.count)} | {value} | {g.tdp_w * r.count} W"
        )
        out_rows.append(
            ComparisonRow(
                gpu=g.id,
                name=label(r),
                vram_gb=g.vram_gb,
                price_usd=g.price_usd * r.count if g.price_usd else None,
                price_date=g.price_date,
                fits=r.fits,
                max_batch_size=r.max_batch,
                relative_speed=round(r.relative_speed, 3) if r.relative_speed is not None else None,
                speed_basis=r.speed_basis,
                value=round(r.value, 3) if r.value else None,
                tdp_w=g.tdp_w * r.count,
                throughput=round_tp(r.speed.unit_value) if r.speed else None,
                throughput_unit=r.speed.unit if r.speed else None,
                price_label=price_label(g, r.count),
                count=r.count,
            )
        )
    if res.workload is not None and m is not None:
        batch = f", batch {q.batch_size}" if q.batch_size else ""
        assumptions = (f"Assumed: {res.workload.describe()}{batch}. {change_hint(res.workload, m)}",)
    else:
        assumptions = ('Assumed: typical workloads; add a model ("... for llama 3 8b") to compare on it.',)
    basis_kinds = {r.speed_basis for r in rows}
    # the JSON's fit list holds one entry per (model, card) the question is about
    fit_entries = tuple(fit_entry(cat, m, r.gpu, r.estimate) for r in rows if m is not None and r.estimate)
    multi = any(r.count > 1 for r in rows)
    basis = (
        "Speed relative to the RTX 3090: "
        + ("measured (Lambda benchmarks)" if basis_kinds == {"measured"} else "modelled or partly measured")
        + "; memory modelled; prices dated."
        + (" Several cards: speed scaled from one card by an estimated efficiency." if multi else ""),
    )
    return Answer(
        intent=Intent.COMPARE,
        query=q,
        verdict=verdict,
        details=tuple(details),
        assumptions=assumptions,
        basis=basis,
        comparison=tuple(out_rows),
        fit=fit_entries,
        sources=source_lines([*gpus, *([m] if m else [])]),
    )
