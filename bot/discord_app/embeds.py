"""Answer -> discord.Embed, always within Discord's embed limits.

Layout: the verdict is the title; the numbers that justify it are the
description; the top picks / fit breakdown / comparison rows are fields; then
what was assumed (and how to change it); the basis of each number and the
price date go in the footer.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

import discord

from bot.core.types import Answer, ComparisonRow, FitEntry, Intent, Recommendation

__all__ = [
    "LIMITS",
    "build_embed",
    "embed_problems",
    "truncate",
    "plain_text",
    "wants_chart",
]

# https://discord.com/developers/docs/resources/message#embed-object-embed-limits
LIMITS = {
    "title": 256,
    "description": 4096,
    "fields": 25,
    "field_name": 256,
    "field_value": 1024,
    "footer": 2048,
    "author": 256,
    "total": 6000,
}
MESSAGE_LIMIT = 2000

_COLOURS = {
    Intent.RECOMMEND: discord.Colour.green(),
    Intent.FIT: discord.Colour.blue(),
    Intent.COMPARE: discord.Colour.purple(),
    Intent.INFO: discord.Colour.teal(),
    Intent.LIST: discord.Colour.light_grey(),
    Intent.HELP: discord.Colour.blurple(),
    Intent.UNKNOWN: discord.Colour.orange(),
}

# Picks shown as fields; the rest are in Answer.text if someone wants them.
MAX_PICK_FIELDS = 5
MAX_FIT_FIELDS = 6
MAX_COMPARE_FIELDS = 6


def truncate(text: str, limit: int) -> str:
    text = text.strip()
    if len(text) <= limit:
        return text
    return text[: max(0, limit - 1)].rstrip() + "…"


def plain_text(answer: Answer) -> str:
    """The plain rendering for channels where embeds are off (<= 2,000 chars)."""
    text = answer.text or "\n".join((answer.verdict, *answer.details, *answer.assumptions, *answer.basis))
    return truncate(text or "…", MESSAGE_LIMIT)


def wants_chart(answer: Answer) -> bool:
    """Recommend and compare replies carry a chart when there is something to plot."""
    rows = [(r.price_usd, r.relative_speed) for r in answer.recommendations] + [
        (c.price_usd, c.relative_speed) for c in answer.comparison
    ]
    return sum(1 for price, speed in rows if price is not None and speed is not None) >= 1


def _gb(value: float | None) -> str:
    if value is None:
        return "?"
    if value >= 100:
        return f"{value:,.0f} GB"
    if value >= 10:
        return f"{value:.0f} GB" if value == int(value) else f"{value:.1f} GB"
    return f"{value:.1f} GB"


def _price(price: float | None, kind: str | None = None, date: str | None = None) -> str:
    if price is None:
        return "price unknown"
    text = f"${price:,.0f}"
    if kind:
        text += f" {kind}"
    if date:
        text += f" ({date})"
    return text


def _speed(speed: float | None, basis: str) -> str:
    if speed is None:
        return "speed unknown"
    return f"{speed:.2f}x ({basis})"


NameOf = Callable[[str, str], str]  # (kind "gpu" | "model", id) -> display name


def _ids(kind: str, ident: str) -> str:
    return ident


_BREAKDOWN_LABELS = {"kv_cache": "KV cache", "overhead": "CUDA + allocator"}
_BREAKDOWN_PART = re.compile(r"^[A-Za-z][\w +/-]* [\d.,]+ [KMGT]i?B$")


def _rec_field(rank: int, rec: Recommendation) -> tuple[str, str]:
    name = f"{rank}. {rec.name}"
    parts = [
        rec.price_label or _price(rec.price_usd, rec.price_kind, rec.price_date),
        f"{_gb(rec.vram_gb)} VRAM",
        _speed(rec.relative_speed, rec.speed_basis),
    ]
    if rec.max_batch_size is not None:
        parts.append(f"batch {rec.max_batch_size}")
    if not rec.fits:
        parts.append("does not fit")
    value = " · ".join(parts)
    if rec.reason:
        value += f"\n{rec.reason}"
    return name, value


def _fit_field(entry: FitEntry, name_of: NameOf) -> tuple[str, str]:
    where = name_of("gpu", entry.gpu) if entry.gpu else "any card"
    if entry.num_gpus > 1:
        where = f"{entry.num_gpus}x {where}"
    verdict = {True: "fits", False: "does not fit", None: "needs"}[entry.fits]
    name = f"{name_of('model', entry.model)} on {where}: {verdict}"
    lines = []
    used = f"about {_gb(entry.required_gb)}" + (" per card" if entry.num_gpus > 1 else "")
    if entry.capacity_gb is not None:
        # both figures in 1e9-byte GB: a card sold as "24 GB" holds 25.8 GB
        used += f" of {_gb(entry.capacity_gb)}"
    if entry.headroom_gb is not None and entry.fits:
        used += f" ({_gb(entry.headroom_gb)} spare)"
    lines.append(used)
    if entry.breakdown_gb:
        lines.append(
            " | ".join(
                f"{_BREAKDOWN_LABELS.get(k, k.replace('_', ' '))} {_gb(v)}"
                for k, v in entry.breakdown_gb.items()
                if v
            )
        )
    if entry.max_batch_size:
        seq = entry.assumptions.get("seq_len") if entry.assumptions else None
        lines.append(f"largest batch: {entry.max_batch_size}" + (f" at seq {seq}" if seq else ""))
    lines.append(f"memory {entry.basis}" + (f": {entry.measured_note}" if entry.measured_note else ""))
    return name, "\n".join(lines)


def _compare_field(row: ComparisonRow) -> tuple[str, str]:
    parts = [f"{_gb(row.vram_gb)} VRAM", row.price_label or _price(row.price_usd, None, row.price_date)]
    if row.fits is not None:
        parts.append("fits" if row.fits else "does not fit")
    if row.max_batch_size is not None:
        parts.append(f"batch {row.max_batch_size}")
    parts.append(_speed(row.relative_speed, row.speed_basis))
    if row.value is not None:
        parts.append(f"{row.value:.2f} speed per $1k")
    if row.tdp_w is not None:
        parts.append(f"{row.tdp_w} W")
    return row.name, " · ".join(parts)


def _price_dates(answer: Answer) -> list[str]:
    dates = {r.price_date for r in answer.recommendations if r.price_date}
    dates |= {c.price_date for c in answer.comparison if c.price_date}
    return sorted(dates)


def _join(lines: Iterable[str]) -> str:
    return "\n".join(line for line in lines if line and line.strip())


def _description_lines(answer: Answer) -> list[str]:
    """``details`` without the lines the fields already show (pick lines, row
    lines, the memory breakdown); parser notes always stay."""
    notes = set(answer.query.notes)
    row_names = [c.name for c in answer.comparison]
    out = []
    for line in answer.details:
        if line not in notes:
            if answer.recommendations and re.match(r"^\d+\. ", line):
                continue
            if row_names and any(line.startswith(f"{n}:") for n in row_names):
                continue
            if answer.fit and all(_BREAKDOWN_PART.match(p.strip()) for p in line.split("|")):
                continue
        out.append(line)
    return out


def build_embed(answer: Answer, name_of: NameOf = _ids) -> discord.Embed:
    """Render an Answer as one embed; every Discord limit is respected.

    ``name_of`` turns the ids in fit entries into display names."""
    embed = discord.Embed(
        title=truncate(answer.verdict or "…", LIMITS["title"]),
        colour=_COLOURS.get(answer.intent, discord.Colour.blurple()),
    )

    fields: list[tuple[str, str]] = []
    if answer.recommendations:
        fields += [_rec_field(i, r) for i, r in enumerate(answer.recommendations[:MAX_PICK_FIELDS], 1)]
    if answer.fit:
        fields += [_fit_field(f, name_of) for f in answer.fit[:MAX_FIT_FIELDS]]
    if answer.comparison:
        fields += [_compare_field(c) for c in answer.comparison[:MAX_COMPARE_FIELDS]]

    description = _join(_description_lines(answer))
    if description:
        embed.description = truncate(description, LIMITS["description"])

    if answer.assumptions:
        fields.append(("Assumed (say it differently to change it)", _join(answer.assumptions)))
    suggestions = [s for s in answer.suggestions[:5] if s.strip() and s.strip() != answer.verdict.strip()]
    if suggestions:
        fields.append(("Try", _join(f"• {s}" for s in suggestions)))

    for name, value in fields[: LIMITS["fields"]]:
        embed.add_field(
            name=truncate(name or "\u200b", LIMITS["field_name"]),
            value=truncate(value or "\u200b", LIMITS["field_value"]),
            inline=False,
        )

    footer_parts = list(answer.basis)
    dates = _price_dates(answer)
    if dates and not any("price" in b.lower() for b in answer.basis):
        footer_parts.append("Prices as of " + ", ".join(dates))
    if answer.sources and answer.intent is not Intent.INFO:
        footer_parts.append("Sources: /gpu info <card or model>")
    elif answer.sources:
        footer_parts += list(answer.sources)
    footer = "\n".join(p.strip() for p in footer_parts if p.strip())
    if footer:
        embed.set_footer(text=truncate(footer, LIMITS["footer"]))

    _shrink_to_total(embed)
    return embed


def _shrink_to_total(embed: discord.Embed) -> None:
    """Keep the whole embed under 6,000 characters: trim the description, then
    the sources at the end of the footer, then drop fields from the end."""
    limit = LIMITS["total"]
    if len(embed) <= limit:
        return
    if embed.description:
        excess = len(embed) - limit
        keep = max(0, len(embed.description) - excess)
        embed.description = truncate(embed.description, keep) if keep > 1 else None
    if len(embed) > limit and embed.footer.text and len(embed.footer.text) > 600:
        embed.set_footer(text=truncate(embed.footer.text, 600))
    while len(embed) > limit and embed.fields:
        embed.remove_field(len(embed.fields) - 1)
    if len(embed) > limit and embed.footer.text:
        excess = len(embed) - limit
        embed.set_footer(text=truncate(embed.footer.text, max(1, len(embed.footer.text) - excess)))


def embed_problems(embed: discord.Embed) -> list[str]:
    """Every Discord limit the embed breaks (empty when it is sendable)."""
    problems: list[str] = []
    if embed.title and len(embed.title) > LIMITS["title"]:
        problems.append(f"title {len(embed.title)} > {LIMITS['title']}")
    if embed.description and len(embed.description) > LIMITS["description"]:
        problems.append(f"description {len(embed.description)} > {LIMITS['description']}")
    if len(embed.fields) > LIMITS["fields"]:
        problems.append(f"{len(embed.fields)} fields > {LIMITS['fields']}")
    for i, field in enumerate(embed.fields):
        if not field.name or len(field.name) > LIMITS["field_name"]:
            problems.append(f"field {i} name length {len(field.name or '')}")
        if not field.value or len(field.value) > LIMITS["field_value"]:
            problems.append(f"field {i} value length {len(field.value or '')}")
    if embed.footer.text and len(embed.footer.text) > LIMITS["footer"]:
        problems.append(f"footer {len(embed.footer.text)} > {LIMITS['footer']}")
    if len(embed) > LIMITS["total"]:
        problems.append(f"total {len(embed)} > {LIMITS['total']}")
    return problems
