"""Filters over the card catalog (issue 10): what is read, what is applied, what is said."""

from __future__ import annotations

import pytest

from bot.core import filters
from bot.core.answer import answer
from bot.core.knowledge import get_catalog
from bot.core.types import Context


def _fields(cf: filters.CardFilter | None) -> dict[str, tuple[str, object]]:
    assert cf is not None
    return {f.field: (f.op, f.value) for f in cf.filters}


@pytest.mark.parametrize(
    "text,want",
    [
        ("16gb+ cards below 700 euros", {"vram_gb": (">=", 16)}),
        ("cheapest card with 20gb or more", {"vram_gb": (">=", 20)}),
        ("low-power card under 150w", {"tdp_w": ("<=", 150)}),
        ("cards with bf16", {"bf16": ("is", True)}),
        ("laptop gpus with 16gb", {"vram_gb": ("==", 16), "form_factor": ("is", "laptop")}),
        ("显存16g以上 3000元以内的卡", {"vram_gb": (">=", 16)}),
        ("功耗200w以下的卡有哪些", {"tdp_w": ("<=", 200)}),
        ("amd cards with at least 16 gb", {"vram_gb": (">=", 16), "vendor": ("is", "amd")}),
        ("cards with over 1 tb/s bandwidth", {"memory_bandwidth_gbs": (">=", 1000.0)}),
        ("unified memory machines with 128gb", {"vram_gb": ("==", 128), "unified_memory": ("is", True)}),
    ],
)
def test_read(text: str, want: dict) -> None:
    assert _fields(filters.read(text)) == want


def test_read_needs_a_card_word_and_a_constraint() -> None:
    assert filters.read("what is bf16") is None
    assert filters.read("which cards do you know") is None
    cf = filters.read("single-slot cards")
    assert cf is not None and cf.filters == () and cf.unknown == ("slots",)
    cf = filters.read("low power card")
    assert cf is not None and cf.filters[0].implied and cf.sort == "tdp"


def test_apply_holds_every_constraint_and_sorts() -> None:
    cat = get_catalog()
    cf = filters.read("16gb+ cards")
    assert cf is not None
    found = filters.apply(cat, cf, 819.0)
    assert found and all(g.vram_gb >= 16 and g.price_usd is not None and g.price_usd <= 819 for g in found)
    prices = [g.price_usd for g in found]
    assert prices == sorted(prices)
    assert not any(g.form_factor in ("sxm", "oam", "laptop") for g in found)
    # every card in the catalog that meets it is there (no silent drop)
    expected = {
        g.id
        for g in cat.gpus.values()
        if g.vram_gb >= 16
        and g.price_usd is not None
        and g.price_usd <= 819
        and g.form_factor not in ("sxm", "oam", "laptop", "system")
    }
    assert {g.id for g in found} == expected
    low = filters.apply(cat, filters.read("low-power card under 150w"), None)  # type: ignore[arg-type]
    assert low and all(g.tdp_w <= 150 for g in low)
    assert [g.tdp_w for g in low] == sorted(g.tdp_w for g in low)


def test_answer_json_says_the_filters_and_the_cards() -> None:
    j = answer("16GB+ cards below 700 euros").to_json()
    assert j["intent"] == "filter" and abs(j["budget_usd"] - 819) < 9
    fields = {(f["field"], f["op"]) for f in j["filters"]}
    assert fields == {("vram_gb", ">="), ("price_usd", "<=")}
    assert j["cards"] and all(c["vram_gb"] >= 16 and c["price_usd"] <= j["budget_usd"] for c in j["cards"])
    assert j["matched"] >= len(j["cards"])


def test_cheapest_card_with_20gb_comes_first() -> None:
    j = answer("cheapest card with 20GB or more").to_json()
    cat = get_catalog()
    first = j["cards"][0]
    cheaper = [
        g
        for g in cat.gpus.values()
        if g.vram_gb >= 20 and g.price_usd is not None and g.price_usd < first["price_usd"]
        if g.form_factor == "pcie"
    ]
    assert first["vram_gb"] >= 20 and not cheaper


def test_a_field_the_catalog_lacks_is_said_not_ignored() -> None:
    for text, field in (
        ("single-slot cards", "slots"),
        ("單槽的顯卡有推薦嗎", "slots"),
        ("blower cards", "cooler"),
    ):
        a = answer(text)
        j = a.to_json()
        assert j["intent"] == "filter" and j["unknown_filters"] == [field]
        assert any(n["code"] == "filter_unknown_field" for n in j["notes"])
        assert j["cards"] == []  # nothing listed as if it had been filtered


def test_chinese_filter_is_answered_in_chinese_with_yuan() -> None:
    a = answer("显存16G以上 3000元以内的卡")
    j = a.to_json()
    assert j["intent"] == "filter" and j["language"] == "zh-Hans"
    assert all(c["vram_gb"] >= 16 for c in j["cards"]) and j["cards"]
    assert "显存不低于" in a.verdict


def test_a_filter_follow_up_keeps_the_filters() -> None:
    a = answer("cards with bf16 under $600", Context())
    b = answer("what about 24gb", a.context)
    j = b.to_json()
    assert j["intent"] == "filter"
    fields = {f["field"] for f in j["filters"]}
    assert {"bf16", "vram_gb", "price_usd"} <= fields
    assert all(c["bf16"] and c["vram_gb"] == 24 and c["price_usd"] <= 600 for c in j["cards"])
