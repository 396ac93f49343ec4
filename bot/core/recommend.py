"""Fit, recommend and compare over the catalog: the engine behind every answer.

Pure functions of (catalog, query). Memory comes from ``memory``, speed from
``speed``; this module decides which cards qualify, ranks them and writes
the one-line reasons.
"""

from __future__ import annotations

import functools
import math
import operator
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bot.core import memory, prices, speed
from bot.core.copy_with import copy_with
from bot.core.engine import builds
from bot.core.memory import GB, Estimate, Workload
from bot.core.quick_init import quick_init
from bot.core.results import Reason, ReasonCode
from bot.core.types import Intent, Method, Note, NoteCode, Parallelism, Precision, Query, Task, note

if TYPE_CHECKING:
    from bot.core.knowledge import GPU, Catalog, Model

__all__ = [
    "workload_for",
    "fit_estimate",
    "Candidate",
    "RecommendResult",
    "recommend",
    "CompareResult",
    "compare",
    "REPRESENTATIVE",
    "headroom_reason",
    "question_prices",
    "price_flagged",
]

# what "compare two cards" measures when no model is named
REPRESENTATIVE: tuple[tuple[str, Task], ...] = (
    ("resnet-50", Task.TRAINING),
    ("bert-base", Task.FINETUNE),
    ("llama-3-8b", Task.INFERENCE),
    ("sdxl", Task.INFERENCE),
)


# enum members read per card or per candidate, as module globals (Python 3.11 reads
# ``ReasonCode.FITS_BATCH`` through EnumType's slow attribute hook)
_TRAINING, _FULL, _FP32, _BF16 = Task.TRAINING, Method.FULL, Precision.FP32, Precision.BF16
_BATCH_SPLITS = frozenset({Parallelism.DATA, Parallelism.SHARDED})
_FITS_BATCH, _FITS_EASILY, _RELATIVE_SPEED = (
    ReasonCode.FITS_BATCH,
    ReasonCode.FITS_EASILY,
    ReasonCode.RELATIVE_SPEED,
)
_FASTEST_IN_RANGE, _BEST_VALUE, _MOST_MEMORY = (
    ReasonCode.FASTEST_IN_RANGE,
    ReasonCode.BEST_VALUE,
    ReasonCode.MOST_MEMORY,
)
_ROCM_REASON, _RUNS_AS_Q4_K_M = ReasonCode.ROCM, ReasonCode.RUNS_AS_Q4_K_M
_ROOM_LARGE_BATCHES, _ROOM_PARALLEL, _SMALL_BATCHES_ONLY = (
    ReasonCode.ROOM_LARGE_BATCHES,
    ReasonCode.ROOM_PARALLEL,
    ReasonCode.SMALL_BATCHES_ONLY,
)


def workload_for(model: Model, q: Query) -> Workload:
    w = _workload_for(model, q)
    return copy_with(w, parallelism_stated=True) if q.parallelism is not None and w.num_gpus > 1 else w


def _workload_for(model: Model, q: Query) -> Workload:
    return memory.resolve_workload(
        model,
        task=q.task,
        method=q.method,
        precision=q.precision,
        batch_size=q.batch_size,
        seq_len=q.seq_len,
        optimizer=q.optimizer,
        grad_checkpointing=q.grad_checkpointing,
        num_gpus=q.num_gpus,
        parallelism=q.parallelism,
        fused_attention=q.fused_attention,
        resolution=q.resolution,
        offload_text_encoders=q.offload,
        pure_16bit=q.pure_16bit,
        lora_targets=q.lora_targets,
        cpu_offload=q.offload,
        engine=q.engine,
        kv_cache=q.kv_cache,
    )


def _measured_batch(
    catalog: Catalog, model: Model, gpu: GPU, w: Workload, q: Query
) -> tuple[int, str] | None:
    """The 2020 guide's measured max batch, when the question matches its setting."""
    if (
        w.task is not _TRAINING
        or w.method is not _FULL
        or w.num_gpus != 1
        or q.seq_len is not None
        or q.resolution is not None
        or q.grad_checkpointing
        or q.precision not in (None, _FP32)
    ):
        return None
    mv = catalog.benchmarks.max_batch(model.id, gpu.id)
    if mv is None:
        return None
    return int(mv.value), "largest batch measured in Lambda's 2020 guide (training, precision not stated)"


def fit_estimate(
    catalog: Catalog,
    model: Model,
    gpu: GPU | None,
    q: Query,
    w: Workload | None = None,
    terms: Any = None,
) -> Estimate:
    """Memory estimate for one (model, card) pair, using measured data where it applies
    (``w``: ``workload_for(model, q)`` when the caller has it; ``terms``: ``memory.profile(model, w)``,
    the same on every card)."""
    if w is None:
        w = workload_for(model, q)
        terms = None
    mb = _measured_batch(catalog, model, gpu, w, q) if gpu is not None else None
    if mb is not None:
        return memory.estimate(
            model, gpu, workload=w, measured_max_batch=mb[0], measured_note=mb[1], terms=terms
        )
    return memory.estimate(model, gpu, workload=w, terms=terms)


def headroom_reason(max_batch: int, need: int, trains: bool) -> ReasonCode | None:
    """The 2020 guide's vocabulary ("requires small batch sizes"), relative to this workload."""
    if max_batch >= 1_000_000:
        return None
    if max_batch >= 4 * max(need, 1):
        return _ROOM_LARGE_BATCHES if trains else _ROOM_PARALLEL
    if max_batch < 2 * max(need, 1) and trains:
        return _SMALL_BATCHES_ONLY
    return None


