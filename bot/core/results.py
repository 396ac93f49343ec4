"""What the engine hands the phrasing layer: typed, language-free results.

The engine (``bot.core.engine``) computes every number a reply says, once,
and returns one of the result classes below. The phrasing layer
(``bot.core.phrase``) reads these and nothing else: it never calls memory,
speed or recommendation code. Why something is said travels as a code (an
enum member) plus its values, so the JSON carries "why" without English and
each language phrases it its own way.

Codes are stable strings: tools read them from ``ask --json``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from bot.core.quick_init import quick_init
from bot.core.types import FitEntry, Lang, Method, Note, NoteCode, Parallelism, Precision, jsonable, note

if TYPE_CHECKING:
    from bot.core.knowledge import GPU, Model
    from bot.core.memory import Workload

__all__ = [
    "Lang",
    "NoteCode",
    "Note",
    "ReasonCode",
    "Reason",
    "ChangeKind",
    "SettingChange",
    "FixOption",
    "AssumptionName",
    "Assumption",
    "BasisCode",
    "Breakdown",
    "FitItem",
    "FitResult",
    "AloneItem",
    "Smallest",
    "FitAloneResult",
    "Pick",
    "RecommendResult",
    "GeneralResult",
    "CompareRowData",
    "CompareResult",
    "GpuFacts",
    "ModelFacts",
    "InfoResult",
    "ListResult",
    "HelpResult",
    "UnknownResult",
    "AskBackResult",
    "FailedResult",
    "RentBuyResult",
    "DealResult",
    "WhichCardResult",
    "Result",
    "note",
    "SpeedKind",
    "SpeedRow",
    "SpeedResult",
    "TimeResult",
    "ServeResult",
    "PickWhy",
    "ModelPick",
    "ModelPicksResult",
]


class ReasonCode(StrEnum):
    """Why a card is in a list of picks."""

    FITS_BATCH = "fits_batch"  # value: the largest batch
    FITS_EASILY = "fits_easily"
    ROOM_LARGE_BATCHES = "room_large_batches"
    ROOM_PARALLEL = "room_parallel_requests"
    SMALL_BATCHES_ONLY = "small_batches_only"
    RELATIVE_SPEED = "relative_speed"  # value: x the reference card
    FASTEST_IN_RANGE = "fastest_in_range"
    BEST_VALUE = "best_value"
    BEST_VALUE_MIN_VRAM = "best_value_min_vram"  # value: GB floor
    MOST_MEMORY = "most_memory"
    MOST_MEMORY_LLM = "most_memory_llm"
    CHEAPEST_FIT = "cheapest_fit"
    FASTEST_CONSUMER = "fastest_consumer"
    ROCM = "rocm"
    RUNS_AS_Q4_K_M = "runs_as_q4_k_m"  # issue 11: fits as the Q4_K_M build, not in the release format
    RUNS_AS_RELEASE = "runs_as_release"  # fits in the release format (FP8, MXFP4, bf16)
    CHEAPEST_MIN_VRAM = "cheapest_min_vram"  # value: GB floor (issue 10: "best budget gpu")


@quick_init
@dataclass(frozen=True)
class Reason:
    code: ReasonCode
    value: float | int | None = None

    def to_json(self) -> dict[str, Any]:
        return {"code": str(self.code), "value": self.value}


class ChangeKind(StrEnum):
    """A setting a user can change to need less memory."""

    PRECISION = "precision"
    METHOD = "method"
    OPTIMIZER = "optimizer"
    GRAD_CHECKPOINTING = "grad_checkpointing"
    SEQ_LEN = "seq_len"
    BATCH_SIZE = "batch_size"
    NUM_GPUS = "num_gpus"
    OFFLOAD = "offload_text_encoders"
    CARD = "gpu"


@quick_init
@dataclass(frozen=True)
class SettingChange:
    kind: ChangeKind
    before: Any
    after: Any

    def to_json(self) -> dict[str, Any]:
        return {"setting": str(self.kind), "from": jsonable(self.before), "to": jsonable(self.after)}


@quick_init
@dataclass(frozen=True)
class FixOption:
    """A change that makes the workload fit: which settings, and the memory per card after it."""

    changes: tuple[SettingChange, ...]
    total_gb: float
    num_gpus: int = 1
    parallelism: Parallelism | None = None
    gpu: GPU | None = None  # the card it then fits (another card when CARD is among the changes)
    trains: bool = False  # batch 1 means gradient accumulation when training

    def to_json(self) -> dict[str, Any]:
        return {
            "changes": [c.to_json() for c in self.changes],
            "resulting_gb": self.total_gb,
            "num_gpus": self.num_gpus,
            "parallelism": str(self.parallelism) if self.parallelism else None,
            "gpu": self.gpu.id if self.gpu is not None else None,
        }


class AssumptionName(StrEnum):
    TASK = "task"
    METHOD = "method"
    PRECISION = "precision"
    OPTIMIZER = "optimizer"
    SEQ_LEN = "seq_len"
    BATCH_SIZE = "batch_size"
    ATTENTION = "attention"
    GRAD_CHECKPOINTING = "grad_checkpointing"
    LORA_RANK = "lora_rank"
    RESOLUTION = "resolution"
    OFFLOAD = "offload_text_encoders"
    NUM_GPUS = "num_gpus"
    PARALLELISM = "parallelism"
    KV_CACHE = "kv_cache"  # issue 17: the KV cache's data type when not the model's 16 bits


@quick_init
@dataclass(frozen=True)
class Assumption:
    name: AssumptionName
    value: Any
    stated: bool  # the user said it (or picked it in a slash command), rather than a default

    def to_json(self) -> dict[str, Any]:
        return {"name": str(self.name), "value": jsonable(self.value), "stated": self.stated}


class BasisCode(StrEnum):
    """Where a number comes from."""

    MEMORY_MODELLED = "memory_modelled"
    MAX_BATCH_MEASURED = "max_batch_measured"  # Lambda 2020 guide
    MEMORY_MEASURED = "memory_measured"  # a published peak of the exact workload is quoted
    SPEED_MEASURED = "speed_measured"
    SPEED_PARTLY_MEASURED = "speed_partly_measured"
    SPEED_MODELLED = "speed_modelled"
    MULTI_CARD_SCALED = "multi_card_scaled"
    PRICES_DATED = "prices_dated"
    UNCURATED_SPECS = "uncurated_specs"


@quick_init
@dataclass(frozen=True)
class Breakdown:
    """Memory per card in decimal GB, by part; parts below 5 MB are left out."""

    weights: float = 0.0
    gradients: float = 0.0
    optimizer: float = 0.0
    activations: float = 0.0
    kv_cache: float = 0.0
    overhead: float = 0.0

    def parts(self) -> list[tuple[str, float]]:
        return [
            (name, getattr(self, name))
            for name in ("weights", "gradients", "optimizer", "activations", "kv_cache", "overhead")
            if getattr(self, name) >= 0.005
        ]


# --------------------------------------------------------------------------- fit


@quick_init
@dataclass(frozen=True)
class FitItem:
    """One (model, card) pair: will it fit, what the memory is made of, the largest batch."""

    model: Model
    gpu: GPU
    entry: FitEntry  # the JSON row
    workload: Workload
    total_gb: float  # per card
    capacity_gb: float  # one card, decimal GB
    breakdown: Breakdown
    batch_size: int | None  # as asked
    max_batch: int | None
    measured_max_batch: bool
    known_batch: tuple[float, str, str] | None = None  # (batch, precision, basis) from Lambda's TF benchmark
    fixes: tuple[FixOption, ...] = ()
    full_finetune_gb: float | None = None
    measured: Any = None  # measured.MeasuredMemory: a published peak of exactly this workload
    # issue 11: the build this item judges (formats.Build; None = the precision as asked), whether
    # it is the best build that fits (the verdict), and the fewest of this card it fits on
    build: Any = None
    headline: bool = False
    min_cards: int | None = None
    # issue 17: a "longest context" question: the memory at that context (None otherwise)
    max_context_breakdown: Breakdown | None = None
    # issue 17: the command that runs this build as the verdict says (commands.Command; None when
    # nothing runs it)
    command: Any = None

    @property
    def fits(self) -> bool:
        return bool(self.entry.fits)


@quick_init
@dataclass(frozen=True)
class FitResult:
    items: tuple[FitItem, ...]
    assumptions: tuple[Assumption, ...]
    notes: tuple[Note, ...] = ()
    basis: tuple[BasisCode, ...] = ()
    builds: bool = False  # issue 11: the items are builds of one (model, card), best quality first
    max_context: bool = False  # issue 17: the question asks for the longest context that fits
    how_many: bool = False  # issue 10: "how many h100s for X": the count of the named card leads


class Smallest(StrEnum):
    BUYABLE = "buyable"
    SERVER_ONLY = "server_only"
    MULTI = "multi"
    NONE = "none"


@quick_init
@dataclass(frozen=True)
class AloneItem:
    """A model with no card named: how much memory, and the smallest card that holds it."""

    model: Model
    entry: FitEntry
    workload: Workload
    total_gb: float
    breakdown: Breakdown
    smallest: Smallest
    smallest_gpu: GPU | None = None
    cheapest_gpu: GPU | None = None
    multi_count: int = 0
    multi_parallelism: Parallelism | None = None
    # issue 11: (formats.Build, memory in GB on one card, the smallest card worth buying that holds
    # it or None) for the builds people run, best first
    builds: tuple[tuple[Any, float, Any], ...] = ()


@quick_init
@dataclass(frozen=True)
class FitAloneResult:
    items: tuple[AloneItem, ...]
    assumptions: tuple[Assumption, ...]
    notes: tuple[Note, ...] = ()


# --------------------------------------------------------------------------- recommend


@quick_init
@dataclass(frozen=True)
class Pick:
    gpu: GPU
    count: int
    price_usd: float | None
    max_batch: int | None
    relative_speed: float
    speed_basis: str
    value: float | None
    reasons: tuple[Reason, ...]
    throughput: float | None = None
    throughput_unit: str | None = None
    price_quote: Any = None  # prices.PriceQuote when the question's own prices decided (quoted, used only)


@quick_init
@dataclass(frozen=True)
class RecommendResult:
    model: Model
    workload: Workload
    budget_usd: float | None
    picks: tuple[Pick, ...]
    batch_needed: int
    batch_was_default: bool
    assumptions: tuple[Assumption, ...]
    best_value: Pick | None = None  # no budget: the best value that fits
    cheapest: Pick | None = None  # no budget: the cheapest that fits
    # nothing fits as asked:
    cheapest_fit: Pick | None = None  # the cheapest card that fits, beyond the budget
    cheapest_fit_gb: float | None = None
    no_workstation_gb: float | None = None  # no workstation card holds it: the memory it needs
    server_fit: GPU | None = None
    fix: FixOption | None = None
    fix_price_usd: float | None = None
    no_fix_how: str | None = None  # "qlora" | "int4" | "as_asked"
    no_fix_gb: float | None = None
    measured_count: int = 0
    price_filter: str | None = None  # "new_only" | "used_only" | "used_ok": which price the picks use
    price_dates: tuple[str, ...] = ()
    notes: tuple[Note, ...] = ()
    # issue 10: "cheapest way to run X" with no amount: when no single card holds the model, the
    # verdict leads with the cheapest setup that does (multi-card or one unified-memory box)
    value_first: bool = False
    candidates: tuple[
        Any, ...
    ] = ()  # recommend.Candidate: every priced card weighed (engine.picks.candidate_rows)
    # () -> the candidates, made when a chart draws them (engine.picks.candidate_rows); None: ``candidates``
    candidates_of: Any = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class GeneralResult:
    """No model named: cards ranked over a representative set of workloads."""

    budget_usd: float | None
    picks: tuple[Pick, ...]
    min_vram_gb: float
    cheapest_on_file: GPU | None = None  # nothing costs under the budget
    value_first: bool = False  # issue 10: "best budget gpu" with no amount: best value, then the cheapest


# --------------------------------------------------------------------------- compare


@quick_init
@dataclass(frozen=True)
class CompareRowData:
    gpu: GPU
    count: int
    fits: bool | None
    max_batch: int | None
    relative_speed: float | None
    speed_basis: str
    value: float | None
    price_usd: float | None
    throughput: float | None = None
    throughput_unit: str | None = None
    per_model: tuple[tuple[str, str, bool], ...] = ()  # (model id, model name, fits)
    quoted: Any = None  # price_parse.QuotedPrice when the user quoted this card's price (issue 10)
    speed_low: float | None = None  # the band of relative_speed (a card whose tensor rate is estimated)
    speed_high: float | None = None


class CompareVerdictCode(StrEnum):
    """Why one card of a comparison is the better buy for the question's workload (issue 10)."""

    VALUE = "value"  # more speed per dollar
    FASTER = "faster"  # about the same speed per dollar: the faster one
    ONLY_FITS = "only_fits"  # the other does not fit the workload as asked
    NO_PRICE = "no_price"  # a price is missing: the faster one, value not weighed


