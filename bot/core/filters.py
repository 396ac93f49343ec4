"""Filters over the card catalog: "16GB+ cards below 700 euros", "cheapest card with 20GB or more",
"low-power card under 150W", "cards with bf16", "laptop GPUs with 16GB", "显存16G以上 3000元以内的卡".

``read(text)`` finds the constraints a question puts on the cards' specs (language-free
:class:`Filter` values); ``apply(catalog, card_filter, budget_usd)`` returns the matching cards,
sorted as the question implies (cheapest first by default; lowest power first for a power
question; most memory first when nothing else decides). The budget is the parser's (any currency,
already in dollars). A constraint on something ``knowledge/gpus.yaml`` does not record (slot
width, blower coolers) is kept in ``unknown``: the answer says it was not applied.

Fields used (knowledge/gpus.yaml): vram_gb, tdp_w, bf16, fp8, form_factor (laptop, system),
unified_memory, vendor, memory_bandwidth_gbs, price_usd.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from bot.core import gated_re

__all__ = ["Filter", "CardFilter", "read", "apply", "combine", "LOW_POWER_W"]

#: "low-power card" with no number: at most this many watts (a card a normal PSU and case take)
LOW_POWER_W = 200


@dataclass(frozen=True)
class Filter:
    field: str  # vram_gb | tdp_w | bf16 | fp8 | form_factor | unified_memory | vendor | memory_bandwidth_gbs
    op: str  # ">=" | "<=" | "==" (value a number) ; "is" (value a bool or a string)
    value: Any
    implied: bool = False  # not stated as a number: "low-power" -> tdp <= LOW_POWER_W

    def to_json(self) -> dict[str, Any]:
        return {"field": self.field, "op": self.op, "value": self.value, "implied": self.implied}


@dataclass(frozen=True)
class CardFilter:
    filters: tuple[Filter, ...]
    unknown: tuple[str, ...] = ()  # fields the catalog lacks: "slots", "cooler"
    sort: str = "price"  # "price" | "tdp" | "vram"


_GB = r"(\d{1,4}(?:\.\d+)?)\s*(?:gb|gib|g)(?![a-z])"
_VRAM_MIN_RE = gated_re.compile(
    rf"{_GB}\s*(?:\+|or more|or higher|or above|and up|and above|plus|以上|及以上|起)"
    rf"|(?:at least|minimum(?: of)?|min\.?|more than|over|>=?|≥|不少于|不低于|至少|大于|超过)\s*{_GB}"
    rf"|(?:显存|顯存|vram)\s*{_GB}\s*(?:以上|及以上|起)|{_GB}\s*(?:的)?(?:显存|顯存|vram)\s*(?:以上|及以上|起)",
    re.I | re.A,
)
_VRAM_MAX_RE = gated_re.compile(
    rf"(?:at most|under|below|less than|<=?|≤|不超过|小于)\s*{_GB}(?!\s*(?:ram|内存))|{_GB}\s*(?:or less|以下|以内)",
    re.I | re.A,
)
_VRAM_EQ_RE = gated_re.compile(rf"(?<![\d.]){_GB}(?!\s*(?:ram\b|of ram|内存|system))", re.I | re.A)
_W = r"(\d{2,4})\s*(?:w|watts?|瓦)(?![a-z])"
_TDP_MAX_RE = gated_re.compile(
    rf"(?:under|below|less than|at most|max(?:imum)?|<=?|≤|不超过|低于)\s*{_W}|{_W}\s*(?:or less|max|以下|以内|之内)",
    re.I | re.A,
)
_LOW_POWER_RE = gated_re.compile(
    r"\blow[\s-]?(?:power|wattage|tdp)\b|\bpower[\s-]?efficient\b|\benergy[\s-]?efficient\b|低功耗|省电|省電",
    re.I | re.A,
)
_BW_MIN_RE = gated_re.compile(
    r"(?:over|above|more than|at least|>=?|≥)\s*(\d{1,5}(?:\.\d{1,3})?)\s*(tb/s|gb/s)"
    r"|(?<![\d.])(\d{1,5}(?:\.\d{1,3})?)\s*(tb/s|gb/s)\s*(?:\+|or more|以上)",
    re.I | re.A,
)
_BF16_RE = gated_re.compile(r"\bbf16\b|\bbfloat16?\b", re.I | re.A)
_FP8_RE = gated_re.compile(r"\bfp8\b", re.I | re.A)
_LAPTOP_RE = gated_re.compile(
    r"\blaptops?\b|\bmobile gpus?\b|\bnotebook\b|笔记本|筆記本|笔电|筆電", re.I | re.A
)
_UNIFIED_RE = gated_re.compile(r"\bunified[\s-]memory\b|统一内存|統一記憶體", re.I | re.A)
_VENDOR_RE = gated_re.compile(
    r"\b(amd|nvidia|intel|apple)\b|(英伟达|英偉達|超威|苹果|蘋果|英特尔|英特爾)", re.I | re.A
)
_VENDOR_ZH = {"英伟达": "nvidia", "英偉達": "nvidia", "超威": "amd", "苹果": "apple", "蘋果": "apple"}
_VENDOR_ZH.update({"英特尔": "intel", "英特爾": "intel"})
_SLOT_RE = gated_re.compile(
    r"\bsingle[\s-]?slot\b|\bdual[\s-]?slot\b|\b\d[\s-]slot\b|\bslots?\b|单槽|單槽|双槽|雙槽|槽位",
    re.I | re.A,
)
_BLOWER_RE = gated_re.compile(r"\bblower\b|涡轮|渦輪", re.I | re.A)
_CARD_WORD_RE = gated_re.compile(
    r"\b(?:cards?|gpus?|graphics|machines?|systems?|options?|ones?|vram)\b|显卡|顯卡|卡|机器|機器|显存|顯存",
    re.I | re.A,
)
_CHEAPEST_RE = gated_re.compile(
    r"\bcheapest\b|\blowest price\b|\bby price\b|最便宜|最低价|按价格", re.I | re.A
)


def read(text: str) -> CardFilter | None:
    """The constraints a question puts on cards' specs (None: it puts none, or names no cards)."""
    low = text.lower()
    if not _CARD_WORD_RE.search(low):
        return None
    found: list[Filter] = []
    sort = "price"
    unknown: list[str] = []
    masked = low
    m = _VRAM_MIN_RE.search(masked)
    if m:
        found.append(Filter("vram_gb", ">=", _first_num(m)))
        masked = _blank(masked, m)
    else:
        m = _VRAM_MAX_RE.search(masked)
        if m and not re.search(r"\d\s*(?:w|watts?)\b", m.group()):
            found.append(Filter("vram_gb", "<=", _first_num(m)))
            masked = _blank(masked, m)
    if not any(f.field == "vram_gb" for f in found):
        m = _VRAM_EQ_RE.search(masked)
        if m:
            found.append(Filter("vram_gb", "==", _first_num(m)))
            masked = _blank(masked, m)
    m = _TDP_MAX_RE.search(masked)
    if m:
        found.append(Filter("tdp_w", "<=", _first_num(m)))
        sort = "tdp" if not _CHEAPEST_RE.search(low) else "price"
    elif _LOW_POWER_RE.search(low):
        found.append(Filter("tdp_w", "<=", LOW_POWER_W, implied=True))
        sort = "tdp"
    m = _BW_MIN_RE.search(masked)
    if m:
        v = float(m.group(1) or m.group(3))
        unit = (m.group(2) or m.group(4)).lower()
        found.append(Filter("memory_bandwidth_gbs", ">=", v * 1000 if unit == "tb/s" else v))
    if _BF16_RE.search(low):
        found.append(Filter("bf16", "is", True))
    if _FP8_RE.search(low):
        found.append(Filter("fp8", "is", True))
    if _LAPTOP_RE.search(low):
        found.append(Filter("form_factor", "is", "laptop"))
    if _UNIFIED_RE.search(low):
        found.append(Filter("unified_memory", "is", True))
    vm = _VENDOR_RE.search(low)
    if vm:
        found.append(Filter("vendor", "is", (vm.group(1) or _VENDOR_ZH.get(vm.group(2), "")).lower()))
    if _SLOT_RE.search(low):
        unknown.append("slots")
    if _BLOWER_RE.search(low):
        unknown.append("cooler")
    if not found and not unknown:
        return None
    if sort == "price" and not _CHEAPEST_RE.search(low) and not any(f.field == "tdp_w" for f in found):
        sort = "price"
    return CardFilter(tuple(found), tuple(unknown), sort)


