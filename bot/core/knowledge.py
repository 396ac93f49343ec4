"""Load and validate the knowledge directory (``knowledge/``) into frozen dataclasses.

The contract is ``knowledge/SCHEMA.md``. Every file is read with a safe YAML
loader (``yaml.SafeLoader`` / ``CSafeLoader`` plus a duplicate-key check) and
every entry is validated on creation; the first problem raises
:class:`KnowledgeError` naming file, entry, field and what is wrong. No
Discord import, no environment reading except in :func:`default_knowledge_dir`.

Usage::

    from bot.core.knowledge import get_catalog
    cat = get_catalog()
    cat.gpu("rtx-4090").vram_gb
    cat.benchmarks.max_batch("stylegan", "titan-rtx")
"""

from __future__ import annotations

import functools
import math
import os
import reprlib
import types
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, TypeVar

import yaml

from bot.core import gated_re
from bot.core.benchmarks import Benchmarks, BenchmarkSet, CatalogBenchmarks, MeasuredValue
from bot.core.errors import KnowledgeError

__all__ = [
    "BenchmarkSet",
    "Benchmarks",
    "Catalog",
    "Component",
    "CurrencyRate",
    "Engine",
    "Format",
    "GPU",
    "KnowledgeError",
    "MeasuredValue",
    "Model",
    "QualityNote",
    "Tool",
    "ToolSupport",
    "default_knowledge_dir",
    "get_catalog",
    "load_catalog",
    "normalise_name",
]

# --------------------------------------------------------------------------- constants

VENDORS = ("nvidia", "amd", "intel", "apple")
SOFTWARE = ("cuda", "rocm", "oneapi", "mps")
#: which software stack each vendor's entries must name
VENDOR_SOFTWARE = {"nvidia": "cuda", "amd": "rocm", "intel": "oneapi", "apple": "mps"}
SEGMENTS = ("consumer", "workstation", "datacenter")
PRICE_KINDS = ("new", "street", "used", "list")
MODEL_KINDS = ("cnn", "encoder", "decoder", "encoder-decoder", "diffusion", "speech", "moe-decoder")
TRANSFORMER_KINDS = ("encoder", "decoder", "encoder-decoder", "speech", "moe-decoder")
COMPONENT_ROLES = ("denoiser", "text_encoder", "vae")
BENCH_KINDS = ("max_batch", "throughput", "known_batch")
BENCH_TASKS = ("training", "inference")
FORM_FACTORS = ("pcie", "sxm", "oam", "system", "laptop")
#: how a model's weights are published (the dtype of the official checkpoint)
RELEASE_PRECISIONS = ("bf16", "fp16", "fp32", "fp8", "mxfp4")
BENCH_PRECISIONS = ("fp32", "fp16", "int8", "int4", "unstated")
BENCH_SEMANTICS = ("largest_tried", "known_to_run", "measured")

_YYYY_MM = gated_re.compile(r"^(19|20)\d\d-(0[1-9]|1[0-2])$")
_YYYY_MM_DD = gated_re.compile(r"^(19|20)\d\d-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$")
_SLUG = gated_re.compile(r"^[a-z0-9]+(?:[.-][a-z0-9]+)*$")
_CURRENCY_CODE = gated_re.compile(r"^[A-Z]{3}$")
_FORMAT_ID = gated_re.compile(r"^[a-z0-9]+(?:[._-][a-z0-9]+)*$")  # "gguf-q4_k_m", "bnb-nf4", "llama.cpp"
_WS = gated_re.compile(r"\s+")


def normalise_name(text: str) -> str:
    """How ids and aliases are compared: lowercase, whitespace collapsed, stripped."""
    return _WS.sub(" ", text.strip().lower())


def _package_knowledge_dir() -> Path:
    return Path(__file__).resolve().parents[2] / "knowledge"


def default_knowledge_dir(environ: Mapping[str, str] = os.environ) -> Path:
    """``KNOWLEDGE_DIR`` from the environment if set (non-empty), else the package's ``knowledge/``."""
    override = environ.get("KNOWLEDGE_DIR", "").strip()
    if override:
        return Path(override).expanduser()
    return _package_knowledge_dir()


# --------------------------------------------------------------------------- dataclasses


@dataclass(frozen=True)
class GPU:
    id: str
    name: str
    aliases: tuple[str, ...]
    vendor: str
    software: str
    segment: str
    architecture: str
    release: str
    vram_gb: float
    memory_type: str
    memory_bandwidth_gbs: float
    fp32_tflops: float
    fp16_tensor_tflops: float | None
    bf16: bool
    fp8: bool
    tdp_w: int
    price_usd: float | None
    source: str
    price_date: str | None = None
    price_kind: str | None = None
    price_source: str | None = None
    launch_price_usd: float | None = None
    price_2020_usd: float | None = None
    cloud_usd_per_hour: float | None = None
    form_factor: str = "pcie"
    legacy_cuda: bool = False
    estimated: frozenset[str] = frozenset()
    notes: str | None = None
    # unified-memory machines (Apple M-series, DGX Spark, Strix Halo) and modded cards
    unified_memory: bool = False
    gpu_memory_share: float | None = None  # default share of vram_gb the GPU may use (unified only)
    gpu_memory_share_basis: str | None = None  # where the share comes from and how to change it
    memory_options_gb: tuple[float, ...] = ()  # other memory sizes sold with the same chip
    modded: bool = False  # memory-modded card (not an NVIDIA/AMD SKU): no warranty, custom VBIOS
    price_cny: float | None = None  # the price in 元 when it was observed in China (price_usd converts it)

    @property
    def is_rocm(self) -> bool:
        return self.software == "rocm"

    @property
    def usable_memory_gb(self) -> float:
        """Memory the GPU can use by default: ``vram_gb`` x ``gpu_memory_share`` on unified-memory
        machines (macOS lets the GPU wire about 75% of RAM unless raised), ``vram_gb`` otherwise."""
        return self.usable_memory_at(self.gpu_memory_share)

    def usable_memory_at(self, share: float | None) -> float:
        """``usable_memory_gb`` with ``share`` of the RAM given to the GPU (a raised limit)."""
        if self.unified_memory and share is not None:
            return round(self.vram_gb * share, 2)
        return self.vram_gb

    def is_estimated(self, field_name: str) -> bool:
        return field_name in self.estimated

    def __hash__(self) -> int:
        # equal cards have equal ids; hashing the id alone spares hashing ~40 fields each time a
        # card keys a cache (names.short_name runs for every card a reply names)
        return hash(self.id)


@dataclass(frozen=True)
class Component:
    name: str
    role: str
    params: int


@dataclass(frozen=True)
class Model:
    id: str
    name: str
    aliases: tuple[str, ...]
    family: str
    kind: str
    params: int
    source: str
    release: str | None = None
    estimated: frozenset[str] = frozenset()
    notes: str | None = None
    # transformer kinds
    layers: int | None = None
    encoder_layers: int | None = None
    decoder_layers: int | None = None
    hidden: int | None = None
    heads: int | None = None
    kv_heads: int | None = None
    ffn: int | None = None
    vocab: int | None = None
    default_seq_len: int | None = None
    max_seq_len: int | None = None
    head_dim: int | None = None
    kv_cache_dim: int | None = None  # cached values per token per layer when not 2*kv_heads*head_dim (MLA)
    # moe-decoder
    active_params: int | None = None
    experts: int | None = None
    experts_per_token: int | None = None
    # cnn / diffusion
    resolution: int | tuple[int, int] | None = None
    activation_mb_per_sample: float | None = None
    activation_basis: str | None = None
    components: tuple[Component, ...] = ()
    denoiser_layers: int | None = None
    denoiser_hidden: int | None = None
    # release format and published builds (knowledge/formats.yaml)
    release_precision: str | None = None  # dtype of the official checkpoint; None = not recorded
    release_precision_source: str | None = None
    release_weights_gb: float | None = None  # published checkpoint size (decimal GB), measured
    release_weights_source: str | None = None
    tie_word_embeddings: bool = False  # input embedding and output head share one matrix
    gguf_sizes: Mapping[str, float] = field(default_factory=lambda: types.MappingProxyType({}))  # id -> GB
    gguf_sizes_source: str | None = None
    base_model: str | None = None  # id of the model this one fine-tunes or distils
    # issue 17: attention that does not cache every token in every layer (from config.json).
    # sliding_window: tokens a local (sliding-window or chunked) layer attends to;
    # full_attention_layers: how many of the layers attend to the whole context (the rest are local);
    # sliding_window_full_in: engines that still cache the whole context in the local layers
    sliding_window: int | None = None
    full_attention_layers: int | None = None
    sliding_window_full_in: tuple[str, ...] = ()
    attention_source: str | None = None
    # hybrid linear-attention / state-space models (Qwen3-Next, Jamba): the values the other
    # (layers - full_attention_layers) layers hold per sequence, a constant that does not grow with
    # the context (recurrent state + convolution state, summed over those layers)
    linear_state_values: int | None = None

    @property
    def is_transformer(self) -> bool:
        return self.kind in TRANSFORMER_KINDS

    def is_estimated(self, field_name: str) -> bool:
        return field_name in self.estimated


