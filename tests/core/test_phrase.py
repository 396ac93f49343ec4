"""The phrasing layer (issue #9): catalogs complete in every language, replies in the asker's
language with the same numbers, and phrasing that reads results without calling the engine."""

from __future__ import annotations

import ast
import json
import logging
import re
from pathlib import Path
from typing import Any

import pytest

from bot.core import language
from bot.core.answer import answer
from bot.core.knowledge import get_catalog
from bot.core.names import card_label, short_name
from bot.core.phrase import catalog as phrase_catalog
from bot.core.phrase.catalog import CATALOG_LANGS, messages, placeholders
from bot.core.types import Context, Lang
from bot.core.yaml_io import safe_load

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).parent
PHRASE_DIR = ROOT / "bot" / "core" / "phrase"
PAIRS: list[dict[str, str]] = safe_load((HERE / "fixtures" / "bilingual.yaml").read_text(encoding="utf-8"))
QUESTIONS: list[dict[str, Any]] = safe_load((HERE / "questions.yaml").read_text(encoding="utf-8"))
CAT = get_catalog()
CJK = re.compile(r"[\u4e00-\u9fff]")


# --------------------------------------------------------------------------- catalogs


def test_every_message_exists_in_every_language_with_the_same_placeholders() -> None:
    en = messages(Lang.EN)
    assert len(en) > 300
    for lang in CATALOG_LANGS:
        table = messages(lang)
        assert set(table) == set(en), (lang, set(table) ^ set(en))
        for key, text in table.items():
            assert text.strip(), (lang, key)
            assert placeholders(text) == placeholders(en[key]), (lang, key, text)


def test_chinese_catalog_has_no_english_sentence_and_english_none_in_chinese() -> None:
    zh, en = messages(Lang.ZH_HANS), messages(Lang.EN)
    for key, text in en.items():
        assert not CJK.search(text), key
    for key, text in zh.items():
        if key.startswith("slash"):  # choice names such as "fp16", "LoRA" are names
            continue
        assert not _english_sentence(text), (key, text)


def _literal_keys(path: Path) -> set[str]:
    """Catalog keys written as string literals in calls t(lang, "key", ...)."""
    keys: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "t" and len(node.args) >= 2:
            arg = node.args[1]
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                keys.add(arg.value)
            elif isinstance(arg, ast.IfExp):
                keys |= {x.value for x in (arg.body, arg.orelse) if isinstance(x, ast.Constant)}
    return keys


def test_every_literal_key_in_the_code_is_in_the_catalog() -> None:
    files = [
        *PHRASE_DIR.glob("*.py"),
        *(ROOT / "bot" / "discord_app").glob("*.py"),
        ROOT / "bot/core/render.py",
    ]
    used = set().union(*(_literal_keys(f) for f in files))
    assert len(used) > 150
    missing = sorted(k for k in used if k not in messages(Lang.EN))
    assert not missing, missing


FORBIDDEN_IMPORTS = (
    "bot.core.memory",
    "bot.core.speed",
    "bot.core.recommend",
    "bot.core.engine",
    "bot.core.parsing",
    "bot.core.matching",
    "bot.core.benchmarks",
    "bot.core.specs_fallback",
)


