"""Which inference key the bot uses: the one it rotated to (kept in Redis), else the operator's
bootstrap key (`ALBERT_API_KEY`), which the bot never stores and never revokes.

A rotated key the service refuses (revoked by hand, or expired) is forgotten, so the bot falls
back to the bootstrap key instead of failing every call until someone edits Redis — but only when
the bootstrap key is still accepted: when both are refused, the account itself is (it expired),
and the rotated key will be good again with it. A forgotten key's id is kept, so the next rotation
revokes it should it still exist."""

from __future__ import annotations

import datetime as dt
import json
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import redis.asyncio as aioredis
from pydantic import SecretStr
from redis.exceptions import RedisError

from clients.inference.api_keys import ApiKey
from clients.inference.errors import AccountRefused, KeyRejected
from clients.redis_keys import key
from clients.secret_box import SecretBox
from clients.storage import DROP_IF_SAME, as_text, degraded

log = logging.getLogger(__name__)

ACTIVE = key("albert", "active-key")
FORGOTTEN = key("albert", "forgotten-keys")

#: Whether the service accepts a key (asked before the bot's rotated key is given up).
KeyProbe = Callable[[SecretStr], Awaitable[bool]]


@dataclass(frozen=True)
class ActiveKey:
    id: int | str
    name: str
    secret: SecretStr
    expires: int | None

    def expires_within(self, days: int, now: dt.datetime) -> bool:
        return self.expires is not None and self.expires - now.timestamp() <= days * 86400


class KeyStore:
    def __init__(self, redis: aioredis.Redis, bootstrap: SecretStr | None, box: SecretBox | None = None) -> None:
        self._redis = redis
        self.bootstrap = bootstrap
        self._box = box or SecretBox()
        self.probe: KeyProbe | None = None  # set by whoever holds the service (it is built with this store)

    async def probe_bootstrap(self) -> bool:
        """Whether the service still accepts `ALBERT_API_KEY` (the bot's fallback)."""
        return self.bootstrap is not None and self.probe is not None and await self.probe(self.bootstrap)

    async def active(self) -> ActiveKey | None:
        try:
            raw = as_text(await self._redis.get(ACTIVE))
        except RedisError as error:
            degraded("inference key", error)
            return None
        return _read(raw, self._box)

    async def refused(self, secret: SecretStr) -> bool:
        """The service refused `secret`: when it was the bot's rotated key, forget it (unless another
        process rotated meanwhile) and say so; True when a different key is now current.
        `AccountRefused` when the bootstrap key is refused too: the account is, and the key is kept."""
        try:
            raw = as_text(await self._redis.get(ACTIVE))
            active = _read(raw, self._box)
            if raw is None or active is None or active.secret.get_secret_value() != secret.get_secret_value():
                return False
            if self.bootstrap is not None and self.probe is not None and not await self.probe(self.bootstrap):
                raise AccountRefused(f"the bot's key {active.name} and ALBERT_API_KEY refused alike; the bot's key is kept")
            if await self._redis.eval(DROP_IF_SAME, 1, ACTIVE, raw):
                await self._redis.sadd(FORGOTTEN, str(active.id))
        except RedisError as error:
            degraded("inference key", error)
            return False
        log.warning("the inference service refused the bot's key %s (id %s): revoked or expired; using "
                    "ALBERT_API_KEY from now on. Run `python -m bot keys rotate` for a new one.", active.name, active.id)
        return self.bootstrap is not None

    async def current(self) -> SecretStr:
        active = await self.active()
        if active is not None:
            return active.secret
        if self.bootstrap is None:
            raise KeyRejected("no inference key: set ALBERT_API_KEY")
        return self.bootstrap

    async def forgotten(self) -> list[str]:
        """Ids of rotated keys the bot gave up on, and did not revoke."""
        return sorted(str(as_text(member)) for member in await self._redis.smembers(FORGOTTEN))

    async def revoked(self, key_id: str) -> None:
        await self._redis.srem(FORGOTTEN, key_id)

    async def activate(self, new: ApiKey) -> ActiveKey | None:
        """Makes `new` the bot's key; returns the key it replaces (the bot's own, never the bootstrap)."""
        assert new.secret is not None
        previous = await self.active()
        entry = {"id": new.id, "name": new.name, "secret": new.secret.get_secret_value(), "expires": new.expires}
        await self._redis.set(ACTIVE, self._box.seal(json.dumps(entry)))
        return previous


def _read(raw: str | None, box: SecretBox) -> ActiveKey | None:
    opened = box.open(raw) if raw is not None else None
    if opened is None:
        return None
    data = json.loads(opened)
    return ActiveKey(data["id"], data["name"], SecretStr(data["secret"]), data.get("expires"))
