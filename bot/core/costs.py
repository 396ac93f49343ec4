"""Rent or buy, deal verdicts and job costs: pure functions over the catalog and its price book.

Everything returned is typed data (frozen dataclasses, StrEnum codes, numbers);
no English sentences. A phrasing layer turns it into words; ``to_json()``
gives the JSON shape of issue 14.

Rent or buy (:func:`rent_or_buy`)
    owning = purchase price + electricity (card board power ``tdp_w`` x hours
    x kWh price) - resale after N years. Resale = the card's used price today
    x a yearly retention: fitted from its dated used prices when two lie at
    least :data:`TREND_MIN_MONTHS` apart, else :data:`ASSUMED_RETENTION_PER_YEAR`
    (stated as an assumption). Renting = for each rent option, hours scaled by
    relative speed (``own hours / speed of rented card relative to owned``)
    x price per hour. Break-even hours H solve
    ``price - resale + H * electricity_per_hour = H * usd_per_hour / relative_speed``:
    ``H = (price - resale) / (usd_per_hour / relative_speed - electricity_per_hour)``
    (None when renting costs no more per hour of work than the electricity:
    owning never pays off). Months = H / (hours a day x 30.4375).

Deals (:func:`deal_verdict`)
    the quote against the card's newest used price (or new street price):
    ratio <= :data:`GOOD_RATIO` good, <= :data:`FAIR_RATIO` fair, else poor; a
    card doing the same work (at least the same memory and 95% of the speed)
    for at most 90% of the quote caps the verdict at fair. Used quotes carry
    the book's cited used-card risks.

Job costs (:func:`job_cost`)
    needs a time-to-train figure (hours on a named card); without one the
    result says so (``status = needs_time_to_train``).
"""

from __future__ import annotations

import datetime as _dt
import functools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from bot.core import prices as P
from bot.core.speed import geometric_mean, speed_table
from bot.core.types import Precision, Task

if TYPE_CHECKING:
    from bot.core.knowledge import Catalog

__all__ = [
    "ASSUMED_RETENTION_PER_YEAR",
    "DEFAULT_HOURS_PER_DAY",
    "DEFAULT_YEARS",
    "FALLBACK_KWH_USD",
    "DAYS_PER_MONTH",
    "GOOD_RATIO",
    "FAIR_RATIO",
    "GENERIC_WORKLOADS",
    "Condition",
    "AssumptionCode",
    "ResaleBasis",
    "CostVerdict",
    "DealCode",
    "ReasonCode",
    "JobStatus",
    "Assumption",
    "OwnCost",
    "RentCost",
    "RentOrBuy",
    "RentCardCost",
    "rent_card_cost",
    "Reason",
    "Alternative",
    "DealVerdict",
    "JobCost",
    "rent_or_buy",
    "deal_verdict",
    "job_cost",
    "relative_speeds",
    "SanityCode",
    "SanityFlag",
    "price_sanity",
]

DEFAULT_HOURS_PER_DAY = 4.0  # assumption, said in the answer
DEFAULT_YEARS = 3.0  # years of ownership before resale (assumption)
FALLBACK_KWH_USD = 0.18  # used only when the price book has no electricity default
ASSUMED_RETENTION_PER_YEAR = 0.8  # share of its used value a card keeps per year (assumption)
TREND_MIN_MONTHS = 6  # two used prices at least this far apart give a trend
RETENTION_CLAMP = (0.3, 1.0)
DAYS_PER_MONTH = 365.25 / 12
GOOD_RATIO = 0.90
FAIR_RATIO = 1.10
ALTERNATIVE_SHARE = 0.90  # an alternative must cost at most this share of the quote
ALTERNATIVE_MIN_SPEED = 0.95  # ... and be at least this fast relative to the quoted card
FASTER_RENT_OPTIONS = 2  # faster cards offered besides the same card
# Cards offered as "rent a faster card" by default: the ones people commonly rent one at a time
# (B200/H200/MI300X are offered only when named in rent_options).
DEFAULT_RENT_CANDIDATES = ("rtx-4090", "rtx-5090", "l40s", "a100-80gb", "h100-pcie", "h100-sxm")
# "The same work" when no model is named: geometric mean of these speeds (relative to the RTX 3090).
GENERIC_WORKLOADS: tuple[tuple[str, Task, Precision], ...] = (
    ("llama-3-8b", Task.INFERENCE, Precision.BF16),
    ("llama-3-8b", Task.FINETUNE, Precision.BF16),
    ("resnet-50", Task.TRAINING, Precision.FP16),
)


class Condition(StrEnum):
    NEW = "new"
    USED = "used"
    ANY = "any"


