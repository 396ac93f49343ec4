"""phrase.fmt.num: the same figures as Babel's format_decimal for every reply language."""

from __future__ import annotations

import pytest
from babel.numbers import format_decimal

from bot.core.phrase import fmt
from bot.core.types import Lang

VALUES = [0, 7, 999, 1000, 1234.5, 12345.678, 1_000_000, 0.61, 8.25, 141.0, -2500.4]


@pytest.mark.parametrize("lang", list(Lang))
@pytest.mark.parametrize("digits", [0, 1, 2])
def test_num_matches_babel(lang: Lang, digits: int) -> None:
    pattern = "#,##0" + ("." + "0" * digits if digits else "")
    for v in VALUES:
        # Babel rounds half-even on the decimal value; Python's format on the binary one: compare
        # values the two agree on (none of these lie on a rounding edge)
        want = format_decimal(v, format=pattern, locale=fmt.locale_of(lang))
        assert fmt.num(v, lang, digits) == want, (v, digits, lang)


def test_a_locale_with_other_signs_still_translates(monkeypatch: pytest.MonkeyPatch) -> None:
    # the reply languages all write "," and "." (no translate needed); a locale that does not
    # (German: "." groups, "," is the decimal sign) still gets its own signs
    monkeypatch.setitem(fmt._LOCALES, Lang.EN, "de_DE")
    fmt._symbols.cache_clear()
    try:
        assert fmt.num(1234567.5, Lang.EN, 1) == "1.234.567,5"
    finally:
        fmt._symbols.cache_clear()  # (the setitem is undone after the test; the table read again)