@dataclass(frozen=True)
class CurrencyRate:
    code: str
    usd_per_unit: float
    symbols: tuple[str, ...]
    date: str
    source: str
    estimated: bool = False


@dataclass(frozen=True)
class QualityNote:
    """A published quality cost of a format: one short line with its metric, date and source."""

    id: str
    text: str  # one short line, e.g. "+0.18 perplexity on Llama-3-8B (wikitext, ctx 512)"
    metric: str  # "ppl_delta" | "ppl_ratio" | "accuracy_recovery" | "kl_divergence" | "qualitative"
    value: float | None
    date: str  # YYYY-MM of the measurement / publication
    source: str


@dataclass(frozen=True)
class Format:
    """A weight format people download or load (``knowledge/formats.yaml``)."""

    id: str  # "bf16", "gguf-q4_k_m", "awq-int4", "bnb-nf4", "fp8", "mxfp4", ...
    name: str
    family: str  # native | gguf | awq | gptq | bnb | fp8 | mxfp4
    precision: (
        str  # weight precision label: bf16, fp16, fp32, fp8, int8, int6, int5, int4, int3, int2, nf4, mxfp4
    )
    bits_per_weight: float  # average stored bits per weight, scales included
    bits_basis: str  # where bits_per_weight comes from
    quality_rank: int  # 0 = reference quality; larger = lower quality (orders builds)
    applies_to: tuple[str, ...]  # model kinds this build exists for
    embedding_bits: float | None = None  # bits of embeddings / output head when they stay unquantized
    engines: tuple[str, ...] = ()  # engine ids that load it (software.yaml)
    quality_note: QualityNote | None = None
    min_params: int | None = None  # builds only published for models at least this large
    notes: str | None = None


@dataclass(frozen=True)
class ToolSupport:
    """How well one tool runs on one software stack (``knowledge/software.yaml``)."""

    tool: str
    stack: str  # cuda | rocm | mps | oneapi
    level: str  # yes | partial | no
    note_id: str  # stable code of the note, e.g. "flash-attention.cuda"
    note: str
    source: str
    date: str
    min_compute_capability: float | None = None  # CUDA: below this the level is "no"
    architectures: tuple[str, ...] = ()  # when given: the level applies to these architectures only
    other_level: str | None = None  # level for architectures not listed (default "no")


@dataclass(frozen=True)
class Tool:
    id: str
    name: str
    support: Mapping[str, ToolSupport]  # stack -> support


@dataclass(frozen=True)
class Engine:
    """An inference / UI engine people name ("llama.cpp", "Ollama"); never a model."""

    id: str
    name: str
    aliases: tuple[str, ...]
    stacks: tuple[str, ...]
    formats: tuple[str, ...]  # format families it loads
    source: str
    notes: str | None = None


# --------------------------------------------------------------------------- YAML


class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """Safe loader that refuses duplicate mapping keys (safe_load would keep the last)."""


def _construct_mapping(loader: Any, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
    loader.flatten_mapping(node)
    result: dict[Any, Any] = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=deep)
        try:
            hash(key)
        except TypeError as exc:
            raise yaml.constructor.ConstructorError(
                None, None, f"unhashable key {_show(key)}", key_node.start_mark
            ) from exc
        if key in result:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {_show(key)}", key_node.start_mark
            )
        result[key] = loader.construct_object(value_node, deep=deep)
    return result


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


#: A knowledge file larger than this is refused before it is parsed (the largest is ~64 KB).
MAX_FILE_BYTES = 4 * 1024 * 1024
#: Values one top-level entry may expand to once YAML aliases are followed ("billion laughs").
MAX_ENTRY_VALUES = 20_000
#: ... and a whole file.
MAX_FILE_VALUES = 2_000_000

#: Upper bounds of numeric fields (GPU, model, benchmark and currency fields): a value past
#: these is a typo or an attack, not a card. Lower bounds are the checkers' (positive, >= 0).
UPPER_BOUNDS: dict[str, float] = {
    # GPUs
    "vram_gb": 4096,  # the largest single accelerator today has 288 GB
    "memory_bandwidth_gbs": 100_000,  # ~8,000 GB/s today
    "fp32_tflops": 10_000,
    "fp16_tensor_tflops": 100_000,
    "tdp_w": 5_000,
    "price_usd": 10_000_000,
    "launch_price_usd": 10_000_000,
    "price_2020_usd": 10_000_000,
    "cloud_usd_per_hour": 10_000,
    # models
    "params": 100_000_000_000_000,  # 100 T
    "active_params": 100_000_000_000_000,
    "layers": 10_000,
    "encoder_layers": 10_000,
    "decoder_layers": 10_000,
    "hidden": 1_000_000,
    "heads": 100_000,
    "kv_heads": 100_000,
    "ffn": 10_000_000,
    "vocab": 100_000_000,
    "default_seq_len": 100_000_000,
    "max_seq_len": 100_000_000,
    "head_dim": 100_000,
    "kv_cache_dim": 1_000_000,
    "sliding_window": 100_000_000,
    "full_attention_layers": 10_000,
    "linear_state_values": 100_000_000_000,
    "experts": 100_000,
    "experts_per_token": 100_000,
    "activation_mb_per_sample": 10_000_000,
    "denoiser_layers": 10_000,
    "denoiser_hidden": 1_000_000,
    "resolution": 65_536,
    # benchmarks (a measured value: images/s, tokens/s, a batch size) and currencies
    "benchmark value": 100_000_000,
    "usd_per_unit": 1_000_000,
}


def _too_big(ctx: _Ctx, name: str, value: Any, key: str | None = None) -> None:
    """Raise when a number is past its upper bound (``key`` picks the bound; default ``name``)."""
    high = UPPER_BOUNDS.get(key or name)
    if high is None:
        return
    values = value if isinstance(value, tuple) else (value,)
    for v in values:
        if _is_number(v) and v > high:
            raise ctx.fail(name, f"must be at most {high:,g}, got {_show(v)}")


def _count_values(value: Any, memo: dict[int, int], limit: int) -> int:
    """How many values ``value`` expands to when YAML aliases are followed, stopping past ``limit``.
    Shared (aliased) nodes are counted once per use but walked once (memo by id): linear in the
    file, not in the expansion."""
    if not isinstance(value, dict | list):
        return 1
    known = memo.get(id(value))
    if known is not None:
        return known
    memo[id(value)] = limit + 1  # a node that contains itself expands without end
    total = 1
    items = value.items() if isinstance(value, dict) else enumerate(value)
    for _, item in items:
        total += _count_values(item, memo, limit)
        if total > limit:
            break
    memo[id(value)] = total
    return total


def _check_expansion(data: Any, display: str) -> None:
    """Fail fast, naming file, entry and field, on a file whose aliases expand past the limits."""
    memo: dict[int, int] = {}
    if _count_values(data, memo, MAX_FILE_VALUES) <= MAX_ENTRY_VALUES:
        return
    tops = data.items() if isinstance(data, dict) else [(None, data)]
    for top_key, top in tops:
        entries = enumerate(top) if isinstance(top, list) else [(0, top)]
        for index, entry in entries:
            if _count_values(entry, memo, MAX_FILE_VALUES) <= MAX_ENTRY_VALUES:
                continue
            label = _entry_label(str(top_key or "entry").rstrip("s"), entry, index)
            field = None
            if isinstance(entry, dict):
                field = next(
                    (str(k)[:60] for k, v in entry.items() if _count_values(v, memo, MAX_FILE_VALUES) > 1000),
                    None,
                )
            raise KnowledgeError(
                display,
                f"expands to more than {MAX_ENTRY_VALUES:,} values (YAML aliases/anchors); refused",
                entry=label,
                field=field,
            )
    if _count_values(data, memo, MAX_FILE_VALUES) > MAX_FILE_VALUES:
        raise KnowledgeError(
            display, f"expands to more than {MAX_FILE_VALUES:,} values (YAML aliases); refused"
        )


