"""The terminal chat: a thin adapter over ``bot.core.answer``, like the Discord one."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, TextIO

from bot.core.answer import answer
from bot.core.types import Context, Lang

if TYPE_CHECKING:
    from bot.core.knowledge import Catalog

__all__ = ["chat"]

BANNER = (
    "gpu-advisor - ask which GPU to get for deep learning. Type 'help' for examples, "
    "'new' to forget the conversation, 'quit' to leave."
)


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
    print(BANNER, file=out)
    context = Context()
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
        if cmd in ("new", "reset"):
            context = Context()
            print("(conversation cleared)", file=out)
            continue
        if not cmd:
            continue
        ans = answer(line, context, catalog=catalog, lang=lang)
        context = ans.context
        print(ans.text, file=out)
        print(file=out)
