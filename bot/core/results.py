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

from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any

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


@dataclass(frozen=True)
class SettingChange:
    kind: ChangeKind
    before: Any
    after: Any

    def to_json(self) -> dict[str, Any]:
        return {"setting": str(self.kind), "from": jsonable(self.before), "to": jsonable(self.after)}


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

    @property
    def fits(self) -> bool:
        return bool(self.entry.fits)


@dataclass(frozen=True)
class FitResult:
    items: tuple[FitItem, ...]
    assumptions: tuple[Assumption, ...]
    notes: tuple[Note, ...] = ()
    basis: tuple[BasisCode, ...] = ()
    builds: bool = False  # issue 11: the items are builds of one (model, card), best quality first


class Smallest(StrEnum):
    BUYABLE = "buyable"
    SERVER_ONLY = "server_only"
    MULTI = "multi"
    NONE = "none"


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


@dataclass(frozen=True)
class FitAloneResult:
    items: tuple[AloneItem, ...]
    assumptions: tuple[Assumption, ...]
    notes: tuple[Note, ...] = ()


# --------------------------------------------------------------------------- recommend


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
    candidates: tuple[
        Any, ...
    ] = ()  # recommend.Candidate: every priced card weighed (engine.picks.candidate_rows)


@dataclass(frozen=True)
class GeneralResult:
    """No model named: cards ranked over a representative set of workloads."""

    budget_usd: float | None
    picks: tuple[Pick, ...]
    min_vram_gb: float
    cheapest_on_file: GPU | None = None  # nothing costs under the budget


# --------------------------------------------------------------------------- compare


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


# --------------------------------------------------------------------------- info, list, help


@dataclass(frozen=True)
class GpuFacts:
    gpu: GPU
    uncurated: bool


@dataclass(frozen=True)
class ModelFacts:
    model: Model
    inference_gb: float
    weights_gb: float
    precision: Precision
    format_id: str | None = None  # issue 11: the release build the figures are for (formats id)


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


@dataclass(frozen=True)
class DealResult:
    """Is a quoted price a good deal (bot.core.costs.DealVerdict)."""

    deal: Any  # costs.DealVerdict
    cards: dict[str, GPU]


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
    | FilterResult
)
