"""The advice intent (issue 10): judgement questions read, answered from sourced facts and the
engine's numbers, and other intents left alone. Phrasings differ from the public corpus's."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
import yaml

from bot.core import understand_advice
from bot.core.answer import answer
from bot.core.errors import KnowledgeError
from bot.core.knowledge import get_catalog, load_catalog
from bot.core.parsing import parse
from bot.core.types import Context, Intent, Lang

CAT = get_catalog()
KNOWLEDGE = Path(__file__).resolve().parents[2] / "knowledge"

# (question, topic, fields the Query must have)
READ = [
    ("will 16 gigs of vram be enough for running llms locally", "memory", {"advice_gb": 16.0}),
    ("is 48GB enough to fine-tune a 13b model", "memory", {"advice_gb": 48.0, "task": "finetune"}),
    ("is 10GB enough for image generation with stable diffusion", "memory", {"advice_gb": 10.0}),
    ("16g显存跑大模型够用吗", "memory", {"advice_gb": 16.0}),
    ("24g显存够不够微调13b", "memory", {"advice_gb": 24.0, "task": "finetune"}),
    ("rocm vs cuda for pytorch, is amd usable now?", "platform", {"advice_stack": "rocm"}),
    ("does pytorch run on apple silicon gpus?", "platform", {"advice_stack": "mps"}),
    ("can i use an arc a770 for deep learning", "platform", {"advice_stack": "oneapi"}),
    ("does vllm work on a p40?", "platform", {"advice_tool": "vllm", "gpus": ("tesla-p40",)}),
    (
        "bitsandbytes on a mac, does it work?",
        "platform",
        {"advice_stack": "mps", "advice_tool": "bitsandbytes"},
    ),
    ("amd显卡能跑深度学习吗", "platform", {"advice_stack": "rocm"}),
    ("A卡能跑大模型吗", "platform", {"advice_stack": "rocm", "advice_tool": "llama.cpp"}),
    ("is rocm usable yet?", "platform", {"advice_stack": "rocm", "advice_tool": "pytorch-training"}),
    ("do I need nvlink to train on 2x rtx a6000", "nvlink", {"gpus": ("rtx-a6000",), "num_gpus": 2}),
    ("双卡3090有必要上nvlink吗", "nvlink", {"gpus": ("rtx-3090",), "num_gpus": 2}),
    ("will running my 4090 at pcie 4.0 x4 hurt inference speed", "pcie", {"gpus": ("rtx-4090",)}),
    ("pcie 3.0 x16 跑4090会瓶颈吗", "pcie", {"gpus": ("rtx-4090",)}),
    ("is ecc vram important for fine-tuning llms", "ecc", {}),
    ("深度学习需要ecc显存吗", "ecc", {}),
    ("laptop 5090 vs desktop 5090 for ai", "laptop", {"gpus": ("rtx-5090-laptop", "rtx-5090")}),
    ("笔记本5090和台式5090差距大吗", "laptop", {"gpus": ("rtx-5090-laptop", "rtx-5090")}),
    ("魔改4090 48g值得买吗", "modded", {"gpus": ("rtx-4090-48gb",)}),
    ("are ex-mining 3090s ok to buy", "used", {"gpus": ("rtx-3090",)}),
    ("矿卡能买吗", "used", {}),
    ("is a 1080 ti still worth it in 2026", "worth", {"gpus": ("gtx-1080-ti",)}),
    ("1080ti现在还能战吗", "worth", {"gpus": ("gtx-1080-ti",)}),
    ("should i wait for the rtx 60 series", "wait", {}),
    ("要不要等下一代显卡", "wait", {}),
    ("what compute capability does my 1080 ti have, does pytorch still support it", "compute_capability", {}),
]


@pytest.mark.parametrize(("text", "topic", "fields"), READ, ids=[r[0] for r in READ])
def test_judgement_questions_are_read_as_advice(text: str, topic: str, fields: dict[str, object]) -> None:
    q = parse(text, CAT)
    assert q.intent is Intent.ADVICE, q
    assert q.advice_topic == topic
    for name, want in fields.items():
        got = getattr(q, name)
        assert (str(got) if name == "task" else got) == want, (name, got)


# questions other intents answer: advice must not take them
KEEP = [
    ("is a 3080 enough for sdxl", Intent.FIT),
    ("is 24gb enough for qwen2.5 14b", Intent.FIT),
    ("guy selling a p40 for $180, worth?", Intent.DEAL),
    ("3090 vs 4090 for llama finetuning, is the 4090 worth it", Intent.COMPARE),
    ("llama 3 70b on two 3090s with nvlink", Intent.FIT),
    ("amd cards with at least 16 gb", Intent.FILTER),
    ("run llama 3 8b on a 7900 xtx with rocm", Intent.FIT),
    ("what gpu for pytorch under $1000", Intent.RECOMMEND),
    ("used 3090 or new 4070 ti super for sdxl training", Intent.COMPARE),
    ("tokens per second of llama 3 8b on a mac m4 max", Intent.SPEED),
    ("which intel gpu is best for training", Intent.FILTER),  # a list of cards, not a judgement
    ("can my 3080 run ollama", Intent.FIT),  # every NVIDIA card runs llama.cpp: what runs on it
]


def test_a_cuda_card_ok_for_deep_learning_is_weighed_not_a_platform_question() -> None:
    q = parse("is the 4060 ti 16gb fine for training", CAT)
    assert q.intent is Intent.ADVICE and q.advice_topic == "worth"
    amd = parse("is the 7900 xtx ok for deep learning", CAT)
    assert amd.advice_topic == "platform"  # on AMD the stack is the question


@pytest.mark.parametrize(("text", "intent"), KEEP, ids=[k[0] for k in KEEP])
def test_other_intents_are_not_taken(text: str, intent: Intent) -> None:
    assert parse(text, CAT).intent is intent


def _json(text: str, context: Context | None = None) -> dict:
    a = answer(text, context, catalog=CAT)
    data = a.to_json()
    json.dumps(data, allow_nan=False)  # no NaN / Infinity in the contract
    return data


def test_memory_answer_uses_the_engine_numbers_with_their_band() -> None:
    data = _json("will 16 gigs of vram be enough for running llms locally")
    assert data["intent"] == "advice"
    adv = data["advice"]
    assert adv["topic"] == "memory" and adv["numbers"]["gb"] == 16
    rows = adv["rows"]
    assert len(rows) >= 3
    for r in rows:
        assert r["low"] <= r["value"] <= r["high"]
        assert r["fits"] == (r["value"] <= adv["numbers"]["usable_gb"])
    # bigger models need more: the 70B row does not fit 16 GB, the 8B one does
    assert rows[0]["fits"] and not rows[-1]["fits"]
    assert adv["verdict"] == "enough_for_some"


def test_more_memory_fits_at_least_as_much() -> None:
    small = _json("is 8GB enough for local LLMs")["advice"]["numbers"]["fits"]
    big = _json("is 48GB enough for local LLMs")["advice"]["numbers"]["fits"]
    assert big >= small
    assert _json("is 48GB enough for local LLMs")["advice"]["verdict"] in ("enough", "enough_for_some")


def test_finetune_memory_answers_each_method() -> None:
    adv = _json("is 48GB enough to fine-tune a 13b model")["advice"]
    labels = {r["label"]: r for r in adv["rows"]}
    assert set(labels) == {"qlora", "lora", "full"}
    assert labels["qlora"]["value"] < labels["lora"]["value"] < labels["full"]["value"]
    assert labels["qlora"]["fits"] and not labels["full"]["fits"]


def test_platform_answer_reads_the_support_table() -> None:
    adv = _json("does vllm work on a p40?")["advice"]
    assert adv["verdict"] == "unsupported"  # vLLM needs compute capability 7.5; the P40 is Pascal
    assert adv["numbers"]["tool"] == "vllm"
    ok = _json("does pytorch run on apple silicon gpus?")
    assert ok["advice"]["verdict"] == "partly" and "MPS" in ok["text"]
    for f in ok["advice"]["facts"]:
        assert f["source"] and f["date"]


def test_facts_carry_source_and_date_in_the_json() -> None:
    adv = _json("do I need nvlink to train on 2x rtx a6000")["advice"]
    assert adv["facts"]
    assert all(f["source"] and len(f["date"]) == 7 and f["text"] for f in adv["facts"])
    assert adv["facts"][0]["id"] == "nvlink-training"  # a training question leads with training


def test_laptop_answer_compares_the_catalog_specs() -> None:
    data = _json("laptop 5090 vs desktop 5090 for ai")
    n = data["advice"]["numbers"]
    lap, desk = CAT.gpus["rtx-5090-laptop"], CAT.gpus["rtx-5090"]
    assert n["vram_laptop"] == lap.vram_gb and n["vram_desktop"] == desk.vram_gb
    assert n["bandwidth_ratio"] == round(lap.memory_bandwidth_gbs / desk.memory_bandwidth_gbs, 2)
    assert f"{lap.vram_gb:g} GB" in data["text"] and f"{desk.vram_gb:g} GB" in data["text"]


def test_pcie_answer_computes_the_link_from_the_lane_rate() -> None:
    adv = _json("will running my 4090 at pcie 4.0 x4 hurt inference speed")["advice"]
    rate = next(f for f in CAT.advice if f.id == "pcie-lane-rates").values["gen4"]
    assert adv["numbers"]["link_gbs"] == round(rate * 4, 1)
    assert adv["numbers"]["fill_s"] == round(24 / adv["numbers"]["link_gbs"], 1)
    assert adv["verdict"] == "not_for_one_card"


def test_worth_answer_says_legacy_for_pascal_and_current_for_ampere() -> None:
    assert _json("is a 1080 ti still worth it in 2026")["advice"]["verdict"] == "legacy"
    cur = _json("is the 3090 still worth buying")["advice"]
    assert cur["verdict"] == "current"
    assert cur["numbers"]["price_usd"] == CAT.gpus["rtx-3090"].price_usd


def test_wait_answer_names_only_catalog_generations() -> None:
    adv = _json("should i wait for the rtx 60 series")["advice"]
    archs = {g.architecture for g in CAT.gpus.values()}
    assert adv["rows"] and all(r["subject"] in archs for r in adv["rows"])
    assert adv["numbers"]["newest"] == adv["rows"][-1]["subject"]


@pytest.mark.parametrize(
    "text",
    [
        "16g显存跑大模型够用吗",
        "amd显卡能跑深度学习吗",
        "双卡3090有必要上nvlink吗",
        "深度学习需要ecc显存吗",
        "1080ti现在还能战吗",
    ],
)
def test_chinese_questions_get_chinese_advice(text: str) -> None:
    a = answer(text, catalog=CAT)
    assert a.language is Lang.ZH_HANS and a.intent is Intent.ADVICE
    assert a.verdict and any("\u4e00" <= c <= "\u9fff" for c in a.verdict)
    assert "Source:" not in a.text


def test_follow_ups_after_advice() -> None:
    first = answer("is 12gb enough for local llms", catalog=CAT)
    nxt = answer("and 24?", first.context, catalog=CAT)
    assert nxt.intent is Intent.ADVICE and "24 GB" in nxt.text
    mac = answer("can I use a mac for pytorch training", catalog=CAT)
    amd = answer("那A卡呢", mac.context, catalog=CAT)
    assert amd.intent is Intent.ADVICE and amd.query.advice_stack == "rocm" and "ROCm" in amd.text
    # naming a model and a card after an advice answer asks whether it fits
    fit = answer(
        "ok and the 7900 xtx for llama 3 8b lora",
        answer("can i use amd for training", catalog=CAT).context,
        catalog=CAT,
    )
    assert fit.intent is Intent.FIT


def test_gate_is_cheap_for_questions_without_advice_words() -> None:
    q = parse("what gpu for bert under 1000", CAT)
    assert understand_advice.GATE.search(q.text) is None
    start = time.perf_counter()
    for _ in range(2000):
        understand_advice.refine(q)
    assert (time.perf_counter() - start) / 2000 < 1e-4  # well under a tenth of a millisecond


def _write_knowledge(tmp_path: Path, facts: list[dict]) -> Path:
    d = tmp_path / "knowledge"
    d.mkdir()
    for f in KNOWLEDGE.iterdir():
        if f.is_file():
            (d / f.name).write_bytes(f.read_bytes())
        elif f.name == "benchmarks":
            (d / "benchmarks").mkdir()
            for b in f.iterdir():
                (d / "benchmarks" / b.name).write_bytes(b.read_bytes())
    (d / "advice.yaml").write_text(
        yaml.safe_dump({"source": "test", "date": "2026-12", "facts": facts}), encoding="utf-8"
    )
    return d


@pytest.mark.parametrize(
    ("fact", "field"),
    [
        ({"id": "x", "topic": "memory", "text": "t", "date": "2026-12"}, "source"),
        ({"id": "x", "topic": "nope", "text": "t", "source": "s", "date": "2026-12"}, "topic"),
        ({"id": "x", "topic": "ecc", "text": "t", "source": "s", "date": "2026"}, "date"),
        (
            {"id": "x", "topic": "ecc", "text": "t", "source": "s", "date": "2026-12", "values": {"a": -1}},
            "values.a",
        ),
        (
            {
                "id": "x",
                "topic": "platform",
                "text": "t",
                "source": "s",
                "date": "2026-12",
                "tools": ["pytorch"],
            },
            "tools[0]",
        ),
        ({"id": "x", "topic": "ecc", "text": "t", "source": "s", "date": "2026-12", "colour": 1}, "colour"),
    ],
)
def test_a_malformed_fact_stops_start_up_naming_file_entry_and_field(
    tmp_path: Path, fact: dict, field: str
) -> None:
    d = _write_knowledge(tmp_path, [fact])
    with pytest.raises(KnowledgeError) as e:
        load_catalog(d)
    msg = str(e.value)
    assert "advice.yaml" in msg and "fact x" in msg and field in msg


def test_every_fact_has_words_in_both_languages() -> None:
    from bot.core.phrase.catalog import t

    for f in CAT.advice:
        values = {k: f"{v:g}" for k, v in f.values.items()}
        for lang in (Lang.EN, Lang.ZH_HANS):
            line = t(lang, f"advice.fact.{f.id}", **values)
            assert line and line != f"advice.fact.{f.id}" and "{" not in line, (f.id, lang)


def test_an_advice_context_survives_the_storage_codec() -> None:
    from bot.storage.codec import decode_context, encode_context

    first = answer("can I use AMD for PyTorch training?", catalog=CAT)
    ctx = decode_context(json.loads(json.dumps(encode_context(first.context))))
    assert ctx is not None and ctx.last is not None and ctx.last.advice_stack == "rocm"
    nxt = answer("and vllm?", ctx, catalog=CAT)
    assert nxt.intent is Intent.ADVICE and nxt.to_json()["advice"]["numbers"]["tool"] == "vllm"


def test_the_json_text_of_a_fact_is_its_english_reply() -> None:
    from bot.core.phrase.catalog import t

    for f in CAT.advice:
        values = {k: f"{v:g}" for k, v in f.values.items()}
        assert t(Lang.EN, f"advice.fact.{f.id}", **values) == f.text, f.id


def test_a_platform_answer_says_its_source_once() -> None:
    text = answer("is intel arc usable for pytorch yet?").text
    lines = [ln for ln in text.splitlines() if ln.startswith("Source:")]
    assert len(lines) == len(set(lines)) == 1, lines
