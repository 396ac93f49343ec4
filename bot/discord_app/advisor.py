"""The glue every Discord surface shares: context, cooldown, answer(), and
turning an Answer into what a message or an interaction sends.

No domain rules here: questions go to ``bot.core.answer.answer`` unchanged
(cut to a sane length), and whatever it returns is rendered.

Holding up under floods and faults (sizes in :class:`bot.config.Bounds`):

- answers and charts run off the event loop in :class:`AnswerPool`: a few
  worker threads, a bounded queue ordered so that short questions are not
  stuck behind a flood of long ones, and a time limit per question
  (:data:`TOO_COMPLEX` is the reply when it is hit);
- every store is bounded (contexts in bytes, live button views, cooldowns,
  notices, replies by question); choices are kept as one copy of the
  question plus what each choice changes;
- :func:`deliver` retries a reply on 429 / 5xx / network errors with backoff
  that honours Retry-After, on top of discord.py's own retries, within a
  deadline; then an apology is retried the same way;
- rate limiting tells people: :meth:`Advisor.rate` says whether to answer,
  send the notice (the first limited question in a window: it says when to
  ask again) or collapse (a reaction on the message, never silence).
"""

from __future__ import annotations

import asyncio
import heapq
import io
import itertools
import logging
import random
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any, TypeVar

import aiohttp
import discord
from cachetools import LRUCache, TTLCache

from bot.config import Bounds, Settings
from bot.core.phrase.catalog import t
from bot.core.types import Answer, Choice, Context, Intent, Lang, Query

from .chart import CHART_FILENAME, render_chart
from .context_store import CompactChoices, ContextStore, Cooldown, Notices
from .embeds import build_embed, plain_text, truncate, wants_chart

if TYPE_CHECKING:
    from bot.core.rig import Rig
    from bot.storage import GuildSettings, Store

__all__ = [
    "APOLOGY",
    "BUSY",
    "TOO_COMPLEX",
    "RATE_LIMITED_REACTION",
    "Advisor",
    "AnswerPool",
    "AnswerTimeout",
    "ChoicesView",
    "MAX_QUESTION_CHARS",
    "NO_MENTIONS",
    "PoolBusy",
    "Rate",
    "RateDecision",
    "Reply",
    "PriorityGate",
    "deliver",
    "rate_notice",
]

log = logging.getLogger(__name__)

MAX_QUESTION_CHARS = 1000
NO_MENTIONS = discord.AllowedMentions.none()
# English defaults of the notices; every surface says them in the asker's language (catalog keys discord.*)
APOLOGY = t(Lang.EN, "discord.apology")
TOO_COMPLEX = t(
    Lang.EN, "discord.too_complex"
)  # the reply to a question that hit the per-question time limit
BUSY = t(Lang.EN, "discord.busy")
RATE_LIMITED_REACTION = "\N{HOURGLASS WITH FLOWING SAND}"

AnswerFn = Callable[..., Answer]
T = TypeVar("T")


def _default_answer_fn() -> AnswerFn:
    from bot.core.answer import answer

    return answer


# -- rate limiting -------------------------------------------------------------------


class Rate(StrEnum):
    ALLOWED = "allowed"  # answer it
    NOTICE = "notice"  # the first limited question in this window: tell them when to ask again
    COLLAPSED = "collapsed"  # later ones in the window: a reaction on the message (never silence)


@dataclass(frozen=True)
class RateDecision:
    rate: Rate
    retry_after_s: float = 0.0


def rate_notice(decision: RateDecision, lang: Lang = Lang.EN) -> str:
    """The notice for ``Rate.NOTICE``, from the message catalog: when to ask again."""
    return t(lang, "discord.cooldown", s=max(1, round(decision.retry_after_s)))


# -- the worker pool -----------------------------------------------------------------


class AnswerTimeout(Exception):
    """The question hit the per-question time limit."""


class PoolBusy(Exception):
    """Too many questions are waiting; this one was not queued."""


