"""Settings from the environment, read once at start-up (never at import).

``Settings.from_env(os.environ)`` checks every value and raises one
``ConfigError`` listing every problem (one clear line each, never the
token); ``python -m bot run`` prints it and exits with code 2.

Variables (all optional except ``DISCORD_TOKEN`` for ``python -m bot run``):

``DISCORD_TOKEN``        the bot token (never logged)
``ASK_CHANNEL_IDS``      comma-separated channel ids where every message is a
                         question (needs the privileged message-content intent)
``DEV_GUILD_ID``         sync slash commands to this one guild (development)
``KNOWLEDGE_DIR``        directory with gpus.yaml / models.yaml / benchmarks/
``LOG_LEVEL``            DEBUG, INFO (default), WARNING, ERROR
``SHARD_COUNT``          run an AutoShardedBot with this many shards
``SHARD_IDS``            comma-separated shard ids this process runs (needs SHARD_COUNT), e.g. ``0,1``:
                         several processes share one PostgreSQL (DATABASE_URL), each some shards
``MESSAGE_CONTENT_INTENT`` ``1`` to ask Discord for the privileged Message Content intent even
                         without ASK_CHANNEL_IDS (so ask-channels set with ``/gpu-setup`` work)
``DISCORD_API_BASE``     REST base URL, e.g. ``http://proxy:8080/api/v10``
``DISCORD_GATEWAY_URL``  gateway websocket URL, e.g. ``ws://proxy:8081/``
``COOLDOWN_PER_10S``     questions one user may ask per 10 s (default 5; 0 = off).
                         For tests and operations.
``CONTEXT_TTL_S``        how long follow-up context is kept (default 900 s)
``DATA_DIR``             where the SQLite database lives (default ``./data``, created if missing)
``DATABASE_URL``         PostgreSQL instead of SQLite: ``postgresql://user:password@host:5432/dbname``
                         (never logged with its password)

Every bounded store, pool and retry budget of the bot is sized in one place:
:class:`Bounds` (``Settings.bounds``; ``BOUNDS`` is the default, also used by
the core's name index). Memory stays bounded by construction whatever people
send: each per-user, per-channel and per-message store has a size in bytes or
entries and evicts the least recently used (or expired) entries first.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

__all__ = ["BOUNDS", "Bounds", "ConfigError", "Settings", "LOG_LEVELS"]

LOG_LEVELS = ("CRITICAL", "ERROR", "WARNING", "INFO", "DEBUG")


class ConfigError(ValueError):
    """One or more settings are unusable; ``problems`` lists each, one line."""

    def __init__(self, problems: tuple[str, ...]) -> None:
        self.problems = problems
        super().__init__("; ".join(problems))

    def __str__(self) -> str:
        return "; ".join(self.problems)


def _clean(environ: Mapping[str, str], name: str) -> str | None:
    value = environ.get(name)
    if value is None:
        return None
    value = value.strip()
    return value or None


@dataclass(frozen=True)
class Bounds:
    """Sizes of every store, pool and retry budget (see the module docstring)."""

    # follow-up contexts per (channel, user): estimated bytes, LRU + TTL (CONTEXT_TTL_S)
    context_bytes: int = 16 * 1024 * 1024
    # choice-button views alive at once; the oldest is stopped (its buttons go dead) past this
    live_views: int = 500
    view_timeout_s: float = 900.0
    # users whose cooldown window is tracked, and users told about it (LRU + TTL of the window)
    cooldown_users: int = 50_000
    notice_users: int = 50_000
    # question message id -> our reply (so an edit re-answers in place), and deleted questions
    replies_tracked: int = 20_000
    deleted_tracked: int = 20_000
    # worker pool for answers and charts: threads, questions waiting, time limit of one
    workers: int = 2
    pending_questions: int = 4_000
    answer_time_limit_s: float = 10.0
    chart_time_limit_s: float = 20.0
    # scheduling: a question is run as if it arrived this much later per 1,000 characters,
    # so short questions are not stuck behind a flood of long ones (no starvation either)
    delay_per_1000_chars_s: float = 10.0
    # a slash command is deferred ("thinking...") when its answer is not ready after this
    defer_after_s: float = 1.0
    # sending a reply: attempts and total time, on top of discord.py's own retries
    reply_attempts: int = 8
    reply_deadline_s: float = 180.0
    reply_backoff_s: float = 0.5
    reply_backoff_max_s: float = 15.0
    # messages being answered at once, from the question's answer to its reply sent: an answer
    # waits here, not in memory (each holds up to ~100 KB while it is written and sent), and the
    # waiting ones go short questions first, like the worker pool
    replies_in_flight: int = 64
    # of those, kept for short questions (at most 300 characters): a flood of long ones in one
    # channel sends at Discord's per-channel pace and must not hold every slot
    replies_reserved_for_short: int = 16
    # database operations of the bot at once (below the connection pool's 5), short questions first
    store_slots: int = 4
    # discord.py's message cache (messages kept for edit/delete events)
    discord_message_cache: int = 1_000
    # the core's name index: "did you mean" candidate pools kept
    suggest_pools: int = 256


BOUNDS = Bounds()


@dataclass(frozen=True)
class Settings:
    token: str | None = None
    ask_channel_ids: frozenset[int] = frozenset()
    dev_guild_id: int | None = None
    knowledge_dir: Path | None = None
    log_level: str = "INFO"
    shard_count: int | None = None
    discord_api_base: str | None = None
    discord_gateway_url: str | None = None
    cooldown_per_10s: int = 5
    context_ttl_s: float = 900.0
    data_dir: Path = Path("data")
    database_url: str | None = None  # holds a password: never in repr
    bounds: Bounds = BOUNDS
    shard_ids: tuple[int, ...] | None = None  # SHARD_IDS: the shards this process runs
    message_content: bool = False  # MESSAGE_CONTENT_INTENT

    def __repr__(self) -> str:  # never show the token
        token = "set" if self.token else "unset"
        return (
            f"Settings(token=<{token}>, ask_channel_ids={sorted(self.ask_channel_ids)}, "
            f"dev_guild_id={self.dev_guild_id}, knowledge_dir={self.knowledge_dir}, "
            f"log_level={self.log_level!r}, shard_count={self.shard_count}, shard_ids={self.shard_ids}, "
            f"discord_api_base={self.discord_api_base!r}, discord_gateway_url={self.discord_gateway_url!r}, "
            f"cooldown_per_10s={self.cooldown_per_10s}, context_ttl_s={self.context_ttl_s})"
        )

    __str__ = __repr__

    @property
    def needs_message_content(self) -> bool:
        """The privileged intent is only needed to read ask-channel messages."""
        return bool(self.ask_channel_ids) or self.message_content

    @classmethod
    def from_env(cls, environ: Mapping[str, str]) -> Settings:
        errors: list[str] = []

        def int_value(name: str, *, minimum: int) -> int | None:
            raw = _clean(environ, name)
            if raw is None:
                return None
            try:
                value = int(raw)
            except ValueError:
                errors.append(f"{name} must be a whole number, got {raw!r}")
                return None
            if value < minimum:
                errors.append(f"{name} must be at least {minimum}, got {value}")
                return None
            return value

        channel_ids: set[int] = set()
        raw_channels = _clean(environ, "ASK_CHANNEL_IDS")
        if raw_channels:
            for part in raw_channels.split(","):
                part = part.strip()
                if not part:
                    continue
                if not part.isdigit() or int(part) <= 0:
                    errors.append(
                        f"ASK_CHANNEL_IDS must be comma-separated channel ids (numbers), got {part!r}"
                    )
                    continue
                channel_ids.add(int(part))

        level = (_clean(environ, "LOG_LEVEL") or "INFO").upper()
        if level not in LOG_LEVELS:
            errors.append(f"LOG_LEVEL must be one of {', '.join(LOG_LEVELS)}, got {level!r}")
            level = "INFO"

        api_base = _clean(environ, "DISCORD_API_BASE")
        if api_base is not None:
            if not api_base.startswith(("http://", "https://")):
                errors.append(f"DISCORD_API_BASE must be an http(s) URL, got {api_base!r}")
                api_base = None
            else:
                api_base = api_base.rstrip("/")
        gateway = _clean(environ, "DISCORD_GATEWAY_URL")
        if gateway is not None and not gateway.startswith(("ws://", "wss://")):
            errors.append(f"DISCORD_GATEWAY_URL must be a ws(s) URL, got {gateway!r}")
            gateway = None

        knowledge = _clean(environ, "KNOWLEDGE_DIR")

        cooldown = int_value("COOLDOWN_PER_10S", minimum=0)
        ttl_raw = _clean(environ, "CONTEXT_TTL_S")
        ttl = 900.0
        if ttl_raw is not None:
            try:
                ttl = float(ttl_raw)
                if ttl < 0:
                    raise ValueError
            except ValueError:
                errors.append(f"CONTEXT_TTL_S must be a number of seconds >= 0, got {ttl_raw!r}")
                ttl = 900.0

        dev_guild_id = int_value("DEV_GUILD_ID", minimum=1)
        shard_count = int_value("SHARD_COUNT", minimum=1)
        data_dir, database_url = _storage_settings(environ, errors)
        shard_ids = _shard_ids(environ, shard_count, errors)
        raw_mc = (_clean(environ, "MESSAGE_CONTENT_INTENT") or "0").lower()
        if raw_mc not in ("0", "1", "true", "false", "yes", "no", "on", "off"):
            errors.append(f"MESSAGE_CONTENT_INTENT must be 1 or 0, got {raw_mc!r}")
        if errors:
            raise ConfigError(tuple(errors))
        return cls(
            token=_clean(environ, "DISCORD_TOKEN"),
            ask_channel_ids=frozenset(channel_ids),
            dev_guild_id=dev_guild_id,
            knowledge_dir=Path(knowledge).expanduser() if knowledge else None,
            log_level=level,
            shard_count=shard_count,
            discord_api_base=api_base,
            discord_gateway_url=gateway,
            cooldown_per_10s=5 if cooldown is None else cooldown,
            context_ttl_s=ttl,
            data_dir=data_dir,
            database_url=database_url,
            shard_ids=shard_ids,
            message_content=raw_mc in ("1", "true", "yes", "on"),
        )


_DATABASE_SCHEMES = (
    "postgresql://",
    "postgres://",
    "postgresql+asyncpg://",
    "sqlite://",
    "sqlite+aiosqlite://",
)


def _storage_settings(environ: Mapping[str, str], errors: list[str]) -> tuple[Path, str | None]:
    """``DATA_DIR`` and ``DATABASE_URL`` (bot/storage); a problem never echoes the URL (it has a password)."""
    raw_dir = _clean(environ, "DATA_DIR")
    data_dir = Path(raw_dir).expanduser() if raw_dir else Path("data")
    url = _clean(environ, "DATABASE_URL")
    if url is not None and not url.lower().startswith(_DATABASE_SCHEMES):
        scheme = url.split("://", 1)[0] if "://" in url else ""
        errors.append(
            "DATABASE_URL must be a postgresql://user:password@host:port/dbname URL"
            + (f", got a {scheme}:// URL" if scheme and len(scheme) < 30 else "")
        )
        url = None
    return data_dir, url


def _shard_ids(
    environ: Mapping[str, str], shard_count: int | None, errors: list[str]
) -> tuple[int, ...] | None:
    """``SHARD_IDS``: distinct ids in 0..SHARD_COUNT-1 (SHARD_COUNT is required with it)."""
    raw = _clean(environ, "SHARD_IDS")
    if raw is None:
        return None
    ids: list[int] = []
    for part in raw.split(","):
        part = part.strip()
        if not part:
            continue
        if not part.isdigit():
            errors.append(f"SHARD_IDS must be comma-separated shard numbers, got {part[:20]!r}")
            return None
        ids.append(int(part))
    if not ids:
        return None
    if shard_count is None:
        errors.append("SHARD_IDS needs SHARD_COUNT (the total number of shards of the bot)")
        return None
    bad = [i for i in ids if i >= shard_count]
    if bad:
        errors.append(f"SHARD_IDS must be below SHARD_COUNT ({shard_count}), got {bad[0]}")
        return None
    return tuple(sorted(set(ids)))