def _imports(tree: ast.AST) -> list[tuple[str, int]]:
    out: list[tuple[str, int]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.dump(node.test):
            node.body = []  # type-only imports are not calls into the engine
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(a.name, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            out += [(node.module, node.lineno)] + [
                (f"{node.module}.{a.name}", node.lineno) for a in node.names
            ]
    return out


def test_phrasing_never_imports_the_engine() -> None:
    """Phrasing reads results; it never calls memory, speed or recommendation code."""
    bad = []
    for path in PHRASE_DIR.glob("*.py"):
        for name, line in _imports(ast.parse(path.read_text(encoding="utf-8"))):
            if name.startswith(FORBIDDEN_IMPORTS) or name == "bot.core.knowledge.get_catalog":
                bad.append(f"{path.name}:{line} imports {name}")
    assert not bad, bad


def test_the_import_rule_catches_an_engine_import(tmp_path: Path) -> None:
    tree = ast.parse("from bot.core import memory\nfrom bot.core.recommend import recommend\n")
    names = [n for n, _ in _imports(tree)]
    assert any(n.startswith(FORBIDDEN_IMPORTS) for n in names)


def test_glossary_terms_are_the_ones_used() -> None:
    glossary = (PHRASE_DIR / "locales" / "GLOSSARY.md").read_text(encoding="utf-8")
    zh = "\n".join(messages(Lang.ZH_HANS).values())
    terms = re.findall(r"^\| [^|]+ \| ([^|]+?) \|", glossary, re.M)
    used = [t_ for t_ in terms if t_ not in ("zh-Hans", "---") and not t_.startswith("-")]
    assert len(used) >= 9
    for cell in used:
        for term in cell.split(" / "):
            assert term in zh, term
    for wrong in ("视频内存", "批次大小", "精细调整", "推论", "检查站"):
        assert wrong not in zh, wrong


# --------------------------------------------------------------------------- language of the reply


def _strip_names(text: str) -> str:
    """Text without what may stay as written in any language: names, quotes, code, ids, units, sources."""
    text = re.sub(r"`[^`]*`|“[^”]*”|\"[^\"]*\"|「[^」]*」", " ", text)
    text = re.sub(r"(?m)^(来源|來源|Source)[:：].*$", " ", text)
    for m in CAT.models.values():
        text = text.replace(m.name, " ")
    for g in sorted(CAT.gpus.values(), key=lambda g: -len(g.name)):
        for name in (card_label(g), g.name, short_name(g), g.architecture):
            text = text.replace(name, " ")
    # units, acronyms and ids: TFLOPS, GDDR6X, FP32, price_usd, 4096
    return re.sub(r"\b[A-Z][A-Za-z]*[A-Z]\w*|\b\w*\d\w*|\b[a-z]+_[a-z_]+\b", " ", text)


_EN_FUNCTION_WORDS = re.compile(
    r"\b(?:the|and|with|for|fits?|needs?|about|cards?|which|would|cannot|only)\b", re.I
)


def _english_sentence(text: str) -> bool:
    """Three English words in a row, one of them a function word: a sentence, not a name or unit."""
    for run in re.finditer(r"[A-Za-z][A-Za-z'-]+(?:\s+[A-Za-z][A-Za-z'-]+){2,}", text):
        if _EN_FUNCTION_WORDS.search(run.group()):
            return True
    return False


KANA = re.compile(r"[\u3040-\u30ff]")  # Japanese: not a language the bot answers in, so English
ZH_QUESTIONS = [r["zh"] for r in PAIRS] + [
    r["q"] for r in QUESTIONS if "q" in r and CJK.search(r["q"]) and not KANA.search(r["q"])
]
EN_QUESTIONS = [r["en"] for r in PAIRS] + [
    r["q"] for r in QUESTIONS if "q" in r and (not CJK.search(r["q"]) or KANA.search(r["q"]))
]


@pytest.mark.parametrize("question", ZH_QUESTIONS)
def test_chinese_questions_are_answered_in_chinese(question: str) -> None:
    a = answer(question, catalog=CAT)
    assert a.language is Lang.ZH_HANS
    body = _strip_names(a.text)
    letters = [c for c in body if c.isalpha()]
    assert sum(1 for c in letters if CJK.match(c)) >= 0.5 * len(letters), a.text
    assert not _english_sentence(body), a.text


@pytest.mark.parametrize("question", EN_QUESTIONS)
def test_english_questions_are_answered_in_english(question: str) -> None:
    a = answer(question, catalog=CAT)
    assert a.language is Lang.EN
    assert not CJK.search(_strip_names(a.text)), a.text


PHRASED = {"text", "verdict", "language", "suggestions", "reason", "price_label"}


def _data(obj: Any, path: str = "") -> list[tuple[str, Any]]:
    """Every leaf of the JSON that is data, not words: numbers, ids, codes, flags."""
    out: list[tuple[str, Any]] = []
    if isinstance(obj, dict):
        for k, v in obj.items():
            if k in PHRASED or (k == "text" and "choices" in path) or path.endswith("notes"):
                continue
            out += _data(v, f"{path}.{k}")
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            out += _data(v, f"{path}[{i}]")
    else:
        out.append((path, obj))
    return out


def test_bilingual_corpus_is_big_enough() -> None:
    assert len(PAIRS) >= 40


@pytest.mark.parametrize("pair", PAIRS, ids=[p["en"][:50] for p in PAIRS])
def test_same_question_in_both_languages_gets_the_same_numbers(pair: dict[str, str]) -> None:
    en, zh = answer(pair["en"], catalog=CAT).to_json(), answer(pair["zh"], catalog=CAT).to_json()
    assert (en["language"], zh["language"]) == ("en", "zh-Hans")
    assert en["verdict"] != zh["verdict"] and en["text"] != zh["text"]
    assert _data(en) == _data(zh)
    assert [n["code"] for n in en["notes"]] == [n["code"] for n in zh["notes"]]


def test_traditional_question_gets_a_traditional_reply() -> None:
    a = answer("4090能跑llama 3 70b嗎？顯存夠不夠", catalog=CAT)
    assert a.language is Lang.ZH_HANT
    assert a.fit and a.fit[0]["model"] if isinstance(a.fit[0], dict) else a.fit[0].model == "llama-3-70b"
    assert "顯存" in a.text and "显存" not in a.text
    assert language.to_simplified(a.text) != a.text  # written in Traditional characters
    same = answer("4090能跑llama 3 70b吗", catalog=CAT)
    assert _data(a.to_json()) == _data(same.to_json())


@pytest.mark.parametrize(
    ("question", "want"),
    [
        ("4090能跑llama 3 70b吗", Lang.ZH_HANS),  # mixed text is Chinese
        ("4090能跑llama 3 70b吗 in english please", Lang.EN),  # an explicit request wins
        ("what gpu for bert under $1000, 用中文回答", Lang.ZH_HANS),
        ("what gpu for bert, 用中文回答，繁體", Lang.ZH_HANT),
        ("can a 3090 run llama 3 8b", Lang.EN),
    ],
)
def test_which_language(question: str, want: Lang) -> None:
    assert answer(question, catalog=CAT).language is want


def test_a_follow_up_keeps_the_conversation_language_until_the_user_switches() -> None:
    first = answer("4060 ti能跑llama 2 13b吗", catalog=CAT)
    assert first.language is Lang.ZH_HANS
    picked = answer("2", first.context, catalog=CAT)  # no language of its own: keeps Chinese
    assert picked.language is Lang.ZH_HANS and picked.fit
    again = answer("a6000", picked.context, catalog=CAT)
    assert again.language is Lang.ZH_HANS
    switched = answer("what about the a6000?", again.context, catalog=CAT)
    assert switched.language is Lang.EN


def test_locale_decides_when_the_text_does_not() -> None:
    from bot.core.types import Intent, Query

    q = Query(intent=Intent.FIT, models=("llama-3-8b",), gpus=("rtx-3090",))
    assert answer(q, catalog=CAT, locale=Lang.ZH_HANS).language is Lang.ZH_HANS
    assert answer(q, catalog=CAT, locale=Lang.ZH_HANT).language is Lang.ZH_HANT
    assert answer(q, catalog=CAT).language is Lang.EN
    assert answer("rtx 4090", Context(language=Lang.ZH_HANS), catalog=CAT).language is Lang.ZH_HANS


def test_forced_language() -> None:
    assert answer("can a 3090 run llama 3 8b", catalog=CAT, lang=Lang.ZH_HANS).language is Lang.ZH_HANS


# --------------------------------------------------------------------------- money and data


def test_chinese_prices_show_yuan_with_the_dated_rate() -> None:
    cny = CAT.currencies["CNY"]
    a = answer("预算6000元买什么显卡学深度学习", catalog=CAT)
    assert a.query.budget_usd == pytest.approx(6000 * cny.usd_per_unit, rel=1e-6)
    assert "¥6,000" in a.verdict  # a budget given in yuan is shown in yuan
    assert "约 ¥" in a.text and "汇率折算" in a.text
    top = a.recommendations[0]
    assert f"¥{round(top.price_usd / cny.usd_per_unit):,}" in top.price_label
    en = answer("what gpu should I buy under $878", catalog=CAT)
    assert "¥" not in en.text


def test_assumed_is_in_the_json_with_what_the_user_said() -> None:
    d = answer("does llama 3 8b fit on a 3090", catalog=CAT).to_json()
    assert d["task"] is None  # as asked
    assert d["assumed"]["task"] == "inference" and d["assumed"]["precision"] == "bf16"
    assert d["assumed"]["attention"] == "flash" and d["assumed"]["seq_len"] == 4096
    stated = {a["name"]: a["stated"] for a in d["assumptions"]}
    assert stated["task"] is False and stated["precision"] is False
    d2 = answer("does llama 3 8b fit on a 3090 in int4 with batch 4", catalog=CAT).to_json()
    stated2 = {a["name"]: a["stated"] for a in d2["assumptions"]}
    assert stated2["precision"] is True and stated2["batch_size"] is True
    assert d2["assumed"]["precision"] == "int4" and d2["assumed"]["batch_size"] == 4


def test_reasons_and_fixes_are_codes_in_the_json() -> None:
    rec = answer("what gpu for bert under $1000", catalog=CAT).to_json()["recommendations"]
    codes = {r["code"] for pick in rec for r in pick["reasons"]}
    assert "fastest_in_range" in codes and "relative_speed" in codes
    fit = answer("can a 4090 run llama 3 70b in bf16", catalog=CAT).to_json()["fit"][0]
    assert fit["fits"] is False and fit["fixes"]
    change = fit["fixes"][0]["changes"][0]
    assert set(change) == {"setting", "from", "to"} and fit["fixes"][0]["resulting_gb"] > 0


def test_no_missing_message_across_the_corpus(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.ERROR, logger=phrase_catalog.__name__)
    for q in [
        *ZH_QUESTIONS,
        *EN_QUESTIONS,
        "help memory",
        "显存怎么算 help memory",
        "list models",
        "列出模型",
    ]:
        json.dumps(answer(q, catalog=CAT).to_json(), allow_nan=False)
        json.dumps(answer(q, catalog=CAT, lang=Lang.ZH_HANT).to_json(), allow_nan=False)
    assert not [r for r in caplog.records if "missing" in r.getMessage()]


def test_memory_numbers_carry_their_band_and_tight_is_said() -> None:
    a = answer("can a 4060 ti 16gb run llama 3 8b in bf16", catalog=CAT)
    e = a.fit[0]
    assert e.low_gb is not None and e.high_gb is not None
    assert e.low_gb <= e.required_gb <= e.high_gb
    assert e.low_gb <= (e.capacity_gb or 0) <= e.high_gb and e.tight  # 17.2 GB inside 16-21
    assert a.verdict.startswith("Tight") and f"({e.low_gb:.0f}-{e.high_gb:.0f})" in a.verdict
    zh = answer("4060 ti 16gb能跑bf16的llama 3 8b吗", catalog=CAT)
    assert zh.verdict.startswith("很紧") and zh.fit[0].tight
    roomy = answer("can a 4090 run llama 3 8b", catalog=CAT)
    assert roomy.fit[0].fits and not roomy.fit[0].tight and roomy.verdict.startswith("Yes")
    # the low end of a band never undercuts the weights, whose size is arithmetic
    big = answer("how much vram does llama 2 70b need in fp16", catalog=CAT).fit[0]
    assert big.low_gb is not None and big.low_gb >= big.breakdown_gb["weights"]
