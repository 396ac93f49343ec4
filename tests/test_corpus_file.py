"""The public question corpus (tests/corpus/questions.yaml) stays well-formed, so it cannot rot.

Fast checks of the file itself (no bot run): enough questions and conversations, both languages,
every id in an expectation exists in the knowledge base, tags and intents from known lists, no
duplicate question, every expectation a field the scorer (bench/score_corpus.py) can check, every
regex compiles. Also the scorer's own matching rules, on answers written here.
"""

from __future__ import annotations

import importlib.util
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from bot.core.types import Intent, Lang
from bot.core.yaml_io import safe_load

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "corpus" / "questions.yaml"

TAGS = {
    "recommend",
    "budget",
    "fit",
    "compare",
    "info",
    "list",
    "help",
    "advice",
    "filter",
    "multi_card",
    "rent_or_buy",
    "deal",
    "speed",
    "time",
    "serve",
    "formats",
    "new_models",
    "hardware",
    "unknown_name",
    "common_words",
    "out_of_range",
    "shell_eaten",
    "multi_question",
    "typos",
    "conversation",
}
# the contract's intents today, plus those issue #10 plans (written as the expert expects them)
INTENTS = {str(i) for i in Intent} | {"advice", "filter", "speed", "time", "serve"}
TASKS = {"training", "finetune", "inference"}
METHODS = {"full", "lora", "qlora"}
PRECISIONS = {"fp32", "fp16", "bf16", "fp8", "int8", "int4"}
LANGS = {str(x) for x in Lang}
CASE_KEYS = {"q", "turns", "tag", "expect", "says", "not_says"}
TURN_KEYS = {"q", "expect", "says", "not_says"}


