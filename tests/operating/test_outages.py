"""Outages: Redis stops and comes back under a running bot; outside services hang, fail or send
garbage. People always get an answer within seconds, nothing crashes, no room is made twice."""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import time
from pathlib import Path

import pytest

from bot import operator_advice as advice
from bot.demo.meet import FakeMeet, Fault
from bot.redis_server import EmbeddedRedis, connect
from bot.serving.scheduler import run_due
from tests.conftest import eventually, start_bot, text_of
from tests.fakes.slack import FakeSlack

ROOMS = "/external-api/v1.0/rooms/"


@pytest.fixture
async def own_redis(tmp_path: Path):
    """A Redis of this test's own, which it may stop and start again."""
    server = EmbeddedRedis(tmp_path / "redis")
    server.start()
    client = connect(server.url)
    yield server, client
    await client.aclose()
    server.stop()


async def timed_reply(bot, text: str) -> tuple[dict, float]:
    started = time.monotonic()
    reply = await bot.reply(text)
    return reply, time.monotonic() - started


async def test_redis_outage_degrades_then_recovers_by_itself(settings, slack: FakeSlack, meet: FakeMeet, alice, own_redis):
    server, redis = own_redis
    async for bot in start_bot(settings, redis, slack):
        assert "no video room yet" in text_of(await bot.reply("list"))
        assert (await bot.http.get("/healthz")).status_code == 200

        server.stop()
        assert (await bot.http.get("/healthz")).status_code == 503
        reply, took = await timed_reply(bot, "new restricted")  # works without the cache: profile and token asked directly
        assert "Your video room is ready" in text_of(reply) and took < 5
        assert len(meet.rooms) == 1
        room = next(iter(meet.rooms.values()))
        await bot.click("room_share_channel", room["id"])  # sharing needs Redis to stay "once": a clear refusal
        refusal = (await bot.slack.wait_responses(3))[-1]
        assert "storage is unavailable" in text_of(refusal) and slack.posted("C0CHAN") == []

        server.start()
        assert (await bot.http.get("/healthz")).status_code == 200
        await bot.reply("list")
        tokens_before = len(meet.token_requests)
        await bot.reply("list")
        assert len(meet.token_requests) == tokens_before  # the cache serves again
        await bot.click("room_share_channel", room["id"])
        await bot.runtime.tasks.drain(5)
        assert len(slack.posted("C0CHAN")) == 1


async def test_scheduled_jobs_say_a_redis_outage_once_and_its_end(settings, own_redis, caplog) -> None:
    """The operator's log during an outage: one line naming the setting, one when it is over, the
    jobs due meanwhile run after — not a traceback at every poll of every loop."""
    server, redis = own_redis
    ran: list[str] = []
    asked = 0

    async def due(_: dt.datetime) -> list:
        nonlocal asked
        asked += 1
        return [("weekly", lambda: _note(ran))] if await redis.get("due") else []

    stop = asyncio.Event()
    server.stop()
    with caplog.at_level(logging.INFO, logger="bot.serving.scheduler"):
        loop = asyncio.create_task(run_due(due, stop, poll=0.01, explain=lambda error: advice.redis_outage(error, settings)))
        await eventually(lambda: asked >= 5, "five polls during the outage")
        server.start()
        await redis.set("due", "1")
        await eventually(lambda: ran, "the job due once Redis is back")
        stop.set()
        await loop
    said = [(record.levelname, record.getMessage(), record.exc_info) for record in caplog.records]
    assert said[0][:2] == ("WARNING", "scheduled jobs wait: cannot connect to Redis: check REDIS_URL and that the server "
                                      "runs; asking again every 0.01 s"), said
    assert said[1][:2] == ("INFO", "scheduled jobs go on: the outage is over") and len(said) == 2, said
    assert not any(exc_info for *_, exc_info in said)


async def _note(ran: list[str]) -> None:
    ran.append("weekly")


@pytest.mark.parametrize(
    ("fault", "expected"),
    [
        (Fault("GET", ROOMS, 200, {"count": 0}, delay=30.0, times=5), "slow to answer"),
        (Fault("GET", ROOMS, 502, "<html><h1>502 Bad Gateway</h1></html>", "text/html", times=5), "unavailable"),
        (Fault("GET", ROOMS, 200, "{not json", "application/json", times=5), "unavailable"),
        (Fault("GET", ROOMS, 200, {"results": "nope"}, times=5), "unavailable"),
        # an HTML 404: no external API at this address, a setup problem (not "no page 1")
        (Fault("GET", ROOMS, 404, "<!doctype html><title>Not Found</title>", "text/html", times=5), "not set up correctly"),
    ],
)
async def test_upstream_outages_get_a_clear_answer_within_ten_seconds(settings, redis, slack: FakeSlack, meet: FakeMeet, alice,
                                                                       fault, expected):
    meet.faults.append(fault)
    async for bot in start_bot(settings, redis, slack):
        reply, took = await timed_reply(bot, "list")
        assert expected in text_of(reply) and took < 10
        assert "<" not in text_of(reply).replace("<https", "").replace("<@", "")  # no HTML leaks into Slack


@pytest.mark.parametrize(
    "fault",
    [
        Fault("POST", ROOMS, 201, "<html>created?</html>", "text/html"),
        Fault("POST", ROOMS, 504, "<html>gateway timeout</html>", "text/html"),
        Fault("POST", ROOMS, 201, {"id": 1}, delay=30.0),
    ],
)
async def test_a_failed_creation_is_never_repeated(settings, redis, slack: FakeSlack, meet: FakeMeet, alice, fault):
    meet.faults.append(fault)
    async for bot in start_bot(settings, redis, slack):
        reply, took = await timed_reply(bot, "new")
        assert took < 10
        assert "slow to answer" in text_of(reply) or "unavailable" in text_of(reply)
        await asyncio.sleep(0)
    assert meet.count("POST", ROOMS) == 1
