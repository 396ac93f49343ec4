"""The :class:`~bot.storage.api.Store` on SQLAlchemy 2 (async): SQLite or PostgreSQL.

* **Which database**: ``DATABASE_URL`` when set (``postgresql://``,
  ``postgres://`` or ``postgresql+asyncpg://``; ``sqlite:///path`` also
  works), otherwise the SQLite file ``DATA_DIR/gpu-advisor.sqlite3``
  (``DATA_DIR`` defaults to ``./data`` and is created if missing).
* **Start-up** (:func:`open_store`): connect, run the migrations, and raise
  :class:`~bot.storage.api.StoreUnavailable` with one clear line naming the
  URL (password shown as ``***``) when the database cannot be reached.
* **Atomic writes**: every operation is one transaction (SQLite too: the
  driver's implicit transactions are replaced by an explicit ``BEGIN``, so
  a migration or a purge is all or nothing); upserts are ``INSERT ... ON
  CONFLICT DO UPDATE`` on both backends.
* **Outages while running**: an operation that fails because the database is
  unreachable returns ``None`` / ``False``; the store logs one warning, skips
  the database for ``retry_interval_s`` (so a dead server does not slow
  every answer), then tries again, logs one line when it is back, and goes on
  (the pool re-checks connections before use, so a restarted server is
  picked up without a restart of the bot).
* **TTL**: contexts and choices carry ``expires_at`` (wall-clock seconds);
  expired rows are never returned, and are deleted by :meth:`purge_expired`,
  which a write also runs at most once a minute.
"""

from __future__ import annotations

import logging
import math
import secrets
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, InterfaceError, OperationalError, SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

from bot.core.rig import Rig
from bot.core.types import Choice, Context
from bot.storage import codec
from bot.storage.api import GuildSettings, PendingChoices, StoreUnavailable
from bot.storage.migrate import upgrade
from bot.storage.schema import contexts, guild_settings, pending_choices, rigs

__all__ = [
    "SqlStore",
    "open_store",
    "database_url",
    "redact",
    "SQLITE_FILENAME",
    "DEFAULT_TTL_S",
]

log = logging.getLogger(__name__)

SQLITE_FILENAME = "gpu-advisor.sqlite3"
DEFAULT_TTL_S = 900.0
#: Largest id a BIGINT holds (Discord snowflakes are well below it).
_MAX_ID = 2**63 - 1
_PURGE_EVERY_S = 60.0

T = TypeVar("T")


def database_url(database_url: str | None = None, data_dir: str | Path | None = None) -> URL:
    """The SQLAlchemy URL (async driver) for ``DATABASE_URL`` or the SQLite file under ``data_dir``."""
    if database_url:
        try:
            url = make_url(database_url.strip())
        except ArgumentError:
            raise StoreUnavailable(
                "DATABASE_URL is not a database URL (expected postgresql://user:password@host:port/dbname)"
            ) from None
        backend = url.drivername.split("+", 1)[0]
        if backend in ("postgresql", "postgres"):
            url = url.set(drivername="postgresql+asyncpg")
            if "sslmode" in url.query:  # libpq's spelling; asyncpg calls it ssl
                mode = url.query["sslmode"]
                url = url.difference_update_query(["sslmode"]).update_query_dict({"ssl": mode})
            return url
        if backend == "sqlite":
            return url.set(drivername="sqlite+aiosqlite")
        raise StoreUnavailable(
            f"DATABASE_URL must be a postgresql:// or sqlite:// URL, got a {backend}:// URL"
        )
    directory = Path(data_dir if data_dir is not None else "data").expanduser()
    return URL.create("sqlite+aiosqlite", database=str(directory / SQLITE_FILENAME))


def redact(url: URL | str) -> str:
    """The URL as text with its password replaced by ``***``."""
    if isinstance(url, str):
        try:
            url = make_url(url)
        except ArgumentError:
            return "<unparseable URL>"
    return url.render_as_string(hide_password=True)


def _scrub(message: str, url: URL) -> str:
    if url.password:
        message = message.replace(str(url.password), "***")
    return " ".join(message.split())[:300]


def _make_engine(url: URL) -> AsyncEngine:
    if url.get_backend_name() == "sqlite":
        engine = create_async_engine(url, connect_args={"timeout": 10})

        @event.listens_for(engine.sync_engine, "connect")
        def _on_connect(dbapi_conn: Any, _record: Any) -> None:
            dbapi_conn.isolation_level = None  # no implicit transactions: we BEGIN ourselves
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")  # readers do not block the writer (several processes)
            cur.execute("PRAGMA busy_timeout=10000")
            cur.close()

        @event.listens_for(engine.sync_engine, "begin")
        def _on_begin(conn: Any) -> None:
            conn.exec_driver_sql("BEGIN")

        return engine
    return create_async_engine(
        url,
        pool_pre_ping=True,  # a server restarted under us: reconnect instead of failing once per pooled connection
        pool_size=5,
        max_overflow=5,
        pool_timeout=5,
        connect_args={"timeout": 5, "command_timeout": 10},
    )