class AssumptionCode(StrEnum):
    HOURS_PER_DAY = "hours_per_day"
    YEARS = "years"
    KWH_PRICE = "kwh_price_usd"
    POWER_W = "power_w"
    PURCHASE_PRICE = "purchase_price_usd"
    RESALE_RETENTION = "resale_retention_per_year"
    WORKLOAD = "workload"
    CONDITION = "condition"


class ResaleBasis(StrEnum):
    USED_TREND = "used_price_trend"
    ASSUMED = "assumed_retention"


class CostVerdict(StrEnum):
    BUY = "buy_cheaper"  # owning costs less over the stated use
    RENT = "rent_cheaper"
    NO_PRICE = "no_price"  # no purchase price or no rent price known


class DealCode(StrEnum):
    GOOD = "good"
    FAIR = "fair"
    POOR = "poor"
    UNKNOWN = "unknown"  # no reference price for the card


class ReasonCode(StrEnum):
    BELOW_MARKET = "below_market"  # values: ratio, reference_usd, reference_kind, reference_date
    AT_MARKET = "at_market"
    ABOVE_MARKET = "above_market"
    ABOVE_NEW_PRICE = "above_new_price"  # a used quote at or above the new street price
    CHEAPER_ALTERNATIVE = "cheaper_alternative"  # values: gpu, usd, kind, relative_speed, vram_gb
    REFERENCE_ESTIMATED = "reference_estimated"
    REFERENCE_STALE = "reference_stale"  # values: date, months
    NO_REFERENCE = "no_reference"
    NOT_A_PURCHASE = "not_a_purchase"  # server module / legacy card


class JobStatus(StrEnum):
    OK = "ok"
    NEEDS_TIME_TO_TRAIN = "needs_time_to_train"


def _r(x: float | None, nd: int = 2) -> float | None:
    if x is None or not math.isfinite(x):
        return None
    return round(x, nd)


@dataclass(frozen=True)
class Assumption:
    code: AssumptionCode
    value: float | str
    unit: str | None
    given: bool  # the user said it
    estimated: bool = False
    source: str | None = None

    def to_json(self) -> dict[str, Any]:
        v = _r(self.value, 4) if isinstance(self.value, float) else self.value
        return {
            "name": self.code.value,
            "value": v,
            "unit": self.unit,
            "given": self.given,
            "estimated": self.estimated,
            "source": self.source,
        }


@dataclass(frozen=True)
class OwnCost:
    gpu: str
    price: P.PriceQuote
    price_given: bool  # the user's quoted price
    hours: float
    kwh: float
    electricity_usd: float
    electricity_usd_per_hour: float
    resale_usd: float
    resale_basis: ResaleBasis
    usd: float  # price + electricity - resale

    def to_json(self) -> dict[str, Any]:
        return {
            "gpu": self.gpu,
            "price_usd": _r(self.price.usd),
            "price_kind": self.price.kind.value,
            "price_sub": self.price.sub.value if self.price.sub else None,
            "price_date": self.price.date,
            "price_estimated": self.price.estimated,
            "price_given": self.price_given,
            "hours": _r(self.hours, 1),
            "kwh": _r(self.kwh, 1),
            "electricity_usd": _r(self.electricity_usd),
            "resale_usd": _r(self.resale_usd),
            "resale_basis": self.resale_basis.value,
            "usd": _r(self.usd),
        }


@dataclass(frozen=True)
class RentCost:
    gpu: str
    provider_kind: P.ProviderKind
    usd_per_hour: float
    relative_speed: float  # rented card's speed / owned card's, for this work
    hours: float  # hours of rent for the same work
    usd: float
    price: P.PriceQuote
    same_card: bool
    break_even_hours: float | None  # hours of own use at which owning costs the same
    break_even_months: float | None

    def to_json(self) -> dict[str, Any]:
        return {
            "gpu": self.gpu,
            "provider_kind": self.provider_kind.value,
            "usd_per_hour": _r(self.usd_per_hour, 3),
            "hours": _r(self.hours, 1),
            "usd": _r(self.usd),
            "relative_speed": _r(self.relative_speed, 3),
            "price_date": self.price.date,
            "price_estimated": self.price.estimated,
            "same_card": self.same_card,
            "break_even_hours": _r(self.break_even_hours, 0),
            "break_even_months": _r(self.break_even_months, 1),
        }


@dataclass(frozen=True)
class RentOrBuy:
    gpu: str
    own: OwnCost | None
    rent: tuple[RentCost, ...]
    break_even_hours: float | None  # against the cheapest rent option per hour of work
    break_even_months: float | None
    verdict: CostVerdict
    assumptions: tuple[Assumption, ...]
    stale_dates: tuple[str, ...] = ()  # dates of prices used that are older than STALE_MONTHS

    def to_json(self) -> dict[str, Any]:
        return {
            "gpu": self.gpu,
            "own": self.own.to_json() if self.own else None,
            "rent": [r.to_json() for r in self.rent],
            "break_even_hours": _r(self.break_even_hours, 0),
            "break_even_months": _r(self.break_even_months, 1),
            "verdict": self.verdict.value,
            "assumptions": [a.to_json() for a in self.assumptions],
            "stale_dates": list(self.stale_dates),
            "stale_months": P.STALE_MONTHS,
        }


