"""How the dossier service refuses, by cause; what an operator reads is chosen by type."""

from __future__ import annotations

from clients.errors import ServiceError


class DossierServiceError(ServiceError):
    """Any refusal of this service. `reason` names the `digest.reason.*` text the digest shows."""

    reason = "unavailable"


class DossierConfigError(DossierServiceError):
    """Only the operator can fix it; retrying does not help."""


class TokenExpired(DossierConfigError):
    """401: the token's expiry date passed; create a new one in the administrator profile."""

    reason = "token_expired"


class ForbiddenNetwork(DossierConfigError):
    """403: the bot's address is not in the token's IP allow-list."""

    reason = "forbidden_network"


class BadToken(DossierConfigError):
    """403: the token is missing, unknown or revoked."""

    reason = "bad_token"


class Redirected(DossierConfigError):
    """3xx: DS_API_URL points to an old or wrong address."""

    reason = "redirected"


class DemarcheNotFound(DossierServiceError):
    """`not_found`: no démarche with this number."""

    reason = "not_found"


class DemarcheForbidden(DossierServiceError):
    """`unauthorized`: the démarche exists but is outside the token's scope."""

    reason = "forbidden"


class QueryRejected(DossierServiceError):
    """Any other GraphQL error: a bug on our side or an API change."""

    reason = "rejected"


class DossierServiceUnavailable(DossierServiceError):
    """5xx, network errors, repeated timeouts or rate limits: try again later."""


class Unreadable(DossierServiceUnavailable):
    """An answer the bot will not read: too large, nested too deep, not JSON, or a page larger than asked."""

    reason = "unreadable"


class EndlessWalk(DossierServiceError):
    """A walk that would not end: a cursor came back, or more pages (or time) than a démarche can take."""

    reason = "endless"


class DossierServiceUnreachable(DossierServiceUnavailable):
    """No connection at all (refused, DNS, TLS): the network or DS_API_URL."""
