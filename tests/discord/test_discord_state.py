"""End to end, saved state (issue 16): the real bot process (``python -m bot run``)
against the local Discord stand-in, with a real SQLite file (a temp DATA_DIR)
or a real PostgreSQL server the tests start (tests/storage's throwaway cluster).

- ``/gpu-setup`` by an admin works; by a member without Manage Server it is
  refused in code (Discord's default_member_permissions is only client-side);
  the server's ask-channels, mentions switch and allowed role are obeyed.
- A rig saved with ``/gpu rig set`` is used by a later question in another
  channel (and in a DM), and the answer says so; "my rig is ..." in chat
  saves it after a button; ``/gpu rig clear`` forgets it.
- A conversation and an ask-back button keep working after the bot process is
  killed (SIGKILL) and started again on the same DATA_DIR.
- Two bot processes on one PostgreSQL, one shard each (SHARD_COUNT=2,
  SHARD_IDS=0 / 1): a guild moves to the other shard and that process answers
  the follow-up (and the button) of a question the first one answered; a rig
  saved through one is used through the other.
- A database that is down at start-up: one clear error naming the URL
  without its password, exit code 2.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from standin import (
    ADMIN_PERMS,
    BOT_ID,
    CHANNELS,
    CHANNELS2,
    GUILD2_ID,
    GUILD_ID,
    PERMS_ALL,
    ROLE_ASKERS,
    StandIn,
)
from test_discord_e2e import (
    PYTHON,
    REPO,
    callback_of,
    clip,
    interaction_reply,
    new_user,
    refers_to,
    sent,
    start_bot,
    stop_bot,
    title,
)

from bot.core.answer import answer
from bot.core.knowledge import get_catalog
from bot.core.phrase.catalog import t
from bot.core.rig import Rig, query_on_rig
from bot.core.types import Intent, Lang, Query
from tests.storage.conftest import pg_server  # noqa: F401  (the throwaway PostgreSQL fixture)
from tests.storage.support import PG_PASSWORD, PgServer, free_port

pytestmark = [pytest.mark.e2e, pytest.mark.filterwarnings("ignore:unread_data:DeprecationWarning")]

EN = Lang.EN
CHOICE_QUESTION = "can a 4060 ti run llama 2 13b in int8?"  # the core asks which 4060 Ti back


def gpu_name(gid: str) -> str:
    return str(get_catalog().gpus[gid].name)


def everything(msg: dict[str, Any]) -> str:
    """All text of a message (content, embeds, components) as one string."""
    return json.dumps(msg, ensure_ascii=False)


def buttons(msg: dict[str, Any]) -> list[dict[str, Any]]:
    return [c for row in msg.get("components") or [] for c in row.get("components", [])]


def silent(standin: StandIn, mid: int, wait: float = 3.0) -> bool:
    """No reply to message ``mid`` within ``wait`` seconds."""
    try:
        standin.wait_for(refers_to(mid), wait)
    except TimeoutError:
        return True
    return False


def on_rig(text: str, rig: Rig, context: Any = None) -> Any:
    typed = query_on_rig(text, rig, context, name=gpu_name(rig.gpu))
    assert typed is not None
    return answer(typed, context, lang=EN)


def kill(proc: subprocess.Popen[bytes]) -> None:
    """The process dies at once (no clean shutdown): only what the store saved survives."""
    proc.send_signal(signal.SIGKILL)
    proc.wait(10)


@pytest.fixture(scope="module")
def standin() -> Any:
    server = StandIn().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("state") / "data"


@pytest.fixture(scope="module")
def bot(standin: StandIn, data_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Any:
    log_path = tmp_path_factory.mktemp("statebot") / "bot.log"
    box = {"proc": start_bot(standin, log_path, DATA_DIR=str(data_dir))}
    try:
        yield box
    finally:
        stop_bot(box["proc"])
        if os.environ.get("BOT_LOG"):
            print(log_path.read_text())


# -- /gpu-setup --------------------------------------------------------------------------


def test_setup_is_refused_for_a_member_without_manage_server(standin: StandIn, bot: Any) -> None:
    assert not standin.message_posts()  # joining the server (GUILD_CREATE) posts nothing
    for path, options in (
        ("gpu-setup show", {}),
        ("gpu-setup mentions", {"answer": False}),
        ("gpu-setup channels add", {"channel": CHANNELS["extra1"]}),
    ):
        inter = standin.command(path, user_id=new_user(), permissions=PERMS_ALL, **options)
        reply = interaction_reply(standin, inter)
        assert reply["content"] == t(EN, "setup.not_admin")
        assert reply["flags"] & 64  # ephemeral
    # in their own language
    inter = standin.command("gpu-setup show", user_id=new_user(), permissions=PERMS_ALL, locale="zh-CN")
    assert interaction_reply(standin, inter)["content"] == t(Lang.ZH_HANS, "setup.not_admin")
    # nothing was changed: a mention in #general is still answered
    mid = standin.send_message(
        f"<@{BOT_ID}> how big is llama 3 8b",
        channel=CHANNELS["general"],
        user_id=new_user(),
        mentions_bot=True,
    )
    standin.wait_for(refers_to(mid), 15)


def test_setup_by_an_admin_changes_what_the_bot_answers(standin: StandIn, bot: Any) -> None:
    admin = new_user()

    def setup(path: str, **options: Any) -> str:
        inter = standin.command(path, user_id=admin, permissions=ADMIN_PERMS, **options)
        return str(interaction_reply(standin, inter)["content"])

    # the operator's ASK_CHANNEL_IDS is the starting point
    shown = setup("gpu-setup show")
    assert f"<#{CHANNELS['ask']}>" in shown and "everyone" in shown
    assert setup("gpu-setup channels add", channel=CHANNELS["extra1"]) == t(
        EN, "setup.channel_added", channel=f"<#{CHANNELS['extra1']}>"
    )
    # every message in the new ask-channel is a question
    q = "how big is deepseek v3"
    mid = standin.send_message(q, channel=CHANNELS["extra1"], user_id=new_user())
    assert title(sent(standin.wait_for(refers_to(mid), 15))) == clip(answer(q).verdict)
    # mentions off: a mention in #general is ignored, the ask-channels still answer
    assert setup("gpu-setup mentions", answer=False) == t(EN, "setup.mentions_off")
    ignored = standin.send_message(
        f"<@{BOT_ID}> {q}", channel=CHANNELS["general"], user_id=new_user(), mentions_bot=True
    )
    later = standin.send_message(q, channel=CHANNELS["extra1"], user_id=new_user())
    standin.wait_for(refers_to(later), 15)
    assert silent(standin, ignored, 1.0)
    # an allowed role: members without it are not answered, members with it are
    assert setup("gpu-setup role", role=ROLE_ASKERS) == t(EN, "setup.role_set", role=f"<@&{ROLE_ASKERS}>")
    outsider = standin.send_message(q, channel=CHANNELS["extra1"], user_id=new_user())
    member = standin.send_message(q, channel=CHANNELS["extra1"], user_id=new_user(), roles=(ROLE_ASKERS,))
    standin.wait_for(refers_to(member), 15)
    assert silent(standin, outsider, 1.0)
    inter = standin.command("gpu ask", user_id=new_user(), question=q)
    assert interaction_reply(standin, inter)["content"] == t(
        EN, "setup.role_required", role=f"<@&{ROLE_ASKERS}>"
    )
    assert setup("gpu-setup role") == t(EN, "setup.role_cleared")
    # currency and language are stored and shown
    assert setup("gpu-setup currency", code="eur") == t(EN, "setup.currency_set", code="EUR")
    bad = setup("gpu-setup currency", code="XYZ")
    assert bad.startswith(t(EN, "setup.bad_currency", value="XYZ", codes="")[:30]) and "EUR" in bad
    assert setup("gpu-setup language", language="zh-Hans") == t(
        Lang.ZH_HANS, "setup.language_set", language="简体中文"
    )
    shown = setup("gpu-setup show")  # the admin's Discord language is English; the server's is Chinese
    assert (
        shown.startswith("**我在本服务器的设置**") and "EUR" in shown and f"<#{CHANNELS['extra1']}>" in shown
    )
    assert "XYZ" not in shown
    # the server's language is the locale of answers with no words of their own (a typed command)
    typed = Query(intent=Intent.INFO, gpus=("rtx-4090",), text="/gpu info name:rtx-4090")
    inter = standin.command("gpu info", user_id=new_user(), name="rtx-4090")
    assert title(interaction_reply(standin, inter)) == clip(answer(typed, locale=Lang.ZH_HANS).verdict)
    # put everything back for the other tests
    setup("gpu-setup mentions", answer=True)
    setup("gpu-setup language", language="auto")
    setup("gpu-setup channels remove", channel=CHANNELS["extra1"])
    shown = setup("gpu-setup show")
    assert f"<#{CHANNELS['extra1']}>" not in shown and "everyone" in shown


# -- saved rigs ----------------------------------------------------------------------------


def test_a_saved_rig_is_used_in_another_channel_and_in_dms(standin: StandIn, bot: Any) -> None:
    user = new_user()
    inter = standin.command("gpu rig set", user_id=user, gpu="rtx-3090", count=2, ram_gb=64)
    rig = Rig("rtx-3090", 2, 64.0)
    saved = interaction_reply(standin, inter)["content"]
    assert (
        saved.startswith("Saved your rig: **2x ") and gpu_name("rtx-3090") in saved and "64 GB RAM" in saved
    )
    shown = interaction_reply(standin, standin.command("gpu rig show", user_id=user))["content"]
    assert shown == t(EN, "rig.show", rig=f"2x {gpu_name('rtx-3090')}, 64 GB RAM")
    # a later question in another channel, naming no card, is answered on the rig, and says so
    question = "can I run llama 3 70b?"
    expected = on_rig(question, rig)
    mid = standin.send_message(question, channel=CHANNELS["ask"], user_id=user)
    msg = sent(standin.wait_for(refers_to(mid), 20))
    assert title(msg) == clip(expected.verdict)
    note = t(EN, "note.rig_used_many", count=2, name=gpu_name("rtx-3090"))
    assert note in everything(msg)
    # someone else asking the same gets the answer without a rig
    other = standin.send_message(question, channel=CHANNELS["ask"], user_id=new_user())
    assert note not in everything(sent(standin.wait_for(refers_to(other), 20)))
    # in a DM too: the rig is the user's, not the server's
    dm = standin.send_message(
        "will my card fit mistral 7b", channel=987650000000000001, user_id=user, guild=False
    )
    assert note in everything(sent(standin.wait_for(refers_to(dm), 20)))
    # a question naming a card is about that card
    named = standin.send_message("can I run llama 3 8b on a 4090?", channel=CHANNELS["ask"], user_id=user)
    assert note not in everything(sent(standin.wait_for(refers_to(named), 20)))


def test_a_rig_said_in_chat_is_saved_by_its_button_and_cleared(standin: StandIn, bot: Any) -> None:
    user = new_user()
    mid = standin.send_message("my rig is a 4090 and 32GB RAM", channel=CHANNELS["ask"], user_id=user)
    rec = standin.wait_for(refers_to(mid), 15)
    msg = sent(rec)
    assert msg["content"].startswith("Save this as your rig? **")
    (button,) = buttons(msg)
    assert button["custom_id"].startswith(f"gpu:rig:{user}:1:32:-:")
    # someone else cannot save it
    other = standin.press(
        int(rec.response["id"]), button["custom_id"], user_id=new_user(), channel=CHANNELS["ask"]
    )
    assert interaction_reply(standin, other)["content"] == t(EN, "rig.not_yours")
    pressed = standin.press(
        int(rec.response["id"]), button["custom_id"], user_id=user, channel=CHANNELS["ask"]
    )
    done = standin.wait_for(callback_of(pressed, 7), 15)  # the confirmation is edited in place
    assert done.payload["data"]["content"].startswith("Saved your rig: **")
    assert done.payload["data"]["components"] == []
    shown = interaction_reply(standin, standin.command("gpu rig show", user_id=user))["content"]
    assert gpu_name(button["custom_id"].rsplit(":", 1)[1]) in shown and "32 GB RAM" in shown
    # /gpu rig clear removes every row about the user
    cleared = interaction_reply(standin, standin.command("gpu rig clear", user_id=user))["content"]
    assert cleared == t(EN, "rig.cleared")
    assert interaction_reply(standin, standin.command("gpu rig show", user_id=user))["content"] == t(
        EN, "rig.none"
    )


def test_help_names_the_setup_and_rig_commands(standin: StandIn, bot: Any) -> None:
    reply = interaction_reply(standin, standin.command("gpu help", user_id=new_user()))
    assert t(EN, "help.discord_setup") in everything(reply)
    zh = interaction_reply(standin, standin.command("gpu help", user_id=new_user(), locale="zh-CN"))
    assert t(Lang.ZH_HANS, "help.discord_setup") in everything(zh)


def test_an_expired_button_says_so(standin: StandIn, bot: Any, data_dir: Path) -> None:
    import sqlite3

    mid = standin.send_message(CHOICE_QUESTION, channel=CHANNELS["ask"], user_id=new_user())
    rec = standin.wait_for(refers_to(mid), 20)
    pick = buttons(sent(rec))[0]["custom_id"]
    # fifteen minutes pass (the row's expiry moved into the past, as time would)
    with sqlite3.connect(data_dir / "gpu-advisor.sqlite3") as db:
        assert (
            db.execute(
                "UPDATE pending_choices SET expires_at = 1 WHERE id = ?", (pick.split(":")[2],)
            ).rowcount
            == 1
        )
    pressed = standin.press(int(rec.response["id"]), pick, user_id=new_user(), channel=CHANNELS["ask"])
    assert interaction_reply(standin, pressed)["content"] == t(EN, "discord.choices_expired")


def test_rig_set_refuses_an_unknown_card_with_suggestions(standin: StandIn, bot: Any) -> None:
    inter = standin.command("gpu rig set", user_id=new_user(), gpu="rtx 3091 super ultra")
    text = interaction_reply(standin, inter)["content"]
    assert "rtx 3091 super ultra" in text and "/gpu list" in text


# -- surviving a restart -------------------------------------------------------------------


def test_conversation_and_button_survive_a_killed_process(
    standin: StandIn, bot: Any, data_dir: Path, tmp_path: Path
) -> None:
    user = new_user()
    first, second = "what gpu for bert under $1000", "what about under $500?"
    a1 = answer(first)
    a2 = answer(second, a1.context)
    assert a2.verdict != answer(second).verdict  # the follow-up needs the context
    m1 = standin.send_message(first, channel=CHANNELS["ask"], user_id=user)
    assert title(sent(standin.wait_for(refers_to(m1), 20))) == clip(a1.verdict)
    chooser = new_user()
    expected = answer(CHOICE_QUESTION)
    assert expected.choices
    m3 = standin.send_message(CHOICE_QUESTION, channel=CHANNELS["ask"], user_id=chooser)
    rec = standin.wait_for(refers_to(m3), 20)
    pick = buttons(sent(rec))[1]
    assert pick["custom_id"].startswith("gpu:pick:")

    kill(bot["proc"])
    bot["proc"] = start_bot(standin, tmp_path / "bot2.log", DATA_DIR=str(data_dir))

    m2 = standin.send_message(second, channel=CHANNELS["ask"], user_id=user)
    assert title(sent(standin.wait_for(refers_to(m2), 20))) == clip(a2.verdict)
    pressed = standin.press(
        int(rec.response["id"]), pick["custom_id"], user_id=chooser, channel=CHANNELS["ask"]
    )
    reply = interaction_reply(standin, pressed, timeout=20)
    assert title(reply) == clip(answer(expected.choices[1].text, expected.context).verdict)


# -- the database ------------------------------------------------------------------------------


def test_a_database_down_at_start_up_is_one_clear_error(tmp_path: Path) -> None:
    port = free_port()  # nothing listens there
    url = f"postgresql://advisor:{PG_PASSWORD}@127.0.0.1:{port}/advisor"
    env = {k: v for k, v in os.environ.items() if k not in ("DATA_DIR", "ASK_CHANNEL_IDS", "SHARD_COUNT")}
    env.update(DISCORD_TOKEN="fake", DATABASE_URL=url, DISCORD_API_BASE="http://127.0.0.1:9/api/v10")
    proc = subprocess.run(
        [PYTHON, "-m", "bot", "run"], cwd=REPO, env=env, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 2, proc.stderr
    errors = [line for line in proc.stderr.splitlines() if "error" in line.lower()]
    assert len(errors) == 1, proc.stderr
    assert f"postgresql+asyncpg://advisor:***@127.0.0.1:{port}/advisor" in errors[0]
    assert PG_PASSWORD not in proc.stderr + proc.stdout
    assert "Traceback" not in proc.stderr


def test_two_processes_on_one_postgresql_share_conversations_and_rigs(
    pg_server: PgServer,  # noqa: F811
    tmp_path: Path,
) -> None:
    url = pg_server.new_database()
    server = StandIn().start()
    procs: list[subprocess.Popen[bytes]] = []
    try:
        common = {"DATABASE_URL": url, "SHARD_COUNT": "2", "DATA_DIR": str(tmp_path / "unused")}
        procs.append(start_bot(server, tmp_path / "shard0.log", SHARD_IDS="0", **common))
        procs.append(start_bot(server, tmp_path / "shard1.log", SHARD_IDS="1", **common))
        server.wait_until(lambda: server.connected_shards() == {0, 1}, 30, "both shards")
        assert server.shard_for(GUILD_ID) == 0 and server.shard_for(GUILD2_ID) == 1

        # process 0 answers a question in GUILD_ID (and offers buttons)
        user = new_user()
        first, second = "what gpu for bert under $1000", "what about under $500?"
        a1 = answer(first)
        m1 = server.send_message(first, channel=CHANNELS["ask"], user_id=user)
        assert title(sent(server.wait_for(refers_to(m1), 30))) == clip(a1.verdict)
        chooser = new_user()
        expected = answer(CHOICE_QUESTION)
        m3 = server.send_message(CHOICE_QUESTION, channel=CHANNELS["ask"], user_id=chooser)
        rec = server.wait_for(refers_to(m3), 30)
        pick = buttons(sent(rec))[0]

        # Discord moves GUILD_ID to shard 1 (re-sharding): process 1 gets its events now
        mark = server.mark()
        server.move_guild(GUILD_ID, 1)
        time.sleep(0.5)
        assert not server.message_posts(mark)  # a guild arriving on a shard: nothing posted
        m2 = server.send_message(second, channel=CHANNELS["ask"], user_id=user)
        assert title(sent(server.wait_for(refers_to(m2), 30))) == clip(answer(second, a1.context).verdict)
        pressed = server.press(
            int(rec.response["id"]), pick["custom_id"], user_id=chooser, channel=CHANNELS["ask"]
        )
        reply = interaction_reply(server, pressed, timeout=30)
        assert title(reply) == clip(answer(expected.choices[0].text, expected.context).verdict)
        # the follow-up and the press went to shard 1's connection only (process 1)
        assert server.dispatched_to(m2) == [1] and server.dispatched_to(int(pressed["id"])) == [1]
        assert server.dispatched_to(m1) == [0]

        # a rig saved through process 0 (GUILD_ID, back on shard 0) is used by process 1 (GUILD2_ID)
        server.move_guild(GUILD_ID, 0)
        time.sleep(0.5)
        rigger = new_user()
        saved = server.command("gpu rig set", user_id=rigger, gpu="rtx-4090", where=CHANNELS["general"])
        assert interaction_reply(server, saved, timeout=30)["content"].startswith("Saved your rig")
        question = "can I run llama 3 8b?"
        mid = server.send_message(
            f"<@{BOT_ID}> {question}",
            channel=CHANNELS2["lobby"],
            guild_id=GUILD2_ID,
            user_id=rigger,
            mentions_bot=True,
        )
        msg = sent(server.wait_for(refers_to(mid), 30))  # answered by process 1 (GUILD2_ID's shard)
        assert title(msg) == clip(on_rig(question, Rig("rtx-4090")).verdict)
        assert t(EN, "note.rig_used", name=gpu_name("rtx-4090")) in everything(msg)
    finally:
        for proc in procs:
            stop_bot(proc)
        if os.environ.get("BOT_LOG"):
            for name in ("shard0.log", "shard1.log"):
                print((tmp_path / name).read_text())
        server.stop()


@pytest.fixture
def own_pg() -> Any:
    """A PostgreSQL cluster of this test's own, so it can be stopped and started again."""
    import pwd
    import shutil
    import tempfile

    from tests.storage import support

    bindir = support.find_bindir()
    if bindir is None:
        pytest.fail("PostgreSQL server binaries not found (.ci/run installs postgresql)", pytrace=False)
    runas = "postgres" if os.geteuid() == 0 else None
    if runas:
        pwd.getpwnam(runas)
    root = Path(tempfile.mkdtemp(prefix="gpu-advisor-pg-"))  # not under pytest's 0700 tmp: postgres reads it
    if runas:
        shutil.chown(root, user=runas)
    server = PgServer(bindir, root, runas)
    server.init()
    server.sockdir.mkdir()
    if runas:
        shutil.chown(server.sockdir, user=runas)
    server.start()
    box = {"server": server, "running": True}
    try:
        yield box
    finally:
        if box["running"]:
            server.stop()
        shutil.rmtree(root, ignore_errors=True)


