"""Add (or change) one reply message in every language catalog.

usage: python scripts/add_message.py KEY "English text" "中文（简体）"

Writes ``bot/core/phrase/locales/en.po`` and ``zh_Hans.po`` with Babel's PO
writer (the English text goes into the Chinese entry as a translator's
comment). Placeholders are ``{name}`` and must be the same in both; the
catalog test checks that. For a new language, copy en.po to <lang>.po,
translate every msgstr and register it in ``bot/core/phrase/catalog.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

from babel.messages.pofile import read_po, write_po

LOCALES = Path(__file__).resolve().parents[1] / "bot" / "core" / "phrase" / "locales"


def set_message(lang_file: str, key: str, text: str, comment: str | None = None) -> None:
    path = LOCALES / lang_file
    with path.open("rb") as fh:
        cat = read_po(fh)
    msg = cat.get(key)
    if msg is None:
        cat.add(key, text, auto_comments=[comment] if comment else [])
    else:
        msg.string = text
        if comment:
            msg.auto_comments = [comment]
    with path.open("wb") as fh:
        write_po(fh, cat, width=0, sort_output=False, omit_header=False)


def main() -> int:
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    key, en, zh = sys.argv[1:]
    from string import Formatter

    names = [{n for _, n, _, _ in Formatter().parse(x) if n} for x in (en, zh)]
    if names[0] != names[1]:
        print(f"placeholders differ: {sorted(names[0])} vs {sorted(names[1])}", file=sys.stderr)
        return 2
    set_message("en.po", key, en)
    set_message("zh_Hans.po", key, zh, comment=f"en: {en}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
