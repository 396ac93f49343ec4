"""Rent-or-buy and deal results, phrased (issue #14)."""

from __future__ import annotations

from typing import Any

from bot.core.names import card_label
from bot.core.phrase import fmt
from bot.core.phrase.catalog import t
from bot.core.phrase.common import Env, enum_word, gb_band, join
from bot.core.phrase.replies import Phrased
from bot.core.results import DealResult, RentBuyResult, WhichCardResult
from bot.core.types import Lang

__all__ = ["rent_buy", "deal", "which_card", "stale_line"]


def _card(r: Any, gid: str) -> str:
    g = r.cards.get(gid)
    return card_label(g) if g is not None else gid


def _month(env: Env, date: str) -> str:
    return fmt.month(date[:7], env.lang)


def stale_line(env: Env, dates: list[str] | tuple[str, ...], months: int) -> str | None:
    if not dates:
        return None
    shown = join(env, [_month(env, d) for d in sorted(set(dates))])
    return t(env.lang, "price.stale", dates=shown, months=months)


def _quote(env: Env, q: Any) -> str:
    """'$1,550 used (May 2026)', 'est.' when estimated, 'your price' when quoted."""
    kind = enum_word(env, "price.kind", q.kind.value if q.sub is None else q.sub.value)
    est = t(env.lang, "price.est") if q.estimated else ""
    if q.origin == "quoted":
        return t(env.lang, "price.quoted", price=fmt.usd(q.usd, env.lang))
    return t(
        env.lang, "price.quote", price=fmt.usd(q.usd, env.lang), kind=kind, est=est, date=_month(env, q.date)
    )


def rent_buy(env: Env, r: RentBuyResult) -> Phrased:
    L = env.lang
    rob = r.rob
    card = _card(r, rob.gpu)
    a = {x.code.value: x for x in rob.assumptions}
    hpd = a["hours_per_day"].value if "hours_per_day" in a else None
    years = a["years"].value if "years" in a else None
    hpd_s = fmt.num(float(hpd or 0), L, 0 if float(hpd or 0).is_integer() else 1)
    yrs_s = fmt.num(float(years or 0), L, 0 if float(years or 0).is_integer() else 1)
    if L is Lang.EN:  # the English sentences carry the unit with the number: "1 year", "3 years"
        yrs_s = f"{yrs_s} year" + ("" if float(years or 0) == 1 else "s")
    cheapest = min(rob.rent, key=lambda x: x.usd, default=None)
    details: list[str] = []
    if r.rent_card is not None and rob.own is not None and not r.no_cloud:
        # "rent an A100 or buy a 3090?": owning one card against renting the other (issue 10)
        verdict, line = _rent_card(env, r, hpd_s, yrs_s)
        details.append(line)
        fit = _rent_card_fit(env, r)
        if fit is not None and r.rent_card.fits_buy is False:  # the card to buy cannot do the work: first
            verdict, details = fit, [verdict, *details]
        elif fit is not None:
            details.insert(0, fit)
        x = r.rent_card
        if x.buy_count > 1 or x.rent_count > 1:  # "buy two 3090s": said, never costed silently as one
            counts = t(
                L,
                "rob.cross.per_card",
                buy=_card(r, x.buy_gpu),
                rent=_card(r, x.rent_gpu),
                buy_n=fmt.num(x.buy_count, L),
                rent_n=fmt.num(x.rent_count, L),
            )
            details.insert(0, counts)
    elif r.no_cloud and rob.own is not None:
        # "no cloud": what owning costs, rent options left out and said so (issue 14)
        verdict = t(L, "money.own_only", card=card, own=fmt.usd(rob.own.usd, L), years=yrs_s, hpd=hpd_s)
        details.append(t(L, "money.no_cloud_rob", card=card))
    elif rob.own is None or not rob.rent:
        verdict = t(L, "rob.no_price", card=card)
    elif rob.verdict.value == "buy_cheaper" and rob.break_even_hours is not None:
        verdict = t(
            L,
            "rob.buy",
            card=card,
            hpd=hpd_s,
            hours=fmt.num(rob.break_even_hours, L),
            months=fmt.num(rob.break_even_months or 0, L, 1),
            own=fmt.usd(rob.own.usd, L),
            rent=fmt.usd(cheapest.usd, L) if cheapest else "?",
            years=yrs_s,
        )
    elif rob.break_even_hours is None:
        verdict = t(L, "rob.never", card=card, hpd=hpd_s)
    else:
        verdict = t(
            L,
            "rob.rent",
            card=card,
            hpd=hpd_s,
            years=yrs_s,
            own=fmt.usd(rob.own.usd, L),
            rent=fmt.usd(cheapest.usd, L) if cheapest else "?",
            hours=fmt.num(rob.break_even_hours, L),
        )
    if rob.own is not None:
        o = rob.own
        kwh_price = a["kwh_price_usd"].value if "kwh_price_usd" in a else 0
        details.append(
            t(
                L,
                "rob.own",
                price=_quote(env, o.price),
                elec=fmt.usd(o.electricity_usd, L),
                kwh=fmt.num(o.kwh, L),
                kwh_price=fmt.usd_cents(float(kwh_price), L),
                years=yrs_s,
                resale=fmt.usd(o.resale_usd, L),
                resale_basis=t(L, f"rob.resale.{o.resale_basis.value}"),
                total=fmt.usd(o.usd, L),
            )
        )
    for x in sorted(rob.rent, key=lambda x: x.usd)[:3]:
        faster = "" if x.same_card else t(L, "rob.faster", x=fmt.num(x.relative_speed, L, 1))
        details.append(
            t(
                L,
                "rob.rent_line",
                card=_card(r, x.gpu),
                provider=enum_word(env, "provider", x.provider_kind.value),
                per_hour=fmt.usd_cents(x.usd_per_hour, L),
                date=_month(env, x.price.date),
                faster=faster,
                hours=fmt.num(x.hours, L),
                usd=fmt.usd(x.usd, L),
                be=t(L, "rob.rent_be", hours=fmt.num(x.break_even_hours, L)) if x.break_even_hours else "",
            )
        )
    if r.rent_unpriced is not None and not r.no_cloud:
        details.insert(0, t(L, "rob.cross.unpriced", rent=_card(r, r.rent_unpriced), buy=card))
    said = [x for x in rob.assumptions if not x.given and x.code.value in _ASSUMED and x.value != "any"]
    parts = [_assumption(env, x) for x in said]
    assumptions = [t(L, "rob.assumed", parts=join(env, parts))] if parts else []
    basis = [t(L, "rob.basis")]
    stale = stale_line(env, rob.stale_dates, 6)
    if stale:
        basis.append(stale)
    return Phrased(verdict=verdict, details=details, assumptions=assumptions, basis=basis)


