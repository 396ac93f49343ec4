"""Models people name in 2026 (issue 10): Kimi K2, GLM-4.5 and GLM-4.5-Air are found by the names
people type (English and Chinese), their parameter counts follow from their config.json, memory at
bf16 / fp8 / int4 and the KV cache per token match hand arithmetic, "kimi k2 on 8x h100" says what
fits, and a brand + version the catalog lacks ("kimi k3", "glm 5", "minimax m2") is said back with a
suggestion instead of being dropped or read as another version."""

from __future__ import annotations

import pytest

from bot.core import memory
from bot.core.answer import answer
from bot.core.knowledge import Catalog, get_catalog
from bot.core.parsing import parse
from bot.core.types import NoteCode, Precision, Task

GB = 1e9


@pytest.fixture(scope="module")
def cat() -> Catalog:
    return get_catalog()


# ------------------------------------------------------------------------------------------ names


@pytest.mark.parametrize(
    ("text", "mid"),
    [
        ("can I run kimi k2 on 8x h100", "kimi-k2"),
        ("kimi-k2 vram", "kimi-k2"),
        ("k2 instruct on 8x h200", "kimi-k2"),
        ("moonshotai/kimi-k2-instruct memory", "kimi-k2"),
        ("月之暗面 kimi 需要多少显存", "kimi-k2"),
        ("glm 4.5 air on a mac studio", "glm-4.5-air"),
        ("glm-4.5-air on 2x 3090", "glm-4.5-air"),
        ("glm4.5 air on 2x 3090", "glm-4.5-air"),
        ("智谱 glm 4.5 air 要多少显存", "glm-4.5-air"),
        ("智谱 glm 4.5 能在 8张 h100 上跑吗", "glm-4.5"),
        ("zai-org/glm-4.5 on 8x h200", "glm-4.5"),
        ("glm-4.6 on 8x h100", "glm-4.6"),
        ("智谱 glm 4.6 要多少显存", "glm-4.6"),
    ],
)
def test_new_models_found_by_the_names_people_type(text: str, mid: str) -> None:
    q = parse(text)
    assert q.models == (mid,), (text, q.models)
    assert not any(n.code is NoteCode.UNKNOWN_NAME for n in q.notes), text


def test_bare_family_and_size_takes_the_text_model_and_says_the_other(cat: Catalog) -> None:
    # Qwen2.5-VL 72B (2025-01) is newer than Qwen2.5 72B (2024-09) and within 10% of its size: the
    # newest used to win, so "qwen 72b" was answered for the vision-language model
    q = parse("can I run qwen 72b")
    assert q.models == ("qwen2.5-72b",)
    took = [n for n in q.notes if n.code is NoteCode.TOOK_MODEL]
    assert took and took[0].values["others"] == [cat.model("qwen2.5-vl-72b").name]
    assert parse("qwen 7b on a 3060").models == ("qwen2.5-7b",)  # not the VL model, nor the R1 distill
    assert parse("qwen2.5-vl 72b on 2x 3090").models == ("qwen2.5-vl-72b",)  # named: still found


def test_bare_family_and_size_keeps_the_members_of_that_size() -> None:
    # "qwen 3b": the "3" also matched Qwen3 8B / 32B / 30B-A3B, so it was asked back; the typed size
    # leaves Qwen2.5 3B (3.09B), said as the name taken
    q = parse("qwen 3b on a 3060")
    assert q.models == ("qwen2.5-3b",) and not q.needs_clarification
    assert any(n.code is NoteCode.CORRECTED and n.values["typed"] == "qwen 3b" for n in q.notes)


# ------------------------------------------------------------------------------- config arithmetic


def _mla_attention(h: int, heads: int, q_lora: int = 1536, kv_lora: int = 512) -> int:
    """DeepSeek-V3 attention from config.json: q_a (h x 1536) + norm, q_b (1536 x heads*(128+64)),
    kv_a (h x (512+64)) + norm, kv_b (512 x heads*(128+128)), o (heads*128 x h)."""
    return (
        h * q_lora
        + q_lora
        + q_lora * heads * 192
        + h * (kv_lora + 64)
        + kv_lora
        + kv_lora * heads * 256
        + heads * 128 * h
    )


