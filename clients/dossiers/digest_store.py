"""What the daily digest remembers: each démarche's last posted counts and daily totals, and
which parts of which day's digest went out (so a retry never posts a part twice).

A run holds the day as a lease: a short Redis expiry renewed while the run works. A process
killed mid-run stops renewing, so the day is free again within `lease` seconds — not blocked
for the length of a whole run — and the next run posts only the parts still missing.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import json
import logging
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass

import redis.asyncio as aioredis
from redis.asyncio.lock import Lock
from redis.exceptions import LockError

from clients.dossiers.counts import DemarcheCounts
from clients.redis_keys import key
from clients.storage import as_text

log = logging.getLogger(__name__)

HISTORY_DAYS = 60
POSTED_TTL = 3 * 24 * 3600
LEASE = 30.0  # a crashed run frees the day after this; a live one renews it every third of it


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

    async def previous(self, demarche: int) -> Snapshot | None:
        raw = await self._redis.get(_key(demarche, "previous"))
        if raw is None:
            return None
        data = json.loads(raw)
        return Snapshot(dt.datetime.fromisoformat(data["at"]), data["by_state"])

    async def record(self, counts: DemarcheCounts, day: dt.date) -> None:
        snapshot = {"at": counts.counted_at.isoformat(), "by_state": counts.by_state}
        history = _key(counts.number, "history")
        async with self._redis.pipeline(transaction=False) as pipe:
            pipe.set(_key(counts.number, "previous"), json.dumps(snapshot))
            pipe.hset(history, day.isoformat(), counts.total)
            await pipe.execute()
        oldest = (day - dt.timedelta(days=HISTORY_DAYS)).isoformat()
        old = [d for d in map(as_text, await self._redis.hkeys(history)) if d is not None and d < oldest]
        if old:
            await self._redis.hdel(history, *old)

    async def history(self, demarche: int, day: dt.date, days: int = 14) -> list[int | None]:
        """Daily totals of the `days` days ending with `day`, None where no digest ran."""
        dates = [(day - dt.timedelta(days=offset)).isoformat() for offset in range(days - 1, -1, -1)]
        values = await self._redis.hmget(_key(demarche, "history"), dates)
        return [None if value is None else int(value) for value in values]

    @contextlib.asynccontextmanager
    async def day_lease(self, day: dt.date) -> AsyncIterator[bool]:
        """True while this run holds `day`; False when a live run elsewhere does."""
        lock = self._redis.lock(key("digest", day.isoformat(), "lock"), timeout=self._lease, blocking=False)
        if not await lock.acquire():
            yield False
            return
        renewing = asyncio.create_task(self._renew(lock))
        try:
            yield True
        finally:
            renewing.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await renewing
            with contextlib.suppress(LockError):  # lost meanwhile (Redis restarted): nothing to release
                await lock.release()

    async def _renew(self, lock: Lock) -> None:
        while True:
            await asyncio.sleep(self._lease / 3)
            try:
                await lock.reacquire()
            except LockError:
                log.warning("lost the digest's lease of the day; another process may post the missing parts")
                return

    async def forced_run(self, day: dt.date) -> str:
        """The id of a forced run of `day`: the unfinished one's when a forced run was cut short (so
        its retry posts only what is missing), else a new one."""
        name = key("digest", day.isoformat(), "forced")
        await self._redis.set(name, f"forced-{uuid.uuid4().hex[:8]}", nx=True, ex=POSTED_TTL)
        return str(await self._redis.get(name))

    async def forced_run_done(self, day: dt.date) -> None:
        await self._redis.delete(key("digest", day.isoformat(), "forced"))

    async def is_posted(self, day: dt.date, part: str = "all") -> bool:
        return bool(await self._redis.exists(key("digest", day.isoformat(), "posted", part)))

    async def mark_posted(self, day: dt.date, part: str = "all") -> None:
        await self._redis.set(key("digest", day.isoformat(), "posted", part), "1", ex=POSTED_TTL)


def _key(demarche: int, what: str) -> str:
    return key("ds", f"{{{demarche}}}", what)
