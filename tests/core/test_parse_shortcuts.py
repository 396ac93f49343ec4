"""The parser's shortcuts read what the full readers read: each check that skips work (a scan, a typo
search, a second name scan) only skips it where that work finds nothing. Each is compared with the
work it skips, on the question corpora, the catalog's names and generated text."""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

import pytest
from rapidfuzz import fuzz, process, utils

from bot.core import gated_re, money_read
from bot.core.knowledge import get_catalog
from bot.core.matching import get_matcher, normalize, tokenize
from bot.core.matching.index import WORD_CUTOFF
from bot.core.matching.text import STOP_WORDS
from bot.core.understand import budgets, intent, settings
from bot.core.yaml_io import safe_load

ROOT = Path(__file__).resolve().parents[2]
CAT = get_catalog()
M = get_matcher(CAT)


def _corpus() -> list[str]:
    out: list[str] = []
    for rel in ("tests/corpus/questions.yaml", "tests/core/questions.yaml"):
        for row in safe_load((ROOT / rel).read_text(encoding="utf-8")) or []:
            if isinstance(row, dict) and isinstance(row.get("q"), str):
                out.append(row["q"])
    return out


CORPUS = _corpus()
NAMES = [
    *(M.display_name("gpu", g) for g in CAT.gpus),
    *(M.display_name("model", m) for m in CAT.models),
    *list(M._keys)[::3],
]


def _mixes(n: int, seed: int, extra: list[str]) -> list[str]:
    rnd = random.Random(seed)
    out = []
    for _ in range(n):
        parts = [
            rnd.choice(NAMES) if rnd.random() < 0.5 else rnd.choice(extra) for _ in range(rnd.randint(1, 5))
        ]
        out.append(rnd.choice([" ", "", "-"]).join(parts))
    return out


def test_a_trie_gate_says_what_in_tests_say() -> None:
    rnd = random.Random(1)
    for _ in range(300):
        lits = gated_re._subsumed(
            "".join(rnd.choice("abc$.(") for _ in range(rnd.randint(1, 4))) for _ in range(rnd.randint(1, 30))
        )
        search = re.compile(gated_re._trie(lits)).search
        for _ in range(20):
            text = "".join(rnd.choice("abc$.( ") for _ in range(rnd.randint(0, 12)))
            assert (search(text) is not None) == any(x in text for x in lits), (lits, text)


def test_a_literal_check_is_built_and_agrees_with_the_pattern() -> None:
    pattern = r"\b(?:rent|lease|buy(?:ing)?)\b|租|买"
    check = gated_re.literal_check(pattern, re.I)
    assert not isinstance(check, gated_re._First)  # (taken built: no lazy builder on each call)
    for text in ["RENT it", "buyer", "no", "租卡", "leas"]:
        assert check(text) == gated_re.compile(pattern, re.I).may_match(text)


def test_a_word_is_corrected_as_by_the_full_search() -> None:
    def full(word: str) -> tuple[str, float] | None:
        if len(word) < 4 or not word.isalpha() or word in STOP_WORDS or word in M._vocab:
            return None
        best = process.extractOne(
            utils.default_process(word),
            M._vocab_processed,
            scorer=fuzz.ratio,
            processor=None,
            score_cutoff=WORD_CUTOFF,
        )
        if best is None or M._vocab_list[best[2]][0] != word[0]:
            return None
        return M._vocab_list[best[2]], float(best[1])

    rnd = random.Random(2)
    words = {t.text for q in CORPUS[:400] for t in tokenize(normalize(q))}
    for v in M._vocab_list:
        for _ in range(6):
            w = list(v)
            i = rnd.randrange(len(w))
            w[i : i + rnd.randint(0, 1)] = rnd.choice("abcdefghijklmnopqrstuvwxyz") * rnd.randint(0, 2)
            words.add("".join(w))
    corrected = 0
    for w in words:
        assert M._correct(w) == full(w), w
        corrected += full(w) is not None
    assert corrected > 100