@dataclass(frozen=True)
class CompareVerdict:
    best: int  # row index of the better buy
    other: int
    code: CompareVerdictCode
    speed_ratio: float  # best's speed / other's, for this work
    price_ratio: float | None  # best's price / other's (None when a price is missing)
    vram_best: float  # GB, per row (count x card)
    vram_other: float
    quoted: tuple[str, ...] = ()  # card ids priced at the user's quote

    def to_json(self) -> dict[str, Any]:
        return {
            "best": self.best,
            "other": self.other,
            "code": str(self.code),
            "speed_ratio": round(self.speed_ratio, 3),
            "price_ratio": round(self.price_ratio, 3) if self.price_ratio is not None else None,
            "vram_gb_best": self.vram_best,
            "vram_gb_other": self.vram_other,
            "quoted_prices_for": list(self.quoted),
        }


@quick_init
@dataclass(frozen=True)
class CompareResult:
    rows: tuple[CompareRowData, ...]
    model: Model | None
    workload: Workload | None
    batch_size: int | None
    fast: int  # index of the faster row
    slow: int
    ratio: float
    fit_kind: str | None  # "all" | "all_same_vram" | "none" | "one" | None (no model)
    assumptions: tuple[Assumption, ...] = ()
    basis: tuple[BasisCode, ...] = ()
    json_rows: tuple[Any, ...] = ()  # types.ComparisonRow, price labels filled by phrasing
    fit_entries: tuple[FitEntry, ...] = ()
    decision: CompareVerdict | None = None  # issue 10: the better buy for the workload


