"""Rent or buy, deal verdicts, job costs and the price sanity rules, on a price book whose
numbers are set here so the arithmetic can be checked by hand (working in the comments)."""

from __future__ import annotations

import datetime as dt
import json
import math
import shutil
from pathlib import Path

import pytest
import yaml

from bot.core import costs as C
from bot.core import prices as P
from bot.core.knowledge import get_catalog, load_catalog
from bot.core.recommend import best_value_of, recommend
from bot.core.types import Intent, Precision, Query, Task
from bot.core.yaml_io import safe_load

SHIPPED = Path(__file__).resolve().parents[2] / "knowledge"
TODAY = dt.date(2026, 12, 3)
MKT, SPEC, HYPER = P.ProviderKind.MARKETPLACE, P.ProviderKind.SPECIALIST, P.ProviderKind.HYPERSCALER


def e(gpu, kind, price, date, **kw):
    return {"gpu": gpu, "kind": kind, "price": price, "currency": "USD", "date": date, "source": "test", **kw}


BOOK = [
    e("rtx-4090", "new", 2000, "2026-11", sub="street"),
    e("rtx-4090", "used", 1875, "2025-11"),
    e("rtx-4090", "used", 1500, "2026-11"),
    e("rtx-4090", "cloud", 0.50, "2026-11", provider_kind="marketplace"),
    e("rtx-4090", "cloud", 0.70, "2026-11", provider_kind="specialist"),
    e("h100-sxm", "cloud", 2.50, "2026-11", provider_kind="specialist"),
    e("rtx-3090", "used", 750, "2026-11"),
    e("rtx-3090-ti", "new", 1000, "2026-11", sub="street"),
    e("rtx-3090-ti", "used", 800, "2026-11"),
    e("rtx-3060-12gb", "used", 225, "2026-11"),
    e("rtx-5090", "new", 3000, "2026-03", sub="street", estimated=True),
]


@pytest.fixture(scope="module")
def cat(tmp_path_factory):
    k = tmp_path_factory.mktemp("k") / "knowledge"
    shutil.copytree(SHIPPED, k)
    (k / P.IMPORTED_FILE).unlink(missing_ok=True)
    src = safe_load((SHIPPED / P.PRICES_FILE).read_text(encoding="utf-8"))
    (k / P.PRICES_FILE).write_text(
        yaml.safe_dump({"prices": BOOK, "used_risks": src["used_risks"], "defaults": src["defaults"]}),
        encoding="utf-8",
    )
    return load_catalog(k)


def own_rent(cat, **kw):
    args = dict(
        hours_per_day=4,
        years=2,
        kwh_price=0.25,
        condition="new",
        rent_options=[("rtx-4090", MKT), ("rtx-4090", SPEC)],
        today=TODAY,
    )
    args.update(kw)
    return C.rent_or_buy(cat, "rtx-4090", **args)


# --------------------------------------------------------------------------- rent or buy


def test_break_even_arithmetic(cat):
    r = own_rent(cat)
    # hours of use: 4 h/day x 30.4375 days/month x 12 x 2 years = 2922 h
    assert r.own.hours == pytest.approx(2922.0)
    # electricity: 450 W board power -> 0.45 kW x 2922 h = 1314.9 kWh x 0.25 USD = 328.725 USD
    assert r.own.kwh == pytest.approx(1314.9)
    assert r.own.electricity_usd == pytest.approx(328.725)
    # resale: used prices 1875 (2025-11) -> 1500 (2026-11): retention 1500/1875 = 0.8 a year;
    # after 2 years: 1500 x 0.8^2 = 960 USD
    assert r.own.resale_basis is C.ResaleBasis.USED_TREND
    assert r.own.resale_usd == pytest.approx(960.0)
    # owning: 2000 (new street) + 328.725 - 960 = 1368.725 USD
    assert r.own.usd == pytest.approx(1368.725)
    mkt, spec = r.rent
    # renting the same card for the same 2922 h: 0.50 x 2922 = 1461; 0.70 x 2922 = 2045.4
    assert (mkt.hours, mkt.usd) == (pytest.approx(2922.0), pytest.approx(1461.0))
    assert spec.usd == pytest.approx(2045.4)
    # break-even vs 0.50/h: (2000 - 960) / (0.50 - 0.45 x 0.25) = 1040 / 0.3875 = 2683.87 h,
    # at 4 h/day: 2683.87 / (4 x 30.4375) = 22.04 months
    assert mkt.break_even_hours == pytest.approx(2683.87, abs=0.01)
    assert mkt.break_even_months == pytest.approx(22.04, abs=0.01)
    # vs 0.70/h: 1040 / (0.70 - 0.1125) = 1770.21 h
    assert spec.break_even_hours == pytest.approx(1770.21, abs=0.01)
    # the top-level figure is against the cheapest option; owning 1368.7 < renting 1461
    assert r.break_even_hours == pytest.approx(2683.87, abs=0.01)
    assert r.verdict is C.CostVerdict.BUY


