"""What the daily digest remembers: each démarche's last posted counts and daily totals, and
which parts of which day's digest went out (so a retry never posts a part twice).

A run holds the day as a lease: a short Redis expiry renewed while the run works. A process
killed mid-run stops renewing, so the day is free again within `lease` seconds — not blocked
for the length of a whole run — and the next run posts only the parts still missing.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import datetime as dt
import json
import logging
import time
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from enum import StrEnum

import redis.asyncio as aioredis
from redis.asyncio.lock import Lock
from redis.exceptions import LockError, RedisError

from clients.dossiers.counts import DemarcheCounts, forget_records
from clients.dossiers.records import Counted, Needs
from clients.dossiers.subscriptions import Subscriptions
from clients.redis_keys import key
from clients.storage import as_text

log = logging.getLogger(__name__)

HISTORY_DAYS = 60
POSTED_TTL = 3 * 24 * 3600
LEASE = 30.0  # a crashed run frees the day after this; a live one renews it every third of it
RUN_WINDOW = 30 * 60  # a démarche counted for one channel serves the others for this long


class Outcome(StrEnum):
    """How a request to post a channel's digest of a day ended."""

    POSTED = "posted"
    ALREADY_POSTED = "already posted today"
    BUSY = "another process is posting it"
    PAUSED = "not posted: the channel refuses it"
    NO_TOKEN = "not posted: no dossier-service token serves the workspace"
    LAPSED = "not posted: whoever set it up no longer works on its démarches"


@dataclass(frozen=True)
class Snapshot:
    at: dt.datetime
    by_state: dict[str, int]

    @property
    def total(self) -> int:
        return sum(self.by_state.values())