def _rent_card(env: Env, r: RentBuyResult, hpd: str, years: str) -> tuple[str, str]:
    """The verdict and the per-hour line of "rent card A or buy card B" (issue 10)."""
    L = env.lang
    x = r.rent_card
    rob = r.rob
    buy, rent = _card(r, x.buy_gpu), _card(r, x.rent_gpu)
    rent_total = min((o.usd for o in rob.rent if o.gpu == x.rent_gpu), default=0.0)
    own = rob.own.usd if rob.own is not None else 0.0
    if x.break_even_hours is None:
        verdict = t(L, "rob.cross.never", buy=buy, rent=rent, hpd=hpd)
    else:
        key = "rob.cross.buy" if own < rent_total else "rob.cross.rent"
        verdict = t(
            L,
            key,
            buy=buy,
            rent=rent,
            hpd=hpd,
            years=years,
            hours=fmt.num(x.break_even_hours, L),
            months=fmt.num(x.break_even_months or 0, L, 1),
            own=fmt.usd(own, L),
            rent_total=fmt.usd(rent_total, L),
        )
    workload = (
        t(L, "rob.cross.workload_model", model=x.workload_name)
        if x.workload_name
        else t(L, "rob.cross.workload_generic")
    )
    speed = x.relative_speed
    line = t(
        L,
        "rob.cross.per_hour",
        buy=buy,
        rent=rent,
        own_h=fmt.usd_cents(x.own_usd_per_hour or 0.0, L),
        use_hours=fmt.num(rob.own.hours if rob.own is not None else 0.0, L),
        rent_h=fmt.usd_cents(x.rent_usd_per_hour, L),
        x=fmt.num(round(speed, 2 if speed < 1 else 1), L, 2 if speed < 1 else 1),
        workload=workload,
        rent_w=fmt.usd_cents(x.rent_usd_per_work_hour, L),
    )
    return verdict, line