def test_alternatives_as_read_from_the_tokens() -> None:
    def full(text: str) -> tuple[str, ...]:
        words = [t.text for t in tokenize(normalize(text))]
        return M._alternatives_of(" ".join(words)) if words else ()

    texts = [*NAMES, *(n.upper() for n in NAMES), "LLAMA.CPP", "bert\x01", "BERT"]
    texts += [m.text for q in CORPUS[:500] for m in M.mentions(normalize(q))]
    assert sum(1 for t in texts if full(t)) > 20
    for t in texts:
        assert M.alternatives(t) == full(t), t


def test_the_start_shortcut_finds_the_same_names(monkeypatch: pytest.MonkeyPatch) -> None:
    texts = [*CORPUS[:600], *_mixes(600, 3, ["a", "b", "8", "3 b", "on", "vs", "2x", "80gb", "sxm", "ti"])]
    fast = [[repr(M.mentions(normalize(t), kind)) for kind in ("any", "gpu")] for t in texts]
    monkeypatch.setattr(M, "_single_starts", M._starts)  # every start goes through _match_at
    assert fast == [[repr(M.mentions(normalize(t), kind)) for kind in ("any", "gpu")] for t in texts]


def test_a_text_said_to_name_no_card_has_no_card_mention() -> None:
    extra = ["a", "b", "8", "for", "under", "$500", "rtxx", "nvidai", "gefroce", "和", "的", "40gb", "laptop"]
    texts = [*CORPUS, *_mixes(3000, 4, extra)]
    skipped = 0
    for t in texts:
        norm = normalize(t)
        toks = tokenize(norm)
        if not M.may_name_gpu(norm, toks):
            skipped += 1
            assert M.mentions(norm, "gpu", toks) == [], t
    assert skipped > 300


class _Always:
    def search(self, text: str) -> bool:
        return True


def test_unknown_currencies_skip_only_scans_that_keep_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    known = budgets.currencies(CAT).known
    words = [
        *sorted(money_read._CURRENCY_WORDS)[::4],
        *money_read._UNKNOWN_SYMBOL_SET,
        *money_read._CURRENCY_CJK[::3],
        *money_read._ISO_4217[::5],
        *[
            "dollars",
            "USD",
            "Eur",
            "XYZ",
            "GPU",
            "k",
            "grand",
            "r$",
            "NT$",
            "$",
            "€",
            "ſek",
            "\u212aes",
            "kusd",
        ],
    ]
    rnd = random.Random(5)
    texts = list(CORPUS)
    for _ in range(4000):
        parts = [
            rnd.choice(["5", "500", "1,200", "2.5"]) if rnd.random() < 0.45 else rnd.choice(words)
            for _ in range(rnd.randint(1, 5))
        ]
        texts.append(rnd.choice([" ", "", "  "]).join(parts))

    def run(t: str) -> list[Any]:
        n = normalize(t)
        raw = t if len(t) == len(n) else None
        return [money_read.unknown_currencies(x, r, known) for x in (n, t) for r in (raw, None)]

    gated = [run(t) for t in texts]
    monkeypatch.setattr(money_read, "_NAME_GATE", lambda s: True)
    monkeypatch.setattr(money_read, "_SYMBOL_GATE", lambda s: True)
    monkeypatch.setattr(money_read, "_ISO_WORD_RE", _Always())
    full = [run(t) for t in texts]
    assert gated == full
    assert sum(1 for x in full if any(x)) > 500


