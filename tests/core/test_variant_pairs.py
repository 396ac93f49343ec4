"""Two variants of one card in one question (issue 10): "a100 40gb vs 80gb", "a100 40g和80g哪个好",
"h100 pcie or sxm" compare the two members, never the first one's spec sheet alone."""

from __future__ import annotations

import pytest

from bot.core.answer import answer
from bot.core.types import Intent


@pytest.mark.parametrize(
    ("text", "gpus"),
    [
        ("what's the difference between a100 40gb and 80gb for training", {"a100-40gb", "a100-80gb"}),
        ("a100 40gb vs 80gb", {"a100-40gb", "a100-80gb"}),
        ("a100 40g和80g哪个好", {"a100-40gb", "a100-80gb"}),
        ("a100 40g还是80g", {"a100-40gb", "a100-80gb"}),
        ("h100 pcie or sxm", {"h100-pcie", "h100-sxm"}),
        ("4060 ti 16gb or 8gb for sdxl", {"rtx-4060-ti-16gb", "rtx-4060-ti-8gb"}),
    ],
)
def test_two_variants_of_one_card_are_compared(text: str, gpus: set[str]) -> None:
    a = answer(text)
    assert set(a.query.gpus) == gpus and len(a.query.gpus) == 2
    assert a.query.intent is Intent.COMPARE
    assert not a.extra_json["unrecognized"]


@pytest.mark.parametrize(
    "text",
    [
        "a100 80gb with 64gb of ram for llama 70b",  # a RAM size is no second variant
        "a100 40gb for llama 8b",
        "is an a100 80gb enough for llama 70b",
    ],
)
def test_one_variant_stays_one(text: str) -> None:
    a = answer(text)
    assert len(a.query.gpus) == 1