def _read_yaml(path: Path, display: str) -> Any:
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise KnowledgeError(display, f"file is {size:,} bytes; the limit is {MAX_FILE_BYTES:,}")
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise KnowledgeError(display, "file is missing") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise KnowledgeError(display, f"cannot read file: {_show_text(str(exc))}") from None
    try:
        data = yaml.load(text, Loader=_Loader)  # noqa: S506 - _Loader is a SafeLoader
    except RecursionError:
        raise KnowledgeError(display, "nested too deeply") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        line = mark.line + 1 if mark is not None else None
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        context = getattr(exc, "context", None)
        msg = f"YAML syntax error: {_show_text(str(problem))}" + (
            f" ({_show_text(str(context))})" if context else ""
        )
        raise KnowledgeError(display, msg, line=line) from None
    try:
        _check_expansion(data, display)
    except RecursionError:
        raise KnowledgeError(display, "nested too deeply") from None
    return data


# --------------------------------------------------------------------------- validation helpers


_REPR = reprlib.Repr()
_REPR.maxlevel = 2
_REPR.maxlist = _REPR.maxtuple = _REPR.maxdict = _REPR.maxset = 4
_REPR.maxstring = _REPR.maxother = 60
_REPR.maxlong = 40


def _show(value: Any) -> str:
    """A short repr for error messages: bounded whatever the value (huge, deep, aliased)."""
    try:
        text = _REPR.repr(value)
    except Exception:
        text = f"<{type(value).__name__}>"
    return _show_text(text)


def _show_text(text: str) -> str:
    return text if len(text) <= 60 else text[:57] + "..."


def _is_number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)


class _Ctx:
    """Where we are: file + entry, for error messages."""

    def __init__(self, file: str, entry: str | None = None) -> None:
        self.file = file
        self.entry = entry

    def fail(self, field: str | None, problem: str) -> KnowledgeError:
        field = field if field is None or len(field) <= 80 else field[:77] + "..."
        return KnowledgeError(self.file, problem, entry=self.entry, field=field)


Checker = Callable[[_Ctx, str, Any], Any]


def _str(ctx: _Ctx, name: str, v: Any) -> str:
    if not isinstance(v, str) or not v.strip():
        raise ctx.fail(name, f"must be a non-empty string, got {_show(v)}")
    return v.strip()


def _slug(ctx: _Ctx, name: str, v: Any) -> str:
    s = _str(ctx, name, v)
    if not _SLUG.match(s):
        raise ctx.fail(name, f"must be a lowercase slug like 'rtx-4090', got {_show(v)}")
    return s


def _bool(ctx: _Ctx, name: str, v: Any) -> bool:
    if not isinstance(v, bool):
        raise ctx.fail(name, f"must be true or false, got {_show(v)}")
    return v


def _pos_number(ctx: _Ctx, name: str, v: Any) -> float:
    if not _is_number(v) or v <= 0:
        raise ctx.fail(name, f"must be a positive number, got {_show(v)}")
    return v


def _nonneg_number(ctx: _Ctx, name: str, v: Any) -> float:
    if not _is_number(v) or v < 0:
        raise ctx.fail(name, f"must be a number >= 0 (0 = does not fit), got {_show(v)}")
    return v


def _pos_int(ctx: _Ctx, name: str, v: Any) -> int:
    if not isinstance(v, int) or isinstance(v, bool) or v <= 0:
        raise ctx.fail(name, f"must be a positive integer, got {_show(v)}")
    return v


def _nonneg_int(ctx: _Ctx, name: str, v: Any) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or v < 0:
        raise ctx.fail(name, f"must be an integer >= 0, got {_show(v)}")
    return v


def _nullable(check: Checker) -> Checker:
    def inner(ctx: _Ctx, name: str, v: Any) -> Any:
        return None if v is None else check(ctx, name, v)

    return inner


def _enum(*allowed: str) -> Checker:
    def inner(ctx: _Ctx, name: str, v: Any) -> str:
        if v not in allowed:
            raise ctx.fail(name, f"must be one of {', '.join(allowed)}; got {_show(v)}")
        return v

    return inner


def _yyyy_mm(ctx: _Ctx, name: str, v: Any) -> str:
    if not isinstance(v, str) or not _YYYY_MM.match(v):
        raise ctx.fail(name, f"must be a YYYY-MM string (quote it), got {_show(v)}")
    return v


def _str_list(ctx: _Ctx, name: str, v: Any) -> tuple[str, ...]:
    if not isinstance(v, list):
        raise ctx.fail(name, f"must be a list of strings, got {_show(v)}")
    out = []
    for i, item in enumerate(v):
        if not isinstance(item, str) or not item.strip():
            raise ctx.fail(f"{name}[{i}]", f"must be a non-empty string, got {_show(item)}")
        out.append(item.strip())
    return tuple(out)


def _resolution(ctx: _Ctx, name: str, v: Any) -> int | tuple[int, int]:
    if isinstance(v, list):
        if len(v) != 2:
            raise ctx.fail(name, f"must be a side in pixels or an [h, w] pair, got {_show(v)}")
        h = _pos_int(ctx, name, v[0])
        w = _pos_int(ctx, name, v[1])
        return (h, w)
    return _pos_int(ctx, name, v)


def _components(ctx: _Ctx, name: str, v: Any) -> tuple[Component, ...]:
    if not isinstance(v, list) or not v:
        raise ctx.fail(name, f"must be a non-empty list of {{name, role, params}}, got {_show(v)}")
    out = []
    allowed = {"name", "role", "params"}
    for i, item in enumerate(v):
        where = f"{name}[{i}]"
        if not isinstance(item, dict):
            raise ctx.fail(where, f"must be a mapping with name, role, params; got {_show(item)}")
        unknown = sorted(set(item) - allowed, key=str)
        if unknown:
            raise ctx.fail(f"{where}.{unknown[0]}", "unknown key")
        for key in ("name", "role", "params"):
            if key not in item:
                raise ctx.fail(f"{where}.{key}", "missing required key")
        out.append(
            Component(
                name=_str(ctx, f"{where}.name", item["name"]),
                role=_enum(*COMPONENT_ROLES)(ctx, f"{where}.role", item["role"]),
                params=_pos_int(ctx, f"{where}.params", item["params"]),
            )
        )
    return tuple(out)


def _share(ctx: _Ctx, name: str, v: Any) -> float:
    if not _is_number(v) or not 0 < v <= 1:
        raise ctx.fail(name, f"must be a fraction in (0, 1], got {_show(v)}")
    return float(v)


def _pos_number_list(ctx: _Ctx, name: str, v: Any) -> tuple[float, ...]:
    if not isinstance(v, list) or not v:
        raise ctx.fail(name, f"must be a non-empty list of positive numbers, got {_show(v)}")
    return tuple(_pos_number(ctx, f"{name}[{i}]", x) for i, x in enumerate(v))


def _format_id(ctx: _Ctx, name: str, v: Any) -> str:
    s = _str(ctx, name, v)
    if not _FORMAT_ID.match(s):
        raise ctx.fail(name, f"must be a lowercase id like 'gguf-q4_k_m', got {_show(v)}")
    return s


def _size_map(ctx: _Ctx, name: str, v: Any) -> types.MappingProxyType[str, float]:
    if not isinstance(v, dict) or not v:
        raise ctx.fail(name, f"must be a non-empty mapping format id -> GB, got {_show(v)}")
    out: dict[str, float] = {}
    for k, x in v.items():
        key = _format_id(ctx, f"{name}.{k}", k)
        out[key] = float(_pos_number(ctx, f"{name}.{k}", x))
    return types.MappingProxyType(out)