# --------------------------------------------------------------------------- info, list, help


@quick_init
@dataclass(frozen=True)
class GpuFacts:
    gpu: GPU
    uncurated: bool


@quick_init
@dataclass(frozen=True)
class ModelFacts:
    model: Model
    inference_gb: float
    weights_gb: float
    precision: Precision
    format_id: str | None = None  # issue 11: the release build the figures are for (formats id)
    # issue 17: the 16-bit KV cache at the model's full context (bytes), and what the plain formula
    # (every token in every layer) would say; None for models without a KV cache
    kv_full_context_bytes: float | None = None
    kv_plain_bytes: float | None = None


@dataclass(frozen=True)
class Fact:
    """One fact asked about a model or a card ("how many attention heads", "4090 tdp"); issue 10.

    ``name`` is a fact code (bot.core.facts.FACTS); ``value`` a number, bool or string, None when
    the catalog does not record it; ``unit`` "GB", "GB/s", "W", "TFLOPS", "tokens" or ""."""

    name: str
    subject: str  # model or card id
    subject_name: str
    value: Any
    unit: str
    source: str
    extra: Any = None  # a second figure said with it (KV heads beside heads, memory type beside VRAM)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "subject": self.subject,
            "value": self.value,
            "unit": self.unit or None,
            "extra": self.extra,
            "source": self.source,
        }


