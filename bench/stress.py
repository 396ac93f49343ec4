"""Stress run: the real bot (``python -m bot run``) against the local Discord stand-in.

    .venv/bin/python bench/stress.py            # the whole report (a few minutes)
    .venv/bin/python bench/stress.py --quick    # smaller numbers, for a smoke run

Everything stays on 127.0.0.1; every loop is bounded in count and time. Reports:

1. memory: RSS of the bot after 3 rounds of 2,000 crafted worst-case messages from 6,000
   users (1,000-character ambiguous questions: 25 choices each, 25 buttons): at most
   250 MB, and flat (within 10%) between rounds 2 and 3;
2. latency: the answer time of an unrelated DM while 500 worst-case messages are queued:
   at most 1 s;
3. faults: a storm of 300 x 429 and 100 x 500 on reply POSTs: every question answered;
4. flood: 2,000 messages from 200 users in 10 channels: every one gets an answer or a
   rate-limit sign it can see (the notice, or a reaction on the message).

Exit code 0 when every bound holds, 1 otherwise.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "discord"))

from standin import BOT_ID, CHANNELS, StandIn  # noqa: E402

PYTHON = (
    str(REPO / ".venv" / "bin" / "python") if (REPO / ".venv" / "bin" / "python").exists() else sys.executable
)

WORST = [
    "4060 ti a100 llama ",  # the slowest to answer (~80 ms): ambiguous cards and model, 25 choices
    "can 4060 ti run llama in int8 ",
    "4060 ti vs a100 for llama ",
    "a100 ",
    "llama ",
]
ASK_CHANNELS = [CHANNELS[n] for n in ("ask", "other", "noembed", "general")] + [
    CHANNELS[f"extra{i}"] for i in range(1, 7)
]


def worst(user: int, kind: int | None = None) -> str:
    base = WORST[user % len(WORST) if kind is None else kind]
    return (f"u{user} " + base * 200)[:1000]


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def start_bot(standin: StandIn, log_path: Path, cooldown: int) -> subprocess.Popen[bytes]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("KNOWLEDGE_DIR", "DEV_GUILD_ID", "SHARD_COUNT", "ASK_CHANNEL_IDS", "COOLDOWN_PER_10S")
        and not k.startswith("DISCORD_")
    }
    env.update(
        DISCORD_TOKEN="fake",
        DISCORD_API_BASE=standin.api_base,
        DISCORD_GATEWAY_URL=standin.gateway_url,
        ASK_CHANNEL_IDS=",".join(str(c) for c in ASK_CHANNELS),
        COOLDOWN_PER_10S=str(cooldown),
        LOG_LEVEL="WARNING",
        PYTHONUNBUFFERED="1",
        DATA_DIR=str(log_path.parent / f"stress-data-{os.getpid()}"),
    )
    readies = standin.ready_count
    with open(log_path, "wb") as log_file:
        proc = subprocess.Popen(
            [PYTHON, "-m", "bot", "run"], cwd=REPO, env=env, stdout=log_file, stderr=subprocess.STDOUT
        )
    standin.wait_until(lambda: standin.ready_count > readies or proc.poll() is not None, 60, "bot READY")
    if proc.poll() is not None:
        raise RuntimeError(f"bot exited {proc.returncode}: {log_path.read_text()[-2000:]}")
    time.sleep(1.0)  # command sync and GUILD_CREATE
    return proc


def stop_bot(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


class Tracker:
    """Which question messages got a reply (answer or notice) or a reaction, incrementally."""

    def __init__(self, standin: StandIn) -> None:
        self.standin = standin
        self.seen = 0
        self.replied: set[str] = set()
        self.reacted: set[str] = set()
        self.reply_at: dict[str, float] = {}

    def update(self) -> None:
        with self.standin._cond:
            new = self.standin.requests[self.seen :]
            self.seen += len(new)
        for r in new:
            if r.method == "POST" and r.status == 200 and r.path.endswith("/messages"):
                ref = str((r.payload.get("message_reference") or {}).get("message_id"))
                self.replied.add(ref)
                self.reply_at.setdefault(ref, r.at)
            elif r.method == "PUT" and "/reactions/" in r.path and r.status in (200, 204):
                self.reacted.add(r.path.split("/")[4])

    def visible(self, ids: list[int]) -> int:
        self.update()
        return sum(1 for i in ids if str(i) in self.replied or str(i) in self.reacted)

    def wait(self, ids: list[int], timeout: float, what: str) -> float:
        t0 = time.monotonic()
        while time.monotonic() - t0 < timeout:
            if self.visible(ids) == len(ids):
                return time.monotonic() - t0
            time.sleep(0.25)
        raise TimeoutError(f"{what}: {self.visible(ids)}/{len(ids)} after {timeout:.0f} s")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a tenth of the numbers (smoke run)")
    args = ap.parse_args(argv)
    scale = 10 if args.quick else 1
    lines: list[str] = []
    ok = True

    def report(line: str) -> None:
        print(line, flush=True)
        lines.append(line)

    users = iter(range(700000000000000001, 800000000000000000))
    standin = StandIn().start()
    log_path = Path("/tmp") / f"stress-bot-{os.getpid()}.log"
    proc = start_bot(standin, log_path, cooldown=5)
    tracker = Tracker(standin)
    try:
        report(f"bot pid {proc.pid}, RSS at start {rss_mb(proc.pid):.0f} MB")

        # 1. memory -------------------------------------------------------------------
        rounds = []
        per_round = 2000 // scale
        for rnd in range(1, 4):
            ids = []
            t0 = time.monotonic()
            for i in range(per_round):
                user = next(users)
                ids.append(
                    standin.send_message(
                        worst(user),
                        channel=ASK_CHANNELS[i % len(ASK_CHANNELS)],
                        user_id=user,
                        mentions_bot=True,
                    )
                )
            took = tracker.wait(ids, 600, f"memory round {rnd}")
            time.sleep(1.0)
            rss = rss_mb(proc.pid)
            rounds.append(rss)
            report(
                f"memory round {rnd}: {per_round} worst-case messages from {per_round} new users, "
                f"all answered in {time.monotonic() - t0:.1f} s (last answer {took:.1f} s after the last send); "
                f"RSS {rss:.0f} MB"
            )
        growth = (rounds[2] - rounds[1]) / rounds[1] * 100
        mem_ok = max(rounds) <= 250 and abs(growth) <= 10
        ok &= mem_ok
        report(
            f"  -> RSS after {3 * per_round} messages {rounds[2]:.0f} MB (bound 250 MB); "
            f"round 2 -> 3: {growth:+.1f}% (bound 10%): {'PASS' if mem_ok else 'FAIL'}"
        )

        # 2. latency of an unrelated DM while worst-case messages are queued ----------------
        flood = []
        for _ in range(500 // scale):
            user = next(users)
            flood.append(standin.send_message(worst(user, 0), channel=CHANNELS["ask"], user_id=user))
        dm_user = next(users)
        t_dm = time.monotonic()
        dm = standin.send_message("what can you do", channel=dm_user + 5, user_id=dm_user, guild=False)
        tracker.wait([dm], 60, "the DM")
        dm_time = tracker.reply_at[str(dm)] - t_dm
        tracker.update()
        queued_when_answered = sum(
            1
            for i in flood
            if str(i) not in tracker.reply_at or tracker.reply_at[str(i)] > tracker.reply_at[str(dm)]
        )
        tracker.wait(flood, 600, "the flood behind the DM")
        lat_ok = dm_time <= 1.0
        ok &= lat_ok
        report(
            f"latency: DM answered in {dm_time * 1000:.0f} ms while {len(flood)} worst-case messages were sent "
            f"just before it ({queued_when_answered} of them still unanswered when the DM was answered); "
            f"bound 1 s: {'PASS' if lat_ok else 'FAIL'}"
        )

        # 3. a storm of 429s and 500s on reply POSTs ---------------------------------------
        n429, n500 = 300 // scale, 100 // scale
        failures = [(429, 0.05)] * n429 + [(500, 0.0)] * n500
        random.Random(15).shuffle(failures)
        start = standin.mark()
        standin.fail_messages(failures)
        questions = []
        t0 = time.monotonic()
        for i in range(200 // scale):
            user = next(users)
            questions.append(
                standin.send_message(
                    "can I fine-tune llama 3 8b with qlora on a 3090?",
                    channel=ASK_CHANNELS[i % len(ASK_CHANNELS)],
                    user_id=user,
                )
            )
        tracker.wait(questions, 900, "the storm")
        storm_time = time.monotonic() - t0
        with standin._cond:
            statuses = [
                r.status
                for r in standin.requests[start:]
                if r.method == "POST" and r.path.endswith("/messages")
            ]
        answered = sum(1 for q in questions if str(q) in tracker.replied)
        storm_ok = answered == len(questions) and standin.injections_left() == 0
        ok &= storm_ok
        report(
            f"faults: {statuses.count(429)} x 429 and {statuses.count(500)} x 500 on reply POSTs: "
            f"{answered}/{len(questions)} questions answered in {storm_time:.1f} s: {'PASS' if storm_ok else 'FAIL'}"
        )

        # 4. 2,000 messages from 200 users in 10 channels ---------------------------------
        n_users, per_user = 200 // scale, 10
        flood_users = [next(users) for _ in range(n_users)]
        msgs = []
        t0 = time.monotonic()
        for k in range(per_user):
            for j, user in enumerate(flood_users):
                channel = ASK_CHANNELS[(j + k) % len(ASK_CHANNELS)]
                msgs.append(
                    standin.send_message(
                        f"<@{BOT_ID}> how much does a 4090 cost ({k})",
                        channel=channel,
                        user_id=user,
                        mentions_bot=True,
                    )
                )
        tracker.wait(msgs, 600, "the 2,000")
        tracker.update()
        answers = sum(1 for m in msgs if str(m) in tracker.replied)
        reactions = sum(1 for m in msgs if str(m) in tracker.reacted and str(m) not in tracker.replied)
        with standin._cond:
            notices = sum(
                1
                for r in standin.requests[start:]
                if r.method == "POST"
                and r.status == 200
                and "Try again in" in str(r.payload.get("content") or "")
            )
        visible = tracker.visible(msgs)
        flood_ok = visible == len(msgs)
        ok &= flood_ok
        report(
            f"flood: {len(msgs)} messages from {n_users} users in {len(ASK_CHANNELS)} channels in "
            f"{time.monotonic() - t0:.1f} s: {answers} replies ({notices} of them rate-limit notices), "
            f"{reactions} rate-limit reactions, {len(msgs) - visible} with no visible sign: "
            f"{'PASS' if flood_ok else 'FAIL'}"
        )
        report(f"bot RSS at the end {rss_mb(proc.pid):.0f} MB; unknown routes: {standin.unknown or 'none'}")
        errors = [ln for ln in log_path.read_text(errors="replace").splitlines() if " ERROR " in ln]
        report(f"bot log: {len(errors)} ERROR lines" + (f"; first: {errors[0][:200]}" if errors else ""))
    finally:
        stop_bot(proc)
        standin.stop()
    report("ALL PASS" if ok else "SOME FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
