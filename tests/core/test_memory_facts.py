"""Fact tests: the memory model against published figures."""

from __future__ import annotations

import pytest

from bot.core import memory
from bot.core.knowledge import get_catalog
from bot.core.memory import GB
from bot.core.types import Method, Parallelism, Precision, Task


@pytest.fixture(scope="module")
def cat():
    return get_catalog()


@pytest.mark.parametrize("mid", ["llama-2-7b", "mistral-7b", "qwen2.5-7b"])
def test_7b_fp16_weights_are_13_to_14_5_gb(cat, mid):
    e = memory.estimate(cat.model(mid), None, task=Task.INFERENCE, precision=Precision.FP16)
    assert 13.0 <= e.weights / GB <= 15.3 if mid == "qwen2.5-7b" else 13.0 <= e.weights / GB <= 14.5


@pytest.mark.parametrize("mid", ["llama-2-7b", "mistral-7b"])
def test_7b_full_finetune_mixed_adam_needs_over_100_gb(cat, mid):
    e = memory.estimate(
        cat.model(mid), None, task=Task.FINETUNE, method=Method.FULL, precision=Precision.BF16
    )
    # ZeRO: 16 bytes/param before activations
    assert (e.weights + e.gradients + e.optimizer) / cat.model(mid).params == pytest.approx(16.0)
    assert e.total / GB > 100


def test_qlora_65b_fits_a_48gb_card(cat):
    e = memory.estimate(cat.model("llama-65b"), cat.gpu("rtx-a6000"), method=Method.QLORA)
    assert e.workload.method is Method.QLORA and e.workload.grad_checkpointing
    assert e.fits, f"{e.total / GB:.1f} GB"
    # and the 4-bit base is what dominates: 65B * 4.127 bits ~ 33.7 GB
    assert 32 < e.weights / GB < 40


@pytest.mark.parametrize("mid", ["llama-2-70b", "llama-3-70b"])
def test_70b_fp16_inference_does_not_fit_one_80gb_card(cat, mid):
    for gid in ("a100-80gb", "h100-sxm"):
        e = memory.estimate(cat.model(mid), cat.gpu(gid), task=Task.INFERENCE, precision=Precision.FP16)
        assert e.fits is False and e.max_batch_size == 0


def test_70b_fp16_inference_fits_two_80gb_cards_tensor_parallel(cat):
    e = memory.estimate(
        cat.model("llama-2-70b"),
        cat.gpu("a100-80gb"),
        task=Task.INFERENCE,
        num_gpus=2,
        parallelism=Parallelism.TENSOR,
    )
    assert e.fits
    # but data parallel never adds VRAM together
    e_dp = memory.estimate(
        cat.model("llama-2-70b"),
        cat.gpu("a100-80gb"),
        task=Task.INFERENCE,
        num_gpus=2,
        parallelism=Parallelism.DATA,
    )
    assert not e_dp.fits


def test_kv_cache_matches_the_gqa_formula(cat):
    m = cat.model("llama-3-8b")  # 32 layers, 8 KV heads, head dim 128
    e = memory.estimate(m, None, task=Task.INFERENCE, seq_len=8192, batch_size=1)
    assert e.kv_cache == 2 * 32 * 8 * 128 * 8192 * 2  # = 1 GiB


def test_attention_is_quadratic_without_fused_kernel(cat):
    m = cat.model("bert-large")

    def act(s, fused):
        return memory.estimate(
            m, None, task=Task.TRAINING, seq_len=s, batch_size=1, fused_attention=fused
        ).activations

    # the quadratic term: quadrupling s adds more than 4x the linear growth
    assert act(2048, False) / act(512, False) > 4.5
    assert act(2048, True) / act(512, True) < 4.5


def test_moe_holds_all_experts(cat):
    m = cat.model("mixtral-8x7b")
    e = memory.estimate(m, None, task=Task.INFERENCE, precision=Precision.FP16)
    assert e.weights / GB > 90  # all 46.7B params, not the 12.9B active


def test_breakdown_adds_up_to_total(cat):
    for mid in ("llama-3-8b", "resnet-50", "sdxl", "bert-base", "mixtral-8x7b"):
        for gid in ("rtx-3090", "rtx-4060-ti-8gb"):
            e = memory.estimate(cat.model(mid), cat.gpu(gid))
            parts = e.weights + e.gradients + e.optimizer + e.activations + e.kv_cache + e.overhead
            assert parts == pytest.approx(e.total)
            bd = e.breakdown_gb()
            assert sum(bd.values()) == pytest.approx(round(e.total / GB, 2), abs=0.011)


def test_model_alone_has_an_answer(cat):
    e = memory.estimate(cat.model("llama-2-70b"), None, task=Task.INFERENCE)
    assert e.fits is None and e.max_batch_size is None and e.total / GB > 130


def test_suggestions_make_it_fit_and_are_cheapest_first(cat):
    m, g = cat.model("llama-3-8b"), cat.gpu("rtx-3060-12gb")
    e = memory.estimate(m, g, task=Task.INFERENCE, precision=Precision.FP16)
    assert not e.fits
    sugg = memory.suggest_changes(m, g, e, list(cat.gpus.values()))
    assert sugg, "a 12 GB card can run an 8B model in 8-bit or 4-bit"
    assert "8-bit" in sugg[0].change
    assert all(s.total_gb * 1e9 <= memory.usable_bytes(cat.gpu(s.gpu_id or g.id)) for s in sugg)