@dataclass(frozen=True)
class Reason:
    code: ReasonCode
    values: Mapping[str, float | str | bool | None] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "code": self.code.value,
            **{k: (_r(v, 3) if isinstance(v, float) else v) for k, v in self.values.items()},
        }


@dataclass(frozen=True)
class Alternative:
    gpu: str
    price: P.PriceQuote
    relative_speed: float  # vs the quoted card, same work
    vram_gb: float
    speed_per_kusd: float  # speed (x RTX 3090) per 1,000 USD
    vram_gb_per_kusd: float

    def to_json(self) -> dict[str, Any]:
        return {
            "gpu": self.gpu,
            "usd": _r(self.price.usd),
            "kind": self.price.kind.value,
            "date": self.price.date,
            "estimated": self.price.estimated,
            "relative_speed": _r(self.relative_speed, 3),
            "vram_gb": self.vram_gb,
            "speed_per_kusd": _r(self.speed_per_kusd, 3),
            "vram_gb_per_kusd": _r(self.vram_gb_per_kusd, 2),
        }


@dataclass(frozen=True)
class DealVerdict:
    gpu: str
    quoted_usd: float
    condition: Condition
    condition_given: bool
    verdict: DealCode
    ratio: float | None  # quote / reference price
    reference: P.PriceQuote | None
    new_reference: P.PriceQuote | None
    speed_per_kusd: float  # of the quote
    vram_gb_per_kusd: float
    reasons: tuple[Reason, ...]
    alternatives: tuple[Alternative, ...]
    risks: tuple[P.UsedRisk, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "gpu": self.gpu,
            "quoted_usd": _r(self.quoted_usd),
            "condition": self.condition.value,
            "condition_given": self.condition_given,
            "verdict": self.verdict.value,
            "ratio": _r(self.ratio, 3),
            "reference": self.reference.to_json() if self.reference else None,
            "new_reference": self.new_reference.to_json() if self.new_reference else None,
            "speed_per_kusd": _r(self.speed_per_kusd, 3),
            "vram_gb_per_kusd": _r(self.vram_gb_per_kusd, 2),
            "reasons": [r.to_json() for r in self.reasons],
            "alternatives": [a.to_json() for a in self.alternatives],
            "risks": [{"code": k.code, "source": k.source, "date": k.date} for k in self.risks],
        }


@dataclass(frozen=True)
class JobCost:
    status: JobStatus
    needs: tuple[str, ...]
    own_gpu: str
    own_hours: float | None
    own_electricity_usd: float | None
    rent: tuple[RentCost, ...]
    assumptions: tuple[Assumption, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "status": self.status.value,
            "needs": list(self.needs),
            "own": {
                "gpu": self.own_gpu,
                "hours": _r(self.own_hours, 1),
                "electricity_usd": _r(self.own_electricity_usd),
            },
            "rent": [r.to_json() for r in self.rent],
            "assumptions": [a.to_json() for a in self.assumptions],
        }


# --------------------------------------------------------------------------- helpers


def relative_speeds(
    catalog: Catalog,
    model_id: str | None = None,
    task: Task | None = None,
    precision: Precision | None = None,
) -> dict[str, float]:
    """Speed of every card relative to the RTX 3090: for one workload, or the generic mix."""
    if model_id is not None:
        t = task or Task.TRAINING
        p = precision or Precision.BF16
        return {g: s.relative for g, s in speed_table(catalog, model_id, t, p).items()}
    return dict(_generic_speeds(catalog))


@functools.lru_cache(maxsize=8)
def _generic_speeds(catalog: Catalog) -> dict[str, float]:
    """``relative_speeds(catalog)``: the generic mix of every card, once per catalog (a geometric
    mean over ~100 cards was a sixth of a deal or rent-or-buy answer); callers get a copy."""
    tables = [speed_table(catalog, m, t, p) for m, t, p in GENERIC_WORKLOADS if m in catalog.models]
    if not tables:
        return dict.fromkeys(catalog.gpus, 1.0)
    return {g: geometric_mean([tb[g].relative for tb in tables]) for g in catalog.gpus}


def _kwh_usd(catalog: Catalog, kwh_price: float | None, kwh_currency: str) -> tuple[float, Assumption]:
    pb = P.book(catalog)
    if kwh_price is not None:
        rate = catalog.currencies.get(kwh_currency.upper())
        if rate is None:
            raise ValueError(f"unknown currency {kwh_currency!r}")
        usd = kwh_price * rate.usd_per_unit
        return usd, Assumption(AssumptionCode.KWH_PRICE, usd, "USD/kWh", True, rate.estimated)
    usd = pb.electricity_usd_per_kwh or FALLBACK_KWH_USD
    return usd, Assumption(
        AssumptionCode.KWH_PRICE,
        usd,
        "USD/kWh",
        False,
        pb.electricity_usd_per_kwh is None,
        pb.electricity_source,
    )


