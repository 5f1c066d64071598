"""How the inference service (Albert) refuses, by cause — and by which side failed.

"Cannot reach the service", "the service cannot reach its model" and "the service refused" call
for different people (network, the service's operators, whoever holds the key): each has a type.
"""

from __future__ import annotations

from clients.errors import ServiceError


class InferenceError(ServiceError):
    """Any refusal of this service."""


class KeyRejected(InferenceError):
    """401/403 `Invalid API key.`: the key is unknown, revoked or expired — rotate it."""


class AccountRefused(KeyRejected):
    """The bot's rotated key and `ALBERT_API_KEY` refused alike: the account behind them is (expired
    or disabled, albert-api.md §1b). No key of the bot's, and no rotation, can fix it."""


class QuotaExhausted(InferenceError):
    """429 for a daily quota: nothing to do before tomorrow."""


class InferenceRefused(InferenceError):
    """Any other 4xx (unknown model, validation, budget): fix the request or the account."""


class ModelNotFound(InferenceRefused):
    """404 `Model not found.`: no model (nor alias) of that name on the gateway: ALBERT_MODEL."""


class ModelForbidden(InferenceRefused):
    """403 `Insufficient permissions to access the model`: the key is valid, but its role has no
    limit for this model, though `/v1/models` lists it."""


class NotAUserKey(InferenceRefused):
    """404 `User not found.` on the key routes: the key is the service's master key (user 0), which
    may chat but owns no keys; the key routes need a user's key."""


class NoSuchRoute(InferenceRefused):
    """404 naming neither a model nor a user: what answers at ALBERT_API_URL has no such route (it
    is not the gateway, or the address has a wrong path)."""


class Redirected(InferenceError):
    """3xx: ALBERT_API_URL is an old or wrong address; `location` is where the service points for
    the route asked, `base` the address to set (the location without that route: following the
    route's own address would put /v1/… twice, and every route would answer "no model")."""

    def __init__(self, detail: str = "", location: str = "", base: str = "") -> None:
        super().__init__(detail)
        self.location = location
        self.base = base or location


class InferenceUnavailable(InferenceError):
    """5xx, timeouts, cut streams or rate limits that outlasted the retry budget."""


class InferenceUnreachable(InferenceUnavailable):
    """No connection to the service at all (refused, DNS, TLS): the network or ALBERT_API_URL."""


class ModelUnreachable(InferenceUnavailable):
    """The gateway answered but its model did not: 500 `ConnectError`, 503 busy, 504 timed out, 424."""


class RateLimited(InferenceUnavailable):
    """429 per minute that outlasted the call's time budget."""
