"""bot.storage on a real SQLite file and a real PostgreSQL server (every test runs on both)."""

from __future__ import annotations

import asyncio

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext

from bot.core.knowledge import get_catalog
from bot.core.parsing import parse
from bot.core.rig import Rig
from bot.core.types import Choice, Context, Intent, Lang, Note, NoteCode, Query
from bot.storage import GuildSettings, SqlStore, Store, open_store
from bot.storage.migrate import current_revision, head_revision
from bot.storage.schema import contexts, metadata, pending_choices, rigs
from tests.storage.support import Clock, StoreSettings

GUILD = 811_111_111_111_111_111
USER = 922_222_222_222_222_222
OTHER = 933_333_333_333_333_333
CH1, CH2, DM = 700_000_000_000_000_001, 700_000_000_000_000_002, 700_000_000_000_000_003


async def _count(store: SqlStore, table: sa.Table) -> int:
    async with store.engine.connect() as conn:
        return int((await conn.execute(sa.select(sa.func.count()).select_from(table))).scalar_one())


async def test_store_satisfies_the_interface(store: SqlStore) -> None:
    assert isinstance(store, Store)
    assert store.available


async def test_migrations_make_exactly_the_declared_schema(store: SqlStore) -> None:
    assert await current_revision(store.engine) == head_revision() is not None

    def diff(conn: sa.Connection) -> list:
        return compare_metadata(MigrationContext.configure(conn), metadata)

    async with store.engine.connect() as conn:
        assert await conn.run_sync(diff) == []


async def test_guild_settings_round_trip_update_and_delete(store: SqlStore) -> None:
    assert await store.get_guild_settings(GUILD) is None
    s = GuildSettings(GUILD, frozenset({CH1, CH2}), False, "EUR", "zh", 955_555_555_555_555_555)
    assert await store.put_guild_settings(s) is True
    assert await store.get_guild_settings(GUILD) == s
    s2 = GuildSettings(GUILD, frozenset(), True, None, None, None)
    assert await store.put_guild_settings(s2) is True
    assert await store.get_guild_settings(GUILD) == s2
    assert await store.delete_guild_settings(GUILD) is True
    assert await store.get_guild_settings(GUILD) is None


async def test_rig_is_the_users_everywhere_and_clear_user_removes_every_row(store: SqlStore) -> None:
    assert await store.get_rig(USER) is None
    rig = Rig("rtx-3090", 2, 64.0, 1500.0)
    assert await store.put_rig(USER, rig)
    assert await store.put_rig(OTHER, Rig("rtx-4090"))
    assert await store.get_rig(USER) == rig
    assert await store.put_rig(USER, Rig("rtx-4090", 1, 32.0))  # overwrite, still one row
    assert await store.get_rig(USER) == Rig("rtx-4090", 1, 32.0)
    assert await _count(store, rigs) == 2

    q = Context(last=Query(intent=Intent.FIT, models=("llama-3-8b",)))
    for channel in (CH1, CH2, DM):
        assert await store.put_context(channel, USER, q)
    assert await store.put_context(CH1, OTHER, q)
    cid = await store.put_choices("what about the 4060 ti?", [Choice("8 GB", "x")], user_id=USER)
    other_cid = await store.put_choices("which bert?", [Choice("base", "y")], user_id=OTHER)
    assert cid and other_cid

    assert await store.clear_user(USER) is True
    assert await store.get_rig(USER) is None
    for channel in (CH1, CH2, DM):
        assert await store.get_context(channel, USER) is None
    assert await store.get_choices(cid) is None
    # nobody else's rows
    assert await store.get_rig(OTHER) == Rig("rtx-4090")
    assert await store.get_context(CH1, OTHER) == q
    assert await store.get_choices(other_cid) is not None
    assert await _count(store, rigs) == 1
    assert await _count(store, contexts) == 1


async def test_context_round_trips_real_parsed_queries(store: SqlStore) -> None:
    cat = get_catalog()
    for i, question in enumerate(
        [
            "what about the 4060 ti?",
            "can 4x rtx 4090 full finetune llama 3 70b",
            "预算800美元，训练BERT-large用什么显卡",
            "what GPU for BERT under $1000",
        ]
    ):
        ctx = Context(last=parse(question, catalog=cat))
        assert await store.put_context(CH1, USER + i, ctx)
        assert await store.get_context(CH1, USER + i) == ctx
    # text no database column could hold raw (NUL), and astral characters
    odd = Context(
        last=Query(
            intent=Intent.UNKNOWN,
            text="a\x00b 🦙 \u2028",
            notes=(Note(NoteCode.CORRECTED, {"typed": "é\x00", "name": "BERT-Base"}),),
        ),
        language=Lang.ZH_HANS,
    )
    assert await store.put_context(CH2, USER, odd)
    assert await store.get_context(CH2, USER) == odd


