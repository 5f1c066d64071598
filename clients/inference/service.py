"""Client of the inference service (Albert API, OpenAI-compatible): the chat and its models.

This is what the digest's AI line and `check` ask of the service; the account's keys are
`api_keys` (clients/inference/api_keys.py), both over one Gateway (the key, the retry policy, the
one retry with a new key). Chat completions are idempotent, so retried; a streamed answer is
read whole or not at all (clients/inference/stream.py).
"""

from __future__ import annotations

from collections.abc import Callable

import httpx
from pydantic import BaseModel, ConfigDict, SecretStr, ValidationError

from clients.inference.answers import body_of, listed, raise_for
from clients.inference.api_keys import ApiKeys
from clients.inference.errors import InferenceError, InferenceUnavailable, KeyRejected
from clients.inference.gateway import Gateway, KeyRefused, KeySource
from clients.inference.stream import read_stream
from clients.retry import RetryPolicy

CHAT = "/v1/chat/completions"


class Model(BaseModel):
    """A model the gateway serves, by its id and the aliases it also answers to."""

    model_config = ConfigDict(extra="ignore")

    id: str
    aliases: list[str] = []

    @property
    def names(self) -> tuple[str, ...]:
        return (self.id, *self.aliases)


class InferenceService:
    def __init__(
        self,
        base_url: str,
        key: KeySource,
        *,
        model: str,
        on_refused: KeyRefused | None = None,
        policy: RetryPolicy | None = None,
        timeout: float = 60.0,
    ) -> None:
        self.gateway = Gateway(base_url, key, on_refused=on_refused, policy=policy, timeout=timeout)
        self.api_keys = ApiKeys(self.gateway)
        self.model = model
        #: the operator's words for a refusal, with the setting to change; whoever knows the settings
        #: (bot.inference) sets it, so the digest's log reads as `check` does
        self.advise: Callable[[InferenceError], str] = lambda error: error.detail

    async def aclose(self) -> None:
        await self.gateway.aclose()

    async def complete(self, messages: list[dict[str, str]], *, max_tokens: int = 200, temperature: float = 0.3) -> str:
        body = {"model": self.model, "messages": messages, "max_completion_tokens": max_tokens, "temperature": temperature}
        response = await self.gateway.call("POST", CHAT, json=body, idempotent=True)
        try:
            choice = body_of(response)["choices"][0]
            return str(choice["message"]["content"] or "").strip()
        except (KeyError, IndexError, TypeError):
            raise InferenceUnavailable("a completion without choices") from None

    async def stream(self, messages: list[dict[str, str]], *, max_tokens: int = 200, temperature: float = 0.3) -> str:
        """The whole streamed answer, or an exception: never the part of a cut stream."""
        body = {"model": self.model, "messages": messages, "max_completion_tokens": max_tokens,
                "temperature": temperature, "stream": True}
        text: list[str] = []
        http = self.gateway.http

        async def attempt(headers: dict[str, str]) -> httpx.Response:
            text.clear()
            request = http().build_request("POST", self.gateway.base + CHAT, json=body, headers=headers)
            response = await http().send(request, stream=True)
            try:
                if response.status_code != 200:
                    await response.aread()
                    return response
                text.extend(await read_stream(response))
                return response
            finally:
                await response.aclose()

        raise_for(await self.gateway.call_with(attempt, idempotent=True), CHAT)
        return "".join(text).strip()

    async def models(self, key: SecretStr | None = None) -> list[Model]:
        """The gateway's models; with `key`, also proves that key works."""
        response = await self.gateway.call("GET", "/v1/models", idempotent=True, key=key)
        found = []
        for item in listed(body_of(response)):
            try:
                found.append(Model.model_validate(item))
            except ValidationError:
                continue  # an entry of a shape we do not know names no model we could use
        return found

    async def key_works(self, key: SecretStr) -> bool:
        """False only when the service refuses `key` itself (anything else says nothing of the key)."""
        try:
            await self.models(key=key)
        except KeyRejected:
            return False
        except InferenceError:
            return True
        return True
