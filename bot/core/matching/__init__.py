"""Name matching: card and model names (and aliases) in free text.

One :class:`Matcher` is built per catalog (cheap: a few dicts). It answers

* :meth:`Matcher.resolve` / :meth:`Matcher.suggest` for one typed name
  (slash-command options, "did you mean"),
* :meth:`Matcher.autocomplete` for Discord slash autocomplete,
* :meth:`Matcher.mentions` for the parser: every card / model named in a
  question, in order, with where it sits in the text.

How a name is matched, cheapest and safest first:

1. **Normalisation** (:func:`tokens`): NFKC + lowercase; split on anything
   that is not a letter or digit; split letter runs from digit runs
   (``rtx4090`` -> ``rtx 4090``, ``qwen2.5-14b`` -> ``qwen 2.5 14 b``) except
   a single letter glued to a number stays one token (``a100``, ``l4``,
   ``v3``, ``b16``) so that "a 100 dollar card" never reads as an A100;
   ``10g`` / ``10 gigs`` -> ``10 gb``.
2. **Exact keys**: every name, alias and id of the catalog, plus keys derived
   for cards by dropping vendor words (``nvidia``, ``geforce``, ``rtx``, ...)
   and filler (``generation``). A key is looked up spaced and compact
   (``distil bert`` == ``distilbert``). Longest match wins, so ``4070 ti
   super`` is never ``4070 ti`` and ``3090`` never becomes ``3090 ti``.
3. **Variant families** (cards): cards whose names differ only in memory size
   or form factor (``A100 40GB`` / ``A100 80GB``, ``H100 SXM`` / ``H100 PCIe``)
   form a family, found from the catalog names, not from a list. A bare
   family name ("a100") is reported as a family mention with every member;
   the parser decides (ask back when the members' ``vram_gb`` differ and the
   intent cares). A memory size next to the name ("a100 80gb", "16gb 4060
   ti") picks the member, or the members with that memory. :data:`DEFAULT_VARIANTS` is the one
   explicit table: families where one member is clearly the card people mean. Product lines
   ("mac studio", "macbook pro": aliases "<product> <chip>" whose "<chip>" is another alias of the
   entry) and :data:`AMBIGUOUS_NAMES` ("rtx 6000", a bare "6000") are families too.
4. **Partial model names**: "llama 8b", "bert", "resnet" match every model
   having all those tokens in one of its keys; the parser picks (same size ->
   the most recent, a ``base`` member -> it) or asks back. Name words after an
   exact short name that read other models ("mistral large": Mistral Large 2 and
   3, not the "mistral" alias of Mistral 7B) make a partial name of those.
5. **Typos**: an unknown word (not a stop word, 4+ letters) is corrected to
   the nearest word of the catalog vocabulary (rapidfuzz ``ratio`` with
   ``default_process``, cutoff :data:`WORD_CUTOFF`, same first letter) and the
   exact/partial steps are run again. Numbers are never fuzzy-matched:
   fuzzy scores on short numeric strings are meaningless, so "3091" matches
   nothing and "llama 3 8b" can never become "llama 3 70b".
"""

from bot.core.matching.index import (
    AMBIGUOUS_NAMES,
    DEFAULT_VARIANTS,
    WORD_CUTOFF,
    Match,
    Mention,
)
from bot.core.matching.lookup import Matcher, get_matcher, pick_model
from bot.core.matching.text import STOP_WORDS, Kind, Token, normalize, tokenize, tokens

__all__ = [
    "AMBIGUOUS_NAMES",
    "DEFAULT_VARIANTS",
    "STOP_WORDS",
    "WORD_CUTOFF",
    "Kind",
    "Match",
    "Matcher",
    "Mention",
    "Token",
    "get_matcher",
    "normalize",
    "pick_model",
    "tokenize",
    "tokens",
]
