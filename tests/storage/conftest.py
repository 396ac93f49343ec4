"""Real databases for the storage tests: a SQLite file per test, and one throwaway
PostgreSQL cluster per session (initdb + pg_ctl in a temp dir, a free loopback
port), with a fresh database per test.

PostgreSQL's server binaries are required: without them these tests fail
with a message saying how to install them (``.ci/run`` installs them).
"""

from __future__ import annotations

import os
import pwd
import shutil
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from bot.storage import SqlStore, open_store
from tests.storage import support
from tests.storage.support import Clock, PgServer, StoreSettings


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    bindir = support.find_bindir()
    if bindir is None:
        pytest.fail(
            "PostgreSQL server binaries (initdb, pg_ctl) not found under /usr/lib/postgresql/*/bin or on "
            "PATH. The storage tests need a real PostgreSQL: install it with "
            "`apt-get update && apt-get install -y postgresql` (.ci/run does this when it is missing).",
            pytrace=False,
        )
    runas: str | None = None
    if os.geteuid() == 0:  # PostgreSQL refuses to run as root
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            pytest.fail(
                "running as root and there is no 'postgres' user to run the test server as "
                "(the Debian postgresql package creates it)",
                pytrace=False,
            )
        runas = "postgres"
    root = Path(tempfile.mkdtemp(prefix="gpu-advisor-pg-"))
    if runas:
        shutil.chown(root, user=runas)
    server = PgServer(bindir, root, runas)
    try:
        server.init()
        server.sockdir.mkdir()
        if runas:
            shutil.chown(server.sockdir, user=runas)
        server.start()
    except Exception as exc:
        shutil.rmtree(root, ignore_errors=True)
        pytest.fail(f"could not start a throwaway PostgreSQL: {exc}", pytrace=False)
    try:
        yield server
    finally:
        try:
            server.stop()
        except Exception:
            pass
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(params=["sqlite", "postgresql"])
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def store_settings(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> StoreSettings:
    if backend == "sqlite":
        return StoreSettings(data_dir=tmp_path / "data")
    server: PgServer = request.getfixturevalue("pg_server")
    return StoreSettings(data_dir=tmp_path / "unused", database_url=server.new_database())


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
async def store(store_settings: StoreSettings, clock: Clock) -> AsyncIterator[SqlStore]:
    s = await open_store(store_settings, clock=clock, retry_interval_s=0.0)
    try:
        yield s
    finally:
        await s.close()