# field name -> (checker, required). Required keys must be present (their value may
# still be null when the checker is nullable, e.g. price_usd).
_GPU_FIELDS: dict[str, tuple[Checker, bool]] = {
    "id": (_slug, True),
    "name": (_str, True),
    "aliases": (_str_list, True),
    "vendor": (_enum(*VENDORS), True),
    "software": (_enum(*SOFTWARE), True),
    "segment": (_enum(*SEGMENTS), True),
    "architecture": (_str, True),
    "release": (_yyyy_mm, True),
    "vram_gb": (_pos_number, True),
    "memory_type": (_str, True),
    "memory_bandwidth_gbs": (_pos_number, True),
    "fp32_tflops": (_pos_number, True),
    "fp16_tensor_tflops": (_nullable(_pos_number), True),
    "bf16": (_bool, True),
    "fp8": (_bool, True),
    "tdp_w": (_pos_int, True),
    "price_usd": (_nullable(_pos_number), True),
    "price_date": (_yyyy_mm, False),
    "price_kind": (_enum(*PRICE_KINDS), False),
    "price_source": (_str, False),
    "launch_price_usd": (_nullable(_pos_number), True),
    "price_2020_usd": (_pos_number, False),
    "cloud_usd_per_hour": (_pos_number, False),
    "form_factor": (_enum(*FORM_FACTORS), False),
    "legacy_cuda": (_bool, False),
    "source": (_str, True),
    "estimated": (_str_list, False),
    "notes": (_str, False),
    "unified_memory": (_bool, False),
    "gpu_memory_share": (_share, False),
    "gpu_memory_share_basis": (_str, False),
    "memory_options_gb": (_pos_number_list, False),
    "modded": (_bool, False),
    "price_cny": (_pos_number, False),
}

_MODEL_FIELDS: dict[str, tuple[Checker, bool]] = {
    "id": (_slug, True),
    "name": (_str, True),
    "aliases": (_str_list, True),
    "family": (_str, True),
    "kind": (_enum(*MODEL_KINDS), True),
    "params": (_pos_int, True),
    "source": (_str, True),
    "release": (_yyyy_mm, False),
    "estimated": (_str_list, False),
    "notes": (_str, False),
    "layers": (_pos_int, False),
    "encoder_layers": (_pos_int, False),
    "decoder_layers": (_pos_int, False),
    "hidden": (_pos_int, False),
    "heads": (_pos_int, False),
    "kv_heads": (_pos_int, False),
    "ffn": (_pos_int, False),
    "vocab": (_pos_int, False),
    "default_seq_len": (_pos_int, False),
    "max_seq_len": (_pos_int, False),
    "head_dim": (_pos_int, False),
    "kv_cache_dim": (_pos_int, False),
    "active_params": (_pos_int, False),
    "experts": (_pos_int, False),
    "experts_per_token": (_pos_int, False),
    "resolution": (_resolution, False),
    "activation_mb_per_sample": (_pos_number, False),
    "activation_basis": (_str, False),
    "components": (_components, False),
    "denoiser_layers": (_pos_int, False),
    "denoiser_hidden": (_pos_int, False),
    "release_precision": (_enum(*RELEASE_PRECISIONS), False),
    "release_precision_source": (_str, False),
    "release_weights_gb": (_pos_number, False),
    "release_weights_source": (_str, False),
    "tie_word_embeddings": (_bool, False),
    "gguf_sizes": (_size_map, False),
    "gguf_sizes_source": (_str, False),
    "base_model": (_slug, False),
    "sliding_window": (_pos_int, False),
    "full_attention_layers": (_nonneg_int, False),
    "sliding_window_full_in": (_str_list, False),
    "attention_source": (_str, False),
    "linear_state_values": (_pos_int, False),
}

#: engines ``sliding_window_full_in`` may name (llama.cpp stands for its family: Ollama, LM Studio)
SWA_ENGINES = ("llama.cpp", "vllm", "transformers", "sglang", "tensorrt-llm", "exllamav2", "mlx")

_TRANSFORMER_REQUIRED = (
    "layers",
    "hidden",
    "heads",
    "kv_heads",
    "ffn",
    "vocab",
    "default_seq_len",
    "max_seq_len",
)
_KIND_REQUIRED: dict[str, tuple[str, ...]] = {
    "encoder": _TRANSFORMER_REQUIRED,
    "decoder": _TRANSFORMER_REQUIRED,
    "encoder-decoder": _TRANSFORMER_REQUIRED,
    "speech": _TRANSFORMER_REQUIRED,
    "moe-decoder": _TRANSFORMER_REQUIRED + ("active_params", "experts", "experts_per_token"),
    "cnn": ("resolution", "activation_mb_per_sample", "activation_basis"),
    "diffusion": ("resolution", "components", "activation_mb_per_sample", "activation_basis"),
}

_GPU_FIELD_NAMES = frozenset(f.name for f in fields(GPU))
_MODEL_FIELD_NAMES = frozenset(f.name for f in fields(Model))
assert _GPU_FIELD_NAMES == set(_GPU_FIELDS), "GPU dataclass and _GPU_FIELDS drifted"
assert _MODEL_FIELD_NAMES == set(_MODEL_FIELDS), "Model dataclass and _MODEL_FIELDS drifted"


def _entry_label(kind: str, raw: Any, index: int) -> str:
    if isinstance(raw, dict) and isinstance(raw.get("id"), str) and raw["id"].strip():
        return f"{kind} '{_show_text(raw['id'].strip())}'"
    return f"{kind} #{index + 1}"


def _check_fields(ctx: _Ctx, raw: Any, spec: Mapping[str, tuple[Checker, bool]], kind: str) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise ctx.fail(None, f"each {kind} must be a mapping of field: value, got {_show(raw)}")
    for key in raw:
        if key not in spec:
            raise ctx.fail(str(key), "unknown key (not in knowledge/SCHEMA.md)")
    for key, (_, required) in spec.items():
        if required and key not in raw:
            raise ctx.fail(key, "missing required key")
    out: dict[str, Any] = {}
    for key, value in raw.items():
        checker, required = spec[key]
        if value is None and not required:
            continue  # an optional key written as null is the same as absent
        out[key] = checker(ctx, key, value)
        _too_big(ctx, key, out[key])
    return out


def _check_estimated(ctx: _Ctx, values: dict[str, Any], allowed: frozenset[str]) -> frozenset[str]:
    names = values.get("estimated", ())
    for i, n in enumerate(names):
        if n not in allowed or n in ("id", "name", "aliases", "source", "estimated", "notes"):
            raise ctx.fail(f"estimated[{i}]", f"names no estimable field: {_show(n)}")
        if values.get(n) is None:
            raise ctx.fail(f"estimated[{i}]", f"field {n!r} is marked estimated but has no value")
    return frozenset(names)


def _build_gpu(file: str, raw: Any, index: int) -> GPU:
    ctx = _Ctx(file, _entry_label("gpu", raw, index))
    v = _check_fields(ctx, raw, _GPU_FIELDS, "gpu")
    if v.get("price_usd") is not None:
        for key in ("price_date", "price_kind", "price_source"):
            if key not in v:
                raise ctx.fail(key, "required when price_usd is given")
    else:
        for key in ("price_date", "price_kind", "price_source"):
            if key in v:
                raise ctx.fail(key, "given without a price_usd")
    if v["vendor"] == "nvidia" and v["software"] != "cuda":
        raise ctx.fail("software", f"an nvidia card runs cuda, got {v['software']!r}")
    if v["vendor"] == "amd" and v["software"] != "rocm":
        raise ctx.fail("software", f"an amd card runs rocm, got {v['software']!r}")
    want = VENDOR_SOFTWARE[v["vendor"]]
    if v["software"] != want:
        raise ctx.fail("software", f"an {v['vendor']} entry runs {want}, got {v['software']!r}")
    unified = v.get("unified_memory", False)
    for key in ("gpu_memory_share", "gpu_memory_share_basis", "memory_options_gb"):
        if key in v and not unified:
            raise ctx.fail(key, "only for unified-memory machines (unified_memory: true)")
    if unified:
        for key in ("gpu_memory_share", "gpu_memory_share_basis"):
            if key not in v:
                raise ctx.fail(key, "required when unified_memory is true")
    if "price_cny" in v and v.get("price_usd") is None:
        raise ctx.fail("price_cny", "given without a price_usd (the converted price)")
    if v.get("modded", False) and "notes" not in v:
        raise ctx.fail("notes", "a modded card needs notes saying its caveats (warranty, VBIOS, drivers)")
    v["estimated"] = _check_estimated(ctx, v, _GPU_FIELD_NAMES)
    return GPU(**v)


