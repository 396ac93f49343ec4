"""Fit replies: will the model fit the card(s), the memory breakdown, the largest batch, what would make it fit."""

from __future__ import annotations

from dataclasses import replace

from bot.core import memory, recommend
from bot.core.knowledge import GPU, Catalog, Model
from bot.core.memory import GB, Estimate
from bot.core.replies.phrasing import (
    LEGACY_NOTE,
    assumption_line,
    breakdown_line,
    card_label,
    gb,
    price_label,
    seq_warning,
    short_name,
    source_lines,
    split_parallelism,
    task_phrase,
    uncurated_note,
)
from bot.core.types import Answer, FitEntry, Intent, Query, Task

__all__ = [
    "fit_entry",
    "fit_reply",
    "suggestion_phrase",
    "known_to_run",
    "multi_verdict",
    "fit_models_alone_reply",
    "smallest_fitting",
]


def fit_entry(cat: Catalog, m: Model, g: GPU | None, e: Estimate) -> FitEntry:
    return FitEntry(
        model=m.id,
        gpu=g.id if g else None,
        num_gpus=e.workload.num_gpus,
        fits=e.fits,
        required_gb=round(e.total / GB, 2),
        vram_gb=g.vram_gb if g else None,
        max_batch_size=e.max_batch_size,
        breakdown_gb=e.breakdown_gb(),
        basis=e.basis,
        assumptions=e.assumptions(),
        headroom_gb=round(e.headroom / GB, 2) if e.headroom is not None else None,
        measured_note=e.measured_note,
        capacity_gb=round(e.capacity / GB, 2) if e.capacity is not None else None,
    )


def fit_reply(cat: Catalog, q: Query, models: list[Model], gpus: list[GPU]) -> Answer:
    entries: list[FitEntry] = []
    verdicts: list[str] = []
    details: list[str] = []
    basis: list[str] = []
    assumptions: list[str] = []
    pairs = [(m, g) for m in models for g in gpus]
    single = len(pairs) == 1
    for m, g in pairs:
        e = recommend.fit_estimate(cat, m, g, q)
        entries.append(fit_entry(cat, m, g, e))
        n = e.workload.num_gpus
        where = f"{n}x {short_name(g)}" if n > 1 else short_name(g)
        per_card = " per card" if n > 1 else ""
        cap = f"{g.vram_gb:g} GB" + (" each" if n > 1 else "")
        # VRAM is sold in GiB ("24 GB" = 25.8e9 bytes); every figure we print is 1e9-byte GB
        cap_gb = gb(memory.usable_bytes(g))
        if e.fits:
            v = (
                f"Yes - {task_phrase(m, e)} fits {where} ({cap}): "
                f"about {gb(e.total)} of {cap_gb} used{per_card}."
            )
        elif (e.max_batch_size or 0) >= 1 and q.batch_size:
            v = (
                f"Not at batch {q.batch_size} - {task_phrase(m, e)} on {where} ({cap}) "
                f"tops out at batch {e.max_batch_size}."
            )
        else:
            have = "have" if n > 1 else "has"
            each = " each" if n > 1 else ""
            v = (
                f"No - {task_phrase(m, e)} needs about {gb(e.total)}{per_card}; "
                f"{where} {have} {cap_gb}{each} (sold as {g.vram_gb:g} GB)."
            )
        verdicts.append(v)
        if single:
            details.append(breakdown_line(e))
        mb = e.max_batch_size
        if mb is not None and mb >= 1:
            seq = f" at seq {e.workload.seq_len}" if e.workload.seq_len else ""
            src = " (measured)" if e.basis == "measured" else ""
            mbs = f"{mb:,}" if mb < 1_000_000 else "very large"
            which = "" if single else f" for {m.name} on {short_name(g)}"
            details.append(f"Largest batch{which}{seq}: {mbs}{src}.")
        if e.basis == "measured" and e.measured_note:
            basis.append(f"Max batch: {e.measured_note}; breakdown modelled.")
        known = known_to_run(cat, m, g, e)
        if known:
            details.append(known)
        if not e.fits:
            sugg = memory.suggest_changes(m, g, e, [c for c in cat.gpus.values() if recommend.buyable(c)])
            if sugg:
                details.append(
                    "Would fit: " + "; ".join(suggestion_phrase(cat, s, g) for s in sugg[:3]) + "."
                )
        if single and e.workload.trains and e.workload.method.value != "full":
            full = memory.estimate(m, None, task=e.workload.task, seq_len=e.workload.seq_len)
            details.append(f"Full fine-tuning would need about {gb(full.total)}.")
        if g.software == "rocm":
            details.append(
                f"{card_label(g)} runs PyTorch through ROCm, not CUDA: check your framework supports it."
            )
        if g.legacy_cuda:
            details.append(LEGACY_NOTE.format(card=card_label(g), arch=g.architecture))
        if single or not assumptions:
            assumptions.append(assumption_line(e, m))
        for note in (*e.workload.notes, *seq_warning(m, e)):
            if note not in details:
                details.append(note)
    if not basis:
        basis.append("Memory modelled from the model's config (formulas: `help memory`).")
    basis.extend(uncurated_note(gpus))
    verdict = verdicts[0] if single else multi_verdict(entries, cat)
    if not single:
        details = verdicts + details
    return Answer(
        intent=Intent.FIT,
        query=q,
        verdict=verdict,
        details=tuple(details),
        assumptions=tuple(assumptions),
        basis=tuple(basis),
        fit=tuple(entries),
        sources=source_lines([*models, *gpus]),
    )