@quick_init
@dataclass(frozen=True)
class Candidate:
    gpu: GPU
    max_batch: int
    fits: bool
    speed: speed.Speed
    price: float | None
    value: float | None  # relative speed per $1,000
    total_gb: float
    quote: Any = None  # prices.PriceQuote when the question's prices decide (a quoted price, "used only")
    build: str | None = None  # issue 11: the build it runs as (formats id) when no precision was asked
    workload: Workload | None = None  # issue 11: that build's workload (None: the result's workload)


@quick_init
@dataclass(frozen=True)
class RecommendResult:
    model: Model
    workload: Workload
    batch_needed: int
    batch_was_default: bool
    budget_usd: float | None
    picks: tuple[tuple[Candidate, tuple[Reason, ...]], ...]  # (candidate, reasons), best first
    in_budget: tuple[Candidate, ...]  # every priced card in budget that fits, fastest first
    considered_of: Callable[[], tuple[Candidate, ...]]  # () -> every priced card (charts, when drawn)
    cheapest_fit: Candidate | None  # ignoring the budget (with a budget: only when none is in it)
    best_value_fit: Candidate | None  # ignoring the budget (only with no budget)
    server_fit: Candidate | None = None  # smallest SXM/OAM module that fits, when no workstation card does
    fix: memory.Suggestion | None = None  # a change that makes a card in budget work
    fix_card: Candidate | None = None
    notes: tuple[Note, ...] = field(default_factory=tuple)

    @property
    def considered(self) -> tuple[Candidate, ...]:
        """Every priced card weighed, as candidates, in card order (for charts)."""
        return self.considered_of()


def _made(rows: tuple[_Row, ...]) -> tuple[Candidate, ...]:
    return tuple(Candidate(*r) for r in rows)


def question_prices(catalog: Catalog, q: Query) -> Callable[[GPU], Any] | None:
    """The price each card gets under the question's own prices: quotes ("I can get a 3090 for
    $650") override the catalog, "new only" / "used only" pick the kind. None: the catalog's prices."""
    pq = q.price_question
    if pq is None or not (pq.quotes or pq.filters.condition):
        return None

    quoted: dict[str, Any] = {}
    for x in pq.quotes:
        if len(x.gpu_ids) == 1 and x.usd and not x.hourly and x.gpu_ids[0] in catalog.gpus:
            gid = x.gpu_ids[0]
            new = prices.new_price(catalog, gid)
            used = x.condition == "used" or (x.condition is None and (new is None or x.usd < new.usd))
            kind = prices.PriceKind.USED if used else prices.PriceKind.NEW
            quoted[gid] = prices.quoted(gid, x.usd, kind, amount=x.amount, currency=x.currency)
    cond = pq.filters.condition.value if pq.filters.condition else None

    def price_of(g: GPU) -> Any:
        return prices.filtered_price(catalog, g.id, cond, None, quoted)

    return price_of


@functools.lru_cache(maxsize=8)
def _cards(catalog: Catalog) -> tuple[tuple[GPU, bool], ...]:
    """Every card with whether it is worth buying (``buyable``), in catalog order, once per catalog."""
    return tuple((g, buyable(g)) for g in catalog.gpus.values())


@functools.lru_cache(maxsize=8)
def _buyable_ids(catalog: Catalog) -> frozenset[str]:
    return frozenset(g.id for g, buy in _cards(catalog) if buy)


@functools.lru_cache(maxsize=16)
def _pool(catalog: Catalog, servers: bool) -> tuple[tuple[GPU, ...], list[float]]:
    """The cards worth buying (or, ``servers``, every other card) in catalog order, with their
    capacities: once per catalog. A recommendation weighs the first and looks at the second only
    when none of them fits (``_kept``)."""
    cards = tuple(g for g, buy in _cards(catalog) if bool(buy) != servers)
    return cards, [memory.usable_bytes(g) for g in cards]


def _batches(model: Model, w: Workload, need: int, capacities: list[float]) -> tuple[list[int], float]:
    """The largest batch on each capacity (the workload's cards together), in order, and the
    memory per card at ``need`` (the same on every card)."""
    terms = memory.profile(model, w)
    splits = w.parallelism in _BATCH_SPLITS
    b_card = math.ceil(need / w.num_gpus) if splits else need
    total_gb = memory.total_bytes(terms, b_card) / GB
    per_card = memory.max_batches(terms, capacities)
    n = w.num_gpus
    return ([b * n for b in per_card] if splits and n > 1 else per_card), total_gb  # (x 1: the same)


#: a candidate's fields in ``Candidate``'s order (gpu, max_batch, fits, speed, price, value, total_gb,
#: quote, build, workload): a recommendation weighs every card as one of these and makes a
#: ``Candidate`` only of the cards it decides among (the rest only for charts, when drawn)
_Row = tuple[Any, ...]


def _candidate(
    g: GPU,
    mb: int,
    need: int,
    n: int,
    sp: speed.Speed,
    total_gb: float,
    price_of: Callable[[GPU], Any] | None,
    build: str | None,
    tagged: Workload | None,
) -> _Row:
    """Card ``g`` as a candidate's fields: ``n`` of it, its largest batch ``mb``, its speed ``sp``."""
    if price_of is None:
        quote = None
        price = g.price_usd * n if g.price_usd else None
    else:
        quote = price_of(g)
        price = quote.usd * n if quote is not None else None
    value = sp.relative / (price / 1000.0) if price else None
    return (g, mb, mb >= need, sp, price, value, total_gb, quote, build, tagged)


