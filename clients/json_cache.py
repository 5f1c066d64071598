"""A small JSON-valued Redis cache with a fixed lifetime, for data that is cheap to re-read.

Being a cache, it never fails its caller: without Redis every read is a miss."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from clients.redis_keys import key
from clients.storage import degraded


class JsonCache:
    def __init__(self, redis: aioredis.Redis, namespace: str, ttl: float) -> None:
        self._redis = redis
        self._namespace = namespace
        self._ttl = int(ttl)

    def key(self, *name: str) -> str:
        """The entry's Redis key, for a caller that reads it along with something else (`read` decodes it)."""
        return key(self._namespace, *name)

    @staticmethod
    def read(raw: str | bytes | None) -> Any | None:
        return None if raw is None else json.loads(raw)

    async def get(self, *name: str) -> Any | None:
        try:
            raw = await self._redis.get(key(self._namespace, *name))
        except RedisError as error:
            degraded(self._namespace, error)
            return None
        return self.read(raw)

    async def put(self, value: Any, *name: str, ttl: float | None = None) -> None:
        """`ttl`: this entry's lifetime, when not the cache's."""
        try:
            await self._redis.set(key(self._namespace, *name), json.dumps(value), ex=int(ttl or self._ttl))
        except RedisError as error:
            degraded(self._namespace, error)

    async def put_many(self, entries: Iterable[tuple[Any, tuple[str, ...]]]) -> None:
        """Each `(value, name)` in one round trip (a page of rooms: ten SETs were ten)."""
        try:
            async with self._redis.pipeline(transaction=False) as pipe:
                for value, name in entries:
                    pipe.set(key(self._namespace, *name), json.dumps(value), ex=self._ttl)
                await pipe.execute()
        except RedisError as error:
            degraded(self._namespace, error)
