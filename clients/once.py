"""Claims that succeed once per window, shared by every bot process through Redis.

Used wherever Slack may say the same thing twice — a double click, a retried event delivery —
and the effect must happen once: `SET key 1 NX EX ttl` is true only for the first caller.
"""

from __future__ import annotations

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from clients.redis_keys import key
from clients.storage import degraded


class Once:
    def __init__(self, redis: aioredis.Redis) -> None:
        self._redis = redis

    async def claim(self, *name: str, ttl: int) -> bool:
        return bool(await self._redis.set(key("once", *name), "1", nx=True, ex=ttl))

    async def claim_or_assume(self, *name: str, ttl: int) -> bool:
        """`claim`, but without Redis the caller goes ahead: for effects where answering beats
        refusing (events, commands, a new room), a rare double beats a dead bot."""
        try:
            return await self.claim(*name, ttl=ttl)
        except RedisError as error:
            degraded(f"{name[0]} once", error)
            return True

    async def release(self, *name: str) -> None:
        """Gives the claim back when the effect did not happen, so trying again works."""
        await self._redis.delete(key("once", *name))
