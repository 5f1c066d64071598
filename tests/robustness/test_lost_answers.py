"""A claim whose answer Redis sends but the bot never reads (a failover, a dropped connection).

Seen in `tests/operating/test_redis_topologies.py`'s crash of a cluster's primary mid-burst: one
command of 60 acked, then neither a room nor an answer. redis-py sends a command again after a
connection error; the claim's `SET NX` had been taken, so its second sending found the key set —
by itself — and the command was dropped as a replay. Here a proxy between the bot's client and a
real Redis forwards the first claim, lets Redis take it, and cuts the connection before its answer.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from urllib.parse import urlsplit

import pytest

from bot.redis_server import connect
from clients.once import Once


class AnswerLost:
    """A TCP proxy to `upstream` that, once, lets Redis run a `SET … NX` and drops its answer."""

    def __init__(self, upstream: str) -> None:
        self._upstream = urlsplit(upstream)
        self.cut = 0

    async def _open(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        if self._upstream.scheme == "unix":
            return await asyncio.open_unix_connection(self._upstream.path)
        return await asyncio.open_connection(self._upstream.hostname, self._upstream.port or 6379)

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await self._open()
        try:
            while chunk := await reader.read(65536):
                up_writer.write(chunk)
                await up_writer.drain()
                answer = await up_reader.read(65536)
                if not self.cut and b"SET" in chunk and b"NX" in chunk:
                    self.cut += 1
                    return  # Redis took it; the client never hears
                writer.write(answer)
                await writer.drain()
        finally:
            for end in (writer, up_writer):
                end.close()
                with contextlib.suppress(ConnectionError):
                    await end.wait_closed()


@pytest.fixture
async def lossy(redis_url: str, redis) -> AsyncIterator[tuple[AnswerLost, Once]]:
    proxy = AnswerLost(redis_url)
    server = await asyncio.start_server(proxy.serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    upstream = urlsplit(redis_url)
    client = connect(f"redis://127.0.0.1:{port}{'' if upstream.scheme == 'unix' else upstream.path}")  # the same db
    yield proxy, Once(client)
    await client.aclose()
    server.close()


async def test_a_claim_whose_answer_was_lost_is_still_the_claimants(lossy) -> None:
    proxy, once = lossy
    assert await once.claim("command", "T0TEAM", "trigger-1", ttl=600)
    assert proxy.cut == 1  # the answer was lost, and the claim sent again
    assert not await once.claim("command", "T0TEAM", "trigger-1", ttl=600)  # a real replay still loses


async def test_a_command_whose_claim_answer_was_lost_goes_on_with_the_profile(lossy) -> None:
    proxy, once = lossy
    claimed, profile = await once.claim_or_assume_reading("command", "T0TEAM", "trigger-2", ttl=600, also="profile:nobody")
    assert proxy.cut == 1 and claimed and profile == (None,)
    again, _ = await once.claim_or_assume_reading("command", "T0TEAM", "trigger-2", ttl=600, also="profile:nobody")
    assert not again
