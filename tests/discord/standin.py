"""A local stand-in for Discord: gateway websocket + the REST routes the bot uses.

Runs an aiohttp server on 127.0.0.1 (a free port) in a background thread,
so tests drive it with plain synchronous calls while the real bot runs in a
subprocess. Everything the bot sends is recorded (``requests``,
``gateway_ops``) for assertions; unknown routes are logged loudly and
recorded in ``unknown``.

Gateway: HELLO, IDENTIFY -> READY + GUILD_CREATE, heartbeats -> ACK,
RESUME -> replay of missed events + RESUMED (unknown session -> INVALID
SESSION), dispatch of MESSAGE_CREATE and INTERACTION_CREATE. Encoding json;
``compress=zlib-stream`` is honoured (discord.py asks for it), otherwise
plain text frames.

REST: /gateway/bot, /users/@me, /oauth2/applications/@me, application
commands (GET/PUT, global and guild), POST channel messages (JSON or
multipart), interaction callbacks, webhook follow-ups and edits of the
original response, edits of the bot's messages (PATCH), reactions (PUT).
``fail_next_message(429 | 500)`` / ``fail_messages([...])`` inject errors on
the next channel-message POSTs (a storm: hundreds of 429s and 500s);
``drop_gateway()`` cuts the websocket. Users can also edit and delete their
messages (MESSAGE_UPDATE, MESSAGE_DELETE).

Shards: each gateway connection identifies with ``shard: [id, count]`` and
gets the guilds Discord would route to it (``(guild_id >> 22) % count``);
events for a guild go to its shard's connection, DMs to shard 0.
``move_guild(guild, shard)`` moves a guild to another shard (as re-sharding
does: GUILD_CREATE there). Two guilds exist: GUILD_ID (shard 0 of 2) and
GUILD2_ID (shard 1 of 2). Members have the permissions the test gives
(``permissions=``; PERMS_ALL lacks Manage Server, ADMIN_PERMS has it) and
roles (``roles=``), as Discord sends them; slash commands anywhere in the
registered tree are run with ``command("gpu-setup channels add", ...)``.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import itertools
import json
import logging
import threading
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import WSMsgType, web

__all__ = [
    "StandIn",
    "Recorded",
    "BOT_ID",
    "APP_ID",
    "GUILD_ID",
    "GUILD2_ID",
    "CHANNELS",
    "CHANNELS2",
    "ROLE_ASKERS",
    "PERMS_ALL",
    "ADMIN_PERMS",
    "MANAGE_GUILD",
    "OPT",
    "shard_of",
]

log = logging.getLogger("standin")

BOT_ID = 100000000000000001
APP_ID = BOT_ID
GUILD_ID = 200000000000000001
CHANNELS = {
    "general": 300000000000000001,  # mentions only
    "ask": 300000000000000002,  # listed in ASK_CHANNEL_IDS
    "noembed": 300000000000000003,  # the bot lacks Embed Links here
    "other": 300000000000000004,  # another ask channel for the burst
    # more channels, for load runs across many channels (bench/stress.py)
    **{f"extra{i}": 300000000000000010 + i for i in range(1, 7)},
}
# a second guild, routed to the other shard when SHARD_COUNT=2
GUILD2_ID = 200000000004194306
CHANNELS2 = {"lobby": 300000000000000101}
ROLE_ASKERS = 400000000000000001  # a role in GUILD_ID
EMBED_LINKS = 1 << 14
MANAGE_GUILD = 1 << 5
# view channel, send messages, embed links, attach files, read history, use application commands
PERMS_ALL = (1 << 10) | (1 << 11) | (1 << 14) | (1 << 15) | (1 << 16) | (1 << 31)
ADMIN_PERMS = PERMS_ALL | MANAGE_GUILD
OPT = {"sub": 1, "group": 2, "string": 3, "integer": 4, "boolean": 5, "channel": 7, "role": 8, "number": 10}


def shard_of(guild_id: int | None, shard_count: int) -> int:
    """The shard Discord sends a guild's events to (DMs: shard 0)."""
    return 0 if guild_id is None or shard_count <= 1 else (guild_id >> 22) % shard_count


_snowflakes = itertools.count(900000000000000001)


def snowflake() -> int:
    return next(_snowflakes)


def now_iso() -> str:
    return dt.datetime.now(dt.UTC).isoformat()


def user_payload(user_id: int, name: str, *, bot: bool = False) -> dict[str, Any]:
    return {
        "id": str(user_id),
        "username": name,
        "discriminator": "0",
        "global_name": name,
        "avatar": None,
        "bot": bot,
        "public_flags": 0,
    }


BOT_USER = user_payload(BOT_ID, "gpu-advisor", bot=True)


@dataclass
class Recorded:
    method: str
    path: str
    query: dict[str, str]
    json: Any
    files: list[dict[str, Any]]
    headers: dict[str, str]
    status: int
    at: float
    response: Any = None

    @property
    def payload(self) -> dict[str, Any]:
        return self.json if isinstance(self.json, dict) else {}