def _candidates(
    catalog: Catalog,
    model: Model,
    w: Workload,
    need: int,
    price_of: Callable[[GPU], Any] | None = None,
    build: str | None = None,
    tagged: Workload | None = None,
    servers: bool = False,
) -> list[_Row]:
    """The catalog's cards as candidates for ``w`` (``build`` / ``tagged``: the build and workload
    each candidate carries), in catalog order: every card worth buying, or with ``servers`` every
    other card the workload fits (a server module); a card that is neither is no pick, no chart
    bar, no server. The two sets are built apart because a recommendation needs the server modules
    only when no card worth buying fits (``RecommendResult.server_fit``): ~45 candidates a
    question saved."""
    cards, capacities = _pool(catalog, servers)
    batches, total_gb = _batches(model, w, need, capacities)
    speeds = speed.speed_table(catalog, model.id, w.task, w.precision)
    n = w.num_gpus
    if price_of is None and not servers:
        # ``_candidate`` inlined for the common case (the catalog's prices, every card worth
        # buying): the same fields, without a call per card
        rows: list[_Row] = []
        for g, mb in zip(cards, batches, strict=True):
            sp = speeds[g.id]
            price = g.price_usd * n if g.price_usd else None
            value = sp.relative / (price / 1000.0) if price else None
            rows.append((g, mb, mb >= need, sp, price, value, total_gb, None, build, tagged))
        return rows
    return [
        _candidate(g, mb, need, n, speeds[g.id], total_gb, price_of, build, tagged)
        for g, mb in zip(cards, batches, strict=True)
        if not servers or mb >= need
    ]


@functools.lru_cache(maxsize=8)
def _runs_table(catalog: Catalog) -> dict[str, frozenset[str]]:
    """Per precision asked (fp32, fp16, bf16, fp8, ...), the catalog's cards that run it as asked
    (``support.precision_for`` gives no fallback): computed once per catalog."""
    from bot.core import support

    return {
        str(p): frozenset(
            g.id
            for g in catalog.gpus.values()
            if support.precision_for(g, str(p)).reason is support.FallbackReason.NONE
        )
        for p in Precision
    }


def _asked_precision(w: Workload, q: Query) -> str | None:
    """The precision a card must run for ``_runs_precision`` (None: any card will do)."""
    asked = str(q.precision) if q.precision is not None else None
    if asked is None and w.trains and w.precision is _BF16:
        asked = "bf16"
    if asked is None or asked in ("int8", "int4"):
        return None
    return asked


def _runs_precision(g: GPU, w: Workload, q: Query) -> bool:
    """The card runs the asked precision (support.precision_for), or the default bf16 it trains in:
    a Turing card is no pick for bf16 training, an Ampere one none for fp8 asked by name."""
    from bot.core import support

    asked = _asked_precision(w, q)
    if asked is None:
        return True
    return support.precision_for(g, asked).reason is support.FallbackReason.NONE


def _build_candidates(
    catalog: Catalog,
    model: Model,
    q: Query,
    w: Workload,
    need: int,
    price_of: Callable[[GPU], Any] | None,
    servers: bool = False,
) -> tuple[Workload, list[_Row]]:
    """LLM inference with no precision named (issue 11): a card is a candidate when the release
    build fits or, failing that, the Q4_K_M build people download; each says which. The cards
    worth buying, or with ``servers`` the server modules (see ``_candidates``)."""
    if not (builds.builds_apply(model, q) and model.kind in builds.LLM_KINDS):
        return w, _candidates(catalog, model, w, need, price_of, servers=servers)
    all_builds = builds.builds_of(catalog, model)
    if not all_builds:
        return w, _candidates(catalog, model, w, need, price_of, servers=servers)
    rel_w = builds.build_workload(model, w, all_builds[0])
    rid = all_builds[0].format_id
    q4 = next((b for b in all_builds if b.format_id == "gguf-q4_k_m"), None)
    if q4 is None:
        return rel_w, _candidates(catalog, model, rel_w, need, price_of, rid, rel_w, servers)
    q4_w = builds.build_workload(model, w, q4)
    # per card the release build when it fits, else Q4_K_M when that fits, else the release
    cards, capacities = _pool(catalog, servers)
    rel_b, rel_gb = _batches(model, rel_w, need, capacities)
    q4_b, q4_gb = _batches(model, q4_w, need, capacities)
    rel_sp = speed.speed_table(catalog, model.id, rel_w.task, rel_w.precision)
    q4_sp: dict[str, speed.Speed] | None = None
    n = w.num_gpus  # (the builds' workloads keep the question's count of cards)
    out: list[_Row] = []
    q4_id = q4.format_id
    for g, rb, qb in zip(cards, rel_b, q4_b, strict=True):
        if rb >= need or qb < need:
            if servers and rb < need:
                continue  # (a server module is a candidate only when it fits)
            mb, sp, total_gb, fid, bw = rb, rel_sp[g.id], rel_gb, rid, rel_w
        else:
            if q4_sp is None:
                q4_sp = speed.speed_table(catalog, model.id, q4_w.task, q4_w.precision)
            mb, sp, total_gb, fid, bw = qb, q4_sp[g.id], q4_gb, q4_id, q4_w
        if price_of is None:  # (``_candidate`` inlined for the catalog's prices, as in ``_candidates``)
            price = g.price_usd * n if g.price_usd else None
            value = sp.relative / (price / 1000.0) if price else None
            out.append((g, mb, mb >= need, sp, price, value, total_gb, None, fid, bw))
        else:
            out.append(_candidate(g, mb, need, n, sp, total_gb, price_of, fid, bw))
    return rel_w, out