async def test_context_expires_after_its_ttl_and_is_purged(store: SqlStore, clock: Clock) -> None:
    ctx = Context(last=Query(intent=Intent.RECOMMEND, budget_usd=800.0))
    assert store.ttl_s == 900.0
    assert await store.put_context(CH1, USER, ctx)
    assert await store.put_context(CH2, USER, ctx, ttl_s=60)
    clock.advance(61)
    assert await store.get_context(CH1, USER) == ctx
    assert await store.get_context(CH2, USER) is None  # expired: ignored at once
    clock.advance(900 - 61)
    assert await store.get_context(CH1, USER) is None  # exactly the TTL: gone
    assert await _count(store, contexts) == 2  # still there, until purged
    assert await store.purge_expired() == 2
    assert await _count(store, contexts) == 0
    # a write renews the TTL
    assert await store.put_context(CH1, USER, ctx)
    clock.advance(800)
    assert await store.put_context(CH1, USER, ctx)
    clock.advance(800)
    assert await store.get_context(CH1, USER) == ctx
    assert await store.delete_context(CH1, USER)
    assert await store.get_context(CH1, USER) is None


async def test_writes_purge_expired_rows_by_themselves(store: SqlStore, clock: Clock) -> None:
    ctx = Context()
    for i in range(5):
        assert await store.put_context(CH1, USER + i, ctx, ttl_s=10)
    assert await store.put_choices("q", [Choice("a", "b")], ttl_s=10)
    clock.advance(120)  # past the TTL and past the purge interval
    assert await store.put_context(CH2, USER, ctx)
    assert await _count(store, contexts) == 1
    assert await _count(store, pending_choices) == 0


async def test_pending_choices_by_id_with_ttl(store: SqlStore, clock: Clock) -> None:
    choices = (
        Choice("RTX 4060 Ti 8 GB", "can a 4060 ti 8gb run sdxl", "rtx-4060-ti-8gb"),
        Choice("16 GB", "…"),
    )
    cid = await store.put_choices("can a 4060 ti run sdxl", choices, user_id=USER)
    assert isinstance(cid, str) and len(cid) == 16
    got = await store.get_choices(cid)
    assert got is not None
    assert (got.id, got.question, got.choices, got.user_id) == (cid, "can a 4060 ti run sdxl", choices, USER)
    assert got.expires_at == clock() + 900
    anyone = await store.put_choices("q", [], ttl_s=5)
    assert anyone != cid
    assert (await store.get_choices(anyone)).user_id is None  # type: ignore[union-attr]
    for junk in ("", "nope", "x" * 200, None, 5):
        assert await store.get_choices(junk) is None  # type: ignore[arg-type]
    clock.advance(900)
    assert await store.get_choices(cid) is None


@pytest.mark.parametrize(
    "call",
    [
        lambda s: s.get_rig(0),
        lambda s: s.get_rig(-5),
        lambda s: s.get_rig(2**63),
        lambda s: s.put_context(1, True, Context()),
        lambda s: s.put_context(1, 1, Context(), ttl_s=float("nan")),
        lambda s: s.put_guild_settings(GuildSettings(1, frozenset({0}))),
        lambda s: s.put_guild_settings(GuildSettings(1, currency="EURO-DOLLARS")),
        lambda s: s.put_rig(1, Rig("x" * 65)),
    ],
)
async def test_bad_arguments_are_refused_before_the_database(store: SqlStore, call) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError):
        await call(store)


async def test_state_survives_a_restart(store_settings: StoreSettings, clock: Clock) -> None:
    first = await open_store(store_settings, clock=clock)
    await first.put_rig(USER, Rig("rtx-3090", 2))
    await first.put_guild_settings(GuildSettings(GUILD, frozenset({CH1})))
    await first.put_context(CH1, USER, Context(last=Query(intent=Intent.FIT, gpus=("rtx-3090",))))
    cid = await first.put_choices("q", [Choice("a", "b")], user_id=USER)
    await first.close()

    second = await open_store(store_settings, clock=clock)  # migrations again: nothing to do
    try:
        assert await second.get_rig(USER) == Rig("rtx-3090", 2)
        assert await second.get_guild_settings(GUILD) == GuildSettings(GUILD, frozenset({CH1}))
        assert await second.get_context(CH1, USER) == Context(
            last=Query(intent=Intent.FIT, gpus=("rtx-3090",))
        )
        assert cid is not None and await second.get_choices(cid) is not None
    finally:
        await second.close()


