"""Several cards in words (issues 10, 17): a mixed machine per card, a choice between setups."""

from __future__ import annotations

from bot.core.names import short_name
from bot.core.phrase import fmt
from bot.core.phrase.catalog import t
from bot.core.phrase.common import Env, format_label, join
from bot.core.phrase.replies import Phrased
from bot.core.results import MultiDecision, MultiResult, Setup

__all__ = ["multi", "setup_name"]


def setup_name(s: Setup) -> str:
    return " + ".join(f"{n}x {short_name(g)}" if n > 1 else short_name(g) for g, n in s.cards)


def _tps(env: Env, s: Setup) -> str:
    if s.tokens_per_s is None:
        return ""
    return t(
        env.lang,
        "multi.speed" if s.unit == "tokens/s" else "multi.speed_train",
        tps=fmt.num(s.tokens_per_s, env.lang),
        low=fmt.num(s.low or 0, env.lang),
        high=fmt.num(s.high or 0, env.lang),
    )


def _price(env: Env, s: Setup) -> str:
    if s.price_usd is None:
        return t(env.lang, "multi.no_price")
    key = "multi.price_used" if s.price_used else "multi.price"
    return t(env.lang, key, usd=fmt.usd(s.price_usd, env.lang), date=fmt.month(s.price_date or "", env.lang))


def _per_card(env: Env, s: Setup) -> str:
    L = env.lang
    if s.split == "layer" and len({c.gpu.id for c in s.per_card}) > 1:
        parts = [
            t(
                L,
                "multi.card_share",
                card=short_name(c.gpu),
                share=fmt.num(c.share * 100, L),
                gb=fmt.gb(c.need_gb, L),
                cap=fmt.gb(c.capacity_gb, L),
            )
            for c in s.per_card
        ]
        return join(env, parts)
    if len({c.gpu.id for c in s.per_card}) > 1:
        parts = [
            t(
                L,
                "multi.card_need",
                card=short_name(c.gpu),
                gb=fmt.gb(c.need_gb, L),
                cap=fmt.gb(c.capacity_gb, L),
            )
            for c in s.per_card
        ]
        return join(env, parts)
    c = s.per_card[0]
    return t(L, "multi.card_each", gb=fmt.gb(c.need_gb, L), cap=fmt.gb(c.capacity_gb, L))


def _link(env: Env, s: Setup) -> str:
    return t(env.lang, f"multi.link_{s.interconnect}")


def _setup_line(env: Env, s: Setup, name: str) -> str:
    L = env.lang
    if s.build_id is None:  # training: no build to name
        fit = t(L, "multi.fits_plain" if s.fits else "multi.no_fit_plain")
    else:
        fit_key = "multi.fits_build" if s.fits else "multi.no_fit_build"
        fit = t(L, fit_key, build=format_label(s.build_id))
    return t(
        L,
        "multi.setup_line",
        setup=name,
        total=fmt.gb(s.total_vram_gb, L),
        per_card=_per_card(env, s),
        fit=fit,
        speed=_tps(env, s),
        link=_link(env, s),
        price=_price(env, s),
    )


def _split_lines(env: Env, r: MultiResult, s: Setup, alt: float | None) -> list[str]:
    L = env.lang
    out: list[str] = []
    if s.split == "layer" and s.fits:
        ts = ",".join(str(max(1, round(c.share * 100))) for c in s.per_card)
        out.append(t(L, "multi.ts", setup=setup_name(s), ts=ts))
    if s.tp_blocked == "unequal":
        out.append(t(L, "multi.tp_unequal"))
    elif s.tp_blocked == "heads":
        out.append(t(L, "multi.tp_heads", n=s.count, heads=r.model.heads or 0))
    if alt is not None and s.fits and r.task == "inference":
        out.append(t(L, "multi.tp_alt", setup=setup_name(s), tps=fmt.num(alt, L), link=_link(env, s)))
    if s.bridge_possible and r.task == "inference":
        out.append(t(L, "multi.bridge", card=short_name(s.cards[0][0])))
    return out


def multi(env: Env, r: MultiResult) -> Phrased:
    L = env.lang
    names = [setup_name(s) for s in r.setups]
    details: list[str] = []
    alts = list(r.tp_alt) + [None] * (len(r.setups) - len(r.tp_alt))
    for s, name, alt in zip(r.setups, names, alts, strict=True):
        details.append(_setup_line(env, s, name))
        details += _split_lines(env, r, s, alt)
    if any(s.interconnect == "pcie" for s in r.setups):
        details.append(t(L, "multi.no_p2p"))
    if r.task == "inference" and any(s.split == "layer" for s in r.setups):
        details.append(t(L, "multi.layer_speed"))
    if r.task != "inference":
        details.append(t(L, "multi.train_pool"))
    d = r.decision
    best = r.setups[r.best] if r.best is not None else None
    model = r.model.name
    if d is MultiDecision.SINGLE and r.task != "inference" and not r.setups[0].fits:
        s = r.setups[0]
        small = min(s.per_card, key=lambda c: c.capacity_gb)
        verdict = t(
            L,
            "multi.train_no",
            model=model,
            setup=names[0],
            need=fmt.gb(small.need_gb, L),
            card=short_name(small.gpu),
            cap=fmt.gb(small.capacity_gb, L),
        )
        if s.alone is not None and s.alone_gb is not None:
            details.insert(0, t(L, "multi.train_alone", card=short_name(s.alone), gb=fmt.gb(s.alone_gb, L)))
    elif d is MultiDecision.SINGLE:
        s = r.setups[0]
        verdict = t(
            L,
            "multi.mixed_yes" if s.fits else "multi.mixed_no",
            model=model,
            setup=names[0],
            total=fmt.gb(s.total_vram_gb, L),
            build=format_label(s.build_id) if s.build_id else (s.build_precision or ""),
            speed=_tps(env, s),
        )
    elif d is MultiDecision.NONE_FIT:
        verdict = t(L, "multi.none_fit", model=model, setups=join(env, names))
    else:
        assert best is not None and r.best is not None
        others = [n for i, n in enumerate(names) if i != r.best]
        verdict = t(
            L,
            f"multi.decide_{d.value}",
            model=model,
            best=names[r.best],
            others=join(env, others),
            build=format_label(best.build_id) if best.build_id else (best.build_precision or ""),
            speed=_tps(env, best),
            price=_price(env, best),
        )
    assumptions = [
        t(
            L,
            "multi.assumed_inference" if r.task == "inference" else "multi.assumed_training",
            ctx=fmt.num(r.context_tokens, L),
        )
    ]
    if any(s.used_asked for s in r.setups):
        assumptions.append(t(L, "multi.assumed_used"))
    basis = [t(L, "multi.basis")]
    labels = [_price(env, s) for s in r.setups]
    return Phrased(
        verdict=verdict, details=details, assumptions=assumptions, basis=basis, price_labels=labels
    )