def _outage(exc: BaseException) -> bool:
    """Whether an error means "the database is not there" (as opposed to a bug)."""
    if isinstance(exc, OSError | TimeoutError | ConnectionError):
        return True
    if isinstance(exc, OperationalError | InterfaceError):
        return True
    if isinstance(exc, DBAPIError) and exc.connection_invalidated:
        return True
    if isinstance(exc, DBAPIError):
        name = type(exc.orig).__name__ if exc.orig is not None else ""
        return (
            any(
                k in name
                for k in ("ConnectionDoesNotExist", "CannotConnectNow", "ConnectionFailure", "AdminShutdown")
            )
            or "connection" in str(exc.orig).lower()
        )
    return False


def _check_id(name: str, value: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 < value <= _MAX_ID:
        raise ValueError(f"{name} must be a positive 64-bit id, got {value!r}")
    return value


def _check_ttl(ttl_s: float) -> float:
    if not (isinstance(ttl_s, int | float) and math.isfinite(ttl_s) and ttl_s >= 0):
        raise ValueError(f"ttl_s must be a finite number of seconds >= 0, got {ttl_s!r}")
    return float(ttl_s)


class SqlStore:
    """:class:`~bot.storage.api.Store` over an async SQLAlchemy engine (see the module docstring).

    ``clock`` gives wall-clock seconds (TTLs); ``monotonic`` times the retry
    interval. Both are injectable so tests need no sleeping.
    """

    def __init__(
        self,
        engine: AsyncEngine,
        *,
        ttl_s: float = DEFAULT_TTL_S,
        retry_interval_s: float = 5.0,
        clock: Callable[[], float] = time.time,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.engine = engine
        self.url = engine.url
        self.ttl_s = _check_ttl(ttl_s)
        self.retry_interval_s = retry_interval_s
        self._clock = clock
        self._monotonic = monotonic
        self._up = True
        self._retry_at = 0.0
        self._last_purge = -math.inf
        self.outages = 0  # how many times the database went away (for logs and tests)

    # ----------------------------------------------------------- plumbing
    @property
    def available(self) -> bool:
        return self._up

    @property
    def backend(self) -> str:
        return self.url.get_backend_name()  # "sqlite" | "postgresql"

    def __repr__(self) -> str:
        return f"SqlStore({redact(self.url)})"

    async def _run(self, op: str, work: Callable[[AsyncConnection], Awaitable[T]], default: T) -> T:
        if not self._up and self._monotonic() < self._retry_at:
            return default
        try:
            async with self.engine.begin() as conn:
                result = await work(conn)
        except Exception as exc:  # a database problem never reaches the caller (CancelledError does)
            if not _outage(exc):
                log.exception("storage: %s failed", op)
                return default
            self._retry_at = self._monotonic() + self.retry_interval_s
            if self._up:
                self._up = False
                self.outages += 1
                log.warning(
                    "storage: the database at %s is unreachable (%s); answering without saved state "
                    "until it is back",
                    redact(self.url),
                    _scrub(str(getattr(exc, "orig", None) or exc), self.url),
                )
            return default
        if not self._up:
            self._up = True
            log.warning("storage: the database at %s is back; saved state is used again", redact(self.url))
        return result

    def _insert(self, table: sa.Table) -> Any:
        if self.backend == "postgresql":
            from sqlalchemy.dialects.postgresql import insert as pg_insert

            return pg_insert(table)
        from sqlalchemy.dialects.sqlite import insert as sqlite_insert

        return sqlite_insert(table)

    def _upsert(self, table: sa.Table, values: dict[str, Any], keys: Sequence[str]) -> Any:
        stmt = self._insert(table).values(**values)
        return stmt.on_conflict_do_update(
            index_elements=list(keys),
            set_={k: stmt.excluded[k] for k in values if k not in keys},
        )

    async def _maybe_purge(self, conn: AsyncConnection) -> None:
        now = self._clock()
        if now - self._last_purge >= _PURGE_EVERY_S:
            self._last_purge = now
            await self._purge(conn, now)

    @staticmethod
    async def _purge(conn: AsyncConnection, now: float) -> int:
        n = 0
        for table in (contexts, pending_choices):
            res = await conn.execute(sa.delete(table).where(table.c.expires_at <= now))
            n += max(res.rowcount or 0, 0)  # type: ignore[attr-defined]
        return n

    async def close(self) -> None:
        await self.engine.dispose()

    # ----------------------------------------------------- server settings
    async def get_guild_settings(self, guild_id: int) -> GuildSettings | None:
        _check_id("guild_id", guild_id)

        async def work(conn: AsyncConnection) -> GuildSettings | None:
            row = (
                await conn.execute(sa.select(guild_settings).where(guild_settings.c.guild_id == guild_id))
            ).first()
            if row is None:
                return None
            raw = codec.loads(row.ask_channel_ids)
            channels = frozenset(
                int(c) for c in (raw if isinstance(raw, list) else []) if isinstance(c, int) and c > 0
            )
            return GuildSettings(
                guild_id=row.guild_id,
                ask_channel_ids=channels,
                answer_mentions=bool(row.answer_mentions),
                currency=row.currency,
                language=row.language,
                allowed_role_id=row.allowed_role_id,
            )

        return await self._run("get_guild_settings", work, None)

    async def put_guild_settings(self, settings: GuildSettings) -> bool:
        _check_id("guild_id", settings.guild_id)
        for c in settings.ask_channel_ids:
            _check_id("ask channel id", c)
        if settings.allowed_role_id is not None:
            _check_id("allowed_role_id", settings.allowed_role_id)
        if settings.currency is not None and not (0 < len(settings.currency) <= 8):
            raise ValueError(f"currency must be a short code such as 'EUR', got {settings.currency!r}")
        if settings.language is not None and not (0 < len(settings.language) <= 16):
            raise ValueError(f"language must be a short code such as 'zh', got {settings.language!r}")
        values = {
            "guild_id": settings.guild_id,
            "ask_channel_ids": codec.dumps(sorted(settings.ask_channel_ids)),
            "answer_mentions": bool(settings.answer_mentions),
            "currency": settings.currency,
            "language": settings.language,
            "allowed_role_id": settings.allowed_role_id,
            "updated_at": self._clock(),
        }

        async def work(conn: AsyncConnection) -> bool:
            await conn.execute(self._upsert(guild_settings, values, ["guild_id"]))
            return True

        return await self._run("put_guild_settings", work, False)

    async def delete_guild_settings(self, guild_id: int) -> bool:
        _check_id("guild_id", guild_id)

        async def work(conn: AsyncConnection) -> bool:
            await conn.execute(sa.delete(guild_settings).where(guild_settings.c.guild_id == guild_id))
            return True

        return await self._run("delete_guild_settings", work, False)

    # ---------------------------------------------------------------- rigs
    async def get_rig(self, user_id: int) -> Rig | None:
        _check_id("user_id", user_id)

        async def work(conn: AsyncConnection) -> Rig | None:
            row = (await conn.execute(sa.select(rigs).where(rigs.c.user_id == user_id))).first()
            if row is None:
                return None
            try:
                m = row._mapping
                return Rig(m["gpu"], int(m["count"]), m["ram_gb"], m["budget_usd"])
            except ValueError:
                log.warning("storage: ignoring an unusable rig row for a user")
                return None

        return await self._run("get_rig", work, None)

    async def put_rig(self, user_id: int, rig: Rig) -> bool:
        _check_id("user_id", user_id)
        if len(rig.gpu) > 64:
            raise ValueError(f"Rig.gpu must be a catalog card id, got {rig.gpu[:80]!r}")
        values = {
            "user_id": user_id,
            "gpu": rig.gpu,
            "count": rig.count,
            "ram_gb": rig.ram_gb,
            "budget_usd": rig.budget_usd,
            "updated_at": self._clock(),
        }

        async def work(conn: AsyncConnection) -> bool:
            await conn.execute(self._upsert(rigs, values, ["user_id"]))
            return True

        return await self._run("put_rig", work, False)

    async def clear_user(self, user_id: int) -> bool:
        _check_id("user_id", user_id)

        async def work(conn: AsyncConnection) -> bool:
            await conn.execute(sa.delete(rigs).where(rigs.c.user_id == user_id))
            await conn.execute(sa.delete(contexts).where(contexts.c.user_id == user_id))
            await conn.execute(sa.delete(pending_choices).where(pending_choices.c.user_id == user_id))
            return True

        return await self._run("clear_user", work, False)

    # ------------------------------------------------------------ contexts
    async def get_context(self, channel_id: int, user_id: int) -> Context | None:
        _check_id("channel_id", channel_id)
        _check_id("user_id", user_id)
        now = self._clock()

        async def work(conn: AsyncConnection) -> Context | None:
            row = (
                await conn.execute(
                    sa.select(contexts.c.payload).where(
                        contexts.c.channel_id == channel_id,
                        contexts.c.user_id == user_id,
                        contexts.c.expires_at > now,
                    )
                )
            ).first()
            return None if row is None else codec.decode_context(codec.loads(row.payload))

        return await self._run("get_context", work, None)

    async def put_context(
        self, channel_id: int, user_id: int, context: Context, *, ttl_s: float | None = None
    ) -> bool:
        _check_id("channel_id", channel_id)
        _check_id("user_id", user_id)
        ttl = self.ttl_s if ttl_s is None else _check_ttl(ttl_s)
        payload = codec.dumps(codec.encode_context(context))
        values = {
            "channel_id": channel_id,
            "user_id": user_id,
            "payload": payload,
            "expires_at": self._clock() + ttl,
        }

        async def work(conn: AsyncConnection) -> bool:
            await conn.execute(self._upsert(contexts, values, ["channel_id", "user_id"]))
            await self._maybe_purge(conn)
            return True

        return await self._run("put_context", work, False)

    async def delete_context(self, channel_id: int, user_id: int) -> bool:
        _check_id("channel_id", channel_id)
        _check_id("user_id", user_id)

        async def work(conn: AsyncConnection) -> bool:
            await conn.execute(
                sa.delete(contexts).where(contexts.c.channel_id == channel_id, contexts.c.user_id == user_id)
            )
            return True

        return await self._run("delete_context", work, False)

    # ----------------------------------------------------- pending choices
    async def put_choices(
        self,
        question: str,
        choices: Sequence[Choice],
        *,
        user_id: int | None = None,
        ttl_s: float | None = None,
    ) -> str | None:
        if user_id is not None:
            _check_id("user_id", user_id)
        ttl = self.ttl_s if ttl_s is None else _check_ttl(ttl_s)
        choices_id = secrets.token_urlsafe(12)  # 16 characters: fits a Discord custom_id with room to spare
        values = {
            "id": choices_id,
            "user_id": user_id,
            "question": codec.dumps(str(question)),
            "choices": codec.dumps(codec.encode_choices(tuple(choices), str(question))),
            "expires_at": self._clock() + ttl,
        }

        async def work(conn: AsyncConnection) -> str | None:
            await conn.execute(sa.insert(pending_choices).values(**values))
            await self._maybe_purge(conn)
            return choices_id

        return await self._run("put_choices", work, None)

    async def get_choices(self, choices_id: str) -> PendingChoices | None:
        if not isinstance(choices_id, str) or not 0 < len(choices_id) <= 32:
            return None
        now = self._clock()

        async def work(conn: AsyncConnection) -> PendingChoices | None:
            row = (
                await conn.execute(
                    sa.select(pending_choices).where(
                        pending_choices.c.id == choices_id, pending_choices.c.expires_at > now
                    )
                )
            ).first()
            if row is None:
                return None
            question = codec.loads(row.question)
            if not isinstance(question, str):
                return None
            decoded = codec.decode_choices(codec.loads(row.choices), question)
            if decoded is None:
                return None
            return PendingChoices(row.id, question, decoded, row.user_id, float(row.expires_at))

        return await self._run("get_choices", work, None)

    async def purge_expired(self) -> int | None:
        now = self._clock()

        async def work(conn: AsyncConnection) -> int | None:
            self._last_purge = now
            return await self._purge(conn, now)

        return await self._run("purge_expired", work, None)


async def open_store(
    settings: Any = None,
    *,
    retry_interval_s: float = 5.0,
    clock: Callable[[], float] = time.time,
    monotonic: Callable[[], float] = time.monotonic,
) -> SqlStore:
    """Open the database named by ``settings`` (``database_url``, ``data_dir``,
    ``context_ttl_s``; :class:`bot.config.Settings` or anything with those
    attributes), run the migrations, and return the store.

    Raises :class:`StoreUnavailable` (one line, no password) when it cannot.
    """
    db_url = getattr(settings, "database_url", None)
    data_dir = getattr(settings, "data_dir", None)
    ttl = getattr(settings, "context_ttl_s", None)
    url = database_url(db_url, data_dir)
    if url.get_backend_name() == "sqlite" and url.database and url.database != ":memory:":
        directory = Path(url.database).expanduser().resolve().parent
        try:
            directory.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreUnavailable(
                f"cannot create the data directory {directory} (set DATA_DIR to a writable directory): "
                f"{exc.strerror or exc}"
            ) from None
    engine = _make_engine(url)
    try:
        await upgrade(engine)
    except (SQLAlchemyError, OSError, TimeoutError) as exc:
        await engine.dispose()
        reason = _scrub(str(getattr(exc, "orig", None) or exc), url) or type(exc).__name__
        raise StoreUnavailable(f"cannot open the database at {redact(url)}: {reason}") from None
    return SqlStore(
        engine,
        ttl_s=DEFAULT_TTL_S if ttl is None else float(ttl),
        retry_interval_s=retry_interval_s,
        clock=clock,
        monotonic=monotonic,
    )