def _retention(catalog: Catalog, gpu_id: str) -> tuple[float, ResaleBasis]:
    trend = P.used_trend(catalog, gpu_id)
    if len(trend) >= 2:
        first, last = trend[0], trend[-1]
        months = P.months_between(first.date, last.date)
        if months >= TREND_MIN_MONTHS and first.usd > 0:
            yearly = (last.usd / first.usd) ** (12.0 / months)
            lo, hi = RETENTION_CLAMP
            return min(hi, max(lo, yearly)), ResaleBasis.USED_TREND
    return ASSUMED_RETENTION_PER_YEAR, ResaleBasis.ASSUMED


def _purchasable(catalog: Catalog, gpu_id: str) -> bool:
    g = catalog.gpus[gpu_id]
    return g.form_factor == "pcie" and not g.legacy_cuda


# --------------------------------------------------------------------------- rent or buy


def rent_or_buy(
    catalog: Catalog,
    gpu: str,
    *,
    hours_per_day: float | None = None,
    years: float | None = None,
    kwh_price: float | None = None,
    kwh_currency: str = "USD",
    condition: Condition | str | None = None,
    price_usd: float | None = None,
    model_id: str | None = None,
    task: Task | None = None,
    precision: Precision | None = None,
    rent_options: Sequence[tuple[str, P.ProviderKind | None]] | None = None,
    today: _dt.date | None = None,
) -> RentOrBuy:
    """Owning ``gpu`` for ``years`` at ``hours_per_day`` against renting for the same work.

    ``price_usd`` is a price the user quoted (overrides the book); ``condition``
    new / used / any picks the purchase price; ``rent_options`` (gpu id,
    provider kind or None for the cheapest) replaces the default options (the
    same card at each provider kind, plus the cheapest-per-work faster cards).
    """
    if gpu not in catalog.gpus:
        raise KeyError(gpu)
    today = today or _dt.date.today()
    cond = Condition(condition) if condition else Condition.ANY
    hpd_given = hours_per_day is not None
    yrs_given = years is not None
    hpd = float(hours_per_day) if hours_per_day is not None else DEFAULT_HOURS_PER_DAY
    yrs = float(years) if years is not None else DEFAULT_YEARS
    if not (0 < hpd <= 24):
        raise ValueError("hours_per_day must be in (0, 24]")
    if not (0 < yrs <= 15):
        raise ValueError("years must be in (0, 15]")
    kwh_usd, kwh_a = _kwh_usd(catalog, kwh_price, kwh_currency)
    card = catalog.gpus[gpu]
    speeds = relative_speeds(catalog, model_id, task, precision)
    own_speed = speeds.get(gpu) or 1.0

    assumptions: list[Assumption] = [
        Assumption(AssumptionCode.HOURS_PER_DAY, hpd, "h/day", hpd_given),
        Assumption(AssumptionCode.YEARS, yrs, "years", yrs_given),
        kwh_a,
        Assumption(
            AssumptionCode.POWER_W, float(card.tdp_w), "W", False, False, "board power (gpus.yaml tdp_w)"
        ),
        Assumption(
            AssumptionCode.WORKLOAD,
            model_id or "generic",
            None,
            model_id is not None,
            source=None if model_id else "+".join(f"{m}:{t.value}" for m, t, _ in GENERIC_WORKLOADS),
        ),
        Assumption(AssumptionCode.CONDITION, cond.value, None, condition is not None),
    ]

    # ---- owning
    if price_usd is not None:
        kind = P.PriceKind.USED if cond is Condition.USED else P.PriceKind.NEW
        if cond is Condition.ANY:  # as deal_verdict: used when a used price exists and the quote is below new
            street = P.new_price(catalog, gpu)
            if P.used_price(catalog, gpu) is not None and (
                street is None or street.sub is P.PriceSub.MSRP or price_usd < street.usd
            ):
                kind = P.PriceKind.USED
        buy: P.PriceQuote | None = P.quoted(gpu, float(price_usd), kind, today)
    else:
        buy = P.purchase_price(catalog, gpu, None if cond is Condition.ANY else cond.value)
    hours = hpd * DAYS_PER_MONTH * 12 * yrs
    own: OwnCost | None = None
    elec_per_hour = card.tdp_w / 1000.0 * kwh_usd
    if buy is not None:
        retention, basis = _retention(catalog, gpu)
        used_now = P.used_price(catalog, gpu)
        base = (
            used_now.usd if used_now is not None else buy.usd
        )  # resale follows the market, not what was paid
        resale = base * retention**yrs
        assumptions.append(
            Assumption(
                AssumptionCode.PURCHASE_PRICE,
                buy.usd,
                "USD",
                price_usd is not None,
                buy.estimated,
                f"{buy.kind.value}{'/' + buy.sub.value if buy.sub else ''} {buy.date}: {buy.source}",
            )
        )
        assumptions.append(
            Assumption(
                AssumptionCode.RESALE_RETENTION,
                retention,
                "share/year",
                False,
                basis is ResaleBasis.ASSUMED,
                basis.value,
            )
        )
        kwh = card.tdp_w / 1000.0 * hours
        electricity = kwh * kwh_usd
        own = OwnCost(
            gpu=gpu,
            price=buy,
            price_given=price_usd is not None,
            hours=hours,
            kwh=kwh,
            electricity_usd=electricity,
            electricity_usd_per_hour=elec_per_hour,
            resale_usd=resale,
            resale_basis=basis,
            usd=buy.usd + electricity - resale,
        )

    # ---- renting
    options: list[tuple[P.PriceQuote, bool]] = []
    if rent_options is not None:
        for gid, pk in rent_options:
            if gid not in catalog.gpus:
                raise KeyError(gid)
            q = P.cloud_price(catalog, gid, pk)
            if q is not None:
                options.append((q, gid == gpu))
    else:
        for q in P.cloud_prices(catalog, gpu):
            options.append((q, True))
        faster: list[tuple[float, P.PriceQuote]] = []
        for gid in DEFAULT_RENT_CANDIDATES:
            g = catalog.gpus.get(gid)
            if g is None or gid == gpu or g.vram_gb < card.vram_gb or speeds.get(gid, 0) < own_speed:
                continue
            if g.software != card.software and card.software == "cuda":
                continue
            q = P.cloud_price(catalog, gid)
            if q is not None:
                faster.append((q.usd / (speeds[gid] / own_speed), q))
        faster.sort(key=lambda t: t[0])
        options.extend((q, False) for _, q in faster[:FASTER_RENT_OPTIONS])

    rents: list[RentCost] = []
    for q, same in options:
        rel = (speeds.get(q.gpu) or own_speed) / own_speed
        r_hours = hours / rel
        per_work = q.usd / rel
        be_h: float | None = None
        be_m: float | None = None
        if own is not None and per_work > elec_per_hour:
            be_h = max(0.0, (own.price.usd - own.resale_usd) / (per_work - elec_per_hour))
            be_m = be_h / (hpd * DAYS_PER_MONTH)
        rents.append(
            RentCost(
                gpu=q.gpu,
                provider_kind=q.provider_kind or P.ProviderKind.UNSPECIFIED,
                usd_per_hour=q.usd,
                relative_speed=rel,
                hours=r_hours,
                usd=r_hours * q.usd,
                price=q,
                same_card=same,
                break_even_hours=be_h,
                break_even_months=be_m,
            )
        )
    best = min(rents, key=lambda r: r.usd) if rents else None
    if own is None or best is None:
        verdict = CostVerdict.NO_PRICE
    else:
        verdict = CostVerdict.BUY if own.usd < best.usd else CostVerdict.RENT
    used_dates = [r.price.date for r in rents] + ([own.price.date] if own and not own.price_given else [])
    stale = tuple(sorted({d for d in used_dates if P.is_stale(d, today)}))
    return RentOrBuy(
        gpu=gpu,
        own=own,
        rent=tuple(rents),
        break_even_hours=best.break_even_hours if best else None,
        break_even_months=best.break_even_months if best else None,
        verdict=verdict,
        assumptions=tuple(assumptions),
        stale_dates=stale,
    )