def _precision_checked(catalog: Catalog, rows: list[_Row], w: Workload, q: Query) -> list[_Row]:
    """``rows`` with ``fits`` False on a card that cannot run the asked precision: never a pick for it."""
    asked = _asked_precision(w, q)
    if asked is None:
        return rows
    runs = _runs_table(catalog).get(asked)
    return [
        r
        if not r[2] or (r[0].id in runs if runs is not None else _runs_precision(r[0], w, q))
        else (r[0], r[1], False, *r[3:])
        for r in rows
    ]


def _absent(c: Candidate, chosen: list[Candidate]) -> bool:
    """``c not in chosen`` by identity: a pool holds one candidate per card, so no two are equal
    (and ``==`` would compare every field of two cards to say so)."""
    return all(x is not c for x in chosen)


def recommend(catalog: Catalog, model: Model, q: Query) -> RecommendResult:
    """Cards within budget on which the workload fits, ranked by speed, with reasons."""
    w = workload_for(model, q)
    need = q.batch_size or memory.default_batch(model, w.task)
    ref = catalog.gpu(speed.REFERENCE_GPU)
    price_of = question_prices(catalog, q)
    w0 = w
    w, rows = _build_candidates(catalog, model, q, w0, need, price_of)  # the cards worth buying
    rows = _precision_checked(catalog, rows, w, q)
    priced = [r for r in rows if r[4] is not None]
    budget = q.budget_usd
    fit_rows = [r for r in priced if r[2]]
    # candidates of the cards decided among, in card order: those in budget (or every one that fits,
    # with no budget or none in budget: the cheapest fit is said then)
    if budget is None:
        fitting = [Candidate(*r) for r in fit_rows]
        in_budget = list(fitting)
    else:
        in_budget = [Candidate(*r) for r in fit_rows if (r[4] or 0) <= budget]
        # (the fits beyond the budget are read only when none is in it: the cheapest fit is said)
        fitting = [] if in_budget else [Candidate(*r) for r in fit_rows]
    in_budget.sort(key=lambda c: (-c.speed.relative, c.price or 0))
    # the cheapest and the best value that fit, ignoring the budget: an answer says the first with no
    # budget or none in it, the second with no budget (the fields are None when no answer reads them)
    cheapest = (
        min(fitting, key=lambda c: (c.price or 0, -c.speed.relative), default=None)
        if budget is None or not in_budget
        else None
    )
    flagged = price_flagged(catalog)
    best_value = best_value_of(fitting, flagged) if fitting and budget is None else None

    picks: list[tuple[Candidate, tuple[Reason, ...]]] = []
    if budget is not None:
        chosen: list[Candidate] = []
        if in_budget:
            chosen.append(in_budget[0])
            bv = best_value_of(in_budget, flagged)
            if _absent(bv, chosen):
                chosen.append(bv)
            mem = max(in_budget, key=lambda c: (c.gpu.vram_gb, c.speed.relative))
            if _absent(mem, chosen) and mem.gpu.vram_gb > chosen[0].gpu.vram_gb:
                chosen.append(mem)
            for c in in_budget:
                if len(chosen) >= 3:
                    break
                if _absent(c, chosen):
                    chosen.append(c)
        chosen = sorted(chosen[:3], key=lambda c: -c.speed.relative)
        marks = _pool_marks(in_budget, flagged, bv if in_budget else None)
        picks = [(c, _reason(c, in_budget, w, need, model, flagged, marks)) for c in chosen]
    else:
        chosen = []
        if cheapest is not None:
            chosen.append(cheapest)
        if best_value is not None and _absent(best_value, chosen):
            chosen.append(best_value)
        consumer = [c for c in in_budget if c.gpu.segment == "consumer"]
        fastest_consumer = consumer[0] if consumer else None
        if fastest_consumer is not None and _absent(fastest_consumer, chosen):
            chosen.append(fastest_consumer)
        labels = {id(cheapest): ReasonCode.CHEAPEST_FIT, id(fastest_consumer): ReasonCode.FASTEST_CONSUMER}
        picks = []
        marks = _pool_marks(fitting, flagged, best_value)
        for c in chosen[:3]:
            reason = _reason(c, fitting, w, need, model, flagged, marks)
            if id(c) in labels:
                reason += (Reason(labels[id(c)]),)
            picks.append((c, reason))

    server_fit = None
    if not fit_rows:  # (the result carries a server module only when no workstation card fits)
        _, others = _build_candidates(catalog, model, q, w0, need, price_of, servers=True)
        servers = [r for r in _precision_checked(catalog, others, w, q) if r[2]]
        best = min(servers, key=lambda r: (r[0].vram_gb, r[0].price_usd or 0), default=None)
        server_fit = Candidate(*best) if best is not None else None
    fix = fix_card = None
    if not in_budget:
        # nothing fits as asked: the cheapest change that makes a card (within budget, if any) work
        fix, fix_card = _fix_for_budget(catalog, model, w, need, budget, ref, q)
    notes: list[Note] = []
    if any(c.gpu.software == "rocm" for c, _ in picks):
        notes.append(note(NoteCode.ROCM))
    # no card worth buying holds it: list the multi-card and one-box setups that do (a server module
    # or a Mac that holds one build is one of them, not a reason to say nothing)
    notes += _issue11_notes(catalog, model, q, w, need, not fit_rows)
    return RecommendResult(
        model=model,
        workload=w,
        batch_needed=need,
        batch_was_default=q.batch_size is None,
        budget_usd=budget,
        picks=tuple(picks),
        in_budget=tuple(in_budget),
        considered_of=functools.partial(_made, tuple(priced)),
        cheapest_fit=cheapest,
        best_value_fit=best_value,
        server_fit=server_fit,
        fix=fix,
        fix_card=fix_card,
        notes=tuple(notes),
    )


