"""The readers of bot.core.understand on forms people write (issue 10): amounts in words, filler
before an amount, multiples after a sequence length, counts with a Chinese unit, budgets whose
digits a shell ate; and the JSON of a note never loses its code to a value."""

from __future__ import annotations

import pytest

from bot.core.answer import answer
from bot.core.parsing import parse


@pytest.mark.parametrize(
    ("text", "usd"),
    [
        ("suggest a gpu for distilbert, anything under three hundred dollars", 300.0),
        ("best gpu for sdxl, fifteen hundred bucks max", 1500.0),
        ("gpu for bert for about a thousand dollars", 1000.0),
        ("card for llama 3 8b, two thousand five hundred dollars", 2500.0),
        ("gpu for resnet-50 under ninety-nine dollars", 99.0),
        ("whats the move for running qwen 2.5 14b at home? got like 800", 800.0),
    ],
)
def test_budgets_in_words_and_with_filler(text: str, usd: float) -> None:
    assert parse(text).budget_usd == usd


@pytest.mark.parametrize("text", ["one dollar gpu lol", "a dollar per hour card", "gpu for bert, got like 5"])
def test_small_words_are_not_budgets(text: str) -> None:
    assert parse(text).budget_usd is None


@pytest.mark.parametrize(
    ("text", "seq"),
    [
        ("qwen2.5 7b with context 1m on an h100", 1_000_000),
        ("上下文3万 qwen2.5 7b 4090能跑吗", 30_000),
        ("llama 3 8b seq len 8k on a 3090", 8192),
    ],
)
def test_sequence_multiples(text: str, seq: int) -> None:
    assert parse(text).seq_len == seq


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("llama 3 8b seq 20 million on h100", "seq_len"),
        ("序列长度一亿，llama 3 8b，h100", "seq_len"),
        ("1000000张4090能训练gpt-2吗", "num_gpus"),
        ("5000块4090跑llama 3 70b", "num_gpus"),
    ],
)
def test_values_past_the_range_are_said(text: str, field: str) -> None:
    q = parse(text)
    assert [o.field for o in q.out_of_range] == [field]
    ans = answer(text)
    assert "1,024" in ans.text or "10,000,000" in ans.text


def test_a_chinese_count_with_its_unit_is_a_count() -> None:
    assert parse("100张4090能训练llama 3 70b吗").num_gpus == 100
    assert parse("2000 4090 for llama 3 8b").num_gpus == 1  # a bare number: a price, not a count


def test_a_budget_whose_digits_the_shell_ate_is_said() -> None:
    js = answer("cheapest card for whisper medium under ,000").to_json()
    assert js["budget_usd"] is None
    assert any(n["code"] == "budget_lost_digits" for n in js["notes"])


def test_a_note_keeps_its_code_in_json() -> None:
    js = answer("what gpu for bert with 800 pounds").to_json()
    conv = next(n for n in js["notes"] if n["code"] == "budget_converted")
    assert conv["currency"] == "GBP" and conv["amount"] == 800.0


@pytest.mark.parametrize(
    ("text", "models", "gpus"),
    [
        ("跑通义千问2.5 14b用什么显卡", ("qwen2.5-14b",), ()),
        ("千问2.5 7b 4090能跑吗", ("qwen2.5-7b",), ("rtx-4090",)),
        ("万相2.1 14b 文生视频要多大显存", ("wan2.1-t2v-14b",), ()),
        ("筆電 4090 跑 sdxl 可以嗎", ("sdxl",), ("rtx-4090-laptop",)),
        ("笔记本4090和台式4090差多少", (), ("rtx-4090-laptop", "rtx-4090")),
        ("4090移动版跑llama 3 8b", ("llama-3-8b",), ("rtx-4090-laptop",)),
        (
            "RTX3090TI or RTX4080S for sd1.5 training??",
            ("stable-diffusion-1.5",),
            ("rtx-3090-ti", "rtx-4080-super"),
        ),
    ],
)
def test_chinese_brand_names_and_short_forms(
    text: str, models: tuple[str, ...], gpus: tuple[str, ...]
) -> None:
    q = answer(text).query
    assert q.models == models
    assert q.gpus == gpus


def test_how_much_vram_in_chinese_asks_whether_it_fits() -> None:
    assert answer("qwen2.5 7b需要多大显存").query.intent.value == "fit"


@pytest.mark.parametrize(
    "text",
    [
        "someone wants $650 for their used 3090, fair?",
        "4090 48g魔改版两万二，贵不贵",
        "5090 一萬八人民幣值得入手嗎",
        "3090 四千五值得入手吗",
    ],
)
def test_a_quoted_price_asked_about_is_a_deal_question(text: str) -> None:
    assert answer(text).query.intent.value == "deal"


@pytest.mark.parametrize(
    "text",
    [
        "用4090 qlora微调qwen2.5 14b，一万条数据要多长时间",
        "2万条样本，每条1024 token，用4090 qlora微调llama 3 8b要多久",
        "三千张图训练sdxl lora要多久，4090",
    ],
)
def test_chinese_counts_of_things_are_not_money(text: str) -> None:
    q = answer(text).query
    assert q.budget_usd is None
    assert not any(n.code.value == "budget_converted" for n in q.notes)


@pytest.mark.parametrize(
    "text",
    [
        "buying a 5090 vs renting cloud gpus for a year of lora experiments",
        "owning a 4090 versus renting one",
    ],
)
def test_buying_versus_renting_is_rent_or_buy(text: str) -> None:
    assert answer(text).query.intent.value == "rent_or_buy"


