"""Each person's delegated room-service token, shared through Redis by every bot process.

The service has no refresh token: a token is reused until `expires_in` minus a margin, then a
new one is issued. The margin is a tenth of the lifetime, at most `max_margin`: the service's
lifetime is its operator's choice (30 s is valid), and a fixed minute would cache nothing.
Issuing is single-flight across processes: the first caller takes a Redis lock and fetches; the
others wait on the lock and find the cached result. The lock expires on its own, so a crashed
holder blocks nobody longer than `lock_timeout`.

Tokens are kept per application: a token carries the scopes its application had when it was
issued, and only that application's credentials obtained it (meet-api.md §5b).
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

import redis.asyncio as aioredis
from pydantic import SecretStr
from redis.asyncio.client import Pipeline
from redis.exceptions import RedisError

from clients.redis_keys import email_digest, key
from clients.rooms.models import TokenGrant
from clients.secret_box import SecretBox
from clients.storage import DROP_IF_SAME, as_text, degraded

log = logging.getLogger(__name__)


class TokenCache:
    def __init__(
        self,
        redis: aioredis.Redis,
        *,
        application: str = "app",
        max_margin: float = 60.0,
        lock_timeout: float = 10.0,
        poll: float = 0.025,
        clock: Callable[[], float] | None = None,
        box: SecretBox | None = None,
    ) -> None:
        self._redis = redis
        self._box = box or SecretBox()
        self._application = application
        self._max_margin = max_margin
        self._lock_timeout = lock_timeout
        self._poll = poll
        self._clock = clock or (lambda: time.time())  # looked up per call, so freezegun can move it
        self._drop = redis.register_script(DROP_IF_SAME)

    async def get(self, email: str) -> SecretStr | None:
        return self._opened(await self._redis.get(self._key(email)))

    async def get_beside(self, email: str, read: Callable[[Pipeline], object]) -> tuple[SecretStr | None, Any]:
        """The cached token, and the answer of the one read `read` puts on the same pipeline: a
        command's reads of the person's keys in one round trip (`/room list`: 40 µs of CPU less)."""
        async with self._redis.pipeline(transaction=False) as pipe:
            pipe.get(self._key(email))
            read(pipe)
            raw, answer = await pipe.execute()
        return self._opened(raw), answer

    def _opened(self, value: bytes | str | None) -> SecretStr | None:
        raw = as_text(value)
        opened = self._box.open(raw) if raw is not None else None
        if opened is None:
            return None
        entry = json.loads(opened)
        if entry["use_until"] <= self._clock():
            return None
        return SecretStr(entry["token"])

    async def get_or_fetch(self, email: str, fetch: Callable[[], Awaitable[TokenGrant]]) -> SecretStr:
        """Cached, or fetched once for all callers; without Redis, fetched for this caller alone."""
        fetched: list[TokenGrant] = []

        async def fetch_once() -> TokenGrant:
            fetched.append(await fetch())
            return fetched[0]

        try:
            return await self._cached_or_fetched(email, fetch_once)
        except RedisError as error:
            degraded("token cache", error)
            return (fetched[0] if fetched else await fetch()).access_token

    async def _cached_or_fetched(self, email: str, fetch: Callable[[], Awaitable[TokenGrant]]) -> SecretStr:
        cached = await self.get(email)
        if cached is not None:
            return cached
        lock = self._redis.lock(
            key("lock", "token", self._application, email_digest(email)),
            timeout=self._lock_timeout,
            sleep=self._poll,
            blocking_timeout=self._lock_timeout + 1,
        )
        async with lock:
            cached = await self.get(email)  # another process may have fetched it while we waited
            if cached is not None:
                return cached
            grant = await fetch()
            await self._store(email, grant)
            return grant.access_token

    async def drop(self, email: str, token: SecretStr) -> None:
        """Forgets `token` (refused by the service) unless another token replaced it meanwhile."""
        try:
            raw = as_text(await self._redis.get(self._key(email)))
            opened = self._box.open(raw) if raw is not None else None
            if raw is not None and opened is not None and json.loads(opened)["token"] == token.get_secret_value():
                await self._drop(keys=[self._key(email)], args=[raw])
        except RedisError as error:
            degraded("token cache", error)

    async def _store(self, email: str, grant: TokenGrant) -> None:
        if grant.expires_in < MIN_CACHED_LIFETIME:
            _warn_short_lifetime(grant.expires_in)
            return
        usable = grant.expires_in - min(self._max_margin, grant.expires_in / 10)
        entry = {"token": grant.access_token.get_secret_value(), "use_until": self._clock() + usable}
        await self._redis.set(self._key(email), self._box.seal(json.dumps(entry)), ex=max(1, int(usable)))

    def _key(self, email: str) -> str:
        return key("token", self._application, email_digest(email))


#: Below this, a token would expire while a command uses it: fetched for each command instead.
MIN_CACHED_LIFETIME = 10

_warned_short = False


def _warn_short_lifetime(seconds: int) -> None:
    """Once per process: the operator's setting is the cause, and it holds for every token."""
    global _warned_short
    if not _warned_short:
        _warned_short = True
        log.warning("the room service issues tokens valid for %ss; below %ss they are not cached "
                    "(raise APPLICATION_JWT_EXPIRATION_SECONDS)", seconds, MIN_CACHED_LIFETIME)
