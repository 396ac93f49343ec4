"""Laptop GPUs (issue 10): "4060 laptop" is the RTX 4060 Laptop GPU, never the desktop card silently.

The curated laptop parts match every way people write them; a bare number stays the desktop card;
a laptop asked for where no laptop part is known is said, in both languages.
"""

from __future__ import annotations

import pytest

from bot.core.answer import answer
from bot.core.knowledge import get_catalog
from bot.core.parsing import parse
from bot.core.types import Intent, NoteCode

LAPTOPS = (
    "rtx-3060-laptop",
    "rtx-3070-laptop",
    "rtx-3080-laptop",
    "rtx-4050-laptop",
    "rtx-4060-laptop",
    "rtx-4070-laptop",
    "rtx-4080-laptop",
    "rtx-5070-laptop",
    "rtx-5070-ti-laptop",
    "rtx-5080-laptop",
)


@pytest.mark.parametrize("gid", [*LAPTOPS, "rtx-3080-laptop-16gb", "rtx-4090-laptop"])
def test_laptop_entries_follow_the_pattern(gid: str) -> None:
    g = get_catalog().gpus[gid]
    assert g.form_factor == "laptop"
    assert g.price_usd is None and g.launch_price_usd is None  # sold only inside laptops
    assert "2026-12" in g.source and " W" in g.source  # dated source with the power range
    assert g.is_estimated("fp16_tensor_tflops")  # derived, not printed by NVIDIA
    desktop = get_catalog().gpus.get(gid.removesuffix("-laptop"))
    if desktop is not None:  # a laptop part never has more bandwidth or power than its desktop namesake
        assert g.memory_bandwidth_gbs <= desktop.memory_bandwidth_gbs
        assert g.tdp_w <= desktop.tdp_w


@pytest.mark.parametrize(
    "text",
    [
        "can a 4060 laptop run llama 3 8b",
        "can a laptop 4060 run llama 3 8b",
        "can a 4060m run llama 3 8b",
        "can a 4060 mobile run llama 3 8b",
        "can an rtx 4060 laptop gpu run llama 3 8b",
        "用4060笔记本能跑llama 3 8b吗",
    ],
)
def test_laptop_4060_written_every_way(text: str) -> None:
    q = parse(text)
    assert q.gpus == ("rtx-4060-laptop",)
    assert not any(n.code is NoteCode.NO_LAPTOP_PART for n in q.notes)


@pytest.mark.parametrize(
    ("text", "gid"),
    [
        ("5070 ti laptop for llama 3 8b", "rtx-5070-ti-laptop"),
        ("5070ti laptop for llama 3 8b", "rtx-5070-ti-laptop"),
        ("3070 laptop for llama 3 8b", "rtx-3070-laptop"),
        ("4080 mobile for llama 3 8b", "rtx-4080-laptop"),
        ("3080 laptop 16gb for llama 3 8b", "rtx-3080-laptop-16gb"),
    ],
)
def test_other_laptop_parts(text: str, gid: str) -> None:
    assert parse(text).gpus == (gid,)


def test_bare_number_stays_the_desktop_card() -> None:
    q = parse("can a 4060 run llama 3 8b")
    assert q.gpus == ("rtx-4060",)
    assert not any(n.code is NoteCode.NO_LAPTOP_PART for n in q.notes)


def test_fit_on_the_laptop_uses_its_memory() -> None:
    a = answer("can a 4060 laptop run deepseek r1 distill llama 8b")
    assert {e.gpu for e in a.fit} == {"rtx-4060-laptop"}
    assert "Laptop" in a.verdict


@pytest.mark.parametrize(
    ("text", "card", "said"),
    [
        ("can a 3090 laptop run llama 3 8b", "rtx-3090", "no laptop version of the RTX 3090"),
        ("用3090笔记本能跑llama 3 8b吗", "rtx-3090", "没有 RTX 3090 笔记本版"),
        ("can a laptop 3090 run llama 3 8b", "rtx-3090", "desktop card"),
    ],
)
def test_laptop_without_a_laptop_part_is_said(text: str, card: str, said: str) -> None:
    a = answer(text)
    q = a.query
    assert q.gpus == (card,)
    n = next(n for n in q.notes if n.code is NoteCode.NO_LAPTOP_PART)
    assert "laptop" in n.values["typed"]
    assert said in a.text


def test_two_laptop_cards_are_compared_not_laptop_vs_desktop() -> None:
    q = parse("5070 ti laptop vs 4080 laptop")
    assert q.intent is Intent.COMPARE
    assert set(q.gpus) == {"rtx-5070-ti-laptop", "rtx-4080-laptop"}
    q = parse("is a laptop 4060 the same as a desktop one")
    assert q.intent is Intent.ADVICE and q.advice_topic == "laptop"
    assert set(q.gpus) == {"rtx-4060-laptop", "rtx-4060"}