def suggestion_phrase(cat: Catalog, s: memory.Suggestion, asked: GPU) -> str:
    if s.gpu_id and s.gpu_id != asked.id and s.gpu_id in cat.gpus:
        other = cat.gpus[s.gpu_id]
        return f"{s.change}: {card_label(other)} (about {s.total_gb:g} GB, {price_label(other)})"
    per = " per card" if s.num_gpus > 1 else ""
    return f"{s.change} (about {s.total_gb:g} GB{per})"


def known_to_run(cat: Catalog, m: Model, g: GPU, e: Estimate) -> str | None:
    """Lambda's TensorFlow benchmark batch for this model at this card's VRAM, when the setting matches."""
    w = e.workload
    if w.task is Task.INFERENCE or w.method.value != "full" or w.num_gpus != 1 or w.resolution:
        return None
    prec = "fp32" if w.precision.value == "fp32" else "fp16"
    mv = cat.benchmarks.known_batch(m.id, g.vram_gb, prec)  # the catalog's benchmarks know every card's VRAM
    if mv is None or mv.value <= 0:
        return None
    return (
        f"Measured: Lambda's TensorFlow benchmark trained {m.name} at batch {mv.value:g} "
        f"({prec}, {mv.basis})."
    )


def multi_verdict(entries: list[FitEntry], cat: Catalog) -> str:
    yes = [e for e in entries if e.fits]
    n = len(entries)
    if len(yes) == n:
        return "Both fit." if n == 2 else f"All {n} fit."
    if not yes:
        return "Neither fits." if n == 2 else f"None of the {n} fit."
    return f"{len(yes)} of {n} fit."


def fit_models_alone_reply(cat: Catalog, q: Query, models: list[Model]) -> Answer:
    entries: list[FitEntry] = []
    lines: list[str] = []
    assumptions: list[str] = []
    for m in models:
        e = recommend.fit_estimate(cat, m, None, q)
        entries.append(fit_entry(cat, m, None, e))
        n = e.workload.num_gpus
        per = f" per card on {n} cards" if n > 1 else ""
        lines.append(f"{task_phrase(m, e)} needs about {gb(e.total)}{per}.")
        smallest = smallest_fitting(cat, m, q)
        if len(models) == 1:
            lines.append(breakdown_line(e))
        if smallest:
            lines.append(smallest)
        if not assumptions:
            assumptions.append(assumption_line(e, m))
    verdict = lines[0]
    return Answer(
        intent=Intent.FIT,
        query=q,
        verdict=verdict,
        details=tuple(lines[1:]),
        assumptions=tuple(assumptions),
        basis=("Memory modelled from the model's config (formulas: `help memory`).",),
        fit=tuple(entries),
        sources=source_lines(models),
    )


def smallest_fitting(cat: Catalog, m: Model, q: Query) -> str | None:
    w = recommend.workload_for(m, q)
    terms = memory.profile(m, w)
    need = q.batch_size or 1
    fits = [g for g in cat.gpus.values() if memory.max_batch_per_card(terms, g) >= need]
    buyable = [g for g in fits if recommend.buyable(g)]
    if buyable:
        g = min(buyable, key=lambda g: (g.vram_gb, g.price_usd or 1e9))
        cheap = min(buyable, key=lambda g: g.price_usd or 0)
        s = f"Smallest card you can buy that fits: {card_label(g)}"
        if cheap.id != g.id:
            s += f"; cheapest: {card_label(cheap)} at {price_label(cheap)}"
        else:
            s += f" at {price_label(g)}"
        return s + "."
    if fits:
        g = min(fits, key=lambda g: g.vram_gb)
        return f"No workstation card holds it on its own; of server modules, {card_label(g)} does."
    big = max(cat.gpus.values(), key=lambda g: g.vram_gb)
    for n in (2, 4, 8):
        e = memory.estimate(m, big, workload=replace(w, num_gpus=n, parallelism=split_parallelism(w)))
        if e.fits:
            return f"No single card holds it; {n}x {card_label(big)} ({split_parallelism(w).value}) would."
    return "No single card holds it, not even 8 of the largest."