def _load_scorer() -> Any:
    spec = importlib.util.spec_from_file_location("score_corpus", ROOT / "bench" / "score_corpus.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SCORER = _load_scorer()
CASES: list[dict[str, Any]] = safe_load(CORPUS.read_text(encoding="utf-8"))
GPU_IDS = {g["id"] for g in safe_load((ROOT / "knowledge/gpus.yaml").read_text("utf-8"))["gpus"]}
MODEL_IDS = {m["id"] for m in safe_load((ROOT / "knowledge/models.yaml").read_text("utf-8"))["models"]}
SINGLES = [c for c in CASES if "q" in c]
CONVERSATIONS = [c for c in CASES if "turns" in c]


def _has_cjk(text: str) -> bool:
    return any("\u4e00" <= ch <= "\u9fff" for ch in text)


def _checks(case: dict[str, Any]) -> list[dict[str, Any]]:
    """Every block of checks in a case: the case's own, and each turn's that carries some."""
    out = [case]
    out += [t for t in case.get("turns") or [] if isinstance(t, dict)]
    return out


def test_enough_cases_of_each_shape() -> None:
    assert len(SINGLES) >= 300
    assert len(CONVERSATIONS) >= 60
    assert all(len(c["turns"]) >= 2 for c in CONVERSATIONS)
    assert all(("q" in c) != ("turns" in c) for c in CASES)


def test_both_languages_are_well_represented() -> None:
    zh = [c for c in SINGLES if _has_cjk(c["q"])]
    assert 0.3 <= len(zh) / len(SINGLES) <= 0.6
    assert sum(1 for c in SINGLES if c.get("expect", {}).get("language") == "zh-Hant") >= 15
    zh_conv = [
        c for c in CONVERSATIONS if any(_has_cjk(t if isinstance(t, str) else t["q"]) for t in c["turns"])
    ]
    assert len(zh_conv) >= 20 and len(CONVERSATIONS) - len(zh_conv) >= 20


def test_every_kind_is_covered() -> None:
    counts = Counter(c["tag"] for c in CASES)
    assert set(counts) == TAGS, set(counts) ^ TAGS
    assert all(n >= 5 for n in counts.values()), counts


def test_no_duplicate_questions() -> None:
    def key(text: str) -> str:
        return " ".join(text.lower().split())

    singles = Counter(key(c["q"]) for c in SINGLES)
    assert [q for q, n in singles.items() if n > 1] == []
    convs = Counter(
        tuple(key(t if isinstance(t, str) else t["q"]) for t in c["turns"]) for c in CONVERSATIONS
    )
    assert [t for t, n in convs.items() if n > 1] == []


@pytest.mark.parametrize("case", CASES, ids=lambda c: str(c.get("q") or c.get("turns"))[:60])
def test_case_is_well_formed(case: dict[str, Any]) -> None:
    assert set(case) <= CASE_KEYS, set(case) - CASE_KEYS
    assert case.get("tag") in TAGS
    assert "expect" in case or "says" in case, "a case must check something"
    if "q" in case:
        assert isinstance(case["q"], str) and case["q"].strip() and "\n" not in case["q"]
    for turn in case.get("turns") or []:
        text = turn if isinstance(turn, str) else turn.get("q")
        assert isinstance(text, str) and text.strip() and "\n" not in text
        if isinstance(turn, dict):
            assert set(turn) <= TURN_KEYS
    for block in _checks(case):
        _check_expect(block.get("expect") or {})
        for key in ("says", "not_says"):
            for rx in block.get(key) or []:
                assert isinstance(rx, str)
                re.compile(rx)


def _id_slots(value: Any) -> list[str]:
    assert isinstance(value, list)
    out: list[str] = []
    for slot in value:
        options = slot if isinstance(slot, list) else [slot]
        assert options and all(isinstance(o, str) for o in options)
        out += options
    return out


def _strings(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def _check_expect(expect: dict[str, Any]) -> None:
    assert isinstance(expect, dict)
    assert set(expect) <= set(SCORER.FIELDS), set(expect) - set(SCORER.FIELDS)
    for name, allowed in (
        ("intent", INTENTS),
        ("task", TASKS),
        ("method", METHODS),
        ("precision", PRECISIONS),
        ("language", LANGS),
    ):
        if name in expect and expect[name] is not None:
            bad = [v for v in _strings(expect[name]) if v not in allowed]
            assert not bad, f"{name}: {bad}"
    if "models" in expect:
        unknown = [i for i in _id_slots(expect["models"]) if i not in MODEL_IDS]
        assert not unknown, f"model ids not in knowledge/models.yaml: {unknown}"
    if "gpus" in expect:
        unknown = [i for i in _id_slots(expect["gpus"]) if i not in GPU_IDS]
        assert not unknown, f"gpu ids not in knowledge/gpus.yaml: {unknown}"
    if "gpu_counts" in expect:
        counts = expect["gpu_counts"]
        assert isinstance(counts, dict) and all(g in GPU_IDS for g in counts)
        assert all(isinstance(n, int) and n >= 1 for n in counts.values())
    budget = expect.get("budget_usd")
    if isinstance(budget, list):
        assert len(budget) == 2 and 0 <= budget[0] <= budget[1]
    elif budget is not None:
        assert isinstance(budget, int | float) and budget > 0
    for name in ("batch_size", "seq_len", "num_gpus"):
        if name in expect:
            assert isinstance(expect[name], int) and expect[name] >= 1
    if "unrecognized" in expect:
        assert all(isinstance(s, str) and s.strip() for s in expect["unrecognized"])


# ------------------------------------------------------------------ the scorer's matching rules


def test_ids_match_as_sets_with_alternative_slots() -> None:
    ans = {"gpus": ["rtx-4090", "h100-sxm"]}
    assert SCORER.field_ok("gpus", ["h100-sxm", "rtx-4090"], ans)
    assert SCORER.field_ok("gpus", [["h100-pcie", "h100-sxm"], "rtx-4090"], ans)
    assert not SCORER.field_ok("gpus", ["rtx-4090"], ans)
    assert not SCORER.field_ok("gpus", ["rtx-4090", "rtx-3090"], ans)
    assert SCORER.field_ok("models", [], {"models": []})
    assert not SCORER.field_ok("models", [], {"models": ["resnet-50"]})


def test_budget_within_one_percent_or_in_range_or_absent() -> None:
    assert SCORER.field_ok("budget_usd", 1404, {"budget_usd": 1410.0})
    assert not SCORER.field_ok("budget_usd", 1404, {"budget_usd": 1430.0})
    assert SCORER.field_ok("budget_usd", [600, 690], {"budget_usd": 640})
    assert not SCORER.field_ok("budget_usd", [600, 690], {"budget_usd": 2926.0})
    assert SCORER.field_ok("budget_usd", None, {"budget_usd": None})
    assert not SCORER.field_ok("budget_usd", None, {"budget_usd": 1000})
    assert not SCORER.field_ok("budget_usd", 1000, {"budget_usd": None})


def test_strings_spans_and_counts() -> None:
    assert SCORER.field_ok("intent", ["recommend", "fit"], {"intent": "fit"})
    assert not SCORER.field_ok("intent", "advice", {"intent": "unknown"})
    assert SCORER.field_ok("task", None, {"task": None})
    assert SCORER.field_ok("unrecognized", ["rtx 9090"], {"unrecognized": ["RTX  9090"]})
    assert SCORER.field_ok("unrecognized", ["rtx 9090"], {"unrecognized": ["nvidia quantum rtx 9090"]})
    assert not SCORER.field_ok("unrecognized", ["rtx 9090"], {"unrecognized": []})
    ans = {"gpus": ["rtx-4090", "rtx-3090"], "gpu_counts": [1, 2]}
    assert SCORER.field_ok("gpu_counts", {"rtx-3090": 2, "rtx-4090": 1}, ans)
    assert not SCORER.field_ok("gpu_counts", {"rtx-3090": 1}, ans)


def test_says_and_conversation_checks_apply_to_the_right_turn() -> None:
    case = {"turns": ["4090 tdp", {"q": "and the 5090?", "says": ["575"]}], "expect": {"intent": "info"}}
    specs = SCORER.turn_specs(case)
    assert [q for q, _ in specs] == ["4090 tdp", "and the 5090?"]
    assert specs[0][1] == {}
    last = specs[1][1]
    assert last["expect"] == {"intent": "info"} and last["says"] == ["575"]
    assert SCORER.check(last, {"intent": "info", "text": "RTX 5090: 575 W"}) == []
    problems = SCORER.check(last, {"intent": "fit", "text": "RTX 5090: 32 GB"})
    assert len(problems) == 2
    assert SCORER.check({"not_says": ["traceback"]}, {"text": "Traceback (most recent call last)"})
    assert SCORER.check({"expect": {"intent": "fit"}}, None) == ["no JSON answer"]
