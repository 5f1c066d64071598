"""Client of the inference service (Albert API, OpenAI-compatible) and of its API keys.

Chat completions go through the shared retry policy. A streamed answer counts only when a choice
ended with a `finish_reason` and `data: [DONE]` arrived; a stream cut in the middle (a bare
`{"detail": …}` line, an `event: error`, a dropped connection) is retried as a whole, and its
partial text is never returned.

Key routes moved over time (albert-api.md §1): `/v1/keys` (2026-08+), `/v1/me/keys` (2025-09+),
`/v1/tokens` (before), and `/tokens` at the root on OpenGateLLM 0.1.x, which hides them from its
OpenAPI document. The client probes them newest first and keeps the first that exists; the
secret comes back as `token`, `key` or `value`; revocation answers 204 or 200.

A key the service refuses (`Invalid API key.`) may be the bot's own rotated key, revoked or expired
since: the key source is told, may fall back to the operator's key, and the call is made once more.
"""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx
from pydantic import BaseModel, ConfigDict, SecretStr, ValidationError

from clients.errors import UnreadableBody, describe_error, network_words, read_json
from clients.inference.errors import (
    InferenceError,
    InferenceRefused,
    InferenceUnavailable,
    InferenceUnreachable,
    KeyRejected,
    ModelForbidden,
    ModelNotFound,
    ModelUnreachable,
    NoSuchRoute,
    NotAUserKey,
    QuotaExhausted,
    RateLimited,
    Redirected,
)
from clients.lazy_http import LazyClient
from clients.retry import RetryPolicy, daily_quota_exhausted

log = logging.getLogger(__name__)

SERVICE = "inference"
KEY_ROUTES = ("/v1/keys", "/v1/me/keys", "/v1/tokens", "/tokens")
_ROUTES_WITH_EXPIRES_AT = ("/v1/tokens", "/tokens")

KeySource = Callable[[], Awaitable[SecretStr]]
#: Told which key the service refused; True when it changed the key, so the call is worth retrying.
KeyRefused = Callable[[SecretStr], Awaitable[bool]]


class StreamInterrupted(httpx.ReadError):
    """The answer stopped before `finish_reason` and `[DONE]`: a transport failure, retried whole."""


