"""Question text -> :class:`~bot.core.types.Query` (what was asked, before defaults).

``parse(text, catalog=None, context=None)`` never raises and handles any
string quickly: names are found by :class:`~bot.core.matching.Matcher` (exact
keys first, typo correction only for unknown words); everything else is a
handful of precompiled regexes over the normalised text, run once each.

Pipeline (each step blanks what it consumed, so a later step cannot misread
it: a card number is never a budget, "8k context" is never $8,000):

1. normalise (NFKC, lowercase, control characters -> spaces);
2. cards and models (:meth:`Matcher.mentions`), then blank them;
3. sequence length, batch size, card counts ("2x", "dual", "two 4090s");
4. budget and currency (converted with ``catalog.currencies``, with a note);
5. precision, task, method, and the few training knobs (optimizer, ...);
6. intent from the entities found plus intent words (English and Chinese);
7. variant families: ask back when the variant changes the answer;
8. follow-ups merge with ``context.last`` (:mod:`bot.core.conversation`: the state, what a
   turn changes, what a new topic resets).

Decisions worth knowing:

* "mixed precision" / "amp" -> fp16 (bf16 is as common on Ampere and newer,
  but fp16 mixed precision runs on every card with tensor cores and costs the
  same memory; the engine may still prefer bf16 when the card supports it).
* A bare amount in a Chinese question ("预算5000") is taken as CNY when the
  currency table has CNY: Chinese users mean yuan; an explicit "美元" is USD.
* ``¥`` means CNY in a question containing Chinese, JPY otherwise, when the
  rate table claims it for both.
* A follow-up is only merged with the previous query when the text names no
  model and looks like a follow-up (starts with "and", "what about", "how
  about", "with", "in", "under", "same", "then", or has no intent words);
  the explicit openers ("what about", "how about", "and", "same") also
  merge when they name a model ("what about llama 3 70b?"): the model then
  replaces the previous one.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from cachetools import LRUCache

from bot.core import money_read
from bot.core import understand_advice as _understand_advice
from bot.core import understand_multi as _understand_multi
from bot.core.limits import OutOfRange, check_number
from bot.core.matching import STOP_WORDS, Matcher, Mention, get_matcher, normalize, pick_model, tokenize
from bot.core.numerals import CN_DIGITS
from bot.core.types import (
    Choice,
    Context,
    Intent,
    Method,
    Note,
    NoteCode,
    Optimizer,
    Parallelism,
    Precision,
    Query,
    Task,
    note,
)

__all__ = ["parse", "MAX_TEXT"]

log = logging.getLogger(__name__)

#: Longer input is cut (Discord messages are at most 4,000 characters).
MAX_TEXT = 4000


def _rx(pattern: str) -> re.Pattern[str]:
    # ASCII mode: \b and \w treat Chinese characters as non-word, so "预算800" and
    # "最大batch" still have word boundaries around the ASCII parts.
    return re.compile(pattern, re.ASCII)


_CJK_RE = _rx(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff]")

# ----------------------------------------------------------------- intents
_HELP_RE = _rx(
    r"^\W*(help|commands?|usage|hi|hello|hey|start|about|\?+)\W*$|what (?:else )?can (?:you|u) do|what do you do|what can i ask|"
    r"\bcommands? do (?:you|u) have|能干嘛|还能做什么|还能干什么|"
    r"how (?:do|does|can) (?:i|this|you) (?:use|work)|how to use|who are you|what are you|what is this bot|"
    r"你能做什么|你会什么|帮助|怎么用|如何使用|你是谁|"
    # how the numbers are made ("help memory", answered with the memory model's formulas)
    r"^\W*help\W+(?:memory|formulas?|math)\W*$|\b(?:memory|vram) (?:formulas?|math|model)\b|"
    r"how (?:do|does) (?:you|it|the bot) (?:estimate|calculate|compute|work out) (?:the )?(?:memory|vram)|显存(?:怎么|如何)(?:算|估算)"
)
_LIST_RE = _rx(
    r"\b(?:which|what)\b[^.?!]{0,30}\b(?:cards|gpus|models|networks|llms)\b[^.?!]{0,30}"
    r"\b(?:do (?:you|u)|can (?:you|u)|are (?:there|supported|available|in)|(?:you|u) (?:know|support|have|cover))|"
    r"^\W*list\W*$|"
    r"\blist\b[^.?!]{0,20}\b(?:cards|gpus|models|llms|networks|graphics)\b|"
    r"\b(?:show|tell)(?: me)?(?: all)?(?: the)?(?: your)? (?:cards|gpus|models|llms)\b|"
    r"\ball (?:the |your )?(?:cards|gpus|models|llms)\b|"
    r"^\W*(?:all |the )?(?:cards|gpus|graphics cards|models)\W*$|"
    r"^\W*(?:list |show(?: me)? )?(?:all )?(?:the )?(?:cards|gpus|graphics cards)\s+(?:under|below|less than|<|cheaper than|between)|"
    r"支持哪些|有哪些(?:显卡|模型|卡)|知道哪些|哪些(?:显卡|模型)|列出|(?:显卡|模型)列表"
)
_LIST_MODELS_RE = _rx(r"\bmodels?\b|\bnetworks?\b|\bllms?\b|模型")
_COMPARE_RE = _rx(
    r"\bvs\b|\bv\.s\.?|\bversus\b|\bcompar|\bbetter\b|\bfaster\b|\bdifference\b|\bor\b|\bagainst\b|"
    r"对比|比较|哪个好|哪个更|还是|区别|相比"
)
_FIT_RE = _rx(
    r"\bfits?\b|\bfitting\b|\bcan (?:i|it|a|an|the|my|one|two|\d|we|you|[a-z0-9-]+ (?:run|train|handle|fit|fine))|"
    r"\bwill (?:it|a|an|the|my|this|that)\b|\bwould (?:it|a|an|the|my)\b|\benough\b|"
    r"\b(?:max(?:imum)?|largest|biggest|highest) batch|\bhow much (?:vram|memory|gpu memory|ram)\b|"
    r"\bneed(?:s|ed)?\b|\brequire|\bable to\b|\bhandle\b|\bout of memory\b|\boom\b|\bpossible\b|\bis it ok\b|"
    r"能跑|能不能|可以跑|跑得动|跑得了|能否|够不够|够吗|够用|装得下|放得下|需要多少|最大\s*batch|最大批|能训练|能微调|可以训练"
)
_FIT_STRONG_RE = _rx(
    r"\bfits?\b|\bfitting\b|\b(?:max(?:imum)?|largest|biggest|highest) batch|\benough\b|\boom\b|\bout of memory\b|"
    r"\bcan (?:i|it|we|you|a|an|the|my)\b[^.?!]{0,40}\b(?:run|train|fine|handle|serve|load|use)|"
    r"\bwill it\b|能跑|装得下|放得下|够不够|够吗|最大\s*batch|最大批"
)
_INFO_RE = _rx(
    r"\bspecs?\b|\bspecifications?\b|\bprices?\b|\bcosts?\b|\bhow much (?:does|is|are|do|for)\b|"
    r"\bhow (?:big|large|many param|many parameter|fast|old|new)|\bparam(?:eter)?s?\b|\bsize of\b|\btflops\b|"
    r"\bperformance\b|\bbandwidth\b|\btdp\b|\bpower\b|\bwatts?\b|\btell me about\b|\bwhat(?: is|'s| s|s)\b|"
    r"\binfo(?:rmation)?\b|\bdetails?\b|\bvram\b|\bmemory\b|\breleased?\b|\barchitecture\b|\bmsrp\b|"
    r"多少钱|价格|规格|参数|多大|显存多少|介绍|性能|功耗|带宽"
)
_RECOMMEND_RE = _rx(
    r"\b(?:what|which|best|good|recommended?|cheapest|ideal|right|suitable|budget|decent|affordable)\b"
    r"[^.?!]{0,25}\b(?:gpus?|cards?|graphics|hardware|setup|rig|one to (?:buy|get))\b|"
    r"\brecommend|\bsuggest|\bshould i (?:buy|get|pick|choose|go for)\b|\b(?:gpus?|cards?) for\b|"
    r"\bwhat (?:to|should i|do i) (?:buy|get)\b|\bbuy\b|\bupgrade|\bpurchase\b|\badvice\b|"
    r"用什么|推荐|买什么|选什么|哪张|哪款|什么显卡|什么卡|哪个显卡|该买|配什么|买哪"
)
_FOLLOWUP_OPENER_RE = _rx(
    r"^\W*(?:and|what about|how about|with|in|under|below|same|then|also|now|ok(?:ay)?|but|using|at)\b|^\W*那|^\W*如果|^\W*换成|^\W*用"
)
_FOLLOWUP_STRONG_RE = _rx(r"^\W*(?:and|what about|how about|same|then)\b|^\W*那")

# ----------------------------------------------------------------- task etc.
_FINETUNE_RE = _rx(
    r"\bfine[\s-]?tun(?:e|es|ing)\b|\bfinetun(?:e|es|ing)\b|\bft\b|\bq?lora\b|\bsft\b|\bpeft\b|微调|精调"
)
_FINETUNED_RE = _rx(r"\bfine[\s-]?tuned\b|\bfinetuned\b")
_TRAIN_RE = _rx(r"\btrain(?:s|ing|able)?\b|\bpre-?train(?:s|ing)?\b|\bfrom scratch\b|训练")
_INFER_RE = _rx(
    r"\brun(?:s|ning)?\b|\bserv(?:e|es|ing)\b|\binferenc(?:e|ing)\b|\binfer\b|\bdeploy(?:s|ing|ment)?\b|"
    r"\bgenerat(?:e|es|ing|ion)\b|\bchat(?:ting)? with\b|\bhost(?:s|ing)?\b|\bload\b|\bprediction\b|\bpredict\b|"
    r"推理|部署|跑|运行|生成"
)
_METHOD_RES: tuple[tuple[re.Pattern[str], Method], ...] = (
    (_rx(r"\bq-?lora\b"), Method.QLORA),
    (_rx(r"\blora\b"), Method.LORA),
    (
        _rx(
            r"\bfull(?:[\s-]+(?:parameter|param|model|weights?))?[\s-]+(?:fine[\s-]?tun\w*|finetun\w*|ft|training|train)\b|"
            r"\bfull[\s-]param(?:eter)?s?\b|全参|全量"
        ),
        Method.FULL,
    ),
)
_PRECISION_RES: tuple[tuple[re.Pattern[str], Precision], ...] = (
    (_rx(r"\bbf16\b|\bbfloat\s?16\b|\bbf-16\b"), Precision.BF16),
    (_rx(r"\bfp8\b|\bfloat8\b|\bfp-8\b|\be4m3\b"), Precision.FP8),
    (
        _rx(
            r"\bint4\b|\bint-4\b|\b4[\s-]?bits?\b|\bq4(?:_\w+)?\b|\bnf4\b|\bgptq\b|\bawq\b|\bexl2\b|4位|4比特|四位"
        ),
        Precision.INT4,
    ),
    (
        _rx(
            r"\bint8\b|\bint-8\b|(?<!adam )(?<!adamw )(?<!adam-)(?<!adamw-)\b8[\s-]?bits?\b(?![\s-]*adam)|\bq8(?:_\w+)?\b|\bllm\.int8\b|8位|8比特|八位"
        ),
        Precision.INT8,
    ),
    (
        _rx(
            r"\bfp16\b|\bfloat\s?16\b|\bfp-16\b|\bhalf(?:[\s-]precision)?\b|\bmixed[\s-]precision\b|\bamp\b|"
            r"\b16[\s-]?bits?\b|半精度|混合精度"
        ),
        Precision.FP16,
    ),
    (
        _rx(
            r"\bfp32\b|\bfloat\s?32\b|\bfp-32\b|\bfull[\s-]precision\b|\bsingle[\s-]precision\b|\b32[\s-]?bits?\b|"
            r"全精度|单精度"
        ),
        Precision.FP32,
    ),
)
_OPTIMIZER_RES: tuple[tuple[re.Pattern[str], Optimizer], ...] = (
    (
        _rx(r"\bpaged[\s-]?adam\w*[\s-]*8[\s-]?bit\b|\bpaged[\s-]?8[\s-]?bit[\s-]*adam\w*"),
        Optimizer.PAGED_ADAM8BIT,
    ),
    (
        _rx(r"\b8[\s-]?bit[\s-]*adam\w*|\badamw?[\s-]?8[\s-]?bit\b|\bbnb adam|\bpaged adam"),
        Optimizer.ADAM8BIT,
    ),
    (_rx(r"\badam\w*\b"), Optimizer.ADAMW),
    (_rx(r"\bsgd\b"), Optimizer.SGD),
    (_rx(r"\badafactor\b"), Optimizer.ADAFACTOR),
)
# "pure bf16": 16-bit weights and optimizer states, no fp32 master copy (Lightning's "bf16-true")
_PURE_RE = _rx(r"\bpure[\s-]?(?:bf16|fp16|bfloat16|float16|16[\s-]?bits?|half)\b|\b(?:bf16|fp16)[\s-]true\b")
_LORA_TARGET_RES: tuple[tuple[re.Pattern[str], str], ...] = (
    (_rx(r"\ball[\s-](?:the\s+)?linear(?:\s+(?:layers?|modules?))?\b|\bevery linear layer\b"), "all-linear"),
    (_rx(r"\bq[\s_-]?(?:proj)?\s*(?:and|,|&|/)\s*v(?:[\s_-]?proj)?\b|\bqv\b"), "qv"),
    (
        _rx(
            r"\bon\s+(?:the\s+)?attention(?:\s+(?:layers?|projections?|matrices|modules?))?\b|\battention[\s-]only\b"
        ),
        "attention",
    ),
)
_PARALLEL_RES: tuple[tuple[re.Pattern[str], Parallelism], ...] = (
    (_rx(r"\bfsdp\b|\bzero[\s-]?3\b|\bdeepspeed\b|\bshard(?:ed|ing)\b"), Parallelism.SHARDED),
    (_rx(r"\btensor[\s-]parallel\w*|\btp\s?=\s?\d"), Parallelism.TENSOR),
    (_rx(r"\bpipeline[\s-]parallel\w*"), Parallelism.PIPELINE),
    (_rx(r"\bddp\b|\bdata[\s-]parallel\w*"), Parallelism.DATA),
)
_CKPT_NO_RE = _rx(r"\b(?:without|no|disable[ds]?|w/o)\s+(?:gradient |grad |activation )?checkpointing\b")
_CKPT_RE = _rx(r"\b(?:gradient|grad|activation)[\s-]checkpointing\b|\bcheckpointing\b")
_FLASH_RE = _rx(r"\bflash[\s-]?att(?:ention|n)?\b|\bsdpa\b|\bxformers\b|\bfused attention\b")
_NO_FLASH_RE = _rx(
    r"\b(?:without|no|w/o|disable[ds]?|not using)\s+(?:flash[\s-]?att(?:ention|n)?|fused attention|sdpa|xformers)\b"
    r"|\b(?:eager|naive|vanilla|standard) attention\b"
)
# image side: "at 1024px", "768 pixels", "1024x1024", "1024×768"
_OFFLOAD_RE = _rx(r"\b(?:cpu|model|sequential)[\s-]offload(?:ing)?\b|\boffload(?:ing|ed)?\b")
_RES_RE = _rx(r"\b(\d{3,4})\s*(?:px\b|pixels?\b|[x×*]\s*(\d{3,4})\b)")
# a side in pixels too small or too large to be one ("20000px"): reported, not used
_RES_ODD_RE = _rx(r"\b(\d{1,2}|\d{5,9})\s*(?:px|pixels?)\b")

# ----------------------------------------------------------------- numbers
# 1,200 / 1,200.50 / 1.200 (European grouping) / 2,5 (decimal comma) / 900 / 1.5
_NUM = r"(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+,\d{1,2}(?![\d,])|\d+(?:\.\d+)?)"
_SEQ_RES = (
    _rx(
        r"\b(?:seq(?:uence)?|max)?[\s_-]*(?:len(?:gth)?|seq(?:uence)?)\s*(?:of|=|:|is|to)?\s*(\d+(?:\.\d+)?)\s*(k)?\b"
        r"|\bcontext(?:[\s-](?:length|window|size|len))?\s*(?:of|=|:|is|to)?\s*(\d+(?:\.\d+)?)\s*(k)?\b"
        r"|\bctx\s*(?:=|:)?\s*(\d+(?:\.\d+)?)\s*(k)?\b"
        r"|(?:上下文|序列长度|长度)\s*(\d+(?:\.\d+)?)\s*(k)?"
    ),
    _rx(
        r"\b(\d+(?:\.\d+)?)\s*(k)?[\s-]*(?:tokens?|toks?|ctx|context|seq(?:uence)?s?(?: length)?)\b|(?<![0-9.])(\d+(?:\.\d+)?)\s*(k)?\s*(?:上下文|token)"
    ),
)
_BATCH_RES = (
    _rx(
        r"\b(?:micro[\s-]?)?(?:mini[\s-]?)?batch(?:[\s_-]?size)?\s*(?:of|=|:|is|to|at)?\s*(\d+)\b|\bbs\s*(?:=|:|of)?\s*(\d+)\b"
        r"|(?:批大小|批量|批次)\s*(?:改成|改为|改到|设为|设成|=)?\s*(\d+)"
    ),
    _rx(r"\b(\d+)\s*(?:samples|images|sequences)?\s*(?:per|a|each)\s*batch\b|\b(\d+)[\s-]*batch\b"),
)
_WORD_NUM = {
    "one": 1,
    "single": 1,
    "two": 2,
    "dual": 2,
    "double": 2,
    "pair": 2,
    "three": 3,
    "triple": 3,
    "four": 4,
    "quad": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "ten": 10,
    "twelve": 12,
    "sixteen": 16,
    "两": 2,
    "二": 2,
    "双": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "八": 8,
    "十": 10,
}
_WORDS = r"one|single|two|dual|double|three|triple|four|quad|five|six|seven|eight|ten|twelve|sixteen"
_COUNT_BEFORE_RE = _rx(
    r"(?:\b(\d{1,4})\s*(?:x|×|\*)\s*|\b(\d{1,3})\s+(?:of\s+)?(?:the\s+)?|"
    rf"\b(?:a\s+)?(pair) of\s+(?:the\s+)?|\b({_WORDS})(?:[\s-]+(?:of\s+)?(?:the\s+)?|\s*x\s*)|"
    r"(\d{1,3}|[两二双三四五六八十])\s*(?:张|块|个|卡)?\s*)$"
)
_COUNT_AFTER_RE = _rx(
    r"^(?:s|'s)?\s*(?:x|×|\*)\s*(\d{1,4})\b|^(?:s|'s)?\s*(?:(?:cards?|gpus?)\s*)?[x×]\s*(\d{1,4})\b"
)
_COUNT_GPUS_RE = _rx(
    rf"\b(\d{{1,4}}|{_WORDS})(?:\s*x)?[\s-]*(?:gpus?|cards?|graphics cards|of them|of those)\b|\bmulti[\s-]?gpu\b|"
    r"(?<![\d.,])(\d{1,3}|[两二双三四五六八十])\s*(?:张|块)\s*(?:卡|显卡)?|双卡|四卡|八卡"
)
_SIZE_MASK_RE = _rx(
    r"\b\d+(?:\.\d+)?\s*(?:x\s*\d+(?:\.\d+)?\s*)?(?:b|bn|billion|m|million|t|trillion)\b(?:\s*param\w*)?|"
    r"\b\d+(?:\.\d+)?\s*(?:gb|g|gib|tb|mb|gigs?|gigabytes?)\b|"
    r"\b\d+(?:\.\d+)?\s*(?:w|watts?|tflops|gb/s|fps|it/s|tok/s|tokens/s|hours?|hrs?|days?|minutes?|mins?|steps|epochs?|"
    r"images?|samples|px|p|layers|heads|%|ms|s)\b|"
    r"\b\d+\s*[x×]\b|\b[x×]\s*\d+\b|\b\d+k\s*(?:resolution|images?|video|monitor|display|screens?)\b|"
    r"\b\d+\s*x\s*\d+\b"
)

_USD_SYMBOLS = ("$", "us$", "usd", "dollars", "dollar", "bucks", "buck", "美元", "美金", "刀")
_MULT = {"k": 1000.0, "grand": 1000.0, "thousand": 1000.0, "千": 1000.0, "万": 10000.0}
_MULT_RE = r"(\s*(?:k\b|grand\b|thousand\b|千|万))?"
_CUE_RE = (
    r"(?:\bunder|\bbelow|\bless than|\bmax(?:imum)?|\bup ?to|\bwithin|\bbudget(?:\s+(?:of|is|around|about|at))?|"
    r"\baround|\babout|<=?|\bat most|\bno more than|\bcheaper than|\bspend|\bgot|\bhave|\bfor|预算(?:是|为|有)?|不超过|最多)"
)
_BARE_AFTER_RE = _rx(r"^\s*(?:以内|以下|左右|之内)")
_UNIT_AFTER_RE = _rx(
    r"^\s*(?:gb|g\b|tb|mb|w\b|watts?|b\b|m\b|%|x\b|tokens?|ms\b|hours?|steps|images?|fps|px|k\s*context)"
)
_WORD_GRAND_RE = _rx(r"\b(a|one|two|three|four|five|ten)\s+grand\b")
_CUE_NUM_RE = _rx(_CUE_RE + r"\s*:?\s*" + r"(?<![a-z0-9.])" + _NUM + r"(?![a-z0-9.])")
_BETWEEN_RE = _rx(r"\bbetween\s*$")
_REC_STRONG_RE = _rx(
    r"\b(?:what|which|best|recommend\w*)\b[^.?!]{0,25}\b(?:gpus?|cards?)\b|推荐|用什么|买什么|instead of|upgrade"
)
_RANGE_GAP_RE = _rx(r"^\s*(?:-|–|—|to|~|至|到|and)\s*$")


_EU_GROUPED = re.compile(r"(?<!\d)\d{1,3}(?:\.\d{3})+")
_DECIMAL_COMMA = re.compile(r"(?<!\d)\d+,\d{1,2}")


def _num(s: str) -> float:
    """An amount as people write it: "1,200" and "1.200" (European grouping) are 1200, "2,5" is 2.5."""
    if _EU_GROUPED.fullmatch(s):
        return float(s.replace(".", ""))
    if _DECIMAL_COMMA.fullmatch(s):
        return float(s.replace(",", "."))
    return float(s.replace(",", ""))


_CN_DIGITS = CN_DIGITS  # bot.core.numerals: one table for every reader
# Chinese amounts: 三万, 一万二 (12,000), 五千五 (5,500), 2万5 (25,000), 六千块钱, 四千以内
_CN_AMOUNT_RE = re.compile(
    r"(?<![\d.])(\d+(?:\.\d+)?|[一二两三四五六七八九十]{1,3})\s*(万|千)"
    r"(?:([一二两三四五六七八九])|(\d)(?![\d.]))?(?![万千百])"
)


def _cn_number(s: str) -> float | None:
    """'3' / '2.5' / '三' / '十二' / '二十' -> the number (up to 99)."""
    if s[0].isdigit():
        return float(s)
    if s == "十":
        return 10.0
    if "十" in s:
        tens, _, ones = s.partition("十")
        return float((_CN_DIGITS.get(tens, 1) if tens else 1) * 10 + (_CN_DIGITS.get(ones, 0) if ones else 0))
    if len(s) == 1:
        return float(_CN_DIGITS[s])
    return None


def _cn_amount(m: re.Match[str]) -> float | None:
    base = _cn_number(m.group(1))
    if base is None:
        return None
    unit = 10000.0 if m.group(2) == "万" else 1000.0
    tail = m.group(3) or m.group(4)
    extra = (_CN_DIGITS[tail] if tail in _CN_DIGITS else int(tail)) * unit / 10 if tail else 0.0
    return base * unit + extra


def _blank(text: str, start: int, end: int) -> str:
    return text[:start] + " " * (end - start) + text[end:]


def _symbol_alternation(syms: Sequence[str], word_start: str) -> str:
    """One regex alternation of currency symbols, grouped by first character (a flat alternation
    of ~150 symbols costs ~150 tries per position); longest first within a group. A symbol that
    starts with a letter or digit gets ``word_start`` before it, one that ends with one a ``\\b``
    after it ("c$ 1500": none after "$")."""
    groups: dict[str, list[str]] = {}
    for x in sorted(syms, key=len, reverse=True):
        groups.setdefault(x[0], []).append(x)
    out = []
    for first, members in groups.items():
        before = word_start if first.isascii() and first.isalnum() else ""
        alts = [re.escape(x[1:]) + (r"\b" if x[-1].isascii() and x[-1].isalnum() else "") for x in members]
        out.append(before + re.escape(first) + "(?:" + "|".join(alts) + ")")
    # one character-class test first: most positions start no symbol at all
    firsts = "".join(sorted({re.escape(x[0]) for x in syms}))
    return f"(?=[{firsts}])(?:" + "|".join(out) + ")"


class _Currencies:
    """Symbol -> currency code, from the catalog's dated rate table plus USD words."""

    def __init__(self, table: Mapping[str, Any]) -> None:
        self.table = dict(table or {})
        self.by_symbol: dict[str, list[str]] = {}
        for s in _USD_SYMBOLS:
            self.by_symbol.setdefault(s, []).append("USD")
        for code, rate in self.table.items():
            for s in (code, *getattr(rate, "symbols", ())):
                s = normalize(str(s)).strip()
                if s and code not in self.by_symbol.setdefault(s, []):
                    self.by_symbol[s].append(code)
        syms = sorted(self.by_symbol, key=len, reverse=True)
        self.known = frozenset(self.by_symbol)
        # Chinese/Japanese currency words only follow the amount ("5000元"); "4块4090" is four 4090s;
        # words that are English too ("try", "won", "kr") only follow it ("30000 try", not "try 2 cards")
        pre_syms = [x for x in syms if not _CJK_RE.search(x) and x not in money_read.POST_ONLY_SYMBOLS]
        self.pre = _rx("(?P<sym>" + _symbol_alternation(pre_syms, r"\b") + r")\s*" + _NUM + _MULT_RE)
        # after the amount a code may be glued to it: "1200usd", "2000rmb", "1500eur"
        self.post = _rx(
            r"(?<![a-z0-9.,])(?>"
            + _NUM
            + ")"
            + _MULT_RE
            + r"\s*(?P<sym2>"
            + _symbol_alternation(syms, "(?<![a-z])")
            + ")"
        )

    def code(self, symbol: str, cjk: bool) -> str:
        codes = self.by_symbol.get(symbol.strip(), ["USD"])
        if len(codes) > 1:
            if cjk and "CNY" in codes:
                return "CNY"
            if "JPY" in codes and not cjk:
                return "JPY"
            if "USD" in codes:
                return "USD"
        return codes[0]