def _build_model(file: str, raw: Any, index: int) -> Model:
    ctx = _Ctx(file, _entry_label("model", raw, index))
    v = _check_fields(ctx, raw, _MODEL_FIELDS, "model")
    for key in _KIND_REQUIRED[v["kind"]]:
        if key not in v:
            raise ctx.fail(key, f"required for kind {v['kind']!r}")
    if ("activation_mb_per_sample" in v) != ("activation_basis" in v):
        missing = "activation_basis" if "activation_mb_per_sample" in v else "activation_mb_per_sample"
        raise ctx.fail(missing, "activation_mb_per_sample and activation_basis go together")
    if "kv_heads" in v and "heads" in v and v["kv_heads"] > v["heads"]:
        raise ctx.fail("kv_heads", f"must be <= heads ({v['heads']}), got {v['kv_heads']}")
    if "default_seq_len" in v and "max_seq_len" in v and v["default_seq_len"] > v["max_seq_len"]:
        raise ctx.fail(
            "default_seq_len", f"must be <= max_seq_len ({v['max_seq_len']}), got {v['default_seq_len']}"
        )
    if "active_params" in v and v["active_params"] > v["params"]:
        raise ctx.fail("active_params", f"must be <= params ({v['params']}), got {v['active_params']}")
    if "experts_per_token" in v and "experts" in v and v["experts_per_token"] > v["experts"]:
        raise ctx.fail(
            "experts_per_token", f"must be <= experts ({v['experts']}), got {v['experts_per_token']}"
        )
    if "encoder_layers" in v and "decoder_layers" in v and "layers" in v:
        total = v["encoder_layers"] + v["decoder_layers"]
        if total != v["layers"]:
            raise ctx.fail(
                "layers", f"must equal encoder_layers + decoder_layers ({total}), got {v['layers']}"
            )
    for key, partner in (
        ("release_precision", "release_precision_source"),
        ("release_weights_gb", "release_weights_source"),
        ("gguf_sizes", "gguf_sizes_source"),
    ):
        if (key in v) != (partner in v):
            missing = partner if key in v else key
            raise ctx.fail(missing, f"{key} and {partner} go together")
    _check_attention(ctx, v)
    v["estimated"] = _check_estimated(ctx, v, _MODEL_FIELD_NAMES)
    if "components" in v:
        v["components"] = tuple(v["components"])
    return Model(**v)


def _check_attention(ctx: _Ctx, v: dict[str, Any]) -> None:
    """Sliding-window / local-global fields (issue 17): all or none, and consistent with the layers."""
    keys = (
        "sliding_window",
        "full_attention_layers",
        "sliding_window_full_in",
        "attention_source",
        "linear_state_values",
    )
    if not any(k in v for k in keys):
        return
    # a hybrid linear-attention / state-space model has no window: its other layers hold a state
    linear = "linear_state_values" in v
    if linear and ("sliding_window" in v or "sliding_window_full_in" in v):
        raise ctx.fail(
            "linear_state_values",
            "a model's non-full layers are either sliding-window or linear/state-space, not both",
        )
    needed = ("full_attention_layers", "attention_source")
    for k in needed if linear else ("sliding_window", *needed):
        if k not in v:
            raise ctx.fail(
                k, "required with sliding_window / full_attention_layers (say where they come from)"
            )
    if v["kind"] not in ("decoder", "moe-decoder"):
        raise ctx.fail("sliding_window", f"only for decoder and moe-decoder models, got kind {v['kind']!r}")
    layers = v.get("layers", 0)
    if v["full_attention_layers"] >= layers:
        raise ctx.fail(
            "full_attention_layers",
            f"must be < layers ({layers}): with every layer global there is no sliding window, "
            f"got {v['full_attention_layers']}",
        )
    if linear:
        return
    if "max_seq_len" in v and v["sliding_window"] >= v["max_seq_len"]:
        raise ctx.fail(
            "sliding_window", f"must be < max_seq_len ({v['max_seq_len']}), got {v['sliding_window']}"
        )
    for i, e in enumerate(v.get("sliding_window_full_in", ())):
        if e not in SWA_ENGINES:
            raise ctx.fail(
                f"sliding_window_full_in[{i}]", f"unknown engine {e!r} (one of {', '.join(SWA_ENGINES)})"
            )


def _top_list(data: Any, display: str, key: str) -> list[Any]:
    if not isinstance(data, dict):
        raise KnowledgeError(display, f"must be a mapping with a top-level '{key}:' list")
    for k in data:
        if k != key:
            raise KnowledgeError(display, "unknown top-level key", field=str(k))
    items = data.get(key)
    if not isinstance(items, list) or not items:
        raise KnowledgeError(display, "must be a non-empty list", field=key)
    return items


# --------------------------------------------------------------------------- benchmarks


_SET_FIELDS = {"id", "kind", "task", "precision", "unit", "semantics", "data", "by_vram", "source", "notes"}


def _build_sets(
    display: str, raw: Any, gpu_ids: Mapping[str, Any], model_ids: Mapping[str, Any], seen: dict[str, str]
) -> list[BenchmarkSet]:
    if not isinstance(raw, dict):
        raise KnowledgeError(display, "must be a mapping with source, retrieved, sets")
    for k in raw:
        if k not in ("source", "retrieved", "sets", "notes"):
            raise KnowledgeError(display, "unknown top-level key", field=str(k))
    top = _Ctx(display)
    file_source = _str(top, "source", raw.get("source"))
    _str(top, "retrieved", raw.get("retrieved"))
    if raw.get("notes") is not None:
        _str(top, "notes", raw["notes"])
    sets_raw = raw.get("sets")
    if not isinstance(sets_raw, list) or not sets_raw:
        raise KnowledgeError(display, "must be a non-empty list", field="sets")
    out = []
    for i, sr in enumerate(sets_raw):
        ctx = _Ctx(display, _entry_label("set", sr, i))
        if not isinstance(sr, dict):
            raise ctx.fail(None, "each set must be a mapping")
        for k in sr:
            if k not in _SET_FIELDS:
                raise ctx.fail(str(k), "unknown key (not in knowledge/SCHEMA.md)")
        for k in ("id", "kind", "task", "precision", "unit", "semantics"):
            if k not in sr:
                raise ctx.fail(k, "missing required key")
        set_id = _slug(ctx, "id", sr["id"])
        if set_id in seen:
            raise ctx.fail("id", f"duplicate set id (also in {seen[set_id]})")
        seen[set_id] = display
        kind = _enum(*BENCH_KINDS)(ctx, "kind", sr["kind"])
        task = _enum(*BENCH_TASKS)(ctx, "task", sr["task"])
        precision = _enum(*BENCH_PRECISIONS)(ctx, "precision", sr["precision"])
        unit = _str(ctx, "unit", sr["unit"])
        semantics = _enum(*BENCH_SEMANTICS)(ctx, "semantics", sr["semantics"])
        source = _str(ctx, "source", sr["source"]) if sr.get("source") is not None else file_source
        notes = _str(ctx, "notes", sr["notes"]) if sr.get("notes") is not None else None

        data: dict[str, dict[str, float]] = {}
        raw_data = sr.get("data")
        if raw_data is not None:
            if not isinstance(raw_data, dict):
                raise ctx.fail("data", "must be a mapping model id -> gpu id -> value")
            value_check = _nonneg_number if kind != "known_batch" else _pos_number
            for model_id, row in raw_data.items():
                if model_id not in model_ids:
                    raise ctx.fail(f"data.{model_id}", f"unknown model id {_show(str(model_id))}")
                if not isinstance(row, dict) or not row:
                    raise ctx.fail(f"data.{model_id}", "must be a non-empty mapping gpu id -> value")
                clean: dict[str, float] = {}
                for gpu_id, value in row.items():
                    where = f"data.{model_id}.{gpu_id}"
                    if gpu_id not in gpu_ids:
                        raise ctx.fail(where, f"unknown gpu id {_show(str(gpu_id))}")
                    clean[gpu_id] = value_check(ctx, where, value)
                    _too_big(ctx, where, clean[gpu_id], "benchmark value")
                    if kind in ("max_batch", "known_batch") and value != int(value):
                        raise ctx.fail(where, f"a batch size must be a whole number, got {_show(value)}")
                data[model_id] = clean

        by_vram: dict[str, dict[float, float]] = {}
        raw_bv = sr.get("by_vram")
        if raw_bv is not None:
            if kind != "known_batch":
                raise ctx.fail("by_vram", "only known_batch sets have by_vram")
            if not isinstance(raw_bv, dict):
                raise ctx.fail("by_vram", "must be a mapping model id -> VRAM GB -> batch")
            for model_id, row in raw_bv.items():
                if model_id not in model_ids:
                    raise ctx.fail(f"by_vram.{model_id}", f"unknown model id {_show(str(model_id))}")
                if not isinstance(row, dict) or not row:
                    raise ctx.fail(f"by_vram.{model_id}", "must be a non-empty mapping VRAM GB -> batch")
                bv_clean: dict[float, float] = {}
                for tier, value in row.items():
                    where = f"by_vram.{model_id}.{tier}"
                    _pos_number(ctx, where, tier)
                    bv_clean[tier] = _pos_int(ctx, where, value)
                by_vram[model_id] = bv_clean
        if not data and not by_vram:
            raise ctx.fail("data", "a set needs data (or by_vram for known_batch)")
        out.append(
            BenchmarkSet(
                id=set_id,
                file=display,
                kind=kind,
                task=task,
                precision=precision,
                unit=unit,
                semantics=semantics,
                source=source,
                data=types.MappingProxyType({k: types.MappingProxyType(v) for k, v in data.items()}),
                by_vram=types.MappingProxyType({k: types.MappingProxyType(v) for k, v in by_vram.items()}),
                notes=notes,
            )
        )
    return out


