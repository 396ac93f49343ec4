"""t() fills a message through code made once per message (catalog._filler): it must give exactly
what ``str.format`` (English) and the marker-and-search join of ``_fill_cjk`` (Chinese) give."""

from __future__ import annotations

import itertools
import logging
import random
import re

import pytest

from bot.core.phrase import catalog as C
from bot.core.types import Lang

# values that end or start with a Chinese character or not, empty, with spaces, numbers
SAMPLES: list[object] = [
    "常见任务",
    "Llama 3 8B",
    "",
    "中",
    "a中",
    "中a",
    " 中 ",
    "（2024年1月）",
    "10%",
    "“引号”",
    3,
    2.5,
]


def _reference(lang: Lang, text: str, values: dict[str, object]) -> str:
    if lang is Lang.EN:
        return text.format(**values)
    out = C._fill_cjk(text, values)
    return C.to_traditional(out) if lang is Lang.ZH_HANT else out


@pytest.mark.parametrize("lang", [Lang.EN, Lang.ZH_HANS, Lang.ZH_HANT])
def test_every_message_fills_as_str_format_and_the_cjk_join_do(lang: Lang) -> None:
    rng = random.Random(7)
    joined = 0
    for key, text in C.messages(lang).items():
        names = sorted(C.placeholders(text))
        if not text or not names:
            continue
        for _ in range(12):
            values = {k: rng.choice(SAMPLES) for k in names}
            want = _reference(lang, text, values)
            assert C.t(lang, key, **values) == want, (key, values)
            plain = text.format(**values)
            joined += want != (C.to_traditional(plain) if lang is Lang.ZH_HANT else plain)
    if lang is not Lang.EN:
        assert joined > 50  # the samples do make the join remove spaces


def test_the_join_rules_on_made_up_sentences() -> None:
    # every arrangement of a space run around two fields, with Chinese or Latin on either side
    for left, mid, right in itertools.product(
        ["", "中", "a", "中 ", "a ", " "], [" ", "  ", "中", " 中 ", " a "], ["", "文", " 文", "x"]
    ):
        text = f"{left}{{a}}{mid}{{b}}{right}"
        fill = C._cjk_compiled(text)
        for a, b in itertools.product(["", "中", "x", "中x", "x中"], repeat=2):
            assert fill({"a": a, "b": b}) == C._fill_cjk(text, {"a": a, "b": b}), (text, a, b)


def test_escaping_of_quotes_braces_and_backslashes() -> None:
    for text in ["it's {a}", 'say "{a}"', "{{x}} {a} }}", "back\\slash {a}\n{b}", "{a}{a}", "\t{a}\x00"]:
        fill = C._compiled(text)
        assert fill({"a": "<A>", "b": 1}) == text.format(a="<A>", b=1)


def test_a_missing_key_still_falls_back_and_logs_on_every_use(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.ERROR, logger=C.__name__)
    for _ in range(2):
        assert C.t(Lang.ZH_HANS, "no.such.key.for.test", x=1) == "no.such.key.for.test"
    assert len([r for r in caplog.records if "missing" in r.getMessage()]) == 2


def test_a_missing_value_is_an_error_as_with_str_format() -> None:
    key = next(k for k, v in C.messages(Lang.EN).items() if C.placeholders(v) and len(C.placeholders(v)) > 1)
    one = sorted(C.placeholders(C.messages(Lang.EN)[key]))[0]
    with pytest.raises(KeyError):
        C.t(Lang.EN, key, **{one: "x"})


def test_is_han_is_the_join_pattern_s_character_class() -> None:
    pattern = re.compile(f"[{C._HAN}]")
    assert [i for i in range(0x10000) if (pattern.match(chr(i)) is not None) != C._is_han(chr(i))] == []
