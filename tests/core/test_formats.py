"""bot/core/formats.py: the builds people download, their sizes and order, against published figures."""

from __future__ import annotations

import pytest

from bot.core.formats import Basis, builds_for, quality_note, release_format_id, weights_bytes
from bot.core.knowledge import Catalog, get_catalog

GIB = 2**30


@pytest.fixture(scope="module")
def cat() -> Catalog:
    return get_catalog()


def build(cat: Catalog, mid: str, fid: str):  # type: ignore[no-untyped-def]
    return next(b for b in builds_for(cat.model(mid), cat) if b.format_id == fid)


def test_llama_70b_builds_in_quality_order_with_published_sizes(cat: Catalog) -> None:
    bs = builds_for(cat.model("llama-3.3-70b"), cat)
    ids = [b.format_id for b in bs]
    assert ids[0] == "bf16" and bs[0].is_release
    assert (
        ids.index("gguf-q8_0") < ids.index("gguf-q6_k") < ids.index("gguf-q5_k_m") < ids.index("gguf-q4_k_m")
    )
    assert (
        ids.index("gguf-q4_k_m")
        < ids.index("gguf-iq3_xxs")
        < ids.index("gguf-q2_k")
        < ids.index("gguf-iq2_xs")
    )
    assert [b.quality_rank for b in bs] == sorted(b.quality_rank for b in bs)
    # 70.55B params x 2 bytes
    assert bs[0].weights_gb == pytest.approx(141.1, abs=0.1) and bs[0].basis is Basis.MODELLED
    q4 = build(cat, "llama-3.3-70b", "gguf-q4_k_m")
    assert q4.weights_gb == 42.52 and q4.basis is Basis.MEASURED  # bartowski's file
    assert q4.bits_per_weight == pytest.approx(4.82, abs=0.01)
    # the modelled Q2_K lands near the ~26 GB files people use (issue 11: "Q2_K/IQ2 yes (26 GB)")
    assert 25 <= build(cat, "llama-3.3-70b", "gguf-q2_k").weights_gb <= 29
    # every quantized build is smaller than the release
    assert all(b.weights_gb < bs[0].weights_gb for b in bs[1:])


def test_modelled_gguf_bits_reproduce_llama_cpps_own_table(cat: Catalog) -> None:
    # quantize.cpp lists Llama-3-8B sizes in GiB; the bits per weight were derived from them
    m = cat.model("llama-3-8b")
    for fid, gib in (
        ("gguf-q8_0", 7.96),
        ("gguf-q6_k", 6.14),
        ("gguf-q5_k_m", 5.33),
        ("gguf-q4_k_m", 4.58),
        ("gguf-q2_k", 2.96),
    ):
        assert weights_bytes(m, fid, cat) / GIB == pytest.approx(gib, rel=0.005), fid


def test_gpt_oss_is_judged_in_mxfp4(cat: Catalog) -> None:
    small = builds_for(cat.model("gpt-oss-20b"), cat)
    assert [b.format_id for b in small] == ["mxfp4"] and small[0].is_release
    # runs within 16 GB (OpenAI model card): 16 GiB card = 17.2 GB, leaving room for cache
    assert 12.5 <= small[0].weights_gb <= 14.5
    big = builds_for(cat.model("gpt-oss-120b"), cat)[0]
    # fits one 80 GB GPU (OpenAI model card)
    assert 60 <= big.weights_gb <= 70
    # speed reads only the active experts + the 16-bit rest
    assert big.active_weights_gb is not None and big.active_weights_gb < 0.15 * big.weights_gb
    # a bf16 copy (for fine-tuning) would not fit: what weights_bytes says for a format not listed
    assert weights_bytes(cat.model("gpt-oss-20b"), "bf16", cat) / 1e9 == pytest.approx(41.8, abs=0.2)


def test_deepseek_r1_needs_about_700_gb_in_fp8(cat: Catalog) -> None:
    r1 = cat.model("deepseek-r1")
    bs = builds_for(r1, cat)
    assert bs[0].format_id == "fp8" and bs[0].is_release and bs[0].basis is Basis.MEASURED
    assert 650 <= bs[0].weights_gb <= 750
    assert "bf16" not in {b.format_id for b in bs}  # no build bigger than the release
    assert (
        bs[0].active_weights_gb is not None and 35 <= bs[0].active_weights_gb <= 45
    )  # 37B active at ~1 byte
    q4 = build(cat, "deepseek-r1", "gguf-q4_k_m")
    assert 380 <= q4.weights_gb <= 420  # 671B x 4.9 bits
    assert release_format_id(r1) == "fp8"


