"""Two different cards in one machine (issue 10): "can i use a 3060 and a 3090 together" is an advice
question (layer split pools both memories at the slower card's pace for its share; vLLM tensor
parallel wants identical cards; DDP runs at the slower card's pace within the smaller memory), not
a speed comparison. With a model named, the fit answer splits it over both cards (unchanged)."""

from __future__ import annotations

import pytest

from bot.core.answer import answer
from bot.core.knowledge import get_catalog
from bot.core.types import Intent


@pytest.mark.parametrize(
    "text",
    [
        "can i use a 3060 and a 3090 together",
        "3060和3090能一起用吗",
        "can i put a 3060 and a 3090 in the same pc",
        "3060跟3090混用可以吗",
    ],
)
def test_two_different_cards_together_is_advice_with_both_memories(text: str) -> None:
    a = answer(text)
    assert a.query.intent is Intent.ADVICE and a.query.advice_topic == "mix"
    adv = a.extra_json["advice"]
    assert set(adv["gpus"]) == {"rtx-3060-12gb", "rtx-3090"}
    cat = get_catalog()
    total = cat.gpu("rtx-3060-12gb").vram_gb + cat.gpu("rtx-3090").vram_gb
    assert adv["numbers"]["total_gb"] == total == 36
    assert "36 GB" in a.text
    assert adv["numbers"]["slow"] == "rtx-3060-12gb" and adv["numbers"]["small_gb"] == 12
    assert {f["id"] for f in adv["facts"]} == {"mix-layer-split", "mix-vllm-tp", "mix-ddp"}
    assert "vLLM" in a.text and "DDP" in a.text
    assert "faster than" not in a.text and "倍" not in a.text.split("\n")[0]  # no speed verdict


def test_training_puts_the_ddp_pace_first() -> None:
    a = answer("can i mix a 4090 and a 3090 for training")
    assert a.query.advice_topic == "mix"
    first = a.text.split("\n")[0]
    assert "DDP" in first and "RTX 3090" in first  # the slower card for training sets the pace
    assert a.extra_json["advice"]["facts"][0]["id"] == "mix-ddp"


@pytest.mark.parametrize(
    "text",
    [
        "3060 vs 3090 for mixed precision training",  # "mixed precision" is no mixing of cards
        "is the 3090 or the 4090 better",
    ],
)
def test_a_comparison_stays_a_comparison(text: str) -> None:
    assert answer(text).query.intent is Intent.COMPARE


def test_with_a_model_the_fit_answer_splits_over_both() -> None:
    a = answer("can a 3060 and a 3090 together run llama 3 70b")
    assert a.query.intent is Intent.FIT
    assert "36.0 GB together" in a.text
