"""Pieces every result is built from: assumptions, breakdowns, structured fixes."""

from __future__ import annotations

import re
from typing import Any

from bot.core import gated_re, memory
from bot.core.copy_with import copy_with
from bot.core.knowledge import GPU, Catalog
from bot.core.memory import GB, Estimate, Workload
from bot.core.results import Assumption, AssumptionName, Breakdown, ChangeKind, FixOption, SettingChange
from bot.core.types import Method, Parallelism, Query

__all__ = ["assumptions_for", "breakdown_of", "fix_from_suggestion", "memory_variant", "split_parallelism"]

_A = AssumptionName
# the names as module globals (reading ``AssumptionName.TASK`` goes through EnumType's slow
# attribute hook on Python 3.11; every answer's assumptions read a dozen)
_TASK, _METHOD, _PRECISION, _OPTIMIZER, _SEQ_LEN, _BATCH_SIZE, _ATTENTION = (
    _A.TASK,
    _A.METHOD,
    _A.PRECISION,
    _A.OPTIMIZER,
    _A.SEQ_LEN,
    _A.BATCH_SIZE,
    _A.ATTENTION,
)
_GRAD_CHECKPOINTING, _LORA_RANK, _RESOLUTION, _OFFLOAD, _NUM_GPUS, _PARALLELISM, _KV_CACHE = (
    _A.GRAD_CHECKPOINTING,
    _A.LORA_RANK,
    _A.RESOLUTION,
    _A.OFFLOAD,
    _A.NUM_GPUS,
    _A.PARALLELISM,
    _A.KV_CACHE,
)
_FULL = Method.FULL


def assumptions_for(
    q: Query, w: Workload, *, batch: int | None, batch_default: bool | None = None
) -> tuple[Assumption, ...]:
    """Every setting the numbers were computed with, and whether the user said it."""
    trains = w.trains
    out = [
        Assumption(_TASK, w.task, q.task is not None),
        Assumption(_METHOD, w.method, q.method is not None),
        Assumption(_PRECISION, w.precision, q.precision is not None),
        Assumption(
            _OPTIMIZER, w.optimizer if trains and w.method is _FULL else None, q.optimizer is not None
        ),
        Assumption(
            _BATCH_SIZE,
            batch if batch is not None else (w.batch_size or 1),
            q.batch_size is not None if batch_default is None else not batch_default,
        ),
        Assumption(_ATTENTION, "flash" if w.fused_attention else "eager", q.fused_attention is not None),
    ]
    if not q.max_context:  # a longest-context answer solves for the context instead of assuming one
        out.insert(4, Assumption(_SEQ_LEN, w.seq_len, q.seq_len is not None))
    if trains:
        out.append(Assumption(_GRAD_CHECKPOINTING, w.grad_checkpointing, q.grad_checkpointing is not None))
    if w.lora_rank:
        out.append(Assumption(_LORA_RANK, w.lora_rank, False))
    if w.resolution:
        out.append(Assumption(_RESOLUTION, w.resolution, q.resolution is not None))
    if w.offload_text_encoders:
        out.append(Assumption(_OFFLOAD, True, q.offload is not None))
    if w.num_gpus > 1:
        out.append(Assumption(_NUM_GPUS, w.num_gpus, True))
        out.append(Assumption(_PARALLELISM, w.parallelism, q.parallelism is not None))
    if w.kv_cache:
        out.append(Assumption(_KV_CACHE, w.kv_cache, q.kv_cache is not None))
    return tuple(out)


def breakdown_of(e: Estimate) -> Breakdown:
    return Breakdown(
        weights=e.weights / GB,
        gradients=e.gradients / GB,
        optimizer=e.optimizer / GB,
        activations=e.activations / GB,
        kv_cache=e.kv_cache / GB,
        overhead=e.overhead / GB,
    )


_PATCH_KINDS = {
    "precision": ChangeKind.PRECISION,
    "method": ChangeKind.METHOD,
    "optimizer": ChangeKind.OPTIMIZER,
    "grad_checkpointing": ChangeKind.GRAD_CHECKPOINTING,
    "seq_len": ChangeKind.SEQ_LEN,
    "batch_size": ChangeKind.BATCH_SIZE,
    "num_gpus": ChangeKind.NUM_GPUS,
    "offload_text_encoders": ChangeKind.OFFLOAD,
}
_ORDER = list(_PATCH_KINDS)


def _before(w: Workload, key: str) -> Any:
    if key == "batch_size":
        return w.batch_size or 1
    return getattr(w, key, None)


def fix_from_suggestion(
    cat: Catalog, s: memory.Suggestion, w: Workload, asked_gpu: str | None = None
) -> FixOption:
    """A memory.Suggestion as structured changes: (setting, from, to), the card, the GB after."""
    patch = dict(s.query_patch or {})
    changes = [
        SettingChange(_PATCH_KINDS[k], _before(w, k), patch[k])
        for k in sorted(patch, key=lambda k: _ORDER.index(k) if k in _ORDER else 99)
        if k in _PATCH_KINDS
    ]
    gpu = cat.gpus.get(s.gpu_id) if s.gpu_id else None
    if not patch and gpu is not None:
        changes.append(SettingChange(ChangeKind.CARD, asked_gpu, gpu.id))
    return FixOption(
        changes=tuple(changes),
        total_gb=s.total_gb,
        num_gpus=s.num_gpus,
        parallelism=s.parallelism if s.num_gpus > 1 else None,
        gpu=gpu,
        trains=w.trains,
    )


def split_parallelism(w: Workload) -> Parallelism:
    return Parallelism.TENSOR if not w.trains else Parallelism.SHARDED


_SIZE_RE = gated_re.compile(
    r"(\d{1,4})\s*(?:gb|gib|g)(?![a-z0-9])(?!\s*(?:of\s+)?(?:system\s+|cpu\s+)?(?:ram|ddr)|\s*内存)", re.I
)


def memory_variant(g: GPU, text: str) -> GPU:
    """The card with the memory size the question names, when its chip is sold with several
    (``memory_options_gb``: "M3 Max 36GB" is the 128 GB entry's chip with 36 GB). The variant
    keeps the entry's id; its name says the size, and it has no price (the entry's is for its own
    size)."""
    if not g.memory_options_gb or not text:
        return g
    for m in _SIZE_RE.finditer(text):
        size = float(m.group(1))
        if size != g.vram_gb and size in g.memory_options_gb:
            old = f"{g.vram_gb:g} GB"
            name = g.name.replace(old, f"{size:g} GB") if old in g.name else f"{g.name} ({size:g} GB)"
            return copy_with(
                g, vram_gb=size, name=name, price_usd=None, launch_price_usd=None, price_cny=None
            )
    return g