def test_a_database_that_goes_away_degrades_and_recovers(own_pg: dict[str, Any], tmp_path: Path) -> None:
    pg: PgServer = own_pg["server"]
    url = pg.new_database()
    log_path = tmp_path / "bot.log"
    standin = StandIn().start()  # its own: one bot per stand-in (the module's bot is still connected)
    proc = start_bot(standin, log_path, DATABASE_URL=url)
    try:
        user = new_user()
        inter = standin.command("gpu rig set", user_id=user, gpu="rtx-4090")
        assert interaction_reply(standin, inter)["content"].startswith("Saved your rig")
        question = "can I run llama 3 8b?"
        note = t(EN, "note.rig_used", name=gpu_name("rtx-4090"))

        pg.stop()
        own_pg["running"] = False
        # still answering (without the saved rig), in the ask-channel and by slash command
        for i in range(3):
            mid = standin.send_message(question, channel=CHANNELS["ask"], user_id=user)
            msg = sent(standin.wait_for(refers_to(mid), 30))
            assert title(msg) == clip(answer(question).verdict), i
            assert note not in everything(msg)
        shown = standin.command("gpu rig show", user_id=user)
        assert interaction_reply(standin, shown)["content"] == t(EN, "rig.store_down")
        # a follow-up still works within this process (from memory)
        first, second = "what gpu for bert under $1000", "what about under $500?"
        a1 = answer(first)
        m1 = standin.send_message(first, channel=CHANNELS["other"], user_id=user)
        standin.wait_for(refers_to(m1), 30)
        m2 = standin.send_message(second, channel=CHANNELS["other"], user_id=user)
        assert title(sent(standin.wait_for(refers_to(m2), 30))) == clip(answer(second, a1.context).verdict)
        logged = log_path.read_text()
        assert logged.count("is unreachable") == 1, logged[-3000:]
        assert PG_PASSWORD not in logged

        pg.start()
        own_pg["running"] = True
        deadline = time.monotonic() + 60
        while True:  # the store retries every few seconds; the saved rig is used again
            mid = standin.send_message(question, channel=CHANNELS["ask"], user_id=user)
            if note in everything(sent(standin.wait_for(refers_to(mid), 30))):
                break
            assert time.monotonic() < deadline, "the database was not picked up again"
            time.sleep(2)
        assert "is back" in log_path.read_text()
    finally:
        stop_bot(proc)
        standin.stop()
        if os.environ.get("BOT_LOG"):
            print(log_path.read_text())