def _issue11_notes(
    catalog: Catalog, model: Model, q: Query, w: Workload, need: int, none_fits: bool
) -> list[Note]:
    """MoE total/active parameters; when no single card holds the model, the multi-card setups
    that do (release build and Q4_K_M), fewest cards first."""
    out: list[Note] = []
    if model.kind == "moe-decoder" and model.active_params:
        out.append(
            note(
                NoteCode.MOE_PARAMS,
                model=model.name,
                total_b=round(model.params / 1e9, 1),
                active_b=round(model.active_params / 1e9, 1),
            )
        )
    if not none_fits or w.trains or w.num_gpus != 1:
        return out
    wanted: list[tuple[str, Workload]] = []
    if builds.builds_apply(model, q) and model.kind in builds.LLM_KINDS:
        bl = builds.builds_of(catalog, model)
        base = copy_with(w, weights_bytes=None, format_id="")
        for b in bl:
            if b.is_release or b.format_id == "gguf-q4_k_m":
                wanted.append((b.format_id, builds.build_workload(model, base, b)))
    else:
        wanted.append(("", w))
    big = _big_cards(catalog)
    for fmt_id, bw in wanted:
        setups: list[tuple[int, float, float, GPU]] = []
        # the release build is served with vLLM / SGLang, which take 90% of each card up front
        # (gpu_memory_utilization) and need room in it for the KV cache: 700 GB of FP8 weights is
        # 8x H200 / B200 / MI300X, as deployed, not 4x at 89% full
        served = fmt_id != "" and not fmt_id.startswith("gguf")
        # an inference estimate's per-card total does not depend on the card: once per count
        totals: dict[int, float] = {}
        for g, cap in big:
            for n in (2, 4, 8):
                if n not in totals:
                    tw = copy_with(bw, num_gpus=n, parallelism=Parallelism.TENSOR, batch_size=need)
                    # (``memory.estimate(model, None, workload=tw).total``: the same sum, without
                    # building an estimate for its total alone)
                    totals[n] = memory.total_bytes(memory.profile(model, tw), need)
                total = totals[n]
                if total <= cap * SERVE_WEIGHT_SHARE if served else total <= cap:
                    setups.append((n, n * g.vram_gb, total / GB, g))
                    break
        setups.sort(key=lambda s: (s[0], s[1]))
        picked: list[dict[str, Any]] = []
        sizes: set[tuple[str, str]] = set()
        for n, _, per, g in setups:
            if len(picked) >= 3:
                break
            if (g.vendor, g.architecture) in sizes:  # one card per architecture (B200 and GB200 say the same)
                continue
            sizes.add((g.vendor, g.architecture))
            usd = n * g.price_usd if g.price_usd else None  # the setup's cards at the catalog's price
            picked.append({"card": g.id, "name": g.name, "n": n, "gb": round(per, 1), "usd": usd})
        if picked:
            out.append(note(NoteCode.MULTI_CARD_SETUPS, fmt=fmt_id, setups=picked))
    out += _unified_box_notes(catalog, model, q, w)
    out += _expert_offload_notes(catalog, model, q, w)
    return out


@functools.lru_cache(maxsize=8)
def _big_cards(catalog: Catalog) -> tuple[tuple[GPU, float], ...]:
    """The cards a multi-card setup is built from (40 GB or more, current CUDA, not a unified-memory
    machine) with their capacities, in catalog order: once per catalog."""
    return tuple(
        (g, memory.usable_bytes(g))
        for g in catalog.gpus.values()
        if g.vram_gb >= 40 and not g.legacy_cuda and not g.unified_memory
    )


@functools.lru_cache(maxsize=8)
def _boxes(catalog: Catalog) -> tuple[GPU, ...]:
    """The unified-memory machines with a default GPU share, smallest (then cheapest) first: once
    per catalog."""
    return tuple(
        sorted(
            (g for g in catalog.gpus.values() if g.unified_memory and g.gpu_memory_share),
            key=lambda g: (g.vram_gb, g.price_usd or 1e9),
        )
    )


def _unified_box_notes(catalog: Catalog, model: Model, q: Query, w: Workload) -> list[Note]:
    """No single card holds an LLM: the smallest unified-memory machine (Mac Studio, DGX Spark,
    Strix Halo) that holds a 4-bit-or-better build, at its default GPU share or once it is raised."""
    if model.kind not in builds.LLM_KINDS or not builds.builds_apply(model, q):
        return []
    boxes = _boxes(catalog)
    usable = {b.format_id for b in builds.builds_of(catalog, model) if b.precision not in builds.LOW_BITS}
    smallest = min(
        (b.weights_gb for b in builds.builds_of(catalog, model) if b.format_id in usable), default=0.0
    )
    base = copy_with(w, weights_bytes=None, format_id="", num_gpus=1)
    for g in boxes:
        for raised in (False, True):
            share = (g.vram_gb - builds.OS_RESERVE_GB) / g.vram_gb
            if raised and (g.gpu_memory_share is None or share <= g.gpu_memory_share):
                continue
            # (``usable_bytes`` of the raised box, without copying the card first: most boxes are
            # too small for the smallest build, decided on the number alone)
            room = float(g.usable_memory_at(share)) * memory.GIB if raised else memory.usable_bytes(g)
            if smallest * 1e9 > room:
                continue  # (the smallest build's weights alone pass the box's memory)
            box = copy_with(g, gpu_memory_share=share) if raised else g
            for b in builds.usable_builds(catalog, model, q, box):
                if b.format_id not in usable or b.weights_gb * 1e9 > room:
                    continue  # (weights alone past the box's memory: no estimate needed to say no)
                e = memory.estimate(model, box, workload=builds.build_workload(model, base, b))
                if e.fits:
                    return [
                        note(
                            NoteCode.UNIFIED_BOX,
                            card=g.id,
                            name=g.name,
                            fmt=b.format_id,
                            gb=round(e.total / GB, 1),
                            tps=builds.build_decode_tps(model, g, b),
                            raised=raised,
                            usd=g.price_usd or None,
                        )
                    ]
    return []


