"""A loopback démarche.numérique GraphQL API (ds-graphql.md), executing queries on the real schema.

graphql-core validates every query against `ds-schema.graphql` and runs it with resolvers over
generated dossiers. This module assembles the stand-in: `FakeDS` holds what a test sets (the
service's switches, its tokens' rules, the awkward answers to give) and the handles to make its
data (démarches, deposits, changes, deletions), and wires the schema to the parts that answer:
the resolvers that read (ds_graph), the acts that write (ds_acts), and the HTTP gates around every
request (ds_http: tokens, networks, expiry, rate limits, cost limits).
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from graphql import GraphQLSchema, build_schema
from starlette.applications import Starlette

from bot.demo.ds_acts import Acts, wire
from bot.demo.ds_cost import MAX_COMPLEXITY
from bot.demo.ds_data import FakeAvis, FakeDemarche, FakeDossier, FakeGroup
from bot.demo.ds_graph import Graph
from bot.demo.ds_http import Endpoint, request_token

#: the service's schema (SDL, September 2026, app/graphql/schema.graphql @45541a2a, 242 types; its header says whence),
#: shipped with the stand-in that runs on it
SCHEMA = Path(__file__).with_name("ds-schema.graphql")
STATES = ("en_construction", "en_instruction", "accepte", "refuse", "sans_suite")
TOKEN = "ds-token-secret-value"
T0 = dt.datetime(2026, 1, 5, 8, 0, tzinfo=dt.UTC)


def load_schema(path: Path = SCHEMA) -> GraphQLSchema:
    """The schema with its fields answered: a query's root is the FakeDS, whose `graph` reads and `acts` write."""
    schema = build_schema(path.read_text())
    assert schema.query_type is not None
    schema.query_type.fields["demarche"].resolve = lambda root, info, number: root.graph.demarche(number)
    schema.query_type.fields["dossier"].resolve = lambda root, info, number: root.graph.dossier(number)
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
    url: str = ""
    now: dt.datetime = T0
    _next_id: int = 1

    def __post_init__(self) -> None:
        self.acts = Acts(self)
        self.graph = Graph(self)

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

    def _dossier(self, number: int, dossier_number: int) -> FakeDossier:
        return next(d for d in self.demarches[number].dossiers if d.number == dossier_number)

    def _touched(self, number: int, dossier_number: int) -> FakeDossier:
        """A change the service saves on the dossier: its updatedAt moves (`updatedSince` finds it)."""
        self.now += dt.timedelta(seconds=1)
        dossier = self._dossier(number, dossier_number)
        dossier.updated = self.now
        return dossier

    def modify(self, number: int, dossier_number: int) -> None:
        """The applicant changes their answers (dateDerniereModificationChamps)."""
        dossier = self._touched(number, dossier_number)
        dossier.modified = self.now

    def annotate(self, number: int, dossier_number: int) -> None:
        """An instructeur changes a private annotation (dateDerniereModificationAnnotations)."""
        dossier = self._touched(number, dossier_number)
        dossier.annotated = self.now

    def answer_avis(self, number: int, dossier_number: int, expert: str) -> None:
        """An expert answers an avis asked of them (asked now if it was not; an avis touches the dossier)."""
        dossier = self._touched(number, dossier_number)
        waiting = next((a for a in dossier.avis if a.expert == expert and a.answered is None), None)
        if waiting is None:
            waiting = FakeAvis(self.now, expert=expert)
            dossier.avis.append(waiting)
        waiting.answered = self.now

    def resolve_correction(self, number: int, dossier_number: int) -> None:
        """The applicant submits the correction asked (their answers change with it)."""
        dossier = self._touched(number, dossier_number)
        for message in dossier.messages:
            if message.correction and message.resolved is None:
                message.resolved = self.now
        dossier.pending_correction = False
        dossier.modified = self.now

    def reroute(self, number: int, dossier_number: int, group: int) -> None:
        """dossierChangerGroupeInstructeur: the dossier goes to another group (a save: updatedAt moves)."""
        self._touched(number, dossier_number).group = group

    def label(self, number: int, dossier_number: int, *labels: str) -> None:
        """The dossier's labels become `labels` — a DossierLabel does not touch the dossier (§9.3):
        updatedAt stays, so `updatedSince` does not find it for that alone."""
        self._dossier(number, dossier_number).labels = list(labels)

    def expire_on(self, number: int, dossier_number: int, when: dt.datetime) -> None:
        """The day the service will delete the dossier (dateExpiration; set with its other dates)."""
        self._touched(number, dossier_number).expires = when

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

    # --- what the request's token reads (the resolvers and the acts ask) -------------------
    def current_token(self) -> str:
        return request_token(TOKEN)

    def hidden(self) -> set[int]:
        """The démarches the request's token may not read."""
        token = self.current_token()
        if token in self.tokens:
            return set(self.demarches) - self.tokens[token]
        return self.out_of_scope

    def asgi(self) -> Starlette:
        return Endpoint(self).asgi()


def _entered(dossier: FakeDossier, state: str, when: dt.datetime) -> None:
    if state == "en_instruction":
        dossier.instructed = when
    elif state in ("accepte", "refuse", "sans_suite"):
        dossier.decided = when
        dossier.instructed = dossier.instructed or when
