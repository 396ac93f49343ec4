"""fmt.gb and fmt.ratio format without round(v, n) first (format rounds the exact value to n places
as round does): the same text as round-then-format on figures of every size, halves included."""

from __future__ import annotations

import random
import struct

from bot.core.phrase import fmt
from bot.core.types import Lang


def _num(value: float, lang: Lang, digits: int = 0) -> str:
    out = f"{value:,.{digits}f}"
    table = fmt._symbols(lang)
    return out if table is None else out.translate(table)


def _gb(v: float, lang: Lang) -> str:  # the rounding as it was written before
    if v >= 100:
        return f"{_num(round(v), lang)} GB"
    if v >= 10:
        return f"{_num(round(v, 1), lang, 1)} GB"
    if v < 1:
        return f"{_num(round(v, 2), lang, 2)} GB"
    return f"{_num(round(v, 1), lang, 1)} GB"


def _outcome(fn, *args):  # type: ignore[no-untyped-def]
    try:
        return fn(*args)
    except (OverflowError, ValueError) as e:
        return type(e)


def test_gb_and_ratio_match_round_then_format() -> None:
    rng = random.Random(11)
    values: list[float] = [
        0,
        -0.0,
        0.005,
        0.015,
        0.125,
        0.995,
        9.95,
        9.999,
        99.95,
        99.96,
        100.5,
        101.5,
        1e300,
    ]
    values += [k / 1000 for k in range(0, 20_000)] + [k / 200 for k in range(0, 4_000)]
    values += [rng.uniform(0, 200) for _ in range(5_000)]
    values += [struct.unpack("d", struct.pack("Q", rng.getrandbits(64)))[0] for _ in range(5_000)]
    values += [float("nan"), float("inf")]
    for lang in (Lang.EN, Lang.ZH_HANS):
        for v in values:
            assert _outcome(fmt.gb, v, lang) == _outcome(_gb, v, lang), v
            assert _outcome(fmt.ratio, v, lang) == _outcome(
                lambda x, L: f"{_num(round(x, 2), L, 2)}x", v, lang
            ), v


def test_num_rounds_as_round_does() -> None:
    # the phrasing passes a ratio straight to num(v, lang, n) where it wrote num(round(v, n), lang, n)
    rng = random.Random(12)
    values = (
        [k / 1000 for k in range(0, 5_000)]
        + [rng.uniform(0, 50) for _ in range(5_000)]
        + [0.05, 0.15, 0.25, 2.675]
    )
    for n in (1, 2):
        for v in values:
            assert fmt.num(v, Lang.EN, n) == fmt.num(round(v, n), Lang.EN, n), (v, n)
