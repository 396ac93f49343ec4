"""bot.core.gated_re: a pattern behind its literal check returns exactly what the pattern returns.

The check may only say "cannot match" when the pattern cannot match. Tested three ways: the
literal sets of hand-written patterns (what every match must contain), every gated pattern of the
core on the question corpora (as typed and lowered), and generated text built from each pattern's
own literals and the characters Unicode case folding treats specially.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bot
from bot.core import gated_re
from bot.core.gated_re import GatedPattern, required_literals
from bot.core.yaml_io import safe_load

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("pattern", "flags", "expected"),
    [
        (r"\bfine[\s-]?tuned\b", 0, {"tuned"}),  # the longest run a match must hold
        (r"\bq?lora\b|微调", 0, {"lora", "微调"}),  # one per branch
        (r"abc|\d+", 0, None),  # a branch of digits only: no literal every match holds
        (r"(?:foo)?bar", 0, {"bar"}),  # an optional group holds nothing required
        (r"(?:foo)+x", 0, {"foo"}),  # a repeat done at least once does
        (r"x(?:ab){0,3}", 0, {"x"}),
        (r"[/／]", 0, {"/", "／"}),  # a small class of plain characters
        (r"\bTOKENS?\b", re.I, {"token"}),  # lowered under IGNORECASE
        (r"(?i:ABC)d", 0, {"abc"}),  # an inline flag on a group
        (r"café", re.I, {"caf"}),  # a cased letter outside ASCII is not a gate under IGNORECASE
        (r"\d+\s*gb", 0, {"gb"}),
        # re factors "years?|yrs?" into "y" + (ears?|rs?): the literal and each branch's head, joined
        (r"\d+\s*(?:years?|yrs?)\b", 0, {"year", "yr"}),
        (r"(?:tokens?|toks?|t)\s*/", 0, {"/"}),  # a branch with no head ("t" alone): the "/" after
        (r"(?=abc)", 0, {"abc"}),  # a lookahead that must match: not in the match, but in the text
        (r"(?<=ab)c", 0, {"ab"}),  # a lookbehind too
        (r"(?!abc)x", 0, {"x"}),  # a negative one says nothing
        (r"[\u4e00-\u9fff]+", 0, {gated_re.NON_ASCII}),  # any Chinese character: not an ASCII text
        (r"预算|以内", 0, {"预算", "以内"}),
        (r"[\u0100-\u0200]", re.I, None),  # holds the long s, which IGNORECASE matches to 's'
        (r"[\u0100-\u0200]", re.I | re.ASCII, {gated_re.NON_ASCII}),  # ASCII folding only
    ],
)
def test_required_literals(pattern: str, flags: int, expected: set[str] | None) -> None:
    lits, _ = required_literals(pattern, flags)
    assert (set(lits) if lits is not None else None) == expected


@pytest.mark.parametrize(
    ("pattern", "text"),
    [
        (r"\bsafe\b", "is it ſafe"),  # long s: re's IGNORECASE matches it to s, lower() keeps it
        (r"\bwin\b", "WıN"),  # dotless i
        (r"\bit\b", "İt works"),  # dotted capital I lowers to two characters
        (r"\bkv\b", "\u212av cache"),  # the Kelvin sign
    ],
)
def test_unicode_case_folding_is_not_gated_away(pattern: str, text: str) -> None:
    raw = re.compile(pattern, re.I)
    assert raw.search(text) is not None  # what re itself does
    assert gated_re.compile(pattern, re.I).search(text) is not None


def test_an_ascii_text_is_not_scanned_for_chinese() -> None:
    p = gated_re.compile(r"[\u4e00-\u9fff]|显存")
    assert not p.may_match("what gpu for bert") and p.may_match("显存够吗") and p.may_match("naïve 卡")
    assert gated_re.compile(r"预算|以内").may_match("预算1000") is True
    assert gated_re.compile(r"预算|以内").may_match("budget 1000") is False
    assert gated_re.compile(r"[\u4e00-\u9fff]|abc").may_match("xabcx")


def test_every_method_answers_as_re_does_with_literals_that_look_like_code() -> None:
    """The checked methods are generated as source per pattern: literals holding braces, quotes or
    backslashes stay data, and every method returns what re's own does, gated or not."""
    for pattern in (r"a\{b\}|c\{d", r"'x'|\"y\"", r"\\n|tab\t", r"(?:q)?"):
        raw = re.compile(pattern, re.I)
        p = gated_re.compile(pattern, re.I)
        for text in ("xx C{D a{b}", "'X' \"y\"", "\\N tab\t", "nothing here", ""):
            assert repr(p.search(text)) == repr(raw.search(text))
            assert repr(p.match(text)) == repr(raw.match(text))
            assert repr(p.fullmatch(text)) == repr(raw.fullmatch(text))
            assert [m.span() for m in p.finditer(text)] == [m.span() for m in raw.finditer(text)]
            assert p.findall(text) == raw.findall(text)
            assert p.sub("_", text) == raw.sub("_", text) and p.subn("_", text) == raw.subn("_", text)
            assert p.split(text) == raw.split(text)


