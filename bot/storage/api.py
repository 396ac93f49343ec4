"""The storage interface the surfaces use, and the values it stores.

Every method is a coroutine and never raises for a database problem: when
the database is unreachable a read returns ``None`` (or an empty result) and
a write returns ``False``; the store logs the outage once and recovers by
itself when the database is back (see :mod:`bot.storage.sql`). Argument
errors (a non-positive id, a non-finite number) raise ``ValueError``: they
are bugs of the caller.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from bot.core.rig import Rig
from bot.core.types import Choice, Context

__all__ = ["GuildSettings", "PendingChoices", "Store", "StoreUnavailable"]


class StoreUnavailable(RuntimeError):
    """The database cannot be opened at start-up. The message names the URL, never its password."""


@dataclass(frozen=True)
class GuildSettings:
    """One server's setup (``/gpu-setup``). ``None`` fields mean "the operator's default"."""

    guild_id: int
    ask_channel_ids: frozenset[int] = frozenset()
    answer_mentions: bool = True
    currency: str | None = None  # ISO code, e.g. "EUR"
    language: str | None = None  # e.g. "en", "zh"
    allowed_role_id: int | None = None  # only members with this role may use the bot


@dataclass(frozen=True)
class PendingChoices:
    """Options offered for one question (ask-back buttons), kept for a TTL under ``id``."""

    id: str
    question: str  # the question text the choices belong to
    choices: tuple[Choice, ...]
    user_id: int | None = None  # who was asked (None: anyone may pick)
    expires_at: float = 0.0  # wall-clock seconds (time.time())


@runtime_checkable
class Store(Protocol):
    """Server settings, rigs, conversation contexts and pending choices.

    Two backends implement it (:class:`bot.storage.sql.SqlStore`): SQLite by
    default, PostgreSQL when ``DATABASE_URL`` is set. Open one with
    :func:`bot.storage.open_store`.
    """

    @property
    def available(self) -> bool:
        """False while the database is unreachable (state is then neither read nor saved)."""
        ...

    # server settings
    async def get_guild_settings(self, guild_id: int) -> GuildSettings | None: ...
    async def put_guild_settings(self, settings: GuildSettings) -> bool: ...
    async def delete_guild_settings(self, guild_id: int) -> bool: ...

    # rigs: one per user, across servers and DMs
    async def get_rig(self, user_id: int) -> Rig | None: ...
    async def put_rig(self, user_id: int, rig: Rig) -> bool: ...
    async def clear_user(self, user_id: int) -> bool:
        """Remove every row about the user: rig, conversation contexts, pending choices."""
        ...

    # conversation context per (channel, user), with a TTL
    async def get_context(self, channel_id: int, user_id: int) -> Context | None: ...
    async def put_context(
        self, channel_id: int, user_id: int, context: Context, *, ttl_s: float | None = None
    ) -> bool: ...
    async def delete_context(self, channel_id: int, user_id: int) -> bool: ...

    # pending choices (ask-back buttons), with a TTL
    async def put_choices(
        self,
        question: str,
        choices: Sequence[Choice],
        *,
        user_id: int | None = None,
        ttl_s: float | None = None,
    ) -> str | None:
        """Store the options; return their id (16 URL-safe characters), or None if not stored."""
        ...

    async def get_choices(self, choices_id: str) -> PendingChoices | None: ...

    async def purge_expired(self) -> int | None:
        """Delete expired contexts and choices now; the number of rows deleted."""
        ...

    async def close(self) -> None: ...
