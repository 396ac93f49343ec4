"""Phrasing of the one fact a question asked (issue 10): said first, the spec sheet after it."""

from __future__ import annotations

from typing import Any

from bot.core.phrase import fmt
from bot.core.phrase.catalog import t
from bot.core.phrase.common import Env
from bot.core.phrase.replies import Phrased
from bot.core.results import Fact, InfoResult

__all__ = ["with_facts", "fact_line"]


def _n(env: Env, v: Any) -> str:
    return fmt.num(float(v), env.lang, 0 if float(v) == int(v) else 2)


def _b(v: Any) -> str:
    return f"{float(v) / 1e9:.3g}"


def fact_line(env: Env, f: Fact) -> str:
    L = env.lang
    name = f.subject_name
    v = f.value
    if v is None and f.name != "tflops":
        return t(L, "fact.unknown", name=name)
    if f.name in ("bf16", "fp8"):
        return t(L, f"fact.{f.name}_{'yes' if v else 'no'}", name=name)
    if f.name == "heads" and f.extra is not None and f.extra != v:
        return t(L, "fact.heads", name=name, value=_n(env, v), extra=_n(env, f.extra))
    if f.name == "heads":
        return t(L, "fact.heads_mha", name=name, value=_n(env, v))
    if f.name == "kv_heads":
        return t(L, "fact.kv_heads", name=name, value=_n(env, v), extra=_n(env, f.extra or v))
    if f.name == "active_params":
        return t(L, "fact.active_params", name=name, value=_b(v), extra=_b(f.extra or v))
    if f.name == "experts":
        return t(L, "fact.experts", name=name, value=_n(env, v), extra=_n(env, f.extra or 0))
    if f.name == "tflops":
        if v is None:
            return t(L, "fact.tflops_none", name=name, extra=_n(env, f.extra or 0))
        return t(L, "fact.tflops", name=name, value=_n(env, v), extra=_n(env, f.extra or 0))
    if f.name in ("bandwidth", "vram"):
        return t(L, f"fact.{f.name}", name=name, value=_n(env, v), extra=str(f.extra or ""))
    if f.name in ("architecture", "release", "compute_capability"):
        return t(L, f"fact.{f.name}", name=name, value=str(v))
    return t(L, f"fact.{f.name}", name=name, value=_n(env, v))


def with_facts(env: Env, r: InfoResult, out: Phrased) -> Phrased:
    """The facts asked as the verdict; the spec line that led before becomes the first detail."""
    lines = [fact_line(env, f) for f in r.facts]
    return Phrased(
        verdict=lines[0],
        details=[*lines[1:], out.verdict, *out.details],
        assumptions=out.assumptions,
        basis=out.basis,
        reasons=out.reasons,
        price_labels=out.price_labels,
    )
