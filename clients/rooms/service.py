"""HTTP client of the room service's external API.

Every path keeps its trailing slash and redirects are never followed: without the slash the
server answers 301, and a client that follows it turns `POST /rooms` into `GET /rooms/`,
silently listing instead of creating.
"""

from __future__ import annotations

import logging
import re
from typing import Any, TypeVar

import httpx
from pydantic import BaseModel, SecretStr, ValidationError
from yarl import URL

from clients.aiohttp_transport import AiohttpTransport, Answer, json_body, timeouts
from clients.errors import UnreadableBody, describe_error, field_errors, network_words, read_json
from clients.retry import RetryPolicy
from clients.rooms import errors
from clients.rooms.models import AccessLevel, Room, RoomPage, TokenGrant, is_room_id

log = logging.getLogger(__name__)

SERVICE = "rooms"
#: What the bot cannot work without: an application lacking one of these is ✗ in `check`.
REQUIRED_SCOPES = ("rooms:list", "rooms:retrieve", "rooms:create")
#: Scopes of calls a service may not offer yet (the real one routes no update nor delete today),
#: with the command they serve: lacking one is ⚠ in `check`, and the command says it is not
#: available on this service. A new verb's scope goes here until every service routes it.
OPTIONAL_SCOPES: dict[str, str] = {}
#: A token scope that is not an e-mail: the service checks the application before the e-mail, so
#: it is refused as "not an e-mail" only once the credentials passed (meet-api.md §5c).
PROBE_SCOPE = "roombot-check"
#: Every call's headers (httpx's client added the last two by itself).
HEADERS = {"Accept": "application/json", "User-Agent": "roombot", "Accept-Encoding": "gzip, deflate", "Connection": "keep-alive"}
#: those of a call with a body (httpx's `json=` added the type)
WITH_BODY = {**HEADERS, "Content-Type": "application/json"}
_SCOPE = re.compile(r"Required scope:\s*'?([\w:.-]+)'?")


class RoomService:
    def __init__(
        self,
        base_url: str,
        client_id: str,
        client_secret: SecretStr,
        *,
        policy: RetryPolicy | None = None,
        timeout: float = 5.0,
    ) -> None:
        self._base = base_url.rstrip("/")
        # the paths of every command's calls, parsed once: a request given a str parses it again (11 µs)
        self._parsed = {path: URL(self._base + path) for path in ("/rooms/", "/application/token/")}
        self._client_id = client_id
        self._client_secret = client_secret
        self._policy = policy or RetryPolicy(attempts=3, budget=8.0)  # a person waits for the answer
        # Requests go straight to the transport: httpx's client around it (URL merging, cookies,
        # auth and redirect flows, none of which these calls use) was 8 % of a /room list's CPU.
        self._transport = AiohttpTransport()
        self._timeout = timeouts(connect=3.0, read=timeout)

    async def aclose(self) -> None:
        await self._transport.aclose()

    async def issue_token(self, email: str) -> TokenGrant:
        """A delegated token acting as `email`; the 409 provisioning race is retried once."""
        body = {
            "client_id": self._client_id,
            "client_secret": self._client_secret.get_secret_value(),
            "grant_type": "client_credentials",
            "scope": email,
        }
        for _ in range(2):
            response = await self._send("POST", "/application/token/", body=body, idempotent=True)
            if response.status_code != 409:
                break
        if response.status_code == 200:
            return _parse(TokenGrant, response)
        raise _token_error(response)

    async def check_credentials(self) -> TokenGrant | None:
        """Proves MEET_CLIENT_ID and MEET_CLIENT_SECRET without acting for anyone: returns when the
        service accepted them, raises how it refused them otherwise."""
        try:
            return await self.issue_token(PROBE_SCOPE)
        except errors.EmailRejected:
            return None

    async def list_rooms(self, token: SecretStr, page: int = 1) -> RoomPage:
        response = await self._send("GET", "/rooms/", token=token, page=page, idempotent=True)
        if response.status_code == 404 and page == 1:  # page 1 exists even with no room at all
            raise errors.ApplicationsOff(f"GET /rooms/ answered 404 on page 1: {describe_error(response)}")
        if response.status_code == 404:
            raise errors.PageNotFound(describe_error(response), page)
        return _parse(RoomPage, _checked(response))

    async def get_room(self, token: SecretStr, room_id: str) -> Room:
        # ids come from button values and typed text: only a UUID may become part of the path
        if not is_room_id(room_id):
            raise errors.RoomNotFound(f"not a room id: {room_id[:40]!r}", room_id)
        response = await self._send("GET", f"/rooms/{room_id.lower()}/", token=token, idempotent=True)
        return _parse(Room, _checked(response, ref=room_id))

    async def create_room(
        self,
        token: SecretStr,
        access_level: AccessLevel | None = None,
        configuration: dict[str, Any] | None = None,
    ) -> Room:
        body: dict[str, Any] = {}
        if access_level is not None:
            body["access_level"] = access_level.value
        if configuration is not None:
            body["configuration"] = configuration
        # A retried POST may create a second room: only retried when it never left this machine.
        response = await self._send("POST", "/rooms/", token=token, body=body, idempotent=False)
        if response.status_code == 400:
            fields = field_errors(response)
            kind = errors.PublicRoomsDisabled if access_level is AccessLevel.PUBLIC and "access_level" in fields else errors.RoomRejected
            raise kind(describe_error(response), fields)
        return _parse(Room, _checked(response, expected=201))

    async def _send(
        self,
        method: str,
        path: str,
        *,
        token: SecretStr | None = None,
        body: dict[str, Any] | None = None,
        page: int = 1,
        idempotent: bool,
    ) -> Answer:
        """The answer to one call (`body` sent as JSON, `page` past the first as `?page=`)."""
        headers = HEADERS if body is None else WITH_BODY
        if token:
            headers = {**headers, "Authorization": f"Bearer {token.get_secret_value()}"}
        url = self._parsed.get(path) or URL(self._base + path)
        if page > 1:
            url = url.with_query(page=page)
        content = None if body is None else json_body(body)

        async def attempt() -> Answer:
            return await self._transport.send(method, url, headers, content, self._timeout)

        try:
            response = await self._policy.send(SERVICE, attempt, idempotent=idempotent)
        except (httpx.ConnectError, httpx.ConnectTimeout) as error:
            raise errors.ServiceUnreachable(f"{method} {path}: {network_words(error)}") from None
        except httpx.TimeoutException as error:
            raise errors.ServiceTimeout(f"{method} {path}: {network_words(error)}") from None
        except httpx.TransportError as error:
            raise errors.ServiceUnavailable(f"{method} {path}: {network_words(error)}") from None
        if response.is_redirect:
            location = response.headers.get("location", "")
            raise errors.Redirected(f"{method} {path} answered {response.status_code} to {location!r}", location)
        if response.status_code == 404 and not _is_json(response):  # Django's own page: no such route
            raise errors.NoExternalApi(f"{method} {path} answered an HTML 404")
        if response.status_code >= 500:
            raise errors.ServiceUnavailable(f"{method} {path}: {describe_error(response)}")
        return response


