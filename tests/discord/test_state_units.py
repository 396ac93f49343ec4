"""The Discord adapter's saved state, piece by piece, on a real SQLite file
(bot.storage): contexts and choices shared by two advisors (two processes),
the saved rig used and said, persistent button ids, the per-server settings
cache, SHARD_IDS, the rig note in both languages."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from test_discord_units import ME, fake_message

from bot.config import ConfigError, Settings
from bot.core.answer import answer
from bot.core.knowledge import get_catalog
from bot.core.phrase.catalog import t
from bot.core.rig import Rig, query_on_rig
from bot.core.types import Lang, NoteCode
from bot.discord_app.advisor import Advisor, ChoicesView
from bot.discord_app.listeners import extract_question
from bot.discord_app.persist import (
    GuildSettingsCache,
    PickButton,
    RigButton,
    parse_rig_custom_id,
    rig_custom_id,
)
from bot.storage import GuildSettings, SqlStore, open_store


def settings(tmp_path: Path, **kw: Any) -> Settings:
    return replace(Settings(), data_dir=tmp_path / "data", cooldown_per_10s=0, **kw)


@pytest.fixture
async def store(tmp_path: Path) -> Any:
    s = await open_store(settings(tmp_path))
    try:
        yield s
    finally:
        await s.close()


def name(gid: str) -> str:
    return str(get_catalog().gpus[gid].name)


# -- settings -----------------------------------------------------------------------------


def test_shard_ids_and_the_message_content_switch() -> None:
    s = Settings.from_env({"SHARD_COUNT": "4", "SHARD_IDS": " 2, 0,2 "})
    assert s.shard_ids == (0, 2) and s.shard_count == 4
    assert Settings.from_env({}).shard_ids is None
    for env, words in (
        ({"SHARD_IDS": "0"}, "needs SHARD_COUNT"),
        ({"SHARD_COUNT": "2", "SHARD_IDS": "2"}, "below SHARD_COUNT"),
        ({"SHARD_COUNT": "2", "SHARD_IDS": "a"}, "shard numbers"),
        ({"MESSAGE_CONTENT_INTENT": "maybe"}, "MESSAGE_CONTENT_INTENT"),
    ):
        with pytest.raises(ConfigError, match=words):
            Settings.from_env(env)
    assert not Settings.from_env({}).needs_message_content
    assert Settings.from_env({"MESSAGE_CONTENT_INTENT": "1"}).needs_message_content
    assert Settings.from_env({"ASK_CHANNEL_IDS": "5"}).needs_message_content


# -- persistent button ids ----------------------------------------------------------------


def test_rig_button_ids_round_trip_and_stay_within_discords_limit() -> None:
    for rig in (Rig("rtx-3090", 2, 64.0), Rig("rtx-4090"), Rig("a100-80gb", 8, 1024.5, 25000.0)):
        cid = rig_custom_id(123456789012345678, rig)
        assert cid is not None and len(cid) <= 100
        assert re.fullmatch(RigButton.__discord_ui_compiled_template__, cid)
        assert parse_rig_custom_id(cid) == (123456789012345678, rig)
    assert rig_custom_id(1, Rig("x" * 120)) is None
    for bad in ("gpu:rig:1:0:-:-:rtx-3090", "gpu:rig:1:99:-:-:rtx-3090", "gpu:rig:1:1:-:-:", "gpu:pick:x:1"):
        assert parse_rig_custom_id(bad) is None


async def test_ask_back_buttons_carry_the_stored_choices_id(tmp_path: Path, store: SqlStore) -> None:
    adv = Advisor(settings(tmp_path), store=store)
    ans = answer("can a 4060 ti run llama 2 13b in int8?")
    assert ans.choices
    view = await adv.persistent_view_for(ans)
    assert view is not None and view.timeout is None and not isinstance(view, ChoicesView)
    assert all(isinstance(item, PickButton) for item in view.children)
    ids = [item.item.custom_id for item in view.children if isinstance(item, PickButton)]
    assert [item.item.label for item in view.children if isinstance(item, PickButton)] == [
        c.label for c in ans.choices[:25]
    ]
    assert len(ids) == len(ans.choices[:25])
    for n, cid in enumerate(ids):
        m = re.fullmatch(PickButton.__discord_ui_compiled_template__, cid or "")
        assert m is not None and int(m["n"]) == n
    pending = await store.get_choices(ids[0].split(":")[2])  # type: ignore[union-attr]
    assert pending is not None and pending.choices == ans.choices[:25]
    # no store: the in-memory buttons of before
    assert isinstance(await Advisor(settings(tmp_path)).persistent_view_for(ans), ChoicesView)


# -- contexts shared through the store ------------------------------------------------------


async def test_a_second_process_answers_the_follow_up(tmp_path: Path) -> None:
    first, second = "what gpu for bert under $1000", "what about under $500?"
    a1 = answer(first)
    s1 = await open_store(settings(tmp_path))
    s2 = await open_store(settings(tmp_path))  # another process on the same file
    try:
        one, two = Advisor(settings(tmp_path), store=s1), Advisor(settings(tmp_path), store=s2)
        got1 = await one.ask_async(first, channel_id=10, user_id=20)
        assert got1.verdict == a1.verdict
        got2 = await two.ask_async(second, channel_id=10, user_id=20)
        assert got2.verdict == answer(second, a1.context).verdict != answer(second).verdict
        # another user in that channel has no context
        assert (await two.ask_async(second, channel_id=10, user_id=21)).verdict == answer(second).verdict
        # rig clear removes the conversation too
        assert await s1.clear_user(20)
        assert await s2.get_context(10, 20) is None
    finally:
        one.pool.shutdown()
        two.pool.shutdown()
        await s1.close()
        await s2.close()


async def test_the_saved_rig_is_used_and_said(tmp_path: Path, store: SqlStore) -> None:
    adv = Advisor(settings(tmp_path), store=store)
    try:
        rig = Rig("rtx-3090", 2, 64.0)
        assert await store.put_rig(7, rig)
        got = await adv.ask_async("can I run llama 3 70b?", channel_id=1, user_id=7)
        note = t(Lang.EN, "note.rig_used_many", count=2, name=name("rtx-3090"))
        assert note in got.text
        assert any(n.code is NoteCode.RIG_USED for n in got.notes)
        assert got.query.gpus == ("rtx-3090",) and got.query.num_gpus == 2
        # a named card wins; another user has no rig
        named = await adv.ask_async("can I run llama 3 70b on a 4090?", channel_id=1, user_id=7)
        assert note not in named.text and named.query.gpus != ("rtx-3090",)
        other = await adv.ask_async("can I run llama 3 70b?", channel_id=1, user_id=8)
        assert note not in other.text
        # in Chinese
        zh = await adv.ask_async("我能跑 llama 3 70b 吗", channel_id=2, user_id=7)
        assert t(Lang.ZH_HANS, "note.rig_used_many", count=2, name=name("rtx-3090")) in zh.text
    finally:
        adv.pool.shutdown()


def test_query_on_rig_notes_the_rig_and_leaves_named_cards_alone() -> None:
    q = query_on_rig("will my card fit mistral 7b", Rig("rtx-4090"), name="RTX 4090")
    assert q is not None and q.gpus == ("rtx-4090",)
    (used,) = [n for n in q.notes if n.code is NoteCode.RIG_USED]
    assert used.values == {"gpu": "rtx-4090", "name": "RTX 4090", "count": 1}
    assert query_on_rig("can I run llama 3 8b on a 3090?", Rig("rtx-4090")) is None
    single = answer(q, lang=Lang.EN)
    assert t(Lang.EN, "note.rig_used", name="RTX 4090") in single.text
    assert t(Lang.ZH_HANS, "note.rig_used", name="RTX 4090") in answer(q, lang=Lang.ZH_HANS).text


# -- per-server settings ----------------------------------------------------------------------


async def test_guild_settings_cache_sees_its_own_writes_at_once_and_others_after_ttl(
    tmp_path: Path, store: SqlStore
) -> None:
    now = [0.0]
    here = GuildSettingsCache(store, ttl=30.0, clock=lambda: now[0])
    there = GuildSettingsCache(store, ttl=30.0, clock=lambda: now[0])  # another process
    assert await here.get(5) is None and await there.get(5) is None
    gs = GuildSettings(guild_id=5, ask_channel_ids=frozenset({9}), answer_mentions=False, language="zh-Hans")
    assert await here.put(gs)
    assert await here.get(5) == gs
    assert await there.get(5) is None  # cached "not set up" for up to 30 s
    now[0] += 31
    assert await there.get(5) == gs
    assert await GuildSettingsCache(None).get(5) is None


async def test_server_settings_decide_what_is_a_question(tmp_path: Path, store: SqlStore) -> None:
    adv = Advisor(settings(tmp_path, ask_channel_ids=frozenset({6})), store=store)
    assert await adv.guild_lang(77) is None
    await adv.guild_settings.put(GuildSettings(guild_id=77, language="zh-Hans", allowed_role_id=55))
    assert await adv.guild_lang(77) is Lang.ZH_HANS
    member = SimpleNamespace(
        _roles=[], roles=[], guild_permissions=SimpleNamespace(manage_guild=False, administrator=False)
    )
    assert not await adv.may_use(77, member)
    assert await adv.may_use(77, replace_ns(member, _roles=[55]))
    assert await adv.may_use(
        77, replace_ns(member, guild_permissions=SimpleNamespace(manage_guild=True, administrator=False))
    )
    assert await adv.may_use(None, member) and await adv.may_use(78, member)
    # mentions switched off: only the ask-channels
    mention = fake_message("<@999> what gpu", mentions=(ME,), channel_id=6)
    elsewhere = fake_message("<@999> what gpu", mentions=(ME,), channel_id=8)
    assert extract_question(elsewhere, ME, frozenset({6}), answer_mentions=False) is None
    assert extract_question(mention, ME, frozenset({6}), answer_mentions=False) == "what gpu"
    assert extract_question(elsewhere, ME, frozenset({6})) == "what gpu"


def replace_ns(ns: SimpleNamespace, **kw: Any) -> SimpleNamespace:
    return SimpleNamespace(**{**vars(ns), **kw})


async def test_store_gate_lets_a_short_question_go_before_waiting_long_ones() -> None:
    import asyncio

    from bot.discord_app.advisor import PriorityGate

    gate = PriorityGate(1, delay_per_1000_chars_s=10.0)
    order: list[str] = []
    release = asyncio.Event()

    async def op(name: str, hold: bool = False) -> str:
        order.append(name)
        if hold:
            await release.wait()
        return name

    first = asyncio.ensure_future(gate.run(lambda: op("busy", True), cost_chars=1000))
    await asyncio.sleep(0)
    longs = [asyncio.ensure_future(gate.run(lambda i=i: op(f"long{i}"), cost_chars=1000)) for i in range(3)]
    await asyncio.sleep(0)
    short = asyncio.ensure_future(gate.run(lambda: op("short"), cost_chars=10))
    cancelled = asyncio.ensure_future(gate.run(lambda: op("never"), cost_chars=0))
    await asyncio.sleep(0)
    assert gate.waiting == 5
    cancelled.cancel()
    release.set()
    assert await asyncio.gather(first, *longs, short) == ["busy", "long0", "long1", "long2", "short"]
    assert order == ["busy", "short", "long0", "long1", "long2"]
    assert gate.waiting == 0 and gate._busy == 0


async def test_reply_gate_keeps_slots_for_short_questions_while_long_ones_hold_the_rest() -> None:
    # 3 slots, 1 kept for short questions: two long replies stuck sending hold the other two;
    # more long ones wait, a short one goes at once, and the long ones follow in order
    import asyncio

    from bot.discord_app.advisor import PriorityGate

    gate = PriorityGate(3, reserved=1, short_chars=300)
    release = asyncio.Event()
    order: list[str] = []

    async def op(name: str, hold: bool = False) -> str:
        order.append(name)
        if hold:
            await release.wait()
        return name

    stuck = [
        asyncio.ensure_future(gate.run(lambda i=i: op(f"stuck{i}", True), cost_chars=1000)) for i in range(2)
    ]
    await asyncio.sleep(0)
    waiting = [asyncio.ensure_future(gate.run(lambda i=i: op(f"long{i}"), cost_chars=1000)) for i in range(2)]
    await asyncio.sleep(0)
    assert order == ["stuck0", "stuck1"] and gate.waiting == 2  # the reserve is not theirs
    short = asyncio.ensure_future(gate.run(lambda: op("short"), cost_chars=20))
    assert await short == "short"  # while both stuck replies still hold their slots
    assert order == ["stuck0", "stuck1", "short"]
    release.set()
    assert await asyncio.gather(*stuck, *waiting) == ["stuck0", "stuck1", "long0", "long1"]
    assert gate.waiting == 0 and gate._busy == 0