def test_fewer_hours_a_day_makes_renting_cheaper(cat):
    r = own_rent(cat, hours_per_day=1)
    # 1 h/day x 365.25 x 2 = 730.5 h; owning 2000 + 0.1125 x 730.5 - 960 = 1122.18;
    # renting 0.50 x 730.5 = 365.25
    assert r.own.usd == pytest.approx(1122.18, abs=0.01)
    assert r.rent[0].usd == pytest.approx(365.25)
    assert r.verdict is C.CostVerdict.RENT
    # break-even hours do not depend on hours a day; months do: 2683.87 / 30.4375 = 88.18
    assert r.break_even_hours == pytest.approx(2683.87, abs=0.01)
    assert r.break_even_months == pytest.approx(88.18, abs=0.01)


def test_quoted_price_overrides_the_book(cat):
    r = own_rent(cat, price_usd=1200)
    assert r.own.price.usd == 1200 and r.own.price_given and r.own.price.origin == "quoted"
    a = {x.code: x for x in r.assumptions}
    assert a[C.AssumptionCode.PURCHASE_PRICE].given and a[C.AssumptionCode.PURCHASE_PRICE].value == 1200
    # break-even vs 0.50/h: (1200 - 960) / 0.3875 = 619.35 h
    assert r.break_even_hours == pytest.approx(619.35, abs=0.01)


def test_every_assumption_is_named_with_whether_the_user_gave_it(cat):
    r = C.rent_or_buy(cat, "rtx-4090", hours_per_day=6, today=TODAY)
    a = {x.code: x for x in r.assumptions}
    assert a[C.AssumptionCode.HOURS_PER_DAY].given and a[C.AssumptionCode.HOURS_PER_DAY].value == 6
    assert not a[C.AssumptionCode.YEARS].given and a[C.AssumptionCode.YEARS].value == C.DEFAULT_YEARS
    assert not a[C.AssumptionCode.KWH_PRICE].given and a[C.AssumptionCode.KWH_PRICE].value == 0.18
    assert "EIA" in a[C.AssumptionCode.KWH_PRICE].source
    assert a[C.AssumptionCode.POWER_W].value == 450
    assert {
        C.AssumptionCode.RESALE_RETENTION,
        C.AssumptionCode.PURCHASE_PRICE,
        C.AssumptionCode.WORKLOAD,
    } <= set(a)


def test_kwh_price_in_euros_is_converted(cat):
    r = own_rent(cat, kwh_price=0.30, kwh_currency="EUR")
    eur = cat.currencies["EUR"].usd_per_unit
    assert r.own.electricity_usd == pytest.approx(1314.9 * 0.30 * eur)
    a = {x.code: x for x in r.assumptions}[C.AssumptionCode.KWH_PRICE]
    assert a.given and a.value == pytest.approx(0.30 * eur)


def test_without_a_trend_resale_is_a_stated_assumption(cat):
    # the 3090 has one used price: resale = 750 x 0.8^3 = 384 with the assumed retention
    r = C.rent_or_buy(cat, "rtx-3090", years=3, condition="used", today=TODAY)
    assert r.own.resale_basis is C.ResaleBasis.ASSUMED
    assert r.own.resale_usd == pytest.approx(750 * 0.8**3)
    a = {x.code: x for x in r.assumptions}[C.AssumptionCode.RESALE_RETENTION]
    assert a.estimated and not a.given and a.value == C.ASSUMED_RETENTION_PER_YEAR


def test_faster_rented_card_needs_fewer_hours(cat):
    r = own_rent(cat, rent_options=[("h100-sxm", SPEC)])
    (h,) = r.rent
    rel = C.relative_speeds(cat)["h100-sxm"] / C.relative_speeds(cat)["rtx-4090"]
    assert rel > 1 and h.relative_speed == pytest.approx(rel)
    assert h.hours == pytest.approx(2922.0 / rel)
    assert h.usd == pytest.approx(2922.0 / rel * 2.50)
    assert h.break_even_hours == pytest.approx(1040 / (2.50 / rel - 0.1125))