# --------------------------------------------------------------------------- currencies


def _build_currencies(display: str, raw: Any) -> dict[str, CurrencyRate]:
    if not isinstance(raw, dict):
        raise KnowledgeError(display, "must be a mapping with source, date, rates")
    for k in raw:
        if k not in ("source", "date", "rates", "notes"):
            raise KnowledgeError(display, "unknown top-level key", field=str(k))
    top = _Ctx(display)
    source = _str(top, "source", raw.get("source"))
    date: Any = raw.get("date")
    if not isinstance(date, str) or not _YYYY_MM_DD.match(date):
        # unquoted YAML dates load as datetime.date; accept those too
        if hasattr(date, "isoformat") and _YYYY_MM_DD.match(date.isoformat()):
            date = date.isoformat()
        else:
            raise top.fail("date", f"must be a YYYY-MM-DD date, got {_show(date)}")
    rates = raw.get("rates")
    if not isinstance(rates, list) or not rates:
        raise KnowledgeError(display, "must be a non-empty list", field="rates")
    out: dict[str, CurrencyRate] = {}
    symbol_owner: dict[str, str] = {}
    allowed = {"code", "usd_per_unit", "symbols", "source", "date", "estimated", "notes"}
    for i, r in enumerate(rates):
        label = (
            f"rate '{r['code']}'"
            if isinstance(r, dict) and isinstance(r.get("code"), str)
            else f"rate #{i + 1}"
        )
        ctx = _Ctx(display, label)
        if not isinstance(r, dict):
            raise ctx.fail(None, "each rate must be a mapping")
        for k in r:
            if k not in allowed:
                raise ctx.fail(str(k), "unknown key")
        for k in ("code", "usd_per_unit", "symbols"):
            if k not in r:
                raise ctx.fail(k, "missing required key")
        code = r["code"]
        if not isinstance(code, str) or not _CURRENCY_CODE.match(code):
            raise ctx.fail("code", f"must be a 3-letter upper-case ISO code, got {_show(code)}")
        if code in out:
            raise ctx.fail("code", "duplicate currency code")
        usd = _pos_number(ctx, "usd_per_unit", r["usd_per_unit"])
        _too_big(ctx, "usd_per_unit", usd)
        symbols = _str_list(ctx, "symbols", r["symbols"])
        for j, sym in enumerate(symbols):
            key = normalise_name(sym)
            if key in symbol_owner:
                raise ctx.fail(f"symbols[{j}]", f"symbol {_show(sym)} already belongs to {symbol_owner[key]}")
            symbol_owner[key] = code
        est = r.get("estimated", [])
        if est is True:
            est = ["usd_per_unit"]
        est_names = _str_list(ctx, "estimated", est) if est else ()
        for j, n in enumerate(est_names):
            if n != "usd_per_unit":
                raise ctx.fail(f"estimated[{j}]", f"names no estimable field: {_show(n)}")
        rate_date: Any = r.get("date", date)
        if hasattr(rate_date, "isoformat"):
            rate_date = rate_date.isoformat()
        if not isinstance(rate_date, str) or not _YYYY_MM_DD.match(rate_date):
            raise ctx.fail("date", f"must be a YYYY-MM-DD date, got {_show(rate_date)}")
        rate_source = _str(ctx, "source", r["source"]) if r.get("source") is not None else source
        out[code] = CurrencyRate(
            code=code,
            usd_per_unit=usd,
            symbols=symbols,
            date=rate_date,
            source=rate_source,
            estimated=bool(est_names),
        )
    return out


# --------------------------------------------------------------------------- formats, software

FORMAT_FAMILIES = ("native", "gguf", "awq", "gptq", "bnb", "fp8", "mxfp4")
FORMAT_PRECISIONS = (
    "bf16",
    "fp16",
    "fp32",
    "fp8",
    "int8",
    "int6",
    "int5",
    "int4",
    "int3",
    "int2",
    "nf4",
    "mxfp4",
)
NOTE_METRICS = ("ppl_delta", "ppl_ratio", "accuracy_recovery", "kl_divergence", "qualitative")
SUPPORT_LEVELS = ("yes", "partial", "no")


def _keys(ctx: _Ctx, raw: Any, allowed: set[str], required: tuple[str, ...], what: str) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise ctx.fail(None, f"each {what} must be a mapping, got {_show(raw)}")
    for k in raw:
        if k not in allowed:
            raise ctx.fail(str(k), "unknown key (not in knowledge/SCHEMA.md)")
    for k in required:
        if k not in raw or raw[k] is None:
            raise ctx.fail(k, "missing required key")
    return raw


def _date_str(ctx: _Ctx, name: str, v: Any) -> str:
    if hasattr(v, "isoformat"):
        v = v.isoformat()
    if not isinstance(v, str) or not (_YYYY_MM.match(v) or _YYYY_MM_DD.match(v)):
        raise ctx.fail(name, f"must be a YYYY-MM or YYYY-MM-DD date (quote it), got {_show(v)}")
    return v


def _top_mapping(data: Any, display: str, allowed: tuple[str, ...], list_key: str) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise KnowledgeError(display, f"must be a mapping with a top-level '{list_key}:' list")
    for k in data:
        if k not in allowed:
            raise KnowledgeError(display, "unknown top-level key", field=str(k))
    items = data.get(list_key)
    if not isinstance(items, list) or not items:
        raise KnowledgeError(display, "must be a non-empty list", field=list_key)
    return data


