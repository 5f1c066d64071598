"""Two bot processes behind one load balancer share one Redis: one token request per person,
one digest per day, one effect per Slack event — and every multi-key Redis command stays within
one hash slot, so the same keys work on Redis Cluster."""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import signal
from pathlib import Path

import httpx
import redis.asyncio as aioredis
from redis.crc import key_slot

from bot.demo.ds import FakeDS
from bot.demo.meet import FakeMeet
from clients.redis_keys import key as redis_key
from tests.conftest import bot_env, eventually
from tests.fakes.slack import FakeSlack
from tests.processes import python_env, start_server
from tests.slack_requests import command_body, event_body, signed_headers

MULTI_KEY = {"DEL", "UNLINK", "EXISTS", "MGET", "RENAME", "RENAMENX", "EVALSHA", "SINTERSTORE", "SUNIONSTORE"}


def keys_of(command: str) -> list[str]:
    parts = command.split(" ")
    if parts[0].upper() == "EVALSHA":  # EVALSHA sha numkeys key… arg…
        return parts[3 : 3 + int(parts[2])]
    return parts[1:]


async def test_two_processes_share_one_redis(tmp_path: Path, redis, redis_url: str, meet: FakeMeet, slack: FakeSlack, ds: FakeDS):
    slack.add_user("U0ALICE", "alice@example.gouv.fr", locale="en-US")
    meet.add_user("alice@example.gouv.fr")
    room = meet.add_room("alice@example.gouv.fr")
    ds.add_demarche(101, "Un", dossiers=150)
    meet.delay = 0.05

    commands: list[str] = []
    # no socket timeout: MONITOR may rightly stay silent while the bots start on a busy machine
    monitor_client = aioredis.Redis.from_url(redis_url, decode_responses=True, socket_timeout=None)  # redis-py 8: 5 s by default

    listening = asyncio.Event()

    async def monitor() -> None:
        async with monitor_client.monitor() as feed:
            listening.set()
            while True:
                commands.append((await feed.next_command())["command"])

    watcher = asyncio.create_task(monitor())
    env = python_env(**bot_env(meet, slack), REDIS_URL=redis_url, DS_API_URL=ds.url, DS_API_TOKEN=ds.token,
                     DIGEST_CHANNEL="C0DIGEST", DIGEST_DEMARCHES="101", DIGEST_TIME="00:00", DIGEST_TIMEZONE="UTC",
                     LOG_LEVEL="WARNING")
    await listening.wait()
    # both start together, so both schedulers find today's digest due at the same time
    started = await asyncio.gather(*(asyncio.to_thread(start_server, ["-m", "bot", "serve"], env, cwd=tmp_path) for _ in range(2)))
    processes, bases = [process for process, _ in started], [base for _, base in started]
    try:
        async with httpx.AsyncClient(timeout=10) as http:
            # 20 cold commands of one person spread over both processes
            async def command(index: int) -> int:
                body = command_body("list", "U0ALICE", slack.response_url())
                return (await http.post(bases[index % 2] + "/slack/events", content=body, headers=signed_headers(body))).status_code

            assert set(await asyncio.gather(*(command(i) for i in range(20)))) == {200}
            await slack.wait_responses(20, timeout=15)
            assert len(meet.people_tokens) == 1

            # Slack retries an event; the load balancer sends the retry to the other process
            event = {"type": "link_shared", "channel": "C0CHAN", "user": "U0ALICE", "message_ts": "1.2",
                     "links": [{"url": room["url"], "domain": "visio.example.gouv.fr"}]}
            body = event_body(event, event_id="Ev0SHARED")
            for base, retry in ((bases[0], None), (bases[1], "1")):
                retried = {"x-slack-retry-num": retry, "x-slack-retry-reason": "http_timeout"} if retry else None
                headers = signed_headers(body, extra=retried)
                assert (await http.post(base + "/slack/events", content=body, headers=headers)).status_code == 200

        # both schedulers found today's digest due at start-up: one of them posts it; once the day
        # is marked posted, no run can post again
        day = dt.datetime.now(dt.UTC).date()
        await eventually(lambda: redis.exists(redis_key(f"digest:{day}:C0DIGEST:operator:posted:all")), "the digest marked posted")
        assert len(slack.posted("C0DIGEST")) == 1
        # each delivery is acked; the retry then finds the event claimed and does nothing, the first posts the preview
        await eventually(lambda: bool(slack.called("chat.unfurl")), "the link preview")
        assert len(slack.called("chat.unfurl")) == 1
    finally:
        for process in processes:
            process.send_signal(signal.SIGTERM)
        outputs = [process.communicate(timeout=15)[0] for process in processes]
    assert [process.returncode for process in processes] == [0, 0], outputs
    await eventually(lambda: any(c.upper().startswith("RENAME") for c in commands), "MONITOR to show the RENAME")
    watcher.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await watcher  # a watcher that failed says why here, instead of as a missing RENAME
    await monitor_client.aclose()

    multi = [c for c in commands if c.split(" ")[0].upper() in MULTI_KEY and len(keys_of(c)) > 1]
    assert any(c.upper().startswith("RENAME") for c in multi)  # the digest's full walk swaps its hash in
    crossing = [c for c in multi if len({key_slot(k.encode()) for k in keys_of(c)}) > 1]
    assert crossing == []
    assert not any(c.upper().startswith("MULTI") for c in commands)
