"""Which access levels the room service accepts, learned from its refusals.

A deployment may refuse public rooms through the external API (400 on `access_level`); nothing
asks it beforehand, so the first refusal is remembered for a day and pickers stop offering it.
"""

from __future__ import annotations

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from clients.redis_keys import key
from clients.rooms.models import AccessLevel
from clients.storage import degraded

TTL = 24 * 3600


class RoomLevels:
    def __init__(self, redis: aioredis.Redis, application: str) -> None:
        self._redis = redis
        self._application = application

    async def refused(self, level: AccessLevel) -> None:
        await self._set(level, refused=True)

    async def accepted(self, level: AccessLevel) -> None:
        await self._set(level, refused=False)

    async def offered(self) -> list[AccessLevel]:
        """The levels to offer, the service's default (trusted) first."""
        levels = [AccessLevel.TRUSTED, AccessLevel.RESTRICTED, AccessLevel.PUBLIC]
        try:
            refused = await self._redis.mget([self._key(level) for level in levels])
        except RedisError as error:
            degraded("room levels", error)
            return levels
        return [level for level, no in zip(levels, refused, strict=True) if no is None]

    async def _set(self, level: AccessLevel, *, refused: bool) -> None:
        try:
            if refused:
                await self._redis.set(self._key(level), "1", ex=TTL)
            else:
                await self._redis.delete(self._key(level))
        except RedisError as error:
            degraded("room levels", error)

    def _key(self, level: AccessLevel) -> str:
        # one hash tag for the application's levels: MGET stays in one Cluster slot
        return key("level-refused", f"{{{self._application}}}", level.value)