def test_default_rent_options_are_the_same_card_and_faster_ones(cat):
    r = C.rent_or_buy(cat, "rtx-4090", today=TODAY)
    same = [x for x in r.rent if x.same_card]
    faster = [x for x in r.rent if not x.same_card]
    assert {x.provider_kind for x in same} == {MKT, SPEC}
    assert faster and all(x.relative_speed >= 1 for x in faster)
    assert all(cat.gpu(x.gpu).vram_gb >= 24 for x in faster)


def test_json_shape_and_no_nan(cat):
    j = own_rent(cat).to_json()
    assert set(j) >= {"own", "rent", "break_even_hours", "assumptions"}
    assert set(j["rent"][0]) >= {"gpu", "provider_kind", "usd_per_hour", "hours", "usd"}
    text = json.dumps(j, allow_nan=False)
    assert "NaN" not in text and "Infinity" not in text


def test_never_breaks_even_when_rent_is_below_electricity(cat):
    cheap = own_rent(cat, kwh_price=2.0)  # 0.45 x 2.0 = 0.90/h electricity > 0.70/h rent
    assert all(x.break_even_hours is None for x in cheap.rent)
    assert cheap.break_even_hours is None and cheap.verdict is C.CostVerdict.RENT
    assert json.dumps(cheap.to_json(), allow_nan=False)


def test_stale_prices_are_reported(cat):
    r = C.rent_or_buy(cat, "rtx-5090", condition="new", rent_options=[("rtx-4090", MKT)], today=TODAY)
    assert r.stale_dates == ("2026-03",)  # the 5090 street estimate is 9 months old
    assert own_rent(cat).stale_dates == ()


def test_bad_inputs_are_refused(cat):
    with pytest.raises(KeyError):
        C.rent_or_buy(cat, "rtx-9999")
    with pytest.raises(ValueError):
        C.rent_or_buy(cat, "rtx-4090", hours_per_day=30)
    with pytest.raises(ValueError):
        C.rent_or_buy(cat, "rtx-4090", kwh_price=0.3, kwh_currency="XYZ")


# --------------------------------------------------------------------------- deals


@pytest.mark.parametrize(
    "quote, verdict, code",
    [
        (650, C.DealCode.GOOD, C.ReasonCode.BELOW_MARKET),  # 650 / 750 = 0.867 <= 0.90
        (800, C.DealCode.FAIR, C.ReasonCode.AT_MARKET),  # 800 / 750 = 1.067 <= 1.10
        (900, C.DealCode.POOR, C.ReasonCode.ABOVE_MARKET),  # 900 / 750 = 1.20
    ],
)
def test_deal_verdict_against_the_used_price(cat, quote, verdict, code):
    d = C.deal_verdict(cat, "rtx-3090", quote, "used", today=TODAY)
    assert d.verdict is verdict and d.reasons[0].code is code
    assert d.ratio == pytest.approx(quote / 750)
    assert d.reference.usd == 750 and d.reference.date == "2026-11"
    assert {r.code for r in d.risks} >= {"mining_wear", "no_warranty"}
    assert all(r.source for r in d.risks)


def test_used_at_or_above_the_new_price_is_poor(cat):
    d = C.deal_verdict(cat, "rtx-3090-ti", 1050, "used", today=TODAY)
    codes = [r.code for r in d.reasons]
    assert d.verdict is C.DealCode.POOR and C.ReasonCode.ABOVE_NEW_PRICE in codes


def test_a_cheaper_card_doing_the_same_work_caps_the_verdict(cat):
    # a used 3090 Ti at 800 is at least as fast and as big as a 3090, and 800 <= 0.9 x 900
    d = C.deal_verdict(cat, "rtx-3090", 900, "used", today=TODAY)
    alt = [r for r in d.reasons if r.code is C.ReasonCode.CHEAPER_ALTERNATIVE]
    assert alt and alt[0].values["gpu"] == "rtx-3090-ti" and alt[0].values["usd"] == 800
    good = C.deal_verdict(cat, "rtx-3090", 600, "used", today=TODAY)  # 800 > 0.9 x 600: no alternative
    assert good.verdict is C.DealCode.GOOD and not good.alternatives


def test_condition_is_inferred_and_new_quotes_carry_no_used_risks(cat):
    d = C.deal_verdict(cat, "rtx-4090", 1900, today=TODAY)  # below the 2000 street price
    assert d.condition is C.Condition.USED and not d.condition_given
    n = C.deal_verdict(cat, "rtx-4090", 1900, "new", today=TODAY)
    assert n.condition is C.Condition.NEW and n.risks == () and n.verdict is C.DealCode.FAIR  # 0.95