class ApiKey(BaseModel):
    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    id: int | str
    name: str = ""
    secret: SecretStr | None = None  # the full secret only right after creation; masked in lists
    expires: int | None = None
    created: int | None = None

    @classmethod
    def read(cls, body: dict[str, Any]) -> ApiKey:
        """Whatever the generation: `token`/`key`/`value`, `expires`/`expires_at`, `created`/`created_at`."""
        secret = next((body[name] for name in ("token", "key", "value") if isinstance(body.get(name), str)), None)
        return cls(id=body["id"], name=body.get("name") or "", secret=secret,
                   expires=body.get("expires", body.get("expires_at")), created=body.get("created", body.get("created_at")))


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
        self._base = base_url.rstrip("/")
        self._key = key
        self._on_refused = on_refused
        self.model = model
        self._policy = policy or RetryPolicy(attempts=3, budget=30.0, base_delay=1.0, max_delay=15.0)
        self._http = LazyClient(timeout=httpx.Timeout(timeout, connect=5.0))
        self._key_route: str | None = None
        #: the operator's words for a refusal, with the setting to change; whoever knows the settings
        #: (bot.inference) sets it, so the digest's log reads as `check` does
        self.advise: Callable[[InferenceError], str] = lambda error: error.detail

    async def aclose(self) -> None:
        await self._http.aclose()

    # --- chat -------------------------------------------------------------------------------
    async def complete(self, messages: list[dict[str, str]], *, max_tokens: int = 200, temperature: float = 0.3) -> str:
        body = {"model": self.model, "messages": messages, "max_completion_tokens": max_tokens, "temperature": temperature}
        response = await self._call("POST", "/v1/chat/completions", json=body, idempotent=True)
        try:
            choice = _json(response)["choices"][0]
            return str(choice["message"]["content"] or "").strip()
        except (KeyError, IndexError, TypeError):
            raise InferenceUnavailable("a completion without choices") from None

    async def stream(self, messages: list[dict[str, str]], *, max_tokens: int = 200, temperature: float = 0.3) -> str:
        """The whole streamed answer, or an exception: never the part of a cut stream."""
        body = {"model": self.model, "messages": messages, "max_completion_tokens": max_tokens,
                "temperature": temperature, "stream": True}
        text: list[str] = []

        async def attempt(headers: dict[str, str]) -> httpx.Response:
            text.clear()
            request = self._http().build_request("POST", self._base + "/v1/chat/completions", json=body, headers=headers)
            response = await self._http().send(request, stream=True)
            try:
                if response.status_code != 200:
                    await response.aread()
                    return response
                text.extend(await _read_stream(response))
                return response
            finally:
                await response.aclose()

        _raise_for(await self._call_with(attempt, idempotent=True), "/v1/chat/completions")
        return "".join(text).strip()

    async def models(self, key: SecretStr | None = None) -> list[Model]:
        """The gateway's models; with `key`, also proves that key works."""
        response = await self._call("GET", "/v1/models", idempotent=True, key=key)
        found = []
        for item in _listed(_json(response)):
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

    # --- keys -------------------------------------------------------------------------------
    async def create_key(self, name: str, expires: int | None) -> ApiKey:
        """The new key with its full secret (shown once). Not retried unless it never left.

        Older generations answer only `{id, token|key}`, and a server with a maximum key lifetime
        silently caps `expires: null`: the key is read back for the expiry really set."""
        route = await self._keys_route()
        body = {"name": name, "expires_at" if route in _ROUTES_WITH_EXPIRES_AT else "expires": expires}
        created = _key(_json(await self._call("POST", route, json=body, idempotent=False)))
        if created.secret is None:
            raise InferenceUnavailable("the service created a key but did not return its secret")
        try:
            stored = await self.get_key(created.id)
        except InferenceError as error:
            log.warning("could not read the new key back (%s); assuming the expiry asked for", type(error).__name__)
            stored = created.model_copy(update={"expires": created.expires or expires})
        return created.model_copy(update={"name": stored.name or name, "expires": stored.expires})

    async def list_keys(self, *, limit: int = 100) -> list[ApiKey]:
        """Every key of the account, page after page (`total` is optional: stop on a short page)."""
        route = await self._keys_route()
        keys: list[ApiKey] = []
        while True:
            params: dict[str, Any] = {"offset": len(keys), "limit": limit}
            if route == "/v1/keys":
                params |= {"sort_by": "created", "sort_order": "asc"}
            elif route == "/v1/me/keys":
                params |= {"order_by": "id", "order_direction": "asc"}
            body = _json(await self._call("GET", route, params=params, idempotent=True))
            page = [_key(item) for item in _listed(body)]
            keys += page
            total = body.get("total") if isinstance(body, dict) else None
            if len(page) < limit or (total is not None and len(keys) >= total):
                if not keys:  # a user's key always lists itself; only the master key sees nothing (0.1.x: 200 empty)
                    raise NotAUserKey("the key routes list no key at all, not even the one asking")
                return keys

    async def get_key(self, key_id: int | str) -> ApiKey:
        route = await self._keys_route()
        return _key(_json(await self._call("GET", f"{route}/{key_id}", idempotent=True)))

    async def revoke_key(self, key_id: int | str) -> None:
        route = await self._keys_route()
        await self._call("DELETE", f"{route}/{key_id}", idempotent=True)  # 204 (gen 2) or 200 (gen 3)

    async def _keys_route(self) -> str:
        if self._key_route is None:
            for route in KEY_ROUTES:
                probe = await self._send("GET", route, params={"offset": 0, "limit": 1}, idempotent=True)
                if probe.status_code not in (404, 405) or _user_not_found(probe):
                    _raise_for(probe, route)
                    self._key_route = route
                    break
            else:  # the gateway's address, or another service's? Its models route tells (NoSuchRoute when not)
                await self.models()
                raise InferenceRefused("no API-key routes on this gateway (tried " + ", ".join(KEY_ROUTES) + ")")
        return self._key_route

    # --- plumbing ---------------------------------------------------------------------------
    async def _call(self, method: str, path: str, *, idempotent: bool, key: SecretStr | None = None, **kwargs: Any) -> httpx.Response:
        response = await self._send(method, path, idempotent=idempotent, key=key, **kwargs)
        _raise_for(response, path)
        return response

    async def _send(self, method: str, path: str, *, idempotent: bool, key: SecretStr | None = None, **kwargs: Any) -> httpx.Response:
        async def attempt(headers: dict[str, str]) -> httpx.Response:
            response = await self._http().request(method, self._base + path, headers=headers, **kwargs)
            await response.aread()
            return response

        return await self._call_with(attempt, idempotent=idempotent, key=key)

    async def _call_with(
        self, attempt: Callable[[dict[str, str]], Awaitable[httpx.Response]], *, idempotent: bool, key: SecretStr | None = None
    ) -> httpx.Response:
        """With `key`, that key alone (proving a new one); else the source's key, once more with
        its replacement when the service refused it and the source had another."""
        secret = key or await self._key()
        response = await self._with_key(attempt, secret, idempotent)
        if key is None and self._on_refused is not None and _key_refused(response) and await self._on_refused(secret):
            response = await self._with_key(attempt, await self._key(), idempotent)
        return response

    async def _with_key(
        self, attempt: Callable[[dict[str, str]], Awaitable[httpx.Response]], secret: SecretStr, idempotent: bool
    ) -> httpx.Response:
        headers = {"Authorization": f"Bearer {secret.get_secret_value()}", "User-Agent": "roombot"}
        try:
            return await self._policy.send(SERVICE, lambda: attempt(headers), idempotent=idempotent)
        except (httpx.ConnectError, httpx.ConnectTimeout) as error:
            raise InferenceUnreachable(f"{self._base}: {network_words(error)}") from None
        except httpx.TransportError as error:
            raise InferenceUnavailable(str(error) or network_words(error)) from None


