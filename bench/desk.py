"""The instructeur's desk, against the dossier-service fake answering each request in 100 ms.

1. `/dossier <n>`: from the signed command to the card posted to its `response_url`, p50 and p95
   of 40 look-ups by one instructeur (the member list kept), next to the service's own time for the
   requests the look-up needs; and the requests a look-up costs, cold and warm.
2. An act (Start review from the card): the requests it costs with warm caches.
3. A watch round over 100 démarches in which nothing changed: its requests and its time, next to
   one request a démarche.
The bot runs in this process over real HTTP fakes and a real Redis, as the tests run it.
"""

from __future__ import annotations

import datetime as dt
import statistics
import tempfile
import time
from pathlib import Path

from bench.progress import step
from bench.rooms import percentile
from bot.config import Settings
from bot.demo.ds import SCHEMA, FakeDS, load_schema
from bot.demo.loopback import LoopbackServer
from bot.demo.meet import FakeMeet
from bot.redis_server import EmbeddedRedis
from clients.dossiers.watch import Watches
from tests.conftest import Bot, bot_env, make_digest_job, start_bot
from tests.fakes.slack import FakeSlack
from tests.slack_requests import action_body, command_body

LATENCY, LOOKUPS, DEMARCHES = 0.1, 40, 100
ALICE = "alice@example.gouv.fr"


async def main() -> list[tuple[str, str, str]]:
    ds = FakeDS(load_schema(SCHEMA))
    meet, slack = FakeMeet(), FakeSlack()
    servers = [LoopbackServer(app).start() for app in (ds.asgi(), meet.asgi(), slack.asgi())]
    ds.url, meet.base, slack.base = f"{servers[0].url}/api/v2/graphql", servers[1].url, servers[2].url
    redis_server = EmbeddedRedis(Path(tempfile.mkdtemp(prefix="roombot-bench-desk-")) / "redis")
    redis_server.start()
    try:
        return await _measure(ds, meet, slack, redis_server.url)
    finally:
        redis_server.stop()
        for server in servers:
            server.stop()


async def _measure(ds: FakeDS, meet: FakeMeet, slack: FakeSlack, redis_url: str) -> list[tuple[str, str, str]]:
    import redis.asyncio as aioredis
    from pydantic import SecretStr
    from slack_sdk.web.async_client import AsyncWebClient

    from bot.serving.slack_app import configure_slack_client

    redis = aioredis.Redis.from_url(redis_url)
    slack.add_user("U0ALICE", ALICE, locale="en-US")
    for number in range(101, 101 + DEMARCHES):
        ds.add_demarche(number, f"D{number}", groups={1: ("G", [ALICE])})
    numbers = [ds.deposit(101).number for _ in range(LOOKUPS + 2)]
    values = {name.lower(): value for name, value in bot_env(meet, slack).items()}
    settings = Settings(_env_file=None, **values, ds_api_url=ds.url, ds_api_token=SecretStr(ds.token),  # type: ignore[arg-type]
                        default_language="en", ds_requests_per_minute=100_000)
    job, service = make_digest_job(settings, redis, ds, configure_slack_client(AsyncWebClient(token="xoxb-test-bot-token"), settings))
    ds.latency = LATENCY
    rows = []
    async for bot in start_bot(settings, redis, slack, digests=job):
        async def look(number: int, bot: Bot = bot) -> tuple[float, int]:
            before, asked = len(slack.responses), len(ds.queries)
            started = time.perf_counter()
            await bot.post(command_body(str(number), "U0ALICE", slack.response_url("bench"), command="/dossier"))
            await slack.wait_responses(before + 1, timeout=30)
            return time.perf_counter() - started, len(ds.queries) - asked

        step("desk", f"{LOOKUPS} /dossier look-ups")
        _, cold = await look(numbers[0])
        timed = [await look(number) for number in numbers[1:LOOKUPS + 1]]
        took = [seconds for seconds, _ in timed]
        warm = statistics.median(count for _, count in timed)
        rows.append(("/dossier <n>, p50 / p95 (service 100 ms a request)",
                     f"{statistics.median(took) * 1000:.0f} / {percentile(took, 95) * 1000:.0f} ms",
                     f"{warm:.0f} request(s) × 100 ms = {warm * LATENCY * 1000:.0f} ms; target p95 ≤ 1 s"))
        rows.append(("requests a look-up costs, cold / warm", f"{cold} / {warm:.0f}", "target ≤ 3"))
        step("desk", "an act, then a watch round")
        asked = len(ds.queries)
        await bot.post(action_body("dossier_start", str(numbers[-1]), "U0ALICE", slack.response_url("bench-card")))
        await bot.runtime.tasks.drain(30)
        rows.append(("requests an act costs, warm (Start review)", str(len(ds.queries) - asked),
                     "target ≤ 2 (the card read again, then the mutation)"))
        await Watches(redis).start("T0TEAM", "U0ALICE", list(range(101, 101 + DEMARCHES)))
        watching = bot.runtime.watching
        assert watching is not None
        await watching.round(dt.datetime.now(dt.UTC))  # marks where reading starts
        await redis.delete("roombot:desk-round")
        asked, started = len(ds.queries), time.perf_counter()
        await watching.round(dt.datetime.now(dt.UTC))
        rows.append((f"watch round, {DEMARCHES} démarches, nothing new", f"{len(ds.queries) - asked} requests, "
                     f"{time.perf_counter() - started:.1f} s", f"{DEMARCHES} requests (one a démarche)"))
    await service.aclose()
    await redis.aclose()
    return rows

