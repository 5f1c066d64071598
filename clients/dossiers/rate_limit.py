"""Keeps one dossier-service token within its allowance, counted as the service counts it, and
shares each window by priority.

The service (rack-attack) allows N requests per token in fixed one-minute windows aligned on the
epoch minute and answers 429 past that. Spacing every request 60/N s apart never trips it but
makes a 200-page walk ~5× slower than the service allows; instead each request takes a ticket in
the current window — up to N less a small margin (clocks differ) — and waits for the next window
once they are gone. The tickets are counted in Redis, so every bot process walking with the same
token shares the one allowance; without Redis a process counts alone.

Not every request is as urgent (`PRIORITY`, most urgent first):

- `ACT`: an instructeur's act (and the reads it needs) — someone waits on a button. Acts may use
  the whole window; the others leave them the last `ACT_ROOM` of it, so an act finds room however
  busy the minute, and waits `SHORT_WAIT` seconds at most for the next window when acts alone
  filled it (else `OverShare`: nothing sent, said as such).
- `OPERATOR`: the operator's digest, due at its hour. While one of its walks is under way the
  channels' walks leave it `RESERVED` of each window.
- `DIGEST` (the default): channels' digests and whatever else is not marked. They wait for the
  next window when theirs is spent.
- `ASKED`: look-ups, watch changes, "Show them", Home's list — a person asked, and may ask again.
  They take at most `ASKED_SHARE` of a window between them, never what the classes above keep,
  and give up (`OverShare`) rather than wait more than `SHORT_WAIT` seconds.

`SHARE`, set on top of any of them, bounds requests that may wait for nobody and take nothing
digests need (link previews, the watch's polls): they go only while less than that share of the
window is spent, and give up otherwise rather than wait for the next window.
"""

from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import Awaitable, Callable, Coroutine
from contextvars import ContextVar
from dataclasses import dataclass
from enum import IntEnum
from typing import Any, ParamSpec, TypeVar

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from clients.batched import Batched
from clients.dossiers.errors import OverShare
from clients.redis_keys import key
from clients.storage import degraded


class Priority(IntEnum):
    """Who a request is for, most urgent first."""

    ACT = 0
    OPERATOR = 1
    DIGEST = 2
    ASKED = 3


#: The priority of the requests a task (and the tasks it starts) makes.
PRIORITY: ContextVar[Priority] = ContextVar("dossier_request_priority", default=Priority.DIGEST)
#: The share of each window the others leave to acts.
ACT_ROOM = 0.05
#: The share of each window the channels' walks leave to the operator's while it runs.
RESERVED = 0.25
#: The share of each window look-ups, watch changes and the like may take between them.
ASKED_SHARE = 0.25
#: An act or a look-up waits this long at most for the next window; past it, it is not sent.
SHORT_WAIT = 5.0
#: Set (to a share of the window) for requests that may wait for nobody and take nothing digests
#: need (link previews, watches): they go only while less than that share of the window is spent,
#: and give up otherwise (`OverShare`) rather than wait for the next window.
SHARE: ContextVar[float | None] = ContextVar("dossier_request_share", default=None)


@dataclass(frozen=True)
class Quota:
    """A person's own allowance (`most` a `seconds` window, from their first request), taken from
    by the task's next request in the round trip of its ticket: a look-up's quota cost one of its own."""

    whose: tuple[str, ...]
    most: int
    seconds: int


class QuotaSpent(Exception):
    """The request's `Quota` was spent: nothing was sent, no ticket taken."""


#: The quota the task's next request takes from (once: the first request then clears it).
QUOTA: ContextVar[Quota | None] = ContextVar("dossier_request_quota", default=None)

P = ParamSpec("P")
R = TypeVar("R")


def with_priority(level: Priority) -> Callable[[Callable[P, Coroutine[Any, Any, R]]], Callable[P, Coroutine[Any, Any, R]]]:
    """Runs an async function with its dossier-service requests at `level`."""
    def wrap(work: Callable[P, Coroutine[Any, Any, R]]) -> Callable[P, Coroutine[Any, Any, R]]:
        @functools.wraps(work)
        async def run(*args: P.args, **kwargs: P.kwargs) -> R:
            token = PRIORITY.set(level)
            try:
                return await work(*args, **kwargs)
            finally:
                PRIORITY.reset(token)
        return run
    return wrap