def test_the_symbol_alternation_matches_as_written_with_the_boundary_first(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    table = getattr(CAT, "currencies", None) or {}
    new = budgets.Currencies(table)
    monkeypatch.setattr(budgets, "_AFTER_FIRST", {})  # the check in front of each group, as it was
    old = budgets.Currencies(table)
    assert new.pre.pattern != old.pre.pattern
    syms = list(new.by_symbol)
    rnd = random.Random(6)
    texts = [normalize(q) for q in CORPUS]
    for _ in range(4000):
        parts = [
            rnd.choice(["5", "500", "1,500", "10k", "3 grand"])
            if rnd.random() < 0.4
            else rnd.choice([*syms, "x", "_", "9", "é", "\n"])
            for _ in range(rnd.randint(1, 4))
        ]
        texts.append(rnd.choice(["", " ", "_", "x", "1"]).join(parts))
    for t in texts:
        for a, b in ((new.pre, old.pre), (new.post, old.post)):
            assert [(m.span(), m.groups()) for m in a.finditer(t)] == [
                (m.span(), m.groups()) for m in b.finditer(t)
            ], t


def test_settings_group_checks_skip_only_groups_that_match_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    texts = [normalize(q) for q in CORPUS]
    texts += ["qlora in bf16 with paged adamw 8bit, fsdp, all linear layers", "q and v proj, 4-bit, sgd"]
    gated = [settings.read(t) for t in texts]
    monkeypatch.setattr(settings, "_GROUP_GATES", {})
    assert gated == [settings.read(t) for t in texts]


def test_intent_reads_recommendation_and_list_words_only_when_asked() -> None:
    masked = "which gpus do you support, best card to buy"
    read = intent.decide(masked, 2, 0, False, False, None, None)  # two cards: a comparison
    assert read.asks_recommend is None and read.asks_list is None  # (not searched)
    assert intent.asks_recommend(masked, read) and intent.asks_list(masked, read)
    read = intent.decide(masked, 0, 0, False, False, None, None)
    assert read.asks_list is True and intent.asks_list(masked, read)


def test_suggest_with_the_corrections_already_made_offers_the_same() -> None:
    typed = [
        "lamma 3 8b",
        "mistrall 7b",
        "bertt base",
        "whisperr medium",
        "stable difusion xl",
        "nvidai a100",
    ]
    for name in typed:
        for kind in ("any", "model", "gpu"):
            ms = M.mentions(normalize(name), kind)
            hint = {w: c for m in ms for w, c in m.corrected}
            assert M.suggest(name, kind, 3, corrections=hint) == M.suggest(name, kind, 3), (name, kind)
    assert any(m.corrected for m in M.mentions(normalize("lamma 3 8b")))


def test_a_printable_text_is_normalised_as_with_the_control_table() -> None:
    import unicodedata

    from bot.core.matching.text import _CONTROL_TO_SPACE

    rnd = random.Random(8)
    chars = [chr(i) for i in range(0x250)] + ["\u2028", "\u200b", "\ufeff", "\u3000", "中", "\x85", "\xa0"]
    for _ in range(3000):
        s = "".join(rnd.choice(chars) for _ in range(rnd.randint(0, 10)))
        t = unicodedata.normalize("NFKC", s).lower()
        assert (t if t.isprintable() else t.translate(_CONTROL_TO_SPACE)) == t.translate(_CONTROL_TO_SPACE)


def test_a_count_is_looked_for_only_where_one_can_end_the_text() -> None:
    from bot.core.understand import numbers

    pieces = ["2", "16", "x", "X", "×", "*", "-", " ", "\n", "\u3000", "of", "the", "pair", "two", "Two"]
    pieces += [
        "quad",
        "sixteen",
        "张",
        "块",
        "卡",
        "两",
        "十",
        "gpu",
        "rtx",
        "2x",
        "_",
        "é",
        "a100",
        "显",
        "oof",
    ]
    rnd = random.Random(9)
    texts = [normalize(q) for q in CORPUS]
    texts += ["".join(rnd.choice(pieces) for _ in range(rnd.randint(0, 6))) for _ in range(20000)]
    skipped = 0
    for t in texts:
        head = t[-40:]
        if not numbers._may_end_in_count(head):
            skipped += 1
            assert numbers._COUNT_BEFORE_RE.search(head) is None, head
    assert skipped > 5000
