"""What the daily digest remembers: each démarche's last posted counts and daily totals, and
which parts of which day's digest went out (so a retry never posts a part twice)."""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass

import redis.asyncio as aioredis
from redis.asyncio.lock import Lock

from clients.dossier_counts import DemarcheCounts
from clients.keys import key

HISTORY_DAYS = 60
POSTED_TTL = 3 * 24 * 3600
LOCK_TIMEOUT = 30 * 60  # a crashed digest run frees the day after this


@dataclass(frozen=True)
class Snapshot:
    at: dt.datetime
    by_state: dict[str, int]

    @property
    def total(self) -> int:
        return sum(self.by_state.values())


class DigestStore:
    def __init__(self, redis: aioredis.Redis) -> None:
        self._redis = redis

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
        old = [d for d in await self._redis.hkeys(history) if d < (day - dt.timedelta(days=HISTORY_DAYS)).isoformat()]
        if old:
            await self._redis.hdel(history, *old)

    async def history(self, demarche: int, day: dt.date, days: int = 14) -> list[int | None]:
        """Daily totals of the `days` days ending with `day`, None where no digest ran."""
        dates = [(day - dt.timedelta(days=offset)).isoformat() for offset in range(days - 1, -1, -1)]
        values = await self._redis.hmget(_key(demarche, "history"), dates)
        return [None if value is None else int(value) for value in values]

    def day_lock(self, day: dt.date) -> Lock:
        return self._redis.lock(key("digest", day.isoformat(), "lock"), timeout=LOCK_TIMEOUT, blocking=False)

    async def is_posted(self, day: dt.date, part: str = "all") -> bool:
        return bool(await self._redis.exists(key("digest", day.isoformat(), "posted", part)))

    async def mark_posted(self, day: dt.date, part: str = "all") -> None:
        await self._redis.set(key("digest", day.isoformat(), "posted", part), "1", ex=POSTED_TTL)


def _key(demarche: int, what: str) -> str:
    return key("ds", f"{{{demarche}}}", what)
