"""docker-compose.yml and the Dockerfile agree with the storage settings (no Docker daemon needed)."""

from __future__ import annotations

import re
from pathlib import Path

from bot.config import Settings
from bot.core.yaml_io import safe_load
from bot.storage import database_url

REPO = Path(__file__).resolve().parents[2]


def _substitute(value: str, env: dict[str, str]) -> str:
    # compose's ${VAR} and ${VAR:?message}
    return re.sub(r"\$\{(\w+)(?::\?[^}]*)?\}", lambda m: env[m.group(1)], value)


def test_compose_runs_the_bot_on_the_postgresql_service() -> None:
    compose = safe_load((REPO / "docker-compose.yml").read_text())
    db, bot = compose["services"]["db"], compose["services"]["bot"]
    assert db["image"].startswith("postgres:")
    assert bot["depends_on"]["db"]["condition"] == "service_healthy"
    env = {"POSTGRES_PASSWORD": "pw123", "DISCORD_TOKEN": "t"}
    bot_env = {k: _substitute(str(v), env) for k, v in bot["environment"].items()}
    settings = Settings.from_env(bot_env)
    url = database_url(settings.database_url, settings.data_dir)
    assert url.drivername == "postgresql+asyncpg" and url.host == "db"
    assert url.username == db["environment"]["POSTGRES_USER"]
    assert url.database == db["environment"]["POSTGRES_DB"]
    assert url.password == "pw123"


def test_dockerfile_keeps_sqlite_in_the_data_volume() -> None:
    text = (REPO / "Dockerfile").read_text()
    assert re.search(r"^ENV DATA_DIR=/data$", text, re.M)
    assert re.search(r'^VOLUME \["/data"\]$', text, re.M)
    assert "chown advisor /data" in text  # the unprivileged user can write it
    assert "DATABASE_URL" not in re.sub(r"#.*", "", text)  # SQLite unless the operator says otherwise
