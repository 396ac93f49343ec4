"""Compiled patterns that skip their scan when a literal every match needs is absent.

``gated_re.compile(pattern, flags)`` is ``re.compile`` with a cheap check in front. Python's ``re``
tries every alternative at every position of the text, and with ``IGNORECASE`` or a ``\\b`` in front
of each alternative it cannot skip ahead by first character: a reader's pattern of 80 keywords takes
~10 us on a 60-character question that holds none of them, and a question passes ~70 such patterns.
Most of them match nothing in most questions.

At compile time the pattern's syntax tree (``re._parser``) gives a set of literals one of which
every match must contain (:func:`required_literals`: a literal run of a sequence, the union over the
branches of an alternation, the body of a repeat done at least once). A search first looks for
them: one literal with ``in``, several with a case-sensitive alternation of plain literals, which
``re`` scans by first character (~2 us for the same question and keywords). Under ``IGNORECASE``
the check runs on the lowered text (kept for the last text seen, which the next pattern usually
gets too). When a pattern has no such literals (a branch of digits only, say), it is searched as
compiled. The check only ever says "cannot match" when the pattern cannot match, so a gated
pattern returns exactly what the pattern returns (tests/core/test_gated_re.py checks every pattern
of the core on the question corpora and on generated text).

Unicode case folding: under ``IGNORECASE`` without ``ASCII``, ``re`` also matches "ı" (dotless i)
and "İ" to ``i``, "ſ" (long s) to ``s`` and the Kelvin sign to ``k``; ``str.lower()`` leaves the first
two alone and turns "İ" into two characters, so the lowered text maps them back before the check.
Cased literals outside ASCII are not used as gates under ``IGNORECASE``.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator
from typing import Any

__all__ = ["GatedPattern", "compile", "required_literals"]

try:  # Python 3.11+: the parser that re.compile itself uses
    import re._constants as _c
    import re._parser as _p
except ImportError:  # pragma: no cover - another Python: every pattern is searched as compiled
    _c = _p = None  # type: ignore[assignment]

_MAX_CLASS = 8  # a character class of at most this many plain characters is a set of literals
# a "literal" standing for any character outside ASCII: a class of Chinese characters ("[\u4e00-\u9fff]")
# cannot match a text of ASCII only (``str.isascii``, a C check), the most common kind of question
NON_ASCII = "\ufffe"
# what re's Unicode case folding matches to an ASCII letter: a class holding one of them may match ASCII
_FOLDS_TO_ASCII = (0x130, 0x131, 0x17F, 0x212A)


def _usable(ch: str, icase: bool) -> bool:
    """A literal character the check can look for (under IGNORECASE: ASCII or without case)."""
    return not icase or ch.isascii() or ch.lower() == ch.upper() == ch


def _score(lits: frozenset[str]) -> tuple[int, int]:
    """Longer literals first, then fewer of them: the check most texts fail (any non-ASCII character
    counts as a literal of two)."""
    return (min(2 if x == NON_ASCII else len(x) for x in lits), -len(lits))


def _non_ascii_class(items: Any, icase: bool, ascii_only: bool) -> bool:
    """A character class every member of which is outside ASCII (and, under Unicode IGNORECASE,
    none folds to an ASCII letter)."""
    for o, a in items:
        if o is _c.LITERAL:
            lo = hi = a
        elif o is _c.RANGE:
            lo, hi = a
        else:
            return False
        if lo < 0x80 or (icase and not ascii_only and any(lo <= f <= hi for f in _FOLDS_TO_ASCII)):
            return False
    return True


def _required(items: Any, icase: bool, ascii_only: bool = False) -> frozenset[str] | None:
    """Literals one of which every match of the sequence ``items`` contains, or None."""
    best: frozenset[str] | None = None
    run: list[str] = []

    def take(cand: frozenset[str] | None) -> None:
        nonlocal best
        if cand and (best is None or _score(cand) > _score(best)):
            best = cand

    for op, av in items:
        if op is _c.LITERAL and _usable(chr(av), icase):
            ch = chr(av)
            run.append(ch.lower() if icase else ch)
            continue
        if run:
            take(frozenset({"".join(run)}))
            run = []
        cand: frozenset[str] | None = None
        if op is _c.SUBPATTERN:
            _group, add, remove, sub = av
            inner = (icase or bool(add & _c.SRE_FLAG_IGNORECASE)) and not remove & _c.SRE_FLAG_IGNORECASE
            cand = _required(sub, inner, ascii_only)
        elif op is _c.BRANCH:
            subs = [_required(b, icase, ascii_only) for b in av[1]]
            cand = None if any(s is None for s in subs) else frozenset().union(*subs)  # type: ignore[arg-type]
        elif op in (_c.MAX_REPEAT, _c.MIN_REPEAT, _c.POSSESSIVE_REPEAT):
            low, _high, sub = av
            cand = _required(sub, icase, ascii_only) if low >= 1 else None
        elif op is _c.ATOMIC_GROUP:
            cand = _required(av, icase, ascii_only)
        elif op is _c.IN:
            if len(av) <= _MAX_CLASS and all(o is _c.LITERAL and _usable(chr(a), icase) for o, a in av):
                cand = frozenset(chr(a).lower() if icase else chr(a) for _o, a in av)
            elif _non_ascii_class(av, icase, ascii_only):
                cand = frozenset({NON_ASCII})
        take(cand)
    if run:
        take(frozenset({"".join(run)}))
    return best


def required_literals(pattern: str, flags: int = 0) -> tuple[frozenset[str] | None, bool]:
    """(literals one of which every match contains - lowered when the pattern ignores case - or
    None when there is no such set; whether the check must lower the text)."""
    if _p is None:  # pragma: no cover
        return None, False
    try:
        tree = _p.parse(pattern, flags)
    except Exception:  # pragma: no cover - re.compile raised first
        return None, False
    icase = bool(tree.state.flags & re.IGNORECASE)
    return _required(tree, icase, bool(tree.state.flags & re.ASCII)), icase


_last: tuple[str, str] = ("", "")  # (text, its lowered form): one tuple, replaced whole (threads)


def _lowered(s: str) -> str:
    global _last
    last = _last
    if last[0] is s:
        return last[1]
    low = s.lower()
    if not low.isascii():  # what re's case folding matches that lower() does not give
        low = low.replace("i\u0307", "i").replace("\u0131", "i").replace("\u017f", "s")
    _last = (s, low)
    return low


def _literal_check(lits: frozenset[str], icase: bool) -> Callable[[str], bool]:
    plain = lits - {NON_ASCII}
    if not plain:  # only "a character outside ASCII"
        return lambda s: not s.isascii()
    inner = _plain_check(plain, icase)
    if NON_ASCII in lits:
        return lambda s: not s.isascii() or inner(s)
    if all(not x.isascii() for x in plain):  # Chinese words only: an ASCII text holds none
        return lambda s: not s.isascii() and inner(s)
    return inner


_CHAIN = 16  # up to this many literals, a chain of ``in`` tests beats one alternation's search


def _plain_check(lits: frozenset[str], icase: bool) -> Callable[[str], bool]:
    if len(lits) <= _CHAIN:  # "a" in s or "b" in s ...: ~50 ns a literal, against ~1 us for a search
        lower = "    s = _lowered(s)\n" if icase else ""
        src = f"def check(s):\n{lower}    return " + " or ".join(f"{x!r} in s" for x in sorted(lits)) + "\n"
        ns: dict[str, Any] = {"_lowered": _lowered}
        exec(src, ns)  # noqa: S102 - the literals are the core's own patterns', written with repr
        check: Callable[[str], bool] = ns["check"]
        return check
    alternation = re.compile("|".join(re.escape(x) for x in sorted(lits, key=lambda x: (-len(x), x))))
    search = alternation.search
    if icase:
        return lambda s: search(_lowered(s)) is not None
    return lambda s: search(s) is not None


class GatedPattern:
    """A compiled pattern behind a literal check (see the module doc). Quacks like ``re.Pattern``:
    ``search``, ``match``, ``fullmatch``, ``finditer``, ``findall``, ``sub`` and ``subn`` are checked
    first; anything else is the pattern's own."""

    __slots__ = ("raw", "pattern", "flags", "groups", "groupindex", "_literals", "_may")

    def __init__(self, raw: re.Pattern[str]) -> None:
        self.raw = raw
        self.pattern: str = raw.pattern
        self.flags: int = raw.flags
        self.groups: int = raw.groups
        self.groupindex = raw.groupindex
        # the check is built on first use: ~250 patterns parsed again at import would add ~130 ms
        # to start-up, where the first question needs a third of them
        self._literals: frozenset[str] | None = None
        self._may: Callable[[str], bool] | None = self._build

    def _build(self, string: str) -> bool:
        lits, icase = required_literals(self.raw.pattern, self.raw.flags)
        self._literals = lits
        may = _literal_check(lits, icase) if lits else None
        self._may = may
        return may is None or may(string)

    @property
    def literals(self) -> frozenset[str] | None:
        """Literals one of which every match contains (lowered under IGNORECASE), or None."""
        if self._may == self._build:
            self._build("")
        return self._literals

    def may_match(self, string: str) -> bool:
        """False only when the pattern cannot match anywhere in ``string``."""
        may = self._may
        return may is None or may(string)

    def search(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        may = self._may
        if may is not None and not may(string):
            return None
        return self.raw.search(string, pos, endpos)

    def match(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        may = self._may
        if may is not None and not may(string):
            return None
        return self.raw.match(string, pos, endpos)

    def fullmatch(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        may = self._may
        if may is not None and not may(string):
            return None
        return self.raw.fullmatch(string, pos, endpos)

    def finditer(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> Iterator[re.Match[str]]:
        may = self._may
        if may is not None and not may(string):
            return iter(())
        return self.raw.finditer(string, pos, endpos)

    def findall(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> list[Any]:
        may = self._may
        if may is not None and not may(string):
            return []
        return self.raw.findall(string, pos, endpos)

    def sub(self, repl: str | Callable[[re.Match[str]], str], string: str, count: int = 0) -> str:
        may = self._may
        if may is not None and not may(string):
            return string
        return self.raw.sub(repl, string, count)

    def subn(
        self, repl: str | Callable[[re.Match[str]], str], string: str, count: int = 0
    ) -> tuple[str, int]:
        may = self._may
        if may is not None and not may(string):
            return string, 0
        return self.raw.subn(repl, string, count)

    def split(self, string: str, maxsplit: int = 0) -> list[str | Any]:
        return self.raw.split(string, maxsplit)

    def __repr__(self) -> str:
        return f"gated_re.compile({self.pattern!r}, {self.flags!r})"


def compile(pattern: str, flags: int | re.RegexFlag = 0) -> GatedPattern:  # noqa: A001 - re.compile's name
    return GatedPattern(re.compile(pattern, flags))
