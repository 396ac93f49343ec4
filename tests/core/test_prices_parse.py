"""Reading price talk from questions (bot.core.price_parse), as a table of phrasings:
question kinds, quoted prices (card, amount, currency, condition), filters, hours a day,
kWh price and years to resale. English and Chinese."""

from __future__ import annotations

import pytest

from bot.core import price_parse as pp
from bot.core.knowledge import get_catalog

RB, DEAL, JOB = pp.PriceQuestionKind.RENT_OR_BUY, pp.PriceQuestionKind.DEAL, pp.PriceQuestionKind.JOB_COST
NEW_ONLY, USED_OK, USED_ONLY = (
    pp.ConditionFilter.NEW_ONLY,
    pp.ConditionFilter.USED_OK,
    pp.ConditionFilter.USED_ONLY,
)


@pytest.fixture(scope="module")
def cat():
    return get_catalog()


# (question, expected fields). Keys: kinds (set), quotes [(gpu, amount, currency, condition)],
# cond, max_usd, no_cloud, hours, kwh (amount, currency), years. Unlisted keys must be empty.
TABLE: list[tuple[str, dict]] = [
    # deals
    ("is a 3090 for $650 a good deal", {"kinds": {DEAL}, "quotes": [("rtx-3090", 650, "USD", None)]}),
    (
        "is $900 a good price for a used 3090 ti",
        {"kinds": {DEAL}, "quotes": [("rtx-3090-ti", 900, "USD", "used")]},
    ),
    ("Is a used RTX 3090 at $700 worth it?", {"kinds": {DEAL}, "quotes": [("rtx-3090", 700, "USD", "used")]}),
    (
        "found a 4090 for 1500 bucks, good deal?",
        {"kinds": {DEAL}, "quotes": [("rtx-4090", 1500, "USD", None)]},
    ),
    (
        "is 1,800 € for a new 4090 overpriced?",
        {"kinds": {DEAL}, "quotes": [("rtx-4090", 1800, "EUR", "new")]},
    ),
    (
        "£550 for a second-hand 3090, reasonable?",
        {"kinds": {DEAL}, "quotes": [("rtx-3090", 550, "GBP", "used")]},
    ),
    (
        "someone is selling a 3060 12gb for $180, should I take it",
        {"kinds": {DEAL}, "quotes": [("rtx-3060-12gb", 180, "USD", None)]},
    ),
    ("5090 at $3,500 - rip-off?", {"kinds": {DEAL}, "quotes": [("rtx-5090", 3500, "USD", None)]}),
    (
        "a refurbished a6000 for 2.8k, bargain?",
        {"kinds": {DEAL}, "quotes": [("rtx-a6000", 2800, "USD", "used")]},
    ),
    ("二手3090 4500元值不值", {"kinds": {DEAL}, "quotes": [("rtx-3090", 4500, "CNY", "used")]}),
    ("4090全新13000元贵不贵", {"kinds": {DEAL}, "quotes": [("rtx-4090", 13000, "CNY", "new")]}),
    (
        "矿卡3080 1500块划算吗",
        {"kinds": {DEAL}, "quotes": [("rtx-3080-10gb|rtx-3080-12gb", 1500, "CNY", "used")]},
    ),
    ("is 650 a good price for a 3090?", {"kinds": {DEAL}, "quotes": [("rtx-3090", 650, "USD", None)]}),
    ("worth paying 700 for a used 3090?", {"kinds": {DEAL}, "quotes": [("rtx-3090", 700, "USD", "used")]}),
    (
        "3090 used $700 vs 4090 new $1600, which is the better deal",
        {"kinds": {DEAL}, "quotes": [("rtx-3090", 700, "USD", "used"), ("rtx-4090", 1600, "USD", "new")]},
    ),
    ("Is ¥5000 for a 3090 good?", {"kinds": {DEAL}, "quotes": [("rtx-3090", 5000, "CNY", None)]}),
    ("二手的3090才3000块，能入吗", {"kinds": {DEAL}, "quotes": [("rtx-3090", 3000, "CNY", "used")]}),
    # quoted prices without a deal question (override the catalog)
    ("I can get a 3090 for $650", {"quotes": [("rtx-3090", 650, "USD", None)]}),
    ("4090 at 1,800 €", {"quotes": [("rtx-4090", 1800, "EUR", None)]}),
    (
        "I can get a 3090 for 650 and a 4090 for 1500",
        {"quotes": [("rtx-3090", 650, "USD", None), ("rtx-4090", 1500, "USD", None)]},
    ),
    ("my local shop has the 5080 at $1,199", {"quotes": [("rtx-5080", 1199, "USD", None)]}),
    (
        "rtx 4060 ti 16gb for 430 dollars vs 3090 for 700 dollars",
        {"quotes": [("rtx-4060-ti-16gb", 430, "USD", None), ("rtx-3090", 700, "USD", None)]},
    ),
    # rent or buy
    ("rent or buy a 4090?", {"kinds": {RB}}),
    ("should I just rent an H100 instead of buying a 4090", {"kinds": {RB}}),
    ("how many hours of cloud before a 4090 pays off", {"kinds": {RB}}),
    ("buy vs rent for llama fine-tuning, 4 hours a day", {"kinds": {RB}, "hours": 4}),
    (
        "rent or buy a 4090 at 4 hours a day, electricity 0.30 €/kWh, sell after 2 years",
        {"kinds": {RB}, "hours": 4, "kwh": (0.30, "EUR"), "years": 2},
    ),
    (
        "is it cheaper to rent or buy if I train 8h per day and power costs 15 cents per kWh",
        {"kinds": {RB}, "hours": 8, "kwh": (0.15, "USD")},
    ),
    ("when does a 3090 break even against runpod at 2 hours daily", {"kinds": {RB}, "hours": 2}),
    ("I'd keep it for three years, running 24/7: buy or rent?", {"kinds": {RB}, "hours": 24, "years": 3}),
    ("租还是买4090？", {"kinds": {RB}}),
    (
        "电费0.6元/度，每天8小时，两年后卖掉，租还是买",
        {"kinds": {RB}, "hours": 8, "kwh": (0.6, "CNY"), "years": 2},
    ),
    ("买4090还是租云，一天用3小时，多久回本", {"kinds": {RB}, "hours": 3}),
    ("电费每度5毛，租卡划算还是买卡", {"kinds": {RB}, "kwh": (0.5, "CNY")}),
    ("electricity is $0.12 per kWh here, rent or buy?", {"kinds": {RB}, "kwh": (0.12, "USD")}),
    (
        "rent an h100 at $2/hr or buy a 5090?",
        {"kinds": {RB}, "quotes": [("h100-pcie|h100-sxm", 2, "USD", None)]},
    ),
    # job cost
    ("what does it cost to fine-tune llama 3 8b on 1B tokens on rented H100s vs my 4090", {"kinds": {JOB}}),
    ("how much would it cost to train resnet-50 on a rented a100", {"kinds": {JOB}}),
    ("微调llama 3 8b要花多少钱", {"kinds": {JOB}}),
    # filters
    ("best gpu for llama 3 8b, new only", {"cond": NEW_ONLY}),
    ("only new cards please, no used", {"cond": NEW_ONLY}),
    ("used is fine, what's best for stable diffusion", {"cond": USED_OK}),
    ("I don't mind used cards, budget $800", {"cond": USED_OK, "max_usd": 800}),
    ("only used cards under $500", {"cond": USED_ONLY, "max_usd": 500}),
    ("used only, below 400 euros", {"cond": USED_ONLY, "max_eur": 400}),
    ("no cloud, I want my own card", {"no_cloud": True}),
    ("I don't want to rent, what should I buy under $1000", {"no_cloud": True, "max_usd": 1000}),
    ("只要二手的，3000元以内", {"cond": USED_ONLY, "max_cny": 3000}),
    ("不要二手，不租，预算5000元", {"cond": NEW_ONLY, "no_cloud": True, "max_cny": 5000}),
    ("二手也行，推荐一张卡", {"cond": USED_OK}),
    ("at 4 hours a day, is renting a 4090 cheaper than buying", {"kinds": {RB}, "hours": 4}),
    # nothing price-related
    ("is 8 a good batch size for a 3090", {}),
    ("batch 8 on a 3090 is fine?", {}),
    ("can a 3090 run llama 3 8b", {}),
    ("how much vram does llama 2 70b need", {}),
]