class DigestStore:
    def __init__(self, redis: aioredis.Redis, *, lease: float = LEASE) -> None:
        self._redis = redis
        self._lease = lease

    async def previous(self, demarche: int, before: dt.date) -> Snapshot | None:
        """The démarche's last counts of a day before `before`: every channel's digest of a day
        compares with the same base, whatever its hour."""
        days = {str(as_text(d)): str(as_text(v)) for d, v in (await self._redis.hgetall(_key(demarche, "days"))).items()}
        earlier = [d for d in days if d < before.isoformat()]
        return _snapshot(days[max(earlier)]) if earlier else None

    async def record(self, counts: DemarcheCounts, day: dt.date) -> None:
        """The démarche's counts of `day` (the last count of the day wins)."""
        days = _key(counts.number, "days")
        snapshot = {"at": counts.counted_at.isoformat(), "by_state": counts.by_state}
        await self._redis.hset(days, day.isoformat(), json.dumps(snapshot))
        await self._redis.expire(days, HISTORY_DAYS * 86400)  # a démarche nobody counts any more is forgotten
        oldest = (day - dt.timedelta(days=HISTORY_DAYS)).isoformat()
        old = [d for d in map(as_text, await self._redis.hkeys(days)) if d is not None and d < oldest]
        if old:
            await self._redis.hdel(days, *old)

    async def snapshots(self, demarche: int, day: dt.date, days: int = 14) -> list[Snapshot | None]:
        """The counts of each of the `days` days ending with `day`, None where none was made."""
        dates = [(day - dt.timedelta(days=offset)).isoformat() for offset in range(days - 1, -1, -1)]
        values = await self._redis.hmget(_key(demarche, "days"), dates)
        return [None if value is None else _snapshot(as_text(value) or "") for value in values]

    async def history(self, demarche: int, day: dt.date, days: int = 14) -> list[int | None]:
        """Daily totals of the `days` days ending with `day`, None where no count was made."""
        return [None if s is None else s.total for s in await self.snapshots(demarche, day, days)]

    async def shared_count(self, demarche: int, day: dt.date) -> DemarcheCounts | None:
        """Counts another channel's digest made of this démarche within the run window."""
        raw = as_text(await self._redis.get(_count_key(demarche, day)))
        if raw is None:
            return None
        data = json.loads(raw)
        groups = {int(number): Counted(part["by_state"], Needs(**part["needs"])) for number, part in data.get("groups", {}).items()}
        return DemarcheCounts(**{**data, "counted_at": dt.datetime.fromisoformat(data["counted_at"]),
                                 "needs": Needs(**data.get("needs", {})), "groups": groups})

    async def share_count(self, counts: DemarcheCounts, day: dt.date) -> None:
        data = {**dataclasses.asdict(counts), "counted_at": counts.counted_at.isoformat()}
        await self._redis.set(_count_key(counts.number, day), json.dumps(data), ex=RUN_WINDOW)

    def counting(self, demarche: int, day: dt.date) -> contextlib.AbstractAsyncContextManager[bool]:
        """Held while this process counts the démarche for `day`; others wait, then share the counts."""
        return self._held(key("ds", f"{{{demarche}}}", "counting", day.isoformat()), wait=True)

    def day_lease(self, day: dt.date, channel: str) -> contextlib.AbstractAsyncContextManager[bool]:
        """True while this run holds `channel`'s digest of `day`; False when a live run elsewhere does."""
        return self._held(_day(day, channel, "lock"), wait=False)

    @contextlib.asynccontextmanager
    async def _held(self, name: str, *, wait: bool) -> AsyncIterator[bool]:
        """A Redis lock that lives while its holder does (renewed every third of `lease`)."""
        lock = self._redis.lock(name, timeout=self._lease, blocking=wait, sleep=0.05)
        if not await lock.acquire():
            yield False
            return
        done = asyncio.Event()
        renewing = asyncio.create_task(self._renew(lock, done))
        try:
            yield True
        finally:
            done.set()  # not cancel(): redis-py may turn a cancelled command into a RedisError
            await renewing
            # lost meanwhile (Redis restarted: nothing to release) or Redis failing over (it runs out)
            with contextlib.suppress(LockError, RedisError):
                await lock.release()

    async def _renew(self, lock: Lock, done: asyncio.Event) -> None:
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(done.wait(), self._lease / 3)
                return
            try:
                await lock.reacquire()
            except LockError:
                log.warning("lost the digest's lease of the day; another process may post the missing parts")
                return
            except RedisError as error:  # failing over: the lease lives on in the replica, try again
                log.warning("could not renew the digest's lease (%s); trying again", type(error).__name__)

    async def forced_run(self, day: dt.date, channel: str) -> str:
        """The id of a forced run of `day`: the unfinished one's when a forced run was cut short (so
        its retry posts only what is missing), else a new one."""
        name = _day(day, channel, "forced")
        await self._redis.set(name, f"forced-{uuid.uuid4().hex[:8]}", nx=True, ex=POSTED_TTL)
        return str(await self._redis.get(name))

    async def forced_run_done(self, day: dt.date, channel: str) -> None:
        await self._redis.delete(_day(day, channel, "forced"))

    @property
    def subscriptions(self) -> Subscriptions:
        return Subscriptions(self._redis)

    async def asked_by(self, day: dt.date, channel: str, user: str | None = None) -> str | None:
        """Who asked for `channel`'s digest of `day` from Slack (with `user`: note them first)."""
        name = _day(day, channel, "asked-by")
        if user is not None:
            await self._redis.set(name, user, nx=True, ex=POSTED_TTL)
        return as_text(await self._redis.get(name))

    async def note_refused(self, day: dt.date, place: str, code: str) -> bool:
        """Notes that `place`'s channel refused `day`'s digest; True only for the first note."""
        return bool(await self._redis.set(_day(day, place, "refused"), code, nx=True, ex=POSTED_TTL))

    async def refused(self, day: dt.date, place: str) -> bool:
        return bool(await self._redis.exists(_day(day, place, "refused")))

    async def count_asked(self, day: dt.date, user: str) -> int:
        """One more `/digest now` by `user` on `day`: how many so far."""
        name = key("digest-asked", day.isoformat(), user)
        async with self._redis.pipeline(transaction=False) as pipe:
            pipe.incr(name)
            pipe.expire(name, 2 * 86400)
            count, _ = await pipe.execute()
        return int(count)

    async def forget(self, demarche: int) -> None:
        """The démarche's daily counts and its dossier records, when nothing follows it any more."""
        await self._redis.delete(_key(demarche, "days"))
        await forget_records(self._redis, demarche)

    async def is_posted(self, day: dt.date, channel: str, part: str = "all") -> bool:
        return bool(await self._redis.exists(_day(day, channel, "posted", part)))

    async def mark_posted(self, day: dt.date, channel: str, part: str = "all") -> None:
        """The part is in Slack already: a mark lost to a failing Redis would let the next run post
        it again, so it is retried for as long as the lease lasts (a Cluster or Sentinel failover
        takes a few seconds)."""
        deadline = time.monotonic() + self._lease
        while True:
            try:
                await self._redis.set(_day(day, channel, "posted", part), "1", ex=POSTED_TTL)
                return
            except RedisError:
                if time.monotonic() > deadline:
                    raise
                await asyncio.sleep(0.25)


def _snapshot(raw: str) -> Snapshot:
    data = json.loads(raw)
    return Snapshot(dt.datetime.fromisoformat(data["at"]), data["by_state"])


def _count_key(demarche: int, day: dt.date) -> str:
    return key("ds", f"{{{demarche}}}", "count", day.isoformat())


def _day(day: dt.date, channel: str, *what: str) -> str:
    """A key of one channel's digest of one day."""
    return key("digest", day.isoformat(), channel, *what)


def _key(demarche: int, what: str) -> str:
    return key("ds", f"{{{demarche}}}", what)
