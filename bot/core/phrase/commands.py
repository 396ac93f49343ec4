"""The command that makes an inference verdict true (issue 17), laid out for a reader.

``command_text(answer)`` returns the commands of an answer's inference verdicts (``FitItem.command``,
built by ``bot.core.commands``) as text: one translated line introducing each, the command in a
code block, the check in another. The commands are not translated; the lines around them are
(catalog keys ``cmd.``). Used by the terminal (``ask --show-command``, ``command`` in the chat) and
Discord's "Show command" button. Never imports the engine.
"""

from __future__ import annotations

from typing import Any

from bot.core.phrase.catalog import t
from bot.core.phrase.common import format_label
from bot.core.results import FitResult
from bot.core.types import Lang

__all__ = ["MAX_COMMANDS", "chosen", "command_text"]

#: commands shown per answer (the verdict of each model / card pair asked, at most this many)
MAX_COMMANDS = 3


def chosen(result: Any) -> list[Any]:
    """The fit items whose command the answer shows: the verdict's build (headline) of each pair;
    where nothing fits, the build the answer offered to offload, else the first with a command
    (one that fits on more cards)."""
    if not isinstance(result, FitResult):
        return []
    items = [it for it in result.items if getattr(it, "command", None) is not None]
    if not items:
        return []
    out: list[Any] = []
    seen: set[tuple[str, str]] = set()
    for it in items:
        if it.headline:
            out.append(it)
            seen.add((it.model.id, it.gpu.id))
    for it in items:  # beside a low-bit headline: the usual build the answer offered to offload
        if (it.model.id, it.gpu.id) in seen and not it.fits and it.command.cards == it.workload.num_gpus:
            out.append(it)
    for it in items:  # pairs without a headline: the offload offer (same cards) first
        key = (it.model.id, it.gpu.id)
        if key in seen:
            continue
        same = [x for x in items if (x.model.id, x.gpu.id) == key]
        offload = [x for x in same if x.command.cards == x.workload.num_gpus]
        out.append((offload or same)[0])
        seen.add(key)
    return out[:MAX_COMMANDS]


def _block(text: str) -> str:
    return f"```sh\n{text}\n```"


def command_text(answer: Any, lang: Lang | None = None, max_chars: int | None = None) -> str | None:
    """The commands of an answer as text (Markdown code blocks), in the answer's language; None
    when the answer is not an inference verdict with a command. ``max_chars`` (Discord's 2,000):
    the alternatives, then the later verdicts, are left out until it fits; a block is never cut."""
    L = lang or getattr(answer, "language", None) or Lang.EN
    items = chosen(getattr(answer, "result", None))
    if not items:
        return None
    for alternatives, count in ((True, len(items)), (False, len(items)), (False, 1)):
        text = _lay_out(L, items[:count], alternatives)
        if max_chars is None or len(text) <= max_chars:
            return text
    return None


def _lay_out(L: Lang, items: list[Any], alternatives: bool) -> str:
    parts: list[str] = []
    placeholder = False
    for it in items:
        c = it.command
        name = it.gpu.name
        cards = t(L, "rig.cards", count=c.cards, name=name) if c.cards > 1 else name
        parts.append(t(L, "cmd.intro", model=it.model.name, build=format_label(c.format), cards=cards))
        parts.append(_block(c.run))
        if c.check:
            parts.append(t(L, "cmd.check"))
            parts.append(_block(c.check))
        placeholder = placeholder or "<" in c.run or "<" in c.check
        for alt in c.alternatives if alternatives else ():
            parts.append(t(L, "cmd.alt", engine=_engine_name(alt.engine)))
            parts.append(_block(alt.run))
            placeholder = placeholder or "<" in alt.run
    if placeholder:
        parts.append(t(L, "cmd.placeholder"))
    return "\n".join(parts)


def _engine_name(engine: str) -> str:
    return {"ollama": "Ollama", "vllm": "vLLM"}.get(engine, engine)


def no_command_text(lang: Lang) -> str:
    return t(lang, "cmd.none")
