"""The dossier service's allowance under a burst: the tickets of requests that come together are
taken together (`clients/batched.py`), each exactly as if it had been taken alone — and a person
who gives up, or a Redis that fails, loses nobody else their answer."""

from __future__ import annotations

import asyncio

import pytest
import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

from clients.batched import Batched
from clients.dossiers.errors import OverShare
from clients.dossiers.rate_limit import PRIORITY, QUOTA, Priority, Quota, QuotaSpent, RateLimiter
from clients.redis_keys import key


async def _script_runs(redis: aioredis.Redis) -> int:
    return int((await redis.info("commandstats")).get("cmdstat_evalsha", {}).get("calls", 0))


async def test_a_burst_of_look_ups_takes_each_ticket_and_quota_as_alone_in_fewer_round_trips(redis: aioredis.Redis):
    """150 look-ups at once from 10 people allowed 12 each: each person's 13th and later are
    refused for their quota (no ticket taken); of the rest, look-ups take a quarter of the window
    (98 of 392) and the others are told the minute's share is spent, their tickets given back."""
    clock = [600.0]  # the start of a window
    limiter = RateLimiter(400, redis=redis, name="burst", clock=lambda: clock[0])

    async def look_up(person: int) -> str:
        PRIORITY.set(Priority.ASKED)  # in each look-up's own task, as `look_up` sets them
        QUOTA.set(Quota(("look", str(person)), 12, 60))
        try:
            await limiter.wait()
        except QuotaSpent:
            return "too often"
        except OverShare:
            return "share spent"
        return "sent"

    before = await _script_runs(redis)
    said = await asyncio.gather(*(look_up(n % 10) for n in range(150)))
    runs = await _script_runs(redis) - before

    assert said.count("too often") == 30 and said.count("sent") == 98 and said.count("share spent") == 22
    counted = await redis.mget([key("ds-rate", "{burst}", "10"), key("ds-rate", "{burst}", "10", "asked"),
                                *(key("ds-rate", "{burst}", "quota", "look", str(n)) for n in range(10))])
    assert counted == ["98", "98", *["15"] * 10]  # each person's quota counted every look-up
    assert runs < 150 / 4  # the same tickets, in a few round trips rather than one each


async def test_without_redis_a_burst_of_requests_each_goes_and_none_waits_for_ever():
    """Redis down while tickets are taken together: each request goes (as every request does
    without Redis, the allowance then counted by the process alone)."""
    down = aioredis.Redis(host="127.0.0.1", port=1, retry=Retry(NoBackoff(), 0))  # refused at once
    limiter = RateLimiter(400, redis=down, name="down")
    async with asyncio.timeout(30):
        await asyncio.gather(*(limiter.wait() for _ in range(40)))
    await down.aclose()


async def test_a_caller_that_gives_up_loses_nobody_else_their_answer():
    """The first caller's round trip is on its way and three more wait for the next: the first
    gives up, then one of the three; the two others still get their own answers, and the one that
    gave up while it waited sends nothing (no ticket taken, no claim set for nobody)."""
    gate = asyncio.Event()
    sent: list[list[int]] = []

    async def send(requests: list[int]) -> list[int]:
        sent.append(requests)
        await gate.wait()
        return [request * 10 for request in requests]

    together: Batched[int, int] = Batched(send)
    first = asyncio.ensure_future(together(1))
    await asyncio.sleep(0)  # the first is on its way
    waiting = [asyncio.ensure_future(together(n)) for n in (2, 3, 4)]
    await asyncio.sleep(0)
    first.cancel()
    waiting[1].cancel()
    async with asyncio.timeout(10):  # a lost answer fails here rather than hangs
        with pytest.raises(asyncio.CancelledError):
            await first
        gate.set()
        assert [await waiting[0], await waiting[2]] == [20, 40]
    assert waiting[1].cancelled()
    assert sent == [[1], [2, 4]]  # together once the first's round trip was over; the one that gave up sent nothing


async def test_a_failed_round_trip_is_each_callers_failure_and_the_next_ones_go():
    gate = asyncio.Event()
    calls = [0]

    async def send(requests: list[int]) -> list[int]:
        calls[0] += 1
        await gate.wait()
        if calls[0] == 2:
            raise ConnectionError("Redis went away")
        return requests

    together: Batched[int, int] = Batched(send)
    first = asyncio.ensure_future(together(1))
    await asyncio.sleep(0)  # the first is on its way
    failing = [asyncio.ensure_future(together(n)) for n in (2, 3)]
    await asyncio.sleep(0)
    gate.set()
    async with asyncio.timeout(10):
        assert await first == 1
        for call in failing:  # the two went together, and failed together
            with pytest.raises(ConnectionError):
                await call
        assert await together(4) == 4 and calls[0] == 3  # the next goes as before


async def test_one_commands_unreadable_profile_costs_it_alone_its_read_not_its_neighbours_their_claims(redis: aioredis.Redis):
    """Claims that go together in one pipeline: a profile key holding something else (WRONGTYPE)
    fails that command's read only — its claim holds, and so do the others', so a replay is still
    dropped."""
    from clients.once import Once

    once = Once(redis)
    await redis.hset(key("test-profile", "broken"), "x", "1")
    await redis.set(key("test-profile", "fine"), "profile")
    claims = await asyncio.gather(*(once.claim_or_assume_reading("command", "T", f"trigger-{n}", ttl=60,
                                                                  also=key("test-profile", "broken" if n == 2 else "fine"))
                                    for n in range(4)))
    assert [claimed for claimed, _ in claims] == [True] * 4
    assert [read for _, read in claims] == [("profile",), ("profile",), (None,), ("profile",)]
    again = await asyncio.gather(*(once.claim_or_assume_reading("command", "T", f"trigger-{n}", ttl=60,
                                                                 also=key("test-profile", "fine")) for n in range(4)))
    assert [claimed for claimed, _ in again] == [False] * 4  # each a replay, dropped