_CURRENCY_CACHE: LRUCache[int, tuple[Any, _Currencies]] = LRUCache(maxsize=16)  # per catalog


def _currencies(catalog: Any) -> _Currencies:
    table = getattr(catalog, "currencies", None) or {}
    hit = _CURRENCY_CACHE.get(id(table))
    if hit is not None and hit[0] is table:
        return hit[1]
    c = _Currencies(table)
    _CURRENCY_CACHE[id(table)] = (table, c)
    return c


# ----------------------------------------------------------------- pieces
def _seq_len(masked: str, oor: list[OutOfRange] | None = None) -> tuple[int | None, str]:
    for rx in _SEQ_RES:
        for m in rx.finditer(masked):
            groups = [g for g in m.groups()]
            for k in range(0, len(groups), 2):
                if groups[k]:
                    v = float(groups[k]) * (1024 if groups[k + 1] else 1)
                    if v >= 16 or groups[k + 1]:
                        bad = _out_of_range("seq_len", v, m.group().strip())
                        if bad is None:
                            return int(v), _blank(masked, m.start(), m.end())
                        if oor is not None:
                            oor.append(bad)
                        return None, _blank(masked, m.start(), m.end())
    return None, masked


def _out_of_range(field: str, value: float, text: str) -> OutOfRange | None:
    return check_number(field, value, text)


