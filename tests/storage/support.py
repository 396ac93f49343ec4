"""Helpers for the storage tests: a throwaway PostgreSQL cluster, a settable clock."""

from __future__ import annotations

import glob
import itertools
import os
import shutil
import socket
import subprocess
from dataclasses import dataclass
from pathlib import Path

PG_USER = "advisor_test"
PG_PASSWORD = "s3cret-pw"  # trust auth ignores it; it is there to prove it is never printed


def find_bindir() -> Path | None:
    for cand in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True):
        if os.access(os.path.join(cand, "initdb"), os.X_OK) and os.access(
            os.path.join(cand, "pg_ctl"), os.X_OK
        ):
            return Path(cand)
    initdb = shutil.which("initdb")
    if initdb and shutil.which("pg_ctl"):
        return Path(initdb).parent
    return None


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PgServer:
    """A PostgreSQL cluster the tests own: ``start()``, ``stop()``, ``url(dbname)``."""

    def __init__(self, bindir: Path, root: Path, runas: str | None) -> None:
        self.bindir = bindir
        self.root = root
        self.datadir = root / "data"
        self.sockdir = root / "sock"
        self.logfile = root / "server.log"
        self.port = free_port()
        self.runas = runas
        self._names = itertools.count(1)

    def _cmd(self, *args: str) -> list[str]:
        cmd = [str(self.bindir / args[0]), *args[1:]]
        return ["runuser", "-u", self.runas, "--", *cmd] if self.runas else cmd

    def _run(self, *args: str) -> None:
        proc = subprocess.run(self._cmd(*args), capture_output=True, text=True, timeout=120)
        if proc.returncode != 0:
            log = self.logfile.read_text(errors="replace")[-2000:] if self.logfile.exists() else ""
            raise RuntimeError(f"{args[0]} failed ({proc.returncode}): {proc.stderr.strip()}\n{log}")

    def init(self) -> None:
        self._run(
            "initdb", "-D", str(self.datadir), "-U", PG_USER, "--auth=trust", "-E", "UTF8", "--no-locale"
        )

    def start(self) -> None:
        opts = f"-p {self.port} -k {self.sockdir} -c listen_addresses=127.0.0.1 -F -c max_connections=100"
        self._run(
            "pg_ctl", "-D", str(self.datadir), "-l", str(self.logfile), "-o", opts, "-w", "-t", "60", "start"
        )

    def stop(self) -> None:
        self._run("pg_ctl", "-D", str(self.datadir), "-m", "fast", "-w", "-t", "60", "stop")

    def url(self, dbname: str = "postgres") -> str:
        return f"postgresql://{PG_USER}:{PG_PASSWORD}@127.0.0.1:{self.port}/{dbname}"

    def new_database(self) -> str:
        """A fresh empty database on this server; its URL."""
        name = f"t{next(self._names)}"
        proc = subprocess.run(
            [
                str(self.bindir / "psql"),
                "-h",
                "127.0.0.1",
                "-p",
                str(self.port),
                "-U",
                PG_USER,
                "-d",
                "postgres",
                "-v",
                "ON_ERROR_STOP=1",
                "-q",
                "-c",
                f'CREATE DATABASE "{name}"',
            ],
            capture_output=True,
            text=True,
            timeout=60,
        )
        if proc.returncode != 0:
            raise RuntimeError(f"CREATE DATABASE failed: {proc.stderr.strip()}")
        return self.url(name)


@dataclass
class StoreSettings:
    """What :func:`open_store` reads from :class:`bot.config.Settings`."""

    data_dir: Path
    database_url: str | None = None
    context_ttl_s: float = 900.0


class Clock:
    """Wall-clock stand-in for TTLs: starts at a fixed time, moves when told."""

    def __init__(self, t: float = 1_800_000_000.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t

    def advance(self, seconds: float) -> None:
        self.t += seconds
