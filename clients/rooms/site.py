"""Where people sign in to the room service: the web app that serves the room links.

The API and the web app usually live on different hosts (meet-api.md §5c), and only the room
links the service returns say where the web app is. The origin of the first link seen is kept
(per application, shared by every process); until one is seen, the operator's MEET_ROOM_BASE_URL,
else the API's own origin, is the best guess.
"""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import urlsplit

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from clients.redis_keys import key
from clients.rooms.models import Room
from clients.storage import as_text, degraded

TTL = 30 * 24 * 3600


class RoomSite:
    def __init__(self, redis: aioredis.Redis, application: str, fallback: str) -> None:
        self._redis = redis
        self._key = key("room-site", application)
        self._fallback = fallback
        self._known: str | None = None

    async def learn(self, rooms: Iterable[Room]) -> None:
        origin = next((_origin(room.url) for room in rooms if room.url), None)
        if origin is None or origin == self._known:
            return
        self._known = origin
        try:
            await self._redis.set(self._key, origin, ex=TTL)
        except RedisError as error:
            degraded("room site", error)

    async def origin(self) -> str:
        if self._known is None:
            try:
                self._known = as_text(await self._redis.get(self._key))
            except RedisError as error:
                degraded("room site", error)
        return self._known or self._fallback


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"
