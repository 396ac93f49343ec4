"""The price book: the shipped prices.yaml loads, every card people buy or rent has dated,
sourced prices, broken entries fail naming file/entry/field, lookups take the newest price,
fall back to gpus.yaml, and staleness is judged in one place."""

from __future__ import annotations

import datetime as dt
import shutil
from pathlib import Path

import pytest
import yaml

from bot.core import prices as P
from bot.core.knowledge import KnowledgeError, get_catalog, load_catalog

SHIPPED = Path(__file__).resolve().parents[2] / "knowledge"
TODAY = dt.date(2026, 12, 3)

BOUGHT_OR_RENTED = [
    "rtx-3060-12gb", "rtx-3070", "rtx-3080-10gb", "rtx-3090", "rtx-3090-ti", "rtx-4060-ti-16gb",
    "rtx-4070-ti-super", "rtx-4080-super", "rtx-4090", "rtx-5070-ti", "rtx-5080", "rtx-5090",
    "rtx-a6000", "rtx-6000-ada", "l4", "l40s", "a100-40gb", "a100-80gb", "h100-pcie", "h100-sxm",
    "h200", "b200", "instinct-mi300x", "rx-7900-xtx",
]  # fmt: skip
RENTED = [
    "rtx-3090",
    "rtx-4090",
    "rtx-5090",
    "l4",
    "l40s",
    "a100-80gb",
    "h100-pcie",
    "h100-sxm",
    "h200",
    "b200",
]


@pytest.fixture(scope="module")
def cat():
    return get_catalog()


@pytest.fixture
def kdir(tmp_path: Path) -> Path:
    k = tmp_path / "knowledge"
    shutil.copytree(SHIPPED, k)
    (k / P.IMPORTED_FILE).unlink(missing_ok=True)
    return k


def write_book(k: Path, prices: list[dict], **extra) -> None:
    (k / P.PRICES_FILE).write_text(yaml.safe_dump({"prices": prices, **extra}), encoding="utf-8")


def entry(**kw) -> dict:
    base = {
        "gpu": "rtx-3090",
        "kind": "used",
        "price": 700,
        "currency": "USD",
        "date": "2026-11",
        "source": "t",
    }
    base.update(kw)
    return {k: v for k, v in base.items() if v is not None}


# --------------------------------------------------------------------------- shipped data


def test_shipped_book_loads_into_the_catalog(cat):
    assert isinstance(cat.prices, P.PriceBook)
    assert len(cat.prices) >= 60
    assert {r.code for r in cat.prices.used_risks} >= {"mining_wear", "no_warranty"}
    assert cat.prices.electricity_usd_per_kwh == pytest.approx(0.18)


@pytest.mark.parametrize("gpu", BOUGHT_OR_RENTED)
def test_every_card_people_buy_has_a_dated_sourced_purchase_price(cat, gpu):
    quotes = [q for q in cat.prices.for_gpu(gpu) if q.kind is not P.PriceKind.CLOUD]
    assert quotes, gpu
    for q in quotes:
        assert P.parse_date(q.date) and q.source and q.currency == "USD"
        assert q.origin == P.PRICES_FILE
        if "estimate" in q.source.lower().split(":")[0]:
            assert q.estimated, (gpu, q.source)  # a source that says estimate is marked as one


@pytest.mark.parametrize("gpu", RENTED)
def test_rented_cards_have_cloud_prices_by_provider_kind(cat, gpu):
    qs = P.cloud_prices(cat, gpu)
    assert qs and all(q.provider_kind in set(P.ProviderKind) for q in qs)
    assert [q.usd for q in qs] == sorted(q.usd for q in qs)  # cheapest first
    assert len({q.provider_kind for q in qs}) == len(qs)  # newest one per provider kind


def test_new_and_used_are_separate(cat):
    new, used = P.new_price(cat, "rtx-4090"), P.used_price(cat, "rtx-4090")
    assert new is not None and used is not None
    assert (new.kind, new.sub, new.usd) == (P.PriceKind.NEW, P.PriceSub.STREET, 1900)
    assert (used.kind, used.usd) == (P.PriceKind.USED, 1550)
    assert P.new_price(cat, "rtx-4090", P.PriceSub.MSRP).usd == 1599
    assert P.purchase_price(cat, "rtx-4090").usd == 1550  # the cheaper of new and used
    assert P.purchase_price(cat, "rtx-4090", "new").usd == 1900


def test_hyperscaler_costs_more_than_a_marketplace_for_an_h100(cat):
    by = {q.provider_kind: q.usd for q in P.cloud_prices(cat, "h100-sxm")}
    assert by[P.ProviderKind.MARKETPLACE] < by[P.ProviderKind.SPECIALIST] < by[P.ProviderKind.HYPERSCALER]
    # newest specialist price wins over the older one (2026-05 3.00 over 2026-02 2.67)
    assert P.cloud_price(cat, "h100-sxm", P.ProviderKind.SPECIALIST).date == "2026-05"


