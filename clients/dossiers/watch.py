"""What changed in a démarche's dossiers since a moment, for the people who watch it, and who
watches what.

The service has no webhooks yet (ds-graphql.md §9.4; the coming ones are thin, signed events of
the same kinds): changes are read with `dossiers(updatedSince:)`, one request a démarche when
nothing changed, and turned into `DossierChange`s — deposited, the applicant wrote, the state
changed and by whom. Whatever reads them (domain.dossiers.news) does not know how they were found,
so a webhook receiver can hand over the same changes later. Polls spend a fixed share of the
token's allowance and give up rather than wait: digests come first.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass
from typing import Any

import redis.asyncio as aioredis
from pydantic import Field, ValidationError

from clients.dossiers import errors
from clients.dossiers.desk import SERVICE_SENDERS, CardMessage, Person
from clients.dossiers.models import GroupRef, moment_of
from clients.dossiers.queries import PAGE_SIZE
from clients.dossiers.rate_limit import SHARE
from clients.dossiers.service import DossierService
from clients.redis_keys import key
from clients.storage import as_text
from clients.tolerant import Tolerant

#: the share of each minute's allowance polls may use: digests keep the rest
WATCH_SHARE = 0.25
#: changes are read again this far back (clocks differ); what was told already is not told twice
OVERLAP = dt.timedelta(minutes=1)
#: at most this many pages a démarche a poll (a few hundred changed dossiers): the rest next time
MOST_PAGES = 5
#: how long where reading stands, and what each person was told, outlive the last round
KEPT_SECONDS = 7 * 86400

GET_DOSSIER_CHANGES = f"""query getDossierChanges($demarcheNumber: Int!, $updatedSince: ISO8601DateTime!, $after: String) {{
  demarche(number: $demarcheNumber) {{
    number title
    dossiers(first: {PAGE_SIZE}, after: $after, updatedSince: $updatedSince) {{
      pageInfo {{ hasNextPage endCursor }}
      nodes {{
        number state dateDepot
        groupeInstructeur {{ number }}
        instructeurs {{ email }}
        usager {{ email }}
        messages {{ email createdAt discardedAt }}
        traitements {{ event emailAgentTraitant dateTraitement }}
      }}
    }}
  }}
}}"""


class Traitement(Tolerant):
    event: str = ""
    emailAgentTraitant: str | None = None
    dateTraitement: str | None = None


class Changed(Tolerant):
    number: int
    state: str = ""
    dateDepot: str | None = None
    groupeInstructeur: GroupRef | None = None
    instructeurs: list[Person] = Field(default_factory=list)
    usager: Person | None = None
    messages: list[CardMessage] = Field(default_factory=list)
    traitements: list[Traitement] = Field(default_factory=list)


class ChangesPage(Tolerant):
    nodes: list[Changed] = Field(default_factory=list)
    hasNextPage: bool = False
    endCursor: str | None = None


@dataclass(frozen=True)
class DossierChange:
    """One thing that happened to a dossier: `deposited`, `wrote` (the applicant), `state` (its
    new state in `state`, by `by`: an agent's e-mail, or "" for the service itself)."""

    demarche: int
    number: int
    kind: str
    at: dt.datetime
    group: int | None
    followers: frozenset[str]  # e-mails, lower case
    state: str = ""
    by: str = ""

    @property
    def mark(self) -> str:
        """Names it among what was told already."""
        return f"{self.number}:{self.kind}:{int(self.at.timestamp())}"


@dataclass(frozen=True)
class Unanswered:
    """Whether each changed dossier now waits for an answer to the applicant (for Home's list)."""

    number: int
    group: int | None
    waiting: bool


@dataclass(frozen=True)
class Read:
    """What one poll of a démarche read: its changes, whether each changed dossier waits for an
    answer, and `after`, the cursor to go on from next round while a backlog is left (None once
    read to the end)."""

    changes: list[DossierChange]
    waiting: list[Unanswered]
    after: str | None


async def changes_since(service: DossierService, demarche: int, since: dt.datetime, after: str | None = None) -> Read:
    """What changed since `since`, from the cursor `after` when a backlog is being read: at most
    `MOST_PAGES` pages, the rest next round (the service's keyset cursors never expire, and a dossier
    changed meanwhile comes again at the end). `OverShare` when the allowance's share for polls is
    spent before a page was read; spent later, what was read is returned with its cursor."""
    token = SHARE.set(WATCH_SHARE)
    found: list[DossierChange] = []
    waiting: list[Unanswered] = []
    try:
        for number in range(MOST_PAGES):
            try:
                data = await service.query("getDossierChanges", GET_DOSSIER_CHANGES,
                                           {"demarcheNumber": demarche, "updatedSince": (since - OVERLAP).isoformat(), "after": after})
            except errors.OverShare:
                if number == 0:
                    raise
                return Read(found, waiting, after)
            page = _page(data)
            for node in page.nodes:
                found += _changes(demarche, node, since)
                waiting.append(Unanswered(node.number, _group(node), _unanswered(node)))
            if not page.hasNextPage or not page.endCursor or page.endCursor == after:
                return Read(found, waiting, None)
            after = page.endCursor
        return Read(found, waiting, after)
    finally:
        SHARE.reset(token)


def _page(data: dict[str, Any]) -> ChangesPage:
    demarche = data.get("demarche")
    connection = demarche.get("dossiers") if isinstance(demarche, dict) else None
    if not isinstance(connection, dict):
        connection = {}
    info = connection.get("pageInfo")
    try:
        return ChangesPage.model_validate({"nodes": connection.get("nodes") or [], **(info if isinstance(info, dict) else {})})
    except ValidationError:
        raise errors.Unreadable("the dossier service sent changes we cannot read") from None


def _group(node: Changed) -> int | None:
    return node.groupeInstructeur.number if node.groupeInstructeur else None


def _changes(demarche: int, node: Changed, since: dt.datetime) -> list[DossierChange]:
    followers = frozenset(person.email.strip().lower() for person in node.instructeurs)
    made = []

    def change(kind: str, at: dt.datetime | None, **more: str) -> None:
        if at is not None and at > since - OVERLAP:
            made.append(DossierChange(demarche, node.number, kind, at, _group(node), followers, **more))

    change("deposited", moment_of(node.dateDepot))
    applicant = (node.usager.email if node.usager else "").strip().lower()
    for message in node.messages:
        if applicant and message.email.strip().lower() == applicant and not message.discardedAt:
            change("wrote", moment_of(message.createdAt))
    for step in node.traitements:
        if step.event not in ("depose", ""):
            change("state", moment_of(step.dateTraitement), state=node.state, by=(step.emailAgentTraitant or "").strip().lower())
    return made


def _unanswered(node: Changed) -> bool:
    applicant = (node.usager.email if node.usager else "").strip().lower()
    people = [m for m in node.messages if m.email.strip().lower() not in SERVICE_SENDERS and not m.discardedAt]
    return bool(applicant) and bool(people) and people[-1].email.strip().lower() == applicant


class Watches:
    """Who watches which démarches, in which workspace (`/dossier watch`); when each démarche was
    last read for each token; what each person was told; which dossiers wait for an answer."""

    def __init__(self, redis: aioredis.Redis) -> None:
        self._redis = redis

    async def start(self, team: str, user: str, demarches: list[int]) -> None:
        await self._redis.set(key("desk-watch", team, user), json.dumps(sorted(set(demarches))))
        await self._redis.sadd(key("desk-watchers"), f"{team}/{user}")

    async def forget_team(self, team: str) -> int:
        """An uninstalled workspace's watches go (the per-person keys go with its other data)."""
        members = [str(as_text(m)) for m in await self._redis.smembers(key("desk-watchers"))]
        gone = [member for member in members if member.partition("/")[0] == team]
        if gone:
            await self._redis.srem(key("desk-watchers"), *gone)
        return len(gone)

    async def stop(self, team: str, user: str) -> bool:
        await self._redis.srem(key("desk-watchers"), f"{team}/{user}")
        return bool(await self._redis.delete(key("desk-watch", team, user)))

    async def of(self, team: str, user: str) -> list[int] | None:
        raw = as_text(await self._redis.get(key("desk-watch", team, user)))
        return [int(n) for n in json.loads(raw)] if raw else None

    async def everyone(self) -> dict[tuple[str, str], list[int]]:
        found = {}
        for member in sorted(str(as_text(m)) for m in await self._redis.smembers(key("desk-watchers"))):
            team, _, user = member.partition("/")
            demarches = await self.of(team, user)
            if demarches is not None:
                found[(team, user)] = demarches
        return found

    async def round(self, seconds: int) -> bool:
        """Whether this process reads the watched démarches now: one round every `seconds`, across
        processes and replicas, so that nobody is told twice."""
        return bool(await self._redis.set(key("desk-round"), "1", nx=True, ex=max(1, seconds)))

    async def reading(self, account: str, demarche: int) -> tuple[dt.datetime, str | None] | None:
        """Since when the démarche's changes are read for this token, and the cursor a backlog is
        being read from (None: from the start); None before its first round."""
        since, after = (as_text(raw) for raw in await self._redis.mget(key("desk-since", account, str(demarche)),
                                                                        key("desk-after", account, str(demarche))))
        return (dt.datetime.fromisoformat(since), after or None) if since else None

    async def read_until(self, account: str, demarche: int, moment: dt.datetime) -> None:
        """Everything up to `moment` was read: the next round reads changes since then."""
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.set(key("desk-since", account, str(demarche)), moment.isoformat(), ex=KEPT_SECONDS)
            pipe.delete(key("desk-after", account, str(demarche)))
            await pipe.execute()

    async def read_on(self, account: str, demarche: int, after: str | None) -> None:
        """A backlog is left: the next round goes on from `after` (from the start for None), with
        the same `since`."""
        async with self._redis.pipeline(transaction=True) as pipe:
            if after:
                pipe.set(key("desk-after", account, str(demarche)), after, ex=KEPT_SECONDS)
            else:
                pipe.delete(key("desk-after", account, str(demarche)))
            pipe.expire(key("desk-since", account, str(demarche)), KEPT_SECONDS)
            await pipe.execute()

    async def first_time(self, team: str, user: str, demarche: int, changes: list[DossierChange],
                         forget_before: dt.datetime) -> set[str]:
        """The marks of `changes` not told to this person yet (and now noted as told). A mark is
        kept, scored by when its change happened, only while a read can find that change again:
        until `forget_before` (the next read's `since` less the overlap), so the set holds what the
        overlap window (or a backlog being read) needs, however many rounds go by."""
        name = key("desk-told", team, user, str(demarche))
        async with self._redis.pipeline(transaction=False) as pipe:
            for change in changes:
                pipe.zadd(name, {change.mark: change.at.timestamp()}, nx=True)
            pipe.zremrangebyscore(name, "-inf", forget_before.timestamp())
            pipe.expire(name, KEPT_SECONDS)
            added = await pipe.execute()
        return {change.mark for change, fresh in zip(changes, added, strict=False) if fresh}

    async def note_unanswered(self, account: str, demarche: int, states: list[Unanswered]) -> None:
        name = key("desk-unanswered", account, str(demarche))
        for each in states:
            if each.waiting:
                await self._redis.hset(name, str(each.number), str(each.group or ""))
            else:
                await self._redis.hdel(name, str(each.number))

    async def unanswered(self, account: str, demarche: int) -> dict[int, int | None]:
        """Dossiers whose applicant wrote last, with their group, as the polls saw them."""
        raw = await self._redis.hgetall(key("desk-unanswered", account, str(demarche)))
        return {int(str(as_text(number))): int(group) if (group := str(as_text(value))).isdecimal() else None
                for number, value in raw.items()}
