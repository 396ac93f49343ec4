"""Faults: a database down at start-up, a database that goes away while running,
the ``python -m bot db upgrade`` command, and the storage settings."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from bot.config import ConfigError, Settings
from bot.core.rig import Rig
from bot.core.types import Choice, Context, Intent, Query
from bot.storage import GuildSettings, StoreUnavailable, database_url, open_store, redact
from tests.storage.support import PG_PASSWORD, Clock, PgServer, StoreSettings, free_port

REPO = Path(__file__).resolve().parents[2]
USER = 922_222_222_222_222_222
CH = 700_000_000_000_000_001


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "DATA_DIR", "DISCORD_TOKEN")}
    env.update(extra)
    return env


def _bot(*args: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot", *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=120
    )


async def test_database_down_at_start_up_is_one_clear_error_without_the_password(tmp_path: Path) -> None:
    url = f"postgresql://someone:{PG_PASSWORD}@127.0.0.1:{free_port()}/advisor"
    with pytest.raises(StoreUnavailable) as err:
        await open_store(StoreSettings(tmp_path, url))
    msg = str(err.value)
    assert PG_PASSWORD not in msg
    assert "someone:***@127.0.0.1" in msg and "/advisor" in msg
    assert "\n" not in msg


async def test_unwritable_data_dir_is_a_clear_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with pytest.raises(StoreUnavailable, match="DATA_DIR"):
        await open_store(StoreSettings(blocker / "data"))


def test_database_url_forms() -> None:
    assert database_url(None, "/srv/x").render_as_string() == "sqlite+aiosqlite:////srv/x/gpu-advisor.sqlite3"
    assert database_url(None, None).database == "data/gpu-advisor.sqlite3"
    pg = database_url("postgres://u:p@h:5433/db?sslmode=require")
    assert pg.drivername == "postgresql+asyncpg" and pg.port == 5433 and dict(pg.query) == {"ssl": "require"}
    assert database_url("sqlite:///tmp/a.db").drivername == "sqlite+aiosqlite"
    with pytest.raises(StoreUnavailable, match="mysql"):
        database_url("mysql://u:p@h/db")
    assert redact("postgresql://u:hunter2@h/db") == "postgresql://u:***@h/db"


def test_db_upgrade_command_creates_the_sqlite_file(tmp_path: Path) -> None:
    data = tmp_path / "nested" / "data"
    first = _bot("db", "upgrade", env=_env(DATA_DIR=str(data)), cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert (data / "gpu-advisor.sqlite3").is_file()
    assert "revision 0001" in first.stdout
    again = _bot("db", "upgrade", env=_env(DATA_DIR=str(data)), cwd=tmp_path)
    assert again.returncode == 0 and again.stdout == first.stdout


def test_db_upgrade_default_data_dir_is_dot_data(tmp_path: Path) -> None:
    proc = _bot("db", "upgrade", env=_env(), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "data" / "gpu-advisor.sqlite3").is_file()


def test_db_upgrade_with_the_database_down_exits_2_naming_the_url(tmp_path: Path) -> None:
    port = free_port()
    url = f"postgresql://advisor:{PG_PASSWORD}@127.0.0.1:{port}/gpu"
    proc = _bot("db", "upgrade", env=_env(DATABASE_URL=url), cwd=tmp_path)
    assert proc.returncode == 2
    assert PG_PASSWORD not in proc.stderr + proc.stdout
    assert f"advisor:***@127.0.0.1:{port}/gpu" in proc.stderr
    assert (
        proc.stderr.startswith("database error: ") and proc.stderr.count("\n") == 1
    )  # one line, no traceback


def test_db_upgrade_on_postgresql(pg_server: PgServer, tmp_path: Path) -> None:
    proc = _bot("db", "upgrade", env=_env(DATABASE_URL=pg_server.new_database()), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "revision 0001" in proc.stdout and PG_PASSWORD not in proc.stdout


def test_a_second_process_sees_the_first_ones_writes(pg_server: PgServer, tmp_path: Path) -> None:
    url = pg_server.new_database()
    writer = textwrap.dedent(
        """
        import asyncio, os
        from bot.config import Settings
        from bot.core.rig import Rig
        from bot.core.types import Context, Intent, Query
        from bot.storage import GuildSettings, open_store

        async def main():
            store = await open_store(Settings.from_env(os.environ))
            assert await store.put_rig(922222222222222222, Rig("rtx-3090", 2, 64.0))
            assert await store.put_guild_settings(GuildSettings(5, frozenset({6}), False, "EUR", "zh"))
            ctx = Context(last=Query(intent=Intent.FIT, models=("llama-3-8b",), gpus=("rtx-3090",)))
            assert await store.put_context(7, 922222222222222222, ctx)
            print(await store.put_choices("which one?", []))
            await store.close()

        asyncio.run(main())
        """
    )
    proc = subprocess.run(
        [sys.executable, "-c", writer], env=_env(DATABASE_URL=url), cwd=REPO, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    choices_id = proc.stdout.strip()

    import asyncio

    async def read() -> None:
        store = await open_store(Settings.from_env({"DATABASE_URL": url}))
        try:
            assert await store.get_rig(USER) == Rig("rtx-3090", 2, 64.0)
            assert await store.get_guild_settings(5) == GuildSettings(5, frozenset({6}), False, "EUR", "zh")
            ctx = await store.get_context(7, USER)
            assert ctx is not None and ctx.last is not None and ctx.last.gpus == ("rtx-3090",)
            got = await store.get_choices(choices_id)
            assert got is not None and got.question == "which one?"
        finally:
            await store.close()

    asyncio.run(read())


async def test_postgresql_going_away_degrades_then_recovers(
    pg_server: PgServer, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    clock = Clock()
    store = await open_store(
        StoreSettings(tmp_path, pg_server.new_database()), clock=clock, retry_interval_s=0.0
    )
    ctx = Context(last=Query(intent=Intent.RECOMMEND, budget_usd=900.0))
    try:
        assert await store.put_rig(USER, Rig("rtx-3090"))
        assert await store.put_context(CH, USER, ctx)
        caplog.clear()
        caplog.set_level(logging.WARNING, logger="bot.storage")
        pg_server.stop()
        try:
            # every operation answers (nothing raises), without saved state
            assert await store.get_rig(USER) is None
            assert await store.put_rig(USER, Rig("rtx-4090")) is False
            assert await store.get_context(CH, USER) is None
            assert await store.put_context(CH, USER, ctx) is False
            assert await store.put_choices("q", [Choice("a", "b")]) is None
            assert await store.get_choices("whatever") is None
            assert await store.get_guild_settings(5) is None
            assert await store.put_guild_settings(GuildSettings(5)) is False
            assert await store.clear_user(USER) is False
            assert await store.purge_expired() is None
            assert not store.available
            down = [r for r in caplog.records if "unreachable" in r.getMessage()]
            assert len(down) == 1, [r.getMessage() for r in caplog.records]  # said once
            assert PG_PASSWORD not in caplog.text and "***" in down[0].getMessage()
        finally:
            pg_server.start()
        # back: the same store object, no restart, the data written before the outage
        assert await store.get_rig(USER) == Rig("rtx-3090")
        assert store.available and store.outages == 1
        assert await store.get_context(CH, USER) == ctx
        assert await store.put_rig(USER, Rig("rtx-4090"))
        assert await store.get_rig(USER) == Rig("rtx-4090")
        assert len([r for r in caplog.records if "is back;" in r.getMessage()]) == 1
    finally:
        await store.close()


async def test_while_down_the_store_waits_before_trying_again(pg_server: PgServer, tmp_path: Path) -> None:
    """A dead database is not asked again on every operation: only after ``retry_interval_s``."""
    now = [0.0]
    port = free_port()
    store = await open_store(StoreSettings(tmp_path, pg_server.new_database()), monotonic=lambda: now[0])
    try:
        assert store.retry_interval_s == 5.0
        # point the store's engine at a port nobody listens on: the database "went away"
        from sqlalchemy.ext.asyncio import create_async_engine

        await store.engine.dispose()
        real_engine = store.engine
        store.engine = create_async_engine(store.url.set(port=port), connect_args={"timeout": 2})
        assert await store.get_rig(USER) is None and not store.available
        store.engine = real_engine  # the database is back...
        now[0] = 4.9
        assert await store.get_rig(USER) is None and not store.available  # ...but not asked yet
        now[0] = 5.1
        assert await store.put_rig(USER, Rig("rtx-3090")) and store.available
    finally:
        await store.close()


def test_settings_read_data_dir_and_database_url() -> None:
    s = Settings.from_env({})
    assert s.data_dir == Path("data") and s.database_url is None
    s = Settings.from_env({"DATA_DIR": " /srv/advisor ", "DATABASE_URL": "postgresql://u:pw@db:5432/advisor"})
    assert s.data_dir == Path("/srv/advisor") and s.database_url == "postgresql://u:pw@db:5432/advisor"
    assert "pw" not in repr(s)
    with pytest.raises(ConfigError) as err:
        Settings.from_env({"DATABASE_URL": "mysql://u:hunter2@db/advisor"})
    assert "hunter2" not in str(err.value) and "DATABASE_URL" in str(err.value)
    with pytest.raises(ConfigError) as err:
        Settings.from_env({"DATABASE_URL": "hunter2"})
    assert "hunter2" not in str(err.value)