@dataclass
class _Session:
    session_id: str
    shard: int = 0
    seq: int = 0
    events: list[dict[str, Any]] = field(default_factory=list)  # every dispatch, for replay


class _Conn:
    def __init__(self, ws: web.WebSocketResponse, request: web.Request, compress: bool) -> None:
        self.ws = ws
        self.request = request
        self.compressor = zlib.compressobj() if compress else None
        self.session: _Session | None = None
        self.shard = 0
        self.lock = asyncio.Lock()

    async def send(self, payload: dict[str, Any]) -> None:
        text = json.dumps(payload)
        async with self.lock:
            if self.compressor is not None:
                data = self.compressor.compress(text.encode()) + self.compressor.flush(zlib.Z_SYNC_FLUSH)
                await self.ws.send_bytes(data)
            else:
                await self.ws.send_str(text)


class StandIn:
    """Start with ``start()``; stop with ``stop()``. All public methods are thread-safe."""

    def __init__(self) -> None:
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._runner: web.AppRunner | None = None
        self.port = 0
        self._cond = threading.Condition()
        self.requests: list[Recorded] = []
        self.gateway_ops: list[dict[str, Any]] = []  # what the bot sent on the gateway
        self.gateway_connects: list[dict[str, str]] = []  # query of each websocket connect
        self.unknown: list[str] = []
        self.commands: dict[str | None, list[dict[str, Any]]] = {}  # guild id (None = global) -> commands
        self.messages: dict[int, dict[str, Any]] = {}  # id -> message object we created
        self.user_messages: dict[int, dict[str, Any]] = {}  # id -> message a user posted
        self.sessions: dict[str, _Session] = {}
        self._conns: dict[int, _Conn] = {}  # shard -> its live connection
        self.shard_count = 1  # from the last IDENTIFY
        self.guild_shards: dict[int, int] = {}  # guilds moved off their usual shard
        self.dispatched: list[tuple[int, str, str]] = []  # (shard, event, id) of each dispatch
        self._inject: list[tuple[int, float]] = []  # (status, retry_after) for the next message POSTs
        self._inject_followups: list[tuple[int, float]] = []  # ... for the next webhook follow-up POSTs
        self.ready_count = 0
        self.resumed_count = 0

    # -- lifecycle -------------------------------------------------------------------

    @property
    def api_base(self) -> str:
        return f"http://127.0.0.1:{self.port}/api/v10"

    @property
    def gateway_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/gateway"

    def start(self) -> StandIn:
        started = threading.Event()
        errors: list[BaseException] = []

        def main() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            asyncio.set_event_loop(loop)
            try:
                loop.run_until_complete(self._start_server())
            except BaseException as exc:  # pragma: no cover
                errors.append(exc)
                started.set()
                return
            started.set()
            loop.run_forever()
            loop.run_until_complete(self._stop_server())
            loop.close()

        self._thread = threading.Thread(target=main, name="discord-standin", daemon=True)
        self._thread.start()
        if not started.wait(10):
            raise RuntimeError("stand-in did not start")
        if errors:
            raise errors[0]
        return self

    def stop(self) -> None:
        if self._loop is not None and self._thread is not None:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(10)

    async def _start_server(self) -> None:
        app = web.Application(client_max_size=32 * 1024 * 1024)
        app.router.add_get("/gateway", self._gateway)
        app.router.add_route("*", "/api/v10/{tail:.*}", self._rest)
        app.router.add_route("*", "/{tail:.*}", self._rest)
        self._runner = web.AppRunner(app, handle_signals=False, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = self._runner.addresses[0][1]

    @property
    def _conn(self) -> _Conn | None:
        """Shard 0's connection (a bot without shards has only that one)."""
        return self._conns.get(0)

    def shard_for(self, guild_id: int | None) -> int:
        if guild_id is not None and guild_id in self.guild_shards:
            return self.guild_shards[guild_id]
        return shard_of(guild_id, self.shard_count)

    async def _stop_server(self) -> None:
        for conn in list(self._conns.values()):
            await conn.ws.close()
        if self._runner is not None:
            await self._runner.cleanup()

    def _call(self, coro: Any, timeout: float = 10.0) -> Any:
        assert self._loop is not None
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(timeout)

    # -- waiting ---------------------------------------------------------------------

    def wait_for(
        self, predicate: Callable[[Recorded], bool], timeout: float = 15.0, *, start: int = 0, what: str = ""
    ) -> Recorded:
        """The first recorded request (from index ``start``) matching ``predicate``."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for rec in self.requests[start:]:
                    if predicate(rec):
                        return rec
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"timed out after {timeout}s waiting for {what or predicate}")
                self._cond.wait(left)

    def wait_until(self, check: Callable[[], bool], timeout: float = 15.0, what: str = "") -> None:
        deadline = time.monotonic() + timeout
        with self._cond:
            while not check():
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"timed out after {timeout}s waiting for {what or check}")
                self._cond.wait(min(left, 0.2))  # ``check`` may watch things outside the stand-in

    def wait_ready(self, timeout: float = 30.0) -> None:
        self.wait_until(lambda: self.ready_count > 0, timeout, "READY")

    def _notify(self) -> None:
        with self._cond:
            self._cond.notify_all()

    def mark(self) -> int:
        with self._cond:
            return len(self.requests)

    def message_posts(self, start: int = 0) -> list[Recorded]:
        with self._cond:
            return [r for r in self.requests[start:] if _is_message_post(r)]

    # -- injections ------------------------------------------------------------------

    def fail_next_message(self, status: int, retry_after: float = 0.3) -> None:
        """The next POST /channels/{id}/messages answers ``status`` (429 or 5xx) once."""
        with self._cond:
            self._inject.append((status, retry_after))

    def fail_messages(self, failures: list[tuple[int, float]]) -> None:
        """The next len(failures) message POSTs answer these (status, retry_after), in order."""
        with self._cond:
            self._inject.extend(failures)

    def fail_followups(self, failures: list[tuple[int, float]]) -> None:
        """The next len(failures) interaction follow-up POSTs (webhooks) answer these."""
        with self._cond:
            self._inject_followups.extend(failures)

    def injections_left(self) -> int:
        with self._cond:
            return len(self._inject)

    def drop_gateway(self) -> None:
        """Cut the websocket without a close frame, like a network failure."""
        self._call(self._drop())

    async def _drop(self) -> None:
        conn = self._conns.pop(0, None)
        if conn is not None:
            transport = conn.request.transport
            if transport is not None:
                transport.abort()

    # -- gateway ---------------------------------------------------------------------

    async def _gateway(self, request: web.Request) -> web.StreamResponse:
        query = dict(request.query)
        with self._cond:
            self.gateway_connects.append(query)
        ws = web.WebSocketResponse(autoping=True, max_msg_size=0)
        await ws.prepare(request)
        conn = _Conn(ws, request, compress=query.get("compress") == "zlib-stream")
        if query.get("compress") not in (None, "zlib-stream"):
            log.warning("stand-in: unsupported compress=%s, sending plain text", query.get("compress"))
        await conn.send({"op": 10, "d": {"heartbeat_interval": 41250}, "s": None, "t": None})
        try:
            async for msg in ws:
                if msg.type is not WSMsgType.TEXT:
                    continue
                data = json.loads(msg.data)
                await self._on_op(conn, data)
        finally:
            if self._conns.get(conn.shard) is conn:
                del self._conns[conn.shard]
        return ws

    async def _take_shard(self, conn: _Conn, shard: int) -> None:
        """``conn`` now serves ``shard``: an older connection of that shard is closed."""
        old = self._conns.get(shard)
        conn.shard = shard
        self._conns[shard] = conn
        if old is not None and old is not conn:
            await old.ws.close(code=4000)

    def guilds_of(self, shard: int) -> list[dict[str, Any]]:
        return [g for g in (guild_payload(), guild2_payload()) if self.shard_for(int(g["id"])) == shard]

    async def _on_op(self, conn: _Conn, data: dict[str, Any]) -> None:
        op = data.get("op")
        with self._cond:
            self.gateway_ops.append(data)
            self._cond.notify_all()
        if op == 1:  # heartbeat
            await conn.send({"op": 11, "d": None, "s": None, "t": None})
        elif op == 2:  # identify
            shard_id, shard_count = data["d"].get("shard") or [0, 1]
            self.shard_count = int(shard_count)
            session = _Session(session_id=f"session-{snowflake()}", shard=int(shard_id))
            self.sessions[session.session_id] = session
            conn.session = session
            await self._take_shard(conn, int(shard_id))
            guilds = self.guilds_of(int(shard_id))
            await self._dispatch_on(
                conn,
                "READY",
                {
                    "v": 10,
                    "user": BOT_USER,
                    "guilds": [{"id": g["id"], "unavailable": True} for g in guilds],
                    "session_id": session.session_id,
                    "resume_gateway_url": self.gateway_url,
                    "application": {"id": str(APP_ID), "flags": 0},
                    "private_channels": [],
                    "relationships": [],
                    "presences": [],
                    "user_settings": {},
                    "shard": data["d"].get("shard", [0, 1]),
                },
            )
            for guild in guilds:
                await self._dispatch_on(conn, "GUILD_CREATE", guild)
            with self._cond:
                self.ready_count += 1
                self._cond.notify_all()
        elif op == 6:  # resume
            d = data["d"]
            session = self.sessions.get(d.get("session_id"))
            if session is None:
                await conn.send({"op": 9, "d": False, "s": None, "t": None})
                return
            conn.session = session
            await self._take_shard(conn, session.shard)
            missed = [e for e in session.events if e["s"] > (d.get("seq") or 0)]
            for event in missed:
                await conn.send(event)
            await self._dispatch_on(conn, "RESUMED", {})
            with self._cond:
                self.resumed_count += 1
                self._cond.notify_all()
        elif op in (3, 4, 8):  # presence, voice, request members: ignore
            pass
        else:
            log.warning("stand-in: unknown gateway op %s: %s", op, data)
            with self._cond:
                self.unknown.append(f"gateway op {op}")

    async def _dispatch_on(
        self, conn: _Conn | None, event: str, d: dict[str, Any], shard: int | None = None
    ) -> None:
        session = conn.session if conn else None
        if session is None:
            # No live connection: keep it on the shard's newest session for replay on RESUME.
            mine = [x for x in self.sessions.values() if shard is None or x.shard == shard]
            if not mine:
                raise RuntimeError("no gateway session yet")
            session = mine[-1]
        session.seq += 1
        payload = {"op": 0, "t": event, "s": session.seq, "d": d}
        session.events.append(payload)
        if conn is not None:
            try:
                await conn.send(payload)
            except (ConnectionResetError, RuntimeError):
                log.info("stand-in: connection gone; %s kept for replay", event)

    def dispatch(self, event: str, d: dict[str, Any]) -> None:
        """Send ``event`` to the connection of the shard its guild is on (DMs: shard 0)."""
        guild = d.get("guild_id") if event != "GUILD_CREATE" else d.get("id")
        shard = self.shard_for(int(guild) if guild else None)

        with self._cond:
            self.dispatched.append((shard, event, str(d.get("id", ""))))

        async def go() -> None:
            await self._dispatch_on(self._conns.get(shard), event, d, shard)

        self._call(go())

    def dispatched_to(self, event_id: int) -> list[int]:
        """The shards the event(s) with this id (a message, an interaction) were sent to."""
        with self._cond:
            return [shard for shard, _, ident in self.dispatched if ident == str(event_id)]

    def move_guild(self, guild_id: int, shard: int) -> None:
        """Discord moves a guild to another shard (re-sharding): that shard gets GUILD_CREATE."""
        with self._cond:
            self.guild_shards[guild_id] = shard
        payload = guild_payload() if guild_id == GUILD_ID else guild2_payload()
        self.dispatch("GUILD_CREATE", payload)

    def connected_shards(self) -> set[int]:
        return set(self._conns)

    # -- what users do ----------------------------------------------------------------

    def send_message(
        self,
        content: str,
        *,
        channel: int,
        user_id: int,
        username: str = "user",
        guild: bool = True,
        mentions_bot: bool = False,
        guild_id: int = GUILD_ID,
        roles: tuple[int, ...] = (),
    ) -> int:
        """A user posts ``content``; returns the message id."""
        mid = snowflake()
        author = user_payload(user_id, username)
        msg: dict[str, Any] = {
            "id": str(mid),
            "channel_id": str(channel),
            "author": author,
            "content": content,
            "timestamp": now_iso(),
            "edited_timestamp": None,
            "tts": False,
            "mention_everyone": "@everyone" in content,
            "mentions": [BOT_USER] if mentions_bot else [],
            "mention_roles": [],
            "attachments": [],
            "embeds": [],
            "pinned": False,
            "type": 0,
            "flags": 0,
            "components": [],
        }
        if guild:
            msg["guild_id"] = str(guild_id)
            msg["member"] = {
                "roles": [str(r) for r in roles],
                "joined_at": now_iso(),
                "deaf": False,
                "mute": False,
                "flags": 0,
            }
        with self._cond:
            self.user_messages[mid] = msg
        self.dispatch("MESSAGE_CREATE", msg)
        return mid

    def edit_message(self, message_id: int, content: str) -> None:
        """The author edits their message: MESSAGE_UPDATE with the full new message."""
        with self._cond:
            msg = dict(self.user_messages[message_id])
            msg["content"] = content
            msg["edited_timestamp"] = now_iso()
            msg["mention_everyone"] = "@everyone" in content
            self.user_messages[message_id] = msg
        self.dispatch("MESSAGE_UPDATE", msg)

    def delete_message(self, message_id: int) -> None:
        msg = self.user_messages[message_id]
        d = {"id": msg["id"], "channel_id": msg["channel_id"]}
        if "guild_id" in msg:
            d["guild_id"] = msg["guild_id"]
        self.dispatch("MESSAGE_DELETE", d)

    def send_then_delete(self, content: str, *, channel: int, user_id: int, guild: bool = True) -> int:
        """A question posted and deleted at once (both events in one go): returns its id."""
        mid = snowflake()
        msg = {
            "id": str(mid),
            "channel_id": str(channel),
            "author": user_payload(user_id, "user"),
            "content": content,
            "timestamp": now_iso(),
            "edited_timestamp": None,
            "tts": False,
            "mention_everyone": False,
            "mentions": [],
            "mention_roles": [],
            "attachments": [],
            "embeds": [],
            "pinned": False,
            "type": 0,
            "flags": 0,
            "components": [],
        }
        deleted = {"id": str(mid), "channel_id": str(channel)}
        if guild:
            msg["guild_id"] = deleted["guild_id"] = str(GUILD_ID)
            msg["member"] = {"roles": [], "joined_at": now_iso(), "deaf": False, "mute": False, "flags": 0}

        async def go() -> None:
            await self._dispatch_on(self._conn, "MESSAGE_CREATE", msg)
            await self._dispatch_on(self._conn, "MESSAGE_DELETE", deleted)

        self._call(go())
        return mid

    def _interaction_base(
        self,
        itype: int,
        *,
        user_id: int,
        channel: int,
        guild: bool,
        data: dict[str, Any],
        locale: str = "en-US",
        guild_id: int = GUILD_ID,
        permissions: int = PERMS_ALL,
        roles: tuple[int, ...] = (),
    ) -> dict[str, Any]:
        iid = snowflake()
        user = user_payload(user_id, f"user{user_id % 1000}")
        payload: dict[str, Any] = {
            "id": str(iid),
            "application_id": str(APP_ID),
            "type": itype,
            "token": f"itoken-{iid}",
            "version": 1,
            "data": data,
            "locale": locale,
            "entitlements": [],
            "attachment_size_limit": 10 * 1024 * 1024,
            "app_permissions": str(PERMS_ALL),
        }
        if guild:
            payload["guild_id"] = str(guild_id)
            payload["guild_locale"] = "en-US"
            payload["channel_id"] = str(channel)
            payload["channel"] = {"id": str(channel), "type": 0, "guild_id": str(guild_id), "name": "c"}
            payload["member"] = {
                "user": user,
                "roles": [str(r) for r in roles],
                "joined_at": now_iso(),
                "deaf": False,
                "mute": False,
                "flags": 0,
                "permissions": str(permissions),
            }
            payload["authorizing_integration_owners"] = {"0": str(guild_id)}
            payload["context"] = 0
        else:
            payload["channel_id"] = str(channel)
            payload["channel"] = {"id": str(channel), "type": 1, "recipients": [user]}
            payload["user"] = user
            payload["authorizing_integration_owners"] = {"1": str(user_id)}
            payload["context"] = 1
        return payload

    def _command_options(self, sub: str, options: dict[str, Any], focused: str | None) -> dict[str, Any]:
        cmds = self.commands.get(None) or next(iter(self.commands.values()), [])
        group = next(c for c in cmds if c["name"] == "gpu")
        spec = next(o for o in group["options"] if o["name"] == sub)
        types = {o["name"]: o["type"] for o in spec.get("options", [])}
        opts = []
        for name, value in options.items():
            if name not in types:
                raise KeyError(f"/gpu {sub} has no option {name!r}; it has {sorted(types)}")
            opt = {"name": name, "type": types[name], "value": value}
            if name == focused:
                opt["focused"] = True
            opts.append(opt)
        return {
            "id": group.get("id", "1"),
            "name": "gpu",
            "type": 1,
            "options": [{"name": sub, "type": OPT["sub"], "options": opts}],
        }

    def slash(
        self,
        sub: str,
        *,
        user_id: int,
        channel: int = CHANNELS["general"],
        guild: bool = True,
        locale: str = "en-US",
        **options: Any,
    ) -> dict[str, Any]:
        """A user (with Discord locale ``locale``) runs ``/gpu <sub> option:value ...``; returns the payload."""
        data = self._command_options(sub, options, None)
        payload = self._interaction_base(
            2, user_id=user_id, channel=channel, guild=guild, data=data, locale=locale
        )
        self.dispatch("INTERACTION_CREATE", payload)
        return payload

    def command(
        self,
        path: str,
        *,
        user_id: int,
        where: int = CHANNELS["general"],
        guild: bool = True,
        guild_id: int = GUILD_ID,
        locale: str = "en-US",
        permissions: int = PERMS_ALL,
        roles: tuple[int, ...] = (),
        **options: Any,
    ) -> dict[str, Any]:
        """A user runs any registered slash command, e.g. ``command("gpu rig set", gpu="rtx-3090")``
        or ``command("gpu-setup channels add", channel=CHANNELS["ask"], permissions=ADMIN_PERMS)``.
        Channel and role options are resolved as Discord does (``data.resolved``); ``where`` is the
        channel the command is run in (``channel`` is an option name)."""
        top, *subs = path.split()
        cmds = self.commands.get(None) or next(iter(self.commands.values()), [])
        spec = next(c for c in cmds if c["name"] == top)
        data: dict[str, Any] = {"id": spec.get("id", "1"), "name": top, "type": 1, "options": []}
        holder = data["options"]
        for sub in subs:
            spec = next(o for o in spec.get("options", []) if o["name"] == sub)
            node = {"name": sub, "type": spec["type"], "options": []}
            holder.append(node)
            holder = node["options"]
        types = {o["name"]: o["type"] for o in spec.get("options", [])}
        resolved: dict[str, dict[str, Any]] = {}
        for name, value in options.items():
            if name not in types:
                raise KeyError(f"/{path} has no option {name!r}; it has {sorted(types)}")
            holder.append(
                {"name": name, "type": types[name], "value": str(value) if types[name] in (7, 8) else value}
            )
            if types[name] == OPT["channel"]:
                ch = next(c for c in _all_channels() if int(c["id"]) == int(value))
                resolved.setdefault("channels", {})[str(value)] = {
                    **{k: ch[k] for k in ("id", "type", "name", "guild_id", "parent_id")},
                    "permissions": str(PERMS_ALL),
                }
            elif types[name] == OPT["role"]:
                role = next(r for r in _all_roles() if int(r["id"]) == int(value))
                resolved.setdefault("roles", {})[str(value)] = role
        if resolved:
            data["resolved"] = resolved
        payload = self._interaction_base(
            2,
            user_id=user_id,
            channel=where,
            guild=guild,
            data=data,
            locale=locale,
            guild_id=guild_id,
            permissions=permissions,
            roles=roles,
        )
        self.dispatch("INTERACTION_CREATE", payload)
        return payload

    def autocomplete(
        self, sub: str, focused: str, *, user_id: int, channel: int = CHANNELS["general"], **options: Any
    ) -> dict[str, Any]:
        data = self._command_options(sub, options, focused)
        payload = self._interaction_base(4, user_id=user_id, channel=channel, guild=True, data=data)
        self.dispatch("INTERACTION_CREATE", payload)
        return payload

    def press(
        self,
        message_id: int,
        custom_id: str,
        *,
        user_id: int,
        channel: int,
        guild: bool = True,
        guild_id: int = GUILD_ID,
    ) -> dict[str, Any]:
        """A user presses the button ``custom_id`` on the bot's message ``message_id``."""
        message = self.messages[message_id]
        data = {"custom_id": custom_id, "component_type": 2}
        payload = self._interaction_base(
            3, user_id=user_id, channel=channel, guild=guild, data=data, guild_id=guild_id
        )
        payload["message"] = message
        self.dispatch("INTERACTION_CREATE", payload)
        return payload

    # -- REST ------------------------------------------------------------------------

    async def _read_body(self, request: web.Request) -> tuple[Any, list[dict[str, Any]]]:
        files: list[dict[str, Any]] = []
        ctype = request.headers.get("Content-Type", "")
        if ctype.startswith("multipart/"):
            body: Any = None
            reader = await request.multipart()
            async for part in reader:
                raw = await part.read()  # type: ignore[union-attr]
                if part.name == "payload_json":  # type: ignore[union-attr]
                    body = json.loads(raw)
                else:
                    files.append(
                        {
                            "name": part.name,  # type: ignore[union-attr]
                            "filename": part.filename,  # type: ignore[union-attr]
                            "content_type": part.headers.get("Content-Type"),  # type: ignore[union-attr]
                            "size": len(raw),
                            "head": bytes(raw[:8]),
                        }
                    )
            return body, files
        if request.can_read_body:
            text = await request.text()
            if not text:
                return None, files
            try:
                return json.loads(text), files
            except ValueError:
                return text, files
        return None, files

    def _record(self, rec: Recorded) -> None:
        with self._cond:
            self.requests.append(rec)
            self._cond.notify_all()

    async def _rest(self, request: web.Request) -> web.StreamResponse:
        path = "/" + request.match_info["tail"]
        if not request.path.startswith("/api/v10/"):
            path = request.path
        body, files = await self._read_body(request)
        status, data, headers = self._route(request.method, path, dict(request.query), body, files)
        rec = Recorded(
            method=request.method,
            path=path,
            query=dict(request.query),
            json=body,
            files=files,
            headers={k: v for k, v in request.headers.items() if k.lower() != "authorization"},
            status=status,
            at=time.monotonic(),
            response=data,
        )
        rec.headers["has-authorization"] = str("Authorization" in request.headers)
        self._record(rec)
        if status == 204:
            return web.Response(status=204, headers=headers)
        # Exactly "application/json": discord.py compares the header verbatim.
        headers = {**headers, "Content-Type": "application/json"}
        return web.Response(body=json.dumps(data).encode(), status=status, headers=headers)

    def _message_obj(
        self, channel_id: int | str, body: dict[str, Any] | None, files: list[dict[str, Any]]
    ) -> dict:
        body = body or {}
        mid = snowflake()
        msg = {
            "id": str(mid),
            "channel_id": str(channel_id),
            "author": BOT_USER,
            "content": body.get("content") or "",
            "timestamp": now_iso(),
            "edited_timestamp": None,
            "tts": False,
            "mention_everyone": False,
            "mentions": [],
            "mention_roles": [],
            "attachments": [
                {
                    "id": str(snowflake()),
                    "filename": f.get("filename") or "file",
                    "size": f["size"],
                    "url": f"https://cdn.invalid/{f.get('filename')}",
                    "proxy_url": f"https://cdn.invalid/{f.get('filename')}",
                }
                for f in files
            ],
            "embeds": body.get("embeds") or [],
            "components": body.get("components") or [],
            "pinned": False,
            "type": 19 if body.get("message_reference") else 0,
            "flags": body.get("flags") or 0,
        }
        if body.get("message_reference"):
            msg["message_reference"] = body["message_reference"]
        self.messages[mid] = msg
        return msg

    def _failure(self, status: int, retry_after: float) -> tuple[int, Any, dict[str, str]]:
        if status == 429:
            return (
                429,
                {"message": "You are being rate limited.", "retry_after": retry_after, "global": False},
                {
                    "Retry-After": str(retry_after),
                    "X-RateLimit-Limit": "5",
                    "X-RateLimit-Remaining": "0",
                    "X-RateLimit-Reset-After": str(retry_after),
                    "X-RateLimit-Bucket": "standin-webhooks",
                    "X-RateLimit-Scope": "user",
                    "Via": "1.1 google",
                },
            )
        return status, {"message": "Internal Server Error", "code": 0}, {}

    def _route(
        self, method: str, path: str, query: dict[str, str], body: Any, files: list[dict[str, Any]]
    ) -> tuple[int, Any, dict[str, str]]:
        parts = [p for p in path.split("/") if p]
        key = (method, *parts)

        if key == ("GET", "gateway", "bot"):
            return (
                200,
                {
                    "url": self.gateway_url,
                    "shards": 1,
                    "session_start_limit": {
                        "total": 1000,
                        "remaining": 999,
                        "reset_after": 0,
                        "max_concurrency": 1,
                    },
                },
                {},
            )
        if key == ("GET", "gateway"):
            return 200, {"url": self.gateway_url}, {}
        if key == ("GET", "users", "@me"):
            return 200, BOT_USER, {}
        if key == ("GET", "oauth2", "applications", "@me"):
            return (
                200,
                {
                    "id": str(APP_ID),
                    "name": "gpu-advisor",
                    "icon": None,
                    "description": "",
                    "rpc_origins": [],
                    "bot_public": True,
                    "bot_require_code_grant": False,
                    "owner": user_payload(1, "owner"),
                    "summary": "",
                    "verify_key": "0" * 64,
                    "team": None,
                    "flags": 0,
                    "interactions_endpoint_url": None,
                },
                {},
            )

        # application commands
        if len(parts) >= 3 and parts[0] == "applications" and parts[-1] == "commands":
            guild = parts[3] if len(parts) == 5 and parts[2] == "guilds" else None
            if method == "GET":
                return 200, self.commands.get(guild, []), {}
            if method == "PUT":
                stored = []
                for cmd in body or []:
                    cmd = dict(cmd)
                    cmd.update(
                        {"id": str(snowflake()), "application_id": str(APP_ID), "version": str(snowflake())}
                    )
                    if guild:
                        cmd["guild_id"] = guild
                    stored.append(cmd)
                self.commands[guild] = stored
                return 200, stored, {}

        # channel messages (and follow-ups, when failures are injected for them)
        followup = method == "POST" and len(parts) == 3 and parts[0] == "webhooks"
        if followup and self._inject_followups:
            with self._cond:
                inject = self._inject_followups.pop(0) if self._inject_followups else None
            if inject is not None:
                return self._failure(*inject)
        if method == "POST" and len(parts) == 3 and parts[0] == "channels" and parts[2] == "messages":
            with self._cond:
                inject = self._inject.pop(0) if self._inject else None
            if inject is not None:
                status, retry_after = inject
                if status == 429:
                    return (
                        429,
                        {
                            "message": "You are being rate limited.",
                            "retry_after": retry_after,
                            "global": False,
                        },
                        {
                            "Retry-After": str(retry_after),
                            "X-RateLimit-Limit": "5",
                            "X-RateLimit-Remaining": "0",
                            "X-RateLimit-Reset-After": str(retry_after),
                            "X-RateLimit-Bucket": "standin-messages",
                            "X-RateLimit-Scope": "user",
                            "Via": "1.1 google",
                        },
                    )
                return status, {"message": "Internal Server Error", "code": 0}, {}
            return (
                200,
                self._message_obj(parts[1], body, files),
                {
                    "X-RateLimit-Limit": "5",
                    "X-RateLimit-Remaining": "4",
                    "X-RateLimit-Reset-After": "0.01",
                    "X-RateLimit-Bucket": "standin-messages",
                },
            )

        # edits of the bot's own messages
        if method == "PATCH" and len(parts) == 4 and parts[0] == "channels" and parts[2] == "messages":
            mid = int(parts[3])
            old = self.messages.get(mid)
            if old is None:
                return 404, {"message": "Unknown Message", "code": 10008}, {}
            body = body or {}
            new = dict(old)
            for key in ("content", "embeds", "components", "flags"):
                if key in body:
                    new[key] = body[key] if body[key] is not None else ([] if key != "content" else "")
            new["edited_timestamp"] = now_iso()
            self.messages[mid] = new
            return 200, new, {}

        # reactions (the bot's own)
        if (
            method == "PUT"
            and len(parts) == 7
            and parts[0] == "channels"
            and parts[2] == "messages"
            and parts[4] == "reactions"
            and parts[6] == "@me"
        ):
            return 204, None, {}

        # interaction callback
        if method == "POST" and len(parts) == 4 and parts[0] == "interactions" and parts[3] == "callback":
            cb_type = (body or {}).get("type")
            interaction = {"id": parts[1], "type": 2, "response_message_loading": cb_type == 5}
            result: dict[str, Any] = {"interaction": interaction}
            if cb_type in (4, 7):
                msg = self._message_obj(0, (body or {}).get("data"), files)
                flags = ((body or {}).get("data") or {}).get("flags") or 0
                interaction["response_message_id"] = msg["id"]
                interaction["response_message_ephemeral"] = bool(flags & 64)
                result["resource"] = {"type": cb_type, "message": msg}
            elif cb_type == 5:
                result["resource"] = {"type": 5}
            return 200, result, {}

        # webhooks: follow-ups and original-response edits
        if parts and parts[0] == "webhooks" and len(parts) >= 3:
            if method == "POST" and len(parts) == 3:
                return 200, self._message_obj(0, body, files), {}
            if method == "PATCH" and len(parts) == 5:
                return 200, self._message_obj(0, body, files), {}
            if method == "GET" and len(parts) == 5:
                return 200, self._message_obj(0, {}, []), {}
            if method == "DELETE":
                return 204, None, {}

        log.error("stand-in: UNKNOWN ROUTE %s %s", method, path)
        with self._cond:
            self.unknown.append(f"{method} {path}")
        return 404, {"message": "Unknown route (stand-in)", "code": 0}, {}


def _is_message_post(rec: Recorded) -> bool:
    parts = rec.path.strip("/").split("/")
    if rec.method != "POST":
        return False
    if len(parts) == 3 and parts[0] == "channels" and parts[2] == "messages":
        return True
    if len(parts) == 3 and parts[0] == "webhooks":
        return True
    return len(parts) == 4 and parts[0] == "interactions" and parts[3] == "callback"


def guild_payload() -> dict[str, Any]:
    def channel(name: str, cid: int, position: int, deny: int = 0) -> dict[str, Any]:
        overwrites = [{"id": str(GUILD_ID), "type": 0, "allow": "0", "deny": str(deny)}] if deny else []
        return {
            "id": str(cid),
            "type": 0,
            "guild_id": str(GUILD_ID),
            "name": name,
            "position": position,
            "permission_overwrites": overwrites,
            "nsfw": False,
            "parent_id": None,
            "topic": None,
            "rate_limit_per_user": 0,
            "last_message_id": None,
        }

    return {
        "id": str(GUILD_ID),
        "name": "Stand-in Guild",
        "icon": None,
        "splash": None,
        "discovery_splash": None,
        "owner_id": "1",
        "afk_channel_id": None,
        "afk_timeout": 300,
        "verification_level": 0,
        "default_message_notifications": 0,
        "explicit_content_filter": 0,
        "roles": [
            {
                "id": str(GUILD_ID),
                "name": "@everyone",
                "permissions": str(PERMS_ALL),
                "position": 0,
                "color": 0,
                "hoist": False,
                "managed": False,
                "mentionable": False,
                "flags": 0,
            },
            _role(ROLE_ASKERS, "askers", 1),
        ],
        "emojis": [],
        "stickers": [],
        "features": [],
        "mfa_level": 0,
        "system_channel_id": None,
        "system_channel_flags": 0,
        "rules_channel_id": None,
        "vanity_url_code": None,
        "description": None,
        "banner": None,
        "premium_tier": 0,
        "preferred_locale": "en-US",
        "public_updates_channel_id": None,
        "nsfw_level": 0,
        "premium_progress_bar_enabled": False,
        "joined_at": now_iso(),
        "large": False,
        "unavailable": False,
        "member_count": 3,
        "voice_states": [],
        "members": [
            {"user": BOT_USER, "roles": [], "joined_at": now_iso(), "deaf": False, "mute": False, "flags": 0}
        ],
        "channels": [
            channel("general", CHANNELS["general"], 0),
            channel("ask", CHANNELS["ask"], 1),
            channel("noembed", CHANNELS["noembed"], 2, deny=EMBED_LINKS),
            channel("other", CHANNELS["other"], 3),
            *(channel(f"extra{i}", CHANNELS[f"extra{i}"], 3 + i) for i in range(1, 7)),
        ],
        "threads": [],
        "presences": [],
        "stage_instances": [],
        "guild_scheduled_events": [],
        "soundboard_sounds": [],
    }


def _role(role_id: int, name: str, position: int) -> dict[str, Any]:
    return {
        "id": str(role_id),
        "name": name,
        "permissions": "0",
        "position": position,
        "color": 0,
        "hoist": False,
        "managed": False,
        "mentionable": False,
        "flags": 0,
    }


def guild2_payload() -> dict[str, Any]:
    """A second server (on shard 1 of 2): one channel, mentions only."""
    g = guild_payload()
    g.update(id=str(GUILD2_ID), name="Second Guild")
    g["roles"] = [dict(g["roles"][0], id=str(GUILD2_ID))]
    g["channels"] = [
        {
            "id": str(cid),
            "type": 0,
            "guild_id": str(GUILD2_ID),
            "name": name,
            "position": i,
            "permission_overwrites": [],
            "nsfw": False,
            "parent_id": None,
            "topic": None,
            "rate_limit_per_user": 0,
            "last_message_id": None,
        }
        for i, (name, cid) in enumerate(CHANNELS2.items())
    ]
    return g


def _all_channels() -> list[dict[str, Any]]:
    return [*guild_payload()["channels"], *guild2_payload()["channels"]]


def _all_roles() -> list[dict[str, Any]]:
    return [*guild_payload()["roles"], *guild2_payload()["roles"]]
