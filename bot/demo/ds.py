"""A loopback démarche.numérique GraphQL API (ds-graphql.md), executing queries on the real schema.

graphql-core validates every query against `ds-schema.graphql` and runs it with resolvers over
generated dossiers: keyset pagination on (deposit, id) — or (update, id) with `updatedSince` —
with real-looking cursors, `deletedDossiers`, the error envelopes (`not_found`, `unauthorized`,
`timeout`), the 2026 token rules (a token locked to its first caller's network, refused from another
address; expired by date; revoked or unknown), documents scored over the cost limit refused, and
the plain-text 429 with an absolute `RateLimit-Reset`.
"""

from __future__ import annotations

import asyncio
import base64
import contextvars
import datetime as dt
import ipaddress
import json
import math
import random
import time
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from graphql import GraphQLError, GraphQLSchema, build_schema, graphql_sync, parse, validate
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from bot.demo.ds_acts import Acts, ServerError, typed_id, wire
from bot.demo.ds_cost import MAX_COMPLEXITY, refusal
from bot.demo.ds_data import FakeDemarche, FakeDossier, FakeGroup

#: the service's schema (SDL, 2026-01-15, 225 types), shipped with the stand-in that runs on it
SCHEMA = Path(__file__).with_name("ds-schema.graphql")
STATES = ("en_construction", "en_instruction", "accepte", "refuse", "sans_suite")
TOKEN = "ds-token-secret-value"
_TOKEN: contextvars.ContextVar[str] = contextvars.ContextVar("token", default=TOKEN)  # the request's, for its resolvers
T0 = dt.datetime(2026, 1, 5, 8, 0, tzinfo=dt.UTC)
PARIS = ZoneInfo("Europe/Paris")  # where a token's expiry date ends
#: the 403 for a token that is missing, unknown, revoked or of an old version (its text changed twice in
#: 2026; clients match the code and the prefix "Without a token")
WITHOUT_TOKEN = ("Without a token, only the public getDemarcheDescriptor and getDemarcheDescriptors queries and "
                 "introspection are allowed")


def load_schema(path: Path = SCHEMA) -> GraphQLSchema:
    schema = build_schema(path.read_text())
    assert schema.query_type is not None
    schema.query_type.fields["demarche"].resolve = lambda root, info, number: root.demarche(number)
    schema.query_type.fields["dossier"].resolve = lambda root, info, number: root.dossier(number)
    demarche = schema.type_map["Demarche"]
    demarche.fields["dossiers"].resolve = lambda d, info, **args: d["_fake"].dossiers(d["number"], **args)  # type: ignore[attr-defined]
    for name in ("deletedDossiers", "pendingDeletedDossiers"):
        demarche.fields[name].resolve = (  # type: ignore[attr-defined]
            lambda d, info, _name=name, **args: d["_fake"].deleted(d["number"], pending=_name.startswith("pending"), **args))
    wire(schema)
    return schema


