"""``python -m bot``: ask | chat | run | check | estimate | db upgrade | prices.

With no sub-command: the Discord bot when ``DISCORD_TOKEN`` is set, the
terminal chat otherwise. Settings are read from the environment once, here.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from collections.abc import Sequence

__all__ = ["main"]

LANG_CHOICES = ("en", "zh", "zh-Hans", "zh-Hant")


def _load_catalog():  # type: ignore[no-untyped-def]
    from bot.core.knowledge import KnowledgeError, default_knowledge_dir, get_catalog

    try:
        return get_catalog(default_knowledge_dir(os.environ))
    except KnowledgeError as exc:
        print(f"knowledge error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None


def _cmd_check(_: argparse.Namespace) -> int:
    cat = _load_catalog()
    print(cat.summary())
    return 0


def _cmd_ask(args: argparse.Namespace) -> int:
    from bot.core.answer import answer
    from bot.core.language import parse_lang
    from bot.core.types import Context

    cat = _load_catalog()
    lang = parse_lang(args.lang)
    question = " ".join(args.question)
    if question == "-":
        # batch mode: one question per line, one JSON object (or text block) per line;
        # with --conversation, context carries from line to line (follow-ups, language).
        # Bytes, decoded line by line with replacement: one bad byte costs that line, never the batch.
        context: Context | None = Context() if args.conversation else None
        for raw in sys.stdin.buffer:
            line = raw.decode("utf-8", errors="replace").rstrip("\r\n")
            ans = answer(line, context, catalog=cat, lang=lang)
            if args.conversation:
                context = ans.context
            if args.json:
                sys.stdout.write(_dumps(ans.to_json()) + "\n")
            else:
                sys.stdout.write(ans.text + "\n\n")
                if args.show_command:
                    from bot.core.phrase.commands import command_text

                    shown = command_text(ans)
                    if shown:
                        sys.stdout.write(shown + "\n\n")
            sys.stdout.flush()
        return 0
    ans = answer(question, None, catalog=cat, lang=lang)
    if args.json:
        print(_dumps(ans.to_json()))
    else:
        print(ans.text)
        if args.show_command:
            from bot.core.phrase.commands import command_text, no_command_text

            print()
            print(command_text(ans) or no_command_text(ans.language))
    return 0


def _finite(value: object) -> object:
    """``value`` with every NaN/Infinity replaced by null (the JSON contract has none)."""
    if isinstance(value, float):
        return value if value == value and value not in (float("inf"), float("-inf")) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


def _dumps(obj: object) -> str:
    """JSON without NaN/Infinity, ever: allow_nan=False, and a non-finite number becomes null."""
    try:
        return json.dumps(obj, ensure_ascii=False, allow_nan=False)
    except ValueError:
        logging.getLogger(__name__).error("non-finite number in an answer's JSON; written as null")
        return json.dumps(_finite(obj), ensure_ascii=False, allow_nan=False)


def _cmd_chat(args: argparse.Namespace) -> int:
    from bot.core.language import parse_lang
    from bot.terminal import chat

    cat = _load_catalog()
    return chat(cat, lang=parse_lang(getattr(args, "lang", None)))


def _cmd_run(_: argparse.Namespace) -> int:
    from bot.config import ConfigError, Settings

    try:
        settings = Settings.from_env(os.environ)
    except ConfigError as exc:
        print(f"configuration error: {exc}", file=sys.stderr)
        return 2
    if not settings.token:
        print(
            "DISCORD_TOKEN is not set: create a bot at https://discord.com/developers/applications, "
            "then run with DISCORD_TOKEN=... (see README). Without a token, `python -m bot chat` "
            "starts the terminal chat.",
            file=sys.stderr,
        )
        return 2
    _load_catalog()  # fail fast on bad knowledge, before connecting
    from bot.discord_app import run

    return run(settings)


def _cmd_db(args: argparse.Namespace) -> int:
    """``db upgrade``: run the storage migrations (bot/storage) and say where the database is."""
    import asyncio

    from bot.config import ConfigError, Settings

    try:
        settings = Settings.from_env(os.environ)
    except ConfigError as exc:
        print(f"configuration error: {exc}", file=sys.stderr)
        return 2
    from bot.storage import StoreUnavailable, open_store, redact
    from bot.storage.migrate import current_revision

    async def upgrade() -> str:
        store = await open_store(settings)
        try:
            return f"database at {redact(store.url)} is at revision {await current_revision(store.engine)}"
        finally:
            await store.close()

    try:
        print(asyncio.run(upgrade()))
    except StoreUnavailable as exc:
        print(f"database error: {exc}", file=sys.stderr)
        return 2
    return 0


def _cmd_estimate(_: argparse.Namespace) -> int:
    from bot.estimate_cli import run

    return run(_load_catalog(), sys.stdin.buffer, sys.stdout)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m bot", description="GPU advice for deep learning.")
    sub = p.add_subparsers(dest="cmd")
    ask = sub.add_parser("ask", help="answer one question ('-' reads one per line from stdin)")
    ask.add_argument("--json", action="store_true", help="print the JSON contract instead of text")
    ask.add_argument(
        "--conversation",
        action="store_true",
        help="with '-': carry the context (follow-ups, language) from one line to the next",
    )
    ask.add_argument("--lang", choices=LANG_CHOICES, help="reply language (default: the question's)")
    ask.add_argument(
        "--show-command",
        action="store_true",
        help="after an inference verdict, print the command that runs it (llama.cpp, vLLM, Ollama, diffusers)",
    )
    ask.add_argument("question", nargs="+", help="the question, or '-' for stdin")
    ask.set_defaults(func=_cmd_ask)
    chat = sub.add_parser("chat", help="interactive chat in the terminal")
    chat.add_argument("--lang", choices=LANG_CHOICES, help="reply language (default: the question's)")
    chat.set_defaults(func=_cmd_chat)
    sub.add_parser("run", help="run the Discord bot (needs DISCORD_TOKEN)").set_defaults(func=_cmd_run)
    sub.add_parser("check", help="validate knowledge/ and print a summary").set_defaults(func=_cmd_check)
    db = sub.add_parser("db", help="the database of saved state (DATA_DIR / DATABASE_URL)")
    db.add_argument("action", choices=["upgrade"], help="upgrade: run the schema migrations")
    db.set_defaults(func=_cmd_db)
    from bot.prices_cli import add_parser as _add_prices_parser

    _add_prices_parser(sub)  # prices import FILE.csv | prices stale
    sub.add_parser(
        "estimate", help="memory estimates: JSON lines in on stdin, JSON lines out (see bot/estimate_cli.py)"
    ).set_defaults(func=_cmd_estimate)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    level = os.environ.get("LOG_LEVEL", "WARNING").strip().upper() or "WARNING"
    if level not in logging.getLevelNamesMapping():
        print(
            f"configuration error: LOG_LEVEL must be one of DEBUG, INFO, WARNING, ERROR; got {level!r}",
            file=sys.stderr,
        )
        return 2
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        if args.cmd is None:
            func = _cmd_run if os.environ.get("DISCORD_TOKEN") else _cmd_chat
            return func(args)
        return int(args.func(args))
    except BrokenPipeError:  # `python -m bot ask ... | head`: the reader left, nothing to report
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
