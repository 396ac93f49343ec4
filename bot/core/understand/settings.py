"""Settings of the workload: task, method, precision, optimizer, parallelism and the training knobs.

``read`` runs once over the masked question (after the names and numbers are blanked) and returns
:class:`Settings`; the first match in the text wins where two patterns compete ("qlora ... in
fp16"). ``kv_cache`` runs earlier, before the precision is read, so "q8 kv cache" is not q8
weights.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bot.core import gated_re
from bot.core.gated_re import GatedPattern
from bot.core.kv_cache import read as _read_kv_cache
from bot.core.quick_init import quick_init
from bot.core.types import Method, Optimizer, Parallelism, Precision, Task
from bot.core.understand.text import blank as _blank
from bot.core.understand.text import rx as _rx

__all__ = ["FINETUNE_RE", "TRAIN_RE", "Settings", "kv_cache", "read"]

_FINETUNE_RE = _rx(
    r"\bfine[\s-]?tun(?:e|es|ing)\b|\bfinetun(?:e|es|ing)\b|\bft\b|\bq?lora\b|\bsft\b|\bpeft\b|微调|精调"
)
_FINETUNED_RE = _rx(r"\bfine[\s-]?tuned\b|\bfinetuned\b")
_TRAIN_RE = _rx(r"\btrain(?:s|ing|able)?\b|\bpre-?train(?:s|ing)?\b|\bfrom scratch\b|训练")
_INFER_RE = _rx(
    r"\brun(?:s|ning)?\b|\bserv(?:e|es|ing)\b|\binferenc(?:e|ing)\b|\binfer\b|\bdeploy(?:s|ing|ment)?\b|"
    r"\bgenerat(?:e|es|ing|ion)\b|\bchat(?:ting)? with\b|\bhost(?:s|ing)?\b|\bload\b|\bprediction\b|\bpredict\b|"
    r"\btranscri(?:be|bes|bing|ption)\b|转写|转录|语音识别|"
    r"推理|部署|跑|运行|生成"
)
_METHOD_RES: tuple[tuple[GatedPattern, Method], ...] = (
    (_rx(r"\bq-?lora\b"), Method.QLORA),
    (_rx(r"\blora\b"), Method.LORA),
    (
        _rx(
            r"\bfull(?:[\s-]+(?:parameter|param|model|weights?))?[\s-]+(?:fine[\s-]?tun\w*|finetun\w*|ft|training|train)\b|"
            r"\bfull[\s-]param(?:eter)?s?\b|全参|全量"
        ),
        Method.FULL,
    ),
)
_PRECISION_RES: tuple[tuple[GatedPattern, Precision], ...] = (
    (_rx(r"\bbf16\b|\bbfloat\s?16\b|\bbf-16\b"), Precision.BF16),
    (_rx(r"\bfp8\b|\bfloat8\b|\bfp-8\b|\be4m3\b"), Precision.FP8),
    (
        _rx(
            r"\bint4\b|\bint-4\b|\b4[\s-]?bits?\b|\bq4(?:_\w+)?\b|\bnf4\b|\bgptq\b|\bawq\b|\bexl2\b|4位|4比特|四位"
        ),
        Precision.INT4,
    ),
    (
        _rx(
            r"\bint8\b|\bint-8\b|(?<!adam )(?<!adamw )(?<!adam-)(?<!adamw-)\b8[\s-]?bits?\b(?![\s-]*adam)|\bq8(?:_\w+)?\b|\bllm\.int8\b|8位|8比特|八位"
        ),
        Precision.INT8,
    ),
    (
        _rx(
            r"\bfp16\b|\bfloat\s?16\b|\bfp-16\b|\bhalf(?:[\s-]precision)?\b|\bmixed[\s-]precision\b|\bamp\b|"
            r"\b16[\s-]?bits?\b|半精度|混合精度"
        ),
        Precision.FP16,
    ),
    (
        _rx(
            r"\bfp32\b|\bfloat\s?32\b|\bfp-32\b|\bfull[\s-]precision\b|\bsingle[\s-]precision\b|\b32[\s-]?bits?\b|"
            r"全精度|单精度"
        ),
        Precision.FP32,
    ),
)
_OPTIMIZER_RES: tuple[tuple[GatedPattern, Optimizer], ...] = (
    (
        _rx(r"\bpaged[\s-]?adam\w*[\s-]*8[\s-]?bit\b|\bpaged[\s-]?8[\s-]?bit[\s-]*adam\w*"),
        Optimizer.PAGED_ADAM8BIT,
    ),
    (
        _rx(r"\b8[\s-]?bit[\s-]*adam\w*|\badamw?[\s-]?8[\s-]?bit\b|\bbnb adam|\bpaged adam"),
        Optimizer.ADAM8BIT,
    ),
    (_rx(r"\badam\w*\b"), Optimizer.ADAMW),
    (_rx(r"\bsgd\b"), Optimizer.SGD),
    (_rx(r"\badafactor\b"), Optimizer.ADAFACTOR),
)
# "pure bf16": 16-bit weights and optimizer states, no fp32 master copy (Lightning's "bf16-true")
_PURE_RE = _rx(r"\bpure[\s-]?(?:bf16|fp16|bfloat16|float16|16[\s-]?bits?|half)\b|\b(?:bf16|fp16)[\s-]true\b")
_LORA_TARGET_RES: tuple[tuple[GatedPattern, str], ...] = (
    (_rx(r"\ball[\s-](?:the\s+)?linear(?:\s+(?:layers?|modules?))?\b|\bevery linear layer\b"), "all-linear"),
    (_rx(r"\bq[\s_-]?(?:proj)?\s*(?:and|,|&|/)\s*v(?:[\s_-]?proj)?\b|\bqv\b"), "qv"),
    (
        _rx(
            r"\bon\s+(?:the\s+)?attention(?:\s+(?:layers?|projections?|matrices|modules?))?\b|\battention[\s-]only\b"
        ),
        "attention",
    ),
)
_PARALLEL_RES: tuple[tuple[GatedPattern, Parallelism], ...] = (
    (_rx(r"\bfsdp\b|\bzero[\s-]?3\b|\bdeepspeed\b|\bshard(?:ed|ing)\b"), Parallelism.SHARDED),
    (_rx(r"\btensor[\s-]parallel\w*|\btp\s?=\s?\d"), Parallelism.TENSOR),
    (_rx(r"\bpipeline[\s-]parallel\w*"), Parallelism.PIPELINE),
    (_rx(r"\bddp\b|\bdata[\s-]parallel\w*"), Parallelism.DATA),
)
_CKPT_NO_RE = _rx(r"\b(?:without|no|disable[ds]?|w/o)\s+(?:gradient |grad |activation )?checkpointing\b")
_CKPT_RE = _rx(r"\b(?:gradient|grad|activation)[\s-]checkpointing\b|\bcheckpointing\b")
_FLASH_RE = _rx(r"\bflash[\s-]?att(?:ention|n)?\b|\bsdpa\b|\bxformers\b|\bfused attention\b")
_NO_FLASH_RE = _rx(
    r"\b(?:without|no|w/o|disable[ds]?|not using)\s+(?:flash[\s-]?att(?:ention|n)?|fused attention|sdpa|xformers)\b"
    r"|\b(?:eager|naive|vanilla|standard) attention\b"
)
_OFFLOAD_RE = _rx(r"\b(?:cpu|model|sequential)[\s-]offload(?:ing)?\b|\boffload(?:ing|ed)?\b")


# every pattern ``read`` runs but the task's, as one alternation: its literal check (gated_re) fails when
# none of them can match, which is most questions; the alternation itself is never searched
_KNOB_PATTERNS: tuple[GatedPattern, ...] = (
    *(rx for rx, _ in (*_METHOD_RES, *_PRECISION_RES, *_OPTIMIZER_RES)),
    *(rx for rx, _ in (*_PARALLEL_RES, *_LORA_TARGET_RES)),
    _CKPT_NO_RE,
    _CKPT_RE,
    _FLASH_RE,
    _NO_FLASH_RE,
    _OFFLOAD_RE,
    _PURE_RE,
)
_KNOBS = _rx("|".join(f"(?:{p.pattern})" for p in _KNOB_PATTERNS))


def _group_gate(patterns: Sequence[tuple[GatedPattern, Any]]) -> Any:
    """The literal check of one alternation of ``patterns`` (only the check is kept: the alternation is
    never searched): False when none of them can match, one check instead of one a pattern."""
    return gated_re.literal_check("|".join(f"(?:{rx.pattern})" for rx, _ in patterns), re.ASCII)


# id of each group _first reads (module tuples, alive as long as the module) -> its check; the knobs'
# check above passes on most questions (its literals hold "q", "," and "data"), a group's seldom does
_GROUP_GATES: dict[int, Any] = {
    id(group): _group_gate(group)
    for group in (_METHOD_RES, _PRECISION_RES, _OPTIMIZER_RES, _PARALLEL_RES, _LORA_TARGET_RES)
}


def _first(patterns: Sequence[tuple[GatedPattern, Any]], text: str) -> Any:
    gate = _GROUP_GATES.get(id(patterns))
    if gate is not None and not gate(text):
        return None
    best: tuple[int, Any] | None = None
    for rx, value in patterns:
        m = rx.search(text)
        if m and (best is None or m.start() < best[0]):
            best = (m.start(), value)
    return best[1] if best else None


def _task(text: str) -> Task | None:
    if _FINETUNE_RE.search(text):
        return Task.FINETUNE
    if _TRAIN_RE.search(text):
        return Task.TRAINING
    if _INFER_RE.search(text):
        return Task.INFERENCE
    if _FINETUNED_RE.search(text):
        return Task.FINETUNE
    return None


def kv_cache(masked: str) -> tuple[str | None, str]:
    """The KV cache's data type ("q8 kv cache", "kv cache fp8", "KV缓存 q8"), blanked once read."""
    kv, spans = _read_kv_cache(masked)
    for a, b in spans:
        masked = _blank(masked, a, b)
    return kv, masked