def combine(old: CardFilter, new: CardFilter) -> CardFilter:
    """A follow-up's filter: what the new turn states replaces the same field, the rest is kept."""
    fields = {f.field for f in new.filters}
    kept = tuple(f for f in old.filters if f.field not in fields)
    return CardFilter(kept + new.filters, tuple(dict.fromkeys(old.unknown + new.unknown)), new.sort)


def apply(catalog: Any, cf: CardFilter, budget_usd: float | None) -> list[Any]:
    """The catalog's cards that meet every known constraint (and the budget), sorted."""
    wants = {f.field: f for f in cf.filters}
    wants_form = wants.get("form_factor")
    wants_unified = "unified_memory" in wants
    out = []
    for g in catalog.gpus.values():
        # server modules are not bought as cards; laptops and whole machines only when asked for
        if g.form_factor in ("sxm", "oam"):
            continue
        if g.form_factor == "laptop" and not (wants_form and wants_form.value == "laptop"):
            continue
        if (
            g.form_factor == "system"
            and not wants_unified
            and not (wants_form and wants_form.value == "system")
        ):
            if not (wants.get("vendor") and wants["vendor"].value == "apple"):
                continue
        if budget_usd is not None and (g.price_usd is None or g.price_usd > budget_usd):
            continue
        if all(_holds(g, f) for f in cf.filters):
            out.append(g)
    if cf.sort == "tdp":
        out.sort(key=lambda g: (g.tdp_w, g.price_usd if g.price_usd is not None else 1e12))
    elif cf.sort == "vram":
        out.sort(key=lambda g: (-g.vram_gb, g.price_usd if g.price_usd is not None else 1e12))
    else:
        out.sort(key=lambda g: (g.price_usd is None, g.price_usd or 0.0, -g.vram_gb))
    return out