@quick_init
@dataclass(frozen=True)
class InfoResult:
    gpus: tuple[GpuFacts, ...]
    models: tuple[ModelFacts, ...]
    price_first: bool
    # issue 11: "what can I run on X": per card, the largest LLMs and the build each runs as
    # (engine.builds.Runs), largest first, then the largest that runs unquantized
    runs: tuple[tuple[Any, tuple[Any, ...]], ...] = ()
    cloud: tuple[
        tuple[Any, tuple[Any, ...]], ...
    ] = ()  # (GPU, prices.PriceQuote per provider kind) when asked
    facts: tuple[Fact, ...] = ()  # issue 10: the one fact (or few) the question asked, said first


@dataclass(frozen=True)
class ListResult:
    kind: str  # "gpus" | "models"
    budget_usd: float | None
    gpus: tuple[GPU, ...] = ()
    models_by_kind: tuple[tuple[str, tuple[str, ...]], ...] = ()
    total: int = 0


@dataclass(frozen=True)
class HelpResult:
    topic: str  # "general" | "memory"


@quick_init
@dataclass(frozen=True)
class UnknownResult:
    hint: str  # "generic" | "which_card_or_model" | "which_model" | "two_cards"


@dataclass(frozen=True)
class FilterResult:
    """Cards that meet a question's constraints on specs (bot.core.filters), sorted; issue 10."""

    filters: tuple[Any, ...]  # filters.Filter
    unknown: tuple[str, ...]  # constraints on fields the catalog lacks ("slots", "cooler"): not applied
    budget_usd: float | None
    sort: str  # "price" | "tdp" | "vram"
    gpus: tuple[GPU, ...] = ()  # the first few matches
    total: int = 0  # how many matched

    def to_json(self) -> dict[str, Any]:
        return {
            "filters": [f.to_json() for f in self.filters]
            + (
                [{"field": "price_usd", "op": "<=", "value": self.budget_usd, "implied": False}]
                if self.budget_usd is not None
                else []
            ),
            "unknown_filters": list(self.unknown),
            "sort": self.sort,
            "matched": self.total,
            "cards": [
                {
                    "gpu": g.id,
                    "name": g.name,
                    "vram_gb": g.vram_gb,
                    "tdp_w": g.tdp_w,
                    "bf16": g.bf16,
                    "fp8": g.fp8,
                    "memory_bandwidth_gbs": g.memory_bandwidth_gbs,
                    "price_usd": g.price_usd,
                    "price_date": g.price_date,
                    "price_kind": g.price_kind,
                }
                for g in self.gpus
            ],
        }


