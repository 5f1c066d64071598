"""`/dossier watch`: which démarches a person starts watching — those they are an administrator or
an instructeur of now, as the service lists them — as data.

With no number: those they watch already (kept, not dropped), and those the workspace's digests
follow. One démarche that cannot be checked just now (the service down, or this minute's share of
the allowance spent) changes nothing.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from clients.dossiers import errors
from clients.dossiers.rate_limit import Priority, with_priority
from clients.dossiers.subscriptions import Subscriptions
from clients.dossiers.watch import Watches
from clients.once import Once
from domain.dossiers.accounts import WorkspaceAccounts

MOST_WATCHED = 20  # démarches one person watches
WATCH_CHANGES_PER_HOUR = 10  # each reads up to MOST_WATCHED member lists


class Started(enum.Enum):
    WATCHING = "watching"  # `kept` watched now; `refused` not theirs
    NO_TOKEN = "no_token"
    TOO_OFTEN = "too_often"  # past WATCH_CHANGES_PER_HOUR
    UNCHECKED = "unchecked"  # `unchecked` could not be checked just now: nothing changed
    NONE = "none"  # nothing of what was asked (`refused`) is theirs: nothing changed


@dataclass(frozen=True)
class WatchStart:
    started: Started
    kept: list[int] = field(default_factory=list)
    refused: list[int] = field(default_factory=list)
    unchecked: int = 0


@dataclass(frozen=True)
class WatchList:
    accounts: WorkspaceAccounts
    once: Once
    watches: Watches
    subscriptions: Subscriptions

    @with_priority(Priority.ASKED)
    async def start(self, team: str, user: str, email: str, numbers: tuple[int, ...]) -> WatchStart:
        account = await self.accounts.for_team(team)
        if account is None:
            return WatchStart(Started.NO_TOKEN)
        if not await self.once.within("dossier-watch", team, user, most=WATCH_CHANGES_PER_HOUR, ttl=3600):
            return WatchStart(Started.TOO_OFTEN)
        followed = [n for sub in await self.subscriptions.all(team) for n in sub.demarches]
        asked = numbers or tuple(dict.fromkeys([*(await self.watches.of(team, user) or ()), *followed]))
        kept: list[int] = []
        refused: list[int] = []
        for number in asked[:MOST_WATCHED]:
            try:
                entitled = (await account.access.membership(number)).entitled(email)
            except errors.DossierServiceUnavailable:
                return WatchStart(Started.UNCHECKED, unchecked=number)
            except errors.DossierServiceError:
                entitled = False
            (kept if entitled else refused).append(number)
        if not kept:
            return WatchStart(Started.NONE, refused=refused)
        await self.watches.start(team, user, kept)
        return WatchStart(Started.WATCHING, kept, refused)
