"""Unit tests of the adapter's defences: the worker pool (ordering, time limit, bound),
retries that honour Retry-After, bounded stores, compact choices, capped views, and log
redaction."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from types import SimpleNamespace
from typing import Any

import discord
import pytest

from bot.config import BOUNDS, Bounds, Settings
from bot.core.answer import answer
from bot.core.types import Answer, Choice, Context, Intent, Query
from bot.discord_app import RedactFilter, redact
from bot.discord_app.advisor import (
    TOO_COMPLEX,
    Advisor,
    AnswerPool,
    AnswerTimeout,
    ChoicesView,
    PoolBusy,
    deliver,
)
from bot.discord_app.context_store import CompactChoices, ContextStore, Cooldown, context_bytes
from bot.discord_app.listeners import handle_delete, handle_message

ME = SimpleNamespace(id=999, bot=True)


def settings(**kw: Any) -> Settings:
    return Settings(token="x", **kw)


def dm(content: str, message_id: int = 77) -> Any:
    sent: list[dict[str, Any]] = []

    async def send(content: Any = None, **kw: Any) -> Any:
        sent.append({"content": content, **kw})
        return SimpleNamespace(id=9000 + len(sent))

    channel = SimpleNamespace(id=5, send=send)
    return SimpleNamespace(
        id=message_id,
        content=content,
        author=SimpleNamespace(id=1234, bot=False),
        guild=None,
        channel=channel,
        mentions=[],
        type=discord.MessageType.default,
        to_reference=lambda fail_if_not_exists=True: SimpleNamespace(message_id=message_id),
        sent=sent,
    )


# -- the pool --------------------------------------------------------------------------------


async def test_short_questions_go_before_a_flood_of_long_ones() -> None:
    pool = AnswerPool(workers=1, delay_per_1000_chars_s=10.0)
    gate = threading.Event()
    order: list[str] = []

    def job(name: str) -> Any:
        def run() -> str:
            gate.wait(5)
            order.append(name)
            return name

        return run

    blocker = asyncio.ensure_future(pool.run(job("running"), cost_chars=10))
    await asyncio.sleep(0.05)
    longs = [asyncio.ensure_future(pool.run(job(f"long{i}"), cost_chars=1000)) for i in range(5)]
    await asyncio.sleep(0.01)
    short = asyncio.ensure_future(pool.run(job("short"), cost_chars=20))
    await asyncio.sleep(0.01)
    assert pool.pending == 6 and pool.busy
    gate.set()
    await asyncio.gather(blocker, short, *longs)
    assert order[:2] == ["running", "short"]
    assert order[2:] == [f"long{i}" for i in range(5)]  # arrival order among equals
    pool.shutdown()


async def test_a_question_past_the_time_limit_times_out() -> None:
    pool = AnswerPool(workers=1)
    with pytest.raises(AnswerTimeout):
        await pool.run(lambda: time.sleep(0.5), time_limit=0.05)
    pool.shutdown()


async def test_the_queue_is_bounded() -> None:
    pool = AnswerPool(workers=1, max_pending=2)
    gate = threading.Event()
    jobs = [asyncio.ensure_future(pool.run(lambda: gate.wait(5))) for _ in range(3)]
    await asyncio.sleep(0.05)
    with pytest.raises(PoolBusy):
        await pool.run(lambda: None)
    gate.set()
    await asyncio.gather(*jobs)
    pool.shutdown()


async def test_answers_do_not_block_the_event_loop() -> None:
    adv = Advisor(
        settings(cooldown_per_10s=0), answer_fn=lambda *a, **k: (time.sleep(0.3), answer("help"))[1]
    )
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1

    t = asyncio.ensure_future(ticker())
    await adv.ask_async("help", channel_id=1, user_id=1)
    t.cancel()
    assert ticks >= 10  # the loop kept running while the answer was computed
    adv.pool.shutdown()


async def test_a_question_that_hits_the_limit_gets_the_clear_reply() -> None:
    slow = Bounds(answer_time_limit_s=0.05)
    adv = Advisor(
        settings(cooldown_per_10s=0, bounds=slow),
        answer_fn=lambda *a, **k: (time.sleep(0.5), answer("help"))[1],
    )
    msg = dm("a question")
    assert await handle_message(adv, msg, ME)
    assert msg.sent[0]["content"] == TOO_COMPLEX
    adv.pool.shutdown()


async def test_a_deleted_question_gets_no_answer() -> None:
    gate = threading.Event()

    def slow(*_: Any, **__: Any) -> Answer:
        gate.wait(5)
        return answer("help")

    adv = Advisor(settings(cooldown_per_10s=0), answer_fn=slow)
    msg = dm("help", message_id=4242)
    task = asyncio.ensure_future(handle_message(adv, msg, ME))
    await asyncio.sleep(0.05)
    handle_delete(adv, [4242])
    gate.set()
    assert await task
    assert msg.sent == []
    adv.pool.shutdown()


# -- retries ---------------------------------------------------------------------------------


class FakeResponse:
    def __init__(self, status: int, headers: dict[str, str] | None = None) -> None:
        self.status = status
        self.reason = "x"
        self.headers = headers or {}


def http_error(status: int, retry_after: float | None = None) -> discord.HTTPException:
    headers = {"Retry-After": str(retry_after)} if retry_after is not None else {}
    return discord.HTTPException(FakeResponse(status, headers), {"message": "x", "code": 0})  # type: ignore[arg-type]


async def test_deliver_retries_429_and_5xx_honouring_retry_after() -> None:
    failures = [http_error(429, 2.5), http_error(500), http_error(503), OSError("reset")]
    slept: list[float] = []

    async def op() -> str:
        if failures:
            raise failures.pop(0)
        return "sent"

    async def sleep(s: float) -> None:
        slept.append(s)

    assert await deliver(op, bounds=BOUNDS, what="t", sleep=sleep) == "sent"
    assert slept[0] == 2.5  # Retry-After honoured
    assert len(slept) == 4 and all(0 < s <= BOUNDS.reply_backoff_max_s for s in slept[1:])
    assert slept[2] > slept[1] * 1.2  # backing off


async def test_deliver_gives_up_on_4xx_and_after_its_budget() -> None:
    calls = 0

    async def not_found() -> None:
        nonlocal calls
        calls += 1
        raise http_error(404)

    async def no_sleep(_: float) -> None:
        return None

    with pytest.raises(discord.HTTPException):
        await deliver(not_found, bounds=BOUNDS, what="t", sleep=no_sleep)
    assert calls == 1

    calls = 0

    async def always_500() -> None:
        nonlocal calls
        calls += 1
        raise http_error(500)

    with pytest.raises(discord.HTTPException):
        await deliver(always_500, bounds=Bounds(reply_attempts=4), what="t", sleep=no_sleep)
    assert calls == 4


# -- bounded stores ----------------------------------------------------------------------------


def test_compact_choices_round_trip_and_keep_one_copy() -> None:
    ans = answer("can a 4060 ti run llama 2 13b in int8? " + "with a lot of detail " * 120)
    assert ans.choices
    compact = CompactChoices(ans.query.text, ans.choices)
    assert compact.choices() == ans.choices
    full = sum(len(c.text) for c in ans.choices)
    assert compact.nbytes() < full / 4  # not one copy of the question per choice
    odd = (Choice(label="a", text="something else entirely"), Choice(label="b", text=""))
    assert CompactChoices("the question", odd).choices() == odd


def test_context_store_stays_within_its_bytes() -> None:
    q = answer("can a 4060 ti run llama 2 13b in int8? " + "x" * 900).context
    assert q.last is not None
    one = context_bytes(q.last, CompactChoices(q.last.text, q.last.choices))
    store = ContextStore(ttl=900, max_bytes=200 * one)
    for user in range(6000):
        store.put(1, user, q)
    assert len(store) <= 200 and store.nbytes <= 200 * one
    got = store.get(1, 5999)
    assert got is not None and got.last is not None and got.last.choices == q.last.choices


def test_cooldown_bookkeeping_is_bounded() -> None:
    cd = Cooldown(1, 10.0, max_users=1000)
    t0 = time.perf_counter()
    for user in range(20_000):
        cd.retry_after(user)
        cd.retry_after(user)
    took = time.perf_counter() - t0
    assert len(cd) <= 1000
    assert took < 2.0  # O(1) per question (was quadratic past 10,000 limited users)


def test_advisor_notices_are_bounded() -> None:
    adv = Advisor(settings(cooldown_per_10s=1, bounds=Bounds(notice_users=100, cooldown_users=100)))
    for user in range(1000):
        adv.rate(user)
        adv.rate(user)
    assert len(adv.notices) <= 100 and len(adv.cooldown) <= 100


async def test_live_views_are_capped_and_the_oldest_stopped() -> None:
    adv = Advisor(settings(bounds=Bounds(live_views=3)))
    ans = Answer(
        intent=Intent.FIT,
        query=Query(intent=Intent.FIT, text="q"),
        verdict="v",
        choices=(Choice(label="a", text="qa"), Choice(label="b", text="qb")),
    )
    views = [adv.view_for(ans) for _ in range(5)]
    assert len(adv.views) == 3
    assert views[0] is not None and views[0].is_finished() and views[1] is not None and views[1].is_finished()
    assert views[4] is not None and not views[4].is_finished()
    assert isinstance(views[4], ChoicesView) and views[4].choices[1].text == "qb"


def test_name_suggestion_cache_is_bounded() -> None:
    from bot.core.matching import get_matcher

    m = get_matcher()
    for i in range(BOUNDS.suggest_pools * 3):
        m.suggest(f"rtx {i}1 {i}", "any", limit=3)
    assert len(m._suggest_cache) <= BOUNDS.suggest_pools


def test_context_round_trip_through_the_advisor() -> None:
    adv = Advisor(settings(cooldown_per_10s=0))
    a1 = adv.ask("can a 4060 ti run llama 2 13b in int8?", channel_id=3, user_id=4)
    got = adv.contexts.get(3, 4)
    assert got == Context(last=a1.context.last)


# -- logs ------------------------------------------------------------------------------------


def test_redact() -> None:
    assert redact("POST /api/v10/interactions/123/itoken-abc/callback") == (
        "POST /api/v10/interactions/123/<token>/callback"
    )
    assert redact("PATCH /webhooks/1/aW50ZXJhY3Rpb24/messages/@original") == (
        "PATCH /webhooks/1/<token>/messages/@original"
    )
    assert redact('{"content":"my secret question","tts":false}') == '{"content":"<redacted>","tts":false}'
    assert (
        redact("{'content': \"it's mine\", 'value': 'x'}")
        == "{'content': \"<redacted>\", 'value': \"<redacted>\"}"
    )
    assert "abc" not in redact("Authorization: Bot abcdefghijklmnop")
    assert redact("MTAwMDAwMDAwMDAwMDAwMDAx.GzQw9a.abcdefghijklmnopqrstuvwxyz0123456789AB") == "<token>"


def test_redact_filter_covers_arguments_and_tracebacks() -> None:
    records: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(self.format(record))

    handler = Keep()
    handler.setFormatter(logging.Formatter("%(message)s"))
    handler.addFilter(RedactFilter(("supersecrettoken",)))
    logger = logging.getLogger("bot.core.answer.test")
    logger.addHandler(handler)
    logger.propagate = False
    try:
        logger.error("answer failed for %r", "what gpu for my secret project")
        try:
            raise ValueError("supersecrettoken in a message")
        except ValueError:
            logging.getLogger("bot.core.answer.test").exception("boom")
    finally:
        logger.removeHandler(handler)
    text = "\n".join(records)
    assert "secret project" not in text and "<30 chars>" in text
    assert "supersecrettoken" not in text and "ValueError" in text