def _holds(g: Any, f: Filter) -> bool:
    if f.field == "vram_gb":
        v = float(g.vram_gb)
        opts = (v, *(float(x) for x in getattr(g, "memory_options_gb", ()) or ()))
        return (
            any(_cmp(x, f.op, float(f.value)) for x in opts) if g.unified_memory else _cmp(v, f.op, f.value)
        )
    if f.field == "tdp_w":
        return _cmp(float(g.tdp_w), f.op, float(f.value))
    if f.field == "memory_bandwidth_gbs":
        return _cmp(float(g.memory_bandwidth_gbs), f.op, float(f.value))
    if f.field in ("bf16", "fp8", "unified_memory"):
        return bool(getattr(g, f.field)) is bool(f.value)
    if f.field == "form_factor":
        return str(g.form_factor) == f.value
    if f.field == "vendor":
        return str(g.vendor).lower() == f.value
    return True


def _cmp(x: float, op: str, y: float) -> bool:
    if op == ">=":
        return x >= y - 1e-9
    if op == "<=":
        return x <= y + 1e-9
    return abs(x - y) < 0.51


def _first_num(m: re.Match[str]) -> float:
    v = float(next(x for x in m.groups() if x))
    return int(v) if v == int(v) else v


def _blank(s: str, m: re.Match[str]) -> str:
    return s[: m.start()] + " " * (m.end() - m.start()) + s[m.end() :]
