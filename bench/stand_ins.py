"""The outside world of a bench run in the bot's own process: the dossier service's stand-in, the
room service's and Slack's fakes over loopback HTTP, and an embedded Redis — started, handed to the
measure, and stopped whatever the measure does."""

from __future__ import annotations

import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

from bot.demo.ds import SCHEMA, FakeDS, load_schema
from bot.demo.loopback import LoopbackServer
from bot.demo.meet import FakeMeet
from bot.redis_server import EmbeddedRedis
from tests.fakes.slack import FakeSlack

T = TypeVar("T")


async def among_stand_ins(name: str, measure: Callable[[FakeDS, FakeMeet, FakeSlack, str], Awaitable[T]]) -> T:
    """`measure(ds, meet, slack, redis_url)` with the three services listening and a Redis of its own."""
    ds = FakeDS(load_schema(SCHEMA))
    meet, slack = FakeMeet(), FakeSlack()
    servers = [LoopbackServer(app).start() for app in (ds.asgi(), meet.asgi(), slack.asgi())]
    ds.url, meet.base, slack.base = f"{servers[0].url}/api/v2/graphql", servers[1].url, servers[2].url
    redis_server = EmbeddedRedis(Path(tempfile.mkdtemp(prefix=f"roombot-bench-{name}-")) / "redis")
    redis_server.start()
    try:
        return await measure(ds, meet, slack, redis_server.url)
    finally:
        redis_server.stop()
        for server in servers:
            server.stop()
