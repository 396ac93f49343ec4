"""The terminal chat: a thin adapter over ``bot.core.answer``, like the Discord one."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, TextIO

from bot.core.answer import answer
from bot.core.phrase.catalog import t
from bot.core.phrase.commands import command_text
from bot.core.types import Answer, Context, Lang

if TYPE_CHECKING:
    from bot.core.knowledge import Catalog

__all__ = ["chat"]

BANNER = t(Lang.EN, "chat.banner")
#: what asks for the command of the last verdict in the chat
SHOW_COMMAND = ("command", "show command", "cmd", "命令", "显示命令", "顯示命令")


def chat(
    catalog: Catalog, stdin: TextIO | None = None, stdout: TextIO | None = None, *, lang: Lang | None = None
) -> int:
    inp = stdin or sys.stdin
    out = stdout or sys.stdout
    interactive = inp.isatty() and out.isatty()
    if interactive:
        try:
            import readline  # noqa: F401  (history and line editing)
        except ImportError:
            pass
    print(t(lang or Lang.EN, "chat.banner"), file=out)
    context = Context()
    last: Answer | None = None
    while True:
        if interactive:
            try:
                line = input("you> ")
            except (EOFError, KeyboardInterrupt):
                print(file=out)
                return 0
        else:
            out.write("you> ")
            out.flush()
            raw = inp.readline()
            if not raw:
                out.write("\n")
                return 0
            line = raw.rstrip("\n")
        cmd = line.strip().lower()
        if cmd in ("quit", "exit", ":q", "bye"):
            return 0
        if cmd in ("new", "reset", "清空", "重新开始"):
            print(t(context.language or lang or Lang.EN, "chat.cleared"), file=out)
            context = Context(language=context.language)
            continue
        if not cmd:
            continue
        if cmd in SHOW_COMMAND:
            # the command that runs the last verdict (issue 17)
            shown = command_text(last) if last is not None else None
            print(shown or t(context.language or lang or Lang.EN, "cmd.none"), file=out)
            print(file=out)
            continue
        ans = answer(line, context, catalog=catalog, lang=lang)
        context = ans.context
        last = ans
        print(ans.text, file=out)
        print(file=out)