def test_card_outside_the_book_falls_back_to_gpus_yaml(cat):
    q = P.used_price(cat, "rtx-2080-ti")
    g = cat.gpu("rtx-2080-ti")
    assert q is not None and q.origin == "gpus.yaml" and q.usd == g.price_usd and q.date == g.price_date
    assert q.estimated == g.is_estimated("price_usd")


# --------------------------------------------------------------------------- staleness


def test_stale_is_more_than_six_months():
    assert P.STALE_MONTHS == 6
    assert not P.is_stale("2026-06", TODAY)  # 6 months: still fresh
    assert P.is_stale("2026-05", TODAY)  # 7 months
    assert P.is_stale("2026-05-31", TODAY)
    assert not P.is_stale("2026-12-01", TODAY)
    assert P.months_between("2025-11", "2026-11") == 12


def test_stale_quotes_skip_msrp_and_superseded_prices(cat):
    stale = P.stale_quotes(cat.prices, TODAY)
    assert stale and all(P.is_stale(q.date, TODAY) for q in stale)
    assert all(q.sub is not P.PriceSub.MSRP for q in stale)
    # the 2026-02 specialist H100 price is superseded by 2026-05, so only the newer one is listed
    h100_spec = [q for q in stale if q.gpu == "h100-sxm" and q.provider_kind is P.ProviderKind.SPECIALIST]
    assert [q.date for q in h100_spec] == ["2026-05"]
    # judged against the given day: in July 2026 the June prices are fresh
    july = {(q.gpu, q.date) for q in P.stale_quotes(cat.prices, dt.date(2026, 7, 1))}
    assert ("l4", "2026-06") not in july and ("rtx-5070-ti", "2026-02") not in july
    assert ("rtx-5070-ti", "2026-02") in {(q.gpu, q.date) for q in stale}


# --------------------------------------------------------------------------- validation


@pytest.mark.parametrize(
    "bad, field, words",
    [
        (entry(gpu="rtx-9999"), "gpu", "unknown card"),
        (entry(kind="rent"), "kind", "new, used, cloud"),
        (entry(price=-5), "price", "positive"),
        (entry(price=0), "price", "positive"),
        (entry(price=500_000), "price", "outside"),
        (entry(kind="cloud", provider_kind="specialist", price=250), "price", "per hour"),
        (entry(kind="cloud"), "provider_kind", "needs provider_kind"),
        (entry(kind="cloud", provider_kind="cheap"), "provider_kind", "must be one of"),
        (entry(kind="used", sub="msrp"), "sub", "only new"),
        (entry(kind="used", provider_kind="specialist"), "provider_kind", "only cloud"),
        (entry(currency="XYZ"), "currency", "unknown currency"),
        (entry(date="2026-13"), "date", "YYYY-MM"),
        (entry(date="2026-02-30"), "date", "YYYY-MM"),
        (entry(date=2026), "date", "YYYY-MM"),
        (entry(source=""), "source", "non-empty"),
        (entry(estimated="yes"), "estimated", "true or false"),
        ({**entry(), "shop": "x"}, "shop", "unknown key"),
    ],
)
def test_broken_entry_names_file_entry_and_field(kdir, bad, field, words):
    write_book(kdir, [entry(date="2026-10"), bad])
    with pytest.raises(KnowledgeError) as e:
        load_catalog(kdir)
    msg = str(e.value)
    assert "prices.yaml" in msg and "price #2" in msg and field in msg and words in msg


def test_duplicate_card_kind_date_is_refused(kdir):
    write_book(kdir, [entry(), entry(price=710)])
    with pytest.raises(KnowledgeError, match="same card, kind and date"):
        load_catalog(kdir)


def test_currency_is_converted_with_the_dated_rate(kdir):
    write_book(kdir, [entry(price=600, currency="EUR")])
    cat = load_catalog(kdir)
    q = P.used_price(cat, "rtx-3090")
    assert q.price == 600 and q.currency == "EUR"
    assert q.usd == pytest.approx(600 * cat.currencies["EUR"].usd_per_unit)


def test_missing_book_means_gpus_yaml_prices_only(kdir):
    (kdir / P.PRICES_FILE).unlink()
    cat = load_catalog(kdir)
    assert len(cat.prices) == 0
    assert P.used_price(cat, "rtx-3090").origin == "gpus.yaml"


def test_imported_file_wins_on_the_same_date(kdir):
    write_book(kdir, [entry(price=700)])
    (kdir / P.IMPORTED_FILE).write_text(yaml.safe_dump({"prices": [entry(price=680, source="imp")]}))
    cat = load_catalog(kdir)
    q = P.used_price(cat, "rtx-3090")
    assert (q.usd, q.origin) == (680, P.IMPORTED_FILE)


def test_catalog_honours_knowledge_dir(kdir, monkeypatch):
    from bot.core.knowledge import default_knowledge_dir

    write_book(kdir, [entry(price=612)])
    monkeypatch.setenv("KNOWLEDGE_DIR", str(kdir))
    cat = load_catalog(default_knowledge_dir())
    assert P.used_price(cat, "rtx-3090").usd == 612
