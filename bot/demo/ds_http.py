"""The dossier service's stand-in as HTTP: what happens to a request before and around its query.

Apart from the resolvers because these are the service's gates, not its data: the token known or not,
the 2026 token rules (ds-graphql.md §10.1: a token locked to its first caller's network, refused
from another address; expired by date; revoked or unknown), the plain-text 429 with an absolute
`RateLimit-Reset` (rack-attack's fixed windows), documents scored over the cost limit refused, and
the awkward answers a test asks for (timeouts, hostile bodies, a 60 MB page streamed).
"""

from __future__ import annotations

import asyncio
import contextvars
import datetime as dt
import ipaddress
import json
import math
import time
from collections.abc import AsyncIterator
from typing import Any, Protocol
from zoneinfo import ZoneInfo

from graphql import GraphQLError, GraphQLSchema, graphql_sync, parse, validate
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from bot.demo.ds_acts import Acts, ServerError
from bot.demo.ds_cost import refusal

PARIS = ZoneInfo("Europe/Paris")  # where a token's expiry date ends
#: the 403 for a token that is missing, unknown, revoked or of an old version (its text changed twice in
#: 2026; clients match the code and the prefix "Without a token")
WITHOUT_TOKEN = ("Without a token, only the public getDemarcheDescriptor and getDemarcheDescriptors queries and "
                 "introspection are allowed")
_TOKEN: contextvars.ContextVar[str | None] = contextvars.ContextVar("token", default=None)  # the request's, for its resolvers


def request_token(default: str) -> str:
    """The token of the request being answered (`default` outside one)."""
    token = _TOKEN.get()
    return default if token is None else token


class Gated(Protocol):
    """The stand-in's settings and records the gates read and keep (bot.demo.ds.FakeDS)."""

    schema: GraphQLSchema
    acts: Acts
    token: str
    tokens: dict[str, set[int]]
    revoked: set[str]
    token_expired: bool
    expires_on: dt.date | None
    forbidden_network: bool
    networks: list[str]
    ip_filtering: bool
    caller: str | None
    stored_ips: set[str]
    timeouts: int
    rate_limited: int
    per_window: int | None
    window: float
    too_many: int
    _windows: dict[int, int]
    slow: dict[int, float]
    latency: float
    hostile: dict[int, str]
    streamed: int
    queries: list[dict[str, Any]]
    asked_with: list[str]
    max_complexity: int