@dataclass(frozen=True)
class AskBackResult:
    pass


@dataclass(frozen=True)
class FailedResult:
    pass


# --------------------------------------------------------------------------- prices (issue #14)


@dataclass(frozen=True)
class RentBuyResult:
    """Own a card or rent for the same work (bot.core.costs.RentOrBuy) with the cards it names."""

    rob: Any  # costs.RentOrBuy
    cards: dict[str, GPU]  # every card id the result mentions -> the card
    no_cloud: bool = False  # the user said "no cloud": rent options left out, owning costed alone
    rent_card: Any = None  # costs.RentCardCost: "rent an A100 or buy a 3090?" (issue 10)
    rent_unpriced: str | None = None  # the card asked to rent has no rental price (defaults costed)


@dataclass(frozen=True)
class DealResult:
    """Is a quoted price a good deal (bot.core.costs.DealVerdict)."""

    deal: Any  # costs.DealVerdict
    cards: dict[str, GPU]
    quoted: Any = None  # price_parse.QuotedPrice: the price as the user said it (its currency)


@dataclass(frozen=True)
class WhichCardResult:
    """A price question that names no card: ask which."""

    kind: str  # "rent_or_buy" | "deal"


# --------------------------------------------------------------------------- speed, time, serving (issue 12)


class SpeedKind(StrEnum):
    """Which figure a speed answer leads with."""

    LLM = "llm"  # decode (and prefill) tokens/s
    DIFFUSION = "diffusion"  # seconds per image
    IMAGES = "images"  # CNN images/s
    TRAINING = "training"  # training tokens/s or images/s
    SPEECH = "speech"  # real-time factor (Whisper)


@quick_init
@dataclass(frozen=True)
class SpeedRow:
    """One card (or n of them) for a speed / time / serving answer; figures are throughput.Figure."""

    gpu: GPU
    count: int
    fits: bool
    price_usd: float | None = None
    decode: Any = None  # Figure tokens/s, one stream
    prefill: Any = None  # Figure tokens/s
    seconds_per_image: Any = None  # Figure s/image
    images_per_s: Any = None  # Figure images/s (CNN)
    training: Any = None  # Figure training tokens/s (LLM) or images/s (CNN)
    hours: Any = None  # Figure hours (time to train)
    kwh: float | None = None  # energy of the run
    electricity_cost: float | None = None  # in ``electricity_currency``
    electricity_currency: str = "USD"
    cloud_usd_per_hour: float | None = None  # per card
    cloud_usd: float | None = None  # the whole run
    cloud_date: str | None = None
    serving: Any = None  # throughput.Serving
    meets: bool | None = None  # meets the stated target (None: no target)
    rtf: Any = None  # Figure real-time factor (speech; lower is faster)
    offload: Any = None  # Figure tokens/s with the layers that do not fit in system RAM (llama.cpp)

    def speed_json(self) -> dict[str, Any]:
        lead = self.decode or self.images_per_s or self.training
        if self.seconds_per_image is not None and lead is None:
            s = self.seconds_per_image
            lead_low, lead_high = (1 / s.high if s.high else None), (1 / s.low if s.low else None)
            lead_basis = s.basis
        else:
            lead_low = lead.low if lead is not None else None
            lead_high = lead.high if lead is not None else None
            lead_basis = lead.basis if lead is not None else "modelled"

        def r(f: Any, inv: bool = False) -> float | None:
            if f is None or not f.value:
                return None
            return round(1.0 / f.value if inv else f.value, 3 if inv else 1)

        return {
            "decode_tokens_per_s": r(self.decode),
            "prefill_tokens_per_s": r(self.prefill),
            "images_per_s": r(self.seconds_per_image, inv=True)
            if self.seconds_per_image is not None
            else r(self.images_per_s),
            "samples_per_s": r(self.images_per_s) if self.training is None else None,
            "tokens_per_s_training": r(self.training)
            if self.training is not None and self.training.unit == "tokens/s"
            else None,
            "concurrency": self.serving.concurrent_users if self.serving is not None else 1,
            "basis": lead_basis,
            "low": round(lead_low, 3) if lead_low is not None else None,
            "high": round(lead_high, 3) if lead_high is not None else None,
            "seconds_per_image": r(self.seconds_per_image),
            "engine": (self.decode.engine if self.decode is not None else None),
            "real_time_factor": round(self.rtf.value, 4) if self.rtf is not None else None,
        }