def _resolution(masked: str, oor: list[OutOfRange] | None = None) -> tuple[int | None, str]:
    """Image side in pixels; a w x h pair becomes the side of the same pixel count."""
    m = _RES_RE.search(masked)
    if m is None:
        odd = _RES_ODD_RE.search(masked)
        if odd is not None and oor is not None:
            bad = _out_of_range("resolution", int(odd.group(1)), odd.group().strip())
            if bad is not None:
                oor.append(bad)
                return None, _blank(masked, odd.start(), odd.end())
        return None, masked
    w = int(m.group(1))
    h = int(m.group(2)) if m.group(2) else w
    for side in (w, h):
        bad = _out_of_range("resolution", side, m.group().strip())
        if bad is not None:
            if oor is not None:
                oor.append(bad)
            return None, _blank(masked, m.start(), m.end())
    return int(round((w * h) ** 0.5)), _blank(masked, m.start(), m.end())


def _batch(masked: str, oor: list[OutOfRange] | None = None) -> tuple[int | None, str]:
    for rx in _BATCH_RES:
        for m in rx.finditer(masked):
            g = next((x for x in m.groups() if x), None)
            if g is not None:
                v = float(g) if len(g) > 18 else int(g)  # a 300-digit "batch" is not parsed as an int
                bad = _out_of_range("batch_size", v, m.group().strip())
                if bad is None:
                    return int(v), _blank(masked, m.start(), m.end())
                if oor is not None:
                    oor.append(bad)
                return None, _blank(masked, m.start(), m.end())
    return None, masked