@pytest.mark.parametrize("question, want", TABLE, ids=[q for q, _ in TABLE])
def test_phrasing(cat, question, want):
    r = pp.parse_price_question(question, cat)
    assert set(r.kinds) == want.get("kinds", set()), r.kinds
    got_quotes = []
    for q in r.quotes:
        gid = q.gpu if q.gpu else "|".join(sorted(q.gpu_ids))  # a family: the caller asks back
        got_quotes.append((gid, q.amount, q.currency, q.condition))
    assert got_quotes == [(g, float(a), c, cond) for g, a, c, cond in want.get("quotes", [])]
    assert r.filters.condition == want.get("cond")
    assert r.filters.no_cloud == want.get("no_cloud", False)
    if "max_usd" in want:
        assert r.filters.max_usd == pytest.approx(want["max_usd"])
    elif "max_eur" in want:
        assert (r.filters.max_amount, r.filters.max_currency) == (want["max_eur"], "EUR")
    elif "max_cny" in want:
        assert (r.filters.max_amount, r.filters.max_currency) == (want["max_cny"], "CNY")
    else:
        assert r.filters.max_usd is None
    assert r.hours_per_day == want.get("hours")
    if "kwh" in want:
        assert r.kwh is not None and (round(r.kwh.amount, 4), r.kwh.currency) == want["kwh"]
    else:
        assert r.kwh is None
    assert r.resale_years == want.get("years")


