"""Models added in 2026-12 (issue 11): every parameter count agrees with the arithmetic of the
model's config (layers, hidden, heads, kv heads, ffn, vocab, experts), names resolve as people
type them, and release formats are recorded."""

from __future__ import annotations

from typing import Any

import pytest

from bot.core.knowledge import Catalog, Model, get_catalog
from bot.core.matching import get_matcher
from bot.core.parsing import parse


@pytest.fixture(scope="module")
def cat() -> Catalog:
    return get_catalog()


def dense_params(m: Model, *, qkv_bias: bool = False, qk_norm: bool = False, extra_norms: int = 0) -> int:
    """Llama-style decoder: embeddings (+ untied head) + per layer q, k, v, o, gated MLP, norms."""
    assert m.layers and m.hidden and m.heads and m.kv_heads and m.ffn and m.vocab
    hd = m.head_dim or m.hidden // m.heads
    h, q, kv = m.hidden, m.heads * hd, m.kv_heads * hd
    attn = h * q + 2 * h * kv + q * h + ((q + 2 * kv) if qkv_bias else 0) + (2 * hd if qk_norm else 0)
    layer = attn + 3 * h * m.ffn + (2 + extra_norms) * h
    return m.vocab * h * (1 if m.tie_word_embeddings else 2) + m.layers * layer + h


def moe_params(m: Model, *, shared: bool, moe_every: int = 1, dense_ffn: int = 0) -> tuple[int, int]:
    """Total and active parameters of an MoE decoder (all routed experts vs experts_per_token)."""
    assert (
        m.layers
        and m.hidden
        and m.heads
        and m.kv_heads
        and m.ffn
        and m.vocab
        and m.experts
        and m.experts_per_token
    )
    hd = m.head_dim or m.hidden // m.heads
    h, q, kv = m.hidden, m.heads * hd, m.kv_heads * hd
    attn = h * q + 2 * h * kv + q * h + 2 * h
    expert = 3 * h * m.ffn
    n_moe = m.layers // moe_every
    n_dense = m.layers - n_moe
    emb = 2 * m.vocab * h
    base = (
        emb
        + m.layers * attn
        + n_dense * 3 * h * dense_ffn
        + n_moe * (h * m.experts + (expert if shared else 0))
    )
    return base + n_moe * m.experts * expert, base + n_moe * m.experts_per_token * expert


# model id -> how its config adds up (what the config.json says beyond the catalog's fields)
DENSE: dict[str, dict[str, Any]] = {
    "deepseek-r1-distill-qwen-1.5b": {"qkv_bias": True},
    "deepseek-r1-distill-qwen-7b": {"qkv_bias": True},
    "deepseek-r1-distill-qwen-14b": {"qkv_bias": True},
    "deepseek-r1-distill-qwen-32b": {"qkv_bias": True},
    "deepseek-r1-distill-llama-8b": {},
    "deepseek-r1-distill-llama-70b": {},
    "deepseek-r1-0528-qwen3-8b": {"qk_norm": True},
    "qwen3-0.6b": {"qk_norm": True},
    "qwen3-1.7b": {"qk_norm": True},
    "qwen3-4b": {"qk_norm": True},
    "qwen3-8b": {"qk_norm": True},
    "qwen3-14b": {"qk_norm": True},
    "qwen3-32b": {"qk_norm": True},
    "gemma-3-1b": {"qk_norm": True, "extra_norms": 2},
    # + SigLIP vision tower and projector (keras-hub gemma3 presets: vision+text minus text)
    "gemma-3-4b": {"qk_norm": True, "extra_norms": 2, "vision": 419_816_304},
    "gemma-3-12b": {"qk_norm": True, "extra_norms": 2, "vision": 421_290_864},
    # + Qwen2.5-VL's 32-block, 1280-wide ViT and merger (0.67-0.70B)
    "qwen2.5-vl-3b": {"qkv_bias": True, "vision": 668_684_288},
    "qwen2.5-vl-7b": {"qkv_bias": True, "vision": 676_550_144},
    "qwen2.5-vl-72b": {"qkv_bias": True, "vision": 700_147_712},
    "mistral-small-24b": {},
    "phi-4": {},
}
# published totals the arithmetic must also meet (model cards / keras-hub presets)
PUBLISHED_B = {
    "qwen3-0.6b": 0.6, "qwen3-1.7b": 1.7, "qwen3-4b": 4.0, "qwen3-14b": 14.8, "gemma-3-1b": 1.0,
    "gemma-3-4b": 4.3, "gemma-3-12b": 12.2, "qwen2.5-vl-3b": 3.75, "qwen2.5-vl-7b": 8.29,
    "qwen2.5-vl-72b": 73.4, "deepseek-r1-distill-qwen-1.5b": 1.78, "deepseek-r1-distill-qwen-7b": 7.62,
    "deepseek-r1-distill-qwen-14b": 14.8, "deepseek-r1-distill-qwen-32b": 32.8,
    "deepseek-r1-distill-llama-70b": 70.6,
}  # fmt: skip