def _counts(
    masked: str, gpu_mentions: Sequence[Mention], per: dict[int, int], oor: list[OutOfRange] | None = None
) -> tuple[int | None, str]:
    """The card count ("2x 3090", "two 4090s", "dual"), first one found; ``per`` gets each
    card mention's own count (by mention start) for comparisons like "2x 3090 vs 4090"."""
    found: int | None = None
    for mn in gpu_mentions:
        head = masked[max(0, mn.start - 40) : mn.start]
        m = _COUNT_BEFORE_RE.search(head)
        if m:
            raw = next((x for x in m.groups() if x), None)
            if raw is not None:
                v = _WORD_NUM.get(raw) if not raw.isdigit() else int(raw)
                # a bare number before a card is a count only when small ("8 h100s", not "2000 4090")
                bare = m.group(2) is not None or (m.group(5) is not None and m.group(5).isdigit())
                if v and 1 <= v <= (64 if bare else 1024):
                    off = mn.start - len(head)
                    masked = _blank(masked, off + m.start(), off + m.end())
                    found = found or v
                    per[mn.start] = v
                    continue
                if (
                    v is not None and m.group(1) is not None and oor is not None
                ):  # "2000x 4090": a count, absurd
                    oor.append(OutOfRange("num_gpus", m.group().strip(), 1.0, 1024.0))
                    off = mn.start - len(head)
                    masked = _blank(masked, off + m.start(), off + m.end())
                    continue
        tail = masked[mn.end : mn.end + 20]
        m2 = _COUNT_AFTER_RE.search(tail)
        if m2:
            v = int(next(x for x in m2.groups() if x))
            if 1 <= v <= 1024:
                masked = _blank(masked, mn.end + m2.start(), mn.end + m2.end())
                found = found or v
                per[mn.start] = v
            elif oor is not None:  # "4090 x 0", "4090 x 2000"
                oor.append(OutOfRange("num_gpus", m2.group().strip(), 1.0, 1024.0))
                masked = _blank(masked, mn.end + m2.start(), mn.end + m2.end())
    if found is None:
        m = _COUNT_GPUS_RE.search(masked)
        if m and m.group(0) and not m.group(0).startswith("multi"):
            raw = m.group(1) or m.group(2)
            if raw is None:
                raw = m.group(0)[0]
            v = int(raw) if raw.isdigit() else _WORD_NUM.get(raw)
            money = any(c in "$€£¥₹₩" for c in masked[max(0, m.start() - 2) : m.start()])
            if v and 1 <= v <= 64 and not money:
                found = v
                masked = _blank(masked, m.start(), m.end())
            elif v is not None and (v < 1 or v > 1024) and not money and oor is not None:
                oor.append(OutOfRange("num_gpus", m.group().strip(), 1.0, 1024.0))
                masked = _blank(masked, m.start(), m.end())
    return found, masked


class _Budget:
    def __init__(self, amount: float, code: str, text: str, start: int, end: int, strong: bool) -> None:
        self.amount, self.code, self.text, self.start, self.end, self.strong = (
            amount,
            code,
            text,
            start,
            end,
            strong,
        )


