"""Target searches and recommendations for bf16 work offer no card without bf16 (issue 11).

Turing and older cards would run bf16 work in fp16 with loss scaling (or fp32); a search for bf16 must
not rank them as if they ran it, so they are left out (the fit answer for a named card says the fallback).
"""

from __future__ import annotations

from bot.core import support
from bot.core.engine import compute
from bot.core.knowledge import get_catalog
from bot.core.parsing import parse
from bot.core.results import RecommendResult, SpeedResult, TimeResult

CAT = get_catalog()


def _bf16_native(gpu_id: str) -> bool:
    return support.precision_for(CAT.gpus[gpu_id], "bf16").used == "bf16"


def test_time_target_for_bf16_lora_offers_no_turing_card() -> None:
    # before the filter the cheapest were GTX 1660 Super, RTX 2060, 2070 ... (no bf16)
    q = parse("cheapest card to lora fine-tune qwen2.5 1.5b on 20k samples in under 2 days", CAT)
    _, r = compute(CAT, q)
    assert isinstance(r, TimeResult) and r.rows
    assert all(_bf16_native(row.gpu.id) for row in r.rows), [row.gpu.id for row in r.rows]


def test_speed_target_in_bf16_offers_no_turing_card() -> None:
    # before: the TITAN RTX (Turing) was the second offer
    q = parse("what gets me 30 tok/s on llama 3 8b in bf16", CAT)
    _, r = compute(CAT, q)
    assert isinstance(r, SpeedResult) and r.rows
    assert all(_bf16_native(row.gpu.id) for row in r.rows), [row.gpu.id for row in r.rows]


def test_speed_target_at_int4_still_offers_older_cards() -> None:
    # the filter is for bf16 / fp8 only: 4-bit weights run on any card with the memory
    q = parse("what gets me 30 tok/s on llama 3 8b", CAT)
    _, r = compute(CAT, q)
    assert isinstance(r, SpeedResult)
    from bot.core.engine import speed_answers

    cands = speed_answers._speed_candidates(CAT, "llama-3-8b", r.kind, r.precision, 0, None, None)
    assert any(not _bf16_native(g.id) for g, _, _ in cands)


def test_fix_for_bf16_fine_tune_is_a_bf16_card() -> None:
    # before: "with QLoRA it fits RTX 2070 8 GB" for a bf16 fine-tune
    q = parse("which gpu to fine-tune mistral 7b in bf16", CAT)
    _, r = compute(CAT, q)
    assert isinstance(r, RecommendResult) and not r.picks
    assert r.fix is not None and r.fix.gpu is not None
    assert _bf16_native(r.fix.gpu.id), r.fix.gpu.id