@pytest.mark.parametrize("mid", sorted(DENSE))
def test_dense_params_match_config_arithmetic(cat: Catalog, mid: str) -> None:
    m = cat.model(mid)
    extra = dict(DENSE[mid])
    vision = extra.pop("vision", 0)
    computed = dense_params(m, **extra) + vision
    assert abs(computed - m.params) <= 0.03 * m.params, (mid, computed, m.params)
    if mid in PUBLISHED_B:
        assert abs(m.params / 1e9 - PUBLISHED_B[mid]) <= 0.03 * PUBLISHED_B[mid] + 0.02, mid


@pytest.mark.parametrize(
    ("mid", "layout", "total_b", "active_b"),
    [
        ("qwen3-235b-a22b", {"shared": False}, 235, 22),
        ("qwen3-30b-a3b", {"shared": False}, 30.5, 3.3),
        # Meta's 109B / 400B include the ~0.9B vision encoder; the catalog counts the text model
        ("llama-4-scout", {"shared": True}, 109, 17),
        ("llama-4-maverick", {"shared": True, "moe_every": 2, "dense_ffn": 16384}, 400, 17),
    ],
)
def test_moe_params_match_config_arithmetic(
    cat: Catalog, mid: str, layout: dict[str, Any], total_b: float, active_b: float
) -> None:
    m = cat.model(mid)
    total, active = moe_params(m, **layout)
    assert abs(total - m.params) <= 0.03 * m.params, (mid, total, m.params)
    assert m.active_params is not None
    assert abs(active - m.active_params) <= 0.03 * m.active_params, (mid, active, m.active_params)
    assert abs(m.params / 1e9 - total_b) <= 0.03 * total_b
    assert abs(m.active_params / 1e9 - active_b) <= 0.05 * active_b + 0.1


def test_deepseek_r1_is_the_671b_moe_in_fp8(cat: Catalog) -> None:
    r1, v3 = cat.model("deepseek-r1"), cat.model("deepseek-v3")
    assert r1.kind == "moe-decoder" and r1.params == v3.params and r1.active_params == v3.active_params
    assert round(r1.params / 1e9) == 671 and round((r1.active_params or 0) / 1e9) == 38  # "37B activated"
    assert r1.release_precision == "fp8" and v3.release_precision == "fp8"
    assert r1.kv_cache_dim == 576
    # MLA arithmetic from config.json (q_lora_rank 1536, kv_lora_rank 512, qk 128 + 64 rope, v 128;
    # first 3 layers dense with ffn 18432, 58 MoE layers of 256 routed experts + 1 shared)
    h, v, heads = r1.hidden or 0, r1.vocab or 0, r1.heads or 0
    e, f = r1.experts or 0, r1.ffn or 0
    attn = h * 1536 + 1536 + 1536 * heads * 192 + h * 576 + 512 + 512 * heads * 256 + heads * 128 * h + 2 * h
    moe_fixed = e * h + e + 3 * h * f  # router (+ bias) and the shared expert
    base = 2 * v * h + 61 * attn + 3 * 3 * h * 18432 + h
    assert base + 58 * (moe_fixed + e * 3 * h * f) == r1.params
    assert base + 58 * (moe_fixed + 8 * 3 * h * f) == r1.active_params
    assert r1.layers == 61 and r1.experts == 256 and r1.experts_per_token == 8


def test_speech_and_vision_encoders_match_config_arithmetic(cat: Catalog) -> None:
    w = cat.model("whisper-large-v3-turbo")
    h, f, v = w.hidden, w.ffn, w.vocab
    assert h and f and v and w.encoder_layers == 32 and w.decoder_layers == 4
    attn, ffn = 4 * h * h + 3 * h, 2 * h * f + f + h
    enc = 128 * h * 3 + h + h * h * 3 + h + 1500 * h + 32 * (attn + ffn + 4 * h) + 2 * h
    dec = v * h + 448 * h + 4 * (2 * attn + ffn + 6 * h) + 2 * h
    assert enc + dec == w.params == 808_878_080  # model card: 809M
    for size, published in (("small", 22.1e6), ("base", 86.6e6), ("large", 304.4e6), ("giant", 1136.5e6)):
        m = cat.model(f"dinov2-{size}")
        h, layers, f = m.hidden or 0, m.layers or 0, m.ffn or 0
        mlp = (3 * h * f + 2 * f + h) if size == "giant" else (2 * h * f + f + h)
        layer = 4 * h * h + 4 * h + mlp + 6 * h
        computed = 3 * 14 * 14 * h + 3 * h + 1370 * h + layers * layer + 2 * h
        assert computed == m.params, size
        assert abs(m.params - published) <= 0.01 * published, size