def test_kimi_k2_params_are_the_deepseek_v3_arithmetic_with_384_experts(cat: Catalog) -> None:
    m = cat.model("kimi-k2")
    h, vocab, e, f = 7168, 163840, 384, 2048
    assert (m.hidden, m.vocab, m.experts, m.ffn, m.heads, m.layers) == (h, vocab, e, f, 64, 61)
    assert m.kind == "moe-decoder" and m.experts_per_token == 8 and m.kv_cache_dim == 576
    expert = 3 * h * f  # gate, up, down
    moe_fixed = e * h + e + expert  # router weight + score-correction bias, 1 shared expert
    # untied embeddings + 61 attention blocks (2 norms each) + 1 dense layer (ffn 18432) + final norm
    base = 2 * vocab * h + 61 * (_mla_attention(h, 64) + 2 * h) + 3 * h * 18432 + h
    assert base + 60 * (moe_fixed + e * expert) == m.params == 1_026_408_232_448
    assert base + 60 * (moe_fixed + 8 * expert) == m.active_params
    assert round(m.params / 1e12, 2) == 1.03 and round((m.active_params or 0) / 1e9) == 33  # card: 1T, 32B
    assert m.release_precision == "fp8" and m.release_weights_gb == 1029


@pytest.mark.parametrize(
    ("mid", "dense_layers", "dense_ffn", "qk_norm", "total_b", "active_b"),
    [
        ("glm-4.5", 3, 12288, True, 355, 32),
        ("glm-4.5-air", 1, 10944, False, 106, 12),
        ("glm-4.6", 3, 12288, True, 355, 32),  # GLM-4.5's shapes, 200K context
    ],
)
def test_glm_params_match_config_arithmetic(
    cat: Catalog, mid: str, dense_layers: int, dense_ffn: int, qk_norm: bool, total_b: float, active_b: float
) -> None:
    m = cat.model(mid)
    assert m.layers and m.hidden and m.vocab and m.experts and m.ffn and m.heads and m.kv_heads
    h, hd, layers, e = m.hidden, m.head_dim or 128, m.layers, m.experts
    q, kv = m.heads * hd, m.kv_heads * hd
    # q/k/v with biases, o without; GLM-4.5 adds a q and a k RMSNorm of head_dim
    attn = h * q + 2 * h * kv + q * h + q + 2 * kv + (2 * hd if qk_norm else 0) + 2 * h
    expert = 3 * h * m.ffn
    moe_fixed = e * h + e + expert  # router + bias, 1 shared expert
    base = 2 * m.vocab * h + layers * attn + dense_layers * 3 * h * dense_ffn + h
    moe_layers = layers - dense_layers
    assert base + moe_layers * (moe_fixed + e * expert) == m.params
    assert base + moe_layers * (moe_fixed + 8 * expert) == m.active_params
    # the model card's rounded totals; its active figure leaves out the two embedding matrices
    assert abs(m.params / 1e9 - total_b) <= 0.02 * total_b
    emb = 2 * m.vocab * h
    assert abs(((m.active_params or 0) - emb) / 1e9 - active_b) <= 0.03 * active_b
    assert m.release_precision == "bf16"


# ---------------------------------------------------------------------------------------- memory


def _weights(cat: Catalog, mid: str, p: Precision) -> float:
    m = cat.model(mid)
    w = memory.resolve_workload(m, task=Task.INFERENCE, precision=p)
    return memory.estimate(m, None, workload=w).weights


@pytest.mark.parametrize(
    ("mid", "bf16_gb", "fp8_gb", "int4_gb"),
    [
        # Kimi K2: bf16 = 1,026,408,232,448 x 2 B = 2,052.8 GB; fp8 = (params - the 1,174,405,120
        # embedding) x 1 B + the embedding at 2 B = 1,027.6 GB (the fit answer uses the published
        # checkpoint, 1,029 GB, instead); int4 = (params - embedding) x 4.25/8 B + embedding x 2 B
        # = 1,025,233,827,328 x 0.53125 + 2,348,810,240 = 547.0 GB
        ("kimi-k2", 2052.8, 1027.6, 547.0),
        # GLM-4.5: 352,797,829,024 x 2 = 705.6 GB; fp8 352,021,882,784 (params - 775,946,240 embedding)
        # x 1 + 1,551,892,480 = 353.6 GB; int4 352,021,882,784 x 0.53125 + 1,551,892,480 = 188.6 GB
        ("glm-4.5", 705.6, 353.6, 188.6),
        # GLM-4.5-Air: 106,852,251,264 x 2 = 213.7 GB; fp8 106,231,494,272 + 1,241,513,984 = 107.5 GB;
        # int4 106,231,494,272 x 0.53125 + 1,241,513,984 = 57.7 GB
        ("glm-4.5-air", 213.7, 107.5, 57.7),
    ],
)
def test_weights_at_bf16_fp8_int4_match_params_times_bytes(
    cat: Catalog, mid: str, bf16_gb: float, fp8_gb: float, int4_gb: float
) -> None:
    assert _weights(cat, mid, Precision.BF16) / GB == pytest.approx(bf16_gb, abs=0.1)
    assert _weights(cat, mid, Precision.FP8) / GB == pytest.approx(fp8_gb, abs=0.1)
    assert _weights(cat, mid, Precision.INT4) / GB == pytest.approx(int4_gb, abs=0.1)


