"""Rent one card or buy another (issue 10): "rent an A100 or buy a 3090?", "租A100划算还是自己买3090".

Read as rent-or-buy (never a comparison that asks back which A100), the rented family taken as the
variant its rental prices are for (and said), the answer's figures those of the cost engine with the
rented card's own rent prices, the speed ratio the speed model's, and both languages alike.
"""

from __future__ import annotations

import pytest

from bot.core import costs
from bot.core import prices as P
from bot.core.answer import answer
from bot.core.knowledge import get_catalog
from bot.core.matching import get_matcher, normalize, tokenize
from bot.core.types import Context, Intent, Lang, Task
from bot.core.understand import rent_buy

CAT = get_catalog()


def _roles(text: str) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    norm = normalize(text)
    ms = [m for m in get_matcher(CAT).mentions(norm, "gpu", tokenize(norm))]
    got = rent_buy.roles(norm, ms)
    return None if got is None else (got[0].ids, got[1].ids)


@pytest.mark.parametrize(
    "text,rent,buy",
    [
        ("rent an a100 or buy a 3090?", "a100", "rtx-3090"),
        ("租a100划算还是自己买3090", "a100", "rtx-3090"),
        ("is renting an h100 cheaper than buying a 4090", "h100", "rtx-4090"),
        ("should i buy a used 3090 or rent a 4090 on runpod", "rtx-4090", "rtx-3090"),
        ("buy a 3090 or a 4090 on runpod?", "rtx-4090", "rtx-3090"),  # rented: said after the card
    ],
)
def test_roles_read_which_card_is_rented_and_which_bought(text: str, rent: str, buy: str) -> None:
    got = _roles(text)
    assert got is not None
    assert any(rent in g for g in got[0]) and got[1] == (buy,)


@pytest.mark.parametrize(
    "text",
    ["rent or buy a 4090", "3090 or 4090?", "rent or buy: 3090 or 4090?", "buy a 3090 or buy a 4090"],
)
def test_no_roles_unless_one_card_is_rented_and_another_bought(text: str) -> None:
    assert _roles(text) is None


def test_the_rental_variant_has_the_most_observed_rent_prices() -> None:
    book = P.book(CAT)
    for fam in (("a100-40gb", "a100-80gb"), ("h100-pcie", "h100-sxm")):
        got = rent_buy.rental_variant(CAT, fam, fam[0])

        def observed(g: str) -> int:
            return sum(1 for x in book.for_gpu(g) if x.kind is P.PriceKind.CLOUD and not x.estimated)

        assert observed(got) == max(observed(g) for g in fam)


@pytest.mark.parametrize(
    "text,buy,rent,model",
    [
        ("rent an A100 or buy a 3090?", "rtx-3090", "a100-80gb", None),
        ("租A100划算还是自己买3090", "rtx-3090", "a100-80gb", None),
        (
            "is renting an H100 cheaper than buying a 4090 for fine-tuning llama 3 8b",
            "rtx-4090",
            "h100-sxm",
            "llama-3-8b",
        ),
        ("should I buy a used 3090 or rent a 4090 on runpod", "rtx-3090", "rtx-4090", None),
    ],
)
def test_rent_one_buy_other_is_answered_as_rent_or_buy(
    text: str, buy: str, rent: str, model: str | None
) -> None:
    a = answer(text, catalog=CAT)
    d = a.to_json()
    assert a.intent is Intent.RENT_OR_BUY and not a.query.needs_clarification and d["choices"] == []
    assert set(d["gpus"]) == {buy, rent}
    c = d["costs"]
    assert c["gpu"] == buy and c["own"] is not None
    assert c["rent"] and {r["gpu"] for r in c["rent"]} == {rent}  # that card's rent prices, not the defaults
    x = c["rent_card"]
    assert (x["buy_gpu"], x["rent_gpu"], x["workload"]) == (buy, rent, model or "generic")
    # the speed ratio is the speed model's for the workload (the same work, like with like)
    speeds = costs.relative_speeds(CAT, model, a.query.task, a.query.precision)
    assert x["relative_speed"] == pytest.approx(speeds[rent] / speeds[buy], rel=1e-3)
    assert x["rent_usd_per_work_hour"] == pytest.approx(
        x["rent_usd_per_hour"] / x["relative_speed"], rel=1e-2
    )
    assert x["own_usd_per_hour"] == pytest.approx(c["own"]["usd"] / c["own"]["hours"], rel=1e-2)
    # break-even: price - resale = H x (rent per hour of work - electricity per hour)
    own = c["own"]
    elec_h = own["electricity_usd"] / own["hours"]
    assert x["break_even_hours"] == pytest.approx(
        (own["price_usd"] - own["resale_usd"]) / (x["rent_usd_per_work_hour"] - elec_h), rel=0.01, abs=1
    )
    if a.language is Lang.EN:
        assert f"{x['relative_speed']:.1f}x as fast" in a.text
        assert "Which A100" not in a.text


def test_the_rented_family_is_said_as_taken() -> None:
    en = answer("rent an A100 or buy a 3090?", catalog=CAT)
    assert "A100 SXM4 80 GB, the variant the rental prices are for" in en.text
    zh = answer("租A100划算还是自己买3090", catalog=CAT)
    assert "租用报价都是这一款的" in zh.text and zh.language is Lang.ZH_HANS
    assert en.to_json()["costs"] == zh.to_json()["costs"]  # the same figures in both languages