def _budgets(
    masked: str,
    cur: _Currencies,
    cjk: bool,
    unknown: list[tuple[str, str]] | None = None,
    raw: str | None = None,
) -> list[_Budget]:
    out: list[_Budget] = []
    text = _SIZE_MASK_RE.sub(lambda m: " " * len(m.group()), masked)

    def mult(g: str | None) -> float:
        return _MULT.get((g or "").strip(), 1.0)

    # an amount in a currency the rate table lacks is said (``unknown``), never read as dollars
    for code, s, e in money_read.unknown_currencies(text, raw, cur.known):
        if unknown is not None:
            unknown.append((code, text[s:e].strip()))
        text = _blank(text, s, e)
    # "½k" (NFKC "1⁄2k") and "1/2k" are $500, not $2,000
    for frac, s, e in money_read.fractions(text):
        out.append(_Budget(frac, "USD", text[s:e].strip(), s, e, True))
        text = _blank(text, s, e)

    if "INR" in cur.table:  # "₹1,00,000": Indian grouping
        for rupees, s, e in money_read.lakh_amounts(text):
            out.append(_Budget(rupees, "INR", text[s:e].strip(), s, e, True))
            text = _blank(text, s, e)
    for m in cur.pre.finditer(text):
        amount = _num(m.group(2)) * mult(m.group(3))
        code = cur.code(m.group("sym"), cjk)
        if code == "CNY" and "JPY" in cur.table and money_read.yen_hint(text, m.end()):
            code = "JPY"  # "¥200000 (yen)"
        out.append(_Budget(amount, code, m.group().strip(), m.start(), m.end(), True))
        text = _blank(text, m.start(), m.end())
    for m in cur.post.finditer(text):
        amount = _num(m.group(1)) * mult(m.group(2))
        out.append(
            _Budget(amount, cur.code(m.group("sym2"), cjk), m.group().strip(), m.start(), m.end(), True)
        )
        text = _blank(text, m.start(), m.end())
    for m in _WORD_GRAND_RE.finditer(text):
        n = {"a": 1, "one": 1}.get(m.group(1)) or _WORD_NUM.get(m.group(1), 1)
        out.append(_Budget(1000.0 * n, "USD", m.group(), m.start(), m.end(), True))
        text = _blank(text, m.start(), m.end())
    if cjk:  # "港币8000", "预算台币25000": a Chinese currency word before digits
        for amount, code, s, e in money_read.cjk_prefixed_amounts(text, cur.by_symbol):
            out.append(_Budget(amount, code, text[s:e].strip(), s, e, True))
            text = _blank(text, s, e)
        for m in _CN_AMOUNT_RE.finditer(text):
            value = _cn_amount(m)
            if value is None:
                continue
            after = text[m.end() : m.end() + 6]
            usd = re.match(r"\s*(?:美元|美金|刀|usd|dollars?)", after)
            code = "USD" if usd or "CNY" not in cur.table else "CNY"
            near = money_read.cjk_currency_near(text, m.start(), m.end(), cur.by_symbol)
            if near is not None and not usd:  # "一千英镑", "新台币三万", "五万台币"
                code = near
            out.append(_Budget(value, code, m.group().strip(), m.start(), m.end(), True))
            text = _blank(text, m.start(), m.end())
    for m in re.finditer(
        r"(?<![a-z0-9.,$])" + _NUM + r"\s*(k|grand|thousand|千|万)(?![a-z0-9])", text, re.ASCII
    ):
        code = "CNY" if (cjk and m.group(2) in ("千", "万") and "CNY" in cur.table) else "USD"
        out.append(
            _Budget(_num(m.group(1)) * mult(m.group(2)), code, m.group().strip(), m.start(), m.end(), True)
        )
        text = _blank(text, m.start(), m.end())
    for v, s, e, _cn in money_read.per_card_amounts(text):  # "800 each", "每张800": a budget per card
        code = "CNY" if (cjk and "CNY" in cur.table) else "USD"
        out.append(_Budget(v, code, text[s:e].strip(), s, e, True))
        text = _blank(text, s, e)
    for m in _CUE_NUM_RE.finditer(text):
        if _UNIT_AFTER_RE.match(text[m.end() :]):
            continue
        v = _num(m.group(1))
        cue = m.group()[: m.start(1) - m.start()].strip()
        if v < 20 or (cue in ("for", "have", "got", "about", "around") and v < 100):
            continue
        code = "CNY" if (cjk and "CNY" in cur.table) else "USD"
        out.append(_Budget(v, code, m.group(1), m.start(1), m.end(), cue.startswith("预算")))
    for m in re.finditer(r"(?<![a-z0-9.])" + _NUM + r"(?=\s*(?:以内|以下|左右|之内))", text, re.ASCII):
        code = "CNY" if "CNY" in cur.table else "USD"
        out.append(_Budget(_num(m.group(1)), code, m.group(1), m.start(), m.end(), True))
    out.sort(key=lambda b: b.start)
    return out


def _pick_budget(found: list[_Budget], masked: str) -> _Budget | None:
    if not found:
        return None
    if len(found) >= 2:
        for a, b in zip(found, found[1:], strict=False):
            if _RANGE_GAP_RE.match(masked[a.end : b.start]) or _BETWEEN_RE.search(masked[: a.start]):
                return b if b.amount >= a.amount else a
    return found[0]


def _first(patterns: Sequence[tuple[re.Pattern[str], Any]], text: str) -> Any:
    best: tuple[int, Any] | None = None
    for rx, value in patterns:
        m = rx.search(text)
        if m and (best is None or m.start() < best[0]):
            best = (m.start(), value)
    return best[1] if best else None


def _task(text: str) -> Task | None:
    if _FINETUNE_RE.search(text):
        return Task.FINETUNE
    if _TRAIN_RE.search(text):
        return Task.TRAINING
    if _INFER_RE.search(text):
        return Task.INFERENCE
    if _FINETUNED_RE.search(text):
        return Task.FINETUNE
    return None


def _short_gpu(name: str) -> str:
    words = name.split()
    while len(words) > 1 and words[0].lower() in ("nvidia", "geforce", "amd"):
        words = words[1:]
    return " ".join(words)


# ----------------------------------------------------------------- parse
def parse(text: str, catalog: Any = None, context: Context | None = None) -> Query:
    """Parse one question. Never raises: on an internal error returns an ``unknown`` Query."""
    try:
        raw = text if isinstance(text, str) else str(text)
    except Exception:
        raw = ""
    raw = raw[:MAX_TEXT]
    try:
        from bot.core.understand_time import refine  # speed / time / serving questions (issue 12)

        q = refine(_lost_budget(_with_prices(_parse(raw, catalog, context), catalog)))
        q = _with_engine_and_ram(q, catalog)  # engine and system RAM (issue 11)
        q = _with_fact(_with_card_filter(_with_context(_engine_ram_follow_up(q, context), catalog)))
        return _understand_advice.refine(q, context)  # judgement questions (issue 10)
    except Exception:  # the contract: parse never raises
        log.exception("parse failed for %r", raw[:200])
        return Query(intent=Intent.UNKNOWN, text=raw)


def _kv_cache(masked: str) -> tuple[str | None, str]:
    """The KV cache's data type ("q8 kv cache", "kv cache fp8", "KV缓存 q8"), blanked once read."""
    from bot.core.kv_cache import read

    kv, spans = read(masked)
    for a, b in spans:
        masked = _blank(masked, a, b)
    return kv, masked


def _with_context(q: Query, catalog: Any) -> Query:
    """Issue 17: "max context for X on Y" asks for the longest context; "at full context" runs the
    model at its own maximum (said in the answer); the KV cache type the engine really offers."""
    from bot.core.kv_cache import asks_full_context, asks_max_context, settle

    text = q.text.lower()
    if q.kv_cache is not None:
        kv, asked = settle(q.kv_cache, q.engine)
        if asked is not None:
            q = replace(
                q,
                kv_cache=kv,
                notes=(*q.notes, note(NoteCode.KV_CACHE_ENGINE, asked=asked, used=kv, engine=q.engine or "")),
            )
        if q.task is not None and q.task is not Task.INFERENCE:
            q = replace(q, kv_cache=None, notes=(*q.notes, note(NoteCode.KV_CACHE_TRAINING, asked=kv)))
    if q.seq_len is None and q.models and asks_full_context(text):
        cat = get_matcher(catalog).catalog
        longest = max((getattr(cat.models.get(mid), "max_seq_len", 0) or 0) for mid in q.models)
        if longest:
            q = replace(q, seq_len=int(longest))
    elif q.seq_len is None and q.models and asks_max_context(text):
        # "how long a context can I use" is not a time-to-train question
        if q.intent in (Intent.FIT, Intent.INFO, Intent.TIME, Intent.SPEED, Intent.RECOMMEND):
            intent = Intent.FIT if q.gpus else (Intent.INFO if q.intent is not Intent.RECOMMEND else q.intent)
            q = replace(q, max_context=True, intent=intent)
    return q


# issue 11: "64GB RAM", "128 GB of DDR5", "内存 64G": the asker's system RAM (not VRAM, not unified memory)
_RAM_RE = re.compile(
    r"(\d{1,4}(?:\.\d+)?)\s*(?:gb|gib|g)(?![a-z])\s*(?:of\s+)?(?:system\s+|cpu\s+)?(?:(?:ram|ddr[345]x?)\b|内存)"
    r"|(?:system\s+ram|ram|内存)\s*(?:of|is|:|：|有)?\s*(\d{1,4}(?:\.\d+)?)\s*(?:gb|gib|g)(?![a-z])",
    re.I,
)
_ENGINE_RES: dict[int, tuple[re.Pattern[str], dict[str, str]]] = {}


def _engine_pattern(catalog: Any) -> tuple[re.Pattern[str], dict[str, str]]:
    """One alternation of every engine name and alias (longest first), and name -> engine id."""
    cat = get_matcher(catalog).catalog
    key = id(cat)
    if key not in _ENGINE_RES:
        names: dict[str, str] = {}
        for e in cat.engines.values():
            for name in (e.id, e.name, *e.aliases):
                names.setdefault(name.lower(), e.id)
        alt = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
        pat = re.compile(r"(?<![a-z0-9_.])(?:" + alt + r")(?![a-z0-9_])", re.I)
        _ENGINE_RES.clear()
        _ENGINE_RES[key] = (pat, names)
    return _ENGINE_RES[key]


