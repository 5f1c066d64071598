"""How the inference service (Albert) refuses, by cause."""

from __future__ import annotations

from clients.errors import ServiceError


class InferenceError(ServiceError):
    """Any refusal of this service."""


class KeyRejected(InferenceError):
    """401/403 `Invalid API key.`: the key is unknown, revoked or expired — rotate it."""


class QuotaExhausted(InferenceError):
    """429 for a daily quota: nothing to do before tomorrow."""


class InferenceRefused(InferenceError):
    """Any other 4xx (unknown model, validation, budget): fix the request or the account."""


class InferenceUnavailable(InferenceError):
    """5xx, timeouts, cut streams or rate limits that outlasted the retry budget."""