#: a multi-card setup for a served release build holds weights and overhead in at most this share of
#: each card: vLLM's 0.9 less room for the KV cache of a few long requests (an estimate)
SERVE_WEIGHT_SHARE = 0.75

#: the card an expert-offload offer is sized on: the common 24 GB card people own
OFFLOAD_CARDS = ("rtx-4090", "rtx-3090")


def _expert_offload_notes(catalog: Catalog, model: Model, q: Query, w: Workload) -> list[Note]:
    """No card holds an MoE model: its Q4_K_M build with the routed experts in system RAM
    (llama.cpp ``--n-cpu-moe`` / ``-ot``, KTransformers) when the rest fits one 24 GB card."""
    if model.kind != "moe-decoder" or not builds.builds_apply(model, q):
        return []
    q4 = next((b for b in builds.builds_of(catalog, model) if b.format_id == "gguf-q4_k_m"), None)
    g = next((catalog.gpus[c] for c in OFFLOAD_CARDS if c in catalog.gpus), None)
    if q4 is None or g is None:
        return []
    bw = builds.build_workload(model, copy_with(w, weights_bytes=None, format_id="", num_gpus=1), q4)
    v = builds.BuildVerdict(q4, memory.estimate(model, g, workload=bw), False)
    xo = builds.expert_offload(model, g, v)
    if xo is None or not xo.fits_gpu:
        return []
    ram = q.system_ram_gb
    return [
        note(
            NoteCode.MOE_CPU_OFFLOAD,
            fmt=xo.format_id,
            gpu_gb=xo.gpu_gb,
            ram_gb=xo.ram_gb,
            have_ram_gb=ram,
            enough=None if ram is None else ram >= xo.ram_gb,
        ),
        *builds.offload_speed_notes(model, g, xo, [v]),
        note(NoteCode.KTRANSFORMERS),
    ]


VALUE_MIN_SHARE = 0.4

# a candidate's relative speed and its card's memory, as sort keys (C-level getters)
_RELATIVE = operator.attrgetter("speed.relative")
_VRAM = operator.attrgetter("gpu.vram_gb")


def best_value_of(pool: list[Candidate], flagged: frozenset[str] = frozenset()) -> Candidate:
    """Most speed per dollar among cards at least 40% as fast as the fastest in the pool
    (or as the RTX 3090, when the pool's fastest is faster than that).

    Without the floor the cheapest old card always wins on the ratio (a $120
    card at a third of the speed) though nobody shopping in that range wants it;
    capping the floor at the reference keeps a no-budget pool, whose fastest
    card is a $8,000 workstation card, from excluding every affordable one.
    """
    top = min(max(map(_RELATIVE, pool)), 1.0)
    floor = VALUE_MIN_SHARE * top
    fair = [c for c in pool if c.speed.relative >= floor] or pool
    # a price that is an old estimate beside newer siblings' street prices, or an older card
    # at a 3060 12 GB's price, is not a value pick a buyer in 2026 would take (costs.price_sanity)
    fair = [c for c in fair if c.gpu.id not in flagged] or fair
    return max(fair, key=lambda c: c.value or 0)


@functools.lru_cache(maxsize=8)
def price_flagged(catalog: Catalog) -> frozenset[str]:
    """Cards whose price makes them no value pick (see ``costs.price_sanity``), once per catalog."""
    from bot.core import costs

    return frozenset(g for g in catalog.gpus if costs.price_sanity(catalog, g))


def _pool_marks(
    pool: list[Candidate], flagged: frozenset[str], best_value: Candidate | None = None
) -> tuple[Candidate, Candidate, Candidate] | None:
    """The pool's fastest, best-value and most-memory cards (``_reason``'s marks), once per pool
    (``best_value``: ``best_value_of(pool, flagged)`` when the caller has it)."""
    if not pool:
        return None
    fastest = max(pool, key=_RELATIVE)
    if best_value is None:
        best_value = best_value_of(pool, flagged)
    return fastest, best_value, max(pool, key=_VRAM)