@dataclass
class FakeDS:
    schema: GraphQLSchema
    demarches: dict[int, FakeDemarche] = field(default_factory=dict)
    token: str = TOKEN
    # other valid tokens (another administrator's) → the démarches each reads; the rest is hidden to it
    tokens: dict[str, set[int]] = field(default_factory=dict)
    # the 2026 token rules (ds-graphql.md §10.1), for the main token
    token_expired: bool = False
    expires_on: dt.date | None = None  # valid through that day, refused from 00:00 Paris the next
    forbidden_network: bool = False  # the caller is outside the token's networks, whatever they are
    networks: list[str] = field(default_factory=list)  # declared (or detected) networks; none: no filter
    ip_filtering: bool = False  # a token made since July 2026: locked to its first caller's address unless declared
    caller: str | None = None  # the address the service sees (default: the connection's)
    stored_ips: set[str] = field(default_factory=set)  # every caller of a valid token, refused ones too
    revoked: set[str] = field(default_factory=set)  # tokens revoked in the profile: unknown from then on
    out_of_scope: set[int] = field(default_factory=set)
    timeouts: int = 0  # answer the next N requests with a `timeout` error
    rate_limited: int = 0  # answer the next N requests with the plain-text 429
    per_window: int | None = None  # rack-attack: this many requests per fixed window, then 429
    window: float = 60.0  # the window's length in seconds, aligned on the epoch
    too_many: int = 0  # requests answered 429 by the windows
    _windows: dict[int, int] = field(default_factory=dict)
    null_deleted_nodes: bool = False  # `nodes: null` on (pending) deleted dossiers, as the schema allows
    slow: dict[int, float] = field(default_factory=dict)  # démarche → seconds each request about it takes
    latency: float = 0.0  # seconds every request takes (a benchmark's service)
    # hostile answers, by démarche: "loop" (the same cursor, new dossiers, every page), "endless" (a new
    # cursor every page, for ever), "nested" (a body nested 100,000 levels deep), "huge" (a 60 MB page,
    # streamed), "too_many" (150 dossiers on a page of 100)
    hostile: dict[int, str] = field(default_factory=dict)
    streamed: int = 0  # bytes of the "huge" page actually sent before the client hung up
    queries: list[dict[str, Any]] = field(default_factory=list)
    read_only: set[str] = field(default_factory=set)  # tokens made "de lire uniquement"
    asked_with: list[str] = field(default_factory=list)  # the token of each query, in order
    max_complexity: int = MAX_COMPLEXITY  # GRAPHQL_MAX_COMPLEXITY: a document scored over it is not run
    _validated: dict[str, bool] = field(default_factory=dict)
    url: str = ""
    now: dt.datetime = T0
    _next_id: int = 1

    def __post_init__(self) -> None:
        self.acts = Acts(self)

    # --- data helpers ------------------------------------------------------------------
    def add_demarche(self, number: int, title: str, dossiers: int = 0, seed: int = 1, *, admins: tuple[str, ...] = (),
                     groups: dict[int, tuple[str, list[str]]] | None = None) -> FakeDemarche:
        """`admins`: administrators' e-mails; `groups`: group number → (label, instructeurs' e-mails)."""
        demarche = self.demarches[number] = FakeDemarche(number, title, list(admins))
        demarche.groups = [FakeGroup(n, label, list(people)) for n, (label, people) in (groups or {}).items()]
        rng = random.Random(seed)
        for _ in range(dossiers):
            self.deposit(number, rng.choice(STATES))
        return demarche

    def deposit(self, number: int, state: str = "en_construction", *, group: int = 1, sva: dt.date | None = None,
                labels: tuple[str, ...] = ()) -> FakeDossier:
        self.now += dt.timedelta(seconds=1)
        dossier = FakeDossier(self._next_id, self._next_id, state, self.now, self.now, group=group, sva=sva, labels=list(labels))
        _entered(dossier, state, self.now)
        dossier.traitements.append(("depose", None, self.now))
        self._next_id += 1
        self.demarches[number].dossiers.append(dossier)
        self.demarches[number]._keys = None
        return dossier

    def change(self, number: int, dossier_number: int, state: str) -> None:
        self.now += dt.timedelta(seconds=1)
        dossier = next(d for d in self.demarches[number].dossiers if d.number == dossier_number)
        dossier.state, dossier.updated = state, self.now
        _entered(dossier, state, self.now)

    def delete(self, number: int, dossier_number: int, *, pending: bool = False) -> None:
        self.now += dt.timedelta(seconds=1)
        demarche = self.demarches[number]
        dossier = next(d for d in demarche.dossiers if d.number == dossier_number)
        demarche.dossiers.remove(dossier)
        demarche._keys = None
        demarche.deleted.append((dossier.number, dossier.state, self.now, pending))

    def states(self, number: int) -> dict[str, int]:
        counts = {state: 0 for state in STATES}
        for dossier in self.demarches[number].dossiers:
            counts[dossier.state] += 1
        return counts

    # --- resolvers -------------------------------------------------------------------------
    def demarche(self, number: int) -> dict[str, Any]:
        if number in self.hidden():
            raise GraphQLError("An object of type Demarche was hidden due to permissions", extensions={"code": "unauthorized"})
        demarche = self.demarches.get(number)
        if demarche is None:
            raise GraphQLError("Demarche not found", extensions={"code": "not_found"})
        return {"number": number, "title": demarche.title, "state": "publiee", "_fake": self,
                "administrateurs": [{"id": typed_id("Administrateur", index), "email": email}
                                    for index, email in enumerate(demarche.administrateurs, 1)],
                "groupeInstructeurs": lambda info, closed=None: [
                    {"id": typed_id("GroupeInstructeur", g.number), "number": g.number, "label": g.label, "closed": g.closed,
                     "instructeurs": [self.acts.person(email) for email in g.instructeurs]}
                    for g in demarche.groups if closed is None or g.closed == closed]}

    def dossiers(self, number: int, first: int | None = None, after: str | None = None,
                 updatedSince: str | None = None, createdSince: str | None = None, **_: Any) -> dict[str, Any]:
        hostile = self.hostile.get(number)
        if hostile in ("loop", "endless", "too_many"):
            return self._hostile_page(number, hostile, after)
        demarche = self.demarches[number]
        if updatedSince:
            since = _parse_time(updatedSince)
            keyed = sorted(((d.updated, d.id), d) for d in demarche.dossiers if d.updated >= since)
            keys, items = [k for k, _ in keyed], [d for _, d in keyed]
        else:
            keys, items = demarche.keys(), demarche.dossiers
            if createdSince:
                start = bisect_right(keys, (_parse_time(createdSince), -1))
                keys, items = keys[start:], items[start:]
        return _connection(keys, items, first, after, lambda d: self.node(demarche, d))

    def dossier(self, number: int) -> dict[str, Any]:
        """`dossier(number)`: as the service, not_found for an unknown one, unauthorized outside the token's démarches."""
        for demarche in self.demarches.values():
            for dossier in demarche.dossiers:
                if dossier.number == number:
                    if demarche.number in self.hidden():
                        raise GraphQLError("An object of type Dossier was hidden due to permissions",
                                           extensions={"code": "unauthorized"})
                    return self.node(demarche, dossier)
        raise GraphQLError("Dossier not found", extensions={"code": "not_found"})

    def node(self, demarche: FakeDemarche, d: FakeDossier) -> dict[str, Any]:
        group = next((g for g in demarche.groups if g.number == d.group), None)
        return {
            "id": typed_id("Dossier", d.id), "number": d.number, "state": d.state, "archived": d.archived,
            "dateDepot": d.deposited.isoformat(), "dateDerniereModification": d.updated.isoformat(),
            "datePassageEnConstruction": d.deposited.isoformat(),
            "datePassageEnInstruction": d.instructed.isoformat() if d.instructed else None,
            "dateTraitement": d.decided.isoformat() if d.decided else None,
            "datePrevisionnelleDecisionSVASVR": d.sva.isoformat() if d.sva else None,
            "groupeInstructeur": {"id": typed_id("GroupeInstructeur", d.group), "number": d.group,
                                  "label": group.label if group else "défaut", "closed": False,
                                  "instructeurs": [self.acts.person(email) for email in (group.instructeurs if group else [])]},
            "labels": [{"id": name, "name": name, "color": "beige_gris_galet"} for name in d.labels],
            "usager": {"id": typed_id("User", d.id), "email": d.usager},
            "demarche": {"id": typed_id("Procedure", demarche.number), "number": demarche.number, "title": demarche.title},
            "instructeurs": [self.acts.person(email) for email in sorted(d.followers)],
            "messages": [{"id": typed_id("Commentaire", m.id), "email": m.email, "body": m.body, "createdAt": m.created.isoformat(),
                          "discardedAt": m.discarded.isoformat() if m.discarded else None, "attachments": []} for m in d.messages],
            "traitements": [{"id": typed_id("Traitement", index), "event": event, "emailAgentTraitant": agent,
                             "dateTraitement": when.isoformat()} for index, (event, agent, when) in enumerate(d.traitements, 1)],
            "motivation": d.motivation,
        }

    def deleted(self, number: int, *, pending: bool, first: int | None = None, after: str | None = None,
                deletedSince: str | None = None, **_: Any) -> dict[str, Any]:
        since = _parse_time(deletedSince) if deletedSince else dt.datetime.min.replace(tzinfo=dt.UTC)
        rows = [(n, state, when) for n, state, when, is_pending in self.demarches[number].deleted
                if is_pending == pending and when >= since]
        page = _connection([(when, n) for n, _, when in rows], rows, first, after, lambda d: {
            "id": str(d[0]), "number": d[0], "state": d[1], "reason": "user_request", "dateSupression": d[2].isoformat()})
        return page | {"nodes": None} if self.null_deleted_nodes and not rows else page

    def _hostile_page(self, number: int, kind: str, after: str | None) -> dict[str, Any]:
        size = 150 if kind == "too_many" else 100
        nodes = []
        for _ in range(size):  # new dossiers on every page: a store that keeps them grows without end
            self._next_id += 1
            dossier = FakeDossier(self._next_id, self._next_id, "en_construction", self.now, self.now)
            nodes.append(self.node(self.demarches.get(number) or FakeDemarche(number, ""), dossier))
        cursor = "Y3Vyc29y" if kind == "loop" else _cursor((self.now, self._next_id))
        return {"nodes": nodes, "pageInfo": {"hasNextPage": True, "endCursor": cursor, "hasPreviousPage": bool(after),
                                             "startCursor": cursor}}

    async def _huge_page(self) -> Any:
        """60 MB of dossiers, made as they are sent: what a client reads of it is counted."""
        head = b'{"data": {"demarche": {"number": 1, "title": "x", "state": "publiee", "dossiers": {"pageInfo": ' \
               b'{"hasNextPage": false, "endCursor": null}, "nodes": ['
        self.streamed += len(head)
        yield head
        node = b'{"number": 1, "state": "en_construction", "dateDepot": "2026-01-05T08:00:00+00:00", "padding": "' + \
               b"x" * 500 + b'"},'
        chunk = node * 100
        for _ in range(60 * 1024 * 1024 // len(chunk)):
            await asyncio.sleep(0)  # as a server writing to a socket does: a hung-up client stops the stream here
            self.streamed += len(chunk)
            yield chunk
        yield b'{"number": 2, "state": "refuse"}]}}}}'

    def current_token(self) -> str:
        return _TOKEN.get()

    def hidden(self) -> set[int]:
        """The démarches the request's token may not read."""
        token = _TOKEN.get()
        if token in self.tokens:
            return set(self.demarches) - self.tokens[token]
        return self.out_of_scope

    # --- HTTP ------------------------------------------------------------------------------
    def asgi(self) -> Starlette:
        return Starlette(routes=[Route("/api/v2/graphql", self._endpoint, methods=["POST"])])

    async def _endpoint(self, request: Request) -> Response:
        token = request.headers.get("authorization", "").removeprefix("Bearer ").removeprefix("token=")
        refused = self._refused(token, request)
        if refused is not None:
            return refused
        reset = self._count_in_window()
        if self.rate_limited > 0:
            self.rate_limited -= 1
            body = "Vous avez effectué trop de requêtes. Calm down, cowboy! Too many requests."
            return Response(body.encode(), status_code=429, headers={"RateLimit-Remaining": "0", "RateLimit-Reset": str(reset)})
        try:
            body = json.loads(await request.body())
        except ValueError:
            return _errors(400, "JSON parse error", "bad_request")
        if self.acts.refused_unread(body):
            return Response(b"Too many requests", status_code=429, headers={"RateLimit-Remaining": "0", "RateLimit-Reset": str(reset)})
        self.queries.append(body)
        self.asked_with.append(token)
        delay = self.latency + self.slow.get(_demarche_of(body), 0.0)
        if delay:
            await asyncio.sleep(delay)
        awkward = self._awkward(body)
        if awkward is not None:
            return awkward
        if late := self.acts.wait_before(body):
            await asyncio.sleep(late)
        result = graphql_sync(self.schema, body.get("query", ""), root_value=self,
                              variable_values=body.get("variables"), operation_name=body.get("operationName"))
        if late := self.acts.wait_after():
            await asyncio.sleep(late)
        if any(isinstance(error.original_error, ServerError) for error in result.errors or []):
            return Response(b"Internal Server Error", status_code=500, media_type="text/plain")
        return JSONResponse({"data": result.data} | ({"errors": [error.formatted for error in result.errors]} if result.errors else {}))

    def _refused(self, token: str, request: Request) -> Response | None:
        """A token the service does not know (403), or one its rules refuse from this caller."""
        if (token != self.token and token not in self.tokens) or token in self.revoked:
            return _errors(403, WITHOUT_TOKEN, "forbidden")
        _TOKEN.set(token)
        return self._token_rules(token, self.caller or (request.client.host if request.client else "127.0.0.1"))

    def _count_in_window(self) -> int:
        """Counts the request in its window (PER_WINDOW); past the window's allowance, one 429 to answer.
        When the allowance comes back (RateLimit-Reset)."""
        reset = int(time.time()) + 1
        if self.per_window is not None:
            index = int(time.time() // self.window)
            self._windows[index] = self._windows.get(index, 0) + 1
            if self._windows[index] > self.per_window:
                self.too_many += 1
                self.rate_limited += 1  # answered just after, as the service does
                reset = math.ceil((index + 1) * self.window)
        return reset

    def _awkward(self, body: dict[str, Any]) -> Response | None:
        """The answers a test asked for instead of the query's: hostile bodies, timeouts, a query
        over the service's limits (scored before anything runs: 200, no `data`, no code, as graphql-ruby)."""
        hostile = self.hostile.get(_demarche_of(body))
        if hostile == "nested" and "dossiers" in body.get("query", ""):
            return Response(b'{"data": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", media_type="application/json")
        if hostile == "huge" and "dossiers" in body.get("query", ""):
            return StreamingResponse(self._huge_page(), media_type="application/json")
        if self.timeouts > 0:
            self.timeouts -= 1
            return JSONResponse({"data": None, "errors": [{"message": "Timeout on Demarche.dossiers", "extensions": {"code": "timeout"}}]})
        over = self._over_limits(body)
        return JSONResponse({"errors": [{"message": over}]}) if over is not None else None

    def _token_rules(self, token: str, caller: str) -> Response | None:
        """The main token's network and expiry, checked in the service's order: its first caller's
        address becomes its network when none was declared (before the expiry is looked at), then a
        caller outside its networks is refused (403), then an expired token (401)."""
        if token != self.token:
            return None
        address = ipaddress.ip_address(caller)
        if self.ip_filtering and not self.networks:
            self.networks.append(_network_of(address))
        self.stored_ips.add(caller)
        if self.forbidden_network or (self.networks and not any(address in ipaddress.ip_network(n, strict=False)
                                                                for n in self.networks)):
            return _errors(403, f"Request issued from a forbidden network. Add {_network_of(address)} to your allowed "
                                "adresses in your /profil", "forbidden")
        today = dt.datetime.now(PARIS).date()
        if self.token_expired or (self.expires_on is not None and today > self.expires_on):
            return _errors(401, "Token expired", "unauthorized")
        return None

    def _valid(self, query: str) -> bool:
        """Whether the document is valid on the schema (remembered: the bot sends a handful)."""
        if query not in self._validated:
            try:
                self._validated[query] = not validate(self.schema, parse(query))
            except GraphQLError:
                self._validated[query] = False
        return self._validated[query]

    def _over_limits(self, body: dict[str, Any]) -> str | None:
        """The service's words for a valid document over its depth or complexity, else None (an
        invalid document gets the validation's own errors, as the service checks that first)."""
        if not self._valid(str(body.get("query", ""))):
            return None
        try:
            return refusal(self.schema, str(body.get("query", "")), body.get("variables"), body.get("operationName"),
                           max_complexity=self.max_complexity)
        except (GraphQLError, ValueError, KeyError, TypeError):
            return None


def _network_of(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str:
    """The one-address network the service writes: `/32`, or `/128` with the IPv6 address unabbreviated."""
    return f"{address}/32" if address.version == 4 else f"{address.exploded}/128"


def _entered(dossier: FakeDossier, state: str, when: dt.datetime) -> None:
    if state == "en_instruction":
        dossier.instructed = when
    elif state in ("accepte", "refuse", "sans_suite"):
        dossier.decided = when
        dossier.instructed = dossier.instructed or when


def _connection(keys: list[Any], items: list[Any], first: int | None, after: str | None,
                node: Callable[[Any], dict[str, Any]]) -> dict[str, Any]:
    """A page of `items` (sorted by `keys`) after the cursor, as graphql-ruby's keyset pagination."""
    if after:
        try:
            stamp, _, ident = base64.urlsafe_b64decode(after + "=" * (-len(after) % 4)).decode().partition(";")
            position = (dt.datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%S.%f000Z").replace(tzinfo=dt.UTC), int(ident))
        except (ValueError, UnicodeDecodeError):
            raise GraphQLError(f'Invalid input: "{after}"') from None
        start = bisect_right(keys, position)
    else:
        start = 0
    size = min(first or 100, 100)
    window = keys[start : start + size]
    return {"nodes": [node(item) for item in items[start : start + size]],
            "pageInfo": {"hasNextPage": start + size < len(keys), "endCursor": _cursor(window[-1]) if window else None,
                         "hasPreviousPage": bool(after), "startCursor": _cursor(window[0]) if window else None}}


def _cursor(position: tuple[dt.datetime, int]) -> str:
    stamp = position[0].astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%f") + "000Z"
    return base64.urlsafe_b64encode(f"{stamp};{position[1]}".encode()).decode().rstrip("=")


def _parse_time(value: str) -> dt.datetime:
    parsed = dt.datetime.fromisoformat(value)
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=dt.UTC)


def _demarche_of(body: dict[str, Any]) -> int:
    """The démarche a query names in its variables (0 for none): the tests slow some, or make them hostile."""
    return int((body.get("variables") or {}).get("demarcheNumber") or 0)


def _errors(status: int, message: str, code: str) -> JSONResponse:
    return JSONResponse({"errors": [{"message": message, "extensions": {"code": code}}], "data": None}, status_code=status)