def test_stale_or_estimated_reference_is_a_reason(cat):
    d = C.deal_verdict(cat, "rtx-5090", 2900, "new", today=TODAY)
    codes = {r.code for r in d.reasons}
    assert {C.ReasonCode.REFERENCE_ESTIMATED, C.ReasonCode.REFERENCE_STALE} <= codes


def test_quoted_euro_price_is_judged_in_dollars(cat):
    from bot.core.price_parse import quoted_prices

    (q,) = quoted_prices("4090 at 1,800 €", cat)
    # 1,800 EUR x 1.17 = 2,106 USD; / 2,000 street = 1.053: fair
    assert q.usd == pytest.approx(1800 * cat.currencies["EUR"].usd_per_unit)
    d = C.deal_verdict(cat, q.gpu, q.usd, "new", today=TODAY)
    assert d.verdict is C.DealCode.FAIR and d.ratio == pytest.approx(q.usd / 2000)


def test_deal_json_is_clean(cat):
    d = C.deal_verdict(cat, "rtx-3090", 650, today=TODAY)
    j = json.loads(json.dumps(d.to_json(), allow_nan=False))
    assert j["verdict"] == "good" and j["reasons"][0]["code"] == "below_market"


# --------------------------------------------------------------------------- job cost


def test_job_cost_needs_time_to_train(cat):
    j = C.job_cost(cat, own_gpu="rtx-4090", rent_gpus=["h100-sxm"])
    assert j.status is C.JobStatus.NEEDS_TIME_TO_TRAIN and j.needs == ("time_to_train_hours",)
    assert j.to_json()["rent"] == []


def test_job_cost_with_time_to_train(cat):
    j = C.job_cost(
        cat, own_gpu="rtx-4090", rent_gpus=["h100-sxm"], hours=100, model_id="llama-3-8b",
        task=Task.FINETUNE, precision=Precision.BF16, kwh_price=0.25,
    )  # fmt: skip
    # 100 h on the 4090: electricity 0.45 kW x 100 h x 0.25 = 11.25 USD
    assert j.own_hours == pytest.approx(100) and j.own_electricity_usd == pytest.approx(11.25)
    (h,) = j.rent
    assert h.hours == pytest.approx(100 / h.relative_speed) and h.usd == pytest.approx(h.hours * 2.50)


# --------------------------------------------------------------------------- price sanity


def test_older_generation_at_the_3060_price_is_flagged():
    cat = get_catalog()
    flagged = {
        g
        for g in cat.gpus
        if any(f.code is C.SanityCode.OLDER_GEN_AT_3060_PRICE for f in C.price_sanity(cat, g))
    }
    assert {"rtx-2060", "rtx-2070", "rtx-2080"} <= flagged
    assert not flagged & {"rtx-3060-12gb", "rtx-3060-ti", "rtx-4060-ti-16gb", "rtx-3090"}
    # the 2080 Ti (11 GB, 1.9x the 3060's speed) is older but not worse at that price: not flagged
    assert "rtx-2080-ti" not in flagged
    (f,) = C.price_sanity(cat, "rtx-2070")
    assert (
        f.values["reference_usd"] == P.purchase_price(cat, "rtx-3060-12gb").usd and f.values["bf16"] is False
    )


def test_estimate_older_than_a_newer_siblings_street_price_is_flagged(cat):
    # shipped catalog: the A10's used price is an estimate dated 2026-05; the L4 (same vendor and
    # segment, released later) has an observed street price dated 2026-06
    shipped = get_catalog()
    f = C.price_sanity(shipped, "a10")
    assert f and f[0].code is C.SanityCode.ESTIMATE_OLDER_THAN_SIBLING_STREET
    assert f[0].values["sibling_date"] > f[0].values["date"]
    assert not C.price_sanity(shipped, "l4")  # its own price is observed


BUDGETS = (300, 500, 800, 1000, 1500, 2000)
MODELS = ("bert-base", "resnet-50", "llama-3-8b", "sdxl")


def test_best_value_never_rests_on_a_flagged_price():
    """Best value among the recommender's real pools, with flagged cards left out, is never an
    older-generation card at the 3060's price nor an estimate older than a newer sibling's street
    price; and leaving them out changes the pick where the unfiltered pool would pick one
    (the README's 'RTX 2070 best $/perf' for BERT under $1000)."""
    cat = get_catalog()
    changed = 0
    for mid in MODELS:
        model = cat.model(mid)
        for budget in BUDGETS:
            res = recommend(cat, model, Query(intent=Intent.RECOMMEND, budget_usd=float(budget)))
            pool = list(res.in_budget)
            if not pool:
                continue
            sane = [c for c in pool if not C.price_sanity(cat, c.gpu.id)]
            if not sane:
                continue
            pick = best_value_of(sane)
            assert not C.price_sanity(cat, pick.gpu.id), (mid, budget, pick.gpu.id)
            if pick.gpu.architecture.lower() in C.OLDER_ARCHITECTURES:
                # an older card is only named best value when it beats the 3060 12 GB outright
                speeds = C.relative_speeds(cat)
                assert speeds[pick.gpu.id] > speeds["rtx-3060-12gb"], (mid, budget, pick.gpu.id)
                assert pick.gpu.vram_gb >= 11, (mid, budget, pick.gpu.id)
            changed += best_value_of(pool) is not pick
    assert changed >= 1
    assert math.isfinite(changed)


