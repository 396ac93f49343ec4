"""bot/core/support.py: precisions from the architecture, tools from knowledge/software.yaml."""

from __future__ import annotations

import pytest

from bot.core.knowledge import SOFTWARE, Catalog, get_catalog
from bot.core.support import FallbackReason, Level, capabilities, compute_capability, precision_for, supports


@pytest.fixture(scope="module")
def cat() -> Catalog:
    return get_catalog()


def test_architecture_rules_agree_with_every_cards_flags(cat: Catalog) -> None:
    """The bf16 / fp8 flags in gpus.yaml (from spec sheets) follow the architecture rules."""
    for g in cat.gpus.values():
        cap = capabilities(g)
        assert cap.bf16 == g.bf16, (g.id, g.architecture)
        assert cap.fp8 == g.fp8, (g.id, g.architecture)
        assert cap.fp4 == (g.vendor == "nvidia" and g.architecture == "Blackwell"), g.id
        if g.vendor == "nvidia":
            assert cap.tensor_cores == (g.fp16_tensor_tflops is not None), g.id


@pytest.mark.parametrize(
    ("gid", "bf16", "fp8", "fp4"),
    [
        ("titan-rtx", False, False, False),  # Turing
        ("tesla-v100-pcie-32gb", False, False, False),  # Volta
        ("rtx-3090", True, False, False),  # Ampere
        ("rtx-4090", True, True, False),  # Ada
        ("h100-sxm", True, True, False),  # Hopper
        ("rtx-5090", True, True, True),  # Blackwell
        ("nvidia-dgx-spark", True, True, True),
        ("apple-m1-ultra-128gb", False, False, False),
        ("apple-m2-ultra-192gb", True, False, False),
        ("instinct-mi300x", True, True, False),
        ("rx-9070-xt", True, True, False),
        ("rx-7900-xtx", True, False, False),
    ],
)
def test_precision_support_by_generation(cat: Catalog, gid: str, bf16: bool, fp8: bool, fp4: bool) -> None:
    cap = capabilities(cat.gpu(gid))
    assert (cap.bf16, cap.fp8, cap.fp4) == (bf16, fp8, fp4)


def test_a_card_that_cannot_run_the_precision_says_what_it_uses(cat: Catalog) -> None:
    # TITAN RTX (Turing): no bf16 -> fp16 with loss scaling (issue 11's bf16 LoRA case)
    c = precision_for(cat.gpu("titan-rtx"), "bf16")
    assert (c.used, c.reason) == ("fp16", FallbackReason.NO_BF16_USE_FP16)
    # P40 (consumer Pascal GP102): fp16 at 1/64 rate -> fp32
    for p in ("bf16", "fp16"):
        assert precision_for(cat.gpu("tesla-p40"), p).used == "fp32"
        assert precision_for(cat.gpu("tesla-p40"), p).reason is FallbackReason.NO_FAST_FP16_USE_FP32
    # P100 (GP100, HBM2) has fast fp16
    assert precision_for(cat.gpu("tesla-p100-16gb"), "bf16").used == "fp16"
    # fp8 on Ampere: 16-bit math on fp8 weights
    c = precision_for(cat.gpu("rtx-3090"), "fp8")
    assert (c.used, c.reason) == ("bf16", FallbackReason.NO_FP8_COMPUTE)
    # MXFP4 math only on Blackwell; Hopper does it in fp8, Ampere in bf16
    assert precision_for(cat.gpu("rtx-5090"), "mxfp4").reason is FallbackReason.NONE
    assert precision_for(cat.gpu("h100-sxm"), "mxfp4").used == "fp8"
    assert precision_for(cat.gpu("rtx-3090"), "mxfp4").used == "bf16"
    # integer / NF4 weights are dequantized everywhere
    assert precision_for(cat.gpu("tesla-p40"), "int4").reason is FallbackReason.NONE
    assert precision_for(cat.gpu("rtx-4090"), "bf16").reason is FallbackReason.NONE


def test_compute_capability(cat: Catalog) -> None:
    assert compute_capability(cat.gpu("rtx-4090")) == 8.9
    assert compute_capability(cat.gpu("t4")) == 7.5
    assert compute_capability(cat.gpu("tesla-p40")) == 6.1  # GP102; the P100 (GP100) is 6.0
    assert compute_capability(cat.gpu("tesla-p100-16gb")) == 6.0
    assert compute_capability(cat.gpu("rx-7900-xtx")) is None
    # every NVIDIA card's architecture is known
    for g in cat.gpus.values():
        if g.vendor == "nvidia":
            assert compute_capability(g) is not None, g.id


def test_flash_attention_2_needs_ampere_or_newer(cat: Catalog) -> None:
    for g in cat.gpus.values():
        s = supports(g, "flash-attention", cat)
        if g.vendor == "nvidia":
            want = Level.YES if (compute_capability(g) or 0) >= 8.0 else Level.NO
            assert s.level is want, g.id
        if g.vendor in ("apple", "intel"):
            assert s.level is Level.NO, g.id
    assert supports(cat.gpu("instinct-mi300x"), "flash-attention", cat).level is Level.YES
    s = supports(cat.gpu("rx-7900-xtx"), "flash-attention", cat)
    assert s.level is Level.PARTIAL and s.note_id == "flash-attention.rocm.arch"


def test_vllm_and_bitsandbytes_by_card(cat: Catalog) -> None:
    assert supports(cat.gpu("tesla-p40"), "vllm", cat).level is Level.NO  # CC 6.1 < 7.5
    assert supports(cat.gpu("tesla-v100-pcie-32gb"), "vllm", cat).level is Level.NO
    assert supports(cat.gpu("t4"), "vllm", cat).level is Level.YES
    assert supports(cat.gpu("apple-m3-ultra-512gb"), "vllm", cat).level is Level.PARTIAL
    assert supports(cat.gpu("amd-ryzen-ai-max-395-128gb"), "vllm", cat).level is Level.PARTIAL  # RDNA 3.5
    assert supports(cat.gpu("tesla-p40"), "bitsandbytes", cat).level is Level.YES  # CC 6.0+
    assert supports(cat.gpu("arc-b580"), "bitsandbytes", cat).level is Level.PARTIAL
    assert supports(cat.gpu("tesla-p40"), "pytorch-training", cat).level is Level.PARTIAL  # legacy CUDA
    # llama.cpp runs everywhere
    for g in cat.gpus.values():
        assert supports(g, "llama.cpp", cat).level is Level.YES, g.id


def test_every_tool_answers_for_every_card_with_a_source(cat: Catalog) -> None:
    for tool in cat.tools.values():
        assert set(tool.support) == set(SOFTWARE)
        for g in cat.gpus.values():
            s = supports(g, tool.id, cat)
            assert s.source and s.note_id.startswith(f"{tool.id}.{g.software}") and s.stack == g.software
    with pytest.raises(KeyError):
        supports(cat.gpu("rtx-4090"), "tensorflow", cat)