def _engine_ram_follow_up(q: Query, context: Context | None) -> Query:
    """ "64GB RAM" after a question (the answer asked for it) re-asks that question with the RAM;
    a follow-up keeps the RAM and engine said before."""
    last = context.last if context is not None else None
    if last is None:
        return q
    alone = q.intent is Intent.UNKNOWN and not q.models and not q.gpus
    if alone and (q.system_ram_gb is not None or q.engine is not None) and last.intent is not Intent.UNKNOWN:
        return replace(
            last,
            system_ram_gb=q.system_ram_gb if q.system_ram_gb is not None else last.system_ram_gb,
            engine=q.engine or last.engine,
            text=q.text,
            notes=(note(NoteCode.FOLLOW_UP),),
            suggestions=(),
            choices=(),
            needs_clarification=False,
            out_of_range=(),
        )
    if any(n.code is NoteCode.FOLLOW_UP for n in q.notes):
        return replace(
            q,
            system_ram_gb=q.system_ram_gb if q.system_ram_gb is not None else last.system_ram_gb,
            engine=q.engine or last.engine,
        )
    return q


def _with_engine_and_ram(q: Query, catalog: Any) -> Query:
    """The engine the question names (an engines id) and the system RAM it states."""
    text = q.text
    pat, names = _engine_pattern(catalog)
    found = pat.search(text)
    engine = names.get(found.group().lower()) if found else None
    ram = None
    m = _RAM_RE.search(text)
    if m:
        val = float(m.group(1) or m.group(2))
        if 1 <= val <= 8192:
            ram = val
    if engine is None and ram is None:
        return q
    return replace(q, engine=engine, system_ram_gb=ram)


# words without which a question says nothing about prices (keeps the price reader off the hot path)
_PRICE_GATE = re.compile(
    r"\b(?:rent\w*|lease|buy|buying|deal|bargain|worth|price[sd]?|pay|paying|cost|offer\w*|cloud|hour\w*|"
    r"kwh|electricity|used|new|resale|sell|a day|per day|/h|/hr)\b|[$€£¥₹₩]|租|买|划算|值不值|回本|二手|电费|全新|价",
    re.I,
)


# "under 000", "under $", "budget of $": a budget whose digits the shell ate ("$1000" -> "000")
_LOST_BUDGET_RE = re.compile(
    r"\b(?:under|below|less than|budget(?: of)?|max|up to|within)\s+(?:\$\s*(?=$|[\s,.?!])|0{2,}\b)", re.I
)


# a name-like word with a hyphenated part or a parameter count: "qwerty-llm-500b", "megatron-zeta 12b",
# "llama 5 400b" (each part a bounded run, so the scan stays linear)
_UNKNOWN_MODEL_RE = re.compile(
    r"\b[a-z][a-z0-9]{0,30}(?:[-_.][a-z0-9]{1,30}){1,6}\b(?:\s\d{1,4}(?:\.\d)?b\b)?"
    r"|\b[a-z][a-z0-9]{1,30}(?:\s\d{1,3})?\s\d{1,4}(?:\.\d)?b\b",
    re.ASCII,
)


def _lost_budget(q: Query) -> Query:
    m = _LOST_BUDGET_RE.search(q.text) if q.budget_usd is None else None
    if m is None:
        return q
    return replace(q, notes=(*q.notes, note(NoteCode.BUDGET_LOST_DIGITS, text=m.group().strip())))


def _with_prices(q: Query, catalog: Any) -> Query:
    """Read what the question says about prices; a rent-or-buy or deal question gets its own intent."""
    if not _PRICE_GATE.search(q.text):
        return q
    from bot.core.price_parse import PriceQuestionKind, parse_price_question

    pq = parse_price_question(q.text, get_matcher(catalog).catalog)
    said = bool(pq.kinds or pq.quotes or pq.hours_per_day or pq.kwh or pq.resale_years)
    if not (said or pq.filters.condition or pq.filters.no_cloud):
        return q
    intent = q.intent
    one_card = bool(q.gpus) or any(len(x.gpu_ids) == 1 for x in pq.quotes)
    if PriceQuestionKind.RENT_OR_BUY in pq.kinds and q.intent is not Intent.COMPARE:
        intent = Intent.RENT_OR_BUY
    elif (
        PriceQuestionKind.DEAL in pq.kinds
        and one_card
        and any(x.usd for x in pq.quotes)
        and not (q.intent is Intent.COMPARE and len(q.gpus) >= 2)  # "X at $750 vs Y at $650": a comparison
    ):
        intent = Intent.DEAL
    gpus = q.gpus
    if not gpus:
        gpus = tuple(x.gpu_ids[0] for x in pq.quotes if len(x.gpu_ids) == 1)[:2]
    quoted_usd = {round(x.usd, 2) for x in pq.quotes if x.usd}
    if q.budget_usd is not None and round(q.budget_usd, 2) in quoted_usd:
        # "I can get a 3090 for $450, ... under $600": the quote is a card's price, the limit the budget
        said_as_budget = [
            n
            for n in q.notes
            if n.code is NoteCode.BUDGET_CONVERTED and round(float(n.values.get("usd") or 0), 2) in quoted_usd
        ]
        if said_as_budget and pq.filters.max_usd is None:  # the quote's conversion is not a budget's
            q = replace(q, notes=tuple(n for n in q.notes if n not in said_as_budget))
        q = replace(q, budget_usd=pq.filters.max_usd)
    if pq.filters.no_cloud and intent is not Intent.RENT_OR_BUY:
        q = replace(q, notes=(*q.notes, note(NoteCode.NO_CLOUD)))  # issue 14: said, and applied downstream
    if intent in (Intent.RENT_OR_BUY, Intent.DEAL):
        # "is $900 a good price": the amount is the card's price, not a budget
        budget = None if intent is Intent.DEAL or not q.models else q.budget_usd
        return replace(
            q, intent=intent, gpus=gpus, price_question=pq, budget_usd=budget, needs_clarification=False
        )
    return replace(q, price_question=pq)


def _asks_price(text: str) -> bool:
    from bot.core.price_parse import asks_price  # price_parse reads this module's number patterns

    return asks_price(text)


def _unique(notes: list[Note]) -> tuple[Note, ...]:
    """The notes once each, in order: a name typed 200 times in one message is asked about
    once (a flood of repeated names once made 157 copies of three questions per query)."""
    seen: set[str] = set()
    out: list[Note] = []
    for n in notes:
        key = f"{n.code}:{n.values!r}"
        if key not in seen:
            seen.add(key)
            out.append(n)
    return tuple(out)


