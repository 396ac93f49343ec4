"""Info, list, help and unknown replies: facts with sources, what the bot knows, what it can answer."""

from __future__ import annotations

import re

from bot.core import memory
from bot.core.knowledge import GPU, Catalog, Model
from bot.core.replies.phrasing import (
    LEGACY_NOTE,
    card_label,
    gb,
    is_uncurated,
    price_label,
    source_lines,
    uncurated_note,
)
from bot.core.types import Answer, Choice, Intent, Query, Task

__all__ = [
    "EXAMPLES",
    "gpu_facts",
    "model_facts",
    "_PRICE_QUESTION",
    "info_reply",
    "list_reply",
    "HELP_LINES",
    "help_reply",
    "unknown_reply",
]


EXAMPLES = (
    "what GPU for BERT under $1000",
    "can I fine-tune llama 3 8b with qlora on a 3090?",
    "max batch size for resnet-50 on a 2080 ti",
    "3090 vs 4090 for stable diffusion",
)


def gpu_facts(g: GPU) -> list[str]:
    est = ", ".join(sorted(g.estimated))
    if g.fp16_tensor_tflops:
        tensor = f"{g.fp16_tensor_tflops:g} FP16 tensor TFLOPS (dense, FP32 accumulate)"
    elif is_uncurated(g):
        tensor = (g.notes or "").split(";")[0]
    else:
        tensor = "no tensor cores"
    lines = [
        f"{card_label(g)}: {g.vram_gb:g} GB {g.memory_type}, {g.memory_bandwidth_gbs:,.0f} GB/s, "
        f"{g.fp32_tflops:g} FP32 TFLOPS, {tensor}; bf16 {'yes' if g.bf16 else 'no'}, "
        f"fp8 {'yes' if g.fp8 else 'no'}; {g.tdp_w} W; {g.architecture}, {g.release}.",
        f"Price: {price_label(g)}"
        + (f"; launch ${g.launch_price_usd:,.0f}" if g.launch_price_usd else "")
        + (f"; Feb 2020 (Lambda guide) ${g.price_2020_usd:,.0f}" if g.price_2020_usd else "")
        + ".",
    ]
    if g.software == "rocm":
        lines.append("AMD card: PyTorch runs through ROCm; most models work, CUDA-only kernels do not.")
    if g.legacy_cuda:
        lines.append(LEGACY_NOTE.format(card=card_label(g), arch=g.architecture))
    if is_uncurated(g) and "also lists" in (g.notes or ""):
        lines.append("Took the desktop card with the most memory; " + (g.notes or "").split("; ", 1)[1] + ".")
    if est:
        lines.append(f"Estimated fields: {est}.")
    return lines


def model_facts(cat: Catalog, m: Model) -> list[str]:
    p = m.params
    size = f"{p / 1e9:.2f}B" if p >= 1e9 else f"{p / 1e6:.1f}M"
    arch = ""
    if m.is_transformer and m.layers:
        kv = f" ({m.kv_heads} KV heads)" if m.kv_heads and m.kv_heads != m.heads else ""
        arch = f", {m.layers} layers, hidden {m.hidden}, {m.heads} heads{kv}, context {m.max_seq_len:,}"
    if m.kind == "moe-decoder" and m.active_params:
        arch += f", {m.experts} experts ({m.experts_per_token} active, {m.active_params / 1e9:.1f}B active params)"
    if m.resolution:
        arch += (
            f", {m.resolution if isinstance(m.resolution, int) else 'x'.join(map(str, m.resolution))}px input"
        )
    if m.components:
        arch += "; " + ", ".join(f"{c.name} {c.params / 1e9:.2f}B" for c in m.components)
    w16 = memory.estimate(m, None, task=Task.INFERENCE)
    return [
        f"{m.name}: {size} parameters ({p:,}), {m.kind}{arch}.",
        f"Inference in {w16.workload.precision} needs about {gb(w16.total)} (weights {gb(w16.weights)}).",
    ]


