"""GraphQL client of the dossier service (démarche.numérique API v2) and its cursor paginator.

The API has no count: counting is walking `dossiers` 100 at a time. The paginator is a loop
(not recursion: a national démarche is thousands of pages), keeps two pages in memory at most (the
caller's and the next, asked for while the caller works on its own), stops on
`hasNextPage: false`, and never replaces a cursor with the null an empty page carries.

A server (or whatever answers in its place) can also never stop: a cursor that comes back ends the
walk, and so do more pages than the largest démarche has, or more time than a walk may take.
An answer is read up to a size no page comes near, and a page with more dossiers than asked for
is refused: neither can grow the process or the stored states without bound.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import time
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable
from typing import IO, TYPE_CHECKING, Any

import httpx
from pydantic import SecretStr, ValidationError

from clients.dossiers import errors
from clients.dossiers.models import Dossier, Members, Page
from clients.dossiers.queries import GET_DEMARCHE_MEMBERS, GET_DEMARCHE_TITLE, GET_DOSSIER, PAGE_SIZE, QUERIES
from clients.dossiers.rate_limit import RateLimiter
from clients.errors import UnreadableBody, describe_error, network_words, read_json
from clients.retry import RetryPolicy

if TYPE_CHECKING:
    import aiohttp
    from yarl import URL

    from clients.aiohttp_transport import AiohttpTransport, Answer

log = logging.getLogger(__name__)

SERVICE = "dossiers"
#: The largest démarche seen had 523,000 dossiers: a walk of more pages is not a démarche's.
MAX_PAGES = 6_000
#: A walk taking longer than this (at the 400-a-minute allowance, 6,000 pages take 15 min) has stalled.
WALK_SECONDS = 3_600.0
#: A page of 100 dossiers is a few dozen kilobytes; an answer larger than this is not one.
MAX_ANSWER_BYTES = 4 * 1024 * 1024
#: how a body's length is told: by the bot alone, for a direct upload's PUT
_FRAMING = frozenset({"content-length", "transfer-encoding"})


class DossierService:
    def __init__(
        self,
        url: str,
        token: SecretStr,
        *,
        limiter: RateLimiter,
        policy: RetryPolicy | None = None,
        timeout: float = 60.0,  # the server itself gives up after 30 s
        max_pages: int = MAX_PAGES,
        walk_seconds: float = WALK_SECONDS,
        max_answer_bytes: int = MAX_ANSWER_BYTES,
    ) -> None:
        self._address = url
        self._limiter = limiter
        self._max_pages, self._walk_seconds, self._max_answer = max_pages, walk_seconds, max_answer_bytes
        self._policy = policy or RetryPolicy(attempts=6, budget=300.0, base_delay=1.0, max_delay=30.0)
        # Requests go straight to aiohttp's pool (as the room service's): through httpx's own pool,
        # httpcore's scans of its connections were half of a /dossier's CPU (docs/benchmarks.md).
        self._headers = {"Authorization": f"Bearer {token.get_secret_value()}", "User-Agent": "roombot",
                         "Content-Type": "application/json"}
        self._timeout_seconds = timeout
        self._aiohttp: tuple[AiohttpTransport, URL, aiohttp.ClientTimeout] | None = None
        self.requests = 0

    def _transport(self) -> tuple[AiohttpTransport, URL, aiohttp.ClientTimeout]:
        """The pool, the service's address parsed once and each call's time bounds."""
        if self._aiohttp is None:
            # imported when first used: aiohttp (0.15 s) is not for the digest's command line
            from yarl import URL

            from clients.aiohttp_transport import AiohttpTransport, timeouts

            self._aiohttp = (AiohttpTransport(max_answer_bytes=self._max_answer), URL(self._address),
                             timeouts(connect=5.0, read=self._timeout_seconds))
        return self._aiohttp

    async def aclose(self) -> None:
        if self._aiohttp is not None:
            await self._aiohttp[0].aclose()

    async def title(self, demarche: int) -> str:
        """The démarche's title: proves it exists and the token may read it (one small request)."""
        data = await self.query("getDemarcheTitle", GET_DEMARCHE_TITLE, {"demarcheNumber": demarche})
        return str((data.get("demarche") or {}).get("title") or "")

    async def members(self, demarche: int) -> Members:
        """The démarche's administrators and instructeurs (one request; raises as `title` does)."""
        data = await self.query("getDemarcheMembers", GET_DEMARCHE_MEMBERS, {"demarcheNumber": demarche})
        try:
            return Members.model_validate(data.get("demarche") or {})
        except ValidationError:
            raise errors.DossierServiceUnavailable("the dossier service sent members we cannot read") from None

    async def dossier(self, number: int) -> Dossier:
        """One dossier, for its link's preview (one request; raises as `title` does, `DemarcheNotFound`
        for a dossier that does not exist or that the token may not read)."""
        data = await self.query("getDossier", GET_DOSSIER, {"dossierNumber": number})
        try:
            return Dossier.model_validate(data.get("dossier") or {})
        except ValidationError:
            raise errors.DossierServiceUnavailable("the dossier service sent a dossier we cannot read") from None

    def all_dossiers(self, demarche: int) -> AsyncIterator[Page]:
        return self.pages("getDemarche", demarche)

    def updated_since(self, demarche: int, since: dt.datetime) -> AsyncIterator[Page]:
        return self.pages("getUpdatedDossiers", demarche, updatedSince=since.isoformat())

    def deleted_since(self, demarche: int, since: dt.datetime, *, pending: bool) -> AsyncIterator[Page]:
        operation = "getPendingDeletedDossiers" if pending else "getDeletedDossiers"
        return self.pages(operation, demarche, deletedSince=since.isoformat())

    async def pages(self, operation: str, demarche: int, **variables: Any) -> AsyncGenerator[Page]:
        """Every page of `operation`'s connection, in order; `after` is managed here.

        The next page is asked for before this one is handed over, so what the caller does with a
        page (records encoded, counted, stored) overlaps the service's work on the next: one
        request ahead, never more, and none past the last page or a walk found endless."""
        query, connection = QUERIES[operation]
        seen: set[str] = set()
        deadline = time.monotonic() + self._walk_seconds

        def ask(after: str | None) -> asyncio.Future[dict[str, Any]]:
            return asyncio.ensure_future(self.query(operation, query, {"demarcheNumber": demarche, **variables, "after": after}))

        ahead: asyncio.Future[dict[str, Any]] | None = ask(None)
        try:
            for number in range(1, self._max_pages + 1):
                assert ahead is not None
                page, ahead = _page(await ahead, connection), None
                cursor = page.pageInfo.endCursor
                endless = None
                if page.pageInfo.hasNextPage:
                    if not cursor or cursor in seen:  # would restart, or go round, forever
                        endless = f"page {number} sent back cursor {str(cursor)[:60]!r}"
                    elif time.monotonic() > deadline:
                        endless = f"still walking after {self._walk_seconds:.0f} s"
                    elif number < self._max_pages:
                        seen.add(cursor)
                        ahead = ask(cursor)
                yield page
                if not page.pageInfo.hasNextPage:
                    return
                if endless:
                    raise errors.EndlessWalk(f"{operation} of n° {demarche}: {endless}")
            raise errors.EndlessWalk(f"{operation} of n° {demarche}: more than {self._max_pages} pages")
        finally:
            if ahead is not None:  # the caller stopped early: the page asked for ahead is not wanted
                ahead.cancel()
                await asyncio.gather(ahead, return_exceptions=True)

    async def query(self, operation: str, query: str, variables: dict[str, Any], *,
                    policy: RetryPolicy | None = None) -> dict[str, Any]:
        """`data` of one GraphQL request; a `timeout` error is retried on the same variables. With
        `policy`, an act's own: it is not idempotent, so it is sent again only when it never left
        (or was refused unread: 429), never after a timeout the server may have acted through."""
        from clients.aiohttp_transport import json_body

        acting = policy is not None
        policy = policy or self._policy
        body = json_body({"query": query, "operationName": operation, "variables": variables})  # once, whatever the retries
        for attempt in range(1, policy.attempts + 1):
            response = await self._post(body, policy, idempotent=not acting)
            payload = _json(response)
            problems = payload.get("errors") or []
            codes = {(problem.get("extensions") or {}).get("code") for problem in problems}
            if problems and codes == {"timeout"} and attempt < policy.attempts and not acting:
                log.info("dossier service timed out on %s; retrying the same page", operation)
                await self._policy.sleep(self._policy.backoff(attempt))
                continue
            if problems:
                raise _graphql_error(problems, codes, operation)
            return payload.get("data") or {}
        raise errors.DossierServiceUnavailable(f"{operation}: the service kept timing out")

    async def _post(self, body: bytes, policy: RetryPolicy, *, idempotent: bool) -> Answer:
        transport, url, timeout = self._transport()

        async def attempt() -> Answer:
            await self._limiter.wait()
            self.requests += 1
            return await self._bounded(transport.send("POST", url, self._headers, body, timeout))

        try:
            response = await policy.send(SERVICE, attempt, idempotent=idempotent)
        except (httpx.ConnectError, httpx.ConnectTimeout) as error:
            raise errors.DossierServiceUnreachable(network_words(error)) from None
        except httpx.TransportError as error:
            raise errors.NoAnswer(network_words(error)) from None
        status = response.status_code
        if response.is_redirect:
            raise errors.Redirected(f"{status} to {response.headers.get('location')!r}; check DS_API_URL")
        if status == 401:
            raise errors.TokenExpired(_said(response))
        if status == 403:  # both have the code `forbidden`: the network's words start the same way every time
            detail = _said(response)
            kind = errors.ForbiddenNetwork if detail.startswith(_FORBIDDEN_NETWORK) else errors.BadToken
            raise kind(detail)
        if status == 429:
            raise errors.RateLimited(describe_error(response))
        if status >= 500:
            raise errors.DossierServiceUnavailable(describe_error(response))
        if status != 200:
            raise errors.QueryRejected(describe_error(response))
        return response


    async def put(self, url: str, headers: dict[str, str], content: IO[bytes], size: int) -> int:
        """A direct upload's `size` bytes, read from `content` as they go, PUT to the storage address the
        service gave with the headers it named — never this service's token — and their length (S3 refuses
        a signed PUT without one: 411 MissingContentLength); the answer's status (`NoAnswer` for none)."""
        from yarl import URL

        self.requests += 1
        transport, _, timeout = self._transport()
        sent = {name: value for name, value in headers.items() if name.lower() not in _FRAMING} | {"Content-Length": str(size)}
        try:
            return (await self._bounded(transport.send("PUT", URL(url), sent, content, timeout))).status_code
        except httpx.TransportError as error:
            raise errors.NoAnswer(network_words(error)) from None

    async def _bounded(self, sending: Awaitable[Answer]) -> Answer:
        """The answer, dropped past `max_answer_bytes` as it came (decoded, if the server compressed
        it: never held whole)."""
        from clients.aiohttp_transport import AnswerTooLarge

        try:
            return await sending
        except AnswerTooLarge:
            raise self._too_large() from None

    def _too_large(self) -> errors.Unreadable:
        log.warning("the dossier service sent an answer over %d bytes; not read further", self._max_answer)
        return errors.Unreadable(f"an answer over {self._max_answer} bytes")


