"""The account's API keys on the inference service: create, list, read back, revoke.

Kept apart from the chat: only `keys` and the rotation use these routes, and they moved over time
(albert-api.md §1): `/v1/keys` (2026-08+), `/v1/me/keys` (2025-09+), `/v1/tokens` (before), and
`/tokens` at the root on OpenGateLLM 0.1.x, which hides them from its OpenAPI document. The routes
are probed newest first and the first that exists is kept; the secret comes back as `token`, `key`
or `value`; revocation answers 204 or 200.
"""

from __future__ import annotations

import logging
from typing import Any

from pydantic import BaseModel, ConfigDict, SecretStr, ValidationError

from clients.inference.answers import body_of, listed, raise_for, user_not_found
from clients.inference.errors import InferenceError, InferenceRefused, InferenceUnavailable, NotAUserKey
from clients.inference.gateway import Gateway

log = logging.getLogger(__name__)

KEY_ROUTES = ("/v1/keys", "/v1/me/keys", "/v1/tokens", "/tokens")
_ROUTES_WITH_EXPIRES_AT = ("/v1/tokens", "/tokens")


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


class ApiKeys:
    def __init__(self, gateway: Gateway) -> None:
        self._gateway = gateway
        self._route: str | None = None

    async def create(self, name: str, expires: int | None) -> ApiKey:
        """The new key with its full secret (shown once). Not retried unless it never left.

        Older generations answer only `{id, token|key}`, and a server with a maximum key lifetime
        silently caps `expires: null`: the key is read back for the expiry really set."""
        route = await self._keys_route()
        body = {"name": name, "expires_at" if route in _ROUTES_WITH_EXPIRES_AT else "expires": expires}
        created = _key(body_of(await self._gateway.call("POST", route, json=body, idempotent=False)))
        if created.secret is None:
            raise InferenceUnavailable("the service created a key but did not return its secret")
        try:
            stored = await self.get(created.id)
        except InferenceError as error:
            log.warning("could not read the new key back (%s); assuming the expiry asked for", type(error).__name__)
            stored = created.model_copy(update={"expires": created.expires or expires})
        return created.model_copy(update={"name": stored.name or name, "expires": stored.expires})

    async def all(self, *, limit: int = 100) -> list[ApiKey]:
        """Every key of the account, page after page of `limit` (`total` is optional: stop on a short page)."""
        route = await self._keys_route()
        keys: list[ApiKey] = []
        while True:
            params: dict[str, Any] = {"offset": len(keys), "limit": limit}
            if route == "/v1/keys":
                params |= {"sort_by": "created", "sort_order": "asc"}
            elif route == "/v1/me/keys":
                params |= {"order_by": "id", "order_direction": "asc"}
            body = body_of(await self._gateway.call("GET", route, params=params, idempotent=True))
            page = [_key(item) for item in listed(body)]
            keys += page
            total = body.get("total") if isinstance(body, dict) else None
            if len(page) < limit or (total is not None and len(keys) >= total):
                if not keys:  # a user's key always lists itself; only the master key sees nothing (0.1.x: 200 empty)
                    raise NotAUserKey("the key routes list no key at all, not even the one asking")
                return keys

    async def get(self, key_id: int | str) -> ApiKey:
        route = await self._keys_route()
        return _key(body_of(await self._gateway.call("GET", f"{route}/{key_id}", idempotent=True)))

    async def revoke(self, key_id: int | str) -> None:
        route = await self._keys_route()
        await self._gateway.call("DELETE", f"{route}/{key_id}", idempotent=True)  # 204 (gen 2) or 200 (gen 3)

    async def _keys_route(self) -> str:
        if self._route is None:
            for route in KEY_ROUTES:
                probe = await self._gateway.send("GET", route, params={"offset": 0, "limit": 1}, idempotent=True)
                if probe.status_code not in (404, 405) or user_not_found(probe):
                    raise_for(probe, route)
                    self._route = route
                    break
            else:  # the gateway's address, or another service's? Its models route tells (NoSuchRoute when not)
                body_of(await self._gateway.call("GET", "/v1/models", idempotent=True))
                raise InferenceRefused("no API-key routes on this gateway (tried " + ", ".join(KEY_ROUTES) + ")")
        return self._route


def _key(body: Any) -> ApiKey:
    try:
        return ApiKey.read(body)
    except (KeyError, TypeError, ValidationError):
        raise InferenceUnavailable("a key the bot cannot read, from the inference service") from None
