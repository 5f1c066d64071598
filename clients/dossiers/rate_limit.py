"""Keeps one dossier-service token within its allowance, counted as the service counts it.

The service (rack-attack) allows N requests per token in fixed one-minute windows aligned on the
epoch minute and answers 429 past that. Spacing every request 60/N s apart never trips it but
makes a 200-page walk ~5× slower than the service allows; instead each request takes a ticket in
the current window — up to N less a small margin (clocks differ) — and waits for the next window
once they are gone. The tickets are counted in Redis, so every bot process walking with the same
token shares the one allowance; without Redis a process counts alone.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from clients.redis_keys import key
from clients.storage import degraded


class RateLimiter:
    def __init__(
        self,
        per_window: int,
        *,
        redis: aioredis.Redis | None = None,
        name: str = "",
        window: float = 60.0,
        margin: int | None = None,
        clock: Callable[[], float] = time.time,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.allowed = per_window - (max(1, per_window // 50) if margin is None else margin)  # 2 % margin
        self._redis = redis
        self._name = name
        self._window = window
        self._clock = clock
        self._sleep = sleep
        self._local: dict[int, int] = {}

    async def wait(self) -> None:
        """Returns when this request may go: a ticket of the current window was free."""
        while True:
            now = self._clock()
            index = int(now // self._window)
            if await self._take(index) <= self.allowed:
                return
            await self._sleep((index + 1) * self._window - now + 0.001)

    async def _take(self, index: int) -> int:
        """This request's number in window `index`."""
        if self._redis is not None:
            name = key("ds-rate", self._name, str(index))
            try:
                async with self._redis.pipeline(transaction=False) as pipe:
                    pipe.incr(name)
                    pipe.expire(name, int(self._window * 2) + 1)
                    taken, _ = await pipe.execute()
                return int(taken)
            except RedisError as error:
                degraded("dossier rate limit", error)
        self._local = {index: self._local.get(index, 0) + 1}
        return self._local[index]
