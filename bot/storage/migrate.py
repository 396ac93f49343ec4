"""Schema migrations with Alembic, run on an open async engine.

The migration scripts live in ``bot/storage/migrations`` (inside the package,
so an installed bot or the Docker image carries them). :func:`upgrade` runs
every pending migration in one transaction; on PostgreSQL it first takes a
transaction-level advisory lock, so several processes starting at once
migrate one after another (the later ones find nothing to do).

To change the schema: edit ``schema.py``, then add
``migrations/versions/000N_what.py`` by hand (``revision = "000N"``,
``down_revision`` = the previous one; ``migrations/script.py.mako`` is the
template). ``tests/storage/test_store.py`` checks, on SQLite and PostgreSQL,
that the migrated database equals ``schema.py``.
"""

from __future__ import annotations

import asyncio
import weakref
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import text
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine

__all__ = ["MIGRATIONS_DIR", "alembic_config", "upgrade", "current_revision", "head_revision"]

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"
#: pg_advisory_xact_lock key for migrations ("gpu-advisor" in a 63-bit number).
_LOCK_KEY = 0x6770_7561_6476_0001
# Alembic keeps the running migration in module globals (alembic.context, alembic.op):
# two migrations in one process must not interleave, whatever the database.
_LOCKS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = weakref.WeakKeyDictionary()


def _lock() -> asyncio.Lock:
    loop = asyncio.get_running_loop()
    lock = _LOCKS.get(loop)
    if lock is None:
        lock = _LOCKS[loop] = asyncio.Lock()
    return lock


def alembic_config() -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    return cfg


def head_revision() -> str | None:
    return ScriptDirectory.from_config(alembic_config()).get_current_head()


def _current(conn: Connection) -> str | None:
    return MigrationContext.configure(conn).get_current_revision()


async def current_revision(engine: AsyncEngine) -> str | None:
    async with engine.connect() as conn:
        return await conn.run_sync(_current)


async def upgrade(engine: AsyncEngine, revision: str = "head") -> str | None:
    """Bring the schema to ``revision``; return the revision the database is at after."""
    cfg = alembic_config()

    def run(conn: Connection) -> str | None:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, revision)
        return _current(conn)

    async with _lock(), engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            await conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _LOCK_KEY})
        return await conn.run_sync(run)