async def test_two_stores_on_one_database_see_each_others_writes(store_settings: StoreSettings) -> None:
    a, b = await asyncio.gather(open_store(store_settings), open_store(store_settings))  # migrate at once
    try:
        assert await a.put_rig(USER, Rig("rtx-3090"))
        assert await b.get_rig(USER) == Rig("rtx-3090")
        assert await b.put_guild_settings(GuildSettings(GUILD, answer_mentions=False))
        assert (await a.get_guild_settings(GUILD)) == GuildSettings(GUILD, answer_mentions=False)
        ctx = Context(last=Query(intent=Intent.COMPARE, gpus=("rtx-3090", "rtx-4090")))
        assert await a.put_context(CH1, USER, ctx)
        assert await b.get_context(CH1, USER) == ctx
        cid = await b.put_choices("q", [Choice("a", "b")])
        assert cid is not None and (await a.get_choices(cid)) is not None
        assert await b.clear_user(USER)
        assert await a.get_rig(USER) is None
    finally:
        await a.close()
        await b.close()


async def test_concurrent_writes_do_not_lose_rows(
    store: SqlStore, store_settings: StoreSettings, clock: Clock
) -> None:
    other = await open_store(
        store_settings, clock=clock
    )  # one clock: each purges what the other thinks live otherwise
    try:
        ctx = Context()
        results = await asyncio.gather(
            *(s.put_context(CH1, USER + i, ctx) for i in range(20) for s in (store, other))
        )
        assert all(results)
        assert await _count(store, contexts) == 20
    finally:
        await other.close()


async def test_a_failed_transaction_leaves_nothing_behind(store: SqlStore) -> None:
    # the engine's transactions are real on both backends (SQLite's driver would
    # otherwise commit DDL and leave a half-done migration)
    with pytest.raises(RuntimeError):
        async with store.engine.begin() as conn:
            await conn.execute(sa.text("CREATE TABLE half_done (x INTEGER)"))
            await conn.execute(sa.insert(rigs).values(user_id=USER, gpu="rtx-3090", count=1, updated_at=0.0))
            raise RuntimeError("boom")
    assert await store.get_rig(USER) is None
    async with store.engine.connect() as conn:
        names = await conn.run_sync(lambda c: sa.inspect(c).get_table_names())
    assert "half_done" not in names


async def test_a_broken_schema_degrades_instead_of_raising(
    store: SqlStore, caplog: pytest.LogCaptureFixture
) -> None:
    async with store.engine.begin() as conn:
        await conn.execute(sa.text("DROP TABLE rigs"))
    assert await store.get_rig(USER) is None
    assert await store.put_rig(USER, Rig("rtx-3090")) is False
    assert "rigs" in caplog.text  # said in the log, with the database's own words
    # the other tables still work
    assert await store.put_context(CH1, USER, Context())
    assert await store.get_context(CH1, USER) == Context()


async def test_choices_are_stored_by_reference_to_one_copy_of_the_question(store: SqlStore) -> None:
    # 25 buttons under a 1,000-character ambiguous question: each choice is the question with
    # one name replaced, so full copies would be ~25 KB per row; by reference they are the
    # question once plus each choice's replacement
    cat = get_catalog()
    q = parse(("4060 ti a100 llama " * 60)[:1000], catalog=cat)
    assert len(q.choices) == 25
    full = sum(len(c.text) for c in q.choices)
    cid = await store.put_choices(q.text, q.choices, user_id=USER)
    assert cid is not None
    async with store.engine.connect() as conn:
        row = (await conn.execute(sa.select(pending_choices).where(pending_choices.c.id == cid))).one()
    assert len(row.choices) < full / 8
    got = await store.get_choices(cid)
    assert got is not None and got.choices == q.choices and got.question == q.text
    # the saved conversation keeps them the same way
    ctx = Context(last=q)
    assert await store.put_context(CH1, USER, ctx)
    async with store.engine.connect() as conn:
        saved = (await conn.execute(sa.select(contexts.c.payload))).scalars().all()
    assert max(len(s) for s in saved) < len(q.text) + full / 4
    assert await store.get_context(CH1, USER) == ctx
