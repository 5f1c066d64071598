"""Many concurrent calls to one service over httpx, without httpcore's pool growing costly.

httpcore (1.0.9) scans every waiting request against every connection, and every idle connection
against all the others, each time a call starts or ends; and it closes idle connections whenever
the pool holds more than it keeps alive, counting busy ones too. With one pool of 100 connections
and a room service answering in 800 ms, those scans took a third of the bot's CPU at 100 commands
a second and its ack p99 went past a second on the second minute (`python -m bench capacity`).
Small pools keep each scan short; a call waits for a free connection here, where waiting is free.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import httpx

from clients import tls

KEEPALIVE = 4.0


class Pools:
    """`shards` httpx clients of `size` kept-alive connections each; a call takes the least busy."""

    def __init__(self, *, shards: int = 6, size: int = 16, **options: Any) -> None:
        # idle connections close before the servers' own keep-alive timeouts (5 s for uvicorn and
        # many proxies) run out: a request sent on a connection the server is closing fails, and a
        # room creation is not retried (it may have been made). With 30 s here, one creation in a
        # run of the cluster crash test failed with a ReadError against the uvicorn-served fake.
        limits = httpx.Limits(max_connections=size, max_keepalive_connections=size, keepalive_expiry=KEEPALIVE)
        self._clients = [httpx.AsyncClient(limits=limits, verify=tls.context(), **options) for _ in range(shards)]
        self._busy = [0] * shards
        self._free = asyncio.Semaphore(shards * size)  # so no shard ever has a call waiting inside

    @contextlib.asynccontextmanager
    async def client(self) -> AsyncIterator[httpx.AsyncClient]:
        async with self._free:
            index = self._busy.index(min(self._busy))
            self._busy[index] += 1
            try:
                yield self._clients[index]
            finally:
                self._busy[index] -= 1

    async def aclose(self) -> None:
        for client in self._clients:
            await client.aclose()