class Endpoint:
    """POST /api/v2/graphql, as the service answers it; the query itself runs on `ds` (its root value)."""

    def __init__(self, ds: Gated) -> None:
        self.ds = ds
        self._validated: dict[str, bool] = {}

    def asgi(self) -> Starlette:
        return Starlette(routes=[Route("/api/v2/graphql", self._endpoint, methods=["POST"]),
                                 Route("/storage/{blob:int}", self._stored, methods=["PUT"])])

    async def _stored(self, request: Request) -> Response:
        """The storage a direct upload's bytes go to (no token: the address and headers are the permission)."""
        status = self.ds.acts.blobs.store(request.path_params["blob"], await request.body(),
                                          {k.lower(): v for k, v in request.headers.items()})
        return Response(b"" if status == 200 else b"<Error><Code>BadDigest</Code></Error>", status_code=status)

    async def _endpoint(self, request: Request) -> Response:
        ds = self.ds
        token = request.headers.get("authorization", "").removeprefix("Bearer ").removeprefix("token=")
        refused = self._refused(token, request)
        if refused is not None:
            return refused
        reset = self._count_in_window()
        if ds.rate_limited > 0:
            ds.rate_limited -= 1
            body = "Vous avez effectué trop de requêtes. Calm down, cowboy! Too many requests."
            return Response(body.encode(), status_code=429, headers={"RateLimit-Remaining": "0", "RateLimit-Reset": str(reset)})
        try:
            body = json.loads(await request.body())
        except ValueError:
            return _errors(400, "JSON parse error", "bad_request")
        if ds.acts.refused_unread(body):
            return Response(b"Too many requests", status_code=429, headers={"RateLimit-Remaining": "0", "RateLimit-Reset": str(reset)})
        ds.queries.append(body)
        ds.asked_with.append(token)
        delay = ds.latency + ds.slow.get(_demarche_of(body), 0.0)
        if delay:
            await asyncio.sleep(delay)
        awkward = self._awkward(body)
        if awkward is not None:
            return awkward
        return await self._run(body)

    async def _run(self, body: dict[str, Any]) -> Response:
        """The query on the schema, with the acts' failures around it (ds_acts: late answers, bare 500s)."""
        if late := self.ds.acts.wait_before(body):
            await asyncio.sleep(late)
        result = graphql_sync(self.ds.schema, body.get("query", ""), root_value=self.ds,
                              variable_values=body.get("variables"), operation_name=body.get("operationName"))
        if late := self.ds.acts.wait_after():
            await asyncio.sleep(late)
        if any(isinstance(error.original_error, ServerError) for error in result.errors or []):
            return Response(b"Internal Server Error", status_code=500, media_type="text/plain")
        return JSONResponse({"data": result.data} | ({"errors": [error.formatted for error in result.errors]} if result.errors else {}))

    def _refused(self, token: str, request: Request) -> Response | None:
        """A token the service does not know (403), or one its rules refuse from this caller."""
        if (token != self.ds.token and token not in self.ds.tokens) or token in self.ds.revoked:
            return _errors(403, WITHOUT_TOKEN, "forbidden")
        _TOKEN.set(token)
        return self._token_rules(token, self.ds.caller or (request.client.host if request.client else "127.0.0.1"))

    def _count_in_window(self) -> int:
        """Counts the request in its window (PER_WINDOW); past the window's allowance, one 429 to answer.
        When the allowance comes back (RateLimit-Reset)."""
        ds = self.ds
        reset = int(time.time()) + 1
        if ds.per_window is not None:
            index = int(time.time() // ds.window)
            ds._windows[index] = ds._windows.get(index, 0) + 1
            if ds._windows[index] > ds.per_window:
                ds.too_many += 1
                ds.rate_limited += 1  # answered just after, as the service does
                reset = math.ceil((index + 1) * ds.window)
        return reset

    def _awkward(self, body: dict[str, Any]) -> Response | None:
        """The answers a test asked for instead of the query's: hostile bodies, timeouts, a query
        over the service's limits (scored before anything runs: 200, no `data`, no code, as graphql-ruby)."""
        hostile = self.ds.hostile.get(_demarche_of(body))
        if hostile == "nested" and "dossiers" in body.get("query", ""):
            return Response(b'{"data": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", media_type="application/json")
        if hostile == "huge" and "dossiers" in body.get("query", ""):
            return StreamingResponse(self._huge_page(), media_type="application/json")
        if self.ds.timeouts > 0:
            self.ds.timeouts -= 1
            return JSONResponse({"data": None, "errors": [{"message": "Timeout on Demarche.dossiers", "extensions": {"code": "timeout"}}]})
        over = self._over_limits(body)
        return JSONResponse({"errors": [{"message": over}]}) if over is not None else None

    async def _huge_page(self) -> AsyncIterator[bytes]:
        """60 MB of dossiers, made as they are sent: what a client reads of it is counted."""
        head = b'{"data": {"demarche": {"number": 1, "title": "x", "state": "publiee", "dossiers": {"pageInfo": ' \
               b'{"hasNextPage": false, "endCursor": null}, "nodes": ['
        self.ds.streamed += len(head)
        yield head
        node = b'{"number": 1, "state": "en_construction", "dateDepot": "2026-01-05T08:00:00+00:00", "padding": "' + \
               b"x" * 500 + b'"},'
        chunk = node * 100
        for _ in range(60 * 1024 * 1024 // len(chunk)):
            await asyncio.sleep(0)  # as a server writing to a socket does: a hung-up client stops the stream here
            self.ds.streamed += len(chunk)
            yield chunk
        yield b'{"number": 2, "state": "refuse"}]}}}}'

    def _token_rules(self, token: str, caller: str) -> Response | None:
        """The main token's network and expiry, checked in the service's order: its first caller's
        address becomes its network when none was declared (before the expiry is looked at), then a
        caller outside its networks is refused (403), then an expired token (401)."""
        ds = self.ds
        if token != ds.token:
            return None
        address = ipaddress.ip_address(caller)
        if ds.ip_filtering and not ds.networks:
            ds.networks.append(_network_of(address))
        ds.stored_ips.add(caller)
        if ds.forbidden_network or (ds.networks and not any(address in ipaddress.ip_network(n, strict=False)
                                                            for n in ds.networks)):
            return _errors(403, f"Request issued from a forbidden network. Add {_network_of(address)} to your allowed "
                                "adresses in your /profil", "forbidden")
        today = dt.datetime.now(PARIS).date()
        if ds.token_expired or (ds.expires_on is not None and today > ds.expires_on):
            return _errors(401, "Token expired", "unauthorized")
        return None

    def _valid(self, query: str) -> bool:
        """Whether the document is valid on the schema (remembered: the bot sends a handful)."""
        if query not in self._validated:
            try:
                self._validated[query] = not validate(self.ds.schema, parse(query))
            except GraphQLError:
                self._validated[query] = False
        return self._validated[query]

    def _over_limits(self, body: dict[str, Any]) -> str | None:
        """The service's words for a valid document over its depth or complexity, else None (an
        invalid document gets the validation's own errors, as the service checks that first)."""
        if not self._valid(str(body.get("query", ""))):
            return None
        try:
            return refusal(self.ds.schema, str(body.get("query", "")), body.get("variables"), body.get("operationName"),
                           max_complexity=self.ds.max_complexity)
        except (GraphQLError, ValueError, KeyError, TypeError):
            return None


def _network_of(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str:
    """The one-address network the service writes: `/32`, or `/128` with the IPv6 address unabbreviated."""
    return f"{address}/32" if address.version == 4 else f"{address.exploded}/128"


def _demarche_of(body: dict[str, Any]) -> int:
    """The démarche a query names in its variables (0 for none): the tests slow some, or make them hostile."""
    return int((body.get("variables") or {}).get("demarcheNumber") or 0)


def _errors(status: int, message: str, code: str) -> JSONResponse:
    return JSONResponse({"errors": [{"message": message, "extensions": {"code": code}}], "data": None}, status_code=status)
