"""The Discord client: intents, start-up, command sync, sharding, endpoints.

discord.py's own reconnect / resume / rate-limit handling is left alone:
we only point its REST base (``Route.BASE``) and its first gateway URL
(``DiscordWebSocket.DEFAULT_GATEWAY``) at a proxy when one is configured.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import discord
import yarl
from discord import app_commands

from bot.config import Settings
from bot.core.phrase.catalog import t
from bot.core.types import Lang

from .advisor import NO_MENTIONS, Advisor, interaction_lang
from .commands import GpuGroup
from .heap import trim_periodically
from .listeners import handle_delete, handle_edit, handle_message
from .persist import DYNAMIC_ITEMS
from .setup import SetupGroup
from .translator import CatalogTranslator

__all__ = [
    "AdvisorClient",
    "ShardedAdvisorClient",
    "AdvisorTree",
    "apply_endpoints",
    "canonical_commands",
    "commands_differ",
    "create_client",
    "make_intents",
    "warm_core",
]

log = logging.getLogger(__name__)

DEFAULT_API_BASE = discord.http.Route.BASE
DEFAULT_GATEWAY = discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY


def apply_endpoints(settings: Settings) -> None:
    """Point discord.py at a REST / gateway proxy (or back at Discord).

    REST: every route (webhooks and interaction callbacks included) is built
    from ``Route.BASE``. Gateway: a non-sharded client (and a sharded one with
    a fixed SHARD_COUNT) connects first to ``DiscordWebSocket.DEFAULT_GATEWAY``
    and falls back to it when a session is invalidated; resumes go to the
    ``resume_gateway_url`` the gateway sent in READY (a gateway proxy rewrites
    that to itself). An AutoShardedClient without SHARD_COUNT asks
    ``GET /gateway/bot`` for the URL, which the REST proxy answers.
    """
    discord.http.Route.BASE = settings.discord_api_base or DEFAULT_API_BASE
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = (
        yarl.URL(settings.discord_gateway_url) if settings.discord_gateway_url else DEFAULT_GATEWAY
    )


def make_intents(settings: Settings) -> discord.Intents:
    intents = discord.Intents.none()
    intents.guilds = True  # channel cache and our own permissions (embeds, files)
    intents.guild_messages = True  # mentions in servers, ask-channels
    intents.dm_messages = True  # DMs
    # Privileged: only needed to read messages that do not mention us.
    intents.message_content = settings.needs_message_content
    return intents


def warm_core(advisor: Advisor) -> None:
    """Load the knowledge (KNOWLEDGE_DIR or the package's) and build the name
    index before connecting: the first question is fast, and bad knowledge
    files fail at start-up rather than on someone's question."""
    catalog = advisor.catalog
    matcher = advisor.matcher
    log.info(
        "knowledge loaded from %s: %d GPUs, %d models (%s)",
        catalog.directory,
        len(catalog.gpus),
        len(catalog.models),
        type(matcher).__name__,
    )


# -- command sync --------------------------------------------------------------------

_OPTION_DEFAULTS: dict[str, Any] = {
    "required": False,
    "autocomplete": False,
    "choices": [],
    "options": [],
    "channel_types": [],
    "name_localizations": {},
    "description_localizations": {},
    "min_value": None,
    "max_value": None,
    "min_length": None,
    "max_length": None,
}
_COMMAND_DEFAULTS: dict[str, Any] = {
    "type": 1,
    "options": [],
    "nsfw": False,
    "default_member_permissions": None,
    "name_localizations": {},
    "description_localizations": {},
    "contexts": None,
    "integration_types": None,
}


def _canon(value: Any, defaults: dict[str, Any], keys: set[str] | None = None) -> Any:
    out: dict[str, Any] = {}
    for key in keys if keys is not None else set(value) | set(defaults):
        if key in ("id", "application_id", "version", "guild_id", "dm_permission"):
            continue
        v = value.get(key, defaults.get(key))
        if v is None and key in defaults:
            v = defaults[key]
        if key == "options":
            v = [_canon(o, _OPTION_DEFAULTS) for o in v or []]
        elif key == "choices":
            v = [
                {
                    "name": c.get("name"),
                    "value": c.get("value"),
                    "name_localizations": c.get("name_localizations") or {},
                }
                for c in v or []
            ]
        elif key in ("contexts", "integration_types", "channel_types") and v is not None:
            v = sorted(v)
        elif key == "default_member_permissions" and v is not None:
            v = str(v)
        elif key in ("name_localizations", "description_localizations"):
            v = v or {}
        out[key] = v
    return out


def canonical_commands(payload: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Commands in a comparable form: Discord's own fields (ids, version)
    dropped, defaults filled in, sorted by (type, name)."""
    keys = set(_COMMAND_DEFAULTS) | {"name", "description"}
    canon = [_canon(c, _COMMAND_DEFAULTS, keys) for c in payload]
    return sorted(canon, key=lambda c: (c.get("type", 1), c.get("name", "")))


def commands_differ(local: list[dict[str, Any]], remote: list[dict[str, Any]]) -> bool:
    return canonical_commands(local) != canonical_commands(remote)


class AdvisorTree(app_commands.CommandTree):
    async def on_error(self, interaction: discord.Interaction, error: app_commands.AppCommandError) -> None:
        command = interaction.command.qualified_name if interaction.command else "?"
        original = getattr(error, "original", error)
        lang = interaction_lang(interaction) or Lang.EN
        if isinstance(error, app_commands.TransformerError):
            text = t(lang, "discord.bad_value", value=repr(error.value)[:80])
        elif isinstance(error, app_commands.CheckFailure):
            text = t(lang, "discord.not_here")
        else:
            text = t(lang, "discord.apology")
        log.error(
            "/%s failed for interaction %s: %s",
            command,
            interaction.id,
            type(original).__name__,
            exc_info=original,
        )
        try:
            if interaction.response.is_done():
                await interaction.followup.send(text, ephemeral=True, allowed_mentions=NO_MENTIONS)
            else:
                await interaction.response.send_message(text, ephemeral=True, allowed_mentions=NO_MENTIONS)
        except Exception:
            log.exception("could not send the error notice for interaction %s", interaction.id)


class _AdvisorMixin:
    """Shared by the plain and the auto-sharded client."""

    settings: Settings
    advisor: Advisor
    tree: AdvisorTree

    def _init_advisor(self, settings: Settings, advisor: Advisor | None) -> None:
        self.settings = settings
        self.advisor = advisor or Advisor(settings)
        self.tree = AdvisorTree(self)  # type: ignore[arg-type]
        self.tree.add_command(GpuGroup(self.advisor))
        self.tree.add_command(SetupGroup(self.advisor))
        self._translator = CatalogTranslator()
        self.synced: bool | None = None  # None: not checked yet

    async def setup_hook(self) -> None:
        # persistent buttons: a press is answered from its custom id, whichever process sent it
        self.add_dynamic_items(*DYNAMIC_ITEMS)  # type: ignore[attr-defined]
        await self.tree.set_translator(self._translator)
        await self.sync_commands()
        # freed heap back to the OS after floods, so RSS follows the bounded stores (see heap.py)
        self._trimmer = asyncio.get_running_loop().create_task(trim_periodically())

    async def sync_commands(self) -> bool:
        """Sync /gpu to DEV_GUILD_ID, or globally; only when what Discord has differs."""
        guild = discord.Object(id=self.settings.dev_guild_id) if self.settings.dev_guild_id else None
        if guild is not None:
            self.tree.copy_global_to(guild=guild)
        # what sync would send, names and descriptions localized (zh-CN, zh-TW)
        local = [
            await c.get_translated_payload(self.tree, self._translator)
            for c in self.tree.get_commands(guild=guild)
        ]
        http = self.http  # type: ignore[attr-defined]
        app_id = self.application_id  # type: ignore[attr-defined]
        try:
            if guild is None:
                remote = await http.get_global_commands(app_id)
            else:
                remote = await http.get_guild_commands(app_id, guild.id)
        except discord.HTTPException as exc:
            log.warning("could not fetch the registered commands (%s); syncing anyway", exc.status)
            remote = None
        scope = f"guild {guild.id}" if guild else "globally"
        if remote is not None and not commands_differ(local, remote):
            log.info("slash commands up to date %s; not syncing", scope)
            self.synced = False
            return False
        await self.tree.sync(guild=guild)
        log.info("synced %d slash command(s) %s", len(local), scope)
        self.synced = True
        return True

    async def on_ready(self) -> None:
        user = self.user  # type: ignore[attr-defined]
        log.info("logged in as %s (id %s)", user, getattr(user, "id", "?"))

    async def on_resumed(self) -> None:
        log.info("gateway session resumed")

    async def on_message(self, message: discord.Message) -> None:
        await handle_message(self.advisor, message, self.user)  # type: ignore[attr-defined]

    async def on_raw_message_edit(self, payload: discord.RawMessageUpdateEvent) -> None:
        # raw: fires whether or not the message is in discord.py's (bounded) cache
        await handle_edit(self.advisor, payload.message, self.user)  # type: ignore[attr-defined]

    async def on_raw_message_delete(self, payload: discord.RawMessageDeleteEvent) -> None:
        handle_delete(self.advisor, (payload.message_id,))

    async def on_raw_bulk_message_delete(self, payload: discord.RawBulkMessageDeleteEvent) -> None:
        handle_delete(self.advisor, payload.message_ids)

    async def on_error(self, event_method: str, /, *args: Any, **kwargs: Any) -> None:
        log.exception("unhandled error in %s", event_method)


class AdvisorClient(_AdvisorMixin, discord.Client):
    def __init__(self, settings: Settings, *, advisor: Advisor | None = None, **options: Any) -> None:
        super().__init__(
            intents=make_intents(settings),
            allowed_mentions=NO_MENTIONS,
            max_messages=settings.bounds.discord_message_cache,
            **options,
        )
        self._init_advisor(settings, advisor)


class ShardedAdvisorClient(_AdvisorMixin, discord.AutoShardedClient):
    def __init__(self, settings: Settings, *, advisor: Advisor | None = None, **options: Any) -> None:
        super().__init__(
            intents=make_intents(settings),
            allowed_mentions=NO_MENTIONS,
            max_messages=settings.bounds.discord_message_cache,
            shard_count=settings.shard_count,
            **_shard_options(settings),
            **options,
        )
        self._init_advisor(settings, advisor)


def _shard_options(settings: Settings) -> dict[str, Any]:
    """``shard_ids`` for SHARD_IDS (this process runs only those shards of SHARD_COUNT)."""
    return {"shard_ids": list(settings.shard_ids)} if settings.shard_ids else {}


def create_client(settings: Settings, *, advisor: Advisor | None = None) -> discord.Client:
    if settings.shard_count:
        return ShardedAdvisorClient(settings, advisor=advisor)
    return AdvisorClient(settings, advisor=advisor)
