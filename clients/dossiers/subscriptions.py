"""Which channels get a digest, of which démarches, at what local hour — kept in Redis.

Channels subscribe from Slack (`/digest subscribe`); the operator's own subscription comes from
the environment (DIGEST_CHANNEL, DIGEST_DEMARCHES, DIGEST_TIME) and is not stored here.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass

import redis.asyncio as aioredis

from clients.redis_keys import key
from clients.storage import as_text

INDEX = key("digest-subs")


@dataclass(frozen=True)
class Subscription:
    channel: str
    demarches: tuple[int, ...]
    at: dt.time


class Subscriptions:
    def __init__(self, redis: aioredis.Redis) -> None:
        self._redis = redis

    async def get(self, channel: str) -> Subscription | None:
        raw = as_text(await self._redis.get(_key(channel)))
        if raw is None:
            return None
        data = json.loads(raw)
        return Subscription(channel, tuple(data["demarches"]), dt.time.fromisoformat(data["at"]))

    async def save(self, subscription: Subscription) -> None:
        """Saves it, or forgets the channel when it follows no démarche any more."""
        if not subscription.demarches:
            await self._redis.delete(_key(subscription.channel))
            await self._redis.srem(INDEX, subscription.channel)
            return
        data = {"demarches": list(subscription.demarches), "at": subscription.at.strftime("%H:%M")}
        await self._redis.set(_key(subscription.channel), json.dumps(data))
        await self._redis.sadd(INDEX, subscription.channel)

    async def all(self) -> list[Subscription]:
        found = [await self.get(str(as_text(channel))) for channel in await self._redis.smembers(INDEX)]
        return [subscription for subscription in found if subscription is not None]


def _key(channel: str) -> str:
    return key("digest-sub", channel)
