"""Keeps one dossier-service token within its allowance, counted as the service counts it.

The service (rack-attack) allows N requests per token in fixed one-minute windows aligned on the
epoch minute and answers 429 past that. Spacing every request 60/N s apart never trips it but
makes a 200-page walk ~5× slower than the service allows; instead each request takes a ticket in
the current window — up to N less a small margin (clocks differ) — and waits for the next window
once they are gone. The tickets are counted in Redis, so every bot process walking with the same
token shares the one allowance; without Redis a process counts alone.

Not every walk is as urgent: the operator's digest is due at its hour whatever channels asked for
meanwhile. Requests made while `URGENT` is set may use the whole window and mark an urgent walk
as under way; while one is, the others may use the window only up to a reserve (a quarter) and give
their ticket back when they find it spent — so however many digests people start, the operator's
walks find room in every window, and nobody's walk is slowed when no urgent one runs.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from contextvars import ContextVar

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from clients.dossiers.errors import OverShare
from clients.redis_keys import key
from clients.storage import degraded

#: Set (for a task and the tasks it starts) while counting for a digest that must not wait.
URGENT: ContextVar[bool] = ContextVar("urgent_dossier_requests", default=False)
#: The share of each window kept for urgent requests.
RESERVED = 0.25
#: Set (to a share of the window) for requests that may wait for nobody and take nothing digests
#: need (link previews, watches): they go only while less than that share of the window is spent,
#: and give up otherwise (`OverShare`) rather than wait for the next window.
SHARE: ContextVar[float | None] = ContextVar("dossier_request_share", default=None)


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
        self.ordinary = max(1, int(self.allowed * (1 - RESERVED)))
        self._redis = redis
        self._name = name
        self._window = window
        self._clock = clock
        self._sleep = sleep
        self._local: dict[int, int] = {}
        self._urgent_until = 0.0

    async def wait(self) -> None:
        """Returns when this request may go: a ticket of the current window was free (for it)."""
        urgent, share = URGENT.get(), SHARE.get()
        while True:
            now = self._clock()
            index = int(now // self._window)
            taken, reserving = await self._take(index, urgent)
            if share is not None and taken > max(1, int(self.allowed * share)):
                await self._give_back(index)
                raise OverShare("this minute's share of the dossier service's allowance is spent")
            if taken <= (self.ordinary if reserving and not urgent else self.allowed):
                return
            await self._give_back(index)
            await self._sleep((index + 1) * self._window - now + 0.001)

    async def _take(self, index: int, urgent: bool) -> tuple[int, bool]:
        """This request's number in window `index`, and whether an urgent walk is under way."""
        if self._redis is not None:
            flag = key("ds-urgent", self._name)
            try:
                async with self._redis.pipeline(transaction=False) as pipe:
                    pipe.incr(self._key(index))
                    pipe.expire(self._key(index), int(self._window * 2) + 1)
                    if urgent:
                        pipe.set(flag, "1", ex=int(self._window * 2) + 1)
                    else:
                        pipe.exists(flag)
                    taken, _, reserving = await pipe.execute()
                return int(taken), bool(reserving)
            except RedisError as error:
                degraded("dossier rate limit", error)
        self._local = {index: self._local.get(index, 0) + 1}
        if urgent:
            self._urgent_until = self._clock() + self._window * 2
        return self._local[index], self._clock() < self._urgent_until

    async def _give_back(self, index: int) -> None:
        """A ticket taken past the cap was not used: without this, waiters would fill the reserve."""
        if self._redis is not None:
            try:
                await self._redis.decr(self._key(index))
                return
            except RedisError as error:
                degraded("dossier rate limit", error)
        self._local[index] = self._local.get(index, 1) - 1

    def _key(self, index: int) -> str:
        return key("ds-rate", self._name, str(index))
