"""Comparisons that decide (issue 10): quoted prices replace the catalog's and are said; the
comparison ends in a verdict for the workload asked. English and Chinese."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from bot.core.answer import answer
from bot.core.engine.compare import decide
from bot.core.results import CompareRowData, CompareVerdictCode


def _row(vram: float, speed: float, price: float | None, fits: bool | None = True, count: int = 1):
    gpu = SimpleNamespace(vram_gb=vram)
    return CompareRowData(
        gpu=gpu,  # type: ignore[arg-type]
        count=count,
        fits=fits,
        max_batch=None,
        relative_speed=speed,
        speed_basis="modelled",
        value=None,
        price_usd=price,
    )


def test_more_speed_per_dollar_wins() -> None:
    # a: 1.00x at $650 -> 1.54/k$; b: 1.36x at $1,550 -> 0.88/k$: a, at 1/1.36 = 0.74x the speed, 0.42x the price
    d = decide((_row(24, 1.0, 650), _row(24, 1.36, 1550)), has_model=True)
    assert d is not None and d.best == 0 and d.code is CompareVerdictCode.VALUE
    assert d.speed_ratio == pytest.approx(1 / 1.36)
    assert d.price_ratio == pytest.approx(650 / 1550)


def test_about_the_same_value_goes_to_the_faster_card() -> None:
    # 1.0/1000 vs 1.05/1000 -> values within 10%: the faster (b)
    d = decide((_row(16, 1.0, 1000), _row(16, 1.05, 1000)), has_model=False)
    assert d is not None and d.best == 1 and d.code is CompareVerdictCode.FASTER


def test_only_the_card_that_fits_is_the_buy() -> None:
    d = decide((_row(8, 2.0, 300, fits=False), _row(24, 1.0, 900)), has_model=True)
    assert d is not None and d.best == 1 and d.code is CompareVerdictCode.ONLY_FITS


def test_no_verdict_when_neither_fits_or_more_than_two() -> None:
    assert decide((_row(8, 1, 300, fits=False), _row(12, 1, 400, fits=False)), has_model=True) is None
    assert decide((_row(8, 1, 300), _row(12, 1, 400), _row(24, 1, 700)), has_model=False) is None


def test_missing_price_falls_back_to_speed() -> None:
    d = decide((_row(24, 1.2, None), _row(24, 1.0, 700)), has_model=False)
    assert d is not None and d.best == 0 and d.code is CompareVerdictCode.NO_PRICE and d.price_ratio is None


def test_quoted_prices_replace_the_catalog_and_are_said() -> None:
    a = answer("a 4070 Ti Super at $750 vs a used 3090 at $650 for llama 2 13b qlora")
    assert a.intent.value == "compare"
    rows = {r.gpu: r for r in a.comparison}
    assert rows["rtx-4070-ti-super"].price_usd == 750 and rows["rtx-3090"].price_usd == 650
    assert rows["rtx-3090"].price_quoted and rows["rtx-4070-ti-super"].price_quoted
    assert "Priced at what you quoted, not the catalog" in a.text
    assert "$650 (your price)" in a.text
    v = a.to_json()["compare_verdict"]
    assert a.comparison[v["best"]].gpu == "rtx-3090"
    assert "For Llama 2 13B QLoRA fine-tuning, the RTX 3090 24 GB is the better buy" in a.text
    # a deal word does not turn a two-card comparison into a deal question
    b = answer(
        "a 4070 Ti Super at $750 vs a used 3090 at $650, which is the better deal for llama 2 13b qlora"
    )
    assert b.intent.value == "compare"


def test_the_brief_example_13b_qlora() -> None:
    a = answer("used 3090 at $700 vs 4090 at $1,500 for 13B QLoRA")
    assert "the RTX 3090 24 GB is the better buy: same memory (24 GB)" in a.text
    v = a.to_json()["compare_verdict"]
    assert v["price_ratio"] == pytest.approx(700 / 1500, abs=1e-3)


def test_without_quotes_the_catalog_prices_stay() -> None:
    a = answer("3090 vs 4090 for llama 2 13b qlora")
    assert not any(r.price_quoted for r in a.comparison)
    assert "Priced at what you quoted" not in a.text
    assert "is the better buy" in a.text


def test_quoted_prices_and_verdict_in_chinese() -> None:
    a = answer("4070 ti super 5800元 和 二手3090 4500元 哪个好，跑llama 2 13b qlora")
    assert a.intent.value == "compare"
    assert "价格按你给的算" in a.text and "¥4,500" in a.text
    assert "RTX 3090 24 GB 更值得买" in a.text
    assert a.query.budget_usd is None
    assert not any(n.code.value == "budget_converted" for n in a.query.notes)
