"""End to end, the unfriendly cases: edits, deletes, rate limits that tell people, REST
failure storms on replies, and a DEBUG log with no token and no message content.

The real bot (``python -m bot run``, LOG_LEVEL=DEBUG) against its own local stand-in
(tests/discord/standin.py); nothing leaves 127.0.0.1.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from standin import APP_ID, CHANNELS, Recorded, StandIn
from test_discord_e2e import callback_of, clip, new_user, refers_to, sent, start_bot, stop_bot, title

from bot.core.answer import answer
from bot.core.types import Intent, Query

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.filterwarnings("ignore:unread_data:DeprecationWarning"),
]

# shaped like a real bot token, so the log test proves the shape is redacted too
TOKEN = "MTAwMDAwMDAwMDAwMDAwMDAx.GzQw9a.abcdefghijklmnopqrstuvwxyz0123456789AB"
MARKER = "zebra7marker"  # in questions: must never reach the log
COOLDOWN = 3


@pytest.fixture(scope="module")
def standin() -> Any:
    server = StandIn().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def log_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("hostile") / "bot.log"


@pytest.fixture(scope="module")
def bot(standin: StandIn, log_path: Path) -> Any:
    proc = start_bot(
        standin, log_path, LOG_LEVEL="DEBUG", DISCORD_TOKEN=TOKEN, COOLDOWN_PER_10S=str(COOLDOWN)
    )
    try:
        yield proc
    finally:
        stop_bot(proc)


def patch_of(channel: int, message_id: int) -> Any:
    def check(rec: Recorded) -> bool:
        return rec.method == "PATCH" and rec.path == f"/channels/{channel}/messages/{message_id}"

    return check


def reaction_on(message_id: int) -> Any:
    def check(rec: Recorded) -> bool:
        return rec.method == "PUT" and f"/messages/{message_id}/reactions/" in rec.path

    return check


def test_an_edited_question_is_answered_again_in_the_same_reply(standin: StandIn, bot: Any) -> None:
    user, channel = new_user(), CHANNELS["ask"]
    first, second = f"what gpu for bert under $1000 {MARKER}", "3090 vs 4090 for stable diffusion"
    a1 = answer(first)
    mid = standin.send_message(first, channel=channel, user_id=user)
    rec = standin.wait_for(refers_to(mid), 20, what="first answer")
    assert title(sent(rec)) == clip(a1.verdict)
    reply_id = int(rec.response["id"])
    mark = standin.mark()
    standin.edit_message(mid, second)
    patch = standin.wait_for(patch_of(channel, reply_id), 20, start=mark, what="edit of the reply")
    assert patch.payload["embeds"][0]["title"] == clip(answer(second, a1.context).verdict)
    assert patch.payload["allowed_mentions"]["parse"] == []
    assert not [r for r in standin.message_posts(mark) if refers_to(mid)(r)]  # no second reply


def test_an_edit_of_a_message_that_was_not_a_question_answers_it(standin: StandIn, bot: Any) -> None:
    user = new_user()
    mid = standin.send_message("hello all", channel=CHANNELS["general"], user_id=user)
    standin.edit_message(mid, f"<@{100000000000000001}> how much does a 5080 cost")
    rec = standin.wait_for(refers_to(mid), 20, what="answer to the edited message")
    assert title(sent(rec)) == clip(answer("how much does a 5080 cost").verdict)


def test_a_question_deleted_before_its_answer_gets_none(standin: StandIn, bot: Any) -> None:
    long_question = "can 4060 ti run llama 2 13b in int8 with batch 4? " * 19  # ~1,000 characters
    gone = standin.send_then_delete(long_question, channel=CHANNELS["ask"], user_id=new_user())
    control = standin.send_message("what can you do", channel=CHANNELS["ask"], user_id=new_user())
    standin.wait_for(refers_to(control), 20, what="the control answer")
    time.sleep(1.5)
    assert not [r for r in standin.requests if refers_to(gone)(r)]


def test_past_the_cooldown_every_question_gets_a_visible_sign(standin: StandIn, bot: Any) -> None:
    user, channel = new_user(), CHANNELS["ask"]
    ids = [
        standin.send_message(f"how much does a 4090 cost {i}", channel=channel, user_id=user)
        for i in range(7)
    ]
    answered = [standin.wait_for(refers_to(m), 20, what=f"reply {i}") for i, m in enumerate(ids[:COOLDOWN])]
    assert all(title(sent(r)) for r in answered)
    notice = sent(standin.wait_for(refers_to(ids[COOLDOWN]), 20, what="the notice"))
    assert "Try again in" in notice["content"] and " s." in notice["content"]
    for m in ids[COOLDOWN + 1 :]:
        standin.wait_for(reaction_on(m), 20, what=f"reaction on {m}")  # collapsed, never silent
        assert not [r for r in standin.requests if refers_to(m)(r)]  # one notice per window


def test_a_reply_survives_ten_failures_in_a_row(standin: StandIn, bot: Any) -> None:
    time.sleep(0.2)
    start = standin.mark()
    standin.fail_messages([(500, 0.0)] * 2 + [(429, 0.05)] * 8)
    question = "can a 3060 run llama 2 7b in int4"
    mid = standin.send_message(question, channel=CHANNELS["other"], user_id=new_user())
    rec = standin.wait_for(refers_to(mid), 60, what="the answer after 10 failures")
    assert title(sent(rec)) == clip(answer(question).verdict)
    failed = [r for r in standin.requests[start:] if r.status in (429, 500)]
    assert len(failed) == 10 and standin.injections_left() == 0


def test_a_storm_of_429s_and_500s_loses_no_answer(standin: StandIn, bot: Any) -> None:
    start = standin.mark()
    # discord.py sleeps 1 + 2*tries seconds after a 500 before it retries: five of them (not ten) halve
    # this test's time; the larger storm (30 x 429 and 10 x 500 with --quick, ten times that in full)
    # is bench/stress.py's
    failures = ([(429, 0.02)] * 3 + [(500, 0.0)]) * 5
    standin.fail_messages(failures)
    ids = [
        standin.send_message("what gpu for resnet-50 under $700", channel=CHANNELS["ask"], user_id=new_user())
        for _ in range(12)
    ]
    for m in ids:
        standin.wait_for(refers_to(m), 90, what=f"answer to {m} in the storm")
    assert len([r for r in standin.requests[start:] if r.status in (429, 500)]) == len(failures)


def test_a_slash_command_defers_at_once_and_its_follow_up_survives_failures(
    standin: StandIn, bot: Any
) -> None:
    standin.fail_followups([(429, 0.05)] * 7 + [(500, 0.0)])
    t0 = time.monotonic()
    inter = standin.slash("recommend", user_id=new_user(), model="llama-3-8b", budget=1500)
    first = standin.wait_for(callback_of(inter), 15, what="the defer")
    assert first.payload["type"] == 5 and first.at - t0 < 2.0  # well within Discord's 3 s
    follow = standin.wait_for(
        lambda r: r.method == "POST" and r.path == f"/webhooks/{APP_ID}/{inter['token']}" and r.status == 200,
        60,
        what="the follow-up after 8 failures",
    )
    assert title(sent(follow)) == clip(
        answer(Query(intent=Intent.RECOMMEND, models=("llama-3-8b",), budget_usd=1500.0)).verdict
    )


def test_slash_command_with_the_marker(standin: StandIn, bot: Any) -> None:
    inter = standin.slash("ask", user_id=new_user(), question=f"how big is deepseek v3 {MARKER}")
    standin.wait_for(lambda r: r.path.startswith(f"/interactions/{inter['id']}/"), 15, what="callback")


def test_debug_log_has_no_token_and_no_content(standin: StandIn, bot: Any, log_path: Path) -> None:
    time.sleep(0.5)
    text = log_path.read_text(encoding="utf-8", errors="replace")
    assert "DEBUG" in text and "discord.http" in text and "discord.gateway" in text  # it did log
    assert TOKEN not in text
    assert TOKEN.split(".")[0] not in text
    assert "itoken-" not in text  # interaction tokens (callback and webhook URLs, payloads)
    assert MARKER not in text
    assert "how much does a 4090 cost" not in text
    assert "<redacted>" in text or "<token>" in text
