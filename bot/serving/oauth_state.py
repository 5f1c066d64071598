"""The `state` of an "Add to Slack" link: signed, not stored, until it comes back.

Anyone may open `/slack/install`, so issuing a state writes nothing (5,000 opened links cost no
Redis key): it is the time it was issued and a nonce, signed with a key derived from the app's
client secret, so every process of the deployment can check it. It is good for ten minutes and
once: its use is claimed in Redis when it comes back, signature and age checked first. The
contract is slack_sdk's `AsyncOAuthStateStore` (its tests run in tests/installs).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import logging
import secrets
import time
from typing import Any

import redis.asyncio as aioredis
from slack_sdk.oauth.state_store.async_state_store import AsyncOAuthStateStore

from clients.redis_keys import key

log = logging.getLogger(__name__)

STATE_SECONDS = 600  # an "Add to Slack" link is good for ten minutes, once
MAX_LENGTH = 100
CLOCK_SKEW = 60  # processes on other hosts may run a little ahead


class StateStore(AsyncOAuthStateStore):
    def __init__(self, redis: aioredis.Redis, secret: str, expiration_seconds: int = STATE_SECONDS) -> None:
        self._redis = redis
        self._key = hashlib.sha256(b"roombot oauth state\0" + secret.encode()).digest()
        self.expiration_seconds = expiration_seconds

    @property
    def logger(self) -> logging.Logger:
        return log

    async def async_issue(self, *args: Any, **kwargs: Any) -> str:
        body = f"{int(time.time()):x}.{secrets.token_urlsafe(18)}"
        return f"{body}.{self._sign(body)}"

    async def async_consume(self, state: str) -> bool:
        if not state or len(state) > MAX_LENGTH or state.count(".") != 2:
            return False
        body, _, signature = state.rpartition(".")
        if not hmac.compare_digest(signature, self._sign(body)):
            return False
        try:
            age = time.time() - int(body.partition(".")[0], 16)
        except ValueError:
            return False
        if not -CLOCK_SKEW <= age <= self.expiration_seconds:
            return False
        # Redis not answering is not a stale link: the page says to try again (bot.serving.install_pages)
        return bool(await self._redis.set(key("oauth-state-used", body), "1", nx=True, ex=self.expiration_seconds + 1))

    def _sign(self, body: str) -> str:
        mac = hmac.new(self._key, body.encode(), hashlib.sha256).digest()[:18]
        return base64.urlsafe_b64encode(mac).decode().rstrip("=")
