"""Buttons that outlive the process, and the per-server settings cache.

Ask-back buttons and the "save this rig?" button are discord.py
``DynamicItem`` s: everything a press needs is in the button's custom id
(``gpu:pick:<choices id>:<n>`` - the choices themselves are in the store
under that id for ``CONTEXT_TTL_S``; ``gpu:rig:<user>:<count>:<ram>:<budget>:<card>``
- the whole rig), and the client registers the classes with
``add_dynamic_items``. So a button pressed after a restart, or on a message
another process sent, still answers; nothing is kept in memory per message.

:class:`GuildSettingsCache` keeps each server's ``/gpu-setup`` in a small
TTL cache in front of the store (a message in any channel needs it), so a
change made through another process is seen within ``ttl`` seconds; a
change made here is seen at once.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import discord
from cachetools import TTLCache

from bot.core.commands import KEY_PATTERN as COMMAND_KEY
from bot.core.phrase.catalog import t
from bot.core.rig import MAX_COUNT, Rig
from bot.core.types import Choice, Lang
from bot.storage import GuildSettings, Store

from .embeds import truncate

if TYPE_CHECKING:
    from .advisor import Advisor

__all__ = [
    "CommandButton",
    "PickButton",
    "RigButton",
    "add_command_button",
    "GuildSettingsCache",
    "choices_view",
    "rig_view",
    "rig_custom_id",
    "parse_rig_custom_id",
    "DYNAMIC_ITEMS",
]

log = logging.getLogger(__name__)

MAX_BUTTONS = 25


def _advisor_of(interaction: discord.Interaction) -> Advisor | None:
    return getattr(interaction.client, "advisor", None)


class PickButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"gpu:pick:(?P<cid>[A-Za-z0-9_-]{8,32}):(?P<n>\d{1,2})",
):
    """One ask-back choice: the n-th of the pending choices stored under ``cid``."""

    def __init__(self, cid: str, n: int, label: str | None = None) -> None:
        super().__init__(
            discord.ui.Button(
                label=truncate(label or str(n + 1), 80) or str(n + 1),
                style=discord.ButtonStyle.primary if n == 0 else discord.ButtonStyle.secondary,
                custom_id=f"gpu:pick:{cid}:{n}",
                row=min(n // 5, 4),
            )
        )
        self.cid = cid
        self.n = n

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> PickButton:
        return cls(match["cid"], int(match["n"]), getattr(item, "label", None))

    async def callback(self, interaction: discord.Interaction) -> None:
        advisor = _advisor_of(interaction)
        if advisor is None:
            return
        store = advisor.store
        pending = await store.get_choices(self.cid) if store is not None else None
        if pending is None or not 0 <= self.n < len(pending.choices):
            lang = await advisor.lang_for_interaction(interaction)
            down = store is None or not store.available
            await advisor.notify(
                interaction, t(lang, "discord.choices_unavailable" if down else "discord.choices_expired")
            )
            return
        # the presser's own context: buttons answer for whoever presses them
        await advisor.answer_interaction(interaction, pending.choices[self.n].text)


def rig_custom_id(user_id: int, rig: Rig) -> str | None:
    """The custom id of the "save this rig" button; None if it would not fit in 100 characters."""
    ram = "-" if rig.ram_gb is None else f"{rig.ram_gb:g}"
    budget = "-" if rig.budget_usd is None else f"{rig.budget_usd:.0f}"
    cid = f"gpu:rig:{user_id}:{rig.count}:{ram}:{budget}:{rig.gpu}"
    return cid if len(cid) <= 100 else None


_RIG_TEMPLATE = (
    r"gpu:rig:(?P<user>\d{1,20}):(?P<count>\d{1,3}):(?P<ram>-|\d{1,5}(?:\.\d{1,6})?)"
    r":(?P<budget>-|\d{1,8}):(?P<gpu>[a-z0-9][a-z0-9._+-]{0,79})"
)


def parse_rig_custom_id(custom_id: str) -> tuple[int, Rig] | None:
    m = re.fullmatch(_RIG_TEMPLATE, custom_id)
    if m is None:
        return None
    try:
        rig = Rig(
            m["gpu"],
            int(m["count"]),
            None if m["ram"] == "-" else float(m["ram"]),
            None if m["budget"] == "-" else float(m["budget"]),
        )
    except ValueError:
        return None
    return int(m["user"]), rig


class RigButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=_RIG_TEMPLATE):
    """ "Save this as my rig": the whole rig and its owner are in the custom id."""

    def __init__(self, user_id: int, rig: Rig, label: str = "Save") -> None:
        custom_id = rig_custom_id(user_id, rig)
        assert custom_id is not None
        super().__init__(
            discord.ui.Button(
                label=truncate(label, 80), style=discord.ButtonStyle.success, custom_id=custom_id
            )
        )
        self.user_id = user_id
        self.rig = rig

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> RigButton:
        parsed = parse_rig_custom_id(match.group(0))
        if parsed is None:
            raise ValueError("bad rig button")
        return cls(parsed[0], parsed[1], getattr(item, "label", None) or "Save")

    async def callback(self, interaction: discord.Interaction) -> None:
        advisor = _advisor_of(interaction)
        if advisor is None:
            return
        await advisor.save_rig_from_button(interaction, self.user_id, self.rig)


class CommandButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"gpu:cmd:(?P<key>" + COMMAND_KEY + ")",
):
    """ "Show command" on an inference answer (issue 17): the question is in the custom id
    (``bot.core.commands.button_key``); a press computes the same verdict again and sends its
    command, to the presser only, in a code block."""

    def __init__(self, key: str, label: str = "Show command") -> None:
        super().__init__(
            discord.ui.Button(
                label=truncate(label, 80), style=discord.ButtonStyle.secondary, custom_id=f"gpu:cmd:{key}"
            )
        )
        self.key = key

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> CommandButton:
        return cls(match["key"], getattr(item, "label", None) or "Show command")

    async def callback(self, interaction: discord.Interaction) -> None:
        advisor = _advisor_of(interaction)
        if advisor is None:
            return
        await advisor.show_command(interaction, self.key)


DYNAMIC_ITEMS: tuple[type[discord.ui.DynamicItem[Any]], ...] = (PickButton, RigButton, CommandButton)


def add_command_button(view: discord.ui.View | None, key: str, lang: Lang) -> discord.ui.View:
    """``view`` (or a new persistent one) with the "Show command" button."""
    out = view if view is not None else discord.ui.View(timeout=None)
    if len(out.children) < MAX_BUTTONS:
        out.add_item(CommandButton(key, t(lang, "cmd.button")))
    return out


def choices_view(cid: str, choices: tuple[Choice, ...]) -> discord.ui.View:
    """A view of persistent ask-back buttons for the choices stored under ``cid``."""
    view = discord.ui.View(timeout=None)
    for n, choice in enumerate(choices[:MAX_BUTTONS]):
        view.add_item(PickButton(cid, n, choice.label or choice.text))
    return view


def rig_view(user_id: int, rig: Rig, lang: Lang) -> discord.ui.View | None:
    if rig_custom_id(user_id, rig) is None or not 1 <= rig.count <= MAX_COUNT:
        return None
    view = discord.ui.View(timeout=None)
    view.add_item(RigButton(user_id, rig, t(lang, "rig.save_button")))
    return view


class GuildSettingsCache:
    """Each server's settings (None: not set up), cached ``ttl`` seconds, at most ``max_guilds``."""

    def __init__(
        self,
        store: Store | None,
        *,
        ttl: float = 30.0,
        max_guilds: int = 10_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.store = store
        self._cache: TTLCache[int, GuildSettings | None] = TTLCache(maxsize=max_guilds, ttl=ttl, timer=clock)

    def __len__(self) -> int:
        return len(self._cache)

    async def get(self, guild_id: int) -> GuildSettings | None:
        if guild_id in self._cache:
            return self._cache[guild_id]
        if self.store is None:
            return None
        found = await self.store.get_guild_settings(guild_id)
        if self.store.available:  # an outage is not "not set up": do not cache it
            self._cache[guild_id] = found
        return found

    async def put(self, settings: GuildSettings) -> bool:
        if self.store is None:
            return False
        ok = await self.store.put_guild_settings(settings)
        if ok:
            self._cache[settings.guild_id] = settings
        return ok