class AnswerPool:
    """Runs CPU work (answer(), charts) in ``workers`` threads, never on the event loop.

    Jobs wait in a bounded priority queue ordered by a virtual arrival time: arrival +
    ``delay_per_1000_chars_s`` x length / 1000, so a short question asked during a flood of
    long ones is answered first, and a long one is never starved (its virtual time passes).
    ``run`` waits at most ``time_limit`` for the job once it has started; a job past its
    limit keeps its thread until it ends (Python cannot stop a thread), which is why every
    job is bounded by construction (clipped input, linear-time patterns).
    """

    def __init__(
        self,
        *,
        workers: int = 2,
        max_pending: int = 4_000,
        delay_per_1000_chars_s: float = 10.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.workers = max(1, workers)
        self.max_pending = max_pending
        self.delay_per_char = delay_per_1000_chars_s / 1000.0
        self._clock = clock
        self._executor: ThreadPoolExecutor | None = None
        self._heap: list[tuple[float, int, asyncio.Future[Any], Callable[[], Any]]] = []
        self._seq = itertools.count()
        self._running = 0

    @property
    def pending(self) -> int:
        return len(self._heap)

    @property
    def busy(self) -> bool:
        """True when a new job would have to wait for a worker."""
        return self._running >= self.workers or bool(self._heap)

    def _pool(self) -> ThreadPoolExecutor:
        if self._executor is None:
            self._executor = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="answer")
        return self._executor

    def shutdown(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None

    async def run(self, fn: Callable[[], T], *, cost_chars: int = 0, time_limit: float = 10.0) -> T:
        """Queue ``fn``; return its result. Raises PoolBusy, AnswerTimeout, or what ``fn`` raised."""
        loop = asyncio.get_running_loop()
        if len(self._heap) >= self.max_pending:
            raise PoolBusy
        started: asyncio.Future[Any] = loop.create_future()
        key = self._clock() + self.delay_per_char * max(0, cost_chars)
        heapq.heappush(self._heap, (key, next(self._seq), started, fn))
        self._dispatch(loop)
        try:
            inner = await started  # the executor's future, once a worker took the job
        except asyncio.CancelledError:
            started.cancel()  # still queued: the dispatcher skips it
            raise
        try:
            return await asyncio.wait_for(asyncio.shield(inner), time_limit)
        except TimeoutError:
            raise AnswerTimeout from None

    def _dispatch(self, loop: asyncio.AbstractEventLoop) -> None:
        while self._running < self.workers and self._heap:
            _, _, started, fn = heapq.heappop(self._heap)
            if started.done():  # cancelled while queued (its message was deleted, ...)
                continue
            self._running += 1
            inner = loop.run_in_executor(self._pool(), fn)
            inner.add_done_callback(lambda _f: self._finished(loop))
            started.set_result(inner)

    def _finished(self, loop: asyncio.AbstractEventLoop) -> None:
        self._running -= 1
        self._dispatch(loop)


class PriorityGate:
    """At most ``slots`` operations at once, the waiting ones ordered like the
    :class:`AnswerPool` (arrival + a delay per 1,000 characters of their question).

    Used twice: for database operations (when a flood of long questions is reading and
    writing its saved state, a short question's read goes first instead of queueing behind
    all of theirs in the connection pool), and for messages being answered (a flood waits
    here as messages, not as answers written and waiting to be sent, so memory stays
    bounded, and an unrelated short question overtakes it).

    ``reserved`` slots are kept for short operations (``cost_chars`` at most
    ``short_chars``): a slot of the message gate is held while the reply is sent, and a
    flood in one channel sends at Discord's per-channel pace, so without a reserve an
    unrelated short question would wait for one of the flood's replies to go out."""

    def __init__(
        self,
        slots: int = 4,
        *,
        delay_per_1000_chars_s: float = 10.0,
        reserved: int = 0,
        short_chars: int = 300,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.slots = max(1, slots)
        self.reserved = max(0, min(reserved, self.slots - 1))
        self.short_chars = short_chars
        self.delay_per_char = delay_per_1000_chars_s / 1000.0
        self._clock = clock
        self._busy = 0
        # short and long waiters apart, each a heap of (key, seq, turn): the reserve serves
        # the short ones without scanning past long ones
        self._short: list[tuple[float, int, asyncio.Future[None]]] = []
        self._long: list[tuple[float, int, asyncio.Future[None]]] = []
        self._seq = itertools.count()

    @property
    def waiting(self) -> int:
        return len(self._short) + len(self._long)

    def _is_short(self, cost_chars: int) -> bool:
        return cost_chars <= self.short_chars

    async def run(self, op: Callable[[], Awaitable[T]], *, cost_chars: int = 0) -> T:
        short = self._is_short(cost_chars)
        limit = self.slots if short else self.slots - self.reserved
        queue = self._short if short else self._long
        if self._busy < limit and not queue:
            self._busy += 1
        else:
            turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            key = self._clock() + self.delay_per_char * max(0, cost_chars)
            heapq.heappush(queue, (key, next(self._seq), turn))
            try:
                await turn
            except asyncio.CancelledError:
                if turn.done() and not turn.cancelled():
                    self._release()  # the slot was handed to us just as we were cancelled
                raise
        try:
            return await op()
        finally:
            self._release()

    @staticmethod
    def _top(heap: list[tuple[float, int, asyncio.Future[None]]]) -> tuple[float, int] | None:
        while heap and heap[0][2].done():  # cancelled while waiting
            heapq.heappop(heap)
        return heap[0][:2] if heap else None

    def _release(self) -> None:
        self._busy -= 1
        while True:
            s, lg = self._top(self._short), self._top(self._long)
            long_ok = lg is not None and self._busy < self.slots - self.reserved
            short_ok = s is not None and self._busy < self.slots
            if short_ok and (not long_ok or s <= lg):  # type: ignore[operator]
                heap = self._short
            elif long_ok:
                heap = self._long
            else:
                return
            _, _, turn = heapq.heappop(heap)
            self._busy += 1
            turn.set_result(None)  # the slot passes to the next in line


# -- sending with retries ------------------------------------------------------------


def _retry_after(exc: BaseException) -> float | None:
    """Seconds Discord asked us to wait (Retry-After header or body), if it said."""
    if isinstance(exc, discord.RateLimited):
        return float(exc.retry_after)
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None) or {}
    for name in ("Retry-After", "X-RateLimit-Reset-After"):
        try:
            value = headers.get(name)
            if value is not None:
                return max(0.0, float(value))
        except (TypeError, ValueError):
            continue
    text = getattr(exc, "text", "") or ""
    if "retry_after" in text:
        try:
            import json

            return max(0.0, float(json.loads(text)["retry_after"]))
        except Exception:
            return None
    return None


def retryable(exc: BaseException) -> bool:
    if isinstance(exc, discord.RateLimited):
        return True
    if isinstance(exc, discord.HTTPException):
        return exc.status == 429 or exc.status >= 500 or exc.status == 0
    return isinstance(exc, aiohttp.ClientError | asyncio.TimeoutError | ConnectionError | OSError)


async def deliver(
    op: Callable[[], Awaitable[T]],
    *,
    bounds: Bounds,
    what: str,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
) -> T:
    """``await op()``, retried on 429 / 5xx / network errors with exponential backoff
    (honouring Retry-After) up to ``reply_attempts`` times within ``reply_deadline_s``.
    Other errors (400, 403, 404) are raised at once: retrying cannot help."""
    start = clock()
    delay = bounds.reply_backoff_s
    attempt = 0
    while True:
        attempt += 1
        try:
            return await op()
        except Exception as exc:
            if not retryable(exc) or attempt >= bounds.reply_attempts:
                raise
            asked = _retry_after(exc)
            wait = asked if asked is not None else delay * (0.75 + 0.5 * random.random())
            if clock() - start + wait > bounds.reply_deadline_s:
                raise
            log.warning(
                "%s failed (%s); retry %d in %.1f s",
                what,
                getattr(exc, "status", type(exc).__name__),
                attempt,
                wait,
            )
            await sleep(wait)
            delay = min(delay * 2, bounds.reply_backoff_max_s)


# -- replies -------------------------------------------------------------------------


@dataclass
class Reply:
    """What one answer sends; ``kwargs()`` builds fresh arguments each time (a discord.File
    is consumed by a send, so a retry needs a new one)."""

    embed: discord.Embed | None
    content: str | None
    view: discord.ui.View | None
    chart: bytes | None

    def kwargs(self, *, for_edit: bool = False) -> dict[str, Any]:
        kwargs: dict[str, Any] = {"allowed_mentions": NO_MENTIONS}
        if self.embed is not None:
            kwargs["embed"] = self.embed
            if for_edit:
                kwargs["content"] = None
        else:
            kwargs["content"] = self.content
            if for_edit:
                kwargs["embed"] = None
        if self.view is not None or for_edit:
            kwargs["view"] = self.view
        if self.chart is not None:
            file = discord.File(io.BytesIO(self.chart), filename=CHART_FILENAME)
            if for_edit:
                kwargs["attachments"] = [file]
            else:
                kwargs["file"] = file
        elif for_edit:
            kwargs["attachments"] = []
        return kwargs


class _Views(LRUCache[int, "ChoicesView"]):
    """Live choice views, at most ``maxsize``: the least recently created is stopped
    (removed from discord.py's view store) when a new one would pass the bound."""

    def popitem(self) -> tuple[int, ChoicesView]:
        key, view = super().popitem()
        view.stop()
        return key, view


# -- the advisor ---------------------------------------------------------------------


class Advisor:
    """Answers questions for one bot; holds the follow-up context, cooldown, views, pool."""

    def __init__(
        self,
        settings: Settings,
        *,
        answer_fn: AnswerFn | None = None,
        contexts: ContextStore | None = None,
        cooldown: Cooldown | None = None,
        catalog: Any = None,
        clock: Callable[[], float] = time.monotonic,
        store: Store | None = None,
    ) -> None:
        from .persist import GuildSettingsCache

        self.settings = settings
        b = self.bounds = settings.bounds
        # saved state (bot.storage): contexts, pending choices, rigs, server settings.
        # None (unit tests) or unavailable (database away): the in-memory stores below answer.
        self.store = store
        self.guild_settings = GuildSettingsCache(store, clock=clock)
        self.store_gate = PriorityGate(
            b.store_slots, delay_per_1000_chars_s=b.delay_per_1000_chars_s, clock=clock
        )
        self.reply_gate = PriorityGate(
            b.replies_in_flight,
            delay_per_1000_chars_s=b.delay_per_1000_chars_s,
            reserved=b.replies_reserved_for_short,
            clock=clock,
        )
        self._answer = answer_fn or _default_answer_fn()
        self.contexts = contexts or ContextStore(
            ttl=settings.context_ttl_s, max_bytes=b.context_bytes, clock=clock
        )
        self.cooldown = cooldown or Cooldown(
            settings.cooldown_per_10s, 10.0, clock=clock, max_users=b.cooldown_users
        )
        self.notices = Notices(max_users=b.notice_users, clock=clock)
        self.views = _Views(maxsize=b.live_views)
        # question message id -> (channel id, our reply's id): an edit re-answers in place
        self.replies: LRUCache[int, tuple[int, int]] = LRUCache(maxsize=b.replies_tracked)
        # question message id -> its current version (bumped by an edit or a delete)
        self.versions: LRUCache[int, int] = LRUCache(maxsize=b.replies_tracked)
        self.deleted: TTLCache[int, bool] = TTLCache(maxsize=b.deleted_tracked, ttl=3600.0, timer=clock)
        self.pool = AnswerPool(
            workers=b.workers,
            max_pending=b.pending_questions,
            delay_per_1000_chars_s=b.delay_per_1000_chars_s,
            clock=clock,
        )
        self._clock = clock
        self._catalog: Any = catalog

    # -- knowledge ----------------------------------------------------------------------

    @property
    def catalog(self) -> Any:
        """The catalog from KNOWLEDGE_DIR (or the package's knowledge/), loaded once."""
        if self._catalog is None:
            from bot.core.knowledge import default_knowledge_dir, get_catalog

            self._catalog = get_catalog(self.settings.knowledge_dir or default_knowledge_dir({}))
        return self._catalog

    @property
    def matcher(self) -> Any:
        """The parser's own name index over the same catalog (autocomplete, re-checks)."""
        from bot.core.matching import get_matcher

        return get_matcher(self.catalog)

    def name_of(self, kind: str, ident: str) -> str:
        """Display name for a card or model id (the id itself if unknown)."""
        try:
            table = self.catalog.gpus if kind == "gpu" else self.catalog.models
            return str(table[ident].name)
        except Exception:
            return ident

    # -- the one call into the core ------------------------------------------------

    def ask(
        self,
        question: str | Query,
        *,
        channel_id: int,
        user_id: int,
        use_context: bool = True,
        locale: Lang | None = None,
    ) -> Answer:
        """answer() with the stored context for (channel, user); stores the new one.

        ``locale`` is the asker's Discord locale (slash commands and buttons),
        used when the question's own words do not settle the language.
        Runs where it is called: the Discord surfaces use :meth:`ask_async`."""
        if isinstance(question, str):
            question = clip_question(question)
        context = self.contexts.get(channel_id, user_id) if use_context else None
        result = self._answer(
            question, context, catalog=self.catalog, locale=locale, max_chars=MAX_QUESTION_CHARS
        )
        if isinstance(result.context, Context):
            self.contexts.put(channel_id, user_id, result.context)
        return result

    async def ask_async(
        self,
        question: str | Query,
        *,
        channel_id: int,
        user_id: int,
        use_context: bool = True,
        locale: Lang | None = None,
    ) -> Answer:
        """:meth:`ask` with answer() in the worker pool (time-limited); the stores are only
        touched here, on the event loop. Raises AnswerTimeout or PoolBusy."""
        result = await self.ask_or_rig(
            question, channel_id=channel_id, user_id=user_id, use_context=use_context, locale=locale
        )
        assert isinstance(result, Answer)
        return result

    async def ask_or_rig(
        self,
        question: str | Query,
        *,
        channel_id: int,
        user_id: int,
        use_context: bool = True,
        locale: Lang | None = None,
        rig_statements: bool = False,
    ) -> Answer | Rig:
        """:meth:`ask_async`, plus the saved rig: a question that means it ("can I run X?",
        "my card") is answered on it (``NoteCode.RIG_USED`` says so), and with
        ``rig_statements`` a message that states a rig ("my rig is 2x 3090") returns that
        :class:`~bot.core.rig.Rig` instead of an answer (the surface offers to save it).
        Every reading of the text runs in the worker pool, never on the event loop."""
        if isinstance(question, str):
            question = clip_question(question)
        catalog = self.catalog
        answer_fn = self._answer
        q = question
        cost = len(q) if isinstance(q, str) else 50
        with_store = self.store is not None and isinstance(q, str)
        # the rig is read only for a question that may mean it (decided for sure in the pool)
        rig: Rig | None = None
        context: Context | None = None
        if self.store is None:
            context = self.contexts.get(channel_id, user_id) if use_context else None
        else:
            from bot.core.rig import may_refer_to_rig

            store = self.store
            wants_rig = isinstance(q, str) and may_refer_to_rig(q)  # two patterns: cheap on the loop

            async def reads() -> tuple[Context | None, Rig | None]:
                ctx = await self.load_context(channel_id, user_id) if use_context else None
                return ctx, (await store.get_rig(user_id) if wants_rig else None)

            context, rig = await self.store_gate.run(reads, cost_chars=cost)
        rig_name = self.name_of("gpu", rig.gpu) if rig is not None else ""
        statements = rig_statements and with_store

        def job() -> Answer | Rig:
            if isinstance(q, str):
                from bot.core import rig as rigs

                if statements:
                    said = rigs.parse_rig(q, catalog=catalog)
                    if said is not None:
                        return said
                if rig is not None and rigs.refers_to_rig(q, catalog=catalog):
                    typed = rigs.query_on_rig(q, rig, context, catalog=catalog, name=rig_name)
                    if typed is not None:
                        from bot.core import language

                        conv = context.language if context is not None else None
                        lang = language.detect(q, conversation=conv, locale=locale)
                        return answer_fn(typed, context, catalog=catalog, lang=lang)
            return answer_fn(q, context, catalog=catalog, locale=locale, max_chars=MAX_QUESTION_CHARS)

        result = await self.pool.run(job, cost_chars=cost, time_limit=self.bounds.answer_time_limit_s)
        if isinstance(result, Answer) and isinstance(result.context, Context):
            saved = result.context
            await self.store_gate.run(lambda: self.save_context(channel_id, user_id, saved), cost_chars=cost)
        return result

    # -- saved state (the store, with the in-memory stores as the fallback) ---------

    def _store_up(self) -> bool:
        return self.store is not None and self.store.available

    async def load_context(self, channel_id: int, user_id: int) -> Context | None:
        """The follow-up context: from the store (shared by every process, survives a restart),
        or from memory while the database is away."""
        if self.store is not None and self.settings.context_ttl_s > 0:
            found = await self.store.get_context(channel_id, user_id)
            if self.store.available:
                return found
        return self.contexts.get(channel_id, user_id)

    async def save_context(self, channel_id: int, user_id: int, context: Context) -> None:
        self.contexts.put(channel_id, user_id, context)  # bounded; answers while the database is away
        if self.store is not None and self.settings.context_ttl_s > 0:
            await self.store.put_context(channel_id, user_id, context, ttl_s=self.settings.context_ttl_s)

    async def settings_for(self, guild_id: int | None) -> GuildSettings | None:
        """The server's /gpu-setup (None in DMs, when never set up, or when the database is away)."""
        if guild_id is None:
            return None
        return await self.guild_settings.get(guild_id)

    async def guild_lang(self, guild_id: int | None) -> Lang | None:
        from bot.core.language import parse_lang

        gs = await self.settings_for(guild_id)
        return parse_lang(gs.language) if gs is not None and gs.language else None

    async def lang_for_interaction(self, interaction: discord.Interaction) -> Lang:
        """The user's Discord locale when it is one we speak other than English, else the
        server's default language, else English."""
        own = interaction_lang(interaction)
        if own is not None and own is not Lang.EN:
            return own
        return await self.guild_lang(getattr(interaction, "guild_id", None)) or own or Lang.EN

    async def save_rig_from_button(self, interaction: discord.Interaction, user_id: int, rig: Rig) -> None:
        """The "save this rig" button: only its owner may press it."""
        lang = await self.lang_for_interaction(interaction)
        if interaction.user.id != user_id:
            await self.notify(interaction, t(lang, "rig.not_yours"))
            return
        ok = self.store is not None and await self.store.put_rig(user_id, rig)
        text = t(lang, "rig.saved", rig=self.rig_text(rig, lang)) if ok else t(lang, "rig.store_down")
        if ok and not interaction.response.is_done():
            await interaction.response.edit_message(content=text, view=None, allowed_mentions=NO_MENTIONS)
        else:
            await self.notify(interaction, text)

    def rig_text(self, rig: Rig, lang: Lang) -> str:
        """ "2x RTX 3090, 64 GB RAM, budget $1,500" in ``lang``."""
        name = self.name_of("gpu", rig.gpu)
        parts = [t(lang, "rig.cards", count=rig.count, name=name) if rig.count > 1 else name]
        if rig.ram_gb is not None:
            parts.append(t(lang, "rig.ram", gb=f"{rig.ram_gb:g}"))
        if rig.budget_usd is not None:
            parts.append(t(lang, "rig.budget", usd=f"{rig.budget_usd:,.0f}"))
        return t(lang, "sep.list").join(parts)

    async def may_use(self, guild_id: int | None, member: Any) -> bool:
        """Whether ``member`` may use the bot in this server: everyone, unless /gpu-setup named
        a role (members with Manage Server always may)."""
        gs = await self.settings_for(guild_id)
        if gs is None or gs.allowed_role_id is None:
            return True
        perms = getattr(member, "guild_permissions", None)
        if perms is not None and (perms.manage_guild or perms.administrator):
            return True
        rid = gs.allowed_role_id
        raw = getattr(member, "_roles", None)
        if raw is not None and rid in raw:
            return True
        return any(getattr(r, "id", None) == rid for r in getattr(member, "roles", None) or ())

    async def role_notice(self, guild_id: int | None, lang: Lang) -> str:
        gs = await self.settings_for(guild_id)
        role = f"<@&{gs.allowed_role_id}>" if gs is not None and gs.allowed_role_id else "?"
        return t(lang, "setup.role_required", role=role)

    def rig_confirmation(self, user_id: int, rig: Rig, lang: Lang) -> tuple[str, discord.ui.View | None]:
        """The "save this as your rig?" message and its (persistent) button."""
        from .persist import rig_view

        return t(lang, "rig.confirm", rig=self.rig_text(rig, lang)), rig_view(user_id, rig, lang)

    # -- cooldown -------------------------------------------------------------------

    def rate(self, user_id: int) -> RateDecision:
        """Count a question from ``user_id`` and say what to do with it (O(1))."""
        retry = self.cooldown.retry_after(user_id)
        if retry <= 0:
            return RateDecision(Rate.ALLOWED)
        if self.notices.first_in_window(user_id, retry):
            return RateDecision(Rate.NOTICE, retry)
        return RateDecision(Rate.COLLAPSED, retry)

    def cooldown_notice(self, user_id: int, lang: Lang = Lang.EN) -> tuple[bool, str | None]:
        """(allowed, notice): the notice for the first limited question in a window, None after."""
        decision = self.rate(user_id)
        if decision.rate is Rate.ALLOWED:
            return True, None
        return False, rate_notice(decision, lang) if decision.rate is Rate.NOTICE else None

    # -- per-message bookkeeping ----------------------------------------------------

    def begin(self, message_id: int) -> int:
        """A new version of question ``message_id`` is being answered: its version number."""
        version = self.versions.get(message_id, 0) + 1
        self.versions[message_id] = version
        return version

    def current(self, message_id: int, version: int) -> bool:
        """Is ``version`` still the one to answer (not deleted, not edited since)?"""
        return message_id not in self.deleted and self.versions.get(message_id, version) == version

    def forget(self, message_id: int) -> None:
        """The question was deleted: a pending answer to it is dropped."""
        self.deleted[message_id] = True
        self.versions.pop(message_id, None)
        self.replies.pop(message_id, None)

    # -- rendering ------------------------------------------------------------------

    def view_for(self, answer: Answer) -> ChoicesView | None:
        if not answer.choices:
            return None
        view = ChoicesView(
            self, answer.choices, timeout=self.bounds.view_timeout_s, question=answer.query.text
        )
        self.views[id(view)] = view
        return view

    async def chart_for(self, answer: Answer) -> bytes | None:
        """The chart PNG, drawn in the worker pool; None when there is none or it failed."""
        if not wants_chart(answer):
            return None
        try:
            return await self.pool.run(
                lambda: render_chart(answer), cost_chars=0, time_limit=self.bounds.chart_time_limit_s
            )
        except Exception:
            log.exception("chart rendering failed")
            return None

    async def persistent_view_for(self, answer: Answer) -> discord.ui.View | None:
        """Ask-back buttons that survive a restart (choices stored under an id in the
        custom ids); the in-memory :meth:`view_for` while the database is away."""
        if not answer.choices:
            return None
        if self._store_up():
            from .persist import MAX_BUTTONS, choices_view

            assert self.store is not None
            kept = tuple(answer.choices[:MAX_BUTTONS])
            store = self.store
            cid = await self.store_gate.run(
                lambda: store.put_choices(
                    answer.query.text, kept, ttl_s=max(self.settings.context_ttl_s, 60.0)
                ),
                cost_chars=len(answer.query.text),
            )
            if cid is not None:
                return choices_view(cid, kept)
        return self.view_for(answer)

    async def reply_for(self, answer: Answer, *, embeds: bool = True, files: bool = True) -> Reply:
        embed = build_embed(answer, self.name_of) if embeds else None
        content = None if embeds else plain_text(answer)
        chart = await self.chart_for(answer) if files else None
        if chart is not None and embed is not None:
            embed.set_image(url=f"attachment://{CHART_FILENAME}")
        view = await self.persistent_view_for(answer)
        view = self.command_view(answer, view)
        return Reply(embed=embed, content=content, view=view, chart=chart)

    def command_view(self, answer: Answer, view: discord.ui.View | None) -> discord.ui.View | None:
        """``view`` plus a "Show command" button when the answer is an inference verdict with a
        command (issue 17) and its question fits in the button's custom id."""
        from bot.core.commands import button_key
        from bot.core.phrase.commands import chosen

        if not chosen(answer.result):
            return view
        key = button_key(answer.query)
        if key is None:
            return view
        from .persist import add_command_button

        return add_command_button(view, key, answer.language)

    async def show_command(self, interaction: discord.Interaction, key: str) -> None:
        """The "Show command" button: the same verdict computed again from the key, its command
        sent to the presser only (ephemeral), in code blocks."""
        from bot.core.commands import query_from_key
        from bot.core.phrase.commands import command_text, no_command_text

        lang = await self.lang_for_interaction(interaction)
        q = query_from_key(key)
        text: str | None = None
        if q is not None:
            catalog = self.catalog
            answer_fn = self._answer
            try:
                ans = await self.pool.run(
                    lambda: answer_fn(q, None, catalog=catalog, lang=lang),
                    cost_chars=50,
                    time_limit=self.bounds.answer_time_limit_s,
                )
            except (AnswerTimeout, PoolBusy):
                await self.notify(interaction, t(lang, "discord.busy"))
                return
            text = command_text(ans, lang, max_chars=2000)  # one Discord message, no block cut
        await self.notify(interaction, text or no_command_text(lang))

    async def message_kwargs(
        self, answer: Answer, *, embeds: bool = True, files: bool = True
    ) -> dict[str, Any]:
        """Keyword arguments for Messageable.send / followup.send."""
        return (await self.reply_for(answer, embeds=embeds, files=files)).kwargs()

    # -- interactions (slash commands and buttons) ---------------------------------

    async def respond(
        self, interaction: discord.Interaction, answer: Answer, *, ephemeral: bool = False
    ) -> None:
        """Answer an interaction within Discord's 3 s: charts are rendered after
        deferring and sent as a follow-up; everything else is sent at once. Follow-ups
        (valid 15 minutes) are retried on 429 / 5xx."""
        if wants_chart(answer) and not interaction.response.is_done():
            await interaction.response.defer(thinking=True, ephemeral=ephemeral)
        reply = await self.reply_for(answer, files=interaction.response.is_done())
        if interaction.response.is_done():
            await deliver(
                lambda: interaction.followup.send(**reply.kwargs(), ephemeral=ephemeral, wait=True),
                bounds=self.bounds,
                what=f"follow-up for interaction {getattr(interaction, 'id', '?')}",
            )
        else:
            await interaction.response.send_message(**reply.kwargs(), ephemeral=ephemeral)

    async def notify(self, interaction: discord.Interaction, text: str) -> None:
        """A short ephemeral message (errors, unknown names, cooldown)."""
        text = truncate(text, 2000)
        if interaction.response.is_done():
            await deliver(
                lambda: interaction.followup.send(text, ephemeral=True, allowed_mentions=NO_MENTIONS),
                bounds=self.bounds,
                what=f"notice for interaction {getattr(interaction, 'id', '?')}",
            )
        else:
            await interaction.response.send_message(text, ephemeral=True, allowed_mentions=NO_MENTIONS)

    async def answer_interaction(
        self,
        interaction: discord.Interaction,
        question: str | Query,
        *,
        use_context: bool = True,
        extra_key: str | None = None,
    ) -> None:
        """Answer a slash command or a button. ``extra_key``: a catalog message added as the
        answer's last detail line (``/gpu help`` names ``/gpu-setup`` this way)."""
        locale = await self.lang_for_interaction(interaction)
        lang = locale
        if isinstance(question, str):
            from bot.core.language import detect

            lang = detect(question, locale=lang)
        if not await self.may_use(getattr(interaction, "guild_id", None), interaction.user):
            await self.notify(
                interaction, await self.role_notice(getattr(interaction, "guild_id", None), lang)
            )
            return
        decision = self.rate(interaction.user.id)
        if decision.rate is not Rate.ALLOWED:
            # ephemeral, seen only by them: every limited command is told, never silence
            await self.notify(interaction, rate_notice(decision, lang))
            return
        channel_id = interaction.channel_id or interaction.user.id
        job = asyncio.ensure_future(
            self.ask_or_rig(
                question,
                channel_id=channel_id,
                user_id=interaction.user.id,
                use_context=use_context,
                locale=locale,
                rig_statements=isinstance(question, str),
            )
        )
        charted = isinstance(question, Query) and question.intent in (Intent.RECOMMEND, Intent.COMPARE)
        if (charted or self.pool.busy) and not interaction.response.is_done():
            await interaction.response.defer(thinking=True)  # the answer may take more than a second
        else:
            done, _ = await asyncio.wait({job}, timeout=self.bounds.defer_after_s)
            if not done and not interaction.response.is_done():
                await interaction.response.defer(thinking=True)
        try:
            result = await job
        except AnswerTimeout:
            await self.notify(interaction, t(lang, "discord.too_complex"))
            return
        except PoolBusy:
            await self.notify(interaction, t(lang, "discord.busy"))
            return
        if not isinstance(result, Answer):  # "my rig is ...": offer to save it, to them only
            text, view = self.rig_confirmation(interaction.user.id, result, lang)
            kwargs: dict[str, Any] = {"allowed_mentions": NO_MENTIONS, "ephemeral": True}
            if view is not None:
                kwargs["view"] = view
            if interaction.response.is_done():
                await deliver(
                    lambda: interaction.followup.send(text, wait=True, **kwargs),
                    bounds=self.bounds,
                    what=f"rig confirmation for interaction {getattr(interaction, 'id', '?')}",
                )
            else:
                await interaction.response.send_message(text, **kwargs)
            return
        if extra_key is not None:
            from dataclasses import replace as _replace

            result = _replace(result, details=(*result.details, t(result.language, extra_key)))
        await self.respond(interaction, result)


def interaction_lang(interaction: discord.Interaction) -> Lang | None:
    """The user's Discord locale as a reply language (zh-CN, zh-TW; English otherwise)."""
    from bot.core.language import from_locale

    return from_locale(str(getattr(interaction, "locale", "") or ""))


def clip_question(text: str, limit: int = MAX_QUESTION_CHARS) -> str:
    """The question stripped and cut one character past ``limit``: enough for answer()
    (called with ``max_chars=limit``) to see that it was longer and say so."""
    text = text.strip()
    return text[: limit + 1]


class ChoiceButton(discord.ui.Button["ChoicesView"]):
    """One button: its index into the view's one shared copy of the choices."""

    def __init__(self, advisor: Advisor, label: str, index: int) -> None:
        super().__init__(
            label=truncate(label, 80) or str(index + 1),
            style=discord.ButtonStyle.primary if index == 0 else discord.ButtonStyle.secondary,
            row=min(index // 5, 4),
        )
        self.advisor = advisor
        self.index = index

    @property
    def choice(self) -> Choice:
        assert self.view is not None
        return self.view.choices[self.index]

    async def callback(self, interaction: discord.Interaction) -> None:
        # The presser's own context: buttons answer for whoever presses them.
        await self.advisor.answer_interaction(interaction, self.choice.text)


class ChoicesView(discord.ui.View):
    """Buttons for Answer.choices; pressing one answers choice.text. The choices are kept
    once, as the question plus each choice's change (CompactChoices), not one copy per button."""

    def __init__(
        self,
        advisor: Advisor,
        choices: tuple[Choice, ...],
        *,
        timeout: float = 900.0,
        question: str | None = None,
    ) -> None:
        super().__init__(timeout=timeout)
        self.advisor = advisor
        kept = tuple(choices[:25])
        base = question if question is not None else (kept[0].text if kept else "")
        self.choices = CompactChoices(base, kept)
        for index, choice in enumerate(kept):
            self.add_item(ChoiceButton(advisor, choice.label or choice.text, index))

    async def on_timeout(self) -> None:
        self.advisor.views.pop(id(self), None)

    async def on_error(
        self, interaction: discord.Interaction, error: Exception, item: discord.ui.Item[Any]
    ) -> None:
        log.error("button %r failed", getattr(item, "label", item), exc_info=error)
        try:
            await self.advisor.notify(interaction, APOLOGY)
        except Exception:
            log.exception("could not apologise for a failed button")