def test_diffusion_pipelines_add_up(cat: Catalog) -> None:
    for mid in ("sd-3.5-large", "sd-3.5-medium", "flux-1-schnell", "wan2.1-t2v-1.3b", "wan2.1-t2v-14b"):
        m = cat.model(mid)
        assert m.params == sum(c.params for c in m.components), mid
        assert sum(1 for c in m.components if c.role == "denoiser") == 1, mid
    den = {
        m: next(c.params for c in cat.model(m).components if c.role == "denoiser")
        for m in ("flux-1-dev", "flux-1-schnell")
    }
    assert den["flux-1-dev"] - den["flux-1-schnell"] == 10_229_760  # the guidance embedder
    assert cat.model("sd-3.5-large").resolution == 1024
    assert cat.model("wan2.1-t2v-14b").resolution == (720, 1280)


# Ultralytics docs tables (params in M, rounded) vs the exact model summaries in the catalog
YOLO_DOCS_M = {
    "yolov8n": 3.2, "yolov8s": 11.2, "yolov8m": 25.9, "yolov8l": 43.7, "yolov8x": 68.2,
    "yolo11n": 2.6, "yolo11s": 9.4, "yolo11m": 20.1, "yolo11l": 25.3, "yolo11x": 56.9,
}  # fmt: skip


def test_yolo_and_sam2_counts(cat: Catalog) -> None:
    for mid, m_params in YOLO_DOCS_M.items():
        m = cat.model(mid)
        assert abs(m.params / 1e6 - m_params) <= 0.1, mid  # v8 docs round, 11 docs truncate
        assert m.kind == "cnn" and m.resolution == 640 and "activation_mb_per_sample" in m.estimated, mid
    # YOLO11m: 22% fewer parameters than YOLOv8m (Ultralytics docs)
    assert round(1 - cat.model("yolo11m").params / cat.model("yolov8m").params, 2) == 0.22
    assert cat.model("sam2-hiera-large").params == 224_400_000


def test_every_model_records_its_release_precision(cat: Catalog) -> None:
    for m in cat.models.values():
        assert m.release_precision is not None and m.release_precision_source, m.id
    assert {cat.model(i).release_precision for i in ("gpt-oss-20b", "gpt-oss-120b")} == {"mxfp4"}
    assert cat.model("llama-2-7b").release_precision == "fp16"
    assert cat.model("resnet-50").release_precision == "fp32"
    assert cat.model("qwen3-235b-a22b").release_precision == "bf16"


@pytest.mark.parametrize(
    ("text", "mid"),
    [
        ("deepseek r1", "deepseek-r1"),
        ("deepseek-r1", "deepseek-r1"),
        ("deepseek r1 70b", "deepseek-r1-distill-llama-70b"),
        ("r1 distill 14b", "deepseek-r1-distill-qwen-14b"),
        ("deepseek r1 distill qwen 32b", "deepseek-r1-distill-qwen-32b"),
        ("gpt oss 20b", "gpt-oss-20b"),
        ("qwen3 30b a3b", "qwen3-30b-a3b"),
        ("qwen3 235b", "qwen3-235b-a22b"),
        ("yolo11s", "yolo11s"),
        ("yolov8n", "yolov8n"),
        ("llama 4 scout", "llama-4-scout"),
        ("gemma 3 12b", "gemma-3-12b"),
        ("qwen2.5-vl 7b", "qwen2.5-vl-7b"),
        ("sd 3.5 medium", "sd-3.5-medium"),
        ("flux schnell", "flux-1-schnell"),
        ("wan 2.1 1.3b", "wan2.1-t2v-1.3b"),
        ("whisper turbo", "whisper-large-v3-turbo"),
        ("sam2", "sam2-hiera-large"),
        ("dinov2", "dinov2-large"),
    ],
)
def test_model_names_people_type(text: str, mid: str) -> None:
    hit = get_matcher(get_catalog()).resolve(text, "model")
    assert hit is not None and hit.id == mid, (text, hit)


def test_bare_r1_is_asked_back_not_guessed(cat: Catalog) -> None:
    assert "r1" not in cat.names()
    q = parse("what gpu for R1")
    assert q.models == () and q.needs_clarification
    offered = {c.id for c in q.choices}
    assert "deepseek-r1" in offered and any(i.startswith("deepseek-r1-distill") for i in offered)


def test_llama_cpp_is_not_a_llama_model() -> None:
    q = parse("llama.cpp on a 3090 with qwen2.5 14b")
    assert q.models == ("qwen2.5-14b",) and q.gpus == ("rtx-3090",) and not q.needs_clarification
    assert parse("llama.cpp with llama 3 8b").models == ("llama-3-8b",)


def test_distills_never_stand_in_for_a_size(cat: Catalog) -> None:
    assert parse("can a 3090 run a 70b model in 4bit").models == ("llama-3.3-70b",)
    assert parse("a 8b model on a 4060").models[0] != "deepseek-r1-distill-llama-8b"
    for m in cat.models.values():
        if m.id.startswith("deepseek-r1-distill"):
            assert m.base_model in cat.models, m.id