#: Lua: tickets taken in one round trip, for every request that came while the last was on its way
#: (`Batched`; a pipeline of five commands a ticket cost the client five times the encoding and
#: parsing). KEYS the operator's flag, then for each request its window's count, its count of asked
#: requests (for one of them), its person's quota (for a request that takes from one) — one hash
#: tag, so that a Redis Cluster keeps them in one slot. ARGV the keys' lifetime, then four for each
#: request: 1 for an asked one, 1 when the operator's walk sets its flag (else it is read), and the
#: quota's most and window (0: none). Each request's answer is four numbers: its ticket, its number
#: among the asked, whether the operator's walk runs, and 1 when its quota was spent (no ticket taken).
_TAKE = """
local ttl = tonumber(ARGV[1])
local flag = KEYS[1]
local k = 2
local out = {}
for i = 2, #ARGV, 4 do
  local total = KEYS[k]
  k = k + 1
  local among = nil
  if ARGV[i] == '1' then
    among = KEYS[k]
    k = k + 1
  end
  local spent = false
  local most = tonumber(ARGV[i + 2])
  if most > 0 then
    local used = redis.call('INCR', KEYS[k])
    if used == 1 then
      redis.call('EXPIRE', KEYS[k], tonumber(ARGV[i + 3]))
    end
    k = k + 1
    spent = used > most
  end
  if spent then
    out[#out + 1] = 0
    out[#out + 1] = 0
    out[#out + 1] = 0
    out[#out + 1] = 1
  else
    out[#out + 1] = redis.call('INCR', total)
    redis.call('EXPIRE', total, ttl)
    local asked = 0
    if among then
      asked = redis.call('INCR', among)
      redis.call('EXPIRE', among, ttl)
    end
    out[#out + 1] = asked
    if ARGV[i + 1] == '1' then
      redis.call('SET', flag, '1', 'EX', ttl)
      out[#out + 1] = 1
    else
      out[#out + 1] = redis.call('EXISTS', flag)
    end
    out[#out + 1] = 0
  end
end
return out
"""


def quota_key(limiter: str, *whose: str) -> str:
    """Where a quota is counted: in its limiter's hash tag, beside its tickets (a Cluster's one slot)."""
    return key("ds-rate", f"{{{limiter}}}", "quota", *whose)


