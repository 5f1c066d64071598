"""One exception per way the room service can refuse, decided by HTTP status first.

`detail` keeps the service's own words for the log; what a person reads is chosen by the
exception's type, never by this text.
"""

from __future__ import annotations

from clients.errors import ServiceError


class RoomServiceError(ServiceError):
    """Any refusal of this service."""


# Token endpoint: problems of the person's account.
class AccountNotFound(RoomServiceError):
    """404: the person never signed in to the room service (no account yet)."""


class EmailRejected(RoomServiceError):
    """400: the service does not accept this address as an e-mail."""


class EmailDomainNotAllowed(RoomServiceError):
    """403: the application may not act for addresses of this domain."""


class NotOffered(RoomServiceError):
    """405: this room service has no such call (an older or differently set-up instance)."""


# Problems only an operator can fix.
class Misconfigured(RoomServiceError):
    """The bot's own set-up is wrong: credentials, URL, or the service's external API is off."""


class AppCredentialsRejected(Misconfigured):
    """401 `Invalid credentials` on the token endpoint: unknown client id or wrong secret."""


class ApplicationInactive(AppCredentialsRejected):
    """401 `Application is inactive`: the credentials are right, the application is switched off."""


class NoExternalApi(Misconfigured):
    """An HTML 404: no external API at this URL (a wrong MEET_API_URL, or EXTERNAL_API_ENABLED off)."""


class ApplicationsOff(Misconfigured):
    """A JSON 404 on the token endpoint: the service runs with APPLICATION_ENABLED off."""


class Redirected(Misconfigured):
    """A 3xx: MEET_API_URL is not the API's own address (or lacks its trailing path)."""

    def __init__(self, detail: str, location: str) -> None:
        super().__init__(detail)
        self.location = location


class ApplicationDisabled(Misconfigured):
    """401 `Application not found.` / `Application is disabled.` on a room call."""


# Room endpoints.
class TokenRejected(RoomServiceError):
    """401 on a room call: the delegated token expired or is no longer accepted."""


class AccountDisabled(RoomServiceError):
    """401 `User account is disabled.`: the service still issues tokens to a disabled person, then
    refuses every call; a new token cannot help, only the service's administrator can."""


class ScopeMissing(RoomServiceError):
    """403 'Insufficient permissions': the application lacks a scope."""

    def __init__(self, detail: str, scope: str | None) -> None:
        super().__init__(detail)
        self.scope = scope


class NotYourRoom(RoomServiceError):
    """403 on a room that exists but belongs to someone else."""


class RoomNotFound(RoomServiceError):
    """404 on a room id, or no room of this person has that link; `ref` is the id or slug looked for."""

    def __init__(self, detail: str, ref: str) -> None:
        super().__init__(detail)
        self.ref = ref


class RoomGone(RoomNotFound):
    """A room a button named (so it existed) is no longer on the service."""


class PageNotFound(RoomServiceError):
    """404 'Invalid page.' on a page past the last one."""

    def __init__(self, detail: str, page: int) -> None:
        super().__init__(detail)
        self.page = page


class RoomRejected(RoomServiceError):
    """400 on creation: a field the service refused."""

    def __init__(self, detail: str, fields: dict[str, str]) -> None:
        super().__init__(detail)
        self.fields = fields


class PublicRoomsDisabled(RoomRejected):
    """400 on `access_level`: this deployment refuses public rooms through the external API."""


# Transient.
class ServiceUnavailable(RoomServiceError):
    """5xx, connection refused, or a body we cannot read: try again later."""


class ServiceUnreachable(ServiceUnavailable):
    """No connection at all (refused, DNS, TLS): the network or MEET_API_URL."""


class ServiceTimeout(ServiceUnavailable):
    """No answer in time."""