@dataclass(frozen=True)
class RentCardCost:
    """Buy one card or rent another (issue 10: "rent an A100 or buy a 3090?"): per hour of the owned
    card's work, what owning costs and what renting the other card costs once its speed is counted."""

    buy_gpu: str
    rent_gpu: str
    workload: str  # model id, or "generic" (the typical workloads of GENERIC_WORKLOADS)
    relative_speed: float  # rented card's speed / owned card's, for this work (modelled)
    hours_per_day: float
    own_usd_per_hour: float | None  # owning's total over the years / hours of use
    rent_usd_per_hour: float  # the cheapest rent option's price per hour of the rented card
    rent_usd_per_work_hour: float  # ... per hour of the owned card's work (price / relative speed)
    break_even_hours: float | None
    break_even_months: float | None
    workload_name: str | None = None  # the model's display name
    # the named model as asked, per card: whether it fits (None: no model named / not sized)
    fits_buy: bool | None = None
    fits_rent: bool | None = None
    required_gb: float | None = None  # per card, modelled
    required_gb_band: tuple[float, float] | None = None
    # the counts the user said ("buy two 3090s"); the figures are for one card of each
    buy_count: int = 1
    rent_count: int = 1

    def to_json(self) -> dict[str, Any]:
        return {
            "buy_gpu": self.buy_gpu,
            "rent_gpu": self.rent_gpu,
            "workload": self.workload,
            "relative_speed": _r(self.relative_speed, 3),
            "relative_speed_basis": "modelled",
            "hours_per_day": _r(self.hours_per_day, 2),
            "own_usd_per_hour": _r(self.own_usd_per_hour, 3),
            "rent_usd_per_hour": _r(self.rent_usd_per_hour, 3),
            "rent_usd_per_work_hour": _r(self.rent_usd_per_work_hour, 3),
            "break_even_hours": _r(self.break_even_hours, 0),
            "break_even_months": _r(self.break_even_months, 1),
            "fits_buy": self.fits_buy,
            "fits_rent": self.fits_rent,
            "required_gb": _r(self.required_gb, 1),
            "required_gb_band": [_r(v, 1) for v in self.required_gb_band] if self.required_gb_band else None,
            "counts_said": [self.buy_count, self.rent_count],
            "costed_per_card": True,
        }


