"""Compiled patterns that skip their scan when a literal every match needs is absent.

``gated_re.compile(pattern, flags)`` is ``re.compile`` with a cheap check in front. Python's ``re``
tries every alternative at every position of the text, and with ``IGNORECASE`` or a ``\\b`` in front
of each alternative it cannot skip ahead by first character: a reader's pattern of 80 keywords takes
~10 us on a 60-character question that holds none of them, and a question passes ~70 such patterns.
Most of them match nothing in most questions.

At compile time the pattern's syntax tree (``re._parser``) gives a set of literals one of which
every text the pattern matches in must contain (:func:`required_literals`: a literal run of a
sequence, the union over the branches of an alternation, the body of a repeat done at least once or
of a lookahead or lookbehind that must match). A search first looks for
them: a few literals with ``in``, more with one case-sensitive search of their trie
("b(?:uy|argain)|..."), which ``re`` scans by first character (~0.8 us for the same question and
keywords; a flat alternation took ~2.5 us). A text of ASCII only is checked for the ASCII literals
alone, and a literal holding another ("buying", "buy") is not checked. Under ``IGNORECASE``
the check runs on the lowered text (kept for the last text seen, which the next pattern usually
gets too). When a pattern has no such literals (a branch of digits only, say), it is searched as
compiled. The check only ever says "cannot match" when the pattern cannot match, so a gated
pattern returns exactly what the pattern returns (tests/core/test_gated_re.py checks every pattern
of the core on the question corpora and on generated text).

When the check passes, the search itself runs on the pattern with a lookahead of the characters a
match can start with in front (:func:`first_char_class`), where ``re`` cannot skip ahead by first
character on its own (``IGNORECASE``, or ``\\b`` / a lookbehind in front): a long keyword alternation
then fails at most positions in one step instead of entering its alternatives (~2x faster searches).

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

__all__ = ["GatedPattern", "compile", "first_char_class", "literal_check", "required_literals"]

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


# words in a large share of questions ("what gpu for ...", "how much vram does ... need"): as weak a
# gate as a single character
_COMMON_WORDS = frozenset({"what", "how", "which", "the", "for", "with", "can", "does", "gpu", "and", "run"})


def _weight(lit: str) -> int:
    """How rarely a literal is in a question: its length (any non-ASCII character counts as two), but
    a single ASCII letter or digit as none - nearly every question holds a "t" or an "s" - and a
    common word as one."""
    if lit == NON_ASCII:
        return 2
    if len(lit) == 1 and lit.isascii() and lit.isalnum():
        return 0
    if lit.strip() in _COMMON_WORDS:
        return 1
    return len(lit)


def _score(lits: frozenset[str]) -> tuple[int, int]:
    """Rarer literals first, then fewer of them: the check most texts fail. ("4 tok/s": of "t", which
    "tokens?|toks?|t" leaves once re factors out the common prefix, and "/ or per", the second.)"""
    return (min(_weight(x) for x in lits), -len(lits))


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


def _leading_run(items: Any, icase: bool) -> str:
    """The literal characters a sequence starts with (lowered under IGNORECASE), or ""."""
    out: list[str] = []
    for op, av in items:
        if op is not _c.LITERAL or not _usable(chr(av), icase):
            break
        out.append(chr(av).lower() if icase else chr(av))
    return "".join(out)


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
            joined = "".join(run)
            take(frozenset({joined}))
            if op is _c.BRANCH:  # "y" + (ears?|rs?), as re factors "years?|yrs?": "year" or "yr"
                heads = [_leading_run(b, icase) for b in av[1]]
                if all(heads):
                    take(frozenset(joined + h for h in heads))
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
        elif op is _c.ASSERT:  # a lookahead or lookbehind that must match: its text is in the string too
            cand = _required(av[1], icase, ascii_only)
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


# (text, its lowered form) of the last text lowered: one tuple in a box, replaced whole (threads)
_box: list[tuple[str, str]] = [("", "")]


def _lowered(s: str) -> str:
    last = _box[0]
    if last[0] is s:
        return last[1]
    low = s.lower()
    if not low.isascii():  # what re's case folding matches that lower() does not give
        low = low.replace("i\u0307", "i").replace("\u0131", "i").replace("\u017f", "s")
    _box[0] = (s, low)
    return low


_CHAIN = 6  # up to this many literals, a chain of ``in`` tests beats one search of their trie


def _subsumed(lits: Any) -> list[str]:
    """The literals without those that hold another one ("buying" holds "buy"): a text holds one of
    the rest exactly when it holds one of them all."""
    out: list[str] = []
    for x in sorted(set(lits), key=lambda x: (len(x), x)):
        if not any(o in x for o in out):
            out.append(x)
    return out


def _trie(lits: list[str]) -> str:
    """A pattern matching where one of ``lits`` (no one holding another) starts, written as a trie
    ("b(?:uy|argain)|..."): ``re`` tries a branch only past the characters it shares with the text,
    where a flat alternation of 50 literals tries all 50 at every position (~3x slower)."""
    root: dict[str, Any] = {}
    for x in lits:
        node = root
        for ch in x:
            node = node.setdefault(ch, {})
        node[""] = {}

    def emit(node: dict[str, Any]) -> str:
        if "" in node:  # a literal ends here (none goes on: none holds another)
            return ""
        alts = [re.escape(ch) + emit(node[ch]) for ch in sorted(node)]
        return alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"

    return emit(root)


def _found(lits: list[str], name: str, ns: dict[str, Any]) -> str:
    """An expression that is true when ``t`` holds one of ``lits`` (several ``in`` tests, or a
    search of their trie, kept in ``ns`` as ``name``)."""
    if len(lits) <= _CHAIN:  # "a" in t or "b" in t ...: ~40 ns a literal
        return " or ".join(f"{x!r} in t" for x in lits)
    ns[name] = re.compile(_trie(lits)).search
    return f"{name}(t) is not None"


# what each method returns when the check says the pattern cannot match, and the call it makes otherwise
_METHODS: dict[str, tuple[str, str]] = {
    "search": ("None", "_raw.search(string, pos, endpos)"),
    "match": ("None", "_raw.match(string, pos, endpos)"),
    "fullmatch": ("None", "_raw.fullmatch(string, pos, endpos)"),
    "finditer": ("iter(())", "_raw.finditer(string, pos, endpos)"),
    "findall": ("[]", "_raw.findall(string, pos, endpos)"),
}
_SUBS: dict[str, tuple[str, str]] = {
    "sub": ("string", "_raw.sub(repl, string, count)"),
    "subn": ("(string, 0)", "_raw.subn(repl, string, count)"),
}


# where the gate lines say what a method returns (repr never writes a NUL: no literal holds it)
_FAIL = "\x00"


def _gate_lines(lits: frozenset[str], icase: bool, ns: dict[str, Any]) -> list[str]:
    """Lines that return ``_FAIL`` when no literal of ``lits`` is in ``string`` (indented for a
    function body); the searches they need go into ``ns``. A text of ASCII only (most questions) is
    checked for the ASCII literals alone, and a literal holding another is not checked."""
    plain = lits - {NON_ASCII}
    text = ["c = _box[0]", "t = c[1] if c[0] is string else _lowered(string)"] if icase else ["t = string"]
    # (an ASCII text lowers to ASCII: its lowered form holds no literal outside ASCII)
    ascii_lits = _subsumed(x for x in plain if x.isascii())
    if ascii_lits:
        on_ascii = [*text, f"if not ({_found(ascii_lits, '_alt', ns)}):", "    return " + _FAIL]
    else:
        on_ascii = ["return " + _FAIL]
    if NON_ASCII in lits:  # a character outside ASCII, or one of the literals: any other text may match
        return ["    if string.isascii():", *("        " + x for x in on_ascii)]
    every = _subsumed(plain)
    other = [*text, f"if not ({_found(every, '_alt_all', ns)}):", "    return " + _FAIL]
    return [
        "    if string.isascii():",
        *("        " + x for x in on_ascii),
        "    else:",
        *("        " + x for x in other),
    ]


def _gated(raw: re.Pattern[str], lits: frozenset[str] | None, icase: bool) -> dict[str, Callable[..., Any]]:
    """The pattern's methods with the check inlined: one Python call a search, where a method
    calling a check function took two or three (a question passes ~80 of them)."""
    if not lits:  # no literal every match needs: the pattern's own methods, no check at all
        out: dict[str, Callable[..., Any]] = {n: getattr(raw, n) for n in (*_METHODS, *_SUBS)}
        out["may_match"] = _always
        return out
    ns: dict[str, Any] = {"_raw": raw, "_box": _box, "_lowered": _lowered, "_MAX": sys.maxsize}
    gate = _gate_lines(lits, icase, ns)
    src = []
    for name, (fail, call) in _METHODS.items():
        src += [
            f"def {name}(string, pos=0, endpos=_MAX):",
            *(g.replace(_FAIL, fail) for g in gate),
            f"    return {call}",
        ]
    for name, (fail, call) in _SUBS.items():
        src += [
            f"def {name}(repl, string, count=0):",
            *(g.replace(_FAIL, fail) for g in gate),
            f"    return {call}",
        ]
    src += ["def may_match(string):", *(g.replace(_FAIL, "False") for g in gate), "    return True"]
    exec("\n".join(src) + "\n", ns)  # noqa: S102 - the literals are the core's own patterns', written with repr
    return {n: ns[n] for n in (*_METHODS, *_SUBS, "may_match")}


# a first-character set of more than this many class items, or one holding ``\w`` or a negated
# category, fails at too few positions to pay for its check
_MAX_FIRSTS = 60
_NARROW_CATEGORIES = {"CATEGORY_DIGIT": r"\d", "CATEGORY_SPACE": r"\s"}


def _firsts(items: Any) -> tuple[list[tuple[Any, Any]], bool] | None:
    """(class items one of which every match of the sequence ``items`` starts with, whether the
    sequence can match the empty string), or None when that is not plainly known."""
    out: list[tuple[Any, Any]] = []
    for op, av in items:
        if op is _c.LITERAL:
            return [*out, (op, av)], False
        if op is _c.IN:
            if any(o is _c.NEGATE for o, _a in av):
                return None
            return [*out, *av], False
        if op in (_c.AT, _c.ASSERT, _c.ASSERT_NOT):  # zero-width: the match starts at what follows
            continue
        if op is _c.SUBPATTERN:
            _group, add, remove, sub = av
            if add or remove:  # flags of its own: a class built under the pattern's flags may differ
                return None
            got = _firsts(sub)
        elif op is _c.ATOMIC_GROUP:
            got = _firsts(av)
        elif op is _c.BRANCH:
            got = ([], False)
            for b in av[1]:
                sub_got = _firsts(b)
                if sub_got is None:
                    return None
                got = ([*got[0], *sub_got[0]], got[1] or sub_got[1])
        elif op in (_c.MAX_REPEAT, _c.MIN_REPEAT, _c.POSSESSIVE_REPEAT):
            low, _high, sub = av
            got = _firsts(sub)
            if got is not None and low == 0:
                got = (got[0], True)
        else:  # any character, a back-reference, a negated literal...: not known
            return None
        if got is None:
            return None
        out.extend(got[0])
        if not got[1]:
            return out, False
    return out, True


def first_char_class(pattern: str, flags: int = 0) -> str | None:
    """A character class (``"[...]"``) every match of the pattern starts with, when that helps ``re``:
    with ``IGNORECASE`` or a ``\\b`` / lookbehind in front of each alternative, ``re`` cannot skip
    ahead by first character and enters every alternative at every word boundary (~10 us for a
    pattern of 80 keywords on a question that holds one of its literals). A lookahead of the class in
    front fails at most positions in one step. None when the pattern may match the empty string, the
    set is not plainly known or too broad, or ``re`` already skips by a literal or class prefix."""
    if _p is None:  # pragma: no cover
        return None
    try:
        tree = _p.parse(pattern, flags)
    except Exception:  # pragma: no cover - re.compile raised first
        return None
    if flags & re.VERBOSE or tree.state.flags & re.VERBOSE:  # a trailing comment would eat the ")"
        return None
    icase = bool(tree.state.flags & re.IGNORECASE)
    got = _firsts(tree)
    if got is None or got[1] or not got[0]:
        return None
    parts: list[str] = []
    cased = False
    for op, av in got[0]:
        if op is _c.LITERAL:
            parts.append(re.escape(chr(av)))
            cased = cased or chr(av).lower() != chr(av).upper()
        elif op is _c.RANGE:
            parts.append(f"{re.escape(chr(av[0]))}-{re.escape(chr(av[1]))}")
            cased = True
        elif op is _c.CATEGORY and str(av) in _NARROW_CATEGORIES:
            parts.append(_NARROW_CATEGORIES[str(av)])
        else:
            return None
    op, av = tree[0]  # what re looks at for a prefix of its own (a match is never empty here)
    while op is _c.SUBPATTERN and len(av[3]):
        op, av = av[3][0]
    starts_plain = op in (_c.LITERAL, _c.IN) or (
        op is _c.BRANCH and all(len(b) and b[0][0] is _c.LITERAL for b in av[1])
    )
    if starts_plain and not (icase and cased):
        return None  # re's own prefix or charset check skips ahead already
    single = op in (_c.MAX_REPEAT, _c.MIN_REPEAT, _c.POSSESSIVE_REPEAT) and [o for o, _a in av[2]] in (
        [_c.LITERAL],
        [_c.IN],
    )
    if single:
        return None  # one character class repeated ("\\d+"): re fails at a position in one step too
    unique = dict.fromkeys(parts)
    return "[" + "".join(unique) + "]" if len(unique) <= _MAX_FIRSTS else None


def _with_first_char(raw: re.Pattern[str]) -> re.Pattern[str]:
    """The pattern with a lookahead of its first-character class in front (the same matches: every
    match starts with a character of the class, and the lookahead consumes nothing and holds no
    group), or the pattern itself when no class helps."""
    cls = first_char_class(raw.pattern, raw.flags)
    if cls is None:
        return raw
    try:
        return re.compile(f"(?={cls})(?:{raw.pattern})", raw.flags)
    except re.error:  # pragma: no cover - e.g. global inline flags, which must come first
        return raw


def _always(string: str) -> bool:
    return True


class GatedPattern:
    """A compiled pattern behind a literal check (see the module doc). Quacks like ``re.Pattern``:
    ``search``, ``match``, ``fullmatch``, ``finditer``, ``findall``, ``sub`` and ``subn`` are checked
    first (functions generated per pattern, on first use, kept on the instance); ``split`` is the
    pattern's own."""

    search: Callable[..., re.Match[str] | None]
    match: Callable[..., re.Match[str] | None]
    fullmatch: Callable[..., re.Match[str] | None]
    finditer: Callable[..., Iterator[re.Match[str]]]
    findall: Callable[..., list[Any]]
    sub: Callable[..., str]
    subn: Callable[..., tuple[str, int]]
    may_match: Callable[[str], bool]  # False only when the pattern cannot match anywhere in the text

    def __init__(self, raw: re.Pattern[str]) -> None:
        self.raw = raw
        self.pattern: str = raw.pattern
        self.flags: int = raw.flags
        self.groups: int = raw.groups
        self.groupindex = raw.groupindex
        # the methods are built on first use: ~250 patterns parsed again at import would add ~130 ms
        # to start-up, where the first question needs a third of them
        self._literals: frozenset[str] | None = None
        self._built = False
        for name in (*_METHODS, *_SUBS, "may_match"):
            setattr(self, name, _First(self, name))

    def _build(self) -> None:
        if not self._built:
            lits, icase = required_literals(self.raw.pattern, self.raw.flags)
            self._literals = lits
            self.__dict__.update(_gated(_with_first_char(self.raw), lits, icase))
            self._built = True

    @property
    def literals(self) -> frozenset[str] | None:
        """Literals one of which every match contains (lowered under IGNORECASE), or None."""
        self._build()
        return self._literals

    def split(self, string: str, maxsplit: int = 0) -> list[str | Any]:
        return self.raw.split(string, maxsplit)

    def __repr__(self) -> str:
        return f"gated_re.compile({self.pattern!r}, {self.flags!r})"


class _First:
    """A method before the pattern's first use: builds them all, then calls the real one."""

    __slots__ = ("owner", "name")

    def __init__(self, owner: GatedPattern, name: str) -> None:
        self.owner = owner
        self.name = name

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.owner._build()
        return getattr(self.owner, self.name)(*args, **kwargs)


def compile(pattern: str, flags: int | re.RegexFlag = 0) -> GatedPattern:  # noqa: A001 - re.compile's name
    return GatedPattern(re.compile(pattern, flags))


def literal_check(pattern: str, flags: int | re.RegexFlag = 0) -> Callable[[str], bool]:
    """The literal check alone (``may_match``) of a pattern that is never searched (an alternation of a
    reader's patterns, say), built now: a method taken off a pattern before its first use is the lazy
    builder (:class:`_First`), one more call on every use."""
    p = compile(pattern, flags)
    p._build()
    return p.may_match