def _reason(
    c: Candidate,
    pool: list[Candidate],
    w: Workload,
    need: int,
    model: Model,
    flagged: frozenset[str],
    marks: tuple[Candidate, Candidate, Candidate] | None = None,
) -> tuple[Reason, ...]:
    """Why this card, as codes: the batch it fits, its headroom, its speed, what it is best at.
    (``marks``: ``_pool_marks(pool, flagged)`` when the caller has it.)"""
    bits: list[Reason] = []
    if c.max_batch < 100_000:
        bits.append(Reason(_FITS_BATCH, c.max_batch))
    else:
        bits.append(Reason(_FITS_EASILY))
    room = headroom_reason(c.max_batch, need, w.trains)
    if room:
        bits.append(Reason(room))
    bits.append(Reason(_RELATIVE_SPEED, round(c.speed.relative, 2)))
    marks = marks or _pool_marks(pool, flagged)
    if marks is not None:
        fastest, best_val, most_mem = marks
        if c is fastest:
            bits.append(Reason(_FASTEST_IN_RANGE))
        if c is best_val:
            bits.append(Reason(_BEST_VALUE))
        if c is most_mem and c.gpu.vram_gb > fastest.gpu.vram_gb:
            bits.append(Reason(_MOST_MEMORY))
    if c.gpu.software == "rocm":
        bits.append(Reason(_ROCM_REASON))
    if c.build == "gguf-q4_k_m":
        bits.append(Reason(_RUNS_AS_Q4_K_M))
    return tuple(bits)


def _fix_for_budget(
    catalog: Catalog,
    model: Model,
    w: Workload,
    need: int,
    budget: float | None,
    ref: GPU,
    q: Query | None = None,
) -> tuple[memory.Suggestion | None, Candidate | None]:
    """What to change when nothing fits as asked.

    With a budget: the first change (cheapest to the user's goals) that makes
    a card within budget work, and the fastest such card. Without one: of all
    changes, the one that runs on the cheapest hardware.
    """
    limit = budget if budget is not None else float("inf")
    # the cards worth buying that the budget affords, with their capacities (per-catalog), in order
    cards, pool_caps = _pool(catalog, False)
    if budget is None:
        affordable, caps = list(cards), pool_caps
    else:
        n = w.num_gpus
        keep = [i for i, g in enumerate(cards) if (g.price_usd or 0) * n <= limit]
        affordable, caps = [cards[i] for i in keep], [pool_caps[i] for i in keep]
    if not affordable:
        return None, None  # (no change makes a card work when no card is affordable)
    top = [max(caps)]  # the largest: a change that does not fit it fits no affordable card
    runs_table = _runs_table(catalog)
    best: tuple[float, memory.Suggestion, Candidate] | None = None
    # (changes built one at a time: with a budget the first that works is the answer)
    for c in memory.iter_changes(model, copy_with(w, batch_size=need), multi_card=True):
        nw, b = c.workload, c.batch_size or need
        splits = nw.parallelism in _BATCH_SPLITS
        terms = memory.profile(model, nw)
        scale = nw.num_gpus if splits else 1
        if memory.max_batches(terms, top)[0] * scale < b:
            continue  # (the largest batch grows with the card's capacity)
        # the change keeps the asked precision (or bf16 training): a Turing card is no fix for it
        asked = _asked_precision(nw, q) if q is not None else None
        runs = runs_table.get(asked) if asked is not None else None
        # (every affordable card passes the price test at the question's count of cards: only a
        # change to more cards tests it again)
        more = nw.num_gpus != w.num_gpus
        ok = [
            g
            for g, per_card in zip(affordable, memory.max_batches(terms, caps), strict=True)
            if per_card * scale >= b and (not more or (g.price_usd or 0) * nw.num_gpus <= limit)
        ]
        if asked is not None and q is not None:
            ok = [g for g in ok if (g.id in runs if runs is not None else _runs_precision(g, nw, q))]
        if not ok:
            continue
        speeds = speed.speed_table(catalog, model.id, nw.task, nw.precision)
        if budget is None:
            g = min(ok, key=lambda g: ((g.price_usd or 0), -speeds[g.id].relative))
        else:
            g = max(ok, key=lambda g: (speeds[g.id].relative, -(g.price_usd or 0)))
        sp = speeds[g.id]
        total_gb = memory.total_bytes(terms, math.ceil(b / nw.num_gpus) if splits else b) / GB
        price = (g.price_usd or 0) * nw.num_gpus
        found = (
            price,
            memory.Suggestion(c.label, round(total_gb, 1), True, g.id, nw.num_gpus, c.patch),
            Candidate(g, b, True, sp, price, sp.relative / (price / 1000.0), total_gb),
        )
        if budget is not None:
            return found[1], found[2]
        if best is None or found[0] < best[0]:
            best = found
    return (best[1], best[2]) if best is not None else (None, None)


def buyable(g: GPU) -> bool:
    """Worth buying today: priced, a card that goes in a workstation (not an SXM/OAM
    server module), and supported by current CUDA and PyTorch wheels (not legacy_cuda).
    Memory-modded cards (no warranty, custom VBIOS) and Intel (oneAPI) cards are described and
    fit-checked but not recommended until answers carry their caveats (bot/core/support.py);
    laptop GPUs and unified-memory systems are not PCIe cards."""
    return (
        bool(g.price_usd)
        and g.form_factor == "pcie"
        and not g.legacy_cuda
        and not g.modded
        and g.software in ("cuda", "rocm")
    )


@quick_init
@dataclass(frozen=True)
class CompareRow:
    gpu: GPU
    fits: bool | None
    max_batch: int | None
    relative_speed: float | None
    speed_basis: str
    value: float | None
    total_gb: float | None
    per_model: tuple[tuple[str, bool, int], ...] = ()  # (model id, fits, max batch) for representative sets
    speed: speed.Speed | None = None  # with images/s or tokens/s when known
    count: int = 1  # how many of this card, together
    estimate: Estimate | None = None  # the memory estimate behind fits / max_batch (model comparisons)


