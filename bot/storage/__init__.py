"""Saved state: server settings, users' rigs, conversation contexts, pending choices.

One small async interface, :class:`Store` (``bot.storage.api``), with two
backends on SQLAlchemy 2: SQLite (aiosqlite, a file under ``DATA_DIR``) by
default and PostgreSQL (asyncpg) when ``DATABASE_URL`` is set; schema
migrations with Alembic (``bot/storage/migrations``), run by
:func:`open_store` at start-up and by ``python -m bot db upgrade``.

    store = await open_store(settings)        # StoreUnavailable if the database is down
    await store.put_rig(user_id, Rig("rtx-3090", 2, 64.0))
    rig = await store.get_rig(user_id)       # None if unknown, or if the database is away
    await store.close()

The core never imports this package; the surfaces (Discord, terminal) do.
"""

from bot.storage.api import GuildSettings, PendingChoices, Store, StoreUnavailable
from bot.storage.sql import SqlStore, database_url, open_store, redact

__all__ = [
    "GuildSettings",
    "PendingChoices",
    "Store",
    "StoreUnavailable",
    "SqlStore",
    "open_store",
    "database_url",
    "redact",
]