def rent_card_cost(rob: RentOrBuy, rent_gpu: str, workload_name: str | None = None) -> RentCardCost | None:
    """The rent-one-buy-another figures of a :func:`rent_or_buy` run whose rent options are
    ``rent_gpu``'s (the cheapest per hour of work); None when that card has no rent price."""
    opts = [r for r in rob.rent if r.gpu == rent_gpu]
    if not opts:
        return None
    best = min(opts, key=lambda r: r.usd_per_hour / r.relative_speed)
    a = {x.code: x for x in rob.assumptions}
    hpd = float(a[AssumptionCode.HOURS_PER_DAY].value)
    workload = str(a[AssumptionCode.WORKLOAD].value)
    own = rob.own
    return RentCardCost(
        buy_gpu=rob.gpu,
        rent_gpu=rent_gpu,
        workload=workload,
        relative_speed=best.relative_speed,
        hours_per_day=hpd,
        own_usd_per_hour=own.usd / own.hours if own is not None and own.hours > 0 else None,
        rent_usd_per_hour=best.usd_per_hour,
        rent_usd_per_work_hour=best.usd_per_hour / best.relative_speed,
        break_even_hours=best.break_even_hours,
        break_even_months=best.break_even_months,
        workload_name=workload_name,
    )


# --------------------------------------------------------------------------- deals