def _build_formats(display: str, raw: Any) -> dict[str, Format]:
    data = _top_mapping(raw, display, ("source", "date", "notes", "formats"), "formats")
    top = _Ctx(display)
    _str(top, "source", data.get("source"))
    _date_str(top, "date", data.get("date"))
    out: dict[str, Format] = {}
    note_ids: set[str] = set()
    allowed = {
        "id", "name", "family", "precision", "bits_per_weight", "bits_basis", "quality_rank", "applies_to",
        "embedding_bits", "engines", "quality_note", "min_params", "notes",
    }  # fmt: skip
    required = (
        "id",
        "name",
        "family",
        "precision",
        "bits_per_weight",
        "bits_basis",
        "quality_rank",
        "applies_to",
    )
    for i, r in enumerate(data["formats"]):
        ctx = _Ctx(display, _entry_label("format", r, i))
        _keys(ctx, r, allowed, required, "format")
        fid = _format_id(ctx, "id", r["id"])
        if fid in out:
            raise ctx.fail("id", "duplicate format id")
        kinds = _str_list(ctx, "applies_to", r["applies_to"])
        for j, k in enumerate(kinds):
            if k not in MODEL_KINDS:
                raise ctx.fail(
                    f"applies_to[{j}]", f"must be a model kind ({', '.join(MODEL_KINDS)}), got {_show(k)}"
                )
        rank = r["quality_rank"]
        if not isinstance(rank, int) or isinstance(rank, bool) or rank < 0:
            raise ctx.fail("quality_rank", f"must be an integer >= 0, got {_show(rank)}")
        note = None
        qn = r.get("quality_note")
        if qn is not None:
            nctx = _Ctx(display, f"format '{fid}' quality_note")
            _keys(
                nctx,
                qn,
                {"id", "text", "metric", "value", "date", "source"},
                ("id", "text", "metric", "date", "source"),
                "quality_note",
            )
            nid = _format_id(nctx, "id", qn["id"])
            if nid in note_ids:
                raise nctx.fail("id", "duplicate quality note id")
            note_ids.add(nid)
            text = _str(nctx, "text", qn["text"])
            if len(text) > 140 or "\n" in text:
                raise nctx.fail("text", "must be one short line (at most 140 characters)")
            value = qn.get("value")
            if value is not None and not _is_number(value):
                raise nctx.fail("value", f"must be a number or null, got {_show(value)}")
            note = QualityNote(
                id=nid,
                text=text,
                metric=_enum(*NOTE_METRICS)(nctx, "metric", qn["metric"]),
                value=None if value is None else float(value),
                date=_date_str(nctx, "date", qn["date"]),
                source=_str(nctx, "source", qn["source"]),
            )
        emb = r.get("embedding_bits")
        out[fid] = Format(
            id=fid,
            name=_str(ctx, "name", r["name"]),
            family=_enum(*FORMAT_FAMILIES)(ctx, "family", r["family"]),
            precision=_enum(*FORMAT_PRECISIONS)(ctx, "precision", r["precision"]),
            bits_per_weight=float(_pos_number(ctx, "bits_per_weight", r["bits_per_weight"])),
            bits_basis=_str(ctx, "bits_basis", r["bits_basis"]),
            quality_rank=rank,
            applies_to=kinds,
            embedding_bits=None if emb is None else float(_pos_number(ctx, "embedding_bits", emb)),
            engines=_str_list(ctx, "engines", r["engines"]) if r.get("engines") is not None else (),
            quality_note=note,
            min_params=_pos_int(ctx, "min_params", r["min_params"])
            if r.get("min_params") is not None
            else None,
            notes=_str(ctx, "notes", r["notes"]) if r.get("notes") is not None else None,
        )
    return out


def _build_software(display: str, raw: Any) -> tuple[dict[str, Tool], dict[str, Engine]]:
    data = _top_mapping(raw, display, ("source", "date", "notes", "tools", "engines"), "tools")
    top = _Ctx(display)
    _str(top, "source", data.get("source"))
    file_date = _date_str(top, "date", data.get("date"))
    tools: dict[str, Tool] = {}
    note_ids: set[str] = set()
    for i, r in enumerate(data["tools"]):
        ctx = _Ctx(display, _entry_label("tool", r, i))
        _keys(ctx, r, {"id", "name", "support"}, ("id", "name", "support"), "tool")
        tid = _format_id(ctx, "id", r["id"])
        if tid in tools:
            raise ctx.fail("id", "duplicate tool id")
        sup_raw = r["support"]
        if not isinstance(sup_raw, dict) or set(sup_raw) != set(SOFTWARE):
            raise ctx.fail("support", f"must map every stack ({', '.join(SOFTWARE)}) to a support entry")
        sup: dict[str, ToolSupport] = {}
        for stack in SOFTWARE:
            sctx = _Ctx(display, f"tool '{tid}' support.{stack}")
            e = _keys(
                sctx,
                sup_raw[stack],
                {"level", "note", "source", "date", "min_compute_capability", "architectures", "other_level"},
                ("level", "note", "source"),
                "support entry",
            )
            note_id = f"{tid}.{stack}"
            if note_id in note_ids:
                raise sctx.fail(None, "duplicate support note")
            note_ids.add(note_id)
            mcc = e.get("min_compute_capability")
            if mcc is not None and stack != "cuda":
                raise sctx.fail("min_compute_capability", "only for the cuda stack")
            archs = _str_list(sctx, "architectures", e["architectures"]) if e.get("architectures") else ()
            other = e.get("other_level")
            if other is not None and not archs:
                raise sctx.fail("other_level", "only with architectures")
            sup[stack] = ToolSupport(
                tool=tid,
                stack=stack,
                level=_enum(*SUPPORT_LEVELS)(sctx, "level", e["level"]),
                note_id=note_id,
                note=_str(sctx, "note", e["note"]),
                source=_str(sctx, "source", e["source"]),
                date=_date_str(sctx, "date", e["date"]) if e.get("date") is not None else file_date,
                min_compute_capability=None
                if mcc is None
                else float(_pos_number(sctx, "min_compute_capability", mcc)),
                architectures=archs,
                other_level=None if other is None else _enum(*SUPPORT_LEVELS)(sctx, "other_level", other),
            )
        tools[tid] = Tool(id=tid, name=_str(ctx, "name", r["name"]), support=types.MappingProxyType(sup))
    engines: dict[str, Engine] = {}
    seen_names: dict[str, str] = {}
    for i, r in enumerate(data.get("engines") or []):
        ctx = _Ctx(display, _entry_label("engine", r, i))
        _keys(
            ctx,
            r,
            {"id", "name", "aliases", "stacks", "formats", "source", "notes"},
            ("id", "name", "aliases", "stacks", "formats", "source"),
            "engine",
        )
        eid = _format_id(ctx, "id", r["id"])
        if eid in engines:
            raise ctx.fail("id", "duplicate engine id")
        aliases = _str_list(ctx, "aliases", r["aliases"])
        for j, n in enumerate((r["name"], *aliases)):
            key = normalise_name(str(n))
            if key in seen_names and seen_names[key] != eid:
                raise ctx.fail(f"aliases[{j}]", f"{n!r} is already used by engine {seen_names[key]!r}")
            seen_names[key] = eid
        stacks = _str_list(ctx, "stacks", r["stacks"])
        for j, st in enumerate(stacks):
            if st not in SOFTWARE:
                raise ctx.fail(f"stacks[{j}]", f"must be one of {', '.join(SOFTWARE)}, got {_show(st)}")
        fams = _str_list(ctx, "formats", r["formats"])
        for j, fam in enumerate(fams):
            if fam not in FORMAT_FAMILIES:
                raise ctx.fail(
                    f"formats[{j}]",
                    f"must be a format family ({', '.join(FORMAT_FAMILIES)}), got {_show(fam)}",
                )
        engines[eid] = Engine(
            id=eid,
            name=_str(ctx, "name", r["name"]),
            aliases=aliases,
            stacks=stacks,
            formats=fams,
            source=_str(ctx, "source", r["source"]),
            notes=_str(ctx, "notes", r["notes"]) if r.get("notes") is not None else None,
        )
    return tools, engines


# --------------------------------------------------------------------------- catalog


