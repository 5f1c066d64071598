"""What changed in a démarche's dossiers since a moment, for the people who watch it, and who
watches what.

The service has no webhooks yet (ds-graphql.md §10.5; the coming ones are thin, signed events of
the same kinds): changes are read with `dossiers(updatedSince:)` and `deletedDossiers(deletedSince:)`
in one document, one request a démarche when nothing changed, and turned into `DossierChange`s of
the kinds of `news_kinds.Kind`. What one read cannot tell — a dossier moved to another group, its
labels changed, deleted, or entering its expiry notice — is told by comparing with what the watch
remembers of each dossier it saw (`Watches.recall`). Whatever reads the changes
(domain.dossiers.news) knows them through `ChangeSource` only, so a webhook receiver can hand over
the same changes later. Polls spend a fixed share of the token's allowance and give up rather than
wait: digests come first.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

import redis.asyncio as aioredis
from pydantic import Field, ValidationError

from clients.dossiers import errors
from clients.dossiers.desk import SERVICE_SENDERS, CardMessage, Person
from clients.dossiers.models import GroupRef, moment_of
from clients.dossiers.news_kinds import Kind
from clients.dossiers.queries import PAGE_SIZE
from clients.dossiers.rate_limit import SHARE
from clients.dossiers.service import DossierService
from clients.redis_keys import email_digest, key
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
#: kinds the service does not say who did: the bot notes who, when it acts as someone (`Watches.did`)
AUTHORED = frozenset({Kind.ANNOTATIONS.value, Kind.GROUP.value, Kind.LABELS.value})
#: a dossier is told as expiring this long before its `dateExpiration`: the notice the service gives
#: before deleting an expired dossier (two weeks in its source as read; not exposed by the API)
EXPIRY_NOTICE = dt.timedelta(days=14)

_DELETED = f"""deletedDossiers(first: {PAGE_SIZE}, after: $deletedAfter, deletedSince: $updatedSince) @include(if: $withDeleted) {{
      pageInfo {{ hasNextPage endCursor }}
      nodes {{ number dateSupression }}
    }}"""

#: the changed dossiers (`$after`: a backlog's cursor) and, on a round's first request, the deleted ones
GET_DOSSIER_CHANGES = f"""query getDossierChanges($demarcheNumber: Int!, $updatedSince: ISO8601DateTime!, $after: String,
    $withDeleted: Boolean = true, $deletedAfter: String) {{
  demarche(number: $demarcheNumber) {{
    number title
    dossiers(first: {PAGE_SIZE}, after: $after, updatedSince: $updatedSince) {{
      pageInfo {{ hasNextPage endCursor }}
      nodes {{
        number state dateDepot dateDerniereModificationChamps dateDerniereModificationAnnotations dateExpiration
        groupeInstructeur {{ number }}
        instructeurs {{ email }}
        usager {{ email }}
        labels {{ name }}
        messages {{ email createdAt discardedAt correction {{ dateResolution }} }}
        avis {{ dateReponse }}
        traitements {{ event emailAgentTraitant dateTraitement }}
      }}
    }}
    {_DELETED}
  }}
}}"""

#: more deleted dossiers than one page since the last round (rare: only then a request more)
GET_DELETED_SINCE = f"""query getDeletedSince($demarcheNumber: Int!, $updatedSince: ISO8601DateTime!, $deletedAfter: String,
    $withDeleted: Boolean = true) {{
  demarche(number: $demarcheNumber) {{
    {_DELETED}
  }}
}}"""


class Traitement(Tolerant):
    event: str = ""
    emailAgentTraitant: str | None = None
    dateTraitement: str | None = None


class Avis(Tolerant):
    dateReponse: str | None = None


class Label(Tolerant):
    name: str = ""


class Changed(Tolerant):
    number: int
    state: str = ""
    dateDepot: str | None = None
    dateDerniereModificationChamps: str | None = None
    dateDerniereModificationAnnotations: str | None = None
    dateExpiration: str | None = None
    groupeInstructeur: GroupRef | None = None
    instructeurs: list[Person] = Field(default_factory=list)
    usager: Person | None = None
    labels: list[Label] = Field(default_factory=list)
    messages: list[CardMessage] = Field(default_factory=list)
    avis: list[Avis] = Field(default_factory=list)
    traitements: list[Traitement] = Field(default_factory=list)


class ChangesPage(Tolerant):
    nodes: list[Changed] = Field(default_factory=list)
    hasNextPage: bool = False
    endCursor: str | None = None


class Deleted(Tolerant):
    number: int
    dateSupression: str | None = None


class DeletedPage(Tolerant):
    nodes: list[Deleted] = Field(default_factory=list)
    hasNextPage: bool = False
    endCursor: str | None = None


def follower_tag(email: str) -> str:
    """How a follower is known in a change and in what the watch remembers: no e-mail kept."""
    return email_digest(email)[:16]


@dataclass(frozen=True)
class DossierChange:
    """One thing that happened to a dossier, of a `Kind` (its stored name): `state` the new state,
    `by` who did it when the service says (an agent's e-mail, lower case) or the bot noted it (their
    `follower_tag`), "" for the service or unknown, `detail` what the kind's words need (`asked` or `resolved` for a correction; `to` or
    `away` for a group: its `group` is the one concerned, `other` the one it went to or came from;
    the expiry day, ISO, for `expiring`; the labels now, for `labels`)."""

    demarche: int
    number: int
    kind: str
    at: dt.datetime
    group: int | None
    followers: frozenset[str]  # follower_tag of each follower
    state: str = ""
    by: str = ""
    detail: str = ""
    other: int | None = None

    @property
    def mark(self) -> str:
        """Names it among what was told already."""
        return f"{self.number}:{self.kind}:{int(self.at.timestamp())}"

    def followed_by(self, email: str) -> bool:
        return follower_tag(email) in self.followers

    def done_by(self, email: str) -> bool:
        return bool(self.by) and self.by in (email.strip().lower(), follower_tag(email))


@dataclass(frozen=True)
class Seen:
    """What the watch remembers of a dossier it saw change: to tell later what no read shows."""

    number: int
    group: int | None
    followers: frozenset[str]
    labels: tuple[str, ...]
    expires: dt.datetime | None

    told: float | None = None  # the expiry (Unix seconds) it was told as expiring for, if it was

    def kept(self, told: float | None) -> str:
        return json.dumps([self.group, sorted(self.followers), list(self.labels), told], ensure_ascii=False)

    @staticmethod
    def of(number: int, value: str) -> Seen | None:
        try:
            group, followers, labels, told = json.loads(value)
            return Seen(number, group if isinstance(group, int) else None, frozenset(map(str, followers)),
                        tuple(map(str, labels)), None, float(told) if isinstance(told, int | float) else None)
        except (ValueError, TypeError):
            return None


@dataclass(frozen=True)
class Gone:
    number: int
    at: dt.datetime


@dataclass(frozen=True)
class Unanswered:
    """Whether each changed dossier now waits for an answer to the applicant (for Home's list)."""

    number: int
    group: int | None
    waiting: bool


@dataclass(frozen=True)
class Read:
    """What one poll of a démarche read: its changes, whether each changed dossier waits for an
    answer, what to remember of each, the dossiers deleted, and `after`, the cursor to go on from
    next round while a backlog is left (None once read to the end)."""

    changes: list[DossierChange]
    waiting: list[Unanswered]
    after: str | None
    seen: list[Seen] = field(default_factory=list)
    gone: list[Gone] = field(default_factory=list)


class ChangeSource(Protocol):
    """Where a démarche's changes come from: polling (`Polling`, today), a webhook receiver the day
    the service sends them (§10.5: it would read each dossier an event names with the same document
    and hand over the same `Read`). `since` and `after` are where the last read stopped."""

    async def changes(self, demarche: int, since: dt.datetime, after: str | None) -> Read: ...


@dataclass(frozen=True)
class Polling:
    """The changes read by asking the service (`changes_since`) with one token."""

    service: DossierService

    async def changes(self, demarche: int, since: dt.datetime, after: str | None) -> Read:
        return await changes_since(self.service, demarche, since, after)


async def changes_since(service: DossierService, demarche: int, since: dt.datetime, after: str | None = None) -> Read:
    """What changed since `since`, from the cursor `after` when a backlog is being read: at most
    `MOST_PAGES` pages, the rest next round (the service's keyset cursors never expire, and a dossier
    changed meanwhile comes again at the end). `OverShare` when the allowance's share for polls is
    spent before a page was read; spent later, what was read is returned with its cursor."""
    token = SHARE.set(WATCH_SHARE)
    found: list[DossierChange] = []
    waiting: list[Unanswered] = []
    seen: list[Seen] = []
    gone: list[Gone] = []
    variables = {"demarcheNumber": demarche, "updatedSince": (since - OVERLAP).isoformat()}
    try:
        for number in range(MOST_PAGES):
            try:
                data = await service.query("getDossierChanges", GET_DOSSIER_CHANGES,
                                           {**variables, "after": after, "withDeleted": number == 0})
                if number == 0:
                    gone = await _deleted(service, variables, data)
            except errors.OverShare:
                if number == 0:
                    raise
                return Read(found, waiting, after, seen, gone)
            page = _page(data)
            for node in page.nodes:
                found += _changes(demarche, node, since)
                waiting.append(Unanswered(node.number, _group(node), _unanswered(node)))
                seen.append(_seen(node))
            if not page.hasNextPage or not page.endCursor or page.endCursor == after:
                return Read(found, waiting, None, seen, gone)
            after = page.endCursor
        return Read(found, waiting, after, seen, gone)
    finally:
        SHARE.reset(token)


async def _deleted(service: DossierService, variables: dict[str, Any], data: dict[str, Any]) -> list[Gone]:
    """The dossiers deleted since, from the round's first answer; more than a page costs a request
    a page more (at most `MOST_PAGES`: the rest are read again next round)."""
    gone: list[Gone] = []
    for _ in range(MOST_PAGES):
        page = _deleted_page(data)
        gone += [Gone(node.number, at) for node in page.nodes if (at := moment_of(node.dateSupression)) is not None]
        if not page.hasNextPage or not page.endCursor:
            break
        data = await service.query("getDeletedSince", GET_DELETED_SINCE, {**variables, "deletedAfter": page.endCursor})
    return gone


def _deleted_page(data: dict[str, Any]) -> DeletedPage:
    demarche = data.get("demarche")
    connection = demarche.get("deletedDossiers") if isinstance(demarche, dict) else None
    if not isinstance(connection, dict):
        return DeletedPage()
    info = connection.get("pageInfo")
    try:
        return DeletedPage.model_validate({"nodes": connection.get("nodes") or [], **(info if isinstance(info, dict) else {})})
    except ValidationError:
        raise errors.Unreadable("the dossier service sent deleted dossiers we cannot read") from None


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


def _followers(node: Changed) -> frozenset[str]:
    return frozenset(follower_tag(person.email) for person in node.instructeurs if person.email.strip())


def _seen(node: Changed) -> Seen:
    return Seen(node.number, _group(node), _followers(node), tuple(sorted(label.name for label in node.labels)),
                moment_of(node.dateExpiration))


def _changes(demarche: int, node: Changed, since: dt.datetime) -> list[DossierChange]:
    """What one read of the dossier shows happened since (less the overlap); a date equal to the
    deposit's is the deposit itself (the service sets them together)."""
    made = []
    deposited = moment_of(node.dateDepot)

    def change(kind: Kind, at: dt.datetime | None, state: str = "", by: str = "", detail: str = "") -> None:
        if at is not None and at > since - OVERLAP:
            made.append(DossierChange(demarche, node.number, kind.value, at, _group(node), _followers(node), state, by, detail))

    def after_deposit(at: dt.datetime | None) -> dt.datetime | None:
        return at if at is not None and (deposited is None or at > deposited) else None

    change(Kind.DEPOSITED, deposited)
    change(Kind.MODIFIED, after_deposit(moment_of(node.dateDerniereModificationChamps)))
    change(Kind.ANNOTATIONS, after_deposit(moment_of(node.dateDerniereModificationAnnotations)))
    applicant = (node.usager.email if node.usager else "").strip().lower()
    for message in node.messages:
        sender = message.email.strip().lower()
        if applicant and sender == applicant and not message.discardedAt:
            change(Kind.WROTE, moment_of(message.createdAt))
        if message.correction is not None:
            change(Kind.CORRECTION, moment_of(message.createdAt), detail="asked", by=sender)
            change(Kind.CORRECTION, moment_of(message.correction.dateResolution), detail="resolved")
    for avis in node.avis:
        change(Kind.AVIS, moment_of(avis.dateReponse))
    for step in node.traitements:
        if step.event not in ("depose", ""):
            change(Kind.STATE, moment_of(step.dateTraitement), state=node.state, by=(step.emailAgentTraitant or "").strip().lower())
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
        since, after = (as_text(raw) for raw in await self._redis.mget(*_reading(account, demarche)))
        if not since:
            since, after = await self._untagged_reading(account, demarche)
        return (dt.datetime.fromisoformat(since), after or None) if since else None

    async def _untagged_reading(self, account: str, demarche: int) -> tuple[str | None, str | None]:
        """Where reading stood under the names before their hash tag (`desk-since:<token>:<démarche>`,
        in two slots of a Cluster), moved to the tagged ones: a single Redis upgraded goes on from
        there, not from now. Those names lapse 7 days after their last round: past a week on this
        version, nothing is found under them (this read, one per démarche that has no tagged `since`:
        its first round, can then go)."""
        old = key("desk-since", account, str(demarche)), key("desk-after", account, str(demarche))
        async with self._redis.pipeline(transaction=False) as pipe:  # not an MGET: two slots of a Cluster
            for name in old:
                pipe.get(name)
            since, after = (as_text(raw) for raw in await pipe.execute())
        if since:
            await self._read_from(account, demarche, since, after)
            for name in old:
                await self._redis.delete(name)
        return since, after

    async def read_until(self, account: str, demarche: int, moment: dt.datetime) -> None:
        """Everything up to `moment` was read: the next round reads changes since then."""
        await self._read_from(account, demarche, moment.isoformat(), None)

    async def read_on(self, account: str, demarche: int, after: str | None) -> None:
        """A backlog is left: the next round goes on from `after` (from the start for None), with
        the same `since`."""
        since, cursor = _reading(account, demarche)
        async with self._redis.pipeline(transaction=True) as pipe:
            if after:
                pipe.set(cursor, after, ex=KEPT_SECONDS)
            else:
                pipe.delete(cursor)
            pipe.expire(since, KEPT_SECONDS)
            await pipe.execute()

    async def _read_from(self, account: str, demarche: int, since: str, after: str | None) -> None:
        """The `since` and cursor of the next read, changed together (a cursor belongs to its `since`)."""
        since_key, cursor = _reading(account, demarche)
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.set(since_key, since, ex=KEPT_SECONDS)
            if after:
                pipe.set(cursor, after, ex=KEPT_SECONDS)
            else:
                pipe.delete(cursor)
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

    async def recall(self, account: str, demarche: int, read: Read, now: dt.datetime) -> list[DossierChange]:
        """What a read shows only beside what the watch remembers of each dossier it saw: moved to
        another group (told to both), labels changed, deleted (told to whom it concerned), and now
        within `EXPIRY_NOTICE` of its expiry (told once an expiry date). A dossier never seen since
        the watch began has no past here: its first move or label change is only remembered."""
        memory, expiring = key("desk-seen", account, str(demarche)), key("desk-expiring", account, str(demarche))
        numbers = [str(each.number) for each in read.seen] + [str(each.number) for each in read.gone]
        found = await self._redis.hmget(memory, numbers) if numbers else []
        before = {number: Seen.of(int(number), str(as_text(raw))) for number, raw in zip(numbers, found, strict=True) if raw}
        made: list[DossierChange] = []
        async with self._redis.pipeline(transaction=False) as pipe:
            for seen in read.seen:
                old = before.get(str(seen.number))
                made += _compared(demarche, old, seen, now)
                told = old.told if old is not None else None
                pipe.hset(memory, str(seen.number), seen.kept(told))
                if seen.expires is not None and seen.expires.timestamp() != told:
                    pipe.zadd(expiring, {str(seen.number): seen.expires.timestamp()})
                elif seen.expires is None:
                    pipe.zrem(expiring, str(seen.number))
            for gone in read.gone:
                if (old := before.get(str(gone.number))) is not None:
                    made.append(DossierChange(demarche, gone.number, Kind.DELETED.value, gone.at, old.group, old.followers))
                pipe.hdel(memory, str(gone.number))
                pipe.zrem(expiring, str(gone.number))
            pipe.expire(memory, KEPT_SECONDS)
            await pipe.execute()
        return made + await self._expiring(memory, expiring, demarche, now)

    async def _expiring(self, memory: str, expiring: str, demarche: int, now: dt.datetime) -> list[DossierChange]:
        due: list[Any] = await self._redis.zrangebyscore(expiring, "-inf", (now + EXPIRY_NOTICE).timestamp(),
                                                                       withscores=True)
        if not due:
            return []
        numbers = [str(as_text(number)) for number, _ in due]
        found = await self._redis.hmget(memory, numbers)
        made = []
        async with self._redis.pipeline(transaction=False) as pipe:
            pipe.zrem(expiring, *numbers)
            for (number, score), raw in zip(zip(numbers, (float(score) for _, score in due), strict=True), found, strict=True):
                old = Seen.of(int(number), str(as_text(raw))) if raw else None
                if old is not None:
                    day = dt.datetime.fromtimestamp(score, dt.UTC)
                    made.append(DossierChange(demarche, old.number, Kind.EXPIRING.value, day - EXPIRY_NOTICE, old.group,
                                              old.followers, detail=day.date().isoformat()))
                    pipe.hset(memory, number, old.kept(score))
            await pipe.execute()
        return made

    async def did(self, demarche: int, number: int, kind: Kind, email: str, at: dt.datetime) -> None:
        """The bot acted as this person on the dossier (annotations, its group, its labels: kinds the
        service does not say who did): the watch then does not tell them what they did."""
        name = key("desk-did", str(demarche))
        async with self._redis.pipeline(transaction=False) as pipe:
            pipe.hset(name, f"{number}:{kind.value}", json.dumps([follower_tag(email), at.timestamp()]))
            pipe.expire(name, KEPT_SECONDS)
            await pipe.execute()

    async def authored(self, demarche: int, changes: list[DossierChange], since: dt.datetime) -> list[DossierChange]:
        """`changes` with who did them where the service does not say and the bot acted since `since`
        (less the overlap): `by` is then that person's `follower_tag`."""
        unknown = [change for change in changes if not change.by and change.kind in AUTHORED]
        if not unknown:
            return changes
        fields = [f"{change.number}:{change.kind}" for change in unknown]
        noted = dict(zip(fields, await self._redis.hmget(key("desk-did", str(demarche)), fields), strict=True))
        found = []
        for change in changes:
            raw = noted.get(f"{change.number}:{change.kind}") if not change.by else None
            who, when = json.loads(as_text(raw) or "") if raw else ("", 0.0)
            found.append(replace(change, by=str(who)) if who and when > (since - OVERLAP).timestamp() else change)
        return found

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


def _compared(demarche: int, old: Seen | None, seen: Seen, now: dt.datetime) -> list[DossierChange]:
    """A group or labels that differ from what was remembered (the read does not say when: now)."""
    if old is None:
        return []
    made = []
    if old.group != seen.group:
        made.append(DossierChange(demarche, seen.number, Kind.GROUP.value, now, seen.group, seen.followers,
                                  detail="to", other=old.group))
        made.append(DossierChange(demarche, seen.number, Kind.GROUP.value, now, old.group, old.followers,
                                  detail="away", other=seen.group))
    if old.labels != seen.labels:
        made.append(DossierChange(demarche, seen.number, Kind.LABELS.value, now, seen.group, seen.followers,
                                  detail=", ".join(seen.labels)))
    return made


def _reading(account: str, demarche: int) -> tuple[str, str]:
    """Where a démarche's reading stands for a token: its `since` and a backlog's cursor, one hash
    tag for both, so that a Cluster reads them in one MGET and changes them in one transaction."""
    tag = f"{{{account}:{demarche}}}"
    return key("desk-since", tag), key("desk-after", tag)