def test_a_text_without_the_literal_is_not_scanned() -> None:
    p = gated_re.compile(r"\b(?:rent|lease)\w*\b", re.I)
    assert p.literals == frozenset({"rent", "lease"})
    assert not p.may_match("what gpu for bert")
    assert p.may_match("Renting an A100?")
    assert p.search("Renting an A100?").group() == "Renting"  # type: ignore[union-attr]


@functools.cache
def _core_patterns() -> dict[str, GatedPattern]:
    found: dict[str, GatedPattern] = {}

    def collect(value: Any, name: str, depth: int = 0) -> None:
        if isinstance(value, GatedPattern):
            found.setdefault(name, value)
        elif depth < 3 and isinstance(value, tuple | list):
            for i, item in enumerate(value):
                collect(item, f"{name}[{i}]", depth + 1)
        elif depth < 3 and isinstance(value, dict):
            for key, item in list(value.items())[:200]:
                collect(item, f"{name}[{key!r}]", depth + 1)

    for info in pkgutil.walk_packages(bot.__path__, "bot."):
        if info.name == "bot.__main__" or ".migrations" in info.name or "discord_app" in info.name:
            continue
        for attr, value in vars(importlib.import_module(info.name)).items():
            collect(value, f"{info.name}.{attr}", 0)
    return found


@functools.cache
def _corpus() -> list[str]:
    out: list[str] = []
    for rel in ("tests/corpus/questions.yaml", "tests/core/questions.yaml"):
        for row in safe_load((ROOT / rel).read_text(encoding="utf-8")):
            if not isinstance(row, dict):
                continue
            if isinstance(row.get("q"), str):
                out.append(row["q"])
            for key in ("turns", "seq"):
                for turn in row.get(key) or ():
                    text = turn if isinstance(turn, str) else (turn or {}).get("q")
                    if isinstance(text, str):
                        out.append(text)
    return list(dict.fromkeys(out))


def _same(p: GatedPattern, text: str) -> None:
    """When the check lets the text through, every method is the pattern's own; when it does not,
    the pattern must match nothing in the text."""
    if not p.may_match(text):
        assert p.raw.search(text) is None, (p.pattern, text)
    else:  # the methods search a pattern with a first-character lookahead in front: the same matches
        got, want = p.search(text), p.raw.search(text)
        assert (got and (got.span(), got.groups())) == (want and (want.span(), want.groups())), (
            p.pattern,
            text,
        )
        assert [m.span() for m in p.finditer(text)] == [m.span() for m in p.raw.finditer(text)], (
            p.pattern,
            text,
        )


def test_most_core_patterns_have_a_gate() -> None:
    assert len(_core_patterns()) > 200
    gated = sum(1 for p in _core_patterns().values() if p.literals)
    assert gated / len(_core_patterns()) > 0.8, gated


def test_every_core_pattern_agrees_on_the_corpora() -> None:
    assert len(_corpus()) > 800
    skipped = 0
    for p in _core_patterns().values():
        for text in _corpus():
            for t in (text, text.lower()):
                _same(p, t)
                skipped += not p.may_match(t)
    assert skipped > 0.5 * len(_core_patterns()) * len(_corpus()) * 2  # most scans are skipped