def test_hours_a_day_said_give_the_months_at_that_use() -> None:
    x = answer("rent a 4090 or buy a 3090 for llama 3 8b inference, 8 hours a day", catalog=CAT).to_json()
    r = x["costs"]["rent_card"]
    assert r["hours_per_day"] == 8 and x["task"] == Task.INFERENCE.value
    assert r["break_even_months"] == pytest.approx(
        r["break_even_hours"] / (8 * costs.DAYS_PER_MONTH), abs=0.06
    )


def test_one_card_rent_or_buy_is_unchanged() -> None:
    d = answer("rent or buy a 4090", catalog=CAT).to_json()
    assert d["intent"] == "rent_or_buy" and "rent_card" not in d["costs"]
    assert d["costs"] == costs.rent_or_buy(CAT, "rtx-4090").to_json()


def test_two_cards_without_rent_and_buy_still_compare() -> None:
    a = answer("l40s or a100?", catalog=CAT)
    assert a.intent is Intent.COMPARE and a.query.needs_clarification  # which A100: the answer differs


def test_a_follow_up_keeps_the_rented_card() -> None:
    first = answer("rent an A100 or buy a 3090?", Context(), catalog=CAT)
    d = answer("and at 8 hours a day?", first.context, catalog=CAT).to_json()
    assert d["intent"] == "rent_or_buy" and d["costs"]["rent_card"]["rent_gpu"] == "a100-80gb"
    assert d["costs"]["rent_card"]["hours_per_day"] == 8


def test_a_model_that_does_not_fit_the_card_to_buy_is_said_first() -> None:
    a = answer("rent an a100 or buy a 3090 for llama 3 70b in 4bit", catalog=CAT)
    x = a.to_json()["costs"]["rent_card"]
    assert x["fits_buy"] is False and x["fits_rent"] is True and x["required_gb"] > 24
    assert a.verdict.startswith("The RTX 3090 24 GB cannot do this work as asked")
    zh = answer("租a100还是买3090跑llama 3 70b 4bit", catalog=CAT)
    assert zh.verdict.startswith("按你说的设置，RTX 3090 24 GB 干不了这个活")


def test_fit_is_said_for_each_card_with_the_memory_model() -> None:
    from bot.core.recommend import fit_estimate

    a = answer("rent a 4090 or buy an a6000 for llama 3 70b in 4bit", catalog=CAT)
    x = a.to_json()["costs"]["rent_card"]
    model = CAT.models["llama-3-70b"]
    assert x["fits_buy"] is fit_estimate(CAT, model, CAT.gpus["rtx-a6000"], a.query).fits
    assert x["fits_rent"] is fit_estimate(CAT, model, CAT.gpus["rtx-4090"], a.query).fits
    lo, hi = x["required_gb_band"]
    assert lo <= x["required_gb"] <= hi  # modelled: with its band
    if x["fits_rent"] is False:
        assert "does not fit the RTX 4090 24 GB" in a.text
    zh = answer("租4090还是买a6000跑llama 3 70b 4bit", catalog=CAT)
    assert zh.to_json()["costs"]["rent_card"]["fits_rent"] == x["fits_rent"]


def test_no_fit_line_without_a_model() -> None:
    x = answer("rent an A100 or buy a 3090?", catalog=CAT).to_json()["costs"]["rent_card"]
    assert x["fits_buy"] is None and x["required_gb"] is None


def test_a_card_without_a_rental_price_is_said_and_the_usual_options_costed() -> None:
    unpriced = next(
        g
        for g in ("rtx-a6000", "rtx-3060-12gb", "rtx-4060-ti-16gb")
        if g in CAT.gpus and not P.cloud_prices(CAT, g)
    )
    name = {"rtx-a6000": "a6000", "rtx-3060-12gb": "3060 12gb", "rtx-4060-ti-16gb": "4060 ti 16gb"}[unpriced]
    a = answer(f"rent a {name} or buy a 4090?", catalog=CAT)
    d = a.to_json()["costs"]
    assert a.intent is Intent.RENT_OR_BUY and d["rent_card_unpriced"] == unpriced and "rent_card" not in d
    assert d["rent"] and "I have no rental price" in a.text


def test_renting_cheaper_than_the_electricity_is_said_as_never_paying_off() -> None:
    from dataclasses import replace

    from bot.core.engine.prices import rent_buy_result
    from bot.core.phrase.common import Env
    from bot.core.phrase.prices import rent_buy

    q = answer("rent an A100 or buy a 3090?", catalog=CAT).query
    r = rent_buy_result(CAT, q)
    never = replace(r, rent_card=replace(r.rent_card, break_even_hours=None, break_even_months=None))
    en = rent_buy(Env(lang=Lang.EN), never).verdict
    zh = rent_buy(Env(lang=Lang.ZH_HANS), never).verdict
    assert (
        en.startswith("Rent the A100 SXM4 80 GB rather than buy the RTX 3090 24 GB")
        and "never pays off" in en
    )
    assert "永远回不了本" in zh


def test_counts_said_stay_with_their_cards_and_are_said_as_not_costed() -> None:
    a = answer("should i rent an h100 or buy two 3090s", catalog=CAT)
    d = a.to_json()
    counts = dict(zip(d["gpus"], d["gpu_counts"], strict=True))
    assert counts["rtx-3090"] == 2 and counts[d["costs"]["rent_card"]["rent_gpu"]] == 1
    assert d["costs"]["rent_card"]["counts_said"] == [2, 1]
    assert "Costed card for card" in a.text
    one = answer("should i rent an h100 or buy a 3090", catalog=CAT)
    assert one.to_json()["gpu_counts"] == [1, 1] and "Costed card for card" not in one.text