def _reason(line: str) -> str:
    """The words of a line the gateway wrote instead of a chunk (`{"detail": …}`, `{"error": {"message": …}}`)."""
    try:
        body = json.loads(line)
    except (ValueError, RecursionError):
        return line[:120]
    if not isinstance(body, dict):
        return line[:120]
    error = body.get("error")
    found = body.get("detail") or (error.get("message") if isinstance(error, dict) else None)
    return found[:200] if isinstance(found, str) else line[:120]


async def _read_stream(response: httpx.Response) -> list[str]:
    """The content pieces of a complete SSE answer; StreamInterrupted on anything short of that."""
    stream = _Stream()
    try:
        async for line in response.aiter_lines():
            if stream.read(line):
                break
    except (httpx.RemoteProtocolError, httpx.ReadError, ValueError, RecursionError) as error:
        if isinstance(error, StreamInterrupted):
            raise
        raise StreamInterrupted(f"the answer's stream stopped: {network_words(error)}") from None
    if not (stream.finished and stream.done):
        raise StreamInterrupted("stream ended without finish_reason and [DONE]")
    return stream.pieces


@dataclass
class _Stream:
    """An SSE answer read so far: its pieces, whether a choice finished and `[DONE]` came."""

    pieces: list[str] = field(default_factory=list)
    finished: bool = False
    done: bool = False
    event: str | None = None

    def read(self, line: str) -> bool:
        """Takes one line; True at the stream's end (`[DONE]`)."""
        if not line.strip():
            self.event = None
            return False
        if line.startswith("event:"):
            self.event = line[6:].strip()
            return False
        if not line.startswith("data:"):  # a bare {"detail": …} after some chunks: the upstream broke
            raise StreamInterrupted(f"the gateway cut the answer: {_reason(line)}")
        data = line[5:].strip()
        if self.event == "error":
            raise StreamInterrupted(f"the gateway cut the answer: {_reason(data)}")
        if data == "[DONE]":
            self.done = True
            return True
        for choice in json.loads(data).get("choices") or []:
            self.pieces.append((choice.get("delta") or {}).get("content") or "")
            self.finished = self.finished or bool(choice.get("finish_reason"))
        return False


def _base_of(location: str, route: str) -> str:
    """The address to set for a gateway that points `route` to `location`: the location without the
    route (nor its query), else its origin."""
    parts = urlsplit(location)
    if route and parts.path.rstrip("/").endswith(route.rstrip("/")):
        return urlunsplit((parts.scheme, parts.netloc, parts.path.rstrip("/")[: -len(route.rstrip("/"))], "", "")).rstrip("/")
    return urlunsplit((parts.scheme, parts.netloc, "", "", "")) if parts.netloc else location


def _raise_for(response: httpx.Response, route: str = "") -> None:
    if response.is_redirect:  # redirects are not followed: a followed POST turns into a GET elsewhere
        location = response.headers.get("location", "")
        with contextlib.suppress(RuntimeError, httpx.InvalidURL):  # a relative location: from the address asked
            location = str(response.request.url.join(location))
        raise Redirected(f"{response.status_code} to {location!r}", location, _base_of(location, route))
    if response.status_code >= 400:
        raise _refusal(response, describe_error(response))


def _refusal(response: httpx.Response, detail: str) -> InferenceError:
    """The service's refusal, typed by what it says of itself."""
    status = response.status_code
    if _key_refused(response) or (status == 401 and "authenticated" in detail.lower()):
        return KeyRejected(detail)
    if _user_not_found(response):
        return NotAUserKey(detail)
    if status == 404 and "model" in detail.lower():
        return ModelNotFound(detail)
    if status == 403 and "model" in detail.lower():
        return ModelForbidden(detail)
    if status == 404:  # the gateway's words alone ("Not Found") would not say what answered them
        return NoSuchRoute(detail if detail.startswith("404") else f"404 {detail}")
    if daily_quota_exhausted(response):
        return QuotaExhausted(detail)
    if status == 429:
        return RateLimited(detail)
    if status >= 500 or status == 424:  # the gateway answered for a model it could not reach
        return ModelUnreachable(detail)
    return InferenceRefused(detail)


def _key_refused(response: httpx.Response) -> bool:
    return response.status_code in (401, 403) and "key" in describe_error(response).lower()


def _user_not_found(response: httpx.Response) -> bool:
    """The master key on the key routes; a missing route says `Not Found` instead."""
    return response.status_code == 404 and "user not found" in describe_error(response).lower()


def _json(response: httpx.Response) -> Any:
    try:
        return read_json(response)
    except UnreadableBody as error:
        raise InferenceUnavailable(str(error)) from None


def _listed(body: Any) -> list[Any]:
    """`data` of a list answer, whatever came instead."""
    data = body.get("data") if isinstance(body, dict) else None
    return data if isinstance(data, list) else []


def _key(body: Any) -> ApiKey:
    try:
        return ApiKey.read(body)
    except (KeyError, TypeError, ValidationError):
        raise InferenceUnavailable("a key the bot cannot read, from the inference service") from None