def test_kv_cache_per_token_mla_vs_gqa(cat: Catalog) -> None:
    kimi, glm = cat.model("kimi-k2"), cat.model("glm-4.5")
    w = memory.resolve_workload(kimi, task=Task.INFERENCE)
    # MLA: one 512-d latent + 64-d RoPE key per token per layer, 61 layers, 2 bytes:
    # 576 x 61 x 2 = 70,272 B per token (vs 2 x 64 heads x 128 x 61 x 2 = 1,998,848 B without MLA)
    assert memory.kv_bytes_per_token(kimi, w, 4096) == 576 * 61 * 2 == 70_272
    # GQA: 2 (k, v) x 8 KV heads x 128 x 92 layers x 2 bytes = 376,832 B per token
    wg = memory.resolve_workload(glm, task=Task.INFERENCE)
    assert memory.kv_bytes_per_token(glm, wg, 4096) == 2 * 8 * 128 * 92 * 2 == 376_832


def test_kimi_k2_on_8x_h100_says_fp8_does_not_fit_and_q4_is_tight(cat: Catalog) -> None:
    a = answer("can I run kimi k2 on 8x h100", lang=None)
    assert a.query.models == ("kimi-k2",) and a.query.num_gpus == 8
    fp8 = a.fit[0]
    # the FP8 release: 1,029 GB / 8 cards = 128.6 GB of weights per card, over an H100's 80 GB
    assert fp8.format == "fp8" and fp8.fits is False
    assert fp8.breakdown_gb["weights"] == pytest.approx(1029 / 8, abs=0.1)
    # Q4_K_M: ~4.9 bits x 1.03T = ~630 GB, ~79 GB a card: within the band of the 80 GB card, said tight
    assert "Q4_K_M" in a.verdict and "tight" in a.verdict
    assert a.verdict.startswith("Probably")
    assert "1026.4B parameters in total" in a.text and "32.9B active" in a.text


# ----------------------------------------------------------------------------------- unknown names


@pytest.mark.parametrize(
    ("text", "word", "suggested"),
    [
        ("kimi k3 on 8x h200", "kimi k3", "Kimi K2"),
        ("can I run glm 4.7 on 4x h100", "glm 4.7", "GLM-4.5"),
        ("glm-5 on 8x h100", "glm 5", "GLM-4.6"),
        ("glm 5 on h100", "glm 5", "GLM-4.5"),
        ("deepseek v4 on 8x h100", "deepseek v4", "DeepSeek"),
        ("minimax m2 on 4x h100", "minimax m2", "70B"),
        ("how much vram for minimax m2", "minimax m2", "70B"),
    ],
)
def test_unknown_brand_and_version_is_said_with_a_suggestion(text: str, word: str, suggested: str) -> None:
    a = answer(text)
    assert a.extra_json["unrecognized"] == [word], (text, a.extra_json["unrecognized"])
    assert f'"{word}"' in a.text
    assert any(suggested in s for s in a.suggestions), (text, a.suggestions)
    assert "kimi-k2" not in a.query.models  # "kimi k3" is never Kimi K2 read silently


def test_unknown_name_said_in_chinese() -> None:
    a = answer("minimax m2 能在 4 张 h100 上跑吗")
    assert a.extra_json["unrecognized"] == ["minimax m2"]
    assert any("参数量" in s for s in a.suggestions)


@pytest.mark.parametrize(
    ("text", "mid"),
    [
        ("vram needed to train stylegan2 at batch 8?", "stylegan"),  # glued version: as before
        ("whisper v3 turbo on a 3060", "whisper-large-v3-turbo"),  # the version is in an alias
        ("sam 2 on a 3060", "sam2-hiera-large"),
        ("phi 3 mini on a 3060", "phi-3-mini"),
        ("deepseek r1 on 8x h200", "deepseek-r1"),
    ],
)
def test_known_versions_are_not_unknown(text: str, mid: str) -> None:
    q = parse(text)
    assert q.models == (mid,) and not any(n.code is NoteCode.UNKNOWN_NAME for n in q.notes), text