@dataclass(frozen=True)
class _Ask:
    """One request's ticket, as `_TAKE` takes it."""

    index: int  # its window
    asked: bool
    operator: bool
    quota: Quota | None


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
        self.for_others = self.allowed - max(2, round(self.allowed * ACT_ROOM))  # what acts leave
        self.ordinary = max(1, int(self.for_others - self.allowed * RESERVED))  # while the operator's walk runs
        self.asked = max(1, int(self.allowed * ASKED_SHARE))
        self._redis = redis
        self._name = name
        self._window = window
        self._clock = clock
        self._sleep = sleep
        self._local: dict[tuple[int, bool], int] = {}
        self._quotas: dict[tuple[str, ...], tuple[float, int]] = {}  # without Redis: each quota's end, its count
        self._urgent_until = 0.0
        self._flag = key("ds-urgent", f"{{{name}}}")
        self._take_script = redis.register_script(_TAKE) if redis is not None else None
        self._tickets: Batched[_Ask, tuple[int, int, int, int]] = Batched(self._take_all)

    async def wait(self) -> None:
        """Returns when this request may go: a ticket of the current window was free (for it)."""
        level, share, quota = PRIORITY.get(), SHARE.get(), QUOTA.get()
        if quota is not None:
            QUOTA.set(None)  # taken from once, by the task's first request
        while True:
            now = self._clock()
            index = int(now // self._window)
            taken, asked, reserving = await self._take(index, level, quota)
            quota = None
            if share is not None and taken > max(1, int(self.allowed * share)):
                await self._give_back(index, level)
                raise OverShare("this minute's share of the dossier service's allowance is spent")
            if taken <= self._ceiling(level, reserving) and (level is not Priority.ASKED or asked <= self.asked):
                return
            await self._give_back(index, level)
            until_next = (index + 1) * self._window - now + 0.001
            if level in (Priority.ACT, Priority.ASKED) and until_next > SHORT_WAIT:
                raise OverShare("this minute's share of the dossier service's allowance is spent")
            await self._sleep(until_next)

    def _ceiling(self, level: Priority, reserving: bool) -> int:
        """How many tickets of a window may be taken when this request goes."""
        if level is Priority.ACT:
            return self.allowed
        if level is Priority.OPERATOR or not reserving:
            return self.for_others
        return self.ordinary

    async def _take(self, index: int, level: Priority, quota: Quota | None = None) -> tuple[int, int, bool]:
        """This request's number in window `index`, its number among the window's asked requests
        (when it is one), and whether an operator's walk is under way; `QuotaSpent` (no ticket
        taken) when `quota` is."""
        asked = level is Priority.ASKED
        if self._take_script is not None:
            try:
                taken, among_asked, reserving, spent = await self._tickets(_Ask(index, asked, level is Priority.OPERATOR, quota))
            except RedisError as error:
                degraded("dossier rate limit", error)  # and the quota not counted, as without Redis nothing is refused
            else:
                if spent:
                    raise QuotaSpent()
                return int(taken), int(among_asked), bool(reserving)
        elif quota is not None:
            self._spend_locally(quota)
        self._local = {counted: number for counted, number in self._local.items() if counted[0] == index}
        for counted in ((index, False), (index, True))[:2 if asked else 1]:
            self._local[counted] = self._local.get(counted, 0) + 1
        if level is Priority.OPERATOR:
            self._urgent_until = self._clock() + self._window * 2
        return self._local[(index, False)], self._local.get((index, True), 0), self._clock() < self._urgent_until

    async def _take_all(self, asks: list[_Ask]) -> list[tuple[int, int, int, int]]:
        """`_TAKE` for every request that came while the last round trip was on its way."""
        assert self._take_script is not None
        keys, args = [self._flag], [int(self._window * 2) + 1]
        for ask in asks:
            keys.extend(self._keys(ask.index, ask.asked))
            if ask.quota is not None:
                keys.append(quota_key(self._name, *ask.quota.whose))
            args.extend((int(ask.asked), int(ask.operator), *((ask.quota.most, ask.quota.seconds) if ask.quota else (0, 0))))
        said = [int(number) for number in await self._take_script(keys=keys, args=args)]
        return [(said[at], said[at + 1], said[at + 2], said[at + 3]) for at in range(0, len(said), 4)]

    def _spend_locally(self, quota: Quota) -> None:
        """A quota counted by this process alone (a limiter without Redis)."""
        now = self._clock()
        self._quotas = {whose: kept for whose, kept in self._quotas.items() if kept[0] > now}
        until, used = self._quotas.get(quota.whose, (now + quota.seconds, 0))
        self._quotas[quota.whose] = (until, used + 1)
        if used + 1 > quota.most:
            raise QuotaSpent()

    async def _give_back(self, index: int, level: Priority) -> None:
        """A ticket taken past the cap was not used: without this, waiters would fill the reserve."""
        asked = level is Priority.ASKED
        if self._redis is not None:
            try:
                async with self._redis.pipeline(transaction=False) as pipe:
                    for name in self._keys(index, asked):
                        pipe.decr(name)
                    await pipe.execute()
                return
            except RedisError as error:
                degraded("dossier rate limit", error)
        for counted in ((index, False), (index, True))[:2 if asked else 1]:
            self._local[counted] = self._local.get(counted, 1) - 1

    def _keys(self, index: int, asked: bool) -> list[str]:
        """The window's count, and its count of asked requests for one of them."""
        total = key("ds-rate", f"{{{self._name}}}", str(index))
        return [total, key("ds-rate", f"{{{self._name}}}", str(index), "asked")] if asked else [total]
