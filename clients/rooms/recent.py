"""The rooms a person made through the bot, newest first.

The room service lists rooms by name (a random slug), so a room made a minute ago is usually not
on the first page; the bot remembers the last few it made for each person to show them first.
"""

from __future__ import annotations

from collections.abc import Iterable

import redis.asyncio as aioredis
from redis.asyncio.client import Pipeline
from redis.exceptions import RedisError

from clients.redis_keys import email_digest, key
from clients.rooms.directory import RoomDirectory
from clients.rooms.models import Room
from clients.storage import as_text, degraded

KEEP = 5
TTL = 30 * 24 * 3600
_FIELDS = {"id", "slug", "name", "access_level", "url"}  # enough for a list entry; no PIN kept


class RecentRooms:
    def __init__(self, redis: aioredis.Redis, application: str) -> None:
        self._redis = redis
        self._application = application

    async def add(self, email: str, room: Room, *, slugs: RoomDirectory | None = None) -> None:
        """`slugs`: the new room kept in that slug directory too, in the same round trip."""
        name = self._key(email)
        try:
            async with self._redis.pipeline(transaction=False) as pipe:
                pipe.lpush(name, room.model_dump_json(include=_FIELDS))
                pipe.ltrim(name, 0, KEEP - 1)
                pipe.expire(name, TTL)
                if slugs is not None:
                    slugs.remember_on(pipe, [room])
                await pipe.execute()
        except RedisError as error:
            degraded("recent rooms", error)

    @staticmethod
    def rooms(raw: Iterable[bytes | str]) -> list[Room]:
        return [Room.model_validate_json(item) for item in raw]

    async def list(self, email: str) -> list[Room]:
        try:
            raw = await self._redis.lrange(self._key(email), 0, KEEP - 1)
        except RedisError as error:
            degraded("recent rooms", error)
            return []
        return self.rooms(raw)

    def read_on(self, pipe: Pipeline, email: str) -> None:
        """The read `list` makes, put on a pipeline; its answer for `rooms`."""
        pipe.lrange(self._key(email), 0, KEEP - 1)

    async def forget(self, email: str, room_id: str) -> None:
        """A room the service no longer has."""
        try:
            for raw in await self._redis.lrange(self._key(email), 0, KEEP - 1):
                if Room.model_validate_json(raw).id == room_id:
                    await self._redis.lrem(self._key(email), 0, str(as_text(raw)))
        except RedisError as error:
            degraded("recent rooms", error)

    def _key(self, email: str) -> str:
        return key("recent", self._application, email_digest(email))
