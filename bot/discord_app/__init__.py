"""The Discord adapter: a thin layer over bot.core.answer.

``run(settings)`` is what ``python -m bot run`` calls: it blocks until the
bot stops and returns an exit code (0 clean stop, 1 could not run, 2 bad or
missing settings). Everything else here renders ``Answer`` objects.
"""

from __future__ import annotations

import asyncio
import logging
import re
import signal
import sys
from typing import TYPE_CHECKING, Any, TextIO

from bot.config import Settings

if TYPE_CHECKING:
    from .advisor import Advisor

__all__ = ["run", "redact", "RedactFilter", "EXIT_OK", "EXIT_FAILED", "EXIT_CONFIG"]

log = logging.getLogger(__name__)

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_CONFIG = 2


# -- redaction -----------------------------------------------------------------------

_SECRET_KEYS = r"token|content|value|values|description|title|label|text|question|query|placeholder|footer"
_REDACTIONS: tuple[tuple[re.Pattern[str], str], ...] = (
    # interaction tokens in callback / webhook URLs (15-minute credentials)
    (re.compile(r"(/webhooks/\d+/)[A-Za-z0-9_.\-]+"), r"\1<token>"),
    (re.compile(r"(/interactions/\d+/)[A-Za-z0-9_.\-]+"), r"\1<token>"),
    # "key": "value" / 'key': 'value' in logged payloads (JSON or Python reprs)
    (
        re.compile(rf"""(["'])({_SECRET_KEYS})\1(\s*:\s*)(?:"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')"""),
        r'\1\2\1\3"<redacted>"',
    ),
    # Authorization headers and bot-token-shaped strings
    (re.compile(r"\b(Bot|Bearer)\s+[A-Za-z0-9_.\-]{8,}"), r"\1 <token>"),
    (re.compile(r"\b[A-Za-z0-9_\-]{23,28}\.[A-Za-z0-9_\-]{6,7}\.[A-Za-z0-9_\-]{27,}\b"), "<token>"),
)
# Our loggers whose %-arguments may hold what people wrote: every text argument is replaced
# by its length. (The adapter's own modules log ids and status codes only.)
_CONTENT_LOGGERS = ("bot.core", "bot.discord_app.commands", "bot.discord_app.chart", "bot.discord_app.embeds")


