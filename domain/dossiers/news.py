"""The watch's rounds: what changed in the watched démarches, and who is told what — as data.

Every round reads each watched démarche once for every token (`clients.dossiers.watch`), whoever
watches it with that token; then, for each watcher, keeps what concerns them — their groups and
their follows as the service lists them now, so rights that end stop the news — and what they
were not told yet (what was told is remembered per démarche), at the level they chose for each kind
(`Choices`: the service's defaults until they choose). Kinds someone does (a state, a correction
asked) are not told to the one who did them. Who a watcher is (their e-mail, and whether their
account still stands) is the surface's to say; the words and the message are its too.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
from dataclasses import dataclass, field

from clients.dossiers import errors
from clients.dossiers.accounts import DossierAccount
from clients.dossiers.news_kinds import Choices, Kind, Level, Relation, ServiceDefaults, wants
from clients.dossiers.watch import OVERLAP, ChangeSource, DossierChange, Polling, Watches
from domain.dossiers.accounts import WorkspaceAccounts

log = logging.getLogger(__name__)

CONCURRENT_POLLS = 4


@dataclass(frozen=True)
class Polled:
    """A démarche's changes read this round, and the moment before which a change cannot be read
    again (what was told of older ones can be forgotten)."""

    changes: list[DossierChange]
    forget_before: dt.datetime


@dataclass(frozen=True)
class Watcher:
    """One person with something read for them this round: what changed in each démarche they watch."""

    team: str
    user: str
    account: DossierAccount
    polled: dict[int, Polled]


@dataclass(frozen=True)
class Why:
    """Why a person is told of a change: how they stand to the dossier, the level they hear its kind
    at in its démarche, and their group's label."""

    relation: Relation
    level: Level
    group: str


#: a change the watcher hears of, and why
Theirs = tuple[DossierChange, Why]


@dataclass(frozen=True)
class NewsRounds:
    watches: Watches
    accounts: WorkspaceAccounts
    choices: Choices = field(default_factory=ServiceDefaults)

    async def read(self, now: dt.datetime) -> list[Watcher]:
        """Reads every watched démarche once per token; the watchers of démarches where something changed."""
        people = await self.watches.everyone()
        accounts = {team: await self.accounts.for_team(team) for team in {team for team, _ in people}}
        polls = {(account.name, number): account for (team, _), numbers in people.items()
                 if (account := accounts.get(team)) is not None for number in numbers}
        found: dict[tuple[str, int], Polled] = {}
        limit = asyncio.Semaphore(CONCURRENT_POLLS)

        async def poll(name: str, number: int, account: DossierAccount) -> None:
            async with limit:
                found[(name, number)] = await read_changes(self.watches, account, number, now)

        await asyncio.gather(*(poll(name, number, account) for (name, number), account in polls.items()))
        watchers = []
        for (team, user), numbers in people.items():
            account = accounts.get(team)
            if account is not None:
                polled = {number: found[(account.name, number)] for number in numbers if (account.name, number) in found}
                if any(each.changes for each in polled.values()):
                    watchers.append(Watcher(team, user, account, polled))
        return watchers

    async def theirs(self, watcher: Watcher, email: str) -> dict[int, list[Theirs]]:
        """What the watcher (known by `email`) wants of what was read, démarche by démarche, and why."""
        found: dict[int, list[Theirs]] = {}
        for number, each in watcher.polled.items():
            whys = [(change, await self._why(watcher, change, email)) for change in each.changes]
            found[number] = [(change, why) for change, why in whys if why is not None and wants(why.level, why.relation)]
        return found

    async def _why(self, watcher: Watcher, change: DossierChange, email: str) -> Why | None:
        """How the watcher stands to the changed dossier now, and the level they chose for its kind;
        None when it is not theirs at all."""
        related = await relation(watcher.account, change, email)
        if related is Relation.NONE:
            return None
        level = await self.choices.level(watcher.team, watcher.user, change.demarche, Kind(change.kind))
        return Why(related, level, await _group_label(watcher.account, change))

    async def untold(self, watcher: Watcher, theirs: dict[int, list[Theirs]]) -> list[Theirs]:
        """Of what is theirs, what they were not told yet — now counted as told."""
        news: list[Theirs] = []
        for number, told in theirs.items():
            once = list({change.mark: (change, why) for change, why in told}.values())  # a dossier changed mid-read comes twice
            fresh = await self.watches.first_time(watcher.team, watcher.user, number, [change for change, _ in once],
                                                  watcher.polled[number].forget_before)
            news += [(change, why) for change, why in once if change.mark in fresh]
        return news


def polling(account: DossierAccount) -> ChangeSource | None:
    """Where the token's changes come from: the service asked every round (no webhooks yet)."""
    return Polling(account.desk.service) if account.desk is not None else None


async def read_changes(watches: Watches, account: DossierAccount, number: int, now: dt.datetime) -> Polled:
    """The démarche's changes since it was last read for this token (from now on, the first time);
    a backlog too large for one round goes on from its cursor the next."""
    reading = await watches.reading(account.name, number)
    source = polling(account)
    if reading is None or source is None:
        await watches.read_until(account.name, number, now)
        return Polled([], now - OVERLAP)
    since, after = reading
    try:
        read = await source.changes(number, since, after)
    except errors.OverShare:
        log.info("watch of n° %d waits: the share of the allowance for watches is spent this minute", number)
        return Polled([], since - OVERLAP)
    except errors.DossierServiceError as error:
        log.warning("watch of n° %d not read: %s (%s)", number, error.reason, error)
        if after is not None and isinstance(error, errors.QueryRejected):  # a cursor the service no longer takes
            await watches.read_on(account.name, number, None)
        return Polled([], since - OVERLAP)
    await watches.note_unanswered(account.name, number, read.waiting)
    changes = await watches.authored(number, read.changes + await watches.recall(account.name, number, read, now), since)
    if read.after is not None:
        await watches.read_on(account.name, number, read.after)
        return Polled(changes, since - OVERLAP)
    await watches.read_until(account.name, number, now)
    return Polled(changes, now - OVERLAP)


async def _group_label(account: DossierAccount, change: DossierChange) -> str:
    try:
        groups = (await account.access.membership(change.demarche)).groups
    except errors.DossierServiceError:
        return ""
    return groups[change.group][0] if change.group in groups else ""


async def relation(account: DossierAccount, change: DossierChange, email: str) -> Relation:
    """How the person stands to the changed dossier now, as the service lists its groups (rights
    that ended stop the news): in the group the change concerns, following it or not; NONE too for
    the one who did it."""
    try:
        groups = (await account.access.membership(change.demarche)).groups_of(email)
    except errors.DossierServiceError:
        return Relation.NONE
    if change.group not in groups or change.done_by(email):
        return Relation.NONE
    return Relation.FOLLOWS if change.followed_by(email) else Relation.GROUP
