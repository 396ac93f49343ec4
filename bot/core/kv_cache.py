"""KV-cache settings (issue 17): the cache's data type, what each engine offers, and the context asked.

The KV cache stores keys and values of every cached token in every layer. Engines can store it
in fewer bits than the model's 16-bit activations:

* llama.cpp (and Ollama, LM Studio, built on it): ``-ctk/--cache-type-k`` and
  ``-ctv/--cache-type-v`` take ggml types; ``q8_0`` is 32 int8 values + one fp16 scale = 34
  bytes per 32 values (8.5 bits), ``q4_0`` 16 bytes + one fp16 scale = 18 bytes per 32 values
  (4.5 bits) (ggml/src/ggml-common.h block_q8_0 / block_q4_0; "KV BPV 8.50" in llama.cpp PR
  #7412). Quantizing the V cache needs flash attention (``-fa``); Ollama sets it with
  ``OLLAMA_KV_CACHE_TYPE`` and ``OLLAMA_FLASH_ATTENTION=1``.
* vLLM: ``--kv-cache-dtype fp8`` (e4m3 / e5m2): one byte per value (vLLM docs, "Quantized KV
  Cache"). vLLM has no q8_0 / q4_0 cache.

``KV_TYPES`` holds the bytes per value and the published cost of each type (one short line with
its date and source). ``read`` finds a KV-cache setting in a question ("q8 kv cache", "kv cache
fp8", "8-bit KV", "KV缓存 q8") so the parser can blank it before it reads the weights' precision
("q8" there is not the weights' 8 bits). ``asks_max_context`` recognises "how long a context can I
use" questions; ``settle`` checks a setting against the engine asked.

Pure functions; no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.core import gated_re

__all__ = [
    "KV_TYPES",
    "KvType",
    "LLAMA_CPP_FAMILY",
    "asks_max_context",
    "asks_full_context",
    "bytes_per_value",
    "read",
    "settle",
]

#: engines built on llama.cpp (catalog engine ids); "" = no engine named, the builds' default
#: engines (GGUF files run by llama.cpp, Ollama, LM Studio)
LLAMA_CPP_FAMILY = frozenset({"", "llama.cpp", "ollama", "lm-studio"})
_FP8_ENGINES = frozenset({"vllm", "sglang", "tensorrt-llm"})


@dataclass(frozen=True)
class KvType:
    id: str  # "f16" | "q8_0" | "q4_0" | "fp8"
    bytes_per_value: float
    cost: str  # one short line: the published quality / speed cost
    date: str  # YYYY-MM of the measurement
    source: str


KV_TYPES: dict[str, KvType] = {
    "f16": KvType(
        "f16", 2.0, "", "", "llama.cpp default cache type f16; vLLM --kv-cache-dtype auto (model dtype)"
    ),
    "q8_0": KvType(
        "q8_0",
        34 / 32,
        "ppl_q8",
        "2024-05",
        "ggml-org/llama.cpp PR #7412 (J. Gaessler, 2024-05-20): q8_0 K and V cache on an 8B model, "
        "perplexity 6.2346 vs 6.2322 with f16 (+0.005), KL divergence 0.0016",
    ),
    "q4_0": KvType(
        "q4_0",
        18 / 32,
        "ppl_q4",
        "2026-04",
        "ggml-org/llama.cpp PR #21551 (2026-04): q4_0 K and V cache, multiple-choice score 71.58 vs "
        "72.15 with f16 on a 24B model, 39.65 vs 39.99 MMLU on Gemma 3 4B (with llama.cpp's K/V rotation)",
    ),
    "fp8": KvType(
        "fp8",
        1.0,
        "fp8",
        "2026-07",
        "vllm-project/vllm PR #49050 (2026-07, docs quantized_kvcache): fp8 doubles the KV cache capacity; "
        "decode +1% at 2k to +21% at 32k context on an L4; accuracy depends on calibrated scales",
    ),
}


def bytes_per_value(kv: str | None, default: float = 2.0) -> float:
    """Bytes per cached value for a cache type (``default``: the model's dtype when none is set)."""
    if not kv or kv == "f16":
        return default
    return KV_TYPES[kv].bytes_per_value


# ----------------------------------------------------------------- reading questions

_TYPE = (
    r"(q8_0|q8|q4_0|q4|fp8(?:_e4m3|_e5m2)?|e4m3|f16|fp16|bf16|int8|int4|8[\s-]?bits?|4[\s-]?bits?"
    r"|16[\s-]?bits?|8\s*位|4\s*位|16\s*位)"
)
_KV = r"(?:kv|k/v|key[\s-]value)[\s-]*(?:cache|缓存)?"
_KV_RE = gated_re.compile(
    r"(?:--cache-type-[kv]|-ct[kv]|--kv-cache-dtype|kv_cache_type|kv_cache_dtype)[\s=]+"
    + _TYPE
    + r"|(?<![a-z0-9])"
    + _TYPE
    + r"[\s-]*(?:quanti[sz]ed\s*|的\s*)?"
    + _KV
    + r"(?![a-z])"
    + r"|(?<![a-z0-9])"
    + _KV
    + r"\s*(?:in|at|of|to|as|=|:|dtype|type|量化为|量化成|量化到|用|使用|设为|设成)?\s*"
    + _TYPE
    + r"(?![a-z0-9])"
    + r"|(?:quanti[sz]ed|量化的?)\s*"
    + _KV
    + r"(?![a-z])",
    re.I,
)


def _type_id(word: str | None) -> str:
    """A type word as said -> a KV_TYPES id (a bare "quantized KV cache" is llama.cpp's usual q8_0)."""
    if not word:
        return "q8_0"
    w = re.sub(r"[\s-]", "", word.lower())
    if w.startswith("q8") or w in ("int8", "8bit", "8bits", "8位"):
        return "q8_0"
    if w.startswith("q4") or w in ("int4", "4bit", "4bits", "4位"):
        return "q4_0"
    if w.startswith("fp8") or w == "e4m3":
        return "fp8"
    return "f16"


# every match of _KV_RE holds one of these (a flag or the KV word): most questions skip the full scan
_KV_GATE_RE = gated_re.compile(r"kv|k/v|key[\s-]value|-ct[kv]|cache-type", re.I)


def read(text: str) -> tuple[str | None, list[tuple[int, int]]]:
    """The KV-cache type a question sets (the first said) and every place a KV setting is said (to
    blank them: "-ctk q4_0 -ctv q4_0" says it twice), or (None, [])."""
    if not _KV_GATE_RE.search(text):
        return None, []
    found = list(_KV_RE.finditer(text))
    if not found:
        return None, []
    word = next((g for g in found[0].groups() if g), None)
    return _type_id(word), [(m.start(), m.end()) for m in found]


_MAX_CTX_RE = gated_re.compile(
    r"\b(?:max(?:imum)?|longest|largest|biggest|most)\s+(?:context|ctx|context[\s-](?:length|window|size))\b"
    r"|\bhow\s+(?:long|much|big|large|many\s+tokens)\s+(?:of\s+)?(?:a\s+|the\s+)?(?:context|ctx|prompt)"
    r"|\bhow\s+many\s+tokens\s+(?:of\s+context\s+)?can\b"
    r"|\bcontext\s+(?:limit|ceiling)\b"
    r"|最多多长|最长多长|多长的?上下文|最长(?:的)?上下文|最大(?:的)?上下文|上下文(?:最多|最长|最大|能开多|能到多|能有多|可以开多|可以到多)"
    r"|能开多长|能跑多长|最多(?:能|可以)?(?:开|跑|用)?多少\s*(?:k|token|上下文)",
    re.I,
)
_FULL_CTX_RE = gated_re.compile(
    r"\b(?:at|with|using|on)\s+(?:its\s+|the\s+|a\s+)?(?:full|max(?:imum)?|whole)\s+(?:context|ctx)\b"
    r"|(?:满|最大|完整)上下文(?:跑|运行|下)",
    re.I,
)


def asks_max_context(text: str) -> bool:
    """ "How long a context can I use", "max context for X on Y", "最多多长上下文"."""
    return bool(_MAX_CTX_RE.search(text)) and not asks_full_context(text)


def asks_full_context(text: str) -> bool:
    """ "At full context", "at max context": run the model at its longest context."""
    return bool(_FULL_CTX_RE.search(text))


def settle(kv: str | None, engine: str | None) -> tuple[str | None, str | None]:
    """The cache type the engine really offers for what was asked, and the one asked when it was
    replaced: vLLM (and SGLang, TensorRT-LLM) cache in fp8, not q8_0 / q4_0; llama.cpp has no fp8
    cache, its 8-bit one is q8_0."""
    if kv is None or kv == "f16":
        return kv, None
    e = engine or ""
    if e in _FP8_ENGINES and kv in ("q8_0", "q4_0"):
        return "fp8", kv
    if e in LLAMA_CPP_FAMILY and kv == "fp8":
        return "q8_0", kv
    return kv, None
