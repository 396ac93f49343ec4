"""The glue every Discord surface shares: context, cooldown, answer(), and
turning an Answer into what a message or an interaction sends.

No domain rules here: questions go to ``bot.core.answer.answer`` unchanged
(cut to a sane length), and whatever it returns is rendered.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

import discord

from bot.config import Settings
from bot.core.phrase.catalog import t
from bot.core.types import Answer, Choice, Context, Lang, Query

from .chart import render_chart_file
from .context_store import ContextStore, Cooldown
from .embeds import build_embed, plain_text, truncate, wants_chart

__all__ = ["Advisor", "ChoicesView", "MAX_QUESTION_CHARS", "NO_MENTIONS", "APOLOGY"]

log = logging.getLogger(__name__)

MAX_QUESTION_CHARS = 1000
NO_MENTIONS = discord.AllowedMentions.none()
APOLOGY = "Sorry, something went wrong while answering that. Try rephrasing it, or see `/gpu help`."

AnswerFn = Callable[..., Answer]


def _default_answer_fn() -> AnswerFn:
    from bot.core.answer import answer

    return answer


class Advisor:
    """Answers questions for one bot; holds the follow-up context and cooldown."""

    def __init__(
        self,
        settings: Settings,
        *,
        answer_fn: AnswerFn | None = None,
        contexts: ContextStore | None = None,
        cooldown: Cooldown | None = None,
        catalog: Any = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.settings = settings
        self._answer = answer_fn or _default_answer_fn()
        self.contexts = contexts or ContextStore(ttl=settings.context_ttl_s, clock=clock)
        self.cooldown = cooldown or Cooldown(settings.cooldown_per_10s, 10.0, clock=clock)
        self._clock = clock
        self._notified_until: dict[int, float] = {}
        self._catalog: Any = catalog

    # -- knowledge ----------------------------------------------------------------------

    @property
    def catalog(self) -> Any:
        """The catalog from KNOWLEDGE_DIR (or the package's knowledge/), loaded once."""
        if self._catalog is None:
            from bot.core.knowledge import default_knowledge_dir, get_catalog

            self._catalog = get_catalog(self.settings.knowledge_dir or default_knowledge_dir({}))
        return self._catalog

    @property
    def matcher(self) -> Any:
        """The parser's own name index over the same catalog (autocomplete, re-checks)."""
        from bot.core.matching import get_matcher

        return get_matcher(self.catalog)

    def name_of(self, kind: str, ident: str) -> str:
        """Display name for a card or model id (the id itself if unknown)."""
        try:
            table = self.catalog.gpus if kind == "gpu" else self.catalog.models
            return str(table[ident].name)
        except Exception:
            return ident

    # -- the one call into the core ------------------------------------------------

    def ask(
        self,
        question: str | Query,
        *,
        channel_id: int,
        user_id: int,
        use_context: bool = True,
        locale: Lang | None = None,
    ) -> Answer:
        """answer() with the stored context for (channel, user); stores the new one.

        ``locale`` is the asker's Discord locale (slash commands and buttons),
        used when the question's own words do not settle the language."""
        if isinstance(question, str):
            question = clip_question(question)
        context = self.contexts.get(channel_id, user_id) if use_context else None
        result = self._answer(question, context, catalog=self.catalog, locale=locale)
        if isinstance(result.context, Context):
            self.contexts.put(channel_id, user_id, result.context)
        return result

    # -- cooldown -------------------------------------------------------------------

    def cooldown_notice(self, user_id: int, lang: Lang = Lang.EN) -> tuple[bool, str | None]:
        """(allowed, notice). When limited, the notice is given once per window;
        later limited questions in the same window are dropped silently."""
        retry = self.cooldown.retry_after(user_id)
        if retry <= 0:
            return True, None
        now = self._clock()
        if self._notified_until.get(user_id, 0.0) > now:
            return False, None
        self._notified_until[user_id] = now + retry
        if len(self._notified_until) > 10_000:
            self._notified_until = {u: t for u, t in self._notified_until.items() if t > now}
        return False, t(lang, "discord.cooldown", s=max(1, round(retry)))

    # -- rendering ------------------------------------------------------------------

    def view_for(self, answer: Answer) -> ChoicesView | None:
        if not answer.choices:
            return None
        return ChoicesView(self, answer.choices)

    async def message_kwargs(
        self, answer: Answer, *, embeds: bool = True, files: bool = True
    ) -> dict[str, Any]:
        """Keyword arguments for Messageable.send / followup.send."""
        kwargs: dict[str, Any] = {"allowed_mentions": NO_MENTIONS}
        if embeds:
            kwargs["embed"] = build_embed(answer, self.name_of)
        else:
            kwargs["content"] = plain_text(answer)
        view = self.view_for(answer)
        if view is not None:
            kwargs["view"] = view
        if files and wants_chart(answer):
            chart = await render_chart_file(answer)
            if chart is not None:
                kwargs["file"] = chart
                if embeds:
                    kwargs["embed"].set_image(url=f"attachment://{chart.filename}")
        return kwargs

    # -- interactions (slash commands and buttons) ---------------------------------

    async def respond(
        self, interaction: discord.Interaction, answer: Answer, *, ephemeral: bool = False
    ) -> None:
        """Answer an interaction within Discord's 3 s: charts are rendered after
        deferring and sent as a follow-up; everything else is sent at once."""
        if wants_chart(answer):
            if not interaction.response.is_done():
                await interaction.response.defer(thinking=True, ephemeral=ephemeral)
            kwargs = await self.message_kwargs(answer)
            await interaction.followup.send(**kwargs, ephemeral=ephemeral, wait=True)
            return
        kwargs = await self.message_kwargs(answer, files=False)
        if interaction.response.is_done():
            await interaction.followup.send(**kwargs, ephemeral=ephemeral, wait=True)
        else:
            await interaction.response.send_message(**kwargs, ephemeral=ephemeral)

    async def notify(self, interaction: discord.Interaction, text: str) -> None:
        """A short ephemeral message (errors, unknown names, cooldown)."""
        text = truncate(text, 2000)
        if interaction.response.is_done():
            await interaction.followup.send(text, ephemeral=True, allowed_mentions=NO_MENTIONS)
        else:
            await interaction.response.send_message(text, ephemeral=True, allowed_mentions=NO_MENTIONS)

    async def answer_interaction(
        self, interaction: discord.Interaction, question: str | Query, *, use_context: bool = True
    ) -> None:
        lang = interaction_lang(interaction) or Lang.EN
        if isinstance(question, str):
            from bot.core.language import detect

            lang = detect(question, locale=lang)
        allowed, notice = self.cooldown_notice(interaction.user.id, lang)
        if not allowed:
            await self.notify(interaction, notice or t(lang, "discord.slow_down"))
            return
        channel_id = interaction.channel_id or interaction.user.id
        result = self.ask(
            question,
            channel_id=channel_id,
            user_id=interaction.user.id,
            use_context=use_context,
            locale=interaction_lang(interaction),
        )
        await self.respond(interaction, result)


def interaction_lang(interaction: discord.Interaction) -> Lang | None:
    """The user's Discord locale as a reply language (zh-CN, zh-TW; English otherwise)."""
    from bot.core.language import from_locale

    return from_locale(str(getattr(interaction, "locale", "") or ""))


def clip_question(text: str, limit: int = MAX_QUESTION_CHARS) -> str:
    text = text.strip()
    return text[:limit]


class ChoiceButton(discord.ui.Button["ChoicesView"]):
    def __init__(self, advisor: Advisor, choice: Choice, index: int) -> None:
        super().__init__(
            label=truncate(choice.label or choice.text, 80) or str(index + 1),
            style=discord.ButtonStyle.primary if index == 0 else discord.ButtonStyle.secondary,
            row=min(index // 5, 4),
        )
        self.advisor = advisor
        self.choice = choice

    async def callback(self, interaction: discord.Interaction) -> None:
        # The presser's own context: buttons answer for whoever presses them.
        await self.advisor.answer_interaction(interaction, self.choice.text)


class ChoicesView(discord.ui.View):
    """Buttons for Answer.choices; pressing one answers choice.text."""

    def __init__(self, advisor: Advisor, choices: tuple[Choice, ...], *, timeout: float = 900.0) -> None:
        super().__init__(timeout=timeout)
        for index, choice in enumerate(choices[:25]):
            self.add_item(ChoiceButton(advisor, choice, index))

    async def on_error(
        self, interaction: discord.Interaction, error: Exception, item: discord.ui.Item[Any]
    ) -> None:
        log.error("button %r failed", getattr(item, "label", item), exc_info=error)
        try:
            await self.children[0].advisor.notify(interaction, APOLOGY)  # type: ignore[attr-defined]
        except Exception:
            log.exception("could not apologise for a failed button")
