"""Room slug → id, remembered from every room the bot sees.

The room service cannot look a room up by slug (its links carry only the slug), so the bot
notes each room it creates or lists; a pasted link then resolves without paging through rooms.
"""

from __future__ import annotations

from collections.abc import Iterable

import redis.asyncio as aioredis
from redis.asyncio.client import Pipeline
from redis.exceptions import RedisError

from clients.redis_keys import key
from clients.rooms.models import Room
from clients.storage import as_text, degraded

TTL = 90 * 24 * 3600


class RoomDirectory:
    def __init__(self, redis: aioredis.Redis) -> None:
        self._redis = redis

    async def remember(self, rooms: Iterable[Room]) -> None:
        try:
            async with self._redis.pipeline(transaction=False) as pipe:
                self.remember_on(pipe, rooms)
                await pipe.execute()
        except RedisError as error:
            degraded("slug directory", error)

    @staticmethod
    def remember_on(pipe: Pipeline, rooms: Iterable[Room]) -> None:
        """`remember`'s writes, queued on another round trip's pipeline."""
        for room in rooms:
            pipe.set(key("slug", room.slug), room.id, ex=TTL)

    async def lookup(self, slug: str) -> str | None:
        """None when unknown or when Redis is away: the caller then pages through the rooms."""
        try:
            return as_text(await self._redis.get(key("slug", slug)))
        except RedisError as error:
            degraded("slug directory", error)
            return None
