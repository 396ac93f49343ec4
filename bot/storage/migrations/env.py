"""Alembic environment for both backends (SQLite via aiosqlite, PostgreSQL via asyncpg).

Normally run by :func:`bot.storage.migrate.upgrade`, which hands over an open
connection in ``config.attributes["connection"]`` (inside its transaction,
holding a PostgreSQL advisory lock so two processes starting together do not
both migrate). Run by the ``alembic`` command instead (``alembic -x
url=... upgrade head`` with ``script_location`` pointing here), it opens
its own async engine from ``sqlalchemy.url`` or ``-x url=``.
"""

from __future__ import annotations

import asyncio

from alembic import context
from sqlalchemy import pool
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import create_async_engine

from bot.storage.schema import metadata

config = context.config
target_metadata = metadata


def _url() -> str:
    url = context.get_x_argument(as_dictionary=True).get("url") or config.get_main_option("sqlalchemy.url")
    if not url:
        raise RuntimeError("no database URL: pass -x url=... or set sqlalchemy.url")
    return url


def _configure(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",  # SQLite alters tables by copying them
        transactional_ddl=True,
    )


def run_migrations_offline() -> None:
    context.configure(url=_url(), target_metadata=target_metadata, literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()


def _run_with(connection: Connection) -> None:
    _configure(connection)
    with context.begin_transaction():
        context.run_migrations()


async def _run_async() -> None:
    engine = create_async_engine(_url(), poolclass=pool.NullPool)
    try:
        async with engine.begin() as conn:
            await conn.run_sync(_run_with)
    finally:
        await engine.dispose()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _run_with(connection)
    else:
        asyncio.run(_run_async())


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
