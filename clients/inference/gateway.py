"""How every request reaches the inference service: with which key, under which retry policy.

One place for what the chat, the models and the key routes share: the bearer key from the key
source, the shared retry policy, network failures typed for the operator, and the one retry with
a new key. A key the service refuses (`Invalid API key.`) may be the bot's own rotated key,
revoked or expired since: the key source is told, may fall back to the operator's key, and the
call is made once more.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import httpx
from pydantic import SecretStr

from clients.errors import network_words
from clients.inference.answers import key_refused, raise_for
from clients.inference.errors import InferenceUnavailable, InferenceUnreachable
from clients.lazy_http import LazyClient
from clients.retry import RetryPolicy

SERVICE = "inference"

KeySource = Callable[[], Awaitable[SecretStr]]
#: Told which key the service refused; True when it changed the key, so the call is worth retrying.
KeyRefused = Callable[[SecretStr], Awaitable[bool]]
#: One try of a request with these headers (the policy may make several).
Attempt = Callable[[dict[str, str]], Awaitable[httpx.Response]]


class Gateway:
    def __init__(self, base_url: str, key: KeySource, *, on_refused: KeyRefused | None, policy: RetryPolicy | None,
                 timeout: float) -> None:
        self.base = base_url.rstrip("/")
        self._key = key
        self._on_refused = on_refused
        self.policy = policy or RetryPolicy(attempts=3, budget=30.0, base_delay=1.0, max_delay=15.0)
        self.http = LazyClient(timeout=httpx.Timeout(timeout, connect=5.0))

    async def aclose(self) -> None:
        await self.http.aclose()

    async def call(self, method: str, path: str, *, idempotent: bool, key: SecretStr | None = None, **kwargs: Any) -> httpx.Response:
        """The answer, or the service's refusal typed (answers.raise_for)."""
        response = await self.send(method, path, idempotent=idempotent, key=key, **kwargs)
        raise_for(response, path)
        return response

    async def send(self, method: str, path: str, *, idempotent: bool, key: SecretStr | None = None, **kwargs: Any) -> httpx.Response:
        """The answer whatever its status: for a caller that reads a refusal itself (a route probe)."""
        async def attempt(headers: dict[str, str]) -> httpx.Response:
            response = await self.http().request(method, self.base + path, headers=headers, **kwargs)
            await response.aread()
            return response

        return await self.call_with(attempt, idempotent=idempotent, key=key)

    async def call_with(self, attempt: Attempt, *, idempotent: bool, key: SecretStr | None = None) -> httpx.Response:
        """With `key`, that key alone (proving a new one); else the source's key, once more with
        its replacement when the service refused it and the source had another."""
        secret = key or await self._key()
        response = await self._with_key(attempt, secret, idempotent)
        if key is None and self._on_refused is not None and key_refused(response) and await self._on_refused(secret):
            response = await self._with_key(attempt, await self._key(), idempotent)
        return response

    async def _with_key(self, attempt: Attempt, secret: SecretStr, idempotent: bool) -> httpx.Response:
        headers = {"Authorization": f"Bearer {secret.get_secret_value()}", "User-Agent": "roombot"}
        try:
            return await self.policy.send(SERVICE, lambda: attempt(headers), idempotent=idempotent)
        except (httpx.ConnectError, httpx.ConnectTimeout) as error:
            raise InferenceUnreachable(f"{self.base}: {network_words(error)}") from None
        except httpx.TransportError as error:
            raise InferenceUnavailable(str(error) or network_words(error)) from None