@dataclass(frozen=True)
class SpeedResult:
    """tokens/s, s/image or images/s of a model on the cards asked (or the cards meeting a target)."""

    model: Model
    kind: SpeedKind
    precision: Precision
    rows: tuple[SpeedRow, ...]
    context: int = 0
    steps: int | None = None
    target_tokens_per_s: float | None = None
    target_seconds_per_image: float | None = None
    budget_usd: float | None = None
    recommend: bool = False  # no card named: rows are the cards that meet the target, cheapest first
    closest: SpeedRow | None = None  # nobody meets the target: the nearest within budget
    assumptions: tuple[Assumption, ...] = ()
    clip: dict[str, int] | None = None  # video models: frames, fps, width, height of the clip timed


@dataclass(frozen=True)
class TimeResult:
    """Time to train ``amount`` (tokens or images, epochs included) on each card set."""

    model: Model
    method: Method
    precision: Precision
    amount: float  # tokens (LLM) or images (CNN), all epochs
    unit: str  # "tokens" | "images"
    assumed: dict[str, Any]  # samples, sample_tokens, epochs, bytes_per_token, ...
    rows: tuple[SpeedRow, ...]
    kwh_price: float
    kwh_currency: str
    kwh_price_stated: bool
    kwh_price_date: str
    target_hours: float | None = None
    budget_usd: float | None = None
    recommend: bool = False
    closest: SpeedRow | None = None
    assumptions: tuple[Assumption, ...] = ()
    job_cost: bool = False  # "how much does it cost to fine-tune X": rows are rental options, cheapest first


@dataclass(frozen=True)
class ServeResult:
    """Users each card set serves at a context length, and their tokens/s (vLLM-style)."""

    model: Model
    precision: Precision
    context: int
    context_stated: bool
    users: int | None  # asked for
    rows: tuple[SpeedRow, ...]
    budget_usd: float | None = None
    recommend: bool = False
    closest: SpeedRow | None = None
    assumptions: tuple[Assumption, ...] = ()


# --------------------------------------------------------------------------- best models for a card (issue 17)


class PickWhy(StrEnum):
    """Why a model is in a "best model for my card" list (the one-line reason)."""

    TOP_RANKED = "top_ranked"  # ranks first by the task's benchmark among the models that fit
    NEXT_RANKED = "next_ranked"  # the next by the benchmark
    NO_QUANT = "no_quant"  # fits in its release format: no quantization loss at all
    MOE_ACTIVE = "moe_active"  # value: billions of parameters read per token (fast for its size)
    OTHER_BENCHMARK = "other_benchmark"  # no score on the task's main benchmark: compared on another
    LOW_BIT = "low_bit"  # fits only at 2-3 bits: quality drops noticeably; its score is unquantized


@dataclass(frozen=True)
class ModelPick:
    """One model on the asked card(s), at the best build that fits."""

    model: Model
    format_id: str  # formats.yaml id of the build
    precision: str  # the build's weight precision label
    release_build: bool
    required_gb: float  # per card, decimal GB (weights + KV cache at the context + overhead)
    context_tokens: int  # the context the memory figure assumes
    score: Any  # quality.Score shown (benchmark, score, setting, date, source)
    benchmark_name: str
    variant: str  # the variant the score is for ("Qwen2.5-7B-Instruct")
    why: PickWhy
    why_value: Any = None
    low_bit: bool = False

    def to_json(self, reason: str = "") -> dict[str, Any]:
        s = self.score
        return {
            "model": self.model.id,
            "name": self.model.name,
            "format": self.format_id,
            "precision": self.precision,
            "fits": True,
            "required_gb": self.required_gb,
            "context_tokens": self.context_tokens,
            "quality": {
                "benchmark": s.benchmark,
                "benchmark_name": self.benchmark_name,
                "score": s.score,
                "date": s.date,
                "source": s.source,
                "setting": s.setting,
                "variant": self.variant,
            },
            "reason": reason,
            "reason_code": str(self.why),
            "low_bit": self.low_bit,
        }


@dataclass(frozen=True)
class ModelPicksResult:
    """The best models for a task that fit a card (or ``count`` of them), best first."""

    task: str  # quality.TASKS
    task_stated: bool
    gpu: GPU | None
    count: int
    picks: tuple[ModelPick, ...]
    low_bit: tuple[ModelPick, ...] = ()  # fit only below Q4_K_M and rank above the first pick
    missing: tuple[Model, ...] = ()  # fit, but no score for the task on file
    benchmarks: tuple[Any, ...] = ()  # quality.Benchmark: the task's list, in comparison order
    usable_gb: float = 0.0  # one card, decimal GB
    context_tokens: int | None = None
    generic_card: bool = False  # the question named memory, not a card
    no_card: bool = False  # neither a card nor an amount of memory was named
    quality_date: str = ""
    q4_ppl_delta: float | None = None  # formats.yaml: Q4_K_M's published perplexity cost
    lead_benchmark: str = ""  # the benchmark most picks are scored on (named in the header)


