"""``python -m bot``: ask | chat | run | check.

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

    cat = _load_catalog()
    question = " ".join(args.question)
    if question == "-":
        # batch mode: one question per line, one JSON object (or text block) per line; no shared context.
        # Bytes, decoded line by line with replacement: one bad byte costs that line, never the batch.
        for raw in sys.stdin.buffer:
            line = raw.decode("utf-8", errors="replace").rstrip("\r\n")
            ans = answer(line, None, catalog=cat)
            if args.json:
                sys.stdout.write(_dumps(ans.to_json()) + "\n")
            else:
                sys.stdout.write(ans.text + "\n\n")
            sys.stdout.flush()
        return 0
    ans = answer(question, None, catalog=cat)
    if args.json:
        print(_dumps(ans.to_json()))
    else:
        print(ans.text)
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


def _cmd_chat(_: argparse.Namespace) -> int:
    from bot.terminal import chat

    cat = _load_catalog()
    return chat(cat)


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


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m bot", description="GPU advice for deep learning.")
    sub = p.add_subparsers(dest="cmd")
    ask = sub.add_parser("ask", help="answer one question ('-' reads one per line from stdin)")
    ask.add_argument("--json", action="store_true", help="print the JSON contract instead of text")
    ask.add_argument("question", nargs="+", help="the question, or '-' for stdin")
    ask.set_defaults(func=_cmd_ask)
    sub.add_parser("chat", help="interactive chat in the terminal").set_defaults(func=_cmd_chat)
    sub.add_parser("run", help="run the Discord bot (needs DISCORD_TOKEN)").set_defaults(func=_cmd_run)
    sub.add_parser("check", help="validate knowledge/ and print a summary").set_defaults(func=_cmd_check)
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
