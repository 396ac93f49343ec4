"""What kind of question it is, from the names found and the intent words (English and Chinese).

``decide`` weighs the counts of cards and models named, the budgets read and the task against
the intent patterns: two cards compare, a card and a model ask whether it fits (unless they ask
which card to buy), a model with a budget asks for a recommendation, and so on. Later steps of
:mod:`bot.core.parsing` refine it (prices, speed and time, filters, facts).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.core.quick_init import quick_init
from bot.core.types import Intent, Precision, Task
from bot.core.understand.text import rx as _rx

__all__ = ["FIT_RE", "FIT_STRONG_RE", "REC_STRONG_RE", "Read", "decide", "names_own_intent"]

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
    r"\b(?:vram|memory)\s*(?:needed|required|requirements?|usage)?\s*\??\s*$|"
    r"能跑|能不能|可以跑|跑得动|跑得了|能否|够不够|够吗|够用|装得下|放得下|需要多少|最大\s*batch|最大批|能训练|能微调|可以训练|"
    r"(?:要|需要)?多大(?:的)?显存|(?:要|需要)?多少显存|显存(?:要|需要)多少"
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
    r"用什么|推荐|买什么|选什么|哪张|哪款|什么显卡|什么卡|哪个显卡|该买|配什么|买哪|买啥|选啥|用啥卡|啥卡|"
    # issue 10: value without an amount ("性价比最高的显卡", "便宜的显卡", "入门显卡")
    r"性价比[^，。？?！!]{0,8}(?:显卡|卡|gpu)|性價比[^，。？?！!]{0,8}(?:顯卡|卡|gpu)|便宜[^，。？?！!]{0,4}(?:显卡|卡)|入门级?(?:显卡|卡)"
)
_FOLLOWUP_OPENER_RE = _rx(
    r"^\W*(?:and|what about|how about|with|in|under|below|same|then|also|now|ok(?:ay)?|but|using|at)\b|^\W*那|^\W*如果|^\W*换成|^\W*用"
)
_FOLLOWUP_STRONG_RE = _rx(r"^\W*(?:and|what about|how about|same|then)\b|^\W*那")

_REC_STRONG_RE = _rx(
    r"\b(?:what|which|best|recommend\w*)\b[^.?!]{0,25}\b(?:gpus?|cards?)\b|推荐|用什么|买什么|instead of|upgrade"
)

FIT_RE = _FIT_RE
FIT_STRONG_RE = _FIT_STRONG_RE
REC_STRONG_RE = _REC_STRONG_RE
FOLLOWUP_OPENER_RE = _FOLLOWUP_OPENER_RE
FOLLOWUP_STRONG_RE = _FOLLOWUP_STRONG_RE


@quick_init
@dataclass(frozen=True, slots=True)
class Read:
    intent: Intent
    list_kind: str | None  # "models" | "gpus" for a list question
    # recommendation words ("what gpu", "best card", "推荐") and list words: None when ``decide`` did not
    # need them (only a follow-up does): read then by :func:`asks_recommend` / :func:`asks_list`
    asks_recommend: bool | None
    asks_list: bool | None


def decide(
    masked: str,
    n_gpus: int,
    n_models: int,
    has_budget: bool,
    strong_budget: bool,
    task: Task | None,
    precision: Precision | None,
) -> Read:
    """The intent from what was named (``n_gpus`` cards, ``n_models`` models) and the words (each
    pattern searched only where the intent depends on it)."""
    has_rec: bool | None = None
    list_hit: bool | None = None
    if n_models == 0 and n_gpus <= 1:
        list_hit = _LIST_RE.search(masked) is not None
    if list_hit:
        intent = Intent.LIST
    elif n_gpus == 0 and n_models == 0 and not has_budget and _HELP_RE.search(masked):
        intent = Intent.HELP
    elif n_gpus >= 2:
        intent = Intent.COMPARE
    elif n_gpus == 1 and n_models >= 1:
        if _FIT_STRONG_RE.search(masked) is None and _REC_STRONG_RE.search(masked) is not None:
            has_rec = _RECOMMEND_RE.search(masked) is not None
            intent = Intent.RECOMMEND if has_rec else Intent.FIT
        else:
            intent = Intent.FIT
    elif n_gpus == 1:
        intent = Intent.FIT if _FIT_STRONG_RE.search(masked) else Intent.INFO
    elif n_models >= 1:
        if has_budget:
            intent = Intent.RECOMMEND
        elif has_rec := _RECOMMEND_RE.search(masked) is not None:
            intent = Intent.RECOMMEND
        elif _FIT_RE.search(masked):
            intent = Intent.FIT
        elif _INFO_RE.search(masked) and not task:
            intent = Intent.INFO
        else:
            intent = Intent.RECOMMEND
    elif (
        (has_rec := _RECOMMEND_RE.search(masked) is not None)
        or strong_budget
        or (has_budget and (task or precision))
    ):
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
    return Read(intent, list_kind, has_rec, list_hit)


def asks_recommend(masked: str, read: Read) -> bool:
    """Whether the text has recommendation words ("what gpu", "best card", "推荐")."""
    if read.asks_recommend is not None:
        return read.asks_recommend
    return _RECOMMEND_RE.search(masked) is not None


def asks_list(masked: str, read: Read) -> bool:
    """Whether the text asks for a list of the cards or models known."""
    if read.asks_list is not None:
        return read.asks_list
    return _LIST_RE.search(masked) is not None


def names_own_intent(masked: str, read: Read) -> bool:
    """Whether the text says what it asks (so a follow-up does not inherit the last intent)."""
    return bool(
        asks_recommend(masked, read)
        or asks_list(masked, read)
        or _FIT_RE.search(masked)
        or _INFO_RE.search(masked)
        or _COMPARE_RE.search(masked)
    )