# --------------------------------------------------------------------------- several cards (issues 10, 12, 17)


@dataclass(frozen=True)
class SetupCard:
    """One physical card of a setup: its share of the layers and the memory that puts on it."""

    gpu: GPU
    share: float  # of the layers (layer split) or of every layer (tensor parallel), 0..1
    need_gb: float  # 1e9-byte GB on this card
    capacity_gb: float

    def to_json(self) -> dict[str, Any]:
        return {
            "gpu": self.gpu.id,
            "share": round(self.share, 3),
            "need_gb": round(self.need_gb, 1),
            "capacity_gb": round(self.capacity_gb, 1),
        }


@dataclass(frozen=True)
class Setup:
    """One machine of a multi-card question: the cards, how the model is split, fit, speed, price."""

    cards: tuple[tuple[GPU, int], ...]  # as asked: (card, count)
    per_card: tuple[SetupCard, ...]
    fits: bool
    build_id: str | None  # formats.yaml id of the best build that fits (or the smallest tried)
    build_precision: str | None
    split: str  # "single" | "tensor" (vLLM) | "layer" (llama.cpp -ts) | "data" | "sharded" (training)
    interconnect: str  # multigpu.Link value
    tp_blocked: str | None  # why vLLM tensor parallel is not used: "unequal" | "heads" | None
    tokens_per_s: float | None
    low: float | None
    high: float | None
    link_cost: float  # share of the time per token spent on the link (0..1)
    bridge_possible: bool  # two identical cards that take an NVLink bridge
    price_usd: float | None
    price_used: bool  # priced used (the asker said "used", or the catalog's price is used)
    price_date: str | None
    used_asked: bool = False
    unit: str = "tokens/s"
    alone: GPU | None = None  # training on mixed cards that do not fit together: the card that fits alone
    alone_gb: float | None = None

    @property
    def count(self) -> int:
        return sum(n for _, n in self.cards)

    @property
    def total_vram_gb(self) -> float:
        return sum(g.vram_gb * n for g, n in self.cards)

    def to_json(self) -> dict[str, Any]:
        return {
            "cards": [{"gpu": g.id, "count": n} for g, n in self.cards],
            "count": self.count,
            "total_vram_gb": self.total_vram_gb,
            "per_card": [c.to_json() for c in self.per_card],
            "fits": self.fits,
            "build": self.build_id,
            "precision": self.build_precision,
            "split": self.split,
            "tensor_split": [round(c.share, 3) for c in self.per_card] if self.split == "layer" else None,
            "tp_blocked": self.tp_blocked,
            "tokens_per_s": round(self.tokens_per_s, 1) if self.tokens_per_s is not None else None,
            "speed": (
                {
                    "value": round(self.tokens_per_s, 1),
                    "low": round(self.low or 0.0, 1),
                    "high": round(self.high or 0.0, 1),
                    "basis": "modelled",
                    "unit": self.unit,
                }
                if self.tokens_per_s is not None
                else None
            ),
            "interconnect": self.interconnect,
            "link_cost": round(self.link_cost, 3),
            "bridge_possible": self.bridge_possible,
            "price_usd": round(self.price_usd) if self.price_usd is not None else None,
            "price_used": self.price_used,
            "price_date": self.price_date,
        }


class MultiDecision(StrEnum):
    ONLY_ONE_FITS = "only_one_fits"  # one setup runs the model, the others do not
    NONE_FIT = "none_fit"
    CHEAPER_AND_FASTER = "cheaper_and_faster"
    FASTER_COSTLIER = "faster_costlier"  # the fastest costs more: the line gives both
    BETTER_BUILD = "better_build"  # one runs a higher-quality build
    SINGLE = "single"  # one setup asked (a mixed machine): no choice to make


@dataclass(frozen=True)
class MultiResult:
    model: Model
    setups: tuple[Setup, ...]
    best: int | None  # index of the setup the decision line picks
    decision: MultiDecision
    task: str  # "inference" | "training" | "finetune"
    context_tokens: int
    assumptions: tuple[Assumption, ...] = ()
    basis: tuple[BasisCode, ...] = ()
    notes: tuple[Note, ...] = ()
    tp_alt: tuple[float | None, ...] = ()  # per setup: vLLM tensor parallel tokens/s for the same bytes

    def to_json(self) -> dict[str, Any]:
        alt = list(self.tp_alt) + [None] * (len(self.setups) - len(self.tp_alt))
        return {
            "setups": [
                {**s.to_json(), "tensor_parallel_tokens_per_s": round(a, 1) if a is not None else None}
                for s, a in zip(self.setups, alt, strict=True)
            ],
            "multi_decision": {"code": str(self.decision), "best": self.best},
        }