@quick_init
@dataclass(frozen=True)
class CompareResult:
    rows: tuple[CompareRow, ...]
    model: Model | None
    workload: Workload | None
    representative: tuple[str, ...] = ()


@functools.lru_cache(maxsize=8)
def representative_rows(catalog: Catalog) -> dict[str, CompareRow]:
    """Every card's row over the representative workloads; computed once per catalog."""
    res = compare(catalog, list(catalog.gpus.values()), None, Query(intent=Intent.RECOMMEND))
    return {r.gpu.id: r for r in res.rows}


def compare(catalog: Catalog, gpus: list[GPU], model: Model | None, q: Query) -> CompareResult:
    """Side by side: VRAM, fit and max batch, relative speed, price, speed per dollar, power.

    Each card may come in its own count ("2x 3090 vs 4090": ``q.gpu_counts``);
    a row then prices, fits and speeds that many cards together.
    """
    ref = catalog.gpu(speed.REFERENCE_GPU)
    rows: list[CompareRow] = []
    counts = list(q.gpu_counts) if len(q.gpu_counts) == len(gpus) else [q.num_gpus] * len(gpus)
    if model is not None:
        # the shared assumptions: per-card counts are stated on each row
        w = workload_for(model, copy_with(q, num_gpus=1) if q.gpu_counts else q)
        # cards of one count share the workload and its memory terms
        per_count: dict[int, tuple[Query, Workload, Any]] = {}
        for g, n in zip(gpus, counts, strict=True):
            if n not in per_count:
                if not q.gpu_counts and n == q.num_gpus and (n > 1 or q.parallelism is None):
                    qn, wn = q, w  # (the copy below would change nothing: the question's own workload)
                else:
                    qn = copy_with(q, num_gpus=n, parallelism=q.parallelism if n > 1 else None)
                    wn = workload_for(model, qn)
                per_count[n] = (qn, wn, memory.profile(model, wn))
            qn, wq, terms = per_count[n]
            est = fit_estimate(catalog, model, g, qn, wq, terms)
            wn = est.workload
            sp = speed.relative_speed(model, g, wn.precision, task=wn.task, catalog=catalog, reference=ref)
            sp = speed.for_cards(sp, n, wn.parallelism)
            price = g.price_usd * n if g.price_usd else None
            rows.append(
                CompareRow(
                    g,
                    est.fits,
                    est.max_batch_size,
                    sp.relative,
                    sp.basis,
                    sp.relative / (price / 1000.0) if price else None,
                    est.total / GB,
                    speed=sp,
                    count=n,
                    estimate=est,
                )
            )
        return CompareResult(tuple(rows), model, w)
    reps = _reps(catalog)
    # one card of each: the row is the card's in the once-per-catalog table (the same arithmetic on
    # the same inputs: the question's intent, the only other thing passed, sizes no workload)
    one = _one_card_rows(catalog) if any(n == 1 for n in counts) else None
    for g, n in zip(gpus, counts, strict=True):
        row = one.get(g.id) if one is not None and n == 1 else None
        if row is None or row.gpu is not g:  # (a card made for the question: its own row)
            row = _representative_row(catalog, g, n, q.intent, reps, ref)
        rows.append(row)
    return CompareResult(tuple(rows), None, None, tuple(m.id for m, _ in reps))


def _reps(catalog: Catalog) -> list[tuple[Model, Task]]:
    return [(catalog.models[mid], t) for mid, t in REPRESENTATIVE if mid in catalog.models]


@functools.lru_cache(maxsize=8)
def _one_card_rows(catalog: Catalog) -> dict[str, CompareRow]:
    """Every card's row (one of it) over the representative workloads: once per catalog."""
    ref = catalog.gpu(speed.REFERENCE_GPU)
    reps = _reps(catalog)
    return {
        g.id: _representative_row(catalog, g, 1, Intent.RECOMMEND, reps, ref) for g in catalog.gpus.values()
    }


def _representative_row(
    catalog: Catalog, g: GPU, n: int, intent: Intent, reps: list[tuple[Model, Task]], ref: GPU
) -> CompareRow:
    """``n`` x ``g`` over the representative workloads (no model named): fits and the geometric mean
    of its speeds."""
    speeds = []
    lows: list[float] = []  # the band's ends per model (a card whose tensor rate is estimated)
    highs: list[float] = []
    per_model: list[tuple[str, bool, int]] = []
    basis = "modelled"
    for m, t in reps:
        rq = Query(intent=intent, task=t, num_gpus=n)
        est = fit_estimate(catalog, m, g, rq)
        w = est.workload
        one = speed.relative_speed(m, g, w.precision, task=w.task, catalog=catalog, reference=ref)
        sp = speed.for_cards(one, n, w.parallelism)
        speeds.append(sp.relative)
        if sp.low is not None and sp.high is not None:
            lows.append(sp.low)
            highs.append(sp.high)
        if one.basis == "measured":  # (one card's figure measured: the setup's is partly measured)
            basis = "measured"
        per_model.append((m.id, bool(est.fits), int(est.max_batch_size or 0)))
    rel = speed.geometric_mean(speeds)
    band = (
        speed.Speed(rel, "modelled", low=speed.geometric_mean(lows), high=speed.geometric_mean(highs))
        if lows and len(lows) == len(speeds)
        else None
    )
    price = g.price_usd * n if g.price_usd else None
    return CompareRow(
        g,
        None,
        None,
        rel,
        basis if basis == "modelled" else "partly measured",
        rel / (price / 1000.0) if price else None,
        None,
        tuple(per_model),
        speed=band,
        count=n,
    )