def test_awq_keeps_embeddings_in_16_bit(cat: Catalog) -> None:
    # on a 1.5B model with a 152k vocabulary the 16-bit embeddings make AWQ bigger than Q4_K_M
    awq = build(cat, "deepseek-r1-distill-qwen-1.5b", "awq-int4")
    q4 = build(cat, "deepseek-r1-distill-qwen-1.5b", "gguf-q4_k_m")
    assert awq.weights_gb > q4.weights_gb
    m = cat.model("deepseek-r1-distill-qwen-1.5b")
    emb = 2 * 151936 * 1536
    assert weights_bytes(m, "awq-int4", cat) == round((m.params - emb) * 4.25 / 8 + emb * 2)
    # small models get no 2-3 bit builds
    assert "gguf-iq2_xs" not in {b.format_id for b in builds_for(m, cat)}


def test_moe_builds_count_every_expert_for_memory(cat: Catalog) -> None:
    b = build(cat, "qwen3-30b-a3b", "gguf-q4_k_m")
    m = cat.model("qwen3-30b-a3b")
    assert b.weights_gb == pytest.approx(m.params * 4.9 / 8 / 1e9, rel=1e-3)
    assert b.active_weights_gb == pytest.approx((m.active_params or 0) * 4.9 / 8 / 1e9, rel=1e-3)


def test_diffusion_quantizes_the_denoiser_only(cat: Catalog) -> None:
    flux = cat.model("flux-1-dev")
    bs = {b.format_id: b for b in builds_for(flux, cat)}
    assert list(bs)[0] == "bf16"
    den = next(c.params for c in flux.components if c.role == "denoiser")
    rest = flux.params - den
    assert weights_bytes(flux, "fp8", cat) == den * 1 + rest * 2
    # FLUX.1-dev's transformer in fp8 is ~12 GB: the part that must sit on a 24 GB card
    assert den / 1e9 == pytest.approx(11.9, abs=0.05)
    assert {"bnb-nf4", "gguf-q4_k_m", "gguf-q8_0"} <= set(bs)
    assert all(
        b.quality_note_id is None for f, b in bs.items() if f != "bf16"
    )  # no image-quality deltas sourced


def test_cnns_and_fp32_releases_get_a_half_precision_build(cat: Catalog) -> None:
    assert [b.format_id for b in builds_for(cat.model("resnet-50"), cat)] == ["fp32", "fp16"]
    yolo = builds_for(cat.model("yolo11s"), cat)
    assert [b.format_id for b in yolo] == ["fp16"] and yolo[0].weights_gb == pytest.approx(0.019, abs=0.001)


def test_weights_bytes_agrees_with_builds_and_rejects_unknown_formats(cat: Catalog) -> None:
    for mid in ("llama-3.1-8b", "deepseek-r1", "gpt-oss-120b", "sdxl", "qwen2.5-vl-7b"):
        m = cat.model(mid)
        for b in builds_for(m, cat):
            assert abs(weights_bytes(m, b.format_id, cat) - b.weights_gb * 1e9) <= 0.5e6, (mid, b.format_id)
    with pytest.raises(KeyError):
        weights_bytes(cat.model("llama-3.1-8b"), "gguf-q3_k_zz", cat)


def test_quality_notes_resolve(cat: Catalog) -> None:
    note = quality_note(build(cat, "llama-3.3-70b", "gguf-q4_k_m").quality_note_id or "", cat)
    assert (
        note.value == pytest.approx(0.1754) and note.metric == "ppl_delta" and "quantize.cpp" in note.source
    )
    assert quality_note("gguf-q2_k-ppl", cat).value == pytest.approx(3.5199)
    with pytest.raises(KeyError):
        quality_note("no-such-note", cat)


def test_every_model_has_builds_and_sizes_are_sane(cat: Catalog) -> None:
    for m in cat.models.values():
        bs = builds_for(m, cat)
        assert bs and bs[0].is_release, m.id
        for b in bs:
            assert 0 < b.weights_gb and 1.5 <= b.bits_per_weight <= 33, (m.id, b.format_id)
            assert (b.active_weights_gb is not None) == (m.active_params is not None), m.id
