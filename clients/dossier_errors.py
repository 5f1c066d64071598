"""How the dossier service refuses, by cause; what an operator reads is chosen by type."""

from __future__ import annotations

from clients.errors import ServiceError


class DossierServiceError(ServiceError):
    """Any refusal of this service."""


class DossierConfigError(DossierServiceError):
    """Only the operator can fix it; retrying does not help."""


class TokenExpired(DossierConfigError):
    """401: the token's expiry date passed; create a new one in the administrator profile."""


class ForbiddenNetwork(DossierConfigError):
    """403: the bot's address is not in the token's IP allow-list."""


class BadToken(DossierConfigError):
    """403: the token is missing, unknown or revoked."""


class Redirected(DossierConfigError):
    """3xx: DS_API_URL points to an old or wrong address."""


class DemarcheNotFound(DossierServiceError):
    """`not_found`: no démarche with this number."""


class DemarcheForbidden(DossierServiceError):
    """`unauthorized`: the démarche exists but is outside the token's scope."""


class QueryRejected(DossierServiceError):
    """Any other GraphQL error: a bug on our side or an API change."""


class DossierServiceUnavailable(DossierServiceError):
    """5xx, network errors, repeated timeouts or rate limits: try again later."""