def deal_verdict(
    catalog: Catalog,
    gpu: str,
    quoted_usd: float,
    condition: Condition | str | None = None,
    *,
    model_id: str | None = None,
    task: Task | None = None,
    precision: Precision | None = None,
    today: _dt.date | None = None,
    assumed: Condition | str | None = None,
) -> DealVerdict:
    """Is ``quoted_usd`` for ``gpu`` a good price? Against the card's dated prices and same-work cards.
    ``assumed``: the condition to take when none is given (a conversation's reading), said as taken."""
    if gpu not in catalog.gpus:
        raise KeyError(gpu)
    if not (quoted_usd > 0 and math.isfinite(quoted_usd)):
        raise ValueError("quoted_usd must be a positive number")
    today = today or _dt.date.today()
    card = catalog.gpus[gpu]
    used = P.used_price(catalog, gpu)
    new = P.new_price(catalog, gpu)
    street = new if new is not None and new.sub is not P.PriceSub.MSRP else None
    given = condition is not None and Condition(condition) is not Condition.ANY
    if given:
        cond = Condition(condition)  # type: ignore[arg-type]
    elif assumed is not None and Condition(assumed) is not Condition.ANY:
        cond = Condition(assumed)
    elif used is not None and (street is None or quoted_usd < street.usd):
        cond = Condition.USED
    else:
        cond = Condition.NEW
    ref = used if cond is Condition.USED else (street or new)
    reasons: list[Reason] = []
    if not _purchasable(catalog, gpu):
        reasons.append(
            Reason(
                ReasonCode.NOT_A_PURCHASE, {"form_factor": card.form_factor, "legacy_cuda": card.legacy_cuda}
            )
        )
    ratio: float | None = None
    if ref is None:
        verdict = DealCode.UNKNOWN
        reasons.append(Reason(ReasonCode.NO_REFERENCE, {"condition": cond.value}))
    else:
        ratio = quoted_usd / ref.usd
        vals: dict[str, float | str | bool | None] = {
            "ratio": ratio,
            "reference_usd": ref.usd,
            "reference_kind": ref.kind.value,
            "reference_sub": ref.sub.value if ref.sub else None,
            "reference_date": ref.date,
        }
        if ratio <= GOOD_RATIO:
            verdict = DealCode.GOOD
            reasons.append(Reason(ReasonCode.BELOW_MARKET, vals))
        elif ratio <= FAIR_RATIO:
            verdict = DealCode.FAIR
            reasons.append(Reason(ReasonCode.AT_MARKET, vals))
        else:
            verdict = DealCode.POOR
            reasons.append(Reason(ReasonCode.ABOVE_MARKET, vals))
        if ref.estimated:
            reasons.append(Reason(ReasonCode.REFERENCE_ESTIMATED, {"reference_date": ref.date}))
        if P.is_stale(ref.date, today):
            reasons.append(
                Reason(
                    ReasonCode.REFERENCE_STALE,
                    {"date": ref.date, "months": P.months_between(ref.date, today)},
                )
            )
    if cond is Condition.USED and street is not None and quoted_usd >= street.usd:
        verdict = DealCode.POOR
        reasons.append(Reason(ReasonCode.ABOVE_NEW_PRICE, {"new_usd": street.usd, "new_date": street.date}))

    speeds = relative_speeds(catalog, model_id, task, precision)
    my_speed = speeds.get(gpu) or 1.0
    alts: list[Alternative] = []
    for gid, g in catalog.gpus.items():
        # (``_purchasable(catalog, gid)`` of the card in hand)
        if gid == gpu or g.form_factor != "pcie" or g.legacy_cuda or g.vram_gb < card.vram_gb:
            continue
        if g.software != card.software:
            continue
        rel = speeds.get(gid, 0.0) / my_speed
        if rel < ALTERNATIVE_MIN_SPEED:
            continue
        q = P.purchase_price(catalog, gid, "new" if cond is Condition.NEW else None)
        if q is None or q.sub is P.PriceSub.MSRP or q.usd > ALTERNATIVE_SHARE * quoted_usd:
            continue
        alts.append(
            Alternative(
                gpu=gid,
                price=q,
                relative_speed=rel,
                vram_gb=g.vram_gb,
                speed_per_kusd=speeds[gid] / q.usd * 1000,
                vram_gb_per_kusd=g.vram_gb / q.usd * 1000,
            )
        )
    alts.sort(key=lambda a: -a.speed_per_kusd)
    alts = alts[:3]
    if alts:
        a = alts[0]
        reasons.append(
            Reason(
                ReasonCode.CHEAPER_ALTERNATIVE,
                {
                    "gpu": a.gpu,
                    "usd": a.price.usd,
                    "kind": a.price.kind.value,
                    "date": a.price.date,
                    "relative_speed": a.relative_speed,
                    "vram_gb": a.vram_gb,
                },
            )
        )
        if verdict is DealCode.GOOD:
            verdict = DealCode.FAIR
    risks = P.book(catalog).used_risks if cond is Condition.USED else ()
    return DealVerdict(
        gpu=gpu,
        quoted_usd=quoted_usd,
        condition=cond,
        condition_given=given,
        verdict=verdict,
        ratio=ratio,
        reference=ref,
        new_reference=street,
        speed_per_kusd=my_speed / quoted_usd * 1000,
        vram_gb_per_kusd=card.vram_gb / quoted_usd * 1000,
        reasons=tuple(reasons),
        alternatives=tuple(alts),
        risks=tuple(risks),
    )


# --------------------------------------------------------------------------- job cost


def job_cost(
    catalog: Catalog,
    *,
    own_gpu: str,
    rent_gpus: Sequence[str] = ("h100-sxm",),
    hours: float | None = None,
    hours_gpu: str | None = None,
    model_id: str | None = None,
    task: Task | None = None,
    precision: Precision | None = None,
    kwh_price: float | None = None,
    kwh_currency: str = "USD",
) -> JobCost:
    """Cost of one job on the owned card (electricity) and on rented cards.

    ``hours`` is the time-to-train on ``hours_gpu`` (default ``own_gpu``),
    e.g. from the speed issue's time-to-train model; without it the result
    is ``needs_time_to_train`` and no cost is guessed.
    """
    for gid in (own_gpu, *rent_gpus, *([hours_gpu] if hours_gpu else [])):
        if gid not in catalog.gpus:
            raise KeyError(gid)
    if hours is None:
        return JobCost(JobStatus.NEEDS_TIME_TO_TRAIN, ("time_to_train_hours",), own_gpu, None, None, (), ())
    if not (hours > 0 and math.isfinite(hours)):
        raise ValueError("hours must be a positive number")
    kwh_usd, kwh_a = _kwh_usd(catalog, kwh_price, kwh_currency)
    speeds = relative_speeds(catalog, model_id, task, precision)
    base_gpu = hours_gpu or own_gpu
    base_speed = speeds.get(base_gpu) or 1.0
    own_hours = hours * base_speed / (speeds.get(own_gpu) or 1.0)
    elec = catalog.gpus[own_gpu].tdp_w / 1000.0 * own_hours * kwh_usd
    rents: list[RentCost] = []
    for gid in rent_gpus:
        for q in P.cloud_prices(catalog, gid):
            rel = (speeds.get(gid) or 1.0) / base_speed
            h = hours / rel
            rents.append(
                RentCost(
                    gpu=gid,
                    provider_kind=q.provider_kind or P.ProviderKind.UNSPECIFIED,
                    usd_per_hour=q.usd,
                    relative_speed=rel,
                    hours=h,
                    usd=h * q.usd,
                    price=q,
                    same_card=gid == own_gpu,
                    break_even_hours=None,
                    break_even_months=None,
                )
            )
    assumptions = (
        Assumption(AssumptionCode.WORKLOAD, model_id or "generic", None, model_id is not None),
        kwh_a,
        Assumption(AssumptionCode.POWER_W, float(catalog.gpus[own_gpu].tdp_w), "W", False),
    )
    return JobCost(JobStatus.OK, (), own_gpu, own_hours, elec, tuple(rents), assumptions)