def _checked(response: Answer, expected: int = 200, *, ref: str = "") -> Answer:
    """Map a room endpoint's refusal to its exception; the statuses decide, not the texts."""
    status = response.status_code
    if status == expected:
        return response
    detail = describe_error(response)
    if status == 401:
        # the 401s differ only by their words: the person's account, the application, or the token
        words = detail.lower()
        if "account is disabled" in words:
            raise errors.AccountDisabled(detail)
        if "application" in words:
            raise errors.ApplicationDisabled(f"room calls answered {detail}")
        raise errors.TokenRejected(detail)
    if status == 403:
        if "permission" in detail.lower() and "insufficient" in detail.lower():
            match = _SCOPE.search(detail)
            raise errors.ScopeMissing(detail, match.group(1) if match else None)
        raise errors.NotYourRoom(detail)
    if status == 404:
        raise errors.RoomNotFound(detail, ref)
    if status == 405:  # a route this service does not have (yet): not a set-up the operator got wrong
        raise errors.NotOffered(f"{response.method} {response.url.path}: {detail}")
    raise errors.Misconfigured(f"unexpected {status}: {detail}")


def _token_error(response: Answer) -> errors.RoomServiceError:
    status = response.status_code
    detail = describe_error(response)
    if status == 401:
        return (errors.ApplicationInactive if "inactive" in detail.lower() else errors.AppCredentialsRejected)(detail)
    if status == 403:
        return errors.EmailDomainNotAllowed(detail)
    if status == 404 and "user" in detail.lower():
        return errors.AccountNotFound(detail)
    if status == 404:  # a JSON "Not found." (an HTML one is refused in _send)
        return errors.ApplicationsOff(f"token endpoint answered {detail}")
    if status == 400 and set(field_errors(response)) <= {"scope"}:  # `{"error": …}` or a `scope` field error
        return errors.EmailRejected(detail)
    if status == 409:
        return errors.ServiceUnavailable(detail)
    return errors.Misconfigured(f"token endpoint answered {detail}")


def _is_json(response: Answer) -> bool:
    try:
        read_json(response)
    except UnreadableBody:
        return False
    return True


M = TypeVar("M", bound=BaseModel)


#: what each answer is, in words, for a message about one the bot could not read
READ_AS = {"TokenGrant": "token", "RoomPage": "list of rooms", "Room": "room"}


def _parse(model: type[M], response: Answer) -> M:
    try:
        return model.model_validate_json(response.content)
    except ValidationError as error:
        what = READ_AS.get(model.__name__, "answer")
        log.warning("room service sent a %s the bot cannot read: %s", what, error.errors(include_input=False)[:3])
        raise errors.ServiceUnavailable(f"a {what} the bot cannot read, from the room service") from None