# --------------------------------------------------------------------------- filters and quotes


@pytest.mark.parametrize(
    "gpu, condition, max_usd, want",
    [
        # new only: the street price, never a launch MSRP; a card with no new price drops out
        ("rtx-4090", "new_only", None, (2000, "new")),
        ("rtx-3090", "new_only", None, None),
        # used only: the used price; a card sold only new drops out
        ("rtx-4090", "used_only", None, (1500, "used")),
        ("rtx-5090", "used_only", None, None),
        # used is fine / no filter: the cheaper of new and used
        ("rtx-4090", "used_ok", None, (1500, "used")),
        ("rtx-4090", None, None, (1500, "used")),
        ("rtx-5090", None, None, (3000, "new")),
        # "only used cards under $500 / $1000"
        ("rtx-3090", "used_only", 1000, (750, "used")),
        ("rtx-4090", "used_only", 1000, None),
        ("rtx-3060-12gb", "used_only", 500, (225, "used")),
    ],
)
def test_each_filter_picks_the_price_it_says(cat, gpu, condition, max_usd, want):
    q = P.filtered_price(cat, gpu, condition, max_usd)
    assert (None if q is None else (q.usd, q.kind.value)) == want


def test_quoted_price_overrides_the_catalog_within_the_filter(cat):
    mine = {"rtx-3090": P.quoted("rtx-3090", 650, P.PriceKind.USED, TODAY)}
    q = P.filtered_price(cat, "rtx-3090", None, None, mine)
    assert (q.usd, q.origin, q.date, q.source) == (650, "quoted", "2026-12-03", "quoted by the user")
    assert P.filtered_price(cat, "rtx-3090", "used_only", 600, mine) is None  # still above the limit
    assert P.filtered_price(cat, "rtx-3090", "new_only", None, mine) is None  # a used quote is not new
    assert P.filtered_price(cat, "rtx-4090", None, None, mine).usd == 1500  # other cards keep the book


def test_a_quote_below_new_counts_as_used_and_resale_follows_the_market(cat):
    r = C.rent_or_buy(cat, "rtx-3090", price_usd=650, years=1, rent_options=[("rtx-4090", MKT)], today=TODAY)
    assert r.own.price.kind is P.PriceKind.USED
    assert r.own.resale_usd == pytest.approx(750 * 0.8)  # the market's 750, not the 650 paid


def test_default_faster_options_are_cards_people_rent(cat):
    r = C.rent_or_buy(cat, "rtx-4090", today=TODAY)
    assert {x.gpu for x in r.rent if not x.same_card} <= set(C.DEFAULT_RENT_CANDIDATES)
    named = C.rent_or_buy(cat, "rtx-4090", rent_options=[("b200", None)], today=TODAY)
    assert [x.gpu for x in named.rent] == ["b200"]


def test_every_card_gets_clean_typed_results():
    cat = get_catalog()
    for gid in cat.gpus:
        r = C.rent_or_buy(cat, gid, today=TODAY)
        j = json.loads(json.dumps(r.to_json(), allow_nan=False))
        if r.own is not None:
            assert r.own.usd == pytest.approx(r.own.price.usd + r.own.electricity_usd - r.own.resale_usd)
            assert (
                0
                <= r.own.resale_usd
                <= max(r.own.price.usd, P.used_price(cat, gid).usd if P.used_price(cat, gid) else 0)
            )
        assert all(x["hours"] > 0 and x["usd"] > 0 for x in j["rent"])
        assert (r.verdict is C.CostVerdict.NO_PRICE) == (r.own is None or not r.rent)
        for quote in (100, 1000, 10000):
            d = C.deal_verdict(cat, gid, quote, today=TODAY)
            json.dumps(d.to_json(), allow_nan=False)
            assert (d.verdict is C.DealCode.UNKNOWN) == (d.reference is None)
            assert bool(d.risks) == (d.condition is C.Condition.USED)