_PRICE_QUESTION = re.compile(
    r"\b(?:cost|costs|price|prices|priced|how much is|worth)\b|多少钱|价格|价钱", re.I
)


def info_reply(cat: Catalog, q: Query, models: list[Model], gpus: list[GPU]) -> Answer:
    lines: list[str] = []
    for g in gpus:
        facts = gpu_facts(g)
        if _PRICE_QUESTION.search(q.text):  # "how much does a 5080 cost": the price leads
            facts = [f"{card_label(g)}: " + facts[1].removeprefix("Price: "), facts[0], *facts[2:]]
        lines.extend(facts)
    for m in models:
        lines.extend(model_facts(cat, m))
    return Answer(
        intent=Intent.INFO,
        query=q,
        verdict=lines[0],
        details=tuple(lines[1:]),
        basis=uncurated_note(gpus) + tuple(f"Source: {s}" for s in source_lines([*gpus, *models])),
        sources=source_lines([*gpus, *models]),
    )


def list_reply(cat: Catalog, q: Query) -> Answer:
    kind = q.list_kind or ("gpus" if q.budget_usd is not None or not q.models else "models")
    if kind == "models":
        by_kind: dict[str, list[str]] = {}
        for m in cat.models.values():
            by_kind.setdefault(m.kind, []).append(m.name)
        details = tuple(f"{k}: {', '.join(v)}" for k, v in by_kind.items())
        return Answer(
            intent=Intent.LIST, query=q, verdict=f"I know {len(cat.models)} models:", details=details
        )
    cards = [
        g for g in cat.gpus.values() if q.budget_usd is None or (g.price_usd and g.price_usd <= q.budget_usd)
    ]
    if q.budget_usd is not None:
        cards.sort(key=lambda g: g.price_usd or 0)
        verdict = f"{len(cards)} cards under ${q.budget_usd:,.0f}:"
        details = tuple(f"{card_label(g)} - {price_label(g)}" for g in cards)
    else:
        verdict = f"I know {len(cat.gpus)} cards:"
        seg: dict[str, list[str]] = {}
        for g in cards:
            seg.setdefault(g.segment, []).append(card_label(g))
        details = tuple(f"{k}: {', '.join(v)}" for k, v in seg.items())
    return Answer(intent=Intent.LIST, query=q, verdict=verdict, details=details)


HELP_LINES = (
    "Ask me which GPU to buy for a model, whether a model fits a card, the largest batch, or to compare cards.",
    *(f"- {e}" for e in EXAMPLES),
    "Add a budget ($, EUR, GBP, CNY...), a task (train / fine-tune / run), a method (LoRA, QLoRA), "
    "a precision (fp16, int4), batch size, sequence length or a card count (2x 4090).",
    "Memory formulas: weights + gradients + optimizer (16 bytes/param for mixed-precision Adam, ZeRO paper), "
    "activations (Korthikanti et al. 2022), KV cache (2 x layers x KV heads x head dim x tokens). "
    "Ask `help memory` for more.",
)


def help_reply(q: Query) -> Answer:
    if "memory" in q.text.lower() or "formula" in q.text.lower():
        doc = (memory.__doc__ or "").strip().split("\n\n")
        return Answer(
            intent=Intent.HELP,
            query=q,
            verdict="How I estimate memory:",
            details=tuple(" ".join(p.split()) for p in doc[1:8]),
        )
    return Answer(intent=Intent.HELP, query=q, verdict=HELP_LINES[0], details=HELP_LINES[1:])


def unknown_reply(q: Query, hint: str | None = None) -> Answer:
    verdict = hint or "I answer questions about GPUs for deep learning. Try one of these:"
    details = tuple(f"- {e}" for e in EXAMPLES[:3])
    choices = q.choices or tuple(Choice(label=e[:80], text=e) for e in EXAMPLES[:3])
    return Answer(
        intent=q.intent,
        query=q,
        verdict=verdict,
        details=details,
        suggestions=q.suggestions,
        choices=choices if q.suggestions else (),
    )