# --------------------------------------------------------------------------- price sanity


class SanityCode(StrEnum):
    # the card's price is an estimate dated before a newer sibling's observed street price:
    # values: date, sibling, sibling_date
    ESTIMATE_OLDER_THAN_SIBLING_STREET = "estimate_older_than_sibling_street"
    # an older-generation card (before Ampere) costing about what an RTX 3060 12 GB costs:
    # values: usd, reference_usd, vram_gb, reference_vram_gb, relative_speed
    OLDER_GEN_AT_3060_PRICE = "older_gen_at_3060_price"


@dataclass(frozen=True)
class SanityFlag:
    gpu: str
    code: SanityCode
    values: Mapping[str, float | str | None]


SANITY_REFERENCE = "rtx-3060-12gb"
OLDER_ARCHITECTURES = frozenset({"pascal", "volta", "turing"})
MEMORY_SLACK_GB = 1.0  # 11 GB against 12 GB is not "less memory" for this rule
SAME_PRICE_BAND = (0.5, 1.4)  # "about the same price" as the RTX 3060 12 GB (a $120 2060 counts: issue 14)


def _generation_key(g: Any) -> str:
    """Siblings: same vendor and segment (a newer release of the same line of cards)."""
    return f"{g.vendor}/{g.segment}"


def price_sanity(catalog: Catalog, gpu: str, *, condition: str | None = None) -> tuple[SanityFlag, ...]:
    """Reasons not to name ``gpu`` "best value" on its catalog price (empty when none).

    1. Its purchase price is an estimate dated before the observed (not estimated)
       street price of a newer sibling (same vendor and segment, released later):
       the estimate may be out of date against the market the sibling shows.
    2. It is of an older generation (Pascal, Volta, Turing) and costs about what an
       RTX 3060 12 GB costs (0.5-1.4x) while having clearly less memory (more than
       1 GB less) or less speed:
       a 2026 buyer would pick the 3060 (or must be told why not).
    """
    g = catalog.gpus[gpu]
    out: list[SanityFlag] = []
    q = P.purchase_price(catalog, gpu, condition)
    if q is None:
        return ()
    if q.estimated:
        for sid, s in catalog.gpus.items():
            if sid == gpu or _generation_key(s) != _generation_key(g) or s.release <= g.release:
                continue
            sq = P.new_price(catalog, sid)
            if sq is None or sq.estimated or sq.sub is not P.PriceSub.STREET:
                continue
            if P.months_between(q.date, sq.date) > 0:
                out.append(
                    SanityFlag(
                        gpu,
                        SanityCode.ESTIMATE_OLDER_THAN_SIBLING_STREET,
                        {"date": q.date, "sibling": sid, "sibling_date": sq.date},
                    )
                )
                break
    ref = catalog.gpus.get(SANITY_REFERENCE)
    if ref is not None and gpu != SANITY_REFERENCE and g.architecture.lower() in OLDER_ARCHITECTURES:
        rq = P.purchase_price(catalog, SANITY_REFERENCE, condition)
        if rq is not None:
            lo, hi = SAME_PRICE_BAND
            speeds = relative_speeds(catalog)
            rel = speeds.get(gpu, 0.0) / (speeds.get(SANITY_REFERENCE) or 1.0)
            smaller = g.vram_gb < ref.vram_gb - MEMORY_SLACK_GB
            if lo * rq.usd <= q.usd <= hi * rq.usd and (smaller or rel < 1.0):
                out.append(
                    SanityFlag(
                        gpu,
                        SanityCode.OLDER_GEN_AT_3060_PRICE,
                        {
                            "usd": q.usd,
                            "reference_usd": rq.usd,
                            "vram_gb": g.vram_gb,
                            "reference_vram_gb": ref.vram_gb,
                            "relative_speed": rel,
                            "bf16": g.bf16,
                        },
                    )
                )
    return tuple(out)
