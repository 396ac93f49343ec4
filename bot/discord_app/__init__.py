"""The Discord adapter: a thin layer over bot.core.answer.

``run(settings)`` is what ``python -m bot run`` calls: it blocks until the
bot stops and returns an exit code (0 clean stop, 1 could not run, 2 bad or
missing settings). Everything else here renders ``Answer`` objects.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import sys
from typing import TYPE_CHECKING, TextIO

from bot.config import Settings

if TYPE_CHECKING:
    from .advisor import Advisor

__all__ = ["run", "EXIT_OK", "EXIT_FAILED", "EXIT_CONFIG"]

log = logging.getLogger(__name__)

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_CONFIG = 2


def _setup_logging(level: str) -> None:
    root = logging.getLogger()
    if not root.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)-7s %(name)s: %(message)s"))
        root.addHandler(handler)
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

    _setup_logging(settings.log_level)

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
        return asyncio.run(_serve(settings, advisor))
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


async def _serve(settings: Settings, advisor: Advisor) -> int:
    from .client import create_client

    client = create_client(settings, advisor=advisor)
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
    async with client:
        assert settings.token is not None
        await client.start(settings.token)
    return EXIT_OK
