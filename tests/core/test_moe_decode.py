"""Mixture-of-experts decode speed: the per-expert cost on top of the bandwidth roofline (throughput.MOE_EXPERT_CALL_S)."""

from __future__ import annotations

import pytest

from bot.core import throughput
from bot.core.knowledge import get_catalog
from bot.core.types import Precision

CAT = get_catalog()
LOW, HIGH = throughput.BAND["decode"]


@pytest.mark.parametrize(
    ("model", "gpu", "context", "awq", "published"),
    [
        # llama-bench tg128, gpt-oss 20B MXFP4, RTX 5090, llama.cpp build 7100: 362.59 tokens/s
        # (github eunomia-bpf/gpu_ext workload reproduction log, 2026-02-16; speed-calibration.yaml moe_decode)
        ("gpt-oss-20b", "rtx-5090", 0, False, 362.59),
        # vLLM 0.20.1, Qwen3-30B-A3B-Instruct-GPTQ-Int4, RTX 4090, concurrency 1: mean TPOT 4.94 ms = 202.4 tokens/s
        # (github sizzlecar/ferrum-infer-rs docs/bench/cuda-rtx4090-2026-05-08-m3-moe/README.md, 2026-05-08)
        ("qwen3-30b-a3b", "rtx-4090", 320, True, 1000 / 4.94),
        # Qwen3-30B-A3B Q4_K_M, RTX 3090 Ti, 166.9 tokens/s at 4K context (smeltcore.com recipe citing Hardware
        # Corner, 2026-06-27)
        ("qwen3-30b-a3b", "rtx-3090-ti", 4096, False, 166.9),
    ],
)
def test_published_moe_decode_within_the_decode_band(
    model: str, gpu: str, context: int, awq: bool, published: float
) -> None:
    f = throughput.decode(CAT.models[model], CAT.gpus[gpu], Precision.INT4, context=context, awq=awq)
    assert f.basis == "modelled"
    assert LOW <= published / f.value <= HIGH, (model, gpu, round(f.value, 1), published)
    assert f.low <= published <= f.high


def test_bandwidth_alone_overestimates_those_cases() -> None:
    """Without the per-expert cost the roofline misses the clean llama-bench RTX 5090 run by more than 20%."""
    m, g = CAT.models["gpt-oss-20b"], CAT.gpus["rtx-5090"]
    with_cost = throughput.decode(m, g, Precision.INT4).value
    roofline = 1.0 / (1.0 / with_cost - throughput.moe_token_overhead_s(m))
    assert roofline / 362.59 > 1.2
    assert abs(with_cost / 362.59 - 1) < 0.15


def test_per_expert_cost_scales_with_routed_calls_and_spares_dense_models() -> None:
    qwen, oss = CAT.models["qwen3-30b-a3b"], CAT.models["gpt-oss-20b"]
    assert throughput.moe_token_overhead_s(CAT.models["llama-3-8b"]) == 0.0
    # 48 layers x 8 experts vs 24 layers x 4 experts
    ratio = throughput.moe_token_overhead_s(qwen) / throughput.moe_token_overhead_s(oss)
    assert ratio == pytest.approx((48 * 8) / (24 * 4))


def test_moe_calibration_rows_within_1_5x() -> None:
    pts = [p for p in throughput.calibration_points(CAT) if p.category == "moe_decode"]
    assert len(pts) >= 10
    assert {p.model for p in pts} >= {"gpt-oss-20b", "qwen3-30b-a3b", "gpt-oss-120b"}
    assert all(1 / 1.5 <= p.ratio <= 1.5 for p in pts), [(p.model, p.gpu, round(p.ratio, 2)) for p in pts]
    in_band = [p for p in pts if LOW <= p.ratio <= HIGH]
    assert len(in_band) / len(pts) >= 0.75
