"""``/gpu-setup``: a server's own setup, by its admins.

A top-level command (Discord sets default member permissions per top-level
command, so it cannot live inside ``/gpu``) with Manage Server as its
default member permission; every subcommand checks it again in code (a
server may have granted the command to others in its integration settings,
and an admin may have lost the permission since), and refuses politely in
the user's language.

    /gpu-setup channels add channel:#ask      every message there is a question
    /gpu-setup channels remove channel:#ask
    /gpu-setup channels list
    /gpu-setup mentions answer:True|False     answer mentions outside the ask-channels
    /gpu-setup currency code:EUR              the server's default currency (empty: the default)
    /gpu-setup language language:zh-Hans      the server's default reply language (auto: the asker's)
    /gpu-setup role [role:@askers]            only this role may use the bot (none: everyone)
    /gpu-setup show

The settings live in the store (bot.storage ``GuildSettings``); a server with
none uses the operator's ``ASK_CHANNEL_IDS`` and answers mentions.
"""

from __future__ import annotations

import logging
from dataclasses import replace

import discord
from discord import app_commands

from bot.core.language import parse_lang
from bot.core.phrase.catalog import t
from bot.core.types import Lang
from bot.storage import GuildSettings

from .advisor import Advisor

__all__ = ["SetupGroup", "MAX_ASK_CHANNELS", "LANGUAGE_CHOICES"]

log = logging.getLogger(__name__)

MAX_ASK_CHANNELS = 50
LANGUAGE_CHOICES = [
    app_commands.Choice(name="auto (each asker's own)", value="auto"),
    app_commands.Choice(name="English", value="en"),
    app_commands.Choice(name="简体中文", value="zh-Hans"),
    app_commands.Choice(name="繁體中文", value="zh-Hant"),
]
_LANG_NAMES = {"en": "English", "zh-Hans": "简体中文", "zh-Hant": "繁體中文"}