@quick_init
@dataclass(frozen=True, slots=True)
class Settings:
    precision: Precision | None
    method: Method | None
    task: Task | None
    optimizer: Optimizer | None
    parallelism: Parallelism | None
    grad_checkpointing: bool | None
    fused_attention: bool | None
    offload: bool | None
    pure_16bit: bool | None
    lora_targets: str | None


def read(masked: str) -> Settings:
    """Every setting the question states; a method implies its task ("qlora" is fine-tuning,
    "full fine-tune" too, "full training" from scratch is training)."""
    if not _KNOBS.may_match(masked):  # no method, precision or knob: the task alone
        return Settings(
            precision=None,
            method=None,
            task=_task(masked),
            optimizer=None,
            parallelism=None,
            grad_checkpointing=None,
            fused_attention=None,
            offload=None,
            pure_16bit=None,
            lora_targets=None,
        )
    method = _first(_METHOD_RES, masked)
    task = _task(masked)
    if method in (Method.LORA, Method.QLORA) or (method is Method.FULL and task is None):
        task = Task.FINETUNE if method is not Method.FULL or _FINETUNE_RE.search(masked) else task
    if method is Method.FULL and task is None:
        task = Task.TRAINING if _TRAIN_RE.search(masked) else Task.FINETUNE
    return Settings(
        precision=_first(_PRECISION_RES, masked),
        method=method,
        task=task,
        optimizer=_first(_OPTIMIZER_RES, masked),
        parallelism=_first(_PARALLEL_RES, masked),
        grad_checkpointing=False
        if _CKPT_NO_RE.search(masked)
        else (True if _CKPT_RE.search(masked) else None),
        fused_attention=False
        if _NO_FLASH_RE.search(masked)
        else (True if _FLASH_RE.search(masked) else None),
        offload=True if _OFFLOAD_RE.search(masked) else None,
        pure_16bit=True if _PURE_RE.search(masked) else None,
        lora_targets=_first(_LORA_TARGET_RES, masked),
    )


FINETUNE_RE = _FINETUNE_RE
TRAIN_RE = _TRAIN_RE