class Catalog:
    """Everything in the knowledge directory, validated. Read-only."""

    def __init__(
        self,
        directory: Path,
        gpus: dict[str, GPU],
        models: dict[str, Model],
        benchmarks: Benchmarks,
        currencies: dict[str, CurrencyRate],
        prices: Any = None,
        formats: dict[str, Format] | None = None,
        tools: dict[str, Tool] | None = None,
        engines: dict[str, Engine] | None = None,
        measured_memory: tuple[Any, ...] = (),
        quality: Any = None,
        advice: tuple[Any, ...] = (),
    ) -> None:
        self.directory = directory
        self.gpus: Mapping[str, GPU] = types.MappingProxyType(gpus)
        self.models: Mapping[str, Model] = types.MappingProxyType(models)
        self.benchmarks = CatalogBenchmarks(benchmarks, {g.id: g.vram_gb for g in gpus.values()})
        self.currencies: Mapping[str, CurrencyRate] = types.MappingProxyType(currencies)
        # bot.core.prices.PriceBook (prices.yaml + prices-imported.yaml); None = read on first use
        self.prices = prices
        self.formats: Mapping[str, Format] = types.MappingProxyType(formats or {})
        self.tools: Mapping[str, Tool] = types.MappingProxyType(tools or {})
        self.engines: Mapping[str, Engine] = types.MappingProxyType(engines or {})
        # bot.core.measured.MeasuredMemory: published peaks of exact workloads (measured-memory.yaml)
        self.measured_memory: tuple[Any, ...] = tuple(measured_memory)
        # bot.core.quality.QualityBook: published benchmark scores per model and task (quality.yaml)
        self.quality = quality
        # bot.core.advice_facts.AdviceFact: sourced facts behind judgement questions (advice.yaml)
        self.advice: tuple[Any, ...] = tuple(advice)

    def gpu(self, gpu_id: str) -> GPU:
        return self.gpus[gpu_id]

    def model(self, model_id: str) -> Model:
        return self.models[model_id]

    def names(self) -> dict[str, tuple[str, str]]:
        """Normalised id/alias -> ("gpu" | "model", id). Unique by construction."""
        out: dict[str, tuple[str, str]] = {}
        for g in self.gpus.values():
            for n in (g.id, *g.aliases):
                out[normalise_name(n)] = ("gpu", g.id)
        for m in self.models.values():
            for n in (m.id, *m.aliases):
                out[normalise_name(n)] = ("model", m.id)
        return out

    def summary(self) -> str:
        priced = [g for g in self.gpus.values() if g.price_usd is not None]
        missing = [g.id for g in self.gpus.values() if g.price_usd is None]
        oldest = min((g.price_date for g in priced if g.price_date), default=None)
        est_prices = sum(1 for g in priced if "price_usd" in g.estimated)
        lines = [
            f"knowledge: {self.directory}",
            f"cards: {len(self.gpus)} ({sum(1 for g in self.gpus.values() if g.is_rocm)} ROCm)",
            f"models: {len(self.models)}",
            f"benchmark sets: {len(self.benchmarks)}, cells: {self.benchmarks.cell_count()}",
            f"currencies: {len(self.currencies)} ({', '.join(self.currencies)})",
            f"formats: {len(self.formats)}, software tools: {len(self.tools)}, engines: {len(self.engines)}",
            f"prices: {len(priced)} cards priced ({est_prices} estimated), oldest price date {oldest or '-'}",
            f"cards missing a price: {', '.join(missing) if missing else 'none'}",
        ]
        if self.prices is not None:
            lines.append(f"price book: {len(self.prices)} dated prices for {len(self.prices.by_gpu)} cards")
        return "\n".join(lines)


def _display(directory: Path, path: Path) -> str:
    try:
        rel = path.relative_to(directory)
    except ValueError:
        return str(path)
    return f"{directory.name}/{rel.as_posix()}"


E = TypeVar("E", "GPU", "Model")


def load_catalog(directory: Path | None = None) -> Catalog:
    """Read and validate a knowledge directory (default: the package's ``knowledge/``).

    Raises :class:`KnowledgeError` (one line: file, entry, field, problem) on the
    first problem. Never reads the environment; see :func:`default_knowledge_dir`.
    """
    root: Path = Path(directory) if directory is not None else _package_knowledge_dir()
    if not root.is_dir():
        raise KnowledgeError(str(root), "knowledge directory does not exist")
    directory = root

    names: dict[str, str] = {}  # normalised id/alias -> "gpu 'x'" / "model 'y'"

    def claim(display: str, label: str, field: str, text: str) -> None:
        key = normalise_name(text)
        owner = names.get(key)
        if owner is not None and owner != label:
            raise KnowledgeError(
                display, f"{_show(text)} is already used by {owner}", entry=label, field=field
            )
        names[key] = label

    def entries(filename: str, key: str, kind: str, build: Callable[[str, Any, int], E]) -> dict[str, E]:
        path = root / filename
        disp = _display(root, path)
        out: dict[str, E] = {}
        for i, raw in enumerate(_top_list(_read_yaml(path, disp), disp, key)):
            e = build(disp, raw, i)
            label = f"{kind} '{e.id}'"
            if e.id in out:
                raise KnowledgeError(disp, f"duplicate {kind} id", entry=label, field="id")
            claim(disp, label, "id", e.id)
            for j, a in enumerate(e.aliases):
                claim(disp, label, f"aliases[{j}]", a)
            out[e.id] = e
        return out

    gpus = entries("gpus.yaml", "gpus", "gpu", _build_gpu)
    models = entries("models.yaml", "models", "model", _build_model)
    for m in models.values():
        if m.base_model is not None and m.base_model not in models:
            raise KnowledgeError(
                _display(root, root / "models.yaml"),
                f"unknown model id {m.base_model!r}",
                entry=f"model '{m.id}'",
                field="base_model",
            )

    # benchmarks
    bench_dir = directory / "benchmarks"
    sets: list[BenchmarkSet] = []
    seen: dict[str, str] = {}
    if bench_dir.is_dir():
        for path in sorted(bench_dir.glob("*.yaml")):
            if path.name == "memory-calibration.yaml":  # constants of bot/core/memory.py, read there
                continue
            if path.name == "speed-calibration.yaml":  # read by bot/core/throughput.py
                continue
            bdisp = _display(directory, path)
            sets.extend(_build_sets(bdisp, _read_yaml(path, bdisp), gpus, models, seen))

    # currencies
    cur_path = directory / "currencies.yaml"
    cdisp = _display(directory, cur_path)
    currencies = _build_currencies(cdisp, _read_yaml(cur_path, cdisp))

    # formats (optional file: a knowledge dir without it has no quantized builds)
    formats: dict[str, Format] = {}
    fmt_path = directory / "formats.yaml"
    if fmt_path.is_file():
        fdisp = _display(directory, fmt_path)
        formats = _build_formats(fdisp, _read_yaml(fmt_path, fdisp))
        mdisp = _display(directory, directory / "models.yaml")
        for m in models.values():
            for fid in m.gguf_sizes:
                if fid not in formats:
                    raise KnowledgeError(
                        mdisp,
                        f"unknown format id {fid!r}",
                        entry=f"model '{m.id}'",
                        field=f"gguf_sizes.{fid}",
                    )
                if formats[fid].family != "gguf":
                    raise KnowledgeError(
                        mdisp,
                        f"{fid!r} is not a GGUF format",
                        entry=f"model '{m.id}'",
                        field=f"gguf_sizes.{fid}",
                    )

    # software support and engine names (optional file)
    tools: dict[str, Tool] = {}
    engines: dict[str, Engine] = {}
    sw_path = directory / "software.yaml"
    if sw_path.is_file():
        sdisp = _display(directory, sw_path)
        tools, engines = _build_software(sdisp, _read_yaml(sw_path, sdisp))
        for f in formats.values():
            for j, eid in enumerate(f.engines):
                if eid not in engines:
                    raise KnowledgeError(
                        _display(directory, fmt_path),
                        f"unknown engine id {eid!r}",
                        entry=f"format '{f.id}'",
                        field=f"engines[{j}]",
                    )

    from bot.core import prices as _prices  # late import: prices reads knowledge's helpers

    price_book = _prices.load(directory, gpus, currencies)
    from bot.core import measured as _measured

    measured_memory = _measured.load(directory, models, _read_yaml)
    from bot.core import quality as _quality

    quality_book = _quality.load(directory, models, _read_yaml)
    from bot.core import advice_facts as _advice  # issue 10: judgement questions

    advice = _advice.load(directory, gpus, set(tools) | set(engines), _read_yaml)
    from bot.core import tensor_rates as _rates  # cards outside the catalog: their tensor rate

    if (directory / _rates.FILE).is_file():  # validated here, so a malformed file stops start-up
        _rates.table_for(directory)
    return Catalog(
        directory,
        gpus,
        models,
        Benchmarks(sets),
        currencies,
        prices=price_book,
        formats=formats,
        tools=tools,
        engines=engines,
        measured_memory=measured_memory,
        quality=quality_book,
        advice=advice,
    )


@functools.lru_cache(maxsize=8)
def get_catalog(directory: Path | None = None) -> Catalog:
    """Cached :func:`load_catalog`."""
    return load_catalog(directory)
