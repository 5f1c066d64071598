"""The outside world of a bench run in the bot's own process: the dossier service's stand-in, the
room service's and Slack's fakes over loopback HTTP, and an embedded Redis — started, handed to the
measure, and stopped whatever the measure does (or whichever fails to start): Redis's folder goes with them."""

from __future__ import annotations

import contextlib
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
    with tempfile.TemporaryDirectory(prefix=f"roombot-bench-{name}-") as folder, contextlib.ExitStack() as running:
        ds = FakeDS(load_schema(SCHEMA))
        meet, slack = FakeMeet(), FakeSlack()
        servers = []
        for app in (ds.asgi(), meet.asgi(), slack.asgi()):
            servers.append(LoopbackServer(app))
            running.callback(servers[-1].stop)
            servers[-1].start()
        ds.url, meet.base, slack.base = f"{servers[0].url}/api/v2/graphql", servers[1].url, servers[2].url
        redis_server = EmbeddedRedis(Path(folder) / "redis")
        running.callback(redis_server.stop)  # before the folder goes (the stack unwinds first)
        redis_server.start()
        return await measure(ds, meet, slack, redis_server.url)