def _parse(raw: str, catalog: Any, context: Context | None) -> Query:
    matcher = get_matcher(catalog)
    catalog = matcher.catalog
    norm = normalize(raw)
    same_len = len(norm) == len(raw)
    cjk = bool(_CJK_RE.search(norm))
    toks = tokenize(norm)
    mentions = matcher.mentions(norm, "any", toks)
    cur = _currencies(catalog)
    if any(m.kind == "gpu" and m.text.strip().isdigit() for m in mentions):
        mentions = [m for m in mentions if not _is_money(m, norm, cur)]

    masked = norm
    for mn in mentions:
        masked = _blank(masked, mn.start, mn.end)

    notes: list[Note] = []
    suggestions: list[Note] = []
    choices: list[Choice] = []
    clarify = False

    out_of_range: list[OutOfRange] = []
    resolution, masked = _resolution(masked, out_of_range)
    kv_cache, masked = _kv_cache(masked)  # issue 17: before precision ("q8 kv cache" is not q8 weights)
    seq_len, masked = _seq_len(masked, out_of_range)
    batch, masked = _batch(masked, out_of_range)
    gpu_mentions = [m for m in mentions if m.kind == "gpu"]
    model_mentions = [m for m in mentions if m.kind == "model"]
    per_card: dict[int, int] = {}
    num_gpus, masked = _counts(masked, gpu_mentions, per_card, out_of_range)

    precision = _first(_PRECISION_RES, masked)
    method = _first(_METHOD_RES, masked)
    task = _task(masked)
    if method in (Method.LORA, Method.QLORA) or (method is Method.FULL and task is None):
        task = Task.FINETUNE if method is not Method.FULL or _FINETUNE_RE.search(masked) else task
    if method is Method.FULL and task is None:
        task = Task.TRAINING if _TRAIN_RE.search(masked) else Task.FINETUNE
    optimizer = _first(_OPTIMIZER_RES, masked)
    parallelism = _first(_PARALLEL_RES, masked)
    ckpt: bool | None = False if _CKPT_NO_RE.search(masked) else (True if _CKPT_RE.search(masked) else None)
    fused: bool | None = (
        False if _NO_FLASH_RE.search(masked) else (True if _FLASH_RE.search(masked) else None)
    )
    offload: bool | None = True if _OFFLOAD_RE.search(masked) else None
    pure_16bit: bool | None = True if _PURE_RE.search(masked) else None
    lora_targets: str | None = _first(_LORA_TARGET_RES, masked)

    unknown_money: list[tuple[str, str]] = []
    budgets = _budgets(masked, cur, cjk, unknown_money, raw if same_len else None)
    for code, written in unknown_money[:2]:
        notes.append(note(NoteCode.BUDGET_UNKNOWN_CURRENCY, currency=code, text=written))

    # ---- intent
    has_rec = bool(_RECOMMEND_RE.search(masked))
    strong_budget = [b for b in budgets if b.strong]
    size_model = None if model_mentions else _model_by_size(masked, catalog)
    n_g, n_m = len(gpu_mentions), len(model_mentions) + (1 if size_model else 0)
    list_hit = bool(_LIST_RE.search(masked))
    if list_hit and n_m == 0 and n_g <= 1:
        intent = Intent.LIST
    elif n_g == 0 and n_m == 0 and _HELP_RE.search(masked) and not budgets:
        intent = Intent.HELP
    elif n_g >= 2:
        intent = Intent.COMPARE
    elif n_g == 1 and n_m >= 1:
        if has_rec and not _FIT_STRONG_RE.search(masked) and _REC_STRONG_RE.search(masked):
            intent = Intent.RECOMMEND
        else:
            intent = Intent.FIT
    elif n_g == 1:
        intent = Intent.FIT if _FIT_STRONG_RE.search(masked) else Intent.INFO
    elif n_m >= 1:
        if has_rec or strong_budget or budgets:
            intent = Intent.RECOMMEND
        elif _FIT_RE.search(masked):
            intent = Intent.FIT
        elif _INFO_RE.search(masked) and not task:
            intent = Intent.INFO
        else:
            intent = Intent.RECOMMEND
    elif has_rec or strong_budget or (budgets and (task or precision)):
        intent = Intent.RECOMMEND
    elif _HELP_RE.search(masked):
        intent = Intent.HELP
    else:
        intent = Intent.UNKNOWN

    list_kind: str | None = None
    if intent is Intent.LIST:
        list_kind = (
            "models"
            if _LIST_MODELS_RE.search(masked) and not re.search(r"\b(?:cards|gpus)\b|显卡", masked, re.ASCII)
            else "gpus"
        )

    budget_obj: _Budget | None = None
    if budgets:
        usable = budgets if intent in (Intent.RECOMMEND, Intent.LIST, Intent.UNKNOWN) else strong_budget
        budget_obj = _pick_budget(usable, masked)
    budget_usd: float | None = None
    if budget_obj is not None:
        if budget_obj.code == "USD":
            budget_usd = budget_obj.amount
        else:
            rate = cur.table.get(budget_obj.code)
            if rate is None:
                notes.append(note(NoteCode.BUDGET_NO_RATE, text=budget_obj.text, code=budget_obj.code))
            else:
                budget_usd = round(budget_obj.amount * float(rate.usd_per_unit), 2)
                notes.append(
                    note(
                        NoteCode.BUDGET_CONVERTED,
                        text=budget_obj.text,
                        amount=budget_obj.amount,
                        code=budget_obj.code,
                        usd=budget_usd,
                        date=rate.date,
                        rate=float(rate.usd_per_unit),
                        estimated=bool(getattr(rate, "estimated", False)),
                    )
                )
        if budget_usd is not None:
            bad = _out_of_range("budget_usd", budget_usd, budget_obj.text)
            if bad is not None:  # 10^309 dollars, or a rate that makes it absurd: not used, said
                out_of_range.append(bad)
                budget_usd = None
                notes[:] = [n for n in notes if n.code is not NoteCode.BUDGET_CONVERTED]
        if budget_usd is not None and money_read.is_per_card(masked, budget_obj.start, budget_obj.end):
            # "800 each", "two cards at most $700 each", "每张800": the budget is per card
            budget_usd, per_note = money_read.per_card_total(budget_usd, num_gpus, budget_obj.text)
            bad = _out_of_range("budget_usd", budget_usd, budget_obj.text)
            if bad is not None:
                out_of_range.append(bad)
                budget_usd = None
            else:
                notes.append(note(NoteCode.BUDGET_PER_CARD, **per_note))
        if budget_usd is not None and intent is Intent.UNKNOWN:
            intent = Intent.RECOMMEND
    if unknown_money and intent is Intent.UNKNOWN:
        intent = Intent.RECOMMEND  # "a gpu under 3000 AED": a buying question, its budget said as unread

    # ---- resolve mentions (families, typos)
    base_text = raw if same_len else norm

    def rewrite(mn: Mention, replacement: str) -> str:
        return (base_text[: mn.start] + replacement + base_text[mn.end :]).strip()

    gpus: list[str] = []
    gpu_counts: list[int] = []
    gpu_spans: list[tuple[int, int, str]] = []
    models: list[str] = []
    cares = intent in (Intent.FIT, Intent.COMPARE, Intent.INFO)
    for mn in mentions:
        kind = mn.kind
        chosen: str | None = None
        if not mn.family:
            chosen = mn.ids[0]
        elif kind == "gpu":
            default, differs = matcher.family_default(mn.ids, mn.preferred)
            if differs and intent is Intent.INFO and len(mn.ids) <= 3 and _asks_price(masked):
                # "how much does renting an a100 cost per hour": every variant's price answers it
                # better than asking back which one (each is named in the answer)
                for g in mn.ids:
                    if g not in gpus:
                        gpus.append(g)
                        gpu_counts.append(1)
                continue
            if differs and cares and not matcher.has_default(mn.ids):
                clarify = True
                family_name = _short_gpu(_family_label(matcher, mn.ids) or f'"{mn.text.strip()}"')
                sizes = [_vram(matcher, g) for g in mn.ids]
                suggestions.append(note(NoteCode.ASK_GPU_VARIANT, family=family_name, sizes=sizes))
                for g in mn.ids:
                    label = _short_gpu(matcher.display_name("gpu", g))
                    if f"{_vram(matcher, g)} gb" not in label.lower().replace("gb", " gb").replace("  ", " "):
                        label = f"{label} {_vram(matcher, g)} GB"
                    choices.append(Choice(label=label, text=rewrite(mn, label), id=g))
            else:
                chosen = default
                also = [_short_gpu(matcher.display_name("gpu", g)) for g in mn.ids if g != default]
                notes.append(
                    note(
                        NoteCode.TOOK_GPU,
                        typed=mn.text.strip(),
                        chosen=_short_gpu(matcher.display_name("gpu", default)),
                        same_memory=not differs,
                        also=also,
                    )
                )
        else:
            pick, why = pick_model(matcher, mn.ids)
            if pick:
                chosen = pick
                others = [matcher.display_name("model", i) for i in mn.ids if i != pick]
                notes.append(
                    note(
                        NoteCode.TOOK_MODEL,
                        typed=mn.text.strip(),
                        chosen=matcher.display_name("model", pick),
                        same_size=why == "same size",
                        others=others,
                    )
                )
            else:
                clarify = True
                ask_ids = sorted(
                    mn.ids,
                    key=lambda i: str(getattr(matcher.entry("model", i), "release", "") or ""),
                    reverse=True,
                )[:5]
                names = [matcher.display_name("model", i) for i in ask_ids]
                suggestions.append(note(NoteCode.ASK_MODEL, typed=mn.text.strip(), names=names))
                choices.extend(
                    Choice(label=n[:80], text=rewrite(mn, n), id=i)
                    for n, i in zip(names, ask_ids, strict=True)
                )
        if chosen is None:
            continue
        if kind == "model" and not mn.family and not mn.corrected:
            alts = matcher.alternatives(mn.text)
            if alts:
                others = [matcher.display_name("model", i) for i in alts[:3]]
                notes.append(
                    note(
                        NoteCode.TOOK_MODEL_ALSO,
                        typed=mn.text.strip(),
                        chosen=matcher.display_name("model", chosen),
                        others=others,
                    )
                )
        if mn.corrected:
            typed = base_text[mn.start : mn.end].strip()
            name = matcher.display_name(kind, chosen)
            notes.append(note(NoteCode.CORRECTED, typed=typed, name=name))
            near = matcher.suggest(typed, "gpu" if kind == "gpu" else "model", limit=3)
            alt_ids = [chosen] + [m.id for m in near if m.id != chosen]
            suggestions.append(note(NoteCode.DID_YOU_MEAN, names=[name]))
            for i in alt_ids[:3]:
                n = matcher.display_name(kind, i)
                choices.append(Choice(label=n[:80], text=rewrite(mn, n), id=i))
        target = gpus if kind == "gpu" else models
        if kind == "gpu":
            gpu_spans.append((mn.start, mn.end, chosen))  # several cards: bot.core.understand_multi
        if chosen not in target:
            target.append(chosen)
            if kind == "gpu":
                gpu_counts.append(per_card.get(mn.start, 1))

    # "a 7b model", "70B LLM": a typical dense decoder of that size stands in for it
    if size_model is not None and not models:
        mid, size = size_model
        models.append(mid)
        notes.append(note(NoteCode.SIZE_MODEL, size=size, name=matcher.display_name("model", mid)))

    # unknown names that look like a model ("qwerty-llm-500b", "megatron-zeta 12b", "llama 5 400b"): say so
    if not models:
        for m in _UNKNOWN_MODEL_RE.finditer(masked):
            word = m.group().strip()
            head = word.split()[0].split("-")[0]
            if head in STOP_WORDS or head in ("a", "an", "the", "my", "for", "of", "on", "with", "and"):
                continue
            if any(c.isdigit() for c in word) and not re.fullmatch(
                r"(?:fp|bf|int|q|nf|sm)\d+|\d+[-_.]?bit", word, re.ASCII
            ):
                notes.append(note(NoteCode.UNKNOWN_NAME, word=word))
                near = [x for x in matcher.suggest(word, "any", limit=3) if x.score >= 75]
                if near:
                    suggestions.append(note(NoteCode.DID_YOU_MEAN, names=[x.name for x in near]))
                break

    # counts
    n_count = num_gpus or 1

    q = Query(
        intent=intent,
        models=tuple(models),
        gpus=tuple(gpus),
        budget_usd=budget_usd,
        task=task,
        method=method,
        precision=precision,
        batch_size=batch,
        seq_len=seq_len,
        num_gpus=n_count,
        parallelism=parallelism,
        optimizer=optimizer,
        grad_checkpointing=ckpt,
        fused_attention=fused,
        resolution=resolution,
        offload=offload,
        # per-card counts only where they differ between the cards compared ("2x 3090 vs 4090")
        gpu_counts=tuple(gpu_counts) if len(gpus) >= 2 and len(set(gpu_counts)) > 1 else (),
        list_kind=list_kind,
        text=raw,
        notes=_unique(notes),
        suggestions=_unique(suggestions),
        choices=tuple(choices[:25]),
        needs_clarification=clarify,
        pure_16bit=pure_16bit,
        lora_targets=lora_targets,
        out_of_range=tuple(out_of_range),
        kv_cache=kv_cache,
    )

    q = _understand_multi.refine(
        q,
        norm,
        gpu_spans,
        per_card,
        lambda t: _model_by_size(t, catalog),
        lambda mid: matcher.display_name("model", mid),
    )

    # ---- follow-ups: the conversation's state decides (bot.core.conversation)
    from bot.core import conversation

    last = context.last if context is not None else None
    if last is not None and intent is not Intent.LIST:  # HELP too: "seq 512?" masks to a bare "?"
        own_intent = bool(
            has_rec
            or _FIT_RE.search(masked)
            or _INFO_RE.search(masked)
            or _COMPARE_RE.search(masked)
            or list_hit
        )
        turn = conversation.Turn(
            text=norm,
            own_intent=own_intent,
            opener=bool(_FOLLOWUP_OPENER_RE.search(norm)),
            strong_opener=bool(_FOLLOWUP_STRONG_RE.search(norm)),
            names_model=bool(model_mentions),
            names_card=bool(gpu_mentions),
            states_something=bool(
                budgets
                or gpu_mentions
                or task
                or precision
                or method
                or batch
                or seq_len
                or num_gpus
                or kv_cache is not None  # "and with q8 kv cache?"
            ),
            count_stated=num_gpus is not None,
            fit_words=bool(_FIT_STRONG_RE.search(masked)) and not has_rec,
        )
        q = conversation.follow_up(last, q, turn, catalog, context.shown_usd if context else ())
    return q


