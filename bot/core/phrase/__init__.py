"""The phrasing layer: typed results in, sentences in the reply's language out.

``phrase(result, query, env)`` writes the verdict, details, assumptions and
basis of a reply from a ``bot.core.results`` result, with every sentence
taken from the message catalog of ``env.lang`` (``locales/*.po``) and every
number formatted by Babel. It never calls the engine: a test walks this
package's imports to hold that.
"""

from __future__ import annotations

from bot.core.phrase import multi as _multi_phrase
from bot.core.phrase import prices
from bot.core.phrase import speed as _speed_phrase
from bot.core.phrase.advice import advice as _advice
from bot.core.phrase.catalog import t, to_traditional
from bot.core.phrase.common import Env, note_line
from bot.core.phrase.facts import with_facts
from bot.core.phrase.filters import filtered
from bot.core.phrase.picks import model_picks
from bot.core.phrase.replies import (
    Phrased,
    compare,
    fit,
    fit_alone,
    general,
    help_,
    info,
    listing,
    recommend,
    unknown,
)
from bot.core.results import (
    AdviceResult,
    AskBackResult,
    CompareResult,
    DealResult,
    FailedResult,
    FilterResult,
    FitAloneResult,
    FitResult,
    GeneralResult,
    HelpResult,
    InfoResult,
    ListResult,
    ModelPicksResult,
    MultiResult,
    RecommendResult,
    RentBuyResult,
    Result,
    ServeResult,
    SpeedResult,
    TimeResult,
    UnknownResult,
    WhichCardResult,
)
from bot.core.types import Note, Query

__all__ = ["Env", "Phrased", "phrase", "phrase_notes", "note_line", "t", "to_traditional"]


def phrase(result: Result, q: Query, env: Env) -> Phrased:
    if isinstance(result, FitResult):
        out = fit(env, result)
    elif isinstance(result, FitAloneResult):
        out = fit_alone(env, result)
    elif isinstance(result, RecommendResult):
        out = recommend(env, result)
    elif isinstance(result, GeneralResult):
        out = general(env, result)
    elif isinstance(result, CompareResult):
        out = compare(env, result)
    elif isinstance(result, InfoResult):
        out = info(env, result)
        if result.facts:  # the fact asked leads (issue 10)
            out = with_facts(env, result, out)
    elif isinstance(result, ListResult):
        out = listing(env, result)
    elif isinstance(result, HelpResult):
        out = help_(env, result)
    elif isinstance(result, UnknownResult):
        out = unknown(env, result)
    elif isinstance(result, AskBackResult):
        asks = phrase_notes(env, q.suggestions)
        out = Phrased(verdict=asks[0] if asks else t(env.lang, "ask.which"))
    elif isinstance(result, RentBuyResult):
        out = prices.rent_buy(env, result)
    elif isinstance(result, DealResult):
        out = prices.deal(env, result)
    elif isinstance(result, WhichCardResult):
        out = prices.which_card(env, result)
    elif isinstance(result, FailedResult):
        out = Phrased(verdict=t(env.lang, "error.sorry"))
    elif isinstance(result, ModelPicksResult):  # issue 17: best models for a card and a task
        return model_picks(env, result)
    elif isinstance(result, FilterResult):  # issue 10
        out = filtered(env, result)
    elif isinstance(result, SpeedResult | TimeResult | ServeResult):
        if isinstance(result, SpeedResult):
            out = _speed_phrase.speed(env, result)
        elif isinstance(result, TimeResult):
            out = _speed_phrase.time(env, result)
        else:
            out = _speed_phrase.serve(env, result)
    elif isinstance(result, MultiResult):  # several cards (issues 10, 17)
        out = _multi_phrase.multi(env, result)
    elif isinstance(result, AdviceResult):  # judgement questions (issue 10)
        out = _advice(env, result)
    else:  # pragma: no cover - every result type is handled above
        raise TypeError(type(result).__name__)
    return out


def phrase_notes(env: Env, notes: tuple[Note, ...]) -> list[str]:
    return [note_line(env, n) for n in notes]