@pytest.mark.parametrize(
    ("turns", "hours"),
    [
        (["own a 4090 vs renting one, 4h/day", "what about 8 hours a day"], 8.0),
        (["租还是买4090，每天用4小时", "每天8小时呢"], 8.0),
        (["rent or buy a 3090 at 6 hours a day", "and with electricity at 0.30 per kwh?"], 6.0),
    ],
)
def test_rent_or_buy_follow_ups_keep_the_question(turns: list[str], hours: float) -> None:
    from bot.core.types import Context

    ctx = Context()
    for t in turns:
        ans = answer(t, ctx)
        ctx = ans.context
    q = ans.query
    assert q.intent.value == "rent_or_buy"
    assert q.gpus
    assert q.price_question is not None and q.price_question.hours_per_day == hours


def test_one_year_is_singular() -> None:
    text = answer("buying a 5090 vs renting cloud gpus for a year of lora experiments").text
    assert "1 year " in text and "1 years" not in text


def test_a_deal_follow_up_judges_the_new_card_and_price() -> None:
    from bot.core.types import Context

    first = answer("someone wants $650 for their used 3090, fair?", Context())
    ans = answer("and 1100 for a 4080 super?", first.context)
    assert ans.query.intent.value == "deal"
    assert ans.query.gpus == ("rtx-4080-super",)
    first_line = ans.text.splitlines()[0]
    assert "1,100" in first_line and "4080 SUPER" in first_line and "$650" not in first_line


def test_a_time_question_takes_the_default_variant_instead_of_asking_back() -> None:
    ans = answer("time to train resnet-50 on imagenet for 90 epochs with 8x a100")
    assert ans.query.intent.value == "time"
    assert ans.query.gpus and ans.query.gpus[0].startswith("a100")
    assert any(n.code.value == "took_gpu" for n in ans.query.notes)
    # a memory question still asks which one
    assert answer("can an a100 run llama 3 70b").query.needs_clarification


@pytest.mark.parametrize(
    ("text", "intent", "task"),
    [
        ("tokens/s of llama 3 8b on a 3090?", "speed", "inference"),
        ("4090 出一張 sdxl 圖要幾秒", "speed", "inference"),
        ("concurrent requests for qwen2.5 14b on an a100 80gb at 8k context with vllm", "serve", "inference"),
        ("qwen2.5-vl 7b inference vram", "fit", "inference"),
        ("gpu for whisper large v3 transcription, cheap as possible", "recommend", "inference"),
        ("家用跑模型买啥", "recommend", "inference"),
        (
            "what gpu should i get for training resnet50 on imagenet, have about $1500",
            "recommend",
            "training",
        ),
        ("llama 5 400b on 8x h200", "fit", None),
    ],
)
def test_intents_and_tasks_as_asked(text: str, intent: str, task: str | None) -> None:
    q = answer(text).query
    assert (q.intent.value, q.task.value if q.task else None) == (intent, task)


def test_chinese_sample_counts_and_datasets_are_read() -> None:
    from bot.core.understand_time import read

    assert read("用4090 qlora微调qwen2.5 14b，一万条数据要多长时间").samples == 10_000
    assert read("yolov8m训练coco 100个epoch在3090上要多久").dataset_name == "coco"


def test_a_time_question_without_a_rate_says_so_instead_of_asking_for_data() -> None:
    ans = answer("time to train yolov8m on coco for 100 epochs on a 3090")
    assert ans.query.intent.value == "time"
    assert "no training speed" in ans.text and "How much data" not in ans.text


@pytest.mark.parametrize(
    ("text", "intent", "rest"),
    [
        ("can a 3090 run llama 3 8b? also how much is a 4090 now", "fit", "how much is a 4090 now"),
        ("3090能跑llama 3 8b吗？另外4090现在多少钱", "fit", "4090现在多少钱"),
        ("3090能跑llama 3 8b嗎？另外4090現在多少錢", "fit", "4090現在多少錢"),
    ],
)
def test_a_second_question_is_said_back_not_mixed_in(text: str, intent: str, rest: str) -> None:
    ans = answer(text)
    assert ans.query.intent.value == intent
    assert ans.query.gpus == ("rtx-3090",)
    assert any(n.code.value == "more_questions" for n in ans.query.notes)
    assert rest in ans.text or rest.replace("現", "现").replace("錢", "钱") in ans.text


def test_a_question_with_one_question_mark_is_not_split() -> None:
    q = answer("3090 vs 4090? for stable diffusion").query
    assert q.intent.value == "compare" and len(q.gpus) == 2


def test_simplified_names_that_opencc_rewrites_stay_simplified() -> None:
    from bot.core.language import is_traditional

    assert not is_traditional("昇腾910b能微调qwen2.5 7b吗")
    assert is_traditional("昇騰910b能微調qwen2.5 7b嗎")


def test_a_context_in_millions() -> None:
    assert parse("qwen2.5 7b with a 2 million token context on an h100").seq_len == 2_000_000
    assert parse("fine-tune llama 3 8b on 50m tokens with a 4090, how long").seq_len is None


def test_a_setting_after_also_belongs_to_the_first_question() -> None:
    q = answer("can I run llama 3 8b on a 3090? also in int4?").query
    assert q.precision is not None and q.precision.value == "int4"
    assert not any(n.code.value == "more_questions" for n in q.notes)