_MONEY_BEFORE_RE = _rx(
    r"(?:\bunder|\bbelow|\bless than|\bmax(?:imum)?|\bup ?to|\bwithin|\bbudget(?:\s+(?:of|is|around|about|at))?|"
    r"<=?|\bat most|\bno more than|预算(?:是|为|有)?|不超过|最多|预算[^\d，,。]{1,6})\s*:?\s*$"
)


_SIZE_MODEL_RE = _rx(
    r"\b(\d{1,3}(?:\.\d)?)\s?b(?:illion)?(?:[\s-]+(?:param(?:eter)?s?|dense))?[\s-]+(?:model|llm|language model|transformer)s?\b"
    r"|\b(?:model|llm)s?\s+(?:of|with)\s+(\d{1,3}(?:\.\d)?)\s?b(?:illion)?\b"
    # "13B QLoRA", "7b lora", "70b inference" (issue 10: compare verdicts for the workload asked)
    r"|\b(\d{1,3}(?:\.\d)?)\s?b[\s-]+(?:q?lora|fine[\s-]?tun\w*|inference)\b"
)


def _model_by_size(masked: str, catalog: Any) -> tuple[str, float] | None:
    """ "a 7b model" -> the dense decoder whose size is nearest (within 15%), newest on ties."""
    m = _SIZE_MODEL_RE.search(masked)
    if m is None:
        return None
    size = float(m.group(1) or m.group(2) or m.group(3))
    if not 0.1 <= size <= 1000:
        return None
    best: tuple[float, str, str] | None = None
    for mid, model in catalog.models.items():
        if getattr(model, "kind", None) != "decoder" or getattr(model, "base_model", None):
            continue  # fine-tunes / distills (base_model set) are not a typical model of a size
        gap = abs(model.params / 1e9 - size) / size
        key = (round(gap, 2), -(int((getattr(model, "release", None) or "0").replace("-", "") or 0)))
        if gap <= 0.15 and (best is None or key < (best[0], best[1])):
            best = (key[0], key[1], mid)  # type: ignore[assignment]
    return (best[2], size) if best else None


def _is_money(mn: Mention, norm: str, cur: _Currencies) -> bool:
    """A bare card number that is really an amount: "¥8000", "6000 euros", "under 8000"."""
    if mn.kind != "gpu" or not mn.text.strip().isdigit():
        return False
    for rx in (cur.pre, cur.post):
        for m in rx.finditer(norm, max(0, mn.start - 6), min(len(norm), mn.end + 16)):
            if m.start() <= mn.start and m.end() >= mn.end:
                return True
    if _MONEY_BEFORE_RE.search(norm[max(0, mn.start - 30) : mn.start]):
        return True
    # "港币8000": right after a Chinese currency word
    return bool(money_read.cjk_prefixed_amounts(norm[max(0, mn.start - 6) : mn.end + 2], cur.by_symbol))


def _family_label(matcher: Matcher, ids: Sequence[str]) -> str:
    """What the members' names share ("A100", "Tesla V100"), without form factor."""
    names = [_short_gpu(matcher.display_name("gpu", g)) for g in ids]
    common = names[0].split()
    for n in names[1:]:
        w = n.split()
        k = 0
        while k < min(len(common), len(w)) and common[k] == w[k]:
            k += 1
        common = common[:k]
    while len(common) > 1 and common[-1].lower().rstrip("0123456789") in ("sxm", "pcie", "pci"):
        common = common[:-1]
    return " ".join(common)


def _vram(matcher: Matcher, gid: str) -> str:
    v = getattr(matcher.entry("gpu", gid), "vram_gb", None)
    return f"{v:g}" if isinstance(v, int | float) else "?"


_FILTER_INTENTS = (Intent.RECOMMEND, Intent.LIST, Intent.UNKNOWN, Intent.INFO, Intent.FIT, Intent.FILTER)


def _with_card_filter(q: Query) -> Query:
    """Constraints on the cards' specs with no model or card named: a filter question (issue 10)."""
    from bot.core import filters

    if q.models or q.intent not in _FILTER_INTENTS:
        return q
    follow = q.intent is Intent.FILTER and any(n.code is NoteCode.FOLLOW_UP for n in q.notes)
    cf = filters.read(q.text + (" cards" if follow else ""))
    if cf is None:
        return q
    if q.gpus and not follow:
        return q
    if follow and q.card_filter is not None:
        cf = filters.combine(q.card_filter, cf)
    extra = tuple(note(NoteCode.FILTER_UNKNOWN_FIELD, field=f) for f in cf.unknown)
    return replace(q, intent=Intent.FILTER, gpus=(), card_filter=cf, notes=q.notes + extra)


def _with_fact(q: Query) -> Query:
    """ "how many attention heads does mistral 7b have", "4090 tdp": one fact about one model or card is
    an info question, not a buying list (bot.core.facts; issue 10)."""
    from bot.core import facts

    if q.budget_usd is not None or q.needs_clarification or bool(q.models) == bool(q.gpus):
        return q
    text = q.text.lower()
    if q.models and q.intent in (Intent.RECOMMEND, Intent.UNKNOWN):
        if _REC_STRONG_RE.search(text) or not facts.asked(text, True, False):
            return q
        return replace(q, intent=Intent.INFO)
    if q.gpus and q.intent in (Intent.FIT, Intent.UNKNOWN):
        if _FIT_STRONG_RE.search(text) or not facts.asked(text, False, True):
            return q
        return replace(q, intent=Intent.INFO)
    return q