def test_table_is_large_and_bilingual():
    assert len(TABLE) >= 40
    assert sum(1 for q, _ in TABLE if any("\u4e00" <= ch <= "\u9fff" for ch in q)) >= 8


def test_quote_usd_uses_the_dated_rate(cat):
    (q,) = pp.quoted_prices("二手3090 4500元", cat)
    assert q.usd == pytest.approx(4500 * cat.currencies["CNY"].usd_per_unit)
    (h,) = pp.quoted_prices("rent an h100 sxm at $2.50/hr", cat)
    assert h.hourly and h.gpu == "h100-sxm" and h.amount == 2.5


def test_limits_are_filters_not_quotes(cat):
    assert pp.quoted_prices("best 3090 alternative under $600", cat) == []
    f = pp.price_filters("best 3090 alternative under $600", cat)
    assert f.max_usd == 600


def test_garbage_never_raises(cat):
    for text in ("", "   ", "$$$", "¥", "4090 for", "rent" * 200, "0.3 €/kWh", "电费", "\x00\x01"):
        pp.parse_price_question(text, cat)


def test_says_something_is_false_only_when_the_reader_finds_nothing_but_a_limit(cat) -> None:
    # the parser skips parse_price_question when says_something is False: on every question of the
    # table and the corpora, False must mean no kind, quote, hours, kWh price, resale years,
    # condition or "no cloud" (a limit alone, "under $500", is the budget reader's)
    from pathlib import Path

    from bot.core.yaml_io import safe_load

    root = Path(__file__).resolve().parents[2]
    texts = [q for q, _ in TABLE] + ["what gpu for qwen 2.5 32b under $300", "a 3090 for 650 at 0.3 €/kWh?"]
    for rel in ("tests/corpus/questions.yaml", "tests/core/questions.yaml"):
        for row in safe_load((root / rel).read_text(encoding="utf-8")):
            if isinstance(row, dict) and isinstance(row.get("q"), str):
                texts.append(row["q"])
    silent = 0
    for text in texts:
        if pp.says_something(text, cat):
            continue
        silent += 1
        pq = pp.parse_price_question(text, cat)
        assert not (pq.kinds or pq.quotes or pq.hours_per_day or pq.kwh or pq.resale_years), text
        assert pq.filters.condition is None and not pq.filters.no_cloud, text
    assert 0 < silent < len(texts)
    assert not pp.says_something("what gpu for qwen 2.5 32b under $300", cat)
    assert pp.says_something("is a 3090 for $650 a good deal", cat)