# --------------------------------------------------------------------------- advice (issue 10)


class AdviceVerdict(StrEnum):
    """The judgement of an ``advice`` answer; values are the JSON's ``advice.verdict``."""

    ENOUGH = "enough"  # memory: every workload checked fits
    ENOUGH_FOR_SOME = "enough_for_some"  # memory: some fit, some do not
    NOT_ENOUGH = "not_enough"  # memory: none fits
    SUPPORTED = "supported"  # platform: the tool runs on the stack / card
    PARTLY = "partly"  # platform: runs with limits
    UNSUPPORTED = "unsupported"  # platform: does not run
    NEEDS_CC = "needs_cc"  # compute capability: the minimum the wheels need
    NOT_THE_SAME = "not_the_same"  # laptop vs desktop of the same name
    DEPENDS_ON_SPLIT = "depends_on_split"  # NVLink / PCIe: matters for some ways of splitting work
    NO_BRIDGE = "no_bridge"  # NVLink asked for a card that has none
    NOT_FOR_ONE_CARD = "not_for_one_card"  # PCIe width: costs load time, not speed, on one card
    NOT_REQUIRED = "not_required"  # ECC
    RISKY = "risky"  # modded cards
    CHECK_FIRST = "check_first"  # used / ex-mining cards
    LEGACY = "legacy"  # worth it: an architecture current software is leaving
    CURRENT = "current"  # worth it: a supported architecture
    KNOWN_ONLY = "known_only"  # wait for the next generation: only announced products are known
    PAST_SUPPORT = (
        "past_support"  # worth it: an architecture current CUDA and PyTorch dropped (Kepler, Maxwell)
    )
    MIXED_CARDS = "mixed_cards"  # two different cards together: it depends on how the work is split


@dataclass(frozen=True)
class AdviceRow:
    """One number an advice answer computed or read: a workload's memory on the size asked
    (``kind`` "fit"), a card's spec ("spec"), a tool's support level ("support"), a generation's
    first release ("generation")."""

    kind: str
    subject: str  # model / card / tool id or architecture name
    name: str  # its display name
    label: str  # build or method ("gguf-q4_k_m", "qlora"), spec field, stack
    value: Any = None  # GB, GB/s, W, TFLOPS, a level or a YYYY-MM date
    low: float | None = None  # the band of a modelled figure
    high: float | None = None
    fits: bool | None = None
    tight: bool = False  # the size asked falls inside the band
    low_bit: bool = False  # fits only at 2-3 bits (below Q4_K_M), where quality drops

    def to_json(self) -> dict[str, Any]:
        return {
            "low_bit": self.low_bit,
            "kind": self.kind,
            "subject": self.subject,
            "label": self.label,
            "value": jsonable(self.value),
            "low": self.low,
            "high": self.high,
            "fits": self.fits,
            "tight": self.tight,
        }


@dataclass(frozen=True)
class AdviceResult:
    """A judgement question answered from sourced facts (knowledge/advice.yaml, software.yaml,
    interconnect.yaml, gpus.yaml) and the engine's numbers (memory estimates, specs)."""

    topic: str  # bot.core.advice_facts.TOPICS
    verdict: AdviceVerdict
    facts: tuple[Any, ...] = ()  # bot.core.advice_facts.AdviceFact
    rows: tuple[AdviceRow, ...] = ()
    numbers: dict[str, Any] | None = None  # the figures the verdict line uses (JSON-safe)
    gpus: tuple[GPU, ...] = ()
    models: tuple[Model, ...] = ()
    basis: tuple[BasisCode, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "advice": {
                "topic": self.topic,
                "verdict": str(self.verdict),
                "facts": [f.to_json() for f in self.facts],
                "numbers": {k: jsonable(v) for k, v in (self.numbers or {}).items()},
                "rows": [r.to_json() for r in self.rows],
                "gpus": [g.id for g in self.gpus],
                "models": [m.id for m in self.models],
            }
        }


Result = (
    RentBuyResult
    | DealResult
    | WhichCardResult
    | FitResult
    | FitAloneResult
    | RecommendResult
    | GeneralResult
    | CompareResult
    | InfoResult
    | ListResult
    | HelpResult
    | UnknownResult
    | AskBackResult
    | FailedResult
    | SpeedResult
    | TimeResult
    | ServeResult
    | ModelPicksResult
    | MultiResult
    | FilterResult
    | AdviceResult
)