def _rent_card_fit(env: Env, r: RentBuyResult) -> str | None:
    """The named model does not fit one of the two cards as asked: said (the costs compare speed)."""
    x = r.rent_card
    if (
        x.required_gb is None
        or x.workload_name is None
        or (x.fits_buy is not False and x.fits_rent is not False)
    ):
        return None
    L = env.lang
    band = x.required_gb_band or (None, None)
    need = gb_band(env, x.required_gb, band[0], band[1])
    buy, rent = _card(r, x.buy_gpu), _card(r, x.rent_gpu)
    if x.fits_buy is False and x.fits_rent is False:
        return t(L, "rob.cross.fits_neither", model=x.workload_name, need=need, buy=buy, rent=rent)
    key = "rob.cross.fits_rent_only" if x.fits_buy is False else "rob.cross.fits_buy_only"
    return t(L, key, model=x.workload_name, need=need, buy=buy, rent=rent)


_ASSUMED = ("hours_per_day", "years", "kwh_price_usd", "power_w", "resale_retention_per_year", "condition")


def _assumption(env: Env, x: Any) -> str:
    L = env.lang
    v = x.value
    code = x.code.value
    if code == "kwh_price_usd":
        return t(L, "rob.a.kwh", v=fmt.usd_cents(float(v), L))
    if code == "resale_retention_per_year":
        return t(L, "rob.a.retention", v=fmt.percent(float(v), L))
    if code == "condition":
        return t(L, "rob.a.condition", v=enum_word(env, "price.kind", v))
    num = fmt.num(float(v), L, 0 if float(v).is_integer() else 1) if isinstance(v, int | float) else str(v)
    return t(L, f"rob.a.{code}", v=num)


def deal(env: Env, r: DealResult) -> Phrased:
    L = env.lang
    d = r.deal
    card = _card(r, d.gpu)
    cond = enum_word(env, "price.kind", d.condition.value)
    price = fmt.usd(d.quoted_usd, L)
    x = r.quoted
    if (
        x is not None
        and x.currency != "USD"
        and x.usd is not None
        and abs(float(x.usd) - d.quoted_usd) < 0.01
    ):
        # "9000" after yuan were said: the amount as read, then in dollars ("¥9,000 (about $1,317)")
        amount = fmt.money(float(x.amount), str(x.currency), L)
        price = t(L, "compare.quoted_other", amount=amount, usd=price)
    ref = d.reference
    if d.verdict.value == "unknown" or ref is None:
        verdict = t(L, "deal.unknown", card=card, price=price)
    else:
        pct = fmt.percent(abs(1 - (d.ratio or 1)), L)
        verdict = t(
            L,
            f"deal.{d.verdict.value}",
            card=card,
            price=price,
            cond=cond,
            pct=pct,
            ref=_quote(env, ref),
        )
    details: list[str] = []
    stale_dates: list[str] = []
    for reason in d.reasons:
        c = reason.code.value
        v = dict(reason.values)
        if c == "above_new_price" and d.new_reference is not None:
            details.append(t(L, "deal.above_new", new=_quote(env, d.new_reference)))
        elif c == "cheaper_alternative" and v.get("gpu"):
            details.append(
                t(
                    L,
                    "deal.alternative",
                    card=_card(r, str(v["gpu"])),
                    usd=fmt.usd(float(v.get("usd") or 0), L),
                    kind=enum_word(env, "price.kind", v.get("kind")),
                    x=fmt.num(round(float(v.get("relative_speed") or 0), 2), L, 2),
                    vram=f"{float(v.get('vram_gb') or 0):g}",
                )
            )
        elif c == "reference_estimated":
            details.append(t(L, "deal.ref_estimated"))
        elif c == "reference_stale" and v.get("date"):
            stale_dates.append(str(v["date"]))
        elif c == "not_a_purchase":
            details.append(t(L, "deal.not_a_purchase", card=card))
    if not d.condition_given:
        details.append(t(L, "deal.condition_taken", cond=cond))
    if d.risks:
        details.append(t(L, "deal.risks", risks=join(env, [t(L, f"risk.{k.code}") for k in d.risks])))
    basis = [t(L, "deal.basis")]
    if d.risks:
        basis.append(t(L, "deal.risk_source", source=d.risks[0].source))
    stale = stale_line(env, stale_dates, 6)
    if stale:
        basis.append(stale)
    return Phrased(verdict=verdict, details=details, basis=basis)


def which_card(env: Env, r: WhichCardResult) -> Phrased:
    return Phrased(verdict=t(env.lang, f"which_card.{r.kind}"))