@app_commands.guild_only()
@app_commands.default_permissions(manage_guild=True)
class SetupGroup(
    app_commands.Group, name="gpu-setup", description="Set up the GPU advisor on this server (Manage Server)."
):
    channels = app_commands.Group(
        name="channels", description="Ask-channels: channels where every message is a question."
    )

    def __init__(self, advisor: Advisor) -> None:
        super().__init__()
        self.advisor = advisor

    # -- helpers --------------------------------------------------------------------

    async def _lang(self, interaction: discord.Interaction) -> Lang:
        return await self.advisor.lang_for_interaction(interaction)

    async def _admin(self, interaction: discord.Interaction) -> GuildSettings | None:
        """The server's current settings if the user may change them; else refuse and None."""
        lang = await self._lang(interaction)
        if interaction.guild_id is None:
            await self.advisor.notify(interaction, t(lang, "setup.guild_only"))
            return None
        perms = interaction.permissions
        if not (perms.manage_guild or perms.administrator):
            log.info("/gpu-setup refused for user %s in guild %s", interaction.user.id, interaction.guild_id)
            await self.advisor.notify(interaction, t(lang, "setup.not_admin"))
            return None
        store = self.advisor.store
        if store is None or not store.available:
            await self.advisor.notify(interaction, t(lang, "setup.store_down"))
            return None
        # read-modify-write from the database itself, not the cache: another process may have
        # changed the setup within the cache's lifetime
        current = await store.get_guild_settings(interaction.guild_id)
        if not store.available:
            await self.advisor.notify(interaction, t(lang, "setup.store_down"))
            return None
        return current or self._defaults(interaction.guild_id)

    def _defaults(self, guild_id: int) -> GuildSettings:
        """A server's first settings: the operator's ask-channels, mentions answered."""
        return GuildSettings(guild_id=guild_id, ask_channel_ids=self.advisor.settings.ask_channel_ids)

    async def _save(self, interaction: discord.Interaction, new: GuildSettings, text: str) -> None:
        lang = await self._lang(interaction)
        if not await self.advisor.guild_settings.put(new):
            await self.advisor.notify(interaction, t(lang, "setup.store_down"))
            return
        log.info("guild %s setup changed by user %s", new.guild_id, interaction.user.id)
        await self.advisor.notify(interaction, text)

    def _needs_intent(self, interaction: discord.Interaction) -> bool:
        intents = getattr(interaction.client, "intents", None)
        return intents is not None and not intents.message_content

    # -- channels -------------------------------------------------------------------

    @channels.command(
        name="add", description="Make a channel an ask-channel: every message there is a question."
    )
    @app_commands.describe(channel="The channel (or forum) to answer every message in.")
    async def channels_add(
        self, interaction: discord.Interaction, channel: discord.TextChannel | discord.ForumChannel
    ) -> None:
        current = await self._admin(interaction)
        if current is None:
            return
        lang = await self._lang(interaction)
        if channel.id not in current.ask_channel_ids and len(current.ask_channel_ids) >= MAX_ASK_CHANNELS:
            await self.advisor.notify(interaction, t(lang, "setup.too_many_channels", max=MAX_ASK_CHANNELS))
            return
        new = replace(current, ask_channel_ids=current.ask_channel_ids | {channel.id})
        text = t(lang, "setup.channel_added", channel=channel.mention)
        if self._needs_intent(interaction):
            text += " " + t(lang, "setup.needs_intent")
        await self._save(interaction, new, text)

    @channels.command(name="remove", description="Stop treating a channel as an ask-channel.")
    @app_commands.describe(channel="The ask-channel to remove.")
    async def channels_remove(
        self, interaction: discord.Interaction, channel: discord.TextChannel | discord.ForumChannel
    ) -> None:
        current = await self._admin(interaction)
        if current is None:
            return
        lang = await self._lang(interaction)
        if channel.id not in current.ask_channel_ids:
            await self.advisor.notify(
                interaction, t(lang, "setup.channel_not_listed", channel=channel.mention)
            )
            return
        new = replace(current, ask_channel_ids=current.ask_channel_ids - {channel.id})
        await self._save(interaction, new, t(lang, "setup.channel_removed", channel=channel.mention))

    @channels.command(name="list", description="The ask-channels of this server.")
    async def channels_list(self, interaction: discord.Interaction) -> None:
        current = await self._admin(interaction)
        if current is None:
            return
        lang = await self._lang(interaction)
        await self.advisor.notify(interaction, self._channels_text(current, lang))

    # -- the rest -------------------------------------------------------------------

    @app_commands.command(
        name="mentions", description="Whether I answer when mentioned outside the ask-channels."
    )
    @app_commands.describe(answer="True: answer mentions in every channel; False: only in the ask-channels.")
    async def mentions(self, interaction: discord.Interaction, answer: bool) -> None:
        current = await self._admin(interaction)
        if current is None:
            return
        lang = await self._lang(interaction)
        text = t(lang, "setup.mentions_on" if answer else "setup.mentions_off")
        await self._save(interaction, replace(current, answer_mentions=answer), text)

    @app_commands.command(name="currency", description="The server's default currency (leave empty for USD).")
    @app_commands.describe(code="A currency code such as EUR, GBP, CNY (start typing to search).")
    async def currency(self, interaction: discord.Interaction, code: str | None = None) -> None:
        current = await self._admin(interaction)
        if current is None:
            return
        lang = await self._lang(interaction)
        if not code or not code.strip():
            await self._save(interaction, replace(current, currency=None), t(lang, "setup.currency_cleared"))
            return
        known = self._currencies()
        value = code.strip().upper()[:10]
        if value not in known:
            text = t(lang, "setup.bad_currency", value=code.strip()[:20], codes=", ".join(known))
            await self.advisor.notify(interaction, text)
            return
        await self._save(
            interaction, replace(current, currency=value), t(lang, "setup.currency_set", code=value)
        )

    @currency.autocomplete("code")
    async def _currency_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        typed = (current or "").strip().upper()
        return [app_commands.Choice(name=c, value=c) for c in self._currencies() if c.startswith(typed)][:25]

    def _currencies(self) -> list[str]:
        try:
            return sorted(self.advisor.catalog.currencies)
        except Exception:
            return ["USD"]

    @app_commands.command(name="language", description="The server's default reply language.")
    @app_commands.describe(language="auto: each asker's own (their words, their Discord language).")
    @app_commands.choices(language=LANGUAGE_CHOICES)
    async def language(self, interaction: discord.Interaction, language: app_commands.Choice[str]) -> None:
        current = await self._admin(interaction)
        if current is None:
            return
        value = None if language.value == "auto" else str(parse_lang(language.value) or "") or None
        # the confirmation in the new language when one was set
        lang = parse_lang(value) if value else await self._lang(interaction)
        assert lang is not None
        text = (
            t(lang, "setup.language_set", language=_LANG_NAMES.get(value, value))
            if value
            else t(lang, "setup.language_auto")
        )
        await self._save(interaction, replace(current, language=value), text)

    @app_commands.command(
        name="role", description="Only members with this role may use me (leave empty: everyone)."
    )
    @app_commands.describe(role="The role allowed to use the bot; leave empty to let everyone.")
    async def role(self, interaction: discord.Interaction, role: discord.Role | None = None) -> None:
        current = await self._admin(interaction)
        if current is None:
            return
        lang = await self._lang(interaction)
        if role is None or role.is_default():
            await self._save(
                interaction, replace(current, allowed_role_id=None), t(lang, "setup.role_cleared")
            )
            return
        text = t(lang, "setup.role_set", role=role.mention)
        await self._save(interaction, replace(current, allowed_role_id=role.id), text)

    @app_commands.command(name="show", description="My settings on this server.")
    async def show(self, interaction: discord.Interaction) -> None:
        current = await self._admin(interaction)
        if current is None:
            return
        lang = await self._lang(interaction)
        await self.advisor.notify(interaction, self.settings_text(current, lang))

    # -- text ---------------------------------------------------------------------

    def _channels_text(self, gs: GuildSettings, lang: Lang) -> str:
        if gs.ask_channel_ids:
            return t(lang, "sep.list").join(f"<#{c}>" for c in sorted(gs.ask_channel_ids))
        return t(lang, "setup.none")

    def settings_text(self, gs: GuildSettings, lang: Lang) -> str:
        yes_no = t(lang, "setup.yes" if gs.answer_mentions else "setup.no")
        currency = gs.currency or t(lang, "setup.operator_default", value="USD")
        language = _LANG_NAMES.get(gs.language or "", "") or t(lang, "setup.auto_language")
        role = (
            t(lang, "setup.role_only", role=f"<@&{gs.allowed_role_id}>")
            if gs.allowed_role_id
            else t(lang, "setup.everyone")
        )
        return t(
            lang,
            "setup.show",
            channels=self._channels_text(gs, lang),
            mentions=yes_no,
            currency=currency,
            language=language,
            role=role,
        )
