"""Speed-against-price chart for recommend and compare replies.

matplotlib is imported lazily (first chart, not bot start-up) with the Agg
backend, and ``render_chart_file`` renders in a worker thread so the event
loop never blocks. Rendering is serialised with a lock: pyplot's state is
not thread-safe, and we use the object API (Figure) only, which is.
"""

from __future__ import annotations

import asyncio
import io
import logging
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import discord

from bot.core.phrase import fmt
from bot.core.phrase.catalog import t
from bot.core.types import Answer

__all__ = ["ChartPoint", "chart_points", "render_chart", "render_chart_file", "CHART_FILENAME"]

log = logging.getLogger(__name__)

CHART_FILENAME = "gpu-chart.png"
_lock = threading.Lock()
_CACHE_SIZE = 64
_cache: OrderedDict[tuple[str, tuple[ChartPoint, ...]], bytes] = OrderedDict()


@dataclass(frozen=True)
class ChartPoint:
    name: str
    price_usd: float
    speed: float
    vram_gb: float
    pick: bool
    basis: str
    fits: bool = True
    labelled: bool = True


def _pool(answer: Answer, picked: set[str]) -> list[ChartPoint]:
    """The other cards the recommendation weighed (``Answer.candidates``), near the
    budget, as the background."""
    prices = [r.price_usd for r in answer.recommendations if r.price_usd]
    ceiling = max([*(p * 1.5 for p in prices), (answer.query.budget_usd or 0) * 1.5]) or float("inf")
    return [
        ChartPoint(
            c.name,
            c.price_usd,
            c.relative_speed,
            c.vram_gb,
            False,
            c.speed_basis,
            bool(c.fits),
            labelled=False,
        )
        for c in answer.candidates
        if c.gpu not in picked
        and c.price_usd is not None
        and c.relative_speed is not None
        and c.price_usd <= ceiling
    ]


def chart_points(answer: Answer) -> list[ChartPoint]:
    """What to plot: for a recommendation, the picks (highlighted) over the other
    candidates near the budget; for a comparison, its rows (the faster one
    highlighted). Rows without a price or a speed cannot be placed."""
    points: list[ChartPoint] = []
    for rec in answer.recommendations:
        if rec.price_usd is None or rec.relative_speed is None:
            continue
        points.append(
            ChartPoint(
                rec.name, rec.price_usd, rec.relative_speed, rec.vram_gb, True, rec.speed_basis, rec.fits
            )
        )
    if points:
        points = _pool(answer, {r.gpu for r in answer.recommendations}) + points
    rows = [c for c in answer.comparison if c.price_usd is not None and c.relative_speed is not None]
    fastest = max((c.relative_speed or 0.0 for c in rows), default=None)
    for c in rows:
        assert c.price_usd is not None and c.relative_speed is not None
        points.append(
            ChartPoint(
                c.name, c.price_usd, c.relative_speed, c.vram_gb, c.relative_speed == fastest, c.speed_basis
            )
        )
    return points


def render_chart(answer: Answer) -> bytes | None:
    """PNG bytes, or None when there is nothing to plot. Synchronous: call it
    from a worker thread (``render_chart_file`` does). Popular questions repeat,
    so the last few charts are kept."""
    points = chart_points(answer)
    if not points:
        return None
    key = (_title(answer), tuple(points))
    with _lock:
        cached = _cache.get(key)
        if cached is not None:
            _cache.move_to_end(key)
            return cached
        data = _draw(answer, points)
        _cache[key] = data
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
        return data


def _draw(answer: Answer, points: list[ChartPoint]) -> bytes:
    """Draw with the object API (Figure, not pyplot) on the Agg backend."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    from matplotlib.figure import Figure

    lang = answer.language
    fig = Figure(figsize=(7, 4.2), dpi=100)
    if lang.is_zh:
        _use_cjk_font(matplotlib)
    ax = fig.add_subplot(1, 1, 1)
    max_vram = max(p.vram_gb for p in points) or 1.0
    # labels of the picks alternate above and below their marker so neighbours do not overlap
    offsets = iter([(10, 10), (10, -16), (10, 22), (10, -28)] * 8)
    for p in sorted(points, key=lambda p: p.price_usd):
        size = 40 + 360 * (p.vram_gb / max_vram)
        colour = "#2ecc71" if p.pick else ("#5865f2" if p.fits else "#b0b0b0")
        ax.scatter(
            [p.price_usd],
            [p.speed],
            s=size,
            c=colour,
            alpha=0.95 if p.pick else 0.45,
            edgecolors="black" if p.pick else "none",
            linewidths=1.5,
            marker="o" if p.basis == "measured" else "D",
            zorder=3 if p.pick else 2,
        )
        if p.labelled:
            label = p.name if "GB" in p.name else f"{p.name} {p.vram_gb:g} GB"
            ax.annotate(
                label,
                (p.price_usd, p.speed),
                textcoords="offset points",
                xytext=next(offsets),
                fontsize=8,
                arrowprops={"arrowstyle": "-", "color": "0.4", "linewidth": 0.6},
                bbox={"boxstyle": "round,pad=0.2", "fc": "white", "ec": "none", "alpha": 0.8},
                zorder=4,
            )
        else:
            ax.annotate(
                f"{p.vram_gb:g}", (p.price_usd, p.speed), ha="center", va="center", fontsize=6, alpha=0.8
            )
    budget = answer.query.budget_usd
    if budget and answer.recommendations:
        ax.axvline(
            budget,
            color="#e67e22",
            linestyle="--",
            linewidth=1,
            label=t(lang, "chart.budget", amount=fmt.usd(budget, lang)),
        )
        ax.legend(loc="lower right", fontsize=8)
    ax.set_xlabel(t(lang, "chart.x"))
    ax.set_ylabel(t(lang, "chart.y"))
    ax.set_title(_title(answer), fontsize=10)
    ax.grid(True, alpha=0.3)
    ax.margins(x=0.25, y=0.25)
    ax.set_xlim(left=0)
    ax.set_ylim(bottom=0)
    fig.text(
        0.01,
        0.01,
        t(lang, "chart.legend"),
        fontsize=7,
        alpha=0.7,
    )
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    return buf.getvalue()


# fonts with CJK glyphs, in order of preference; the Docker image installs fonts-wqy-microhei
CJK_FONTS = (
    "WenQuanYi Micro Hei",
    "Noto Sans CJK SC",
    "Noto Sans CJK JP",
    "Source Han Sans SC",
    "Droid Sans Fallback",
)


def _use_cjk_font(matplotlib: Any) -> None:
    """Put the first installed CJK font ahead of DejaVu Sans, so Chinese labels are not boxes."""
    from matplotlib import font_manager

    have = {f.name for f in font_manager.fontManager.ttflist}
    found = [f for f in CJK_FONTS if f in have]
    if found:
        matplotlib.rcParams["font.sans-serif"] = [*found, *matplotlib.rcParams["font.sans-serif"]]
    else:
        log.warning(
            "no CJK font installed: Chinese chart labels will not render (install fonts-wqy-microhei)"
        )


def _title(answer: Answer) -> str:
    verdict = answer.verdict
    return verdict if len(verdict) <= 80 else verdict[:79] + "…"


async def render_chart_file(answer: Answer) -> discord.File | None:
    """Render in a worker thread; any failure is logged and means no chart."""
    try:
        data = await asyncio.to_thread(render_chart, answer)
    except Exception:
        log.exception("chart rendering failed for %r", answer.verdict)
        return None
    if data is None:
        return None
    return discord.File(io.BytesIO(data), filename=CHART_FILENAME)