@pytest.mark.parametrize(
    "text", ["rent or buy an A100?", "no keyword here", "Renting, leasing: RENT", "ſent", ""]
)
def test_every_method_returns_what_re_returns(text: str) -> None:
    raw = re.compile(r"\b(?:rent|lease)\w*", re.I)
    p = gated_re.compile(raw.pattern, raw.flags)

    def spans(ms: Any) -> list[tuple[int, int]]:
        return [m.span() for m in ms]

    assert spans(filter(None, [p.search(text)])) == spans(filter(None, [raw.search(text)]))
    assert spans(filter(None, [p.match(text)])) == spans(filter(None, [raw.match(text)]))
    assert spans(filter(None, [p.fullmatch(text)])) == spans(filter(None, [raw.fullmatch(text)]))
    assert spans(p.finditer(text)) == spans(raw.finditer(text))
    assert p.findall(text) == raw.findall(text)
    assert p.sub("#", text) == raw.sub("#", text) and p.subn("#", text) == raw.subn("#", text)
    assert p.split(text) == raw.split(text)
    assert (p.pattern, p.flags, p.groups) == (raw.pattern, raw.flags, raw.groups)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_every_core_pattern_agrees_on_generated_text(data: st.DataObject) -> None:
    p = data.draw(st.sampled_from(sorted(_core_patterns().values(), key=lambda x: x.pattern)))
    pieces = sorted(p.literals or ()) + ["ſ", "ı", "İ", "\u212a", " ", "1", "k", "gb", "预算", "$", "x"]
    words = st.one_of(st.sampled_from(pieces), st.text(max_size=4))
    text = "".join(data.draw(st.lists(words, max_size=12)))
    for t in (text, text.upper(), text.lower()):
        _same(p, t)


def test_the_core_compiles_its_patterns_through_the_gate() -> None:
    """A pattern compiled with plain re.compile at module level in the core is scanned in full on
    every question: use gated_re.compile (the same flags and results)."""
    bare = []
    for path in sorted((ROOT / "bot" / "core").rglob("*.py")):
        if path.name == "gated_re.py":
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if re.search(r"(?<![\w.])re\.compile\(", line):
                bare.append(f"{path.relative_to(ROOT)}:{n}")
    assert not bare, bare


def test_the_time_reader_skips_only_questions_of_no_speed_kind() -> None:
    """understand_time returns early when no pattern deciding a speed/time/serving question can match:
    on every corpus question, a question it skips has no kind and no weak speed word when read in full."""
    from bot.core import understand_time

    skipped = 0
    for text in _corpus() + [t.lower() for t in _corpus()]:
        t = text.replace("，", ",")
        if not understand_time._may_ask(t, t.lower()):
            skipped += 1
            full = understand_time.read(text)
            assert full.kind is None and not full.weak_speed, text
    assert skipped > len(_corpus()) // 2


@pytest.mark.parametrize(
    ("pattern", "flags", "expected"),
    [
        (r"\b(?:rent|lease)\w*", re.I, "[rl]"),  # \b in front: re cannot skip by first character
        (r"(?<![a-z])(\d+)\s*gb", 0, r"[\d]"),
        (r"enough|\bok\b|够", re.I, "[eo够]"),  # IGNORECASE: re's own first-character skip is off
        (r"(?:ab|cd)?e", re.I, "[ace]"),  # an optional head: what follows may start the match too
        (r"rent|lease", 0, None),  # literals, case-sensitive: re skips ahead by itself
        (r"\d+", 0, None),
        (r"\bx?", re.I, None),  # may match the empty string
        (r"\b\w+", re.I, None),  # too broad to pay for its check
        (r"\b[^a]b", re.I, None),  # a negated class: not plainly known
        (r"\b(?i:a)b", 0, None),  # flags of its own
    ],
)
def test_first_char_class(pattern: str, flags: int, expected: str | None) -> None:
    assert gated_re.first_char_class(pattern, flags) == expected
    if expected is not None:  # the same matches with the lookahead in front
        fast = re.compile(f"(?={expected})(?:{pattern})", flags)
        raw = re.compile(pattern, flags)
        for text in ("rent a 24 GB card", "LEASE", "okay enough 够", "xe cde abe", "a b ab", ""):
            assert [m.span() for m in fast.finditer(text)] == [m.span() for m in raw.finditer(text)]
