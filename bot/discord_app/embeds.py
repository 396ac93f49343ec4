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

from bot.core.phrase import fmt
from bot.core.phrase.catalog import t
from bot.core.types import Answer, ComparisonRow, FitEntry, Intent, Lang, Recommendation

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


def _gb(value: float | None, lang: Lang = Lang.EN) -> str:
    if value is None:
        return "?"
    if value >= 10 and value == int(value):
        return f"{fmt.num(value, lang)} GB"
    return fmt.gb(value, lang)


def _price(price: float | None, lang: Lang, date: str | None = None) -> str:
    if price is None:
        return t(lang, "embed.price_unknown")
    text = fmt.usd(price, lang)
    if date:
        text += f" ({fmt.month(date, lang)})"
    return text


def _speed(speed: float | None, basis: str, lang: Lang = Lang.EN) -> str:
    if speed is None:
        return t(lang, "embed.speed_unknown")
    return t(
        lang, "embed.speed", x=fmt.ratio(speed, lang), basis=t(lang, f"embed.basis.{basis.replace(' ', '_')}")
    )


NameOf = Callable[[str, str], str]  # (kind "gpu" | "model", id) -> display name


def _ids(kind: str, ident: str) -> str:
    return ident


_BREAKDOWN_PART = re.compile(r"^[^\W\d][^|]* [\d.,]+ [KMGT]i?B$")


def _rec_field(rank: int, rec: Recommendation, lang: Lang = Lang.EN) -> tuple[str, str]:
    name = f"{rank}. {rec.name}"
    parts = [
        rec.price_label or _price(rec.price_usd, lang, rec.price_date),
        t(lang, "embed.vram", gb=_gb(rec.vram_gb, lang)),
        _speed(rec.relative_speed, rec.speed_basis, lang),
    ]
    if rec.max_batch_size is not None:
        parts.append(t(lang, "embed.batch", batch=fmt.num(rec.max_batch_size, lang)))
    if not rec.fits:
        parts.append(t(lang, "cmp.does_not_fit"))
    value = " · ".join(parts)
    if rec.reason:
        value += f"\n{rec.reason}"
    return name, value


def _fit_field(entry: FitEntry, name_of: NameOf, lang: Lang = Lang.EN) -> tuple[str, str]:
    where = name_of("gpu", entry.gpu) if entry.gpu else t(lang, "embed.any_card")
    if entry.num_gpus > 1:
        where = f"{entry.num_gpus}x {where}"
    verdict = t(lang, {True: "embed.fits", False: "embed.does_not_fit", None: "embed.needs"}[entry.fits])
    name = t(lang, "embed.fit_title", model=name_of("model", entry.model), where=where, verdict=verdict)
    lines = []
    per = t(lang, "fit.per_card") if entry.num_gpus > 1 else ""
    used = t(lang, "embed.used", gb=_gb(entry.required_gb, lang), per=per)
    if entry.capacity_gb is not None:
        # both figures in 1e9-byte GB: a card sold as "24 GB" holds 25.8 GB
        used += t(lang, "embed.of", gb=_gb(entry.capacity_gb, lang))
    if entry.headroom_gb is not None and entry.fits:
        used += t(lang, "embed.spare", gb=_gb(entry.headroom_gb, lang))
    lines.append(used)
    if entry.breakdown_gb:
        lines.append(
            t(lang, "sep.parts").join(
                t(lang, f"part.{k}", gb=_gb(v, lang)) for k, v in entry.breakdown_gb.items() if v
            )
        )
    if entry.max_batch_size:
        seq = entry.assumptions.get("seq_len") if entry.assumptions else None
        lines.append(
            t(lang, "embed.largest_batch", mb=fmt.num(entry.max_batch_size, lang))
            + (t(lang, "fit.at_seq", seq=seq) if seq else "")
        )
    lines.append(t(lang, f"embed.memory_{entry.basis}"))
    return name, "\n".join(lines)


def _compare_field(row: ComparisonRow, lang: Lang = Lang.EN) -> tuple[str, str]:
    parts = [
        t(lang, "embed.vram", gb=_gb(row.vram_gb, lang)),
        row.price_label or _price(row.price_usd, lang, row.price_date),
    ]
    if row.fits is not None:
        parts.append(t(lang, "embed.fits" if row.fits else "embed.does_not_fit"))
    if row.max_batch_size is not None:
        parts.append(t(lang, "embed.batch", batch=fmt.num(row.max_batch_size, lang)))
    parts.append(_speed(row.relative_speed, row.speed_basis, lang))
    if row.value is not None:
        parts.append(t(lang, "embed.value", v=fmt.num(round(row.value, 2), lang, 2)))
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
    row_names = [c.name for c in answer.comparison]
    out = []
    for line in answer.details:
        if answer.recommendations and re.match(r"^\d+\. ", line):
            continue
        if row_names and any(line.startswith((f"{n}:", f"{n}：")) for n in row_names):
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

    lang = answer.language
    fields: list[tuple[str, str]] = []
    if answer.recommendations:
        fields += [_rec_field(i, r, lang) for i, r in enumerate(answer.recommendations[:MAX_PICK_FIELDS], 1)]
    if answer.fit:
        fields += [_fit_field(f, name_of, lang) for f in answer.fit[:MAX_FIT_FIELDS]]
    if answer.comparison:
        fields += [_compare_field(c, lang) for c in answer.comparison[:MAX_COMPARE_FIELDS]]

    description = _join(_description_lines(answer))
    if description:
        embed.description = truncate(description, LIMITS["description"])

    if answer.assumptions:
        fields.append((t(lang, "embed.assumed"), _join(answer.assumptions)))
    suggestions = [s for s in answer.suggestions[:5] if s.strip() and s.strip() != answer.verdict.strip()]
    if suggestions:
        fields.append((t(lang, "embed.try"), _join(f"• {s}" for s in suggestions)))

    for name, value in fields[: LIMITS["fields"]]:
        embed.add_field(
            name=truncate(name or "\u200b", LIMITS["field_name"]),
            value=truncate(value or "\u200b", LIMITS["field_value"]),
            inline=False,
        )

    footer_parts = list(answer.basis)
    dates = _price_dates(answer)
    if dates and "prices_dated" not in answer.basis_codes:
        footer_parts.append(
            t(lang, "embed.prices_as_of", dates=t(lang, "sep.list").join(fmt.month(d, lang) for d in dates))
        )
    if answer.sources and answer.intent is not Intent.INFO:
        footer_parts.append(t(lang, "embed.sources"))
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