def redact(text: str, secrets: tuple[str, ...] = ()) -> str:
    """``text`` without interaction tokens, webhook tokens, bot tokens or message contents."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, "<token>")
    for pattern, replacement in _REDACTIONS:
        text = pattern.sub(replacement, text)
    return text


class RedactFilter(logging.Filter):
    """Rewrites every record (message, arguments, traceback) through :func:`redact`, at every
    level. Installed on the handlers (so it sees records from every logger) and on the
    ``discord`` and ``bot`` loggers."""

    def __init__(self, secrets: tuple[str, ...] = ()) -> None:
        super().__init__()
        self.secrets = tuple(s for s in secrets if s and len(s) >= 8)

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "_redacted", False):
            return True
        try:
            args = record.args
            if args and record.name.startswith(_CONTENT_LOGGERS):
                if isinstance(args, tuple):
                    args = tuple(f"<{len(a)} chars>" if isinstance(a, str) else a for a in args)
                record.args = args
            message = record.getMessage()
        except Exception:
            message = str(record.msg)
        record.msg = redact(message, self.secrets)
        record.args = ()
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text, self.secrets)
        if record.stack_info:
            record.stack_info = redact(record.stack_info, self.secrets)
        record._redacted = True
        return True


def _setup_logging(level: str, secrets: tuple[str, ...] = ()) -> None:
    root = logging.getLogger()
    if not root.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)-7s %(name)s: %(message)s"))
        root.addHandler(handler)
    redactor = RedactFilter(secrets)
    for each in root.handlers:
        if not any(isinstance(f, RedactFilter) for f in each.filters):
            each.addFilter(redactor)
    for name in ("discord", "bot"):
        logging.getLogger(name).addFilter(redactor)
    root.setLevel(level)
    # the bot never joins voice: discord.py's start-up warnings about voice libraries are noise
    logging.getLogger("discord.client").addFilter(
        lambda record: "voice will NOT be supported" not in record.getMessage()
    )
    if level != "DEBUG":
        # discord.py's per-event debug lines would carry message contents.
        logging.getLogger("discord.gateway").setLevel(max(logging.INFO, logging.getLevelName(level)))


def run(settings: Settings, *, stderr: TextIO | None = None) -> int:
    """Start the bot and block until it stops. Returns the process exit code."""
    err = stderr or sys.stderr
    if not settings.token:
        print(
            "error: DISCORD_TOKEN is not set. Create a bot at https://discord.com/developers/applications, "
            "copy its token and set DISCORD_TOKEN (see the README section 'The Discord bot').",
            file=err,
        )
        return EXIT_CONFIG

    _setup_logging(settings.log_level, (settings.token or "",))

    import aiohttp
    import discord

    from .advisor import Advisor
    from .client import apply_endpoints, warm_core

    advisor = Advisor(settings)
    try:
        warm_core(advisor)
    except Exception as exc:
        log.debug("knowledge failed to load", exc_info=True)
        print(f"error: could not load the knowledge: {exc}", file=err)
        return EXIT_FAILED

    apply_endpoints(settings)
    try:
        return asyncio.run(_serve(settings, advisor, err))
    except KeyboardInterrupt:
        return EXIT_OK
    except discord.LoginFailure:
        print(
            "error: Discord rejected DISCORD_TOKEN (improper token). Reset it in the developer portal.",
            file=err,
        )
        return EXIT_FAILED
    except discord.PrivilegedIntentsRequired:
        print(
            "error: ASK_CHANNEL_IDS needs the Message Content intent: enable it under Bot -> Privileged "
            "Gateway Intents in the developer portal, or unset ASK_CHANNEL_IDS.",
            file=err,
        )
        return EXIT_FAILED
    except (OSError, aiohttp.ClientError) as exc:
        # no route to Discord (or to DISCORD_API_BASE): a setup problem, not a bug
        log.debug("cannot reach Discord", exc_info=True)
        print(
            f"error: cannot reach Discord ({exc}). Check the network, or DISCORD_API_BASE / "
            "DISCORD_GATEWAY_URL if you run behind a proxy.",
            file=err,
        )
        return EXIT_FAILED
    except Exception as exc:
        log.exception("the bot stopped with an error")
        print(f"error: the bot stopped: {type(exc).__name__}: {exc}", file=err)
        return EXIT_FAILED


async def _serve(settings: Settings, advisor: Advisor, err: TextIO | None = None) -> int:
    from bot.storage import StoreUnavailable, open_store, redact

    from .client import create_client

    # saved state (server setup, rigs, conversations, pending choices): DATA_DIR or DATABASE_URL
    try:
        store = await open_store(settings)
    except StoreUnavailable as exc:
        print(f"error: {exc}", file=err or sys.stderr)
        return EXIT_CONFIG
    advisor.store = store
    advisor.guild_settings.store = store
    log.info("saved state in %s (%s)", redact(store.url), store.backend)
    try:
        return await _connect(settings, advisor, create_client(settings, advisor=advisor))
    finally:
        await store.close()


async def _connect(settings: Settings, advisor: Advisor, client: Any) -> int:
    loop = asyncio.get_running_loop()
    stopping = False

    def stop() -> None:
        nonlocal stopping
        if not stopping:
            stopping = True
            log.info("stopping")
            loop.create_task(client.close())

    for sig in (signal.SIGTERM, signal.SIGINT):
        try:
            loop.add_signal_handler(sig, stop)
        except (NotImplementedError, RuntimeError):  # pragma: no cover (Windows)
            pass
    try:
        async with client:
            assert settings.token is not None
            await client.start(settings.token)
    finally:
        advisor.pool.shutdown()
    return EXIT_OK