def _said(response: Answer) -> str:
    """The controller's refusal (`{"errors": [{"message": …}], "data": null}`): its first message,
    else whatever the body says."""
    try:
        payload = read_json(response)
        message = payload["errors"][0]["message"]
    except (UnreadableBody, KeyError, IndexError, TypeError):
        return describe_error(response)
    return str(message)[:300] if isinstance(message, str) else describe_error(response)


def _json(response: Answer) -> dict[str, Any]:
    try:
        payload = read_json(response)
    except UnreadableBody as error:
        log.warning("unreadable answer from the dossier service: %s", error)
        raise errors.Unreadable(str(error)) from None
    if not isinstance(payload, dict):
        raise errors.Unreadable("the dossier service answered an unexpected JSON shape")
    return payload


#: a valid token called from outside its networks (any other 403 is a token the service does not know)
_FORBIDDEN_NETWORK = "Request issued from a forbidden network"
#: how graphql-ruby refuses a document it scored over the service's limits (no code, no `data`)
_OVER_LIMIT = ("Query has complexity of", "Query has depth of", "This query is too large to execute")


def _graphql_error(problems: list[dict[str, Any]], codes: set[Any], operation: str) -> errors.DossierServiceError:
    detail = "; ".join(str(problem.get("message", "")) for problem in problems)[:300]
    if any(str(problem.get("message", "")).startswith(_OVER_LIMIT) for problem in problems):
        log.error("the dossier service refuses the bot's %s document as too costly (%s): a bug of the bot's, not "
                  "retried", operation, detail)
        return errors.QueryTooCostly(detail, operation)
    if "not_found" in codes:
        return errors.DemarcheNotFound(detail)
    if "unauthorized" in codes:
        return errors.DemarcheForbidden(detail)
    if "timeout" in codes or "internal_server_error" in codes:
        return errors.DossierServiceUnavailable(detail)
    return errors.QueryRejected(detail)


def _page(data: dict[str, Any], connection: str) -> Page:
    demarche = data.get("demarche") or {}
    try:
        page = Page.model_validate({**demarche, **(demarche.get(connection) or {})})
    except ValidationError as error:
        log.warning("unreadable page from the dossier service: %s", error.errors(include_input=False)[:3])
        raise errors.Unreadable("the dossier service sent a page we cannot read") from None
    if len(page.nodes) > PAGE_SIZE:
        log.warning("the dossier service sent a page of %d dossiers for %d asked; refused", len(page.nodes), PAGE_SIZE)
        raise errors.Unreadable(f"a page of {len(page.nodes)} dossiers, {PAGE_SIZE} asked")
    return page
