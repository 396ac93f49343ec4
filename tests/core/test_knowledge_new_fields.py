"""Loader checks for the fields added in 2026-12 (issue 11): unified memory, modded cards, release
formats, GGUF sizes, formats.yaml and software.yaml. Every broken file fails with one line naming
file, entry and field."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bot.core.answer import answer
from bot.core.knowledge import Catalog, get_catalog, load_catalog
from tests.core.test_knowledge import (
    SHIPPED,
    assert_names,
    broken_copy,
    entry,
    gpu_mutation,
    load_error,
    model_mutation,
)


@pytest.fixture(scope="module")
def cat() -> Catalog:
    return get_catalog(SHIPPED)


UNIFIED = [
    "apple-m1-max-64gb",
    "apple-m1-ultra-128gb",
    "apple-m2-max-96gb",
    "apple-m2-ultra-192gb",
    "apple-m3-max-128gb",
    "apple-m4-pro-64gb",
    "apple-m4-max-128gb",
    "apple-m3-ultra-512gb",
    "nvidia-dgx-spark",
    "amd-ryzen-ai-max-395-128gb",
]
NEW_CARDS = [
    "tesla-p40", "tesla-p100-16gb", "tesla-v100-pcie-16gb", "tesla-v100-pcie-32gb", "gtx-1660-super",
    "rtx-2060-12gb", "rtx-5000-ada", "gb200", "rtx-4090-laptop", "rtx-5090-laptop", "rtx-4090-d",
    "rtx-2080-ti-22gb", "rtx-4090-48gb", "rtx-3080-20gb", "arc-b580", "arc-pro-b60", "rx-7900-xt",
    "rx-7900-gre", "rx-9070-xt",
    # already present before 2026-12, asked for again in issue 11
    "rtx-3060-ti", "rtx-3080-12gb", "rtx-a4000", "rtx-a5000", "rtx-4000-ada", "rtx-5060-ti-16gb",
    "rtx-pro-6000", "instinct-mi300x", "b200", "rtx-3090",
]  # fmt: skip


def test_unified_memory_machines_exist_with_their_share(cat: Catalog) -> None:
    for gid in UNIFIED:
        g = cat.gpu(gid)
        assert g.unified_memory and g.form_factor == "system", gid
        assert g.gpu_memory_share is not None and 0.5 <= g.gpu_memory_share <= 1, gid
        assert g.gpu_memory_share_basis, gid
        assert g.usable_memory_gb == round(g.vram_gb * g.gpu_memory_share, 2)
        assert g.vram_gb in g.memory_options_gb or max(g.memory_options_gb) == g.vram_gb, gid
    for gid in UNIFIED[:8]:
        g = cat.gpu(gid)
        assert g.vendor == "apple" and g.software == "mps" and g.gpu_memory_share == 0.75, gid
        assert "iogpu.wired_limit_mb" in (g.gpu_memory_share_basis or "")
    # the id says the memory size
    for gid in UNIFIED:
        if gid.endswith("gb"):
            assert cat.gpu(gid).vram_gb == float(gid.rsplit("-", 1)[1][:-2]), gid
    # a 512 GB M3 Ultra lets the GPU use 384 GB by default
    assert cat.gpu("apple-m3-ultra-512gb").usable_memory_gb == 384
    assert cat.gpu("nvidia-dgx-spark").vram_gb == 128
    # discrete cards: usable memory is the card's memory
    assert cat.gpu("rtx-4090").usable_memory_gb == 24


def test_new_cards_exist_and_modded_ones_say_so(cat: Catalog) -> None:
    for gid in NEW_CARDS:
        assert gid in cat.gpus, gid
    modded = {g.id for g in cat.gpus.values() if g.modded}
    assert modded == {"rtx-2080-ti-22gb", "rtx-4090-48gb", "rtx-3080-20gb"}
    for gid in modded:
        notes = cat.gpu(gid).notes or ""
        assert "warranty" in notes and "VBIOS" in notes, gid
    assert cat.gpu("rtx-4090-48gb").vram_gb == 48 and cat.gpu("rtx-2080-ti-22gb").vram_gb == 22
    assert cat.gpu("rtx-4090-laptop").form_factor == "laptop" and cat.gpu("rtx-4090-laptop").vram_gb == 16
    assert cat.gpu("tesla-p40").legacy_cuda and cat.gpu("tesla-p40").vram_gb == 24
    assert cat.gpu("arc-b580").vendor == "intel" and cat.gpu("arc-b580").software == "oneapi"


def test_new_card_names_resolve(cat: Catalog) -> None:
    names = cat.names()
    for typed, gid in {
        "p40": "tesla-p40",
        "m3 ultra": "apple-m3-ultra-512gb",
        "dgx spark": "nvidia-dgx-spark",
        "strix halo": "amd-ryzen-ai-max-395-128gb",
        "4090 48gb": "rtx-4090-48gb",
        "4090d": "rtx-4090-d",
        "b580": "arc-b580",
        "9070 xt": "rx-9070-xt",
        "4090 laptop": "rtx-4090-laptop",
    }.items():
        assert names[typed] == ("gpu", gid), typed
    assert names["4090"] == ("gpu", "rtx-4090")  # the modded card never takes the plain name


def _unified_ctx(change: Any) -> Any:
    return gpu_mutation("apple-m4-max-128gb", change)


@pytest.mark.parametrize(
    ("mutate", "field", "words"),
    [
        (lambda g: g.pop("gpu_memory_share"), "gpu_memory_share", "required when unified_memory"),
        (lambda g: g.pop("gpu_memory_share_basis"), "gpu_memory_share_basis", "required when unified_memory"),
        (lambda g: g.update(gpu_memory_share=1.5), "gpu_memory_share", "fraction"),
        (lambda g: g.update(gpu_memory_share=0), "gpu_memory_share", "fraction"),
        (lambda g: g.update(memory_options_gb=[]), "memory_options_gb", "non-empty"),
        (lambda g: g.update(software="cuda"), "software", "apple entry runs mps"),
        (lambda g: g.update(form_factor="desktop"), "form_factor", "must be one of"),
    ],
)
def test_bad_unified_memory_fields(tmp_path: Path, mutate: Any, field: str, words: str) -> None:
    err = load_error(broken_copy(tmp_path, "gpus.yaml", _unified_ctx(mutate)))
    assert_names(err, "knowledge/gpus.yaml", "gpu 'apple-m4-max-128gb'", field)
    assert words in str(err)


def test_share_on_a_discrete_card_is_refused(tmp_path: Path) -> None:
    d = broken_copy(tmp_path, "gpus.yaml", gpu_mutation("rtx-4090", lambda g: g.update(gpu_memory_share=0.9)))
    err = load_error(d)
    assert_names(err, "knowledge/gpus.yaml", "gpu 'rtx-4090'", "gpu_memory_share")
    assert "unified" in str(err)


def test_modded_card_needs_notes(tmp_path: Path) -> None:
    d = broken_copy(tmp_path, "gpus.yaml", gpu_mutation("rtx-4090-48gb", lambda g: g.pop("notes")))
    err = load_error(d)
    assert_names(err, "knowledge/gpus.yaml", "gpu 'rtx-4090-48gb'", "notes")


@pytest.mark.parametrize(
    ("mutate", "field"),
    [
        (lambda m: m.update(release_precision="fp6"), "release_precision"),
        (lambda m: m.pop("release_precision_source"), "release_precision_source"),
        (lambda m: m.update(release_weights_gb=-1), "release_weights_gb"),
        (lambda m: m.pop("release_weights_source"), "release_weights_source"),
        (lambda m: m.update(tie_word_embeddings="no"), "tie_word_embeddings"),
        (lambda m: m.update(base_model="Not A Slug"), "base_model"),
    ],
)
def test_bad_release_fields(tmp_path: Path, mutate: Any, field: str) -> None:
    err = load_error(broken_copy(tmp_path, "models.yaml", model_mutation("deepseek-r1", mutate)))
    assert_names(err, "knowledge/models.yaml", "model 'deepseek-r1'", field)


def test_base_model_must_exist(tmp_path: Path) -> None:
    d = broken_copy(
        tmp_path,
        "models.yaml",
        model_mutation("deepseek-r1-distill-qwen-14b", lambda m: m.update(base_model="qwen9-14b")),
    )
    err = load_error(d)
    assert_names(err, "knowledge/models.yaml", "model 'deepseek-r1-distill-qwen-14b'", "base_model")


@pytest.mark.parametrize(
    ("sizes", "field", "words"),
    [
        ({"gguf-q4_k_m": 0}, "gguf_sizes.gguf-q4_k_m", "positive"),
        ({"gguf-q3_k_zz": 30.0}, "gguf_sizes.gguf-q3_k_zz", "unknown format"),
        ({"awq-int4": 40.0}, "gguf_sizes.awq-int4", "not a GGUF"),
        ({"GGUF Q4": 40.0}, "gguf_sizes.GGUF Q4", "lowercase"),
    ],
)
def test_bad_gguf_sizes(tmp_path: Path, sizes: dict[str, float], field: str, words: str) -> None:
    d = broken_copy(
        tmp_path, "models.yaml", model_mutation("llama-3.3-70b", lambda m: m.update(gguf_sizes=sizes))
    )
    err = load_error(d)
    assert_names(err, "knowledge/models.yaml", "model 'llama-3.3-70b'", field)
    assert words in str(err)


def _format_mutation(fid: str, change: Any) -> Any:
    def mutate(data: Any) -> None:
        change(entry(data["formats"], fid))

    return mutate


@pytest.mark.parametrize(
    ("mutate", "field", "words"),
    [
        (lambda f: f.update(family="exl2"), "family", "must be one of"),
        (lambda f: f.update(bits_per_weight=0), "bits_per_weight", "positive"),
        (lambda f: f.update(applies_to=["llm"]), "applies_to[0]", "model kind"),
        (lambda f: f.update(quality_rank=-1), "quality_rank", ">= 0"),
        (lambda f: f.pop("bits_basis"), "bits_basis", "missing"),
        (lambda f: f.update(engines=["koboldcpp"]), "engines[0]", "unknown engine"),
        (lambda f: f.update(colour="blue"), "colour", "unknown key"),
    ],
)
def test_bad_format_fields(tmp_path: Path, mutate: Any, field: str, words: str) -> None:
    err = load_error(broken_copy(tmp_path, "formats.yaml", _format_mutation("gguf-q4_k_m", mutate)))
    assert_names(err, "knowledge/formats.yaml", "format 'gguf-q4_k_m'", field)
    assert words in str(err)


def test_quality_note_must_be_one_short_line(tmp_path: Path) -> None:
    long = "x" * 200
    d = broken_copy(
        tmp_path, "formats.yaml", _format_mutation("gguf-q2_k", lambda f: f["quality_note"].update(text=long))
    )
    err = load_error(d)
    assert_names(err, "knowledge/formats.yaml", "format 'gguf-q2_k' quality_note", "text")


def _tool_mutation(tid: str, change: Any) -> Any:
    def mutate(data: Any) -> None:
        change(entry(data["tools"], tid))

    return mutate


@pytest.mark.parametrize(
    ("mutate", "ent", "field", "words"),
    [
        (lambda t: t["support"].pop("mps"), "tool 'vllm'", "support", "every stack"),
        (
            lambda t: t["support"]["cuda"].update(level="maybe"),
            "tool 'vllm' support.cuda",
            "level",
            "must be one of",
        ),
        (
            lambda t: t["support"]["rocm"].update(min_compute_capability=7.0),
            "tool 'vllm' support.rocm",
            "min_compute_capability",
            "only for the cuda",
        ),
        (lambda t: t["support"]["cuda"].pop("source"), "tool 'vllm' support.cuda", "source", "missing"),
    ],
)
def test_bad_software_fields(tmp_path: Path, mutate: Any, ent: str, field: str, words: str) -> None:
    err = load_error(broken_copy(tmp_path, "software.yaml", _tool_mutation("vllm", mutate)))
    assert_names(err, "knowledge/software.yaml", ent, field)
    assert words in str(err)


def test_engine_names_are_unique(tmp_path: Path) -> None:
    def mutate(data: Any) -> None:
        entry(data["engines"], "ollama")["aliases"].append("llama.cpp")

    err = load_error(broken_copy(tmp_path, "software.yaml", mutate))
    assert_names(err, "knowledge/software.yaml", "engine 'ollama'", None)
    assert "already used by engine 'llama.cpp'" in str(err)


def test_formats_and_software_files_are_optional(tmp_path: Path) -> None:
    d = broken_copy(tmp_path, "currencies.yaml", lambda data: None)
    (d / "formats.yaml").unlink()
    (d / "software.yaml").unlink()
    cat = load_catalog(d)
    assert cat.formats == {} and cat.tools == {} and cat.engines == {}
    assert len(cat.models) == len(load_catalog(SHIPPED).models)
    # and answers from it: without builds, a fit question gets the plain estimate (it raised an
    # IndexError inside fit_result, which answer() turned into an apology)
    for text in ("can I run llama 3 8b on a 3090", "does qwen 2.5 7b fit on 2x 3080 12 gb"):
        a = answer(text, catalog=cat)
        out = a.to_json()
        assert out["intent"] == "fit" and out["fit"] and all("fits" in f for f in out["fit"]), text
    # several setups (judged per build when there are builds) and platform advice (software.yaml)
    multi = answer("rtx 4090 or 2x 3090 for llama 3 70b in 4bit", catalog=cat).to_json()
    assert multi["intent"] == "compare" and len(multi["comparison"]) == 2
    advice = answer("is pytorch on an rx 7900 xtx a good idea for training", catalog=cat)
    assert advice.intent.value == "advice" and "could not work that one out" not in advice.text


def test_shipped_formats_tools_and_engines(cat: Catalog) -> None:
    assert {"bf16", "fp8", "mxfp4", "awq-int4", "gptq-int4", "bnb-int8", "bnb-nf4"} <= set(cat.formats)
    assert {
        "gguf-q8_0",
        "gguf-q6_k",
        "gguf-q5_k_m",
        "gguf-q4_k_m",
        "gguf-iq3_xxs",
        "gguf-iq2_xs",
        "gguf-q2_k",
    } <= set(cat.formats)
    assert set(cat.tools) == {
        "pytorch-training",
        "bitsandbytes",
        "flash-attention",
        "vllm",
        "llama.cpp",
        "diffusers",
    }
    engines = {
        "llama.cpp",
        "ollama",
        "lm-studio",
        "vllm",
        "sglang",
        "tensorrt-llm",
        "exllamav2",
        "mlx",
        "diffusers",
        "comfyui",
    }
    assert engines <= set(cat.engines)
    for f in cat.formats.values():
        note = f.quality_note
        assert note is not None and note.source and note.date and len(note.text) <= 140, f.id
    # engine names are never catalog names (so they can never resolve to a model or card)
    names = cat.names()
    for e in cat.engines.values():
        for n in (e.name, *e.aliases):
            assert n.lower() not in names, n


def test_china_market_prices_in_yuan_convert_at_the_catalog_rate(cat: Catalog) -> None:
    rate = cat.currencies["CNY"].usd_per_unit
    priced = {g.id: g for g in cat.gpus.values() if g.price_cny is not None}
    assert {"rtx-4090-d", "rtx-4090-48gb", "rtx-2080-ti-22gb"} <= set(priced)
    for g in priced.values():
        assert g.price_usd is not None and abs(g.price_usd - g.price_cny * rate) <= 0.02 * g.price_usd, g.id  # type: ignore[operator]
        assert "元" in (g.price_source or ""), g.id


def test_price_cny_needs_a_usd_price(tmp_path: Path) -> None:
    def change(g: dict[str, Any]) -> None:
        g["price_usd"] = None
        for k in ("price_date", "price_kind", "price_source"):
            del g[k]

    err = load_error(broken_copy(tmp_path, "gpus.yaml", gpu_mutation("rtx-4090-d", change)))
    assert_names(err, "knowledge/gpus.yaml", "gpu 'rtx-4090-d'", "price_cny")
